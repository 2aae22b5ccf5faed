// expect: while_cond.ml:4:10: error: the condition of while must be bool, not i64
kernel countdown(out: i64[], n: i64) {
  let k = n;
  while (k) {
    k = k - 1;
  }
  out[0] = k;
}
