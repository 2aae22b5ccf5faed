// histogram.ml — bins[b] counts the data[i] with data[i] % 16 == b: each block counts its grid-strided share
// into a shared histogram (shared-memory atomics), then adds it to bins (one atomic per bin); biggest[0] ends
// as the largest value (atomic_max).
kernel histogram(data: i32[], bins: i32[], biggest: i32[]) {
  shared local: i32[16];
  let t = thread_idx();
  if (t < 16) {
    local[t] = 0;
  }
  sync();
  let i = block_idx() * block_dim() + t;
  let stride = block_dim() * grid_dim();
  while (i < len(data)) {
    let v = data[i];
    atomic_add(local, v % 16, 1);
    atomic_max(biggest, 0, v);
    i = i + stride;
  }
  sync();
  if (t < 16) {
    atomic_add(bins, t, local[t]);
  }
}
