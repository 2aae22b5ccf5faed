/* fuzz_common.c — the `#@ NAME SIGNATURE` directives of a fuzz input (see fuzz_common.h). */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

void fuzz_directives_read(FuzzDirectives *d, const unsigned char *data, size_t size) {
  memset(d, 0, sizeof *d);
  d->text = malloc(size + 1);
  d->buf = malloc(size + 1);
  if (!d->text || !d->buf) return;
  memcpy(d->text, data, size);
  d->text[size] = 0;
  memcpy(d->buf, data, size);
  d->buf[size] = 0;
  /* every line "#@ NAME SIG": NAME and SIG become NUL-terminated strings in buf */
  for (char *line = d->buf; line && *line && d->n < FUZZ_MAX_KERNELS;) {
    char *end = memchr(line, '\n', (size_t)(d->buf + size - line));
    if (end) *end = 0;
    if (line[0] == '#' && line[1] == '@' && line[2] == ' ') {
      char *name = line + 3, *sp = strchr(name, ' ');
      if (sp && sp != name && sp[1]) {
        *sp = 0;
        d->names[d->n] = name;
        d->sigs[d->n] = sp + 1;
        d->n++;
      }
    }
    line = end ? end + 1 : NULL;
  }
}

void fuzz_directives_free(FuzzDirectives *d) {
  free(d->text);
  free(d->buf);
}

void fuzz_compile_options(const FuzzDirectives *d, kf_compile_options *co) {
  kf_compile_options_init(co);
  if (!d->n) return;
  co->kernels = d->names;
  co->nkernels = d->n;
  co->signatures = d->sigs;
  co->nsignatures = d->n;
}
