-- lgprof.report, the name of earlier releases: lgprof.format.report
return require "lgprof.format.report"
