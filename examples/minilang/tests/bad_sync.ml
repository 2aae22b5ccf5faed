// expect: bad_sync.ml:4:3: error: sync() takes no arguments
kernel k(x: f32[]) {
  x[0] = 1.0;
  sync(1);
}
