/* tool_passes.c — the pass manager's debugging flags, one definition for kfront-opt and `kfront compile`:
 * --print-ir-after-all, --print-ir-after=NAMES, --time-passes, --verify-each / --no-verify-each and
 * --mlir-print-debuginfo, parsed into a kf_pass_options (and the printer's flags); their help text. Both tools
 * then run the pipeline through kf_module_run_pipeline, whose report (IR dumps, timings) goes to stderr. */
#include <string.h>

#include "tool_io.h"

const char tool_pass_flags_help[] =
    "  --print-ir-after-all     print the IR after every pass (stderr)\n"
    "  --print-ir-after=NAMES   print the IR after the named passes (stderr)\n"
    "  --time-passes            print a timing report of the passes (stderr)\n"
    "  --no-verify-each         do not run the verifier after each pass\n"
    "  --mlir-print-debuginfo   print op locations, loc(\"file\":line:col)\n";

bool tool_pass_flag(const char *arg, kf_pass_options *po, unsigned *print_flags) {
  if (strcmp(arg, "--print-ir-after-all") == 0) po->print_ir_after_all = 1;
  else if (strncmp(arg, "--print-ir-after=", 17) == 0) po->print_ir_after = arg + 17;
  else if (strcmp(arg, "--time-passes") == 0) po->time_passes = 1;
  else if (strcmp(arg, "--verify-each") == 0) po->verify_each = 1;
  else if (strcmp(arg, "--no-verify-each") == 0) po->verify_each = 0;
  else if (strcmp(arg, "--mlir-print-debuginfo") == 0 || strcmp(arg, "--print-debuginfo") == 0) {
    *print_flags |= KF_PRINT_DEBUG_INFO;
    po->print_debug_info = 1;
  } else {
    return false;
  }
  return true;
}
