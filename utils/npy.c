/* npy.c — the .npy format: a magic string, a version, a header length, a Python dict literal
 * ({'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }) padded with spaces and a newline, then
 * the raw elements. The dict is read by a small parser for exactly that literal subset: string keys,
 * string / True / False / tuple-of-integers values, in any order. */
#include "npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file.h"

#include "utils/mem.h"

static const struct {
  const char *code;   /* kind + size, after the byte-order character */
  NpyType type;
  size_t size;
} npy_types[] = {
    {"b1", NPY_BOOL, 1}, {"i1", NPY_I8, 1},  {"i2", NPY_I16, 2}, {"i4", NPY_I32, 4},
    {"i8", NPY_I64, 8},  {"u1", NPY_U8, 1},  {"u2", NPY_U16, 2}, {"u4", NPY_U32, 4},
    {"u8", NPY_U64, 8},  {"f2", NPY_F16, 2}, {"f4", NPY_F32, 4}, {"f8", NPY_F64, 8},
    {"c8", NPY_C64, 8},  {"c16", NPY_C128, 16},
};

size_t npy_type_size(NpyType t) {
  for (size_t i = 0; i < sizeof npy_types / sizeof *npy_types; i++)
    if (npy_types[i].type == t) return npy_types[i].size;
  return 0;
}

const char *npy_type_descr(NpyType t) {
  static const char *descr[NPY__COUNT] = {"|b1", "|i1", "<i2", "<i4", "<i8", "|u1",
                                          "<u2", "<u4", "<u8", "<f2", "<f4", "<f8", "<c8", "<c16"};
  return (unsigned)t < NPY__COUNT ? descr[t] : "?";
}

bool npy_count(unsigned ndim, const int64_t *shape, size_t *count) {
  size_t n = 1;
  for (unsigned i = 0; i < ndim; i++) {
    if (shape[i] < 0) return false;
    if (shape[i] && n > SIZE_MAX / (size_t)shape[i]) return false;
    n *= (size_t)shape[i];
  }
  *count = n;
  return true;
}

static bool fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(char *err, size_t errlen, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return false;
}

void npy_free_record(NpyArray *a) {
  mem_free(a->record);
  mem_free(a->descr);
  a->record = a->descr = NULL;
}

/* ---- the header dict ------------------------------------------------------------------------ */

typedef struct HeaderParser {
  const char *p, *end;
} HeaderParser;

static void skip_ws(HeaderParser *h) {
  while (h->p < h->end && (*h->p == ' ' || *h->p == '\t' || *h->p == '\n' || *h->p == '\r')) h->p++;
}

static bool accept(HeaderParser *h, char c) {
  skip_ws(h);
  if (h->p < h->end && *h->p == c) {
    h->p++;
    return true;
  }
  return false;
}

/* string := '...' | "..." (no escapes are needed by any key or descr numpy writes) */
static bool parse_string(HeaderParser *h, const char **s, size_t *n) {
  skip_ws(h);
  if (h->p >= h->end || (*h->p != '\'' && *h->p != '"')) return false;
  char q = *h->p++;
  const char *start = h->p;
  while (h->p < h->end && *h->p != q) {
    if (*h->p == '\\') return false;
    h->p++;
  }
  if (h->p >= h->end) return false;
  *s = start;
  *n = (size_t)(h->p - start);
  h->p++;
  return true;
}

static bool parse_word(HeaderParser *h, const char *w) {
  skip_ws(h);
  size_t n = strlen(w);
  if ((size_t)(h->end - h->p) < n || memcmp(h->p, w, n) != 0) return false;
  h->p += n;
  return true;
}

/* tuple := '(' [int (',' int)* [',']] ')'   int := digits ['L'] */
static bool parse_shape(HeaderParser *h, NpyArray *a, char *err, size_t errlen) {
  if (!accept(h, '(')) return fail(err, errlen, "'shape' is not a tuple");
  a->ndim = 0;
  for (;;) {
    if (accept(h, ')')) return true;
    skip_ws(h);
    if (h->p >= h->end || *h->p < '0' || *h->p > '9') return fail(err, errlen, "malformed 'shape' tuple");
    int64_t v = 0;
    while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
      if (v > (INT64_MAX - 9) / 10) return fail(err, errlen, "extent in 'shape' is too large");
      v = v * 10 + (*h->p++ - '0');
    }
    if (h->p < h->end && *h->p == 'L') h->p++;
    if (a->ndim == NPY_MAX_RANK) return fail(err, errlen, "arrays of rank above %d are not supported", NPY_MAX_RANK);
    a->shape[a->ndim++] = v;
    if (!accept(h, ',')) {
      if (!accept(h, ')')) return fail(err, errlen, "malformed 'shape' tuple");
      return true;
    }
  }
}

