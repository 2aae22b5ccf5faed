/* kfront — the compiler driver, like clang or nvcc, over the public API (kfront/kfront.h).
 *
 *   kfront compile FILE.py [-k NAME]... [--sig SIG]... [--emit=kir|llvm|ptx|ltoir] [-o OUT|-] [-O0..3]
 *                  [--arch=sm_XX[a|f]] [--backend=nvvm|llvm] [--bounds-check=on|off] [--pass-pipeline=P]
 *                  [--fastmath] [--lineinfo] [-g] [--remarks=tile,bce,atomics,tmap] [--link FILE]... [-I DIR]...
 *                  [the pass manager's flags: tool_passes.c]
 *   kfront check FILE.py [-k NAME]... [--sig SIG]...   type-check and verify; print nothing on success
 *   kfront run FILE.py -k NAME --grid .. --block .. ARG...   (tools/kfront_run.c)
 *   kfront --version, kfront -s                               (tools/kfront_system.c)
 *
 * Exit status: 0 success, 1 any diagnostic, 2 usage error. Only argument handling lives here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfront/kfront.h"
#include "kfront_tool.h"
#include "tool_io.h"

static void usage(FILE *f) {
  fputs("usage: kfront compile FILE.py [options]     compile kernels to kir, LLVM IR, PTX or LTO-IR\n"
        "       kfront check FILE.py [options]       type-check kernels, print diagnostics only\n"
        "       kfront run FILE.py -k NAME --grid X[,Y[,Z]] --block X[,Y[,Z]] ARG...\n"
        "compile options:\n"
        "  -k NAME                 compile function NAME (repeatable; default: every eager kernel)\n"
        "  --sig SIG               Numba signature for the -k functions, e.g. 'void(float32[:], int64)'\n"
        "  --emit=kir|llvm|ptx|ltoir  what to write (default: ptx; ltoir: libNVVM's LTO-IR, for nvJitLink)\n"
        "  -o OUT                  output file (default, and -o -: stdout)\n"
        "  -O0 .. -O3              optimisation level (default: -O3)\n"
        "  --arch=sm_XX            target GPU (default: the GPU present, else sm_90); sm_XXa (from sm_90a) and\n"
        "                          sm_XXf (from sm_100f) for the architecture's or family's own features\n"
        "                          (libNVVM's compute_XXa / compute_XXf; not with --backend=llvm)\n"
        "  --backend=nvvm|llvm     libNVVM (default) or LLVM's NVPTX target\n"
        "  --bounds-check=on|off   guard array accesses (default: on; unproven checks stay)\n"
        "  --pass-pipeline=P       kir passes after lowering (default: kfront's pipeline)\n"
        "  --fastmath, --lineinfo  as numba's cuda.jit options\n"
        "  -g                      full DWARF debug information in the PTX (for cuda-gdb), as numba's debug=True;\n"
        "                          best with -O0\n"
        "  --remarks=WHAT          notes saying what a pass did and why not, WHAT a comma-separated list of\n"
        "                          tile (tile-shared: per loop, tiled with which tiles, block and register\n"
        "                          blocking, or why not), bce (each bounds check that stays), atomics\n"
        "                          (privatize-atomics: each array updated by atomics, privatised or why not)\n"
        "                          and tmap (thread-map: each kernel, its threads remapped or why not)\n"
        "  --link FILE             foreign code the kernels call (cuda.declare_device): .cu, .ptx, .cubin,\n"
        "                          .fatbin, .ltoir, .o, .a (repeatable); the PTX written is then nvJitLink's\n"
        "                          link-time optimised program (numba's inspect_lto_ptx: small foreign\n"
        "                          functions inlined; PTX and cubin inputs cannot be, and are left out)\n"
        "  -I DIR                  a folder a --link .cu's #includes are searched in (repeatable)\n"
        "the pass pipeline's debugging flags (as kfront-opt's):\n",
        f);
  fputs(tool_pass_flags_help, f);
  fputs("other commands:\n"
        "  kfront --version        kfront's version, the CUDA libraries and driver found\n"
        "  kfront -s               the system: driver, devices, CUDA libraries, cache (as `numba -s`)\n",
        f);
}

typedef enum { EMIT_KIR, EMIT_LLVM, EMIT_PTX, EMIT_LTOIR } Emit;
enum { MAX_REMARKS = 8, MAX_LINKS = 64 };

/* The pass whose `report` option the remark NAME (len bytes) turns on, or NULL. */
static const char *remark_pass(const char *name, size_t len) {
  static const char *const table[][2] = {{"tile", "tile-shared"}, {"bce", "bce"}, {"atomics", "privatize-atomics"},
                                         {"tmap", "thread-map"}, {"bpair", "block-pair"}};
  for (size_t i = 0; i < sizeof table / sizeof *table; i++)
    if (strlen(table[i][0]) == len && memcmp(name, table[i][0], len) == 0) return table[i][1];
  return NULL;
}

