# bfloat16 (cuda.bf16), cuda.fp16's conversions by a rounding mode and int.bit_count() from Python source to PTX
# through both backends and ptxas: bf16 values are i16 bits (no bfloat type reaches LLVM or libNVVM), each op on
# the f32 of its operands, rounded to bfloat16 by integer ops, but for +, - and * on sm_90 through libNVVM (PTX's
# add.rn.bf16, sub.rn.bf16, mul.rn.bf16: the same bits); bit_count is popc.
# RUN: kfront compile %s -k lowp --sig 'void(float32[::1], int64[::1], float16[::1])' --emit=llvm | FileCheck %s --check-prefix=LL
# RUN: kfront compile %s -k lowp --sig 'void(float32[::1], int64[::1], float16[::1])' --emit=ptx --arch=sm_90 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# RUN: kfront compile %s -k lowp --sig 'void(float32[::1], int64[::1], float16[::1])' --emit=ptx --backend=llvm -o %t.llvm.ptx
# RUN: %ptxas -arch=sm_90 %t.llvm.ptx -o %t.llvm.cubin
# RUN: kfront compile %s -k lowp --sig 'void(float32[::1], int64[::1], float16[::1])' --emit=ptx --arch=sm_80 -o %t.80.ptx
# RUN: %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin
# RUN: FileCheck %s --check-prefix=BF90 < %t.ptx
# RUN: FileCheck %s --check-prefix=BF80 < %t.80.ptx
import math

from numba import cuda
from numba.cuda import bf16


@cuda.jit
def lowp(f, i, h):
    k = cuda.grid(1)
    if k < f.size:
        a = bf16.float32_to_bfloat16_rz(f[k])
        b = bf16.int64_to_bfloat16_ru(i[k])
        c = bf16.hfma(a, b, a) * a - b
        f[k] = bf16.bfloat16_to_float32(bf16.hsin(c) + bf16.hsqrt(c)) + math.exp(c)
        i[k] = bf16.bfloat16_to_int64_rd(c) + i[k].bit_count()
        h[k] = cuda.fp16.__float2half_ru(f[k]) + cuda.fp16.__ll2half_rz(i[k])


# LL-LABEL: define void @lowp
# LL-NOT: bfloat
# LL: shl i32
# LL: call float @__nv_sinf
# LL: call i64 @llvm.ctpop.i64
# PTX: .visible .entry lowp(
# PTX: popc.b64
# BF90: add.rn.bf16 %rs{{[0-9]+}}, %rs{{[0-9]+}}, %rs{{[0-9]+}};
# BF80: .visible .entry lowp(
# BF80-NOT: {{(add|sub|mul)}}.rn.bf16
