-- lgprof.check, the name of earlier releases: lgprof.analysis.check
return require "lgprof.analysis.check"
