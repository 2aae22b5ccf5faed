# cuda.ldcg / cuda.stcs (numba-cuda's cache hints) from Python source to kir (mem.load / mem.store with the
# attribute cache) and PTX through ptxas, both backends: ld.global.cg.b<N> / st.global.cs.b<N> inline, the 8-bit
# value in a 32-bit register; a hinted access to shared memory is a plain ld.shared / st.shared.
# RUN: kfront compile %s -k copy --sig 'void(int8[::1], float16[::1], float64[:, ::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=KIR
# RUN: kfront compile %s -k copy --sig 'void(int8[::1], float16[::1], float64[:, ::1])' --emit=ptx --arch=sm_90 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# RUN: kfront compile %s -k copy --sig 'void(int8[::1], float16[::1], float64[:, ::1])' --emit=ptx --backend=llvm -o %t.llvm.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.llvm.ptx
# RUN: %ptxas -arch=sm_90 %t.llvm.ptx -o %t.llvm.cubin
# RUN: kfront compile %s -k staged --sig 'void(float32[::1])' --emit=ptx --arch=sm_90 | FileCheck %s --check-prefix=SHARED
from numba import cuda, float32


@cuda.jit
def copy(b, h, d):
    i = cuda.grid(1)
    # KIR: mem.load({{.*}}) {cache = "cg"} : (array<i8, 1, C>, i64) -> (i8)
    # KIR: mem.store({{.*}}) {cache = "cs"} : (i8, array<i8, 1, C>, i64) -> ()
    # PTX: ld.global.cg.b8 %r{{[0-9]+}}, [%rd{{[0-9]+}}];
    # PTX: st.global.cs.b8 [%rd{{[0-9]+}}], %r{{[0-9]+}};
    cuda.stcs(b, i + 1, cuda.ldcg(b, i))
    # KIR: mem.load({{.*}}) {cache = "cg"} : (array<f16, 1, C>, i64) -> (f16)
    # PTX: ld.global.cg.b16 %rs{{[0-9]+}}, [%rd{{[0-9]+}}];
    # PTX: st.global.cs.b16 [%rd{{[0-9]+}}], %rs{{[0-9]+}};
    cuda.stcs(h, i + 1, cuda.ldcg(h, i))
    # KIR: mem.load({{.*}}) {cache = "cg"} : (array<f64, 2, C>, i64, i64) -> (f64)
    # PTX: ld.global.cg.b64 %rd{{[0-9]+}}, [%rd{{[0-9]+}}];
    # PTX: st.global.cs.b64 [%rd{{[0-9]+}}], %rd{{[0-9]+}};
    cuda.stcs(d, (i, 1), cuda.ldcg(d, (i, 0)))


@cuda.jit
def staged(r):
    s = cuda.shared.array(32, float32)
    # SHARED-NOT: .cs.b32
    # SHARED: st.shared.{{u32|f32}}
    # SHARED: ld.shared.f32
    cuda.stcs(s, cuda.threadIdx.x, 1.5)
    cuda.syncthreads()
    r[cuda.threadIdx.x] = cuda.ldcs(s, 31 - cuda.threadIdx.x)