static bool parse_descr(const char *s, size_t n, NpyArray *a, char *err, size_t errlen) {
  if (n < 2) return fail(err, errlen, "unsupported dtype '%.*s'", (int)n, s);
  char order = s[0];
  const char *code = s + 1;
  size_t clen = n - 1;
  if (order != '<' && order != '>' && order != '|' && order != '=') {
    order = '=';
    code = s;
    clen = n;
  }
  if (clen >= 1 && code[0] == 'O') return fail(err, errlen, "object arrays (dtype '%.*s') are not supported", (int)n, s);
  for (size_t i = 0; i < sizeof npy_types / sizeof *npy_types; i++) {
    if (strlen(npy_types[i].code) != clen || memcmp(npy_types[i].code, code, clen) != 0) continue;
    if (order == '>' && npy_types[i].size > 1)
      return fail(err, errlen, "big-endian data (dtype '%.*s') is not supported; convert it with "
                  "a.astype(a.dtype.newbyteorder('<'))", (int)n, s);
    if (order == '|' && npy_types[i].size > 1)
      return fail(err, errlen, "malformed dtype '%.*s' ('|' with a multi-byte type)", (int)n, s);
    a->type = npy_types[i].type;
    return true;
  }
  return fail(err, errlen, "unsupported dtype '%.*s' (supported: b1 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8 c8 c16)", (int)n, s);
}

/* ---- structured dtypes ----
 * descr := '[' field (',' field)* [','] ']'
 * field := '(' name ',' (typestr | descr) [',' shape] [','] ')'   (name '' with '|Vn': n bytes of padding)
 * written as Numba's spelling of the record: Record(name[type=T;offset=N],...;SIZE;False). */
static const char *numba_scalar_name(NpyType t) {
  static const char *names[NPY__COUNT] = {"bool",    "int8",    "int16",   "int32",     "int64",     "uint8",
                                          "uint16",  "uint32",  "uint64",  "float16",   "float32",   "float64",
                                          "complex64", "complex128"};
  return names[t];
}

static bool parse_record_descr(HeaderParser *h, StrBuf *spell, size_t *size, unsigned depth, char *err,
                               size_t errlen) {
  if (depth > 8) return fail(err, errlen, "structured dtype nested too deeply");
  if (!accept(h, '[')) return fail(err, errlen, "malformed structured 'descr'");
  sb_puts(spell, "Record(");
  size_t offset = 0;
  unsigned nfields = 0;
  while (!accept(h, ']')) {
    const char *name, *ts;
    size_t nlen, tlen;
    if (!accept(h, '(') || !parse_string(h, &name, &nlen) || !accept(h, ','))
      return fail(err, errlen, "malformed field in a structured 'descr'");
    for (size_t i = 0; i < nlen; i++) {
      char c = name[i];
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (i && c >= '0' && c <= '9')))
        return fail(err, errlen, "field name '%.*s' is not an identifier", (int)nlen, name);
    }
    StrBuf ft;
    sb_init(&ft);
    size_t fsize = 0;
    skip_ws(h);
    bool padding = false;
    if (h->p < h->end && *h->p == '[') {
      if (!parse_record_descr(h, &ft, &fsize, depth + 1, err, errlen)) {
        sb_free(&ft);
        return false;
      }
    } else if (parse_string(h, &ts, &tlen)) {
      if (nlen == 0 && tlen >= 2 && ts[0] == '|' && ts[1] == 'V') { /* padding */
        for (size_t i = 2; i < tlen; i++) {
          if (ts[i] < '0' || ts[i] > '9' || fsize > (1u << 24)) {
            sb_free(&ft);
            return fail(err, errlen, "malformed padding '%.*s'", (int)tlen, ts);
          }
          fsize = fsize * 10 + (size_t)(ts[i] - '0');
        }
        padding = true;
      } else {
        NpyArray one;
        memset(&one, 0, sizeof one);
        if (!parse_descr(ts, tlen, &one, err, errlen)) {
          sb_free(&ft);
          return false;
        }
        sb_puts(&ft, numba_scalar_name(one.type));
        fsize = npy_type_size(one.type);
      }
    } else {
      sb_free(&ft);
      return fail(err, errlen, "malformed field type in a structured 'descr'");
    }
    if (nlen == 0 && !padding) {
      sb_free(&ft);
      return fail(err, errlen, "a structured dtype's field has no name");
    }
    size_t count = 1;
    if (accept(h, ',') && (skip_ws(h), h->p < h->end && *h->p == '(')) {
      NpyArray sh;
      memset(&sh, 0, sizeof sh);
      if (!parse_shape(h, &sh, err, errlen) || sh.ndim == 0 || sh.ndim > 7) {
        sb_free(&ft);
        return fail(err, errlen, "malformed subarray shape in a structured 'descr'");
      }
      StrBuf nested;
      sb_init(&nested);
      sb_printf(&nested, "nestedarray(%s, (", sb_cstr(&ft));
      for (unsigned d = 0; d < sh.ndim; d++) {
        if (sh.shape[d] < 1 || sh.shape[d] > (1 << 20) || count > (1u << 24)) {
          sb_free(&ft);
          sb_free(&nested);
          return fail(err, errlen, "bad subarray extent in a structured 'descr'");
        }
        sb_printf(&nested, "%s%lld", d ? ", " : "", (long long)sh.shape[d]);
        count *= (size_t)sh.shape[d];
      }
      sb_puts(&nested, sh.ndim == 1 ? ",))" : "))");
      sb_free(&ft);
      ft = nested;
      accept(h, ',');
    }
    if (!accept(h, ')')) {
      sb_free(&ft);
      return fail(err, errlen, "malformed field in a structured 'descr'");
    }
    if (!padding) {
      sb_printf(spell, "%s%.*s[type=%s;offset=%zu]", nfields ? "," : "", (int)nlen, name, sb_cstr(&ft), offset);
      nfields++;
    }
    sb_free(&ft);
    offset += fsize * count;
    if (offset > (1u << 28)) return fail(err, errlen, "structured dtype too large");
    if (!accept(h, ',')) {
      if (!accept(h, ']')) return fail(err, errlen, "malformed structured 'descr'");
      break;
    }
  }
  if (nfields == 0) return fail(err, errlen, "a structured dtype without fields");
  sb_printf(spell, ";%zu;False)", offset);
  *size = offset;
  return true;
}

