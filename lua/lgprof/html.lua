-- lgprof.html, the name of earlier releases: lgprof.format.html
return require "lgprof.format.html"
