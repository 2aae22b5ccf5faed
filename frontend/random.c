/* random.c — numba.cuda.random's device functions (the xoroshiro128+ generator: numba-cuda's random.py), written
 * once in the kernel language below and compiled by kfront itself as a prelude source: the first use of a path
 * numba.cuda.random.NAME (an import, cuda.random.NAME in a kernel, a name the embedder binds to that path) reads
 * the prelude (fe_random_path), whose functions are then device functions like the user's, specialised on their
 * arguments' types. The algorithm, constants and typing are numba-cuda's, so the sequences are bit for bit the
 * same for the same states (xoroshiro128p_normal_float64 draws float32 uniforms, as numba-cuda's does); math.log
 * and math.cos are libdevice's on the GPU, the C library's on the simulator.
 *
 * The state array: numba-cuda's is a 1-D array of records (s0, s1: uint64, aligned, 16 bytes); kfront's is the
 * same bytes typed uint64[:, 2] (n rows of s0, s1), as create_xoroshiro128p_states (python/kfront/cuda/random.py)
 * and kf_xoroshiro128p_init_states (runtime/random_states.c) make it. The prelude sees no embedder binding (a user's
 * `rotl` cannot replace its own); its functions' symbols are kfront_random__NAME (module.c's fe_add_func), apart
 * from the user's whatever they are named. */
#include <string.h>

#include "frontend/fe.h"
#include "frontend/parser.h"

static const char prelude[] =
    "import math\n"
    "\n"
    "import numpy as np\n"
    "from numba import cuda, float32, float64, int64, uint32, uint64\n"
    "\n"
    "TWO_PI_FLOAT32 = np.float32(2 * math.pi)\n"
    "TWO_PI_FLOAT64 = np.float64(2 * math.pi)\n"
    "\n"
    "\n"
    "# states: a 1-D array of xoroshiro128p_dtype records (s0, s1: uint64, aligned), numba-cuda's\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def init_xoroshiro128p_state(states, index, seed):\n"
    "    index = int64(index)\n"
    "    seed = uint64(seed)\n"
    "    z = seed + uint64(0x9E3779B97F4A7C15)\n"
    "    z = (z ^ (z >> uint32(30))) * uint64(0xBF58476D1CE4E5B9)\n"
    "    z = (z ^ (z >> uint32(27))) * uint64(0x94D049BB133111EB)\n"
    "    z = z ^ (z >> uint32(31))\n"
    "    states[index]['s0'] = z\n"
    "    states[index]['s1'] = z\n"
    "\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def rotl(x, k):\n"
    "    x = uint64(x)\n"
    "    k = uint32(k)\n"
    "    return (x << k) | (x >> uint32(64 - k))\n"
    "\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def xoroshiro128p_next(states, index):\n"
    "    index = int64(index)\n"
    "    s0 = states[index]['s0']\n"
    "    s1 = states[index]['s1']\n"
    "    result = s0 + s1\n"
    "    s1 ^= s0\n"
    "    states[index]['s0'] = uint64(rotl(s0, uint32(55))) ^ s1 ^ (s1 << uint32(14))\n"
    "    states[index]['s1'] = uint64(rotl(s1, uint32(36)))\n"
    "    return result\n"
    "\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def xoroshiro128p_jump(states, index):\n"
    "    index = int64(index)\n"
    "    s0 = uint64(0)\n"
    "    s1 = uint64(0)\n"
    "    for i in range(2):\n"
    "        jump = uint64(0xBEAC0467EBA5FACB) if i == 0 else uint64(0xD86B048B86AA9922)\n"
    "        for b in range(64):\n"
    "            if jump & (uint64(1) << uint32(b)):\n"
    "                s0 ^= states[index]['s0']\n"
    "                s1 ^= states[index]['s1']\n"
    "            xoroshiro128p_next(states, index)\n"
    "    states[index]['s0'] = s0\n"
    "    states[index]['s1'] = s1\n"
    "\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def uint64_to_unit_float64(x):\n"
    "    x = uint64(x)\n"
    "    return (x >> uint32(11)) * (float64(1) / (uint64(1) << uint32(53)))\n"
    "\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def uint64_to_unit_float32(x):\n"
    "    x = uint64(x)\n"
    "    return float32(uint64_to_unit_float64(x))\n"
    "\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def xoroshiro128p_uniform_float32(states, index):\n"
    "    index = int64(index)\n"
    "    return uint64_to_unit_float32(xoroshiro128p_next(states, index))\n"
    "\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def xoroshiro128p_uniform_float64(states, index):\n"
    "    index = int64(index)\n"
    "    return uint64_to_unit_float64(xoroshiro128p_next(states, index))\n"
    "\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def xoroshiro128p_normal_float32(states, index):\n"
    "    index = int64(index)\n"
    "    u1 = xoroshiro128p_uniform_float32(states, index)\n"
    "    u2 = xoroshiro128p_uniform_float32(states, index)\n"
    "    z0 = math.sqrt(-float32(2.0) * math.log(u1)) * math.cos(TWO_PI_FLOAT32 * u2)\n"
    "    return z0\n"
    "\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def xoroshiro128p_normal_float64(states, index):\n"
    "    index = int64(index)\n"
    "    u1 = xoroshiro128p_uniform_float32(states, index)\n"
    "    u2 = xoroshiro128p_uniform_float32(states, index)\n"
    "    z0 = math.sqrt(-float64(2.0) * math.log(u1)) * math.cos(TWO_PI_FLOAT64 * u2)\n"
    "    return z0\n"
    "\n";