static bool parse_header(const char *text, size_t len, NpyArray *a, char *err, size_t errlen) {
  HeaderParser h = {text, text + len};
  bool have_descr = false, have_order = false, have_shape = false;
  if (!accept(&h, '{')) return fail(err, errlen, "malformed header (not a dict)");
  for (;;) {
    if (accept(&h, '}')) break;
    const char *key;
    size_t klen;
    if (!parse_string(&h, &key, &klen) || !accept(&h, ':')) return fail(err, errlen, "malformed header dict");
    if (klen == 5 && memcmp(key, "descr", 5) == 0) {
      const char *s;
      size_t n;
      skip_ws(&h);
      if (h.p < h.end && *h.p == '[') {
        StrBuf spell;
        sb_init(&spell);
        const char *descr_start = h.p;
        bool ok = parse_record_descr(&h, &spell, &a->itemsize, 0, err, errlen);
        if (ok && sb_failed(&spell)) {
          errno = ENOMEM;
          ok = fail(err, errlen, "out of memory");
        }
        if (!ok) {
          sb_free(&spell);
          return false;
        }
        npy_free_record(a);
        a->record = sb_take(&spell);
        a->descr = mem_strndup(descr_start, (size_t)(h.p - descr_start));
        if (!a->record || !a->descr) {
          npy_free_record(a);
          errno = ENOMEM;
          return fail(err, errlen, "out of memory");
        }
        a->type = NPY_RECORD;
        have_descr = true;
      } else {
        npy_free_record(a); /* (a 'descr' given twice: the last one counts) */
        if (!parse_string(&h, &s, &n)) return fail(err, errlen, "malformed 'descr'");
        if (!parse_descr(s, n, a, err, errlen)) return false;
      }
      have_descr = true;
    } else if (klen == 13 && memcmp(key, "fortran_order", 13) == 0) {
      if (parse_word(&h, "True")) a->fortran_order = true;
      else if (parse_word(&h, "False")) a->fortran_order = false;
      else return fail(err, errlen, "malformed 'fortran_order'");
      have_order = true;
    } else if (klen == 5 && memcmp(key, "shape", 5) == 0) {
      if (!parse_shape(&h, a, err, errlen)) return false;
      have_shape = true;
    } else {
      return fail(err, errlen, "unexpected key '%.*s' in header", (int)klen, key);
    }
    if (!accept(&h, ',')) {
      if (!accept(&h, '}')) return fail(err, errlen, "malformed header dict");
      break;
    }
  }
  if (!have_descr || !have_order || !have_shape)
    return fail(err, errlen, "header lacks '%s'", !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
  return true;
}

/* ---- reading -------------------------------------------------------------------------------- */

static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};


