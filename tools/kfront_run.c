/* kfront_run.c — `kfront run`: compile a kernel of a Python file for the given arguments and launch it, on
 * the GPU when there is one, else on the simulator. Arguments are .npy files (arrays), zero-filled arrays
 * spelt NAME:DTYPE[SHAPE], or scalars; with -o DIR every array argument is written back after the launch;
 * --link FILE links foreign code the kernel calls (cuda.declare_device at module level). Only the public API
 * (kfront/kfront.h) is used. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "kfront/kfront.h"
#include "kfront_tool.h"
#include "tool_io.h"

static const char usage_text[] =
    "usage: kfront run FILE.py -k NAME --grid X[,Y[,Z]] --block X[,Y[,Z]] [options] ARG...\n"
    "\n"
    "Compiles kernel NAME of FILE.py for the types of ARG... and launches it (the GPU when a CUDA driver and\n"
    "device are found, else the simulator).\n"
    "\n"
    "options:\n"
    "  -k, --kernel NAME        the kernel to launch\n"
    "  --grid X[,Y[,Z]]         blocks per grid\n"
    "  --block X[,Y[,Z]]        threads per block\n"
    "  --shared BYTES           dynamic shared memory per block (default 0)\n"
    "  --device N               run on device N (default 0; also KFRONT_DEVICE=N; the simulator presents\n"
    "                           KFRONT_SIM_DEVICES devices, default 1)\n"
    "  --sim                    run on the simulator even when a GPU is present (also KFRONT_SIM=1)\n"
    "  --sim-max-steps N        the simulator stops a launch after N ops (default 1e10, 1e9 in one thread)\n"
    "  --sim-max-seconds S      the simulator stops a launch after S seconds (default: no limit)\n"
    "  --no-cache               do not use the on-disk kernel cache (also KFRONT_NO_CACHE=1)\n"
    "  --bounds-check=on|off    check every array index (default on)\n"
    "  --link FILE              foreign code the kernel calls (cuda.declare_device): .cu, .ptx, .cubin,\n"
    "                           .fatbin, .ltoir, .o, .a (repeatable; GPU only: the simulator refuses it)\n"
    "  -I DIR                   a folder a --link .cu's #includes are searched in (repeatable)\n"
    "  --lto                    link-time optimisation with the --link code (nvJitLink: small foreign\n"
    "                           functions inlined; numba's lto=True)\n"
    "  -o, --output DIR         after the launch, write every array argument to DIR/<its name>.npy\n"
    "  -v, --verbose            say what runs the kernel, its signature, and whether the cache hit\n"
    "                           (also KFRONT_VERBOSE=1)\n"
    "\n"
    "arguments:\n"
    "  FILE.npy                 an array read from the file (host memory, copied to the device and back)\n"
    "  NAME:DTYPE[D0,D1,...]    a zero-filled array, e.g. out:f32[1000] (written as NAME.npy)\n"
    "  3, -1, 2.5, True         a scalar: int64, float64 or boolean\n"
    "  VALUE:TYPE               a typed scalar: 2.5:f32, 7:i32, 1:u8, 1:b1 (or Numba names: 7:int32)\n"
    "  (ARG,ARG,...)            a tuple of arguments (nested tuples too): (3,4), '(2.5:f32,a.npy,(1,2))', (7,)\n"
    "types: b1 i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c8 c16 (bytes for complex), boolean int8 ... float64\n"
    "       complex64 complex128 (scalars written 1.5+2j:c16)\n";

typedef struct RunArg RunArg;
struct RunArg {
  kf_arg arg;
  const char *out_name;   /* arrays: the file name written under -o DIR */
  bool owned;             /* array data to free: kf_free'd when from kf_npy_load (library memory), else free'd */
  bool from_library;
  RunArg *items;          /* a tuple's elements (arg.items points at item_args) */
  kf_arg *item_args;
  unsigned nitems;
};

static int usage_error(const char *fmt, const char *what) {
  fprintf(stderr, "kfront run: ");
  fprintf(stderr, fmt, what);
  fprintf(stderr, "\n(kfront run --help for usage)\n");
  return 2;
}

