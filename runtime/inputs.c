/* inputs.c — what an embedder gives a program besides its main source (kf_compile_options' extra sources,
 * bound values, function facts, links and the rest of its options), deep-copied into one arena as the program's
 * own kf_compile_options so that the program's lazy compiles can use it long after kf_program_create returned, and the digest of its canonical text (fe_options_key) that the
 * program's cache keys carry. Bound arrays are copied in C order (their elements are the constant array).
 * fe_options_key is the frontend: it runs under a guard (utils/mem.h); the copy checks its allocations. */
#include <string.h>

#include "backend/backend.h"
#include "frontend/compile.h"
#include "runtime/rt.h"
#include "runtime/runtime.h"
#include "utils/sha256.h"

static const SrcLoc NOLOC = {0};

static char *copy_str(Arena *a, const char *s) { return s ? arena_strdup(a, s) : NULL; }

static const char *const *copy_strs(Arena *a, const char *const *v, unsigned n) {
  if (!v) return NULL;
  const char **out = ARENA_ARRAY(a, const char *, n ? n : 1);
  if (!out) return NULL;
  for (unsigned i = 0; i < n; i++)
    if (!(out[i] = copy_str(a, v[i])) && v[i]) return NULL;
  return out;
}

/* v has been read by fe_options_key: its pointers are there, its nesting bounded, its arrays readable. */
static bool copy_value(Arena *a, const kf_value *v, kf_value *out) {
  *out = *v;
  switch (v->kind) {
  case KF_VALUE_TUPLE:
  case KF_VALUE_SLICE:
  case KF_VALUE_NAMESPACE:
  case KF_VALUE_PYMODULE: {
    kf_value *items = ARENA_ARRAY(a, kf_value, v->nitems ? v->nitems : 1);
    if (!items) return false;
    for (unsigned k = 0; k < v->nitems; k++)
      if (!copy_value(a, &v->items[k], &items[k])) return false;
    out->items = items;
    if ((v->kind != KF_VALUE_TUPLE || v->path) && v->kind != KF_VALUE_SLICE &&
        !(out->names = copy_strs(a, v->names, v->nitems)))
      return false;
    return !v->path || (out->path = copy_str(a, v->path)) != NULL; /* an enum class's member type, a module's name */
  }
  case KF_VALUE_TUPLE_CLASS:
    return (out->path = copy_str(a, v->path)) && (out->names = copy_strs(a, v->names, v->nitems));
  case KF_VALUE_ARRAY: {
    const kf_array *src = &v->array;
    if (src->memory == KF_MEMORY_DEVICE) /* captured where it is: the address is the value */
      return !v->path || (out->path = copy_str(a, v->path)) != NULL;
    int64_t n = 1;
    for (unsigned k = 0; k < src->ndim; k++) n *= src->shape[k];
    size_t esize = rt_dtype_size(src->dtype);
    size_t bytes = (size_t)n * esize;
    void *data = arena_alloc(a, bytes ? bytes : 1);
    if (!data) return false;
    rt_array_gather(src, data);
    out->array.data = data;
    int64_t stride = (int64_t)esize;
    for (unsigned k = src->ndim; k-- > 0;) {
      out->array.strides[k] = stride;
      stride *= src->shape[k];
    }
    return !v->path || (out->path = copy_str(a, v->path)) != NULL; /* an array of records: its record's spelling */
  }
  case KF_VALUE_MODULE:
  case KF_VALUE_PATH:
  case KF_VALUE_EXCEPTION:
  case KF_VALUE_STRING:
  case KF_VALUE_UNSUPPORTED: return (out->path = copy_str(a, v->path)) != NULL;
  case KF_VALUE_FUNCTION: return (out->function = copy_str(a, v->function)) != NULL;
  default: return !v->path || (out->path = copy_str(a, v->path)) != NULL; /* a scalar: an enum member's type */
  }
}

/* Whether o's GPU modules are linked with foreign code: links given, or a binding is a foreign function. */
static bool links_code(const kf_compile_options *o) {
  bool links = o->nlinks > 0;
  for (unsigned i = 0; i < o->nbindings && o->bindings; i++) links |= o->bindings[i].value.kind == KF_VALUE_FOREIGN;
  return links;
}

