/* fuzz_common.h — what the libFuzzer harnesses share: an input's compile directives.
 *
 * A Python input may name the kernels to compile and their Numba signatures on lines of its own,
 *     #@ NAME SIGNATURE          e.g.  #@ axpy void(float64[:], float64, float64[:], float64[:])
 * (a comment to Python, so the source stays valid), as `kfront compile -k NAME --sig SIG` would; without any,
 * every kernel with an eager signature is compiled. The seed corpora (make_corpus.py) carry the directives
 * of the lit tests they come from. */
#ifndef KF_FUZZ_COMMON_H
#define KF_FUZZ_COMMON_H

#include <stddef.h>

#include "kfront/kfront.h"

enum { FUZZ_MAX_KERNELS = 8 };

typedef struct FuzzDirectives {
  char *text;                           /* the input, NUL-terminated (owned) */
  const char *names[FUZZ_MAX_KERNELS];  /* point into buf */
  const char *sigs[FUZZ_MAX_KERNELS];
  unsigned n;
  char *buf;                            /* the directives' copies (owned) */
} FuzzDirectives;

/* Reads the directives of data[0..size); the caller frees with fuzz_directives_free. */
void fuzz_directives_read(FuzzDirectives *d, const unsigned char *data, size_t size);
void fuzz_directives_free(FuzzDirectives *d);
/* Compile options for them (kf_compile_options_init's, with the kernels and signatures named). */
void fuzz_compile_options(const FuzzDirectives *d, kf_compile_options *co);

#endif