/* "X[,Y[,Z]]" -> dims (missing ones are 1). */
static bool parse_dims(const char *s, unsigned dims[3]) {
  dims[0] = dims[1] = dims[2] = 1;
  for (int i = 0; i < 3; i++) {
    char *end;
    errno = 0;
    if (*s < '0' || *s > '9') return false;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || v > 0xFFFFFFFFul) return false;
    dims[i] = (unsigned)v;
    if (*end == 0) return true;
    if (*end != ',') return false;
    s = end + 1;
  }
  return false;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static bool is_float_dtype(kf_dtype t) { return t == KF_FLOAT16 || t == KF_FLOAT32 || t == KF_FLOAT64 || t == KF_BFLOAT16; }
static bool is_unsigned_dtype(kf_dtype t) {
  return t == KF_UINT8 || t == KF_UINT16 || t == KF_UINT32 || t == KF_UINT64;
}

/* A scalar of dtype t from text; false with a message on a bad or out-of-range value. */
static bool parse_typed_scalar(const char *text, kf_dtype t, kf_arg *out, char *err, size_t errlen) {
  char *end;
  errno = 0;
  if (t == KF_BOOL) {
    if (!strcmp(text, "1") || !strcmp(text, "True") || !strcmp(text, "true")) *out = kf_arg_int(KF_BOOL, 1);
    else if (!strcmp(text, "0") || !strcmp(text, "False") || !strcmp(text, "false")) *out = kf_arg_int(KF_BOOL, 0);
    else {
      snprintf(err, errlen, "'%s' is not a boolean (use 0, 1, True or False)", text);
      return false;
    }
    return true;
  }
  if (is_float_dtype(t)) {
    double v = strtod(text, &end);
    if (end == text || *end) {
      snprintf(err, errlen, "'%s' is not a number", text);
      return false;
    }
    *out = kf_arg_float(t, v);
    return true;
  }
  unsigned bits = (unsigned)kf_dtype_size(t) * 8;
  if (is_unsigned_dtype(t)) {
    if (text[0] == '-') {
      snprintf(err, errlen, "%s is negative, but %s is unsigned", text, kf_dtype_name(t));
      return false;
    }
    unsigned long long v = strtoull(text, &end, 0);
    if (end == text || *end) {
      snprintf(err, errlen, "'%s' is not a %s", text, kf_dtype_name(t));
      return false;
    }
    if (errno == ERANGE || (bits < 64 && v >> bits)) {
      snprintf(err, errlen, "'%s' is out of range for %s", text, kf_dtype_name(t));
      return false;
    }
    *out = kf_arg_uint(t, v);
    return true;
  }
  long long v = strtoll(text, &end, 0);
  if (end == text || *end) {
    snprintf(err, errlen, "'%s' is not an %s", text, kf_dtype_name(t));
    return false;
  }
  if (errno == ERANGE || (bits < 64 && (v < -(1ll << (bits - 1)) || v >= (1ll << (bits - 1))))) {
    snprintf(err, errlen, "'%s' is out of range for %s", text, kf_dtype_name(t));
    return false;
  }
  *out = kf_arg_int(t, v);
  return true;
}

/* An untyped scalar: True/False, an integer (int64) or a float (float64). */
static bool parse_scalar(const char *text, kf_arg *out, char *err, size_t errlen) {
  if (!strcmp(text, "True") || !strcmp(text, "False")) return parse_typed_scalar(text, KF_BOOL, out, err, errlen);
  bool floaty = strpbrk(text, ".eEnN") != NULL && strncmp(text, "0x", 2) != 0 && strncmp(text, "-0x", 3) != 0;
  if (parse_typed_scalar(text, floaty ? KF_FLOAT64 : KF_INT64, out, err, errlen)) return true;
  char *end;
  strtod(text, &end);
  if (end != text && !*end) return false; /* a number, out of range for int64: err says so */
  snprintf(err, errlen, "'%s' is neither a number, a .npy file, VALUE:TYPE nor NAME:DTYPE[SHAPE]", text);
  return false;
}

