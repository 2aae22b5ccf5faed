/* cmath.c — the cmath functions numba-cuda supports, defined once, in Python.
 *
 * numba-cuda writes most of its cmath functions as Python compiled for the argument's complex type
 * (numba/cuda/cpython/cmathimpl.py, CPython's and NumPy's algorithms: c_acos, c_atanh, npy_csqrt, ...), so their
 * answers on NaN, infinities, signed zeros and branch cuts — and the precision of each step, float32 values meeting
 * float64 constants by Numba's typing — are those of that Python. kfront does the same: the source below (the same
 * algorithms, written for kfront) is parsed like user code and each function is compiled as a device function for
 * the argument types, with kfront's Numba typing, into ordinary kir (complex ops, math ops, control flow), which the
 * simulator and the backend run like any other code. lower_math.c (lower_cmath) types the call as numba-cuda's cmath
 * templates do and converts the result to the argument's complex type, as numba-cuda's compile_internal returns it.
 *
 * numba-cuda's complex loop of np.sign (npyfuncs.py np_complex_sign_impl, NumPy 2's z / |z|) is Python compiled the
 * same way: np_sign below, called by numeric.c's loop (no cmath name reaches it).
 *
 * Names resolve in a scope of their own: math, cmath. A constant that depends on the precision comes in as an
 * argument of that precision (sqrt's threshold: numba-cuda's FLT_MAX or DBL_MAX over 1 + sqrt(2), a float32 for
 * complex64 as NumPy 2 computes it). */
#include <string.h>

#include "frontend/fe.h"
#include "frontend/parser.h"

