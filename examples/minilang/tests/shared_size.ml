// expect: shared_size.ml:3:15: error: a shared array needs its size: 'shared buf: f32[256];'
kernel k(x: f32[]) {
  shared buf: f32[];
  x[0] = 1.0;
}