/* NAME:DTYPE[D0,D1,...] -> a zero-filled host array. */
static bool parse_new_array(const char *text, RunArg *ra, char *err, size_t errlen) {
  const char *colon = strchr(text, ':'), *open = strchr(text, '[');
  size_t n = strlen(text);
  if (!colon || !open || open < colon || text[n - 1] != ']' || colon == text) return false;
  char dtname[32];
  size_t dl = (size_t)(open - colon - 1);
  if (dl == 0 || dl >= sizeof dtname) return false;
  memcpy(dtname, colon + 1, dl);
  dtname[dl] = 0;
  kf_dtype t;
  if (kf_dtype_parse(dtname, &t) != KF_OK) {
    snprintf(err, errlen, "unknown dtype '%s' in '%s'", dtname, text);
    return true;
  }
  int64_t shape[KF_MAX_RANK];
  unsigned ndim = 0;
  const char *s = open + 1;
  while (*s != ']') {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || errno || v < 0 || ndim == KF_MAX_RANK || (*end != ',' && *end != ']')) {
      snprintf(err, errlen, "bad shape in '%s' (want NAME:DTYPE[D0,D1,...], at most %d extents)", text, KF_MAX_RANK);
      return true;
    }
    shape[ndim++] = v;
    s = *end == ',' ? end + 1 : end;
  }
  if (ndim == 0) {
    snprintf(err, errlen, "empty shape in '%s'", text);
    return true;
  }
  size_t count = 1;
  for (unsigned i = 0; i < ndim; i++) {
    if (shape[i] && count > SIZE_MAX / 16 / (size_t)shape[i]) {
      snprintf(err, errlen, "array '%s' is too large", text);
      return true;
    }
    count *= (size_t)shape[i];
  }
  size_t bytes = count * kf_dtype_size(t);
  void *data = calloc(bytes ? bytes : 1, 1);
  if (!data) {
    snprintf(err, errlen, "out of memory for '%s'", text);
    return true;
  }
  kf_array a;
  kf_array_init(&a, data, KF_MEMORY_HOST, t, ndim, shape, 'C');
  ra->arg = kf_arg_array(&a);
  ra->owned = true;
  size_t namelen = (size_t)(colon - text);
  char *name = malloc(namelen + 5);
  if (name) {
    memcpy(name, text, namelen);
    strcpy(name + namelen, ".npy");
  }
  ra->out_name = name;
  return true;
}

enum { MAX_TUPLE_DEPTH = 16 };

/* One argument's text (a .npy file, NAME:DTYPE[SHAPE], VALUE:TYPE, a scalar, or a tuple of those) into ra.
 * 0 when it is read; 2 for bad text (err says why); 1 when the library reported the failure. */
