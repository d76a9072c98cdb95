/*
** blurbs.c: the explanatory texts gprof 2.40 prints after its reports
** (omitted with -b). They come from GNU gprof's flat_bl.m, fsf_callg_bl.m
** and bsd_callg_bl.m, which are distributed under the all-permissive
** notice reproduced at the end of each text; copied from gprof's output.
*/
#include "model/stackprofile.h"
#include "write/report.h"

/* The notice every text ends with. */
#define NOTICE \
  "Copyright (C) 2012-2023 Free Software Foundation, Inc.\n" \
  "\n" \
  "Copying and distribution of this file, with or without modification,\n" \
  "are permitted in any medium without royalty provided the copyright\n" \
  "notice and this notice are preserved.\n"

const char lgp_flat_blurb[] =
  "\n"
  " %         the percentage of the total running time of the\n"
  "time       program used by this function.\n"
  "\n"
  "cumulative a running sum of the number of seconds accounted\n"
  " seconds   for by this function and those listed above it.\n"
  "\n"
  " self      the number of seconds accounted for by this\n"
  "seconds    function alone.  This is the major sort for this\n"
  "           listing.\n"
  "\n"
  "calls      the number of times this function was invoked, if\n"
  "           this function is profiled, else blank.\n"
  "\n"
  " self      the average number of milliseconds spent in this\n"
  "ms/call    function per call, if this function is profiled,\n"
  "\t   else blank.\n"
  "\n"
  " total     the average number of milliseconds spent in this\n"
  "ms/call    function and its descendents per call, if this\n"
  "\t   function is profiled, else blank.\n"
  "\n"
  "name       the name of the function.  This is the minor sort\n"
  "           for this listing. The index shows the location of\n"
  "\t   the function in the gprof listing. If the index is\n"
  "\t   in parenthesis it shows where it would appear in\n"
  "\t   the gprof listing if it were to be printed.\n"
  "\f\n"
  NOTICE;

const char lgp_fsf_callg_blurb[] =
  "\n"
  " This table describes the call tree of the program, and was sorted by\n"
  " the total amount of time spent in each function and its children.\n"
  "\n"
  " Each entry in this table consists of several lines.  The line with the\n"
  " index number at the left hand margin lists the current function.\n"
  " The lines above it list the functions that called this function,\n"
  " and the lines below it list the functions this one called.\n"
  " This line lists:\n"
  "     index\tA unique number given to each element of the table.\n"
  "\t\tIndex numbers are sorted numerically.\n"
  "\t\tThe index number is printed next to every function name so\n"
  "\t\tit is easier to look up where the function is in the table.\n"
  "\n"
  "     % time\tThis is the percentage of the `total' time that was spent\n"
  "\t\tin this function and its children.  Note that due to\n"
  "\t\tdifferent viewpoints, functions excluded by options, etc,\n"
  "\t\tthese numbers will NOT add up to 100%.\n"
  "\n"
  "     self\tThis is the total amount of time spent in this function.\n"
  "\n"
  "     children\tThis is the total amount of time propagated into this\n"
  "\t\tfunction by its children.\n"
  "\n"
  "     called\tThis is the number of times the function was called.\n"
  "\t\tIf the function called itself recursively, the number\n"
  "\t\tonly includes non-recursive calls, and is followed by\n"
  "\t\ta `+' and the number of recursive calls.\n"
  "\n"
  "     name\tThe name of the current function.  The index number is\n"
  "\t\tprinted after it.  If the function is a member of a\n"
  "\t\tcycle, the cycle number is printed between the\n"
  "\t\tfunction's name and the index number.\n"
  "\n"
  "\n"
  " For the function's parents, the fields have the following meanings:\n"
  "\n"
  "     self\tThis is the amount of time that was propagated directly\n"
  "\t\tfrom the function into this parent.\n"
  "\n"
  "     children\tThis is the amount of time that was propagated from\n"
  "\t\tthe function's children into this parent.\n"
  "\n"
  "     called\tThis is the number of times this parent called the\n"
  "\t\tfunction `/' the total number of times the function\n"
  "\t\twas called.  Recursive calls to the function are not\n"
  "\t\tincluded in the number after the `/'.\n"
  "\n"
  "     name\tThis is the name of the parent.  The parent's index\n"
  "\t\tnumber is printed after it.  If the parent is a\n"
  "\t\tmember of a cycle, the cycle number is printed between\n"
  "\t\tthe name and the index number.\n"
  "\n"
  " If the parents of the function cannot be determined, the word\n"
  " `<spontaneous>' is printed in the `name' field, and all the other\n"
  " fields are blank.\n"
  "\n"
  " For the function's children, the fields have the following meanings:\n"
  "\n"
  "     self\tThis is the amount of time that was propagated directly\n"
  "\t\tfrom the child into the function.\n"
  "\n"
  "     children\tThis is the amount of time that was propagated from the\n"
  "\t\tchild's children to the function.\n"
  "\n"
  "     called\tThis is the number of times the function called\n"
  "\t\tthis child `/' the total number of times the child\n"
  "\t\twas called.  Recursive calls by the child are not\n"
  "\t\tlisted in the number after the `/'.\n"
  "\n"
  "     name\tThis is the name of the child.  The child's index\n"
  "\t\tnumber is printed after it.  If the child is a\n"
  "\t\tmember of a cycle, the cycle number is printed\n"
  "\t\tbetween the name and the index number.\n"
  "\n"
  " If there are any cycles (circles) in the call graph, there is an\n"
  " entry for the cycle-as-a-whole.  This entry shows who called the\n"
  " cycle (as parents) and the members of the cycle (as children.)\n"
  " The `+' recursive calls entry shows the number of function calls that\n"
  " were internal to the cycle, and the calls entry for each member shows,\n"
  " for that member, how many times it was called from other members of\n"
  " the cycle.\n"
  "\f\n"
  NOTICE;

