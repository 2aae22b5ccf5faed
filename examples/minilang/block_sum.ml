// block_sum.ml — each block adds up its block_dim() elements of x in a shared array: every round the lower half
// of the active threads adds in the upper half (a while loop, a barrier per round); thread 0 then writes the
// block's sum and adds it into total[0] atomically.
kernel block_sum(x: f32[], sums: f32[], total: f32[]) {
  shared buf: f32[256];
  let t = thread_idx();
  let i = block_idx() * block_dim() + t;
  buf[t] = 0.0;
  if (i < len(x)) {
    buf[t] = x[i];
  }
  sync();
  let half = block_dim() / 2;
  while (half > 0) {
    if (t < half) {
      buf[t] = buf[t] + buf[t + half];
    }
    sync();
    half = half / 2;
  }
  if (t == 0) {
    sums[block_idx()] = buf[0];
    atomic_add(total, 0, buf[0]);
  }
}
