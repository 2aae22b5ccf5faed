// expect: type_error.ml:5:17: error: the operands of '+' have different types, f32 and i32 (convert one: f32(x))
kernel add_count(x: f32[], n: i32) {
  let i = thread_idx();
  if (i < len(x)) {
    x[i] = x[i] + n;
  }
}
