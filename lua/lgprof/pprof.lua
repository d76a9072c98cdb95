-- lgprof.pprof, the name of earlier releases: lgprof.format.pprof
return require "lgprof.format.pprof"
