// Two shared arrays of one name in one kernel: the builder refuses the second symbol, located here.
// expect: shared_twice.ml:6:5: error: shared array 'k.buf': the module already has a symbol 'k.buf'
kernel k(x: f32[]) {
  shared buf: f32[32];
  if (x[0] > 0.0) {
    shared buf: f32[32];
    buf[0] = x[0];
  }
}