typedef struct {
  const char *input, *output;
  const char *kernels[64], *sigs[64];
  unsigned nkernels, nsigs;
  Emit emit;
  kf_compile_options co;
  kf_codegen_options cg;
  bool arch_given;
  kf_pass_options po;    /* the pipeline's debugging flags */
  unsigned print_flags;
  const char *remarks[MAX_REMARKS]; /* the passes whose report option --remarks turns on */
  unsigned nremarks;
  const char *links[MAX_LINKS], *include_dirs[MAX_LINKS]; /* --link FILE, -I DIR */
  unsigned nlinks, ninclude_dirs;
} CompileArgs;

enum { ASKED_FOR_HELP = -1 };

/* Returns 0 on success, 2 on a usage error (message printed), ASKED_FOR_HELP for -h / --help. */
static int parse_compile_args(int argc, char **argv, CompileArgs *a) {
  memset(a, 0, sizeof *a);
  a->emit = EMIT_PTX;
  kf_compile_options_init(&a->co);
  kf_codegen_options_init(&a->cg);
  kf_pass_options_init(&a->po);
  for (int i = 0; i < argc; i++) {
    const char *s = argv[i];
    const char *v = NULL;
    if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) return ASKED_FOR_HELP;
    if (tool_pass_flag(s, &a->po, &a->print_flags)) continue;
#define TAKE(flag) ((strcmp(s, flag) == 0 && i + 1 < argc && (v = argv[++i])) || \
                    (strncmp(s, flag "=", strlen(flag) + 1) == 0 && (v = s + strlen(flag) + 1)))
    if (TAKE("-k")) {
      if (a->nkernels == 64) return fprintf(stderr, "kfront: error: too many -k options\n"), 2;
      a->kernels[a->nkernels++] = v;
    } else if (TAKE("--sig")) {
      if (a->nsigs == 64) return fprintf(stderr, "kfront: error: too many --sig options\n"), 2;
      a->sigs[a->nsigs++] = v;
    } else if (TAKE("--emit")) {
      if (strcmp(v, "kir") == 0) a->emit = EMIT_KIR;
      else if (strcmp(v, "llvm") == 0) a->emit = EMIT_LLVM;
      else if (strcmp(v, "ptx") == 0) a->emit = EMIT_PTX;
      else if (strcmp(v, "ltoir") == 0) a->emit = EMIT_LTOIR;
      else return fprintf(stderr, "kfront: error: --emit must be kir, llvm, ptx or ltoir, not '%s'\n", v), 2;
    } else if (TAKE("--link")) {
      if (a->nlinks == MAX_LINKS) return fprintf(stderr, "kfront: error: too many --link options\n"), 2;
      a->links[a->nlinks++] = v;
    } else if (TAKE("-I")) {
      if (a->ninclude_dirs == MAX_LINKS) return fprintf(stderr, "kfront: error: too many -I options\n"), 2;
      a->include_dirs[a->ninclude_dirs++] = v;
    } else if (strncmp(s, "-I", 2) == 0 && s[2]) {
      if (a->ninclude_dirs == MAX_LINKS) return fprintf(stderr, "kfront: error: too many -I options\n"), 2;
      a->include_dirs[a->ninclude_dirs++] = s + 2;
    } else if (TAKE("-o")) {
      a->output = v;
    } else if (strncmp(s, "-O", 2) == 0 && s[2] >= '0' && s[2] <= '3' && !s[3]) {
      a->cg.opt_level = s[2] - '0';
    } else if (TAKE("--arch")) {
      unsigned sm;
      int end = 0;
      char feature = 0;
      if (sscanf(v, "sm_%u%n", &sm, &end) != 1 || sm < 50 || sm > 200 ||
          (v[end] && ((v[end] != 'a' && v[end] != 'f') || v[end + 1])))
        return fprintf(stderr, "kfront: error: --arch must look like sm_90 (or sm_90a, sm_100f), not '%s'\n", v), 2;
      feature = v[end];
      if (feature == 'a' && sm < 90)
        return fprintf(stderr, "kfront: error: --arch=%s: architecture-specific targets (sm_XXa) begin at sm_90a\n", v), 2;
      if (feature == 'f' && sm < 100)
        return fprintf(stderr, "kfront: error: --arch=%s: family targets (sm_XXf) begin at sm_100f\n", v), 2;
      a->cg.arch = sm;
      a->cg.arch_feature = feature;
      a->arch_given = true;
    } else if (TAKE("--backend")) {
      if (strcmp(v, "nvvm") == 0) a->cg.backend = KF_BACKEND_NVVM;
      else if (strcmp(v, "llvm") == 0) a->cg.backend = KF_BACKEND_LLVM;
      else return fprintf(stderr, "kfront: error: --backend must be nvvm or llvm, not '%s'\n", v), 2;
    } else if (TAKE("--bounds-check")) {
      if (strcmp(v, "on") == 0) a->co.bounds_check = 1;
      else if (strcmp(v, "off") == 0) a->co.bounds_check = 0;
      else return fprintf(stderr, "kfront: error: --bounds-check must be on or off, not '%s'\n", v), 2;
    } else if (TAKE("--pass-pipeline")) {
      a->co.pipeline = v;
    } else if (strcmp(s, "--fastmath") == 0) {
      a->cg.fastmath = 1;
    } else if (strcmp(s, "--lineinfo") == 0) {
      a->cg.lineinfo = 1;
    } else if (strcmp(s, "-g") == 0) {
      a->cg.debuginfo = 1;
    } else if (TAKE("--remarks")) {
      for (const char *r = v; *r;) {
        size_t len = strcspn(r, ",");
        const char *pass = remark_pass(r, len);
        if (!pass) return fprintf(stderr, "kfront: error: --remarks takes tile, bce, atomics and tmap, not '%.*s'\n", (int)len, r), 2;
        if (a->nremarks == MAX_REMARKS) return fprintf(stderr, "kfront: error: too many --remarks\n"), 2;
        a->remarks[a->nremarks++] = pass;
        r += len + (r[len] == ',');
      }
    } else if (s[0] == '-' && s[1]) {
      fprintf(stderr, "kfront: error: unknown option '%s'\n", s);
      return 2;
    } else if (!a->input) {
      a->input = s;
    } else {
      fprintf(stderr, "kfront: error: more than one input file ('%s' and '%s')\n", a->input, s);
      return 2;
    }