bool npy_read_mem(const void *buf, size_t len, NpyArray *out, char *err, size_t errlen) {
  const unsigned char *b = buf;
  memset(out, 0, sizeof *out);
  if (len < 10 || memcmp(b, magic, 6) != 0) return fail(err, errlen, "not a .npy file (bad magic string)");
  unsigned major = b[6], minor = b[7];
  size_t hlen, start;
  if (major == 1) {
    hlen = (size_t)b[8] | (size_t)b[9] << 8;
    start = 10;
  } else if (major == 2 || major == 3) {
    if (len < 12) return fail(err, errlen, "truncated header");
    hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
    start = 12;
  } else {
    return fail(err, errlen, "unsupported .npy format version %u.%u", major, minor);
  }
  if (hlen > len - start) return fail(err, errlen, "truncated header");
  if (!parse_header((const char *)b + start, hlen, out, err, errlen)) {
    npy_free_record(out);
    return false;
  }
  size_t count;
  size_t isz = out->type == NPY_RECORD ? out->itemsize : npy_type_size(out->type);
  if (!npy_count(out->ndim, out->shape, &count) || (isz && count > SIZE_MAX / isz)) {
    npy_free_record(out);
    return fail(err, errlen, "array is too large");
  }
  size_t nbytes = count * isz, at = start + hlen;
  if (len - at < nbytes) {
    npy_free_record(out);
    return fail(err, errlen, "truncated data: the header promises %zu bytes, the file holds %zu", nbytes, len - at);
  }
  out->nbytes = nbytes;
  out->data = mem_alloc(nbytes ? nbytes : 1);
  if (!out->data) {
    npy_free_record(out);
    errno = ENOMEM;
    return fail(err, errlen, "out of memory (%zu bytes)", nbytes);
  }
  memcpy(out->data, b + at, nbytes);
  return true;
}

bool npy_read_file(const char *path, NpyArray *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  size_t len;
  char *b = file_read_all(path, &len, err, errlen);
  if (!b) return false;
  bool ok = npy_read_mem(b, len, out, err, errlen);
  mem_free(b);
  return ok;
}

/* ---- writing -------------------------------------------------------------------------------- */

void npy_write_mem(const NpyArray *a, StrBuf *out) {
  StrBuf h;
  sb_init(&h);
  if (a->type == NPY_RECORD) sb_printf(&h, "{'descr': %s, 'fortran_order': %s, 'shape': (", a->descr,
                                       a->fortran_order ? "True" : "False");
  else sb_printf(&h, "{'descr': '%s', 'fortran_order': %s, 'shape': (", npy_type_descr(a->type),
                 a->fortran_order ? "True" : "False");
  for (unsigned i = 0; i < a->ndim; i++) sb_printf(&h, "%lld,%s", (long long)a->shape[i], i + 1 < a->ndim ? " " : "");
  sb_puts(&h, "), }");
  if (sb_failed(&h)) {  /* out of memory: out fails too (and the padding below would never end) */
    sb_free(&h);
    out->failed = true;
    return;
  }
  /* version 1.0 has a 2-byte header length, 2.0 a 4-byte one; the total prefix is padded to 64 bytes */
  size_t prefix = h.len + 64 <= 65535 ? 10 : 12;
  size_t total = (prefix + h.len + 1 + 63) / 64 * 64;
  while (prefix + h.len + 1 < total) sb_putc(&h, ' ');
  sb_putc(&h, '\n');
  unsigned char pre[12];
  memcpy(pre, magic, 6);
  pre[6] = prefix == 10 ? 1 : 2;
  pre[7] = 0;
  size_t hl = h.len;
  for (size_t i = 0; i < prefix - 8; i++) pre[8 + i] = (unsigned char)(hl >> (8 * i));
  sb_putn(out, (const char *)pre, prefix);
  sb_putn(out, h.data, h.len);
  if (a->nbytes) sb_putn(out, a->data, a->nbytes);
  sb_free(&h);
}

bool npy_write_file(const char *path, const NpyArray *a, char *err, size_t errlen) {
  StrBuf b;
  sb_init(&b);
  npy_write_mem(a, &b);
  if (sb_failed(&b)) {
    sb_free(&b);
    errno = ENOMEM;
    return fail(err, errlen, "out of memory");
  }
  bool ok = file_write_atomic(path, b.data ? b.data : "", b.len, FILE_MODE_DEFAULT, err, errlen);
  sb_free(&b);
  return ok;
}
