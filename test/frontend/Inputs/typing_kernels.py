# Kernels whose variable types kfront must give exactly as numba-cuda does (see ../numba_types.py and
# test/unit/frontend_typing.c); typing_rows.tsv lists the signatures they are compiled for.
import math
import operator

import numba
import numpy as np
from numba import cuda, float32, int32, uint32, uint8, int8, int16, uint64

TPB = 16
TILE = 8
TILE_PAD = TILE + 1
ALPHA = 0.5
SHAPE = (4, TPB)


@cuda.jit(device=True)
def dev_pair(x, y):
    return x + y, x * y


@cuda.jit(device=True)
def clamp(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


@cuda.jit
def arith(a, b, out):
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    u = uint32(7)
    u8 = uint8(3)
    i8 = int8(-3)
    i16 = int16(5)
    big = uint64(9)
    x = t + 1
    y = a[i] * 2
    z = 7 // 2
    w = 5 / 2
    q = t // 3
    r = t % 3
    s = -7 % 3
    p = t ** 2
    pf = a[i] ** 2
    pff = a[i] ** 2.5
    sh = t << 2
    shr = u >> 1
    bits = t & 0xFF
    uu = u + u
    mixed = u + t
    m8 = u8 + i8
    m16 = i16 * u8
    mbig = big + t
    cmpmix = u < t
    f32 = a[i] + a[i]
    f64 = a[i] + b[i]
    fdiv = a[i] / a[i]
    fmod = a[i] % 2.0
    ffl = a[i] // 3
    neg = -t
    negu = -u
    inv = ~t
    invu = ~u8
    n = not t
    lit = 2 ** -1
    litinv = ~True
    k = TILE_PAD * 2
    al = a[i] * ALPHA
    out[i] = x + y + z + w + q + r + s + p + pf + pff + sh + shr + bits + uu + mixed + m8 + m16 + mbig + cmpmix
    out[i] += f32 + f64 + fdiv + fmod + ffl + neg + negu + inv + invu + n + lit + litinv + k + al


@cuda.jit
def functions(a, b, out):
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    u8 = uint8(3)
    m1 = math.sqrt(a[i])
    m2 = math.sqrt(t)
    m3 = math.floor(a[i])
    m4 = math.exp(b[i])
    m5 = math.atan2(a[i], b[i])
    m6 = math.isnan(a[i])
    m7 = math.pow(a[i], 2)
    m8 = math.ceil(t)
    m9 = math.hypot(a[i], 2)
    m10 = math.pi * a[i]
    ab = abs(t)
    abf = abs(a[i])
    abu = abs(u8)
    mn = min(t, 3)
    mx = max(a[i], 1)
    mx3 = max(t, u8, 2)
    i1 = int(a[i])
    i2 = int(t)
    f1 = float(t)
    f2 = float(a[i])
    b1 = bool(t)
    c32 = float32(t)
    n32 = np.float32(t)
    i32 = numba.int32(a[i])
    rd = round(a[i])
    pw = pow(t, 2)
    dm = divmod(t, 3)
    out[i] = m1 + m2 + m3 + m4 + m5 + m6 + m7 + m8 + m9 + m10 + ab + abf + abu + mn + mx + mx3 + i1 + i2 + f1 + f2
    out[i] += b1 + c32 + n32 + i32 + rd + pw + dm[0]


@cuda.jit
def logic(a, out):
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    ch = 1 < t <= 7
    tern = 1 if t > 3 else 2.5
    ad = t > 1 and t < 5
    od = t or 2.5
    an = t and 5
    nb = not (t > 3)
    bx = (t > 1) & (t < 9)
    out[i] = ch + tern + ad + od + an + nb + bx


@cuda.jit
def control(a, out):
    i = cuda.grid(1)
    n = a.shape[0]
    if i >= n:
        return
    acc = 0
    for k in range(n):
        acc += a[k]
    cnt = 0
    j = n - 1
    while j >= 0:
        if a[j] < 0:
            break
        if a[j] == 0:
            j -= 1
            continue
        cnt += 1
        j -= 1
    for k in range(n - 1, -1, -1):
        if k == i:
            out[i] = acc
    x = 0
    if i > 3:
        x = 1.5
    elif i > 2:
        x = 2
    else:
        x = 3
    last = 0
    for m in range(cuda.threadIdx.x):
        last = m
    tot = 0
    for v in a:
        tot += v
    s, pr = dev_pair(a[i], 2.0)
    tup = dev_pair(i, 3)
    c = clamp(a[i], 0.0, 1.0)
    out[i] = acc + cnt + x + last + tot + s + pr + tup[0] + tup[1] + c


@cuda.jit
def memory(a, m, out):
    sa = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sb = cuda.shared.array(TILE_PAD, np.float64)
    sc = cuda.shared.array(SHAPE, float32)
    dyn = cuda.shared.array(0, dtype=float32)
    la = cuda.local.array(4, int32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    sa[tx, ty] = a[tx]
    la[0] = 1
    cuda.syncthreads()
    c = cuda.syncthreads_count(tx)
    old = cuda.atomic.add(out, 0, 1.0)
    old2 = cuda.atomic.max(m, (tx, ty), 3)
    cas = cuda.atomic.cas(m, (0, 0), 1, 2)
    sh = cuda.shfl_down_sync(0xFFFFFFFF, a[tx], 1)
    shi = cuda.shfl_xor_sync(0xFFFFFFFF, tx, 1)
    bal = cuda.ballot_sync(0xFFFFFFFF, tx > 2)
    vall = cuda.all_sync(0xFFFFFFFF, tx > 2)
    am = cuda.activemask()
    lane = cuda.laneid
    ws = cuda.warpsize
    cuda.threadfence()
    cuda.syncwarp()
    last = a[-1]
    neg = a[tx - 5]
    row = m[tx]
    e = row[ty]
    sh2 = m.shape
    sz = m.size
    nd = m.ndim
    ln = len(a)
    gx, gy = cuda.grid(2)
    sx, sy = cuda.gridsize(2)
    pc = cuda.popc(tx)
    out[tx] = sa[tx, ty] + sb[0] + sc[0, 1] + dyn[tx] + la[0] + c + old + old2 + cas + sh + shi + bal + vall + am
    out[tx] += lane + ws + last + neg + e + sh2[0] + sz + nd + ln + gx + gy + sx + sy + pc


@cuda.jit
def unify(a, out):
    i = cuda.grid(1)
    tmp = 0.
    for k in range(a.shape[0]):
        tmp += a[k]
    x = 0
    for k in range(4):
        x = x + 0.5
    y = 0
    if i > 2:
        y = a[i]
    z = cuda.threadIdx.x
    if i > 3:
        z = i
    out[i] = tmp + x + y + z


@cuda.jit
def vectors_operators(a, out):
    i = cuda.grid(1)
    v = cuda.float32x4(a[0], 1.0, 2, a[1])
    h = cuda.short2(i, 3)
    u = cuda.uint8x3(cuda.uint8x2(1, 2), i)
    f = v.x
    g = h.y
    s = operator.add(i, 1)
    d = operator.truediv(i, 2)
    c = operator.lt(f, 2.5)
    n = operator.neg(g)
    out[i] = f + g + u.z + s + d + c + n
