// expect: wrong_arity.ml:7:11: error: 'half' takes 1 argument, not 2
fn half(v: f32) -> f32 {
  return v / 2.0;
}

kernel halve(x: f32[]) {
  let h = half(x[0], 2.0);
  x[0] = h;
}