static int parse_arg(kf_context *ctx, const char *text, RunArg *ra, char *err, size_t errlen, unsigned depth) {
  size_t n = strlen(text);
  if (text[0] == '(') {
    int balance = 0;
    for (size_t i = 0; i < n && balance >= 0; i++) {
      balance += text[i] == '(' || text[i] == '[';
      balance -= text[i] == ')' || text[i] == ']';
      if (balance == 0 && i + 1 < n) balance = -1; /* closed before the end: "(1)(2)" */
    }
    if (balance != 0) return snprintf(err, errlen, "unbalanced parentheses in '%s'", text), 2;
    if (n < 2 || text[n - 1] != ')' || depth >= MAX_TUPLE_DEPTH) {
      snprintf(err, errlen, depth >= MAX_TUPLE_DEPTH ? "tuples nested too deeply in '%s'" : "unbalanced parentheses in '%s'",
               text);
      return 2;
    }
    /* the items: split at the commas outside brackets and parentheses */
    char *body = strndup(text + 1, n - 2);
    if (!body) return snprintf(err, errlen, "out of memory"), 2;
    unsigned cap = 1;
    for (const char *c = body; *c; c++) cap += *c == ',';
    ra->items = calloc(cap, sizeof *ra->items);
    ra->item_args = calloc(cap, sizeof *ra->item_args);
    if (!ra->items || !ra->item_args) {
      free(body);
      return snprintf(err, errlen, "out of memory"), 2;
    }
    /* items at the commas outside brackets and parentheses; "()" has none, "(7,)" one (a trailing comma) */
    char *item[256];
    unsigned nitem = 0;
    int level = 0, r = 0;
    item[nitem++] = body;
    for (char *c = body; *c && !r; c++) {
      if (*c == '(' || *c == '[') level++;
      else if ((*c == ')' || *c == ']') && --level < 0) r = 2;
      else if (*c == ',' && level == 0) {
        *c = 0;
        if (nitem == 256) r = 2;
        else item[nitem++] = c + 1;
      }
    }
    if (r) snprintf(err, errlen, "unbalanced parentheses or too many items in '%s'", text);
    for (unsigned k = 0; k < nitem; k++)
      while (*item[k] == ' ') item[k]++;
    if (!r && !*item[nitem - 1] && (nitem > 1 || !*body)) nitem--; /* "(a,)" and "()" */
    else if (!r && nitem == 1) r = (snprintf(err, errlen, "a tuple of one item is written (x,), not '%s'", text), 2);
    for (unsigned k = 0; k < nitem && !r; k++) {
      if (!*item[k]) {
        r = (snprintf(err, errlen, "an empty item in '%s'", text), 2);
        break;
      }
      r = parse_arg(ctx, item[k], &ra->items[ra->nitems], err, errlen, depth + 1);
      if (!r) {
        ra->item_args[ra->nitems] = ra->items[ra->nitems].arg;
        ra->nitems++;
      }
    }
    if (!r && level != 0) r = (snprintf(err, errlen, "unbalanced parentheses in '%s'", text), 2);
    free(body);
    if (r) return r;
    ra->arg = kf_arg_tuple(ra->item_args, ra->nitems);
    return 0;
  }
  if (ends_with(text, ".npy")) {
    kf_array arr;
    if (kf_npy_load(ctx, text, &arr) != KF_OK) return 1;
    ra->arg = kf_arg_array(&arr);
    ra->owned = true;
    ra->from_library = true;
    ra->out_name = strdup(base_name(text));
    return 0;
  }
  if (parse_new_array(text, ra, err, errlen)) return err[0] ? 2 : 0;
  const char *colon = strrchr(text, ':');
  bool ok;
  if (colon) {
    char value[256];
    size_t vl = (size_t)(colon - text);
    kf_dtype t;
    if (vl >= sizeof value || kf_dtype_parse(colon + 1, &t) != KF_OK) {
      snprintf(err, errlen, "unknown type '%s' in '%s'", colon + 1, text);
      return 2;
    }
    memcpy(value, text, vl);
    value[vl] = 0;
    if (t == KF_COMPLEX64 || t == KF_COMPLEX128) { /* re, re+imj, re-imj or imj, as Python writes them */
      char *end;
      double re = strtod(value, &end), im = 0;
      if (end != value && (*end == 'j' || *end == 'J') && !end[1]) {
        im = re;
        re = 0;
      } else if (end != value && (*end == '+' || *end == '-')) {
        char *e2;
        im = strtod(end, &e2);
        if (e2 == end || (*e2 != 'j' && *e2 != 'J') || e2[1]) end = value;
        else end = e2 + 1;
      }
      if (end == value || *end) {
        snprintf(err, errlen, "'%s' is not a complex number (write re, re+imj or imj)", text);
        return 2;
      }
      ra->arg = kf_arg_complex(t, re, im);
      return 0;
    }
    ok = parse_typed_scalar(value, t, &ra->arg, err, errlen);
  } else {
    ok = parse_scalar(text, &ra->arg, err, errlen);
  }
  return ok ? 0 : 2;
}

