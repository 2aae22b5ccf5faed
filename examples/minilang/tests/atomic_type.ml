// expect: atomic_type.ml:4:22: error: the value of atomic_max must be i32, as the array's elements, not f32
kernel biggest(x: f32[], out: i32[]) {
  let i = thread_idx();
  atomic_max(out, 0, x[i]);
}
