-- lgprof.stacks, the name of earlier releases: lgprof.analysis.stacks
return require "lgprof.analysis.stacks"
