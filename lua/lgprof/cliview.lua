-- lgprof.cliview, the name of earlier releases: lgprof.cli.views
return require "lgprof.cli.views"
