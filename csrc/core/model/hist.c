/*
** hist.c: histogram samples to routines (gprof's hist_assign_samples).
** All arithmetic is in 2-byte units; a bin straddling routines is split
** by overlap, and credits are divided by the real (non-integral) scale,
** which is why percentages can pass 100.
*/
#include "model/hist.h"

double lgp_hist_assign(const lgp_gmon *g, lgp_node *nodes, size_t n, const lgp_specs *specs) {
  double scale = g->hist_scale, total = 0;
  size_t r;
  for (r = 0; r < g->nhist; r++) {
    const lgp_hist *h = &g->hist[r];
    uint64_t lowpc = h->low / 2;
    size_t k = 1; /* gprof's lagging cursor: the next bin starts at k-1 */
    size_t e;
    for (e = 0; e < h->nnz; e++) { /* bins with samples, ascending */
      uint32_t i = h->idx[e];
      uint64_t count = h->cnt[e], bin_low, bin_high;
      size_t j;
      bin_low = lowpc + (uint64_t)(scale * (double)i);
      bin_high = lowpc + (uint64_t)(scale * (double)(i + 1));
      total += (double)count;
      for (j = k - 1; j < n; k = ++j) {
        uint64_t sym_low = nodes[j].addr / 2, sym_high, overlap;
        /* For the last routine gprof reads one entry past its table; in
           every case observed it then credits nothing, so neither do we
           (its samples still count in the total). */
        sym_high = j + 1 < n ? nodes[j + 1].addr / 2 : 0;
        if (bin_high < sym_low)
          break;
        if (bin_low >= sym_high)
          continue;
        overlap = (bin_high < sym_high ? bin_high : sym_high) -
                  (bin_low > sym_low ? bin_low : sym_low);
        if (overlap > 0) {
          double credit = (double)(overlap * count) / scale;
          if (lgp_specs_in_table(specs, &nodes[j], LGP_INCL_FLAT, LGP_EXCL_FLAT))
            nodes[j].hist_time += credit;
          else
            total -= credit;
        }
      }
    }
  }
  return total;
}
