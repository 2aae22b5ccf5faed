# The typing and kir of complex numbers, as numba-cuda types them: complex64/complex128 array elements, 1j literals
# (complex128), Numba's promotions (float32 with complex64 stays complex64; a complex64 array element meeting 1j
# becomes complex128), the complex dialect's ops (lowered by lower-complex later), abs to the part's float, ==,
# .real/.imag/.conjugate(), cmath calls as device functions of kfront's cmath source; and the located refusals.
# RUN: kfront compile %s -k arith --sig 'void(complex64[::1], complex128[::1], float32[::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=AR
# RUN: kfront compile %s -k cm --sig 'void(complex128[::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=CM
# RUN: kfront compile %s -k arith --sig 'void(complex64[::1], complex128[::1], float32[::1])' --emit=kir --pass-pipeline=lower-complex,canonicalize,cse,dce | FileCheck %s --check-prefix=LOW --implicit-check-not=complex.
# RUN: not kfront check %s -k bad_order --sig 'void(complex128[::1])' 2>&1 | FileCheck %s --check-prefix=ERR1
# RUN: not kfront check %s -k bad_store --sig 'void(complex128[::1], float64[::1])' 2>&1 | FileCheck %s --check-prefix=ERR2
# RUN: not kfront check %s -k bad_cosh --sig 'void(complex128[::1])' 2>&1 | FileCheck %s --check-prefix=ERR3
import cmath
from numba import cuda


# AR: %[[Z:.*]] = mem.load(%{{.*}}, %{{.*}}) : (array<complex<f32>, 1, C>, i64) -> (complex<f32>)
# AR: complex.mul(%{{.*}}, %{{.*}}) : (complex<f32>, complex<f32>) -> (complex<f32>)
# AR: arith.constant() {value = 1.0} : () -> (f64)
# AR: complex.create(%{{.*}}, %{{.*}}) : (f64, f64) -> (complex<f64>)
# AR: complex.add(%{{.*}}, %{{.*}}) : (complex<f64>, complex<f64>) -> (complex<f64>)
# AR: check.raise(%{{.*}}) {exception = "ZeroDivisionError: complex division by zero", silent} : (i1) -> ()
# AR: complex.div(%{{.*}}, %{{.*}}) : (complex<f64>, complex<f64>) -> (complex<f64>)
# AR: complex.abs(%{{.*}}) : (complex<f32>) -> (f32)
# AR: complex.eq(%{{.*}}, %{{.*}}) : (complex<f32>, complex<f32>) -> (i1)
# AR: complex.conj(%{{.*}}) : (complex<f32>) -> (complex<f32>)
# AR: complex.im(%{{.*}}) : (complex<f32>) -> (f32)
# AR: complex.pow(%{{.*}}, %{{.*}}) : (complex<f64>, complex<f64>) -> (complex<f64>)
# AR-LABEL: sym_name = @arith
# LOW-LABEL: sym_name = @arith
@cuda.jit
def arith(a, b, f):
    i = cuda.grid(1)
    if i < a.size:
        z = a[i] * f[i]
        w = z + 1j
        b[i] = w / b[i]
        f[i] = abs(z)
        if z == a[i]:
            f[i] = z.conjugate().imag
        b[i] = b[i] ** w


# CM: func.call(%{{.*}}) {callee = @cmath__sqrt} : (complex<f64>, f64) -> (complex<f64>)
# CM: func.call(%{{.*}}) {callee = @cmath__exp} : (complex<f64>) -> (complex<f64>)
# CM: math.atan2
# CM-LABEL: sym_name = @cm,
@cuda.jit
def cm(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = cmath.sqrt(a[i]) + cmath.exp(a[i]) + cmath.phase(a[i])


@cuda.jit
def bad_order(a):
    # ERR1: complex.py:[[@LINE+1]]:{{[0-9]+}}: error: unsupported operand types for '<': complex128 and complex128
    if a[0] < a[1]:
        a[0] = 0


@cuda.jit
def bad_store(a, f):
    # ERR2: complex.py:[[@LINE+1]]:{{[0-9]+}}: error: cannot convert complex128 to float64 to store it into an element
    f[0] = a[0]


@cuda.jit
def bad_cosh(a):
    # ERR3: complex.py:[[@LINE+1]]:{{[0-9]+}}: error: cmath.cosh() takes a complex number, not float64
    a[0] = cmath.cosh(1.5)
