-- lgprof.dot, the name of earlier releases: lgprof.format.dot
return require "lgprof.format.dot"