const char lgp_bsd_callg_blurb[] =
  "\n"
  "\n"
  "\n"
  "call graph profile:\n"
  "          The sum of self and descendents is the major sort\n"
  "          for this listing.\n"
  "\n"
  "          function entries:\n"
  "\n"
  "index     the index of the function in the call graph\n"
  "          listing, as an aid to locating it (see below).\n"
  "\n"
  "%time     the percentage of the total time of the program\n"
  "          accounted for by this function and its\n"
  "          descendents.\n"
  "\n"
  "self      the number of seconds spent in this function\n"
  "          itself.\n"
  "\n"
  "descendents\n"
  "          the number of seconds spent in the descendents of\n"
  "          this function on behalf of this function.\n"
  "\n"
  "called    the number of times this function is called (other\n"
  "          than recursive calls).\n"
  "\n"
  "self      the number of times this function calls itself\n"
  "          recursively.\n"
  "\n"
  "name      the name of the function, with an indication of\n"
  "          its membership in a cycle, if any.\n"
  "\n"
  "index     the index of the function in the call graph\n"
  "          listing, as an aid to locating it.\n"
  "\n"
  "\n"
  "\n"
  "          parent listings:\n"
  "\n"
  "self*     the number of seconds of this function's self time\n"
  "          which is due to calls from this parent.\n"
  "\n"
  "descendents*\n"
  "          the number of seconds of this function's\n"
  "          descendent time which is due to calls from this\n"
  "          parent.\n"
  "\n"
  "called**  the number of times this function is called by\n"
  "          this parent.  This is the numerator of the\n"
  "          fraction which divides up the function's time to\n"
  "          its parents.\n"
  "\n"
  "total*    the number of times this function was called by\n"
  "          all of its parents.  This is the denominator of\n"
  "          the propagation fraction.\n"
  "\n"
  "parents   the name of this parent, with an indication of the\n"
  "          parent's membership in a cycle, if any.\n"
  "\n"
  "index     the index of this parent in the call graph\n"
  "          listing, as an aid in locating it.\n"
  "\n"
  "\n"
  "\n"
  "          children listings:\n"
  "\n"
  "self*     the number of seconds of this child's self time\n"
  "          which is due to being called by this function.\n"
  "\n"
  "descendent*\n"
  "          the number of seconds of this child's descendent's\n"
  "          time which is due to being called by this\n"
  "          function.\n"
  "\n"
  "called**  the number of times this child is called by this\n"
  "          function.  This is the numerator of the\n"
  "          propagation fraction for this child.\n"
  "\n"
  "total*    the number of times this child is called by all\n"
  "          functions.  This is the denominator of the\n"
  "          propagation fraction.\n"
  "\n"
  "children  the name of this child, and an indication of its\n"
  "          membership in a cycle, if any.\n"
  "\n"
  "index     the index of this child in the call graph listing,\n"
  "          as an aid to locating it.\n"
  "\n"
  "\n"
  "\n"
  "          * these fields are omitted for parents (or\n"
  "          children) in the same cycle as the function.  If\n"
  "          the function (or child) is a member of a cycle,\n"
  "          the propagated times and propagation denominator\n"
  "          represent the self time and descendent time of the\n"
  "          cycle as a whole.\n"
  "\n"
  "          ** static-only parents and children are indicated\n"
  "          by a call count of 0.\n"
  "\n"
  "\n"
  "\n"
  "          cycle listings:\n"
  "          the cycle as a whole is listed with the same\n"
  "          fields as a function entry.  Below it are listed\n"
  "          the members of the cycle, and their contributions\n"
  "          to the time and call counts of the cycle.\n"
  "\f\n"
  NOTICE;

/* {====================================================== sampled stacks */