static bool copy_all(RtInputs *in, const kf_source *extra, unsigned nextra, const kf_compile_options *o) {
  Arena *a = &in->arena;
  kf_compile_options *c = &in->opts;
  c->bounds_check = o->bounds_check != 0;
  c->verify_each = o->verify_each != 0;
  c->lto = o->lto;
  c->module_callback = o->module_callback;
  c->module_callback_data = o->module_callback_data;
  if (o->pipeline && !(c->pipeline = copy_str(a, o->pipeline))) return false;
  kf_source *sources = ARENA_ARRAY(a, kf_source, nextra ? nextra : 1);
  if (!sources) return false;
  for (unsigned i = 0; i < nextra; i++) {
    const kf_source *s = &extra[i];
    char *text = arena_alloc(a, s->len + 1);
    if (!text) return false;
    if (s->len) memcpy(text, s->text, s->len);
    sources[i] = (kf_source){copy_str(a, s->filename), text, s->len, s->first_line};
    if (s->filename && !sources[i].filename) return false;
  }
  c->extra_sources = sources;
  c->nextra_sources = nextra;
  kf_binding *bindings = ARENA_ARRAY(a, kf_binding, o->nbindings ? o->nbindings : 1);
  if (!bindings) return false;
  for (unsigned i = 0; i < o->nbindings; i++) {
    bindings[i].name = copy_str(a, o->bindings[i].name);
    if (!bindings[i].name || !copy_value(a, &o->bindings[i].value, &bindings[i].value)) return false;
  }
  c->bindings = bindings;
  c->nbindings = o->nbindings;
  kf_function_spec *functions = ARENA_ARRAY(a, kf_function_spec, o->nfunctions ? o->nfunctions : 1);
  if (!functions) return false;
  for (unsigned i = 0; i < o->nfunctions; i++) {
    const kf_function_spec *sp = &o->functions[i];
    kf_function_spec *f = &functions[i];
    *f = *sp;
    f->name = copy_str(a, sp->name);
    f->signatures = copy_strs(a, sp->signatures, sp->nsignatures);
    f->layout = copy_str(a, sp->layout);
    if (!f->name || (sp->signatures && !f->signatures) || (sp->layout && !f->layout)) return false;
  }
  c->functions = functions;
  c->nfunctions = o->nfunctions;
  kf_link_input *links = ARENA_ARRAY(a, kf_link_input, o->nlinks ? o->nlinks : 1);
  if (!links) return false;
  for (unsigned i = 0; i < o->nlinks; i++) {
    const kf_link_input *l = &o->links[i];
    char *data = arena_alloc(a, l->len ? l->len : 1);
    if (!data) return false;
    if (l->len) memcpy(data, l->data, l->len);
    links[i] = (kf_link_input){l->kind, copy_str(a, l->name), data, l->len};
    if (!links[i].name) return false;
  }
  c->links = links;
  c->nlinks = o->nlinks;
  c->include_dirs = copy_strs(a, o->include_dirs, o->ninclude_dirs);
  c->ninclude_dirs = o->ninclude_dirs;
  if (o->ninclude_dirs && !c->include_dirs) return false;
  in->links_code = links_code(o);
  in->lto = in->links_code && o->lto != 0;
  return true;
}

/* kfront.h's link kinds are the backend's (runtime/program.c hands them to be_link as they are) */
_Static_assert((int)KF_LINK_CU == (int)BE_LINK_CU && (int)KF_LINK_PTX == (int)BE_LINK_PTX &&
                   (int)KF_LINK_CUBIN == (int)BE_LINK_CUBIN && (int)KF_LINK_FATBIN == (int)BE_LINK_FATBIN &&
                   (int)KF_LINK_LTOIR == (int)BE_LINK_LTOIR && (int)KF_LINK_OBJECT == (int)BE_LINK_OBJECT &&
                   (int)KF_LINK_LIBRARY == (int)BE_LINK_LIBRARY,
               "kf_link_kind and BeLinkKind differ");

bool rt_links_key(const kf_compile_options *o, StrBuf *b) {
  if ((o->nlinks && !o->links) || (o->ninclude_dirs && !o->include_dirs)) return false;
  static const char hex[] = "0123456789abcdef";
  for (unsigned i = 0; i < o->nlinks; i++) {
    const kf_link_input *l = &o->links[i];
    const char *ext = be_link_kind_extension((BeLinkKind)l->kind);
    if (!ext || !l->name || (l->len && !l->data)) return false;
    unsigned char digest[32];
    sha256(l->len ? l->data : "", l->len, digest);
    sb_printf(b, "link %s %zu:%s ", ext, strlen(l->name), l->name);
    for (unsigned k = 0; k < 32; k++) {
      sb_putc(b, hex[digest[k] >> 4]);
      sb_putc(b, hex[digest[k] & 15]);
    }
    sb_putc(b, '\n');
  }
  for (unsigned i = 0; i < o->ninclude_dirs; i++) {
    if (!o->include_dirs[i]) return false;
    sb_printf(b, "include %zu:%s\n", strlen(o->include_dirs[i]), o->include_dirs[i]);
  }
  if (o->lto && links_code(o)) sb_puts(b, "lto\n"); /* (without foreign code lto changes nothing) */
  return true;
}

