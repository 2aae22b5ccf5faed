// expect: syntax_error.ml:3:17: error: expected ';', found 'out'
kernel k(out: f32[]) {
  let i = 1 + 2 out[0] = 1.0;
}