/* Writes every array of ra (a tuple's too) to outdir under its name. */
static bool write_arrays(kf_context *ctx, const char *outdir, const RunArg *ra, bool verbose) {
  if (ra->nitems || ra->arg.kind == KF_ARG_TUPLE) {
    for (unsigned i = 0; i < ra->nitems; i++)
      if (!write_arrays(ctx, outdir, &ra->items[i], verbose)) return false;
    return true;
  }
  if (ra->arg.kind != KF_ARG_ARRAY || !ra->out_name) return true;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", outdir, ra->out_name);
  if (kf_npy_save(ctx, path, &ra->arg.array) != KF_OK) return false;
  if (verbose) fprintf(stderr, "kfront run: wrote %s\n", path);
  return true;
}

static void free_arg(RunArg *ra) {
  for (unsigned i = 0; i < ra->nitems; i++) free_arg(&ra->items[i]);
  free(ra->items);
  free(ra->item_args);
  if (ra->owned && ra->from_library) kf_free(ra->arg.array.data);
  else if (ra->owned) free(ra->arg.array.data);
  free((char *)ra->out_name);
}

static bool make_dir(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s", dir);
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    mkdir(path, 0755);
    *p = '/';
  }
  if (mkdir(path, 0755) != 0 && errno != EEXIST) return false;
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* An option with a value: "--name VALUE", "--name=VALUE" or "-n VALUE". 1: taken (*val set), 0: not this
 * option, -1: the value is missing (reported). */