/* Whether v (or a value inside it) is a device array, captured by its address. */
static bool captures_device_memory(const kf_value *v, unsigned depth) {
  if (depth > 64) return false; /* fe_options_key refuses values nested this deep */
  if (v->kind == KF_VALUE_ARRAY) return v->array.memory == KF_MEMORY_DEVICE;
  if ((v->kind == KF_VALUE_TUPLE || v->kind == KF_VALUE_NAMESPACE || v->kind == KF_VALUE_PYMODULE) && v->items)
    for (unsigned k = 0; k < v->nitems; k++)
      if (captures_device_memory(&v->items[k], depth + 1)) return true;
  return false;
}

/* Whether every bound array of records (v or inside it) spells its record dtype in its path, as kf_value says: the
 * frontend reads the elements as that record. */
static bool records_spelled(const kf_value *v, unsigned depth) {
  if (depth > 64) return true; /* fe_options_key refuses values nested this deep */
  if (v->kind == KF_VALUE_ARRAY && rt_dtype_is_record(v->array.dtype))
    return v->path && strcmp(v->path, rt_dtype_name(v->array.dtype)) == 0;
  if ((v->kind == KF_VALUE_TUPLE || v->kind == KF_VALUE_NAMESPACE || v->kind == KF_VALUE_PYMODULE) && v->items)
    for (unsigned k = 0; k < v->nitems; k++)
      if (!records_spelled(&v->items[k], depth + 1)) return false;
  return true;
}

/* fe_options_key's text of the inputs, and its SHA-256. */
typedef struct KeyJob {
  kf_compile_options inputs;  /* o's extra sources, bindings and function specs (kernels, signatures and bounds
                               * checks are keyed by the compiles and the cache key themselves) */
  const kf_compile_options *o;
  bool readable;
  unsigned char digest[32];
} KeyJob;

static void key_job(void *arg) {
  KeyJob *j = arg;
  StrBuf key;
  sb_init(&key);
  j->readable = fe_options_key(&j->inputs, &key) && rt_links_key(j->o, &key);
  sha256(sb_cstr(&key), key.len, j->digest);
  sb_free(&key);
}

kf_status rt_inputs_copy(RtInputs *in, const kf_source *extra, unsigned nextra, const kf_compile_options *o,
                         Diag *diag) {
  memset(in, 0, sizeof *in);
  arena_init(&in->arena);
  if ((nextra && !extra) || (o->nbindings && !o->bindings) || (o->nfunctions && !o->functions)) {
    diag_error(diag, NOLOC, "kf_program_create: a count of extra sources, bindings or function specs is given "
               "with no array");
    return KF_ERROR_INVALID_INPUT;
  }
  for (unsigned i = 0; i < nextra; i++)
    if (extra[i].len && !extra[i].text) {
      diag_error(diag, NOLOC, "kf_program_create: source %u has a length but no text", i + 1);
      return KF_ERROR_INVALID_INPUT;
    }
  for (unsigned i = 0; i < o->nbindings; i++)
    if (!records_spelled(&o->bindings[i].value, 0)) {
      diag_error(diag, NOLOC, "kf_program_create: the binding '%s' is (or holds) an array of records whose path is "
                 "not its record dtype's spelling (kf_dtype_name)", o->bindings[i].name ? o->bindings[i].name : "?");
      return KF_ERROR_INVALID_INPUT;
    }
  /* read (and so checked) once, by the one canonical reader; the copy relies on what it checked */
  KeyJob j = {{.extra_sources = extra, .nextra_sources = nextra, .bindings = o->bindings, .nbindings = o->nbindings,
               .functions = o->functions, .nfunctions = o->nfunctions}, o, false, {0}};
  if (!diag_guard(diag, key_job, &j)) return KF_ERROR_OUT_OF_MEMORY;
  bool readable = j.readable;
  const unsigned char *digest = j.digest;
  if (!readable) {
    diag_error(diag, NOLOC, "kf_program_create: the bindings, function specs or links cannot be read (a NULL name, "
               "items or data pointer where one is needed, an invalid dtype, rank or link kind, values nested too "
               "deep, a name bound twice)");
    return KF_ERROR_INVALID_INPUT;
  }
  for (unsigned i = 0; i < 32; i++) {
    static const char hex[] = "0123456789abcdef";
    in->digest[2 * i] = hex[digest[i] >> 4];
    in->digest[2 * i + 1] = hex[digest[i] & 15];
  }
  in->digest[64] = 0;
  for (unsigned i = 0; i < o->nbindings; i++) in->captures_device_memory |= captures_device_memory(&o->bindings[i].value, 0);
  if (!copy_all(in, extra, nextra, o)) {
    rt_inputs_free(in);
    diag_out_of_memory(diag);
    return KF_ERROR_OUT_OF_MEMORY;
  }
  return KF_OK;
}

void rt_inputs_free(RtInputs *in) { arena_free(&in->arena); }