static const char cmath_source[] =
    "def exp(z):\n"
    "    x = z.real\n"
    "    y = z.imag\n"
    "    if math.isfinite(x):\n"
    "        if math.isfinite(y):\n"
    "            r = math.exp(x)\n"
    "            return complex(r * math.cos(y), r * math.sin(y))\n"
    "        return complex(math.nan, math.nan)\n"
    "    if math.isnan(x):\n"
    "        if y:\n"
    "            return complex(x, x)\n"
    "        return complex(x, y)\n"
    "    if x > 0.0:\n"
    "        if math.isfinite(y):\n"
    "            re = math.cos(y)\n"
    "            im = math.sin(y)\n"
    "            if re != 0:\n"
    "                re *= x\n"
    "            if im != 0:\n"
    "                im *= x\n"
    "            return complex(re, im)\n"
    "        return complex(x, math.nan)\n"
    "    if math.isfinite(y):\n"
    "        r = math.exp(x)\n"
    "        return complex(r * math.cos(y), r * math.sin(y))\n"
    "    return complex(0, 0)\n"
    "\n"
    "def log(z):\n"
    "    return complex(math.log(math.hypot(z.real, z.imag)), math.atan2(z.imag, z.real))\n"
    "\n"
    "def log_base(z, base):\n"
    "    return cmath.log(z) / cmath.log(base)\n"
    "\n"
    "def log10(z):\n"
    "    w = cmath.log(z)\n"
    "    return complex(w.real / 2.302585092994045684, w.imag / 2.302585092994045684)\n"
    "\n"
    "def sqrt(z, thres):\n"
    "    a = z.real\n"
    "    b = z.imag\n"
    "    if a == 0.0 and b == 0.0:\n"
    "        return complex(abs(b), b)\n"
    "    if math.isinf(b):\n"
    "        return complex(abs(b), b)\n"
    "    if math.isnan(a):\n"
    "        return complex(a, a)\n"
    "    if math.isinf(a):\n"
    "        if a < 0.0:\n"
    "            return complex(abs(b - b), math.copysign(a, b))\n"
    "        return complex(a, math.copysign(b - b, b))\n"
    "    if abs(a) >= thres or abs(b) >= thres:\n"
    "        a *= 0.25\n"
    "        b *= 0.25\n"
    "        scale = True\n"
    "    else:\n"
    "        scale = False\n"
    "    if a >= 0:\n"
    "        t = math.sqrt((a + math.hypot(a, b)) * 0.5)\n"
    "        re = t\n"
    "        im = b / (2 * t)\n"
    "    else:\n"
    "        t = math.sqrt((-a + math.hypot(a, b)) * 0.5)\n"
    "        re = abs(b) / (2 * t)\n"
    "        im = math.copysign(t, b)\n"
    "    if scale:\n"
    "        return complex(re * 2, im)\n"
    "    return complex(re, im)\n"
    "\n"
    "def cosh(z):\n"
    "    x = z.real\n"
    "    y = z.imag\n"
    "    if math.isinf(x):\n"
    "        if math.isnan(y):\n"
    "            re = abs(x)\n"
    "            im = y\n"
    "        elif y == 0.0:\n"
    "            re = abs(x)\n"
    "            im = y\n"
    "        else:\n"
    "            re = math.copysign(x, math.cos(y))\n"
    "            im = math.copysign(x, math.sin(y))\n"
    "        if x < 0.0:\n"
    "            im = -im\n"
    "        return complex(re, im)\n"
    "    return complex(math.cos(y) * math.cosh(x), math.sin(y) * math.sinh(x))\n"
    "\n"
    "def cos(z):\n"
    "    return cmath.cosh(complex(-z.imag, z.real))\n"
    "\n"
    "def sinh(z):\n"
    "    x = z.real\n"
    "    y = z.imag\n"
    "    if math.isinf(x):\n"
    "        if math.isnan(y):\n"
    "            re = x\n"
    "            im = y\n"
    "        else:\n"
    "            re = math.cos(y)\n"
    "            im = math.sin(y)\n"
    "            if re != 0.0:\n"
    "                re *= x\n"
    "            if im != 0.0:\n"
    "                im *= abs(x)\n"
    "        return complex(re, im)\n"
    "    return complex(math.cos(y) * math.sinh(x), math.sin(y) * math.cosh(x))\n"
    "\n"
    "def sin(z):\n"
    "    r = cmath.sinh(complex(-z.imag, z.real))\n"
    "    return complex(r.imag, -r.real)\n"
    "\n"
    "def tanh(z):\n"
    "    x = z.real\n"
    "    y = z.imag\n"
    "    if math.isinf(x):\n"
    "        re = math.copysign(1.0, x)\n"
    "        if math.isinf(y):\n"
    "            im = 0.0\n"
    "        else:\n"
    "            im = math.copysign(0.0, math.sin(2.0 * y))\n"
    "        return complex(re, im)\n"
    "    tx = math.tanh(x)\n"
    "    ty = math.tan(y)\n"
    "    cx = 1.0 / math.cosh(x)\n"
    "    txty = tx * ty\n"
    "    denom = 1.0 + txty * txty\n"
    "    return complex(tx * (1.0 + ty * ty) / denom, ((ty / denom) * cx) * cx)\n"
    "\n"
    "def tan(z):\n"
    "    r = cmath.tanh(complex(-z.imag, z.real))\n"
    "    return complex(r.imag, -r.real)\n"
    "\n"
    "def acos(z):\n"
    "    if abs(z.real) > 8.5070586659632215e+37 or abs(z.imag) > 8.5070586659632215e+37:\n"
    "        re = math.atan2(abs(z.imag), z.real)\n"
    "        im = math.copysign(math.log(math.hypot(z.real * 0.5, z.imag * 0.5)) + 1.3862943611198906, -z.imag)\n"
    "        return complex(re, im)\n"
    "    s1 = cmath.sqrt(complex(1.0 - z.real, -z.imag))\n"
    "    s2 = cmath.sqrt(complex(1.0 + z.real, z.imag))\n"
    "    re = 2.0 * math.atan2(s1.real, s2.real)\n"
    "    im = math.asinh(s2.real * s1.imag - s2.imag * s1.real)\n"
    "    return complex(re, im)\n"
    "\n"
    "def acosh(z):\n"
    "    if abs(z.real) > 8.5070586659632215e+37 or abs(z.imag) > 8.5070586659632215e+37:\n"
    "        re = math.log(math.hypot(z.real * 0.5, z.imag * 0.5)) + 1.3862943611198906\n"
    "        im = math.atan2(z.imag, z.real)\n"
    "        return complex(re, im)\n"
    "    s1 = cmath.sqrt(complex(z.real - 1.0, z.imag))\n"
    "    s2 = cmath.sqrt(complex(z.real + 1.0, z.imag))\n"
    "    re = math.asinh(s1.real * s2.real + s1.imag * s2.imag)\n"
    "    im = 2.0 * math.atan2(s1.imag, s2.real)\n"
    "    return complex(re, im)\n"
    "\n"
    "def asinh(z):\n"
    "    if abs(z.real) > 8.5070586659632215e+37 or abs(z.imag) > 8.5070586659632215e+37:\n"
    "        re = math.copysign(math.log(math.hypot(z.real * 0.5, z.imag * 0.5)) + 1.3862943611198906, z.real)\n"
    "        im = math.atan2(z.imag, abs(z.real))\n"
    "        return complex(re, im)\n"
    "    s1 = cmath.sqrt(complex(1.0 + z.imag, -z.real))\n"
    "    s2 = cmath.sqrt(complex(1.0 - z.imag, z.real))\n"
    "    re = math.asinh(s1.real * s2.imag - s2.real * s1.imag)\n"
    "    im = math.atan2(z.imag, s1.real * s2.real - s1.imag * s2.imag)\n"
    "    return complex(re, im)\n"
    "\n"
    "def asin(z):\n"
    "    r = cmath.asinh(complex(-z.imag, z.real))\n"
    "    return complex(r.imag, -r.real)\n"
    "\n"
    "def atan(z):\n"
    "    r = cmath.atanh(complex(-z.imag, z.real))\n"
    "    if math.isinf(z.real) and math.isnan(z.imag):\n"
    "        return complex(r.imag, r.real)\n"
    "    return complex(r.imag, -r.real)\n"
    "\n"
    "def atanh(z):\n"
    "    if z.real < 0.0:\n"
    "        negate = True\n"
    "        z = -z\n"
    "    else:\n"
    "        negate = False\n"
    "    ay = abs(z.imag)\n"
    "    if math.isnan(z.real) or z.real > 9.223371761976865e+18 or ay > 9.223371761976865e+18:\n"
    "        if math.isinf(z.imag):\n"
    "            re = math.copysign(0.0, z.real)\n"
    "        elif math.isinf(z.real):\n"
    "            re = 0.0\n"
    "        else:\n"
    "            h = math.hypot(z.real * 0.5, z.imag * 0.5)\n"
    "            re = z.real / 4.0 / h / h\n"
    "        im = -math.copysign(1.5707963267948966, -z.imag)\n"
    "    elif z.real == 1.0 and ay < 1.0842021724855044e-19:\n"
    "        if ay == 0.0:\n"
    "            re = math.inf\n"
    "            im = z.imag\n"
    "        else:\n"
    "            re = -math.log(math.sqrt(ay) / math.sqrt(math.hypot(ay, 2.0)))\n"
    "            im = math.copysign(math.atan2(2.0, -ay) / 2, z.imag)\n"
    "    else:\n"
    "        sqay = ay * ay\n"
    "        zr1 = 1 - z.real\n"
    "        re = math.log1p(4.0 * z.real / (zr1 * zr1 + sqay)) * 0.25\n"
    "        im = -math.atan2(-2.0 * z.imag, zr1 * (1 + z.real) - sqay) * 0.5\n"
    "    if math.isnan(z.imag):\n"
    "        im = math.nan\n"
    "    if negate:\n"
    "        return complex(-re, -im)\n"
    "    return complex(re, im)\n"
    "\n"
    "def np_sign(z):\n"
    "    a = math.hypot(z.real, z.imag)\n"
    "    if a == 0:\n"
    "        return 0 + 0j\n"
    "    return z / a\n"
    "\n"
    "def rect(r, phi):\n"
    "    if not math.isfinite(phi):\n"
    "        if not r:\n"
    "            return abs(r)\n"
    "        if math.isinf(r):\n"
    "            return complex(r, phi)\n"
    "    re = math.cos(phi)\n"
    "    im = math.sin(phi)\n"
    "    if re == 0.0 and math.isinf(r):\n"
    "        re /= r\n"
    "    else:\n"
    "        re *= r\n"
    "    if im == 0.0 and math.isinf(r):\n"
    "        im /= r\n"
    "    else:\n"
    "        im *= r\n"
    "    return complex(re, im)\n";

