-- lgprof.svg, the name of earlier releases: lgprof.format.svg
return require "lgprof.format.svg"
