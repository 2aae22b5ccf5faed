// One element past the end: the bounds check raises an IndexError located here.
kernel shift(x: f32[], out: f32[]) {
  let i = thread_idx();
  out[i] = x[i + 1];
}
