/* generated.c — placeholder, filled in below */
#include "frontend/fe.h"

bool gen_kernel(FeCtx *fe, FeFunc *fn, const FeSig *sig, const char *sym) {
  (void)sig;
  (void)sym;
  fe_error(fe, fn->loc, "generated kernels are not implemented yet");
  return false;
}
