// collatz.ml — steps[i] is how many Collatz steps take i + 1 to 1 (a while loop in a device function); then
// first_at_least finds the first index whose count is at least limit (a while whose condition is a && that
// guards the array read).
fn collatz(n: i64) -> i64 {
  let v = n;
  let steps: i64 = 0;
  while (v != 1) {
    if (v % 2 == 0) {
      v = v / 2;
    } else {
      v = 3 * v + 1;
    }
    steps = steps + 1;
  }
  return steps;
}

kernel collatz_steps(steps: i64[]) {
  let i = block_idx() * block_dim() + thread_idx();
  if (i < len(steps)) {
    steps[i] = collatz(i + 1);
  }
}

kernel first_at_least(steps: i64[], limit: i64, out: i64[]) {
  let k: i64 = 0;
  while (k < len(steps) && steps[k] < limit) {
    k = k + 1;
  }
  out[0] = k;
}
