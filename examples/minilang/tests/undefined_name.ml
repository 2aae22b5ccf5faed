// expect: undefined_name.ml:4:19: error: undefined name 'scale'
kernel scaled(x: f32[], out: f32[]) {
  let i = thread_idx();
  out[i] = x[i] * scale;
}
