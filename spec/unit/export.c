/*
** export.c: lgp_export's failures say what they are (csrc/core/export.c).
*/
#include <string.h>

#include "export.h"
#include "unit.h"

int main(void) {
  lgp_profile p;
  lgp_names nm;
  lgp_export_opts eo;
  lgp_out o;
  lgp_err err = {0, ""};
  int rc;
  memset(&p, 0, sizeof p);
  memset(&nm, 0, sizeof nm);
  lgp_export_opts_init(&eo);
  eo.format = LGP_EXPORT_FOLDED + 1;
  lgp_out_init(&o, NULL);
  rc = lgp_export(&o, &p, &nm, &eo, &err);
  CHECK(rc == -1, "an unknown format fails (returned %d)", rc);
  CHECK(strcmp(err.msg, "unknown export format 5") == 0, "an unknown format says so: '%s'",
        err.msg);
  CHECK(o.len == 0, "nothing written for an unknown format (%zu bytes)", o.len);
  lgp_out_free(&o);
  return unit_done("export");
}
