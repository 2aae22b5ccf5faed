// The builder's SSA construction finds the read of v where it may be unassigned; located here.
// expect: maybe_unassigned.ml:9:10: error: variable 'v' may be read before it is assigned
kernel pick(x: f32[], c: bool) {
  let v: f32;
  if (c) {
    v = 1.0;
  }
  let i = thread_idx();
  x[i] = v;
}
