// expect: bad_call.ml:7:21: error: argument 1 of 'half' (v) must be f32, not f64
fn half(v: f32) -> f32 {
  return v / 2.0;
}

kernel k(out: f64[]) {
  out[0] = f64(half(out[0]));
}
