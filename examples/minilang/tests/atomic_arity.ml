// expect: atomic_arity.ml:3:3: error: atomic_add(a, i, v) takes 3 arguments, not 2
kernel count(bins: i32[]) {
  atomic_add(bins, 1);
}
