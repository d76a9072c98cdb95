-- lgprof.doctor, the name of earlier releases: lgprof.analysis.doctor
return require "lgprof.analysis.doctor"
