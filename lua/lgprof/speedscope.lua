-- lgprof.speedscope, the name of earlier releases: lgprof.format.speedscope
return require "lgprof.format.speedscope"