static int take_value(int argc, char **argv, int *i, const char *longname, const char *shortname, const char **val) {
  const char *a = argv[*i];
  size_t n = strlen(longname);
  if (!strncmp(a, longname, n) && a[n] == '=') {
    *val = a + n + 1;
    return 1;
  }
  if (strcmp(a, longname) != 0 && !(shortname && !strcmp(a, shortname))) return 0;
  if (*i + 1 >= argc) {
    usage_error("%s needs a value", a);
    return -1;
  }
  *val = argv[++*i];
  return 1;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int kfront_run_main(int argc, char **argv) {
  const char *file = NULL, *kernel = NULL, *outdir = NULL;
  unsigned grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  bool have_grid = false, have_block = false, sim = false, no_cache = false;
  bool verbose = tool_env_on("KFRONT_VERBOSE");
  int device = -1;  /* --device; -1: KFRONT_DEVICE or 0 */
  char *cache_dir = NULL;
  int bounds_check = 1;
  unsigned long long shared = 0, sim_max_steps = 0;
  double sim_max_seconds = 0;
  enum { MAX_LINKS = 64 };
  const char *link_paths[MAX_LINKS], *include_dirs[MAX_LINKS];
  unsigned nlink_paths = 0, ninclude_dirs = 0, nlinks = 0;
  kf_link_input links[MAX_LINKS];
  bool lto = false;
  const char **positional = calloc((size_t)argc + 1, sizeof *positional);
  unsigned npositional = 0;
  if (!positional) return 1;
  int status = 2;
  bool options_done = false;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = NULL;
    bool is_option = !options_done && a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9') && a[1] != '.';
    if (!is_option) {
      positional[npositional++] = a;
      continue;
    }
    int r;
    if (!strcmp(a, "--")) {
      options_done = true;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(usage_text, stdout);
      status = 0;
      goto done;
    } else if ((r = take_value(argc, argv, &i, "--kernel", "-k", &val)) != 0) {
      if (r < 0) goto done;
      kernel = val;
    } else if ((r = take_value(argc, argv, &i, "--grid", NULL, &val)) != 0) {
      if (r < 0) goto done;
      if (!parse_dims(val, grid)) {
        usage_error("bad --grid '%s' (want X[,Y[,Z]])", val);
        goto done;
      }
      have_grid = true;
    } else if ((r = take_value(argc, argv, &i, "--block", NULL, &val)) != 0) {
      if (r < 0) goto done;
      if (!parse_dims(val, block)) {
        usage_error("bad --block '%s' (want X[,Y[,Z]])", val);
        goto done;
      }
      have_block = true;
    } else if ((r = take_value(argc, argv, &i, "--shared", NULL, &val)) != 0) {
      if (r < 0) goto done;
      char *end;
      errno = 0;
      shared = strtoull(val, &end, 10);
      if (end == val || *end || errno || val[0] == '-' || shared > 0xFFFFFFFFull) {
        usage_error("bad --shared '%s' (want a number of bytes)", val);
        goto done;
      }
    } else if ((r = take_value(argc, argv, &i, "--device", NULL, &val)) != 0) {
      if (r < 0) goto done;
      char *end;
      errno = 0;
      long d = strtol(val, &end, 10);
      if (end == val || *end || errno || d < 0 || d > 1 << 20) {
        usage_error("bad --device '%s' (want a device number, 0 or more)", val);
        goto done;
      }
      device = (int)d;
    } else if ((r = take_value(argc, argv, &i, "--sim-max-steps", NULL, &val)) != 0) {
      if (r < 0) goto done;
      char *end;
      errno = 0;
      sim_max_steps = strtoull(val, &end, 10);
      if (end == val || *end || errno || val[0] == '-' || !sim_max_steps) {
        usage_error("bad --sim-max-steps '%s' (want a number of ops, at least 1)", val);
        goto done;
      }
    } else if ((r = take_value(argc, argv, &i, "--sim-max-seconds", NULL, &val)) != 0) {
      if (r < 0) goto done;
      char *end;
      sim_max_seconds = strtod(val, &end);
      if (end == val || *end || !(sim_max_seconds > 0 && sim_max_seconds < 1e9)) {
        usage_error("bad --sim-max-seconds '%s' (want a number of seconds above 0)", val);
        goto done;
      }
    } else if ((r = take_value(argc, argv, &i, "--output", "-o", &val)) != 0) {
      if (r < 0) goto done;
      outdir = val;
    } else if ((r = take_value(argc, argv, &i, "--bounds-check", NULL, &val)) != 0) {
      if (r < 0) goto done;
      if (!strcmp(val, "on")) bounds_check = 1;
      else if (!strcmp(val, "off")) bounds_check = 0;
      else {
        usage_error("bad --bounds-check '%s' (want on or off)", val);
        goto done;
      }
    } else if ((r = take_value(argc, argv, &i, "--link", NULL, &val)) != 0) {
      if (r < 0) goto done;
      if (nlink_paths == MAX_LINKS) {
        usage_error("too many %s options", "--link");
        goto done;
      }
      link_paths[nlink_paths++] = val;
    } else if ((r = take_value(argc, argv, &i, "-I", NULL, &val)) != 0 || (!strncmp(a, "-I", 2) && (val = a + 2))) {
      if (r < 0) goto done;
      if (ninclude_dirs == MAX_LINKS) {
        usage_error("too many %s options", "-I");
        goto done;
      }
      include_dirs[ninclude_dirs++] = val;
    } else if (!strcmp(a, "--lto")) {
      lto = true;
    } else if (!strcmp(a, "--sim")) {
      sim = true;
    } else if (!strcmp(a, "--no-cache")) {
      no_cache = true;
    } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
      verbose = true;
    } else {
      usage_error("unknown option '%s'", a);
      goto done;
    }
  }
  if (npositional == 0) {
    usage_error("%s", "no input file");
    goto done;
  }
  file = positional[0];
  if (!kernel) {
    usage_error("%s", "no kernel given (-k NAME)");
    goto done;
  }
  if (!have_grid || !have_block) {
    usage_error("%s", !have_grid ? "no --grid given" : "no --block given");
    goto done;
  }

  /* from here on, failures are errors (1), not usage errors */
  status = 1;
  unsigned nargs = npositional - 1;
  RunArg *ra = calloc(nargs ? nargs : 1, sizeof *ra);
  kf_arg *args = calloc(nargs ? nargs : 1, sizeof *args);
  kf_context *ctx = kf_context_create();
  kf_runtime *rt = NULL;
  kf_program *prog = NULL;
  char *source = NULL;
  if (!ra || !args || !ctx) {
    fprintf(stderr, "kfront run: out of memory\n");
    goto cleanup;
  }
  for (unsigned i = 0; i < nargs; i++) {
    const char *text = positional[i + 1];
    char err[512] = "";
    int r = parse_arg(ctx, text, &ra[i], err, sizeof err, 0);
    if (r) {
      if (r == 2) {
        fprintf(stderr, "kfront run: argument %u: %s\n", i + 1, err);
        status = 2;
      }
      goto cleanup;
    }
    args[i] = ra[i].arg;
  }

  size_t len = 0;
  source = tool_read_file(file, &len);
  if (!source) {
    fprintf(stderr, "%s: error: cannot read: %s\n", file, tool_read_error(errno));
    goto cleanup;
  }
  kf_runtime_options ro;
  kf_runtime_options_init(&ro);
  tool_runtime_options_from_env(&ro, &cache_dir);
  if (sim) ro.mode = KF_RUNTIME_SIM;
  if (device >= 0) ro.device = device;
  if (sim_max_steps) ro.sim_max_steps = sim_max_steps;
  if (sim_max_seconds > 0) ro.sim_max_seconds = sim_max_seconds;
  if (no_cache) ro.disk_cache = 0;
  if (kf_runtime_create(ctx, &ro, &rt) != KF_OK) goto cleanup;
  if (verbose) fprintf(stderr, "kfront run: %s\n", kf_runtime_describe(rt));
  kf_compile_options co;
  kf_compile_options_init(&co);
  co.bounds_check = bounds_check;
  for (; nlinks < nlink_paths; nlinks++)
    if (!tool_read_link("kfront run", link_paths[nlinks], &links[nlinks])) goto cleanup;
  co.links = links;
  co.nlinks = nlinks;
  co.include_dirs = include_dirs;
  co.ninclude_dirs = ninclude_dirs;
  co.lto = lto;
  if (kf_program_create(rt, file, source, len, &co, &prog) != KF_OK) goto cleanup;
  double t0 = now_ms();
  kf_kernel *k = NULL;
  if (kf_program_get_kernel(prog, kernel, args, nargs, &k) != KF_OK) goto cleanup;
  double t1 = now_ms();
  if (verbose) {
    static const char *sources[] = {"miss", "hit (memory)", "hit (disk)"};
    int cs = kf_kernel_cache_source(k);
    fprintf(stderr, "kfront run: kernel %s: %s (ready in %.1f ms)\n", kernel, kf_kernel_signature(k), t1 - t0);
    if (kf_runtime_get_mode(rt) == KF_RUNTIME_GPU) fprintf(stderr, "cache: %s\n", sources[cs >= 0 && cs <= 2 ? cs : 0]);
    else fprintf(stderr, "cache: not used (simulator)\n");
  }
  kf_status st = kf_launch(k, grid, block, (size_t)shared, NULL, args, nargs);
  if (st == KF_OK) st = kf_runtime_synchronize(rt);
  if (st != KF_OK) goto cleanup;
  double t2 = now_ms();
  if (verbose)
    fprintf(stderr, "kfront run: launched grid (%u, %u, %u) x block (%u, %u, %u) in %.1f ms\n", grid[0], grid[1],
            grid[2], block[0], block[1], block[2], t2 - t1);
  if (outdir) {
    if (!make_dir(outdir)) {
      fprintf(stderr, "%s: error: cannot create the output directory: %s\n", outdir, strerror(errno));
      goto cleanup;
    }
    for (unsigned i = 0; i < nargs; i++)
      if (!write_arrays(ctx, outdir, &ra[i], verbose)) goto cleanup;
  }
  status = 0;

cleanup:
  if (ctx && *kf_context_diagnostics(ctx)) fputs(kf_context_diagnostics(ctx), stderr);
  kf_program_destroy(prog);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
  kf_free(cache_dir);
  for (unsigned i = 0; ra && i < nargs; i++) free_arg(&ra[i]);
  free(ra);
  free(args);
  free(source);
  tool_free_links(links, nlinks);
done:
  free(positional);
  return status;
}
