-- lgprof.diff, the name of earlier releases: lgprof.analysis.diff
return require "lgprof.analysis.diff"
