// saxpy.ml — out[i] = a * x[i] + y[i], one thread per element.
kernel saxpy(a: f32, x: f32[], y: f32[], out: f32[]) {
  let i = block_idx() * block_dim() + thread_idx();
  if (i < len(out)) {
    out[i] = a * x[i] + y[i];
  }
}
