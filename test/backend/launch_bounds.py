# cuda.jit(launch_bounds=...) from Python source to kir (the kernel's launch_bounds attribute: [max threads per block,
# min blocks per SM, max blocks per cluster], 0 for none), NVVM IR (!nvvm.annotations maxntidx, minctasm,
# cluster_max_blocks, numba-cuda's) and PTX (.maxntid N, 1, 1, .minnctapersm, .maxclusterrank), through ptxas; the
# LLVM backend emits the first two and refuses the third, which its NVPTX target would drop. Bad bounds are located
# errors.
# RUN: kfront compile %s -k scalar --sig 'void(float32[::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=KIR
# RUN: kfront compile %s -k scalar --sig 'void(float32[::1])' --emit=llvm | FileCheck %s --check-prefix=LL1
# RUN: kfront compile %s -k scalar --sig 'void(float32[::1])' --emit=ptx --arch=sm_90 | FileCheck %s --check-prefix=PTX1
# RUN: kfront compile %s -k min_cta --sig 'void(float32[::1])' --emit=ptx --arch=sm_90 -o %t.cta.ptx
# RUN: FileCheck %s --check-prefix=PTX2 < %t.cta.ptx
# RUN: %ptxas -arch=sm_90 %t.cta.ptx -o %t.cta.cubin
# RUN: kfront compile %s -k cluster --sig 'void(float32[::1])' --emit=llvm | FileCheck %s --check-prefix=LL3
# RUN: kfront compile %s -k cluster --sig 'void(float32[::1])' --emit=ptx --arch=sm_90 -o %t.cluster.ptx
# RUN: FileCheck %s --check-prefix=PTX3 < %t.cluster.ptx
# RUN: %ptxas -arch=sm_90 %t.cluster.ptx -o %t.cluster.cubin
# RUN: kfront compile %s -k min_cta --sig 'void(float32[::1])' --emit=ptx --backend=llvm | FileCheck %s --check-prefix=PTX2
# RUN: not kfront compile %s -k cluster --sig 'void(float32[::1])' --emit=ptx --backend=llvm 2>&1 | FileCheck %s --check-prefix=NOCLUSTER
# RUN: kfront compile %s -k unbounded --sig 'void(float32[::1])' --emit=ptx --arch=sm_90 | FileCheck %s --check-prefix=NONE
# RUN: not kfront compile %S/Inputs/launch_bounds_bad.py --emit=kir 2>&1 | FileCheck %S/Inputs/launch_bounds_bad.py --check-prefix=BAD
from numba import cuda


# KIR: launch_bounds = [128, 0, 0]
# LL1: !{{[0-9]+}} = !{void ({{.*}})* @scalar, !"maxntidx", i32 128}
# LL1-NOT: minctasm
# PTX1: .maxntid 128, 1, 1
# PTX1-NOT: .minnctapersm
# PTX1-NOT: .maxclusterrank
@cuda.jit(launch_bounds=128)
def scalar(x):
    x[cuda.grid(1)] = 1.0


# PTX2: .maxntid 256, 1, 1
# PTX2: .minnctapersm 2
@cuda.jit(launch_bounds=(256, 2))
def min_cta(x):
    x[cuda.grid(1)] = 2.0


# LL3-DAG: !"maxntidx", i32 128}
# LL3-DAG: !"minctasm", i32 2}
# LL3-DAG: !"cluster_max_blocks", i32 4}
# PTX3: .maxntid 128, 1, 1
# PTX3: .minnctapersm 2
# PTX3: .maxclusterrank 4
# NOCLUSTER: error: backend: launch_bounds' third value (the most blocks per cluster, PTX .maxclusterrank) needs the libNVVM backend
@cuda.jit(launch_bounds=[128, 2, 4])
def cluster(x):
    x[cuda.grid(1)] = 3.0


# NONE-NOT: .maxntid
# NONE-NOT: .minnctapersm
@cuda.jit(launch_bounds=())
def unbounded(x):
    x[cuda.grid(1)] = 4.0