/* A perf.data profile's explanations, in place of gprof's: its times are
** measured from sampled stacks, nothing is propagated, and a sampler
** counts no call (a profile combined with gmon.out has gmon's calls). */

static const char stacks_flat_head[] =
  "\n"
  " %         the share of all the samples' weight held by this\n"
  "time       function itself (the last frame of their stacks).\n"
  "\n"
  "cumulative a running sum of the self column for this function\n"
  " seconds   and those listed above it.\n"
  "\n"
  " self      the weight of the samples whose stacks end in this\n"
  "seconds    function: time measured by sampling (or the count\n"
  "           of the event recorded). This is the major sort.\n"
  "\n";

static const char stacks_flat_no_calls[] =
  "calls      blank: a sampler records stacks, not how many\n"
  "           times a function was entered.\n"
  "\n"
  " self      blank, for the same reason.\n"
  "ms/call\n"
  "\n"
  " total     blank, for the same reason; the call graph\n"
  "ms/call    listing (-q) gives each function's self and\n"
  "           children.\n"
  "\n";

static const char stacks_flat_gmon_calls[] =
  "calls      the number of times this function was called, as\n"
  "           gmon.out counted them (blank where it counted none).\n"
  "\n"
  " self      the self column per call counted by gmon.out.\n"
  "ms/call\n"
  "\n"
  " total     self and children, measured from the stacks, per\n"
  "ms/call    call counted by gmon.out.\n"
  "\n";

static const char stacks_flat_tail[] =
  "name       the name of the function. This is the minor sort.\n"
  "\f\n";

static const char stacks_callg_head[] =
  "\n"
  " This table is the call graph measured from the sampled stacks. Each\n"
  " entry is a function, with the functions that called it above it and\n"
  " the functions it called below it. A stack counts once for a function\n"
  " however many times the function appears in it (recursion).\n"
  "\n"
  " The line with the index number at the left margin lists:\n"
  "     index\tA unique number for the function, in the order of this\n"
  "\t\tlisting; it is printed after every name, to find it.\n"
  "\n"
  "     % time\tThe share of all the samples' weight whose stacks hold\n"
  "\t\tthis function.\n"
  "\n"
  "     self\tThe weight of the samples whose stacks end in this\n"
  "\t\tfunction.\n"
  "\n"
  "     children\tThe weight of the samples whose stacks hold this\n"
  "\t\tfunction and end in another: in the functions it called.\n"
  "\n";

static const char stacks_callg_no_calls[] =
  "     called\tBlank: a sampler records stacks, not how many times a\n"
  "\t\tfunction was entered.\n"
  "\n";

static const char stacks_callg_gmon_calls[] =
  "     called\tThe number of times the function was called, as\n"
  "\t\tgmon.out counted them. Above it: the times that function\n"
  "\t\tcalled it `/' all the times it was called; below it: the\n"
  "\t\ttimes it called that function `/' all the times that one\n"
  "\t\twas called.\n"
  "\n";

static const char stacks_callg_tail[] =
  "     name\tThe name of the function, then its index. A member of a\n"
  "\t\tcycle has the cycle's number before the index.\n"
  "\n"
  " For a function above it (a caller), self and children are the part\n"
  " of this function's self and children found in the stacks where that\n"
  " caller called it.\n"
  "\n"
  " For a function below it (a callee), self and children are the part\n"
  " of the callee's self and children found in the stacks where this\n"
  " function called it.\n"
  "\n"
  " `<spontaneous>' above a function means stacks begin with it: no\n"
  " caller was recorded.\n"
  "\n"
  " If functions call one another in a circle (a cycle), the cycle as a\n"
  " whole has an entry too, with its callers above and its members below.\n"
  "\f\n";

static int stacks_have_gmon_calls(const lgp_profile *p) {
  return p->stacks != NULL && p->stacks->has_calls;
}

void lgp_report_flat_blurb(lgp_out *o, const lgp_profile *p) {
  if (lgp_stacks_of(p) == NULL) {
    lgp_out_str(o, lgp_flat_blurb);
    return;
  }
  lgp_out_str(o, stacks_flat_head);
  lgp_out_str(o, stacks_have_gmon_calls(p) ? stacks_flat_gmon_calls : stacks_flat_no_calls);
  lgp_out_str(o, stacks_flat_tail);
}

void lgp_report_callg_blurb(lgp_out *o, const lgp_profile *p, int bsd) {
  if (lgp_stacks_of(p) == NULL) {
    lgp_out_str(o, bsd ? lgp_bsd_callg_blurb : lgp_fsf_callg_blurb);
    return;
  }
  lgp_out_str(o, stacks_callg_head);
  lgp_out_str(o, stacks_have_gmon_calls(p) ? stacks_callg_gmon_calls : stacks_callg_no_calls);
  lgp_out_str(o, stacks_callg_tail);
}

/* }====================================================== */