static FeVal path_value(const char *path) {
  FeVal v = {.kind = FV_PATH};
  v.str.s = path;
  v.str.len = strlen(path);
  return v;
}

FeFunc *fe_cmath_function(FeCtx *fe, const char *name) {
  if (!fe->cmath_funcs) {
    fe->cmath_funcs = ARENA_NEW(&fe->arena, StrMap);
    strmap_init(fe->cmath_funcs);
    fe->cmath_scope = ARENA_NEW(&fe->arena, StrMap);
    strmap_init(fe->cmath_scope);
    FeVal *m = ARENA_NEW(&fe->arena, FeVal), *cm = ARENA_NEW(&fe->arena, FeVal);
    *m = path_value("math");
    *cm = path_value("cmath");
    strmap_put(fe->cmath_scope, "math", m);
    strmap_put(fe->cmath_scope, "cmath", cm);
    char *src = arena_strdup(&fe->arena, cmath_source);
    PyModule *pm = parse_module(&fe->arena, fe->diag, "<kfront cmath>", src, sizeof cmath_source - 1);
    diag_remove_source(fe->diag, src);
    for (unsigned i = 0; pm && i < pm->body.n; i++) {
      const PyStmt *d = pm->body.items[i];
      if (d->kind != ST_FUNCDEF) continue;
      FeFunc *f = ARENA_NEW(&fe->arena, FeFunc);
      f->def = d;
      f->name = d->funcdef.name;
      f->sym = arena_printf(&fe->arena, "cmath__%s", d->funcdef.name);
      f->src = fe->srcs;
      f->kind = FN_DEVICE;
      f->loc = d->loc;
      f->fastmath = f->debug = f->lineinfo = f->opt = f->cache = -1;
      f->inline_opt = "always"; /* a builtin: numba lowers it in place */
      f->scope = fe->cmath_scope;
      f->py_name = arena_printf(&fe->arena, "cmath.%s", d->funcdef.name);
      strmap_put(fe->cmath_funcs, f->name, f);
    }
  }
  return strmap_get(fe->cmath_funcs, name);
}

void fe_cmath_free(FeCtx *fe) {
  if (!fe->cmath_funcs) return;
  StrMap *m = fe->cmath_funcs;
  for (size_t i = 0; i < m->cap; i++) {
    FeFunc *f = m->slots && m->slots[i].key ? m->slots[i].value : NULL;
    if (f && f->analysed) strmap_free(&f->local_index);
  }
  strmap_free(fe->cmath_funcs);
  strmap_free(fe->cmath_scope);
  fe->cmath_funcs = fe->cmath_scope = NULL;
}