#undef TAKE
  }
  if (!a->input) {
    fprintf(stderr, "kfront: error: no input file\n");
    return 2;
  }
  if (a->nsigs && !a->nkernels) {
    fprintf(stderr, "kfront: error: --sig needs -k NAME to say which function it types\n");
    return 2;
  }
  if (a->nlinks && a->emit != EMIT_PTX) {
    fprintf(stderr, "kfront: error: --link gives the link-time optimised PTX: it needs --emit=ptx\n");
    return 2;
  }
  if (a->ninclude_dirs && !a->nlinks) {
    fprintf(stderr, "kfront: error: -I is for the #includes of a --link .cu, and no --link is given\n");
    return 2;
  }
  if (a->cg.arch_feature && a->cg.backend == KF_BACKEND_LLVM) {
    fprintf(stderr, "kfront: error: --arch=sm_%u%c needs libNVVM: the LLVM backend (LLVM 14's NVPTX) has no "
            "architecture-specific targets\n", a->cg.arch, a->cg.arch_feature);
    return 2;
  }
  a->co.kernels = a->kernels;
  a->co.nkernels = a->nkernels;
  a->co.signatures = a->sigs;
  a->co.nsignatures = a->nsigs;
  return 0;
}

/* The compute capability of GPU 0 as an SM number (90 for 9.0), or 0 (the backend's default, sm_90) where
 * there is no CUDA driver or device. Only asked when no --arch is given; makes no CUDA context. */
static unsigned present_gpu_arch(void) {
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_GPU;
  kf_device_info info;
  unsigned arch = 0;
  if (kf_device_get_info(ctx, &o, 0, &info) == KF_OK) arch = (unsigned)(info.cc_major * 10 + info.cc_minor);
  kf_context_destroy(ctx);
  return arch;
}

/* The pipeline (the given one or the default) with report=1 on each pass the remarks name, in *out
 * (kf_free). Pipeline errors go to ctx's diagnostics; a remark naming a pass the pipeline does not run is
 * a warning on stderr. */
static kf_status pipeline_with_remarks(kf_context *ctx, const CompileArgs *a, char **out) {
  char *norm = NULL;
  kf_status st = kf_pipeline_normalize(ctx, a->co.pipeline ? a->co.pipeline : kf_default_pipeline(), &norm);
  if (st != KF_OK) return st;
  size_t len = 0;
  char *buf = malloc(strlen(norm) * 2 + 64); /* each entry grows by at most "{report=1}" */
  if (!buf) {
    kf_free(norm);
    return KF_ERROR_OUT_OF_MEMORY;
  }
  bool used[MAX_REMARKS] = {false};
  /* normalised entries are separated by ',' (options inside braces by spaces): NAME or NAME{opt=v ...} */
  for (const char *e = norm; *e;) {
    size_t elen = strcspn(e, ","), nlen = strcspn(e, "{,");
    bool report = false;
    for (unsigned r = 0; r < a->nremarks; r++)
      if (strlen(a->remarks[r]) == nlen && memcmp(a->remarks[r], e, nlen) == 0) report = used[r] = true;
    if (len) buf[len++] = ',';
    memcpy(buf + len, e, elen);
    len += elen;
    if (report && nlen == elen) len += (size_t)sprintf(buf + len, "{report=1}");
    else if (report) len += (size_t)sprintf(buf + len - 1, " report=1}") - 1;
    e += elen + (e[elen] == ',');
  }
  buf[len] = 0;
  for (unsigned r = 0; r < a->nremarks; r++)
    if (!used[r]) fprintf(stderr, "kfront: warning: --remarks: the pipeline has no %s pass\n", a->remarks[r]);
  kf_free(norm);
  *out = buf;
  return KF_OK;
}