static const char *const functions[] = {
    "init_xoroshiro128p_state", "rotl", "xoroshiro128p_next", "xoroshiro128p_jump", "uint64_to_unit_float64",
    "uint64_to_unit_float32", "xoroshiro128p_uniform_float32", "xoroshiro128p_uniform_float64",
    "xoroshiro128p_normal_float32", "xoroshiro128p_normal_float64"};

/* numba.cuda.random's host functions: named in a kernel, a located error says what they are */
static const char *const host_functions[] = {"create_xoroshiro128p_states", "init_xoroshiro128p_states"};

static const char module_path[] = "numba.cuda.random";

/* Reads the prelude once per compile (its module-level names and device functions). */
static FeSource *prelude_source(FeCtx *fe) {
  if (fe->random_src) return fe->random_src;
  FeSource *src = ARENA_NEW(&fe->arena, FeSource);
  memset(src, 0, sizeof *src);
  src->index = fe->nsrcs;
  src->prelude = true;
  src->filename = "<numba.cuda.random>";
  src->mfile = arena_strdup(&fe->m->arena, src->filename);
  src->text = prelude;
  src->len = sizeof prelude - 1;
  src->first_line = 1;
  strmap_init(&src->globals);
  fe->random_src = src;
  src->py = parse_fragment(&fe->arena, fe->diag, src->filename, src->text, src->len, 1, false);
  FeSource *saved = fe->cur;
  fe->cur = src;
  if (src->py) fe_read_source_stmts(fe, src);
  fe->cur = saved;
  return src;
}

bool fe_random_path(FeCtx *fe, const char *path, FeVal *out) {
  size_t n = sizeof module_path - 1;
  if (strncmp(path, module_path, n) != 0 || (path[n] && path[n] != '.')) return false;
  if (!path[n]) { /* the module itself */
    *out = (FeVal){.kind = FV_PATH};
    out->str.s = module_path;
    out->str.len = n;
    return true;
  }
  const char *name = path + n + 1;
  for (unsigned i = 0; i < sizeof host_functions / sizeof *host_functions; i++) {
    if (strcmp(name, host_functions[i]) != 0) continue;
    *out = (FeVal){.kind = FV_INVALID};
    out->str.s = "numba.cuda.random's host function cannot be used in a kernel: call it on the host and pass the "
                 "states it returns";
    out->str.len = strlen(out->str.s);
    return true;
  }
  for (unsigned i = 0; i < sizeof functions / sizeof *functions; i++) {
    if (strcmp(name, functions[i]) != 0) continue;
    FeFunc *fn = fe_find_func(fe, prelude_source(fe), name);
    if (!fn) return false;
    *out = (FeVal){.kind = FV_FUNC, .func = fn};
    return true;
  }
  return false;
}
