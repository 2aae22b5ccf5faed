// reduce.ml — the sum of squares of x in two kernels: each thread of partial_sums adds up a grid-strided
// slice of x into partial[t] (a while loop); total then adds the partial sums (a for loop, one thread).
fn square(v: f32) -> f32 {
  return v * v;
}

kernel partial_sums(x: f32[], partial: f32[]) {
  let t = block_idx() * block_dim() + thread_idx();
  let stride = block_dim() * grid_dim();
  let acc: f32 = 0.0;
  let i = t;
  while (i < len(x)) {
    acc = acc + square(x[i]);
    i = i + stride;
  }
  if (t < len(partial)) {
    partial[t] = acc;
  }
}

kernel total(partial: f32[], out: f32[], skip_negative: bool) {
  let s: f32 = 0.0;
  for k in 0..len(partial) {
    let v = partial[k];
    if (!skip_negative || v >= 0.0) {
      s = s + v;
    }
  }
  out[0] = s;
}