/* Compiles (check_only: lowers and verifies) the input: the frontend, then the pass pipeline through
 * kf_module_run_pipeline (as kfront-opt runs it, with the same debugging flags), then the backend. */
static int compile_main(int argc, char **argv, int check_only) {
  CompileArgs a;
  int rc = parse_compile_args(argc, argv, &a);
  if (rc == ASKED_FOR_HELP) {
    usage(stdout);
    return 0;
  }
  if (rc) return rc;
  size_t len;
  char *text = tool_read_file(a.input, &len);
  if (!text) {
    fprintf(stderr, "kfront: error: cannot read '%s': %s\n", a.input, tool_read_error(errno));
    return 1;
  }
  kf_link_input links[MAX_LINKS];
  unsigned nlinks = 0;
  for (; nlinks < a.nlinks; nlinks++)
    if (!tool_read_link("kfront", a.links[nlinks], &links[nlinks])) {
      tool_free_links(links, nlinks);
      free(text);
      return 1;
    }
  kf_context *ctx = kf_context_create();
  kf_module *m = NULL;
  char *out = NULL, *report = NULL;
  size_t out_len = 0;
  char *with_remarks = NULL;
  const char *pipeline = a.co.pipeline ? a.co.pipeline : kf_default_pipeline();
  kf_status st = KF_OK;
  if (a.nremarks && (st = pipeline_with_remarks(ctx, &a, &with_remarks)) == KF_OK) pipeline = with_remarks;
  a.co.pipeline = ""; /* the frontend's module, verified; its pipeline runs next */
  if (st == KF_OK)
    st = kf_compile_source(ctx, strcmp(a.input, "-") == 0 ? "<stdin>" : a.input, text, len, &a.co, &m);
  if (!a.arch_given && !check_only) { /* the passes plan for the GPU the code is for */
    unsigned present = present_gpu_arch();
    if (present) a.cg.arch = present;
  }
  a.po.arch = a.cg.arch;
  if (st == KF_OK) {
    st = kf_module_run_pipeline(m, pipeline, &a.po, &report);
    if (report) fputs(report, stderr);
  }
  if (st == KF_OK && !check_only) {
    if (a.emit == EMIT_KIR) st = kf_module_print(m, a.print_flags, &out, &out_len);
    else if (a.emit == EMIT_LLVM) st = kf_module_emit_llvm(m, &a.cg, &out, &out_len);
    else if (a.emit == EMIT_LTOIR) st = kf_module_emit_ltoir(m, &a.cg, &out, &out_len);
    else if (nlinks)
      st = kf_module_emit_lto_ptx(m, &a.cg, links, nlinks, a.include_dirs, a.ninclude_dirs, &out, &out_len);
    else st = kf_module_emit_ptx(m, &a.cg, &out, &out_len);
  }
  fputs(kf_context_diagnostics(ctx), stderr);
  if (st == KF_OK && out && !tool_write_output("kfront", a.output, out, out_len)) st = KF_ERROR_INVALID_INPUT;
  kf_free(out);
  kf_free(report);
  free(with_remarks);
  kf_module_destroy(m);
  kf_context_destroy(ctx);
  tool_free_links(links, nlinks);
  free(text);
  return st == KF_OK ? 0 : 1;
}

static int dispatch(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "compile") == 0) return compile_main(argc - 2, argv + 2, 0);
  if (strcmp(cmd, "check") == 0) return compile_main(argc - 2, argv + 2, 1);
  if (strcmp(cmd, "run") == 0) return kfront_run_main(argc - 1, argv + 1);
  if (strcmp(cmd, "--version") == 0) return kfront_version_main();
  if (strcmp(cmd, "-s") == 0 || strcmp(cmd, "--sysinfo") == 0) return kfront_system_main();
  if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
    usage(stdout);
    return 0;
  }
  fprintf(stderr, "kfront: error: unknown command '%s' (expected compile, check or run)\n", cmd);
  usage(stderr);
  return 2;
}

int main(int argc, char **argv) {
  tool_init();
  tool_configure_toolkit_from_env();
  return tool_exit("kfront", dispatch(argc, argv));
}
