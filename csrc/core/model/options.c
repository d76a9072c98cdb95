/*
** options.c: the options a profile is opened with (options.h).
*/
#include <stdlib.h>
#include <string.h>

#include "model/options.h"
#include "util/util.h"

void lgp_options_init(lgp_options *o) {
  memset(o, 0, sizeof *o);
  o->default_excludes = 1;
}

void lgp_options_free(lgp_options *o) {
  size_t i;
  for (i = 0; i < o->nspecs; i++)
    free(o->specs[i].text);
  free(o->specs);
  free(o->symbol_file);
  free(o->map_file);
  memset(o, 0, sizeof *o);
}

int lgp_options_add_spec(lgp_options *o, int table, const char *text) {
  if (lgp_grow((void **)&o->specs, &o->specs_cap, o->nspecs + 1, sizeof *o->specs) != 0)
    return -1;
  o->specs[o->nspecs].table = table;
  o->specs[o->nspecs].text = lgp_strdup(text);
  if (o->specs[o->nspecs].text == NULL)
    return -1;
  o->nspecs++;
  return 0;
}
