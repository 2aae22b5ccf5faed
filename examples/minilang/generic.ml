// generic.ml — kernels over any element type T, bound at each launch by the arguments' types (minilang_run
// launches them with f32 and with f64 arrays: a kernel each, made by kf_program_create_generic's callback).
kernel axpy(a: T, x: T[], y: T[]) {
  let i = block_idx() * block_dim() + thread_idx();
  if (i < len(y)) {
    y[i] = a * x[i] + y[i];
  }
}

// one thread: total[0] = x[0] + x[1] + ... (with i32 arrays 0.0 is no T: that launch is refused, located here)
kernel sum(x: T[], total: T[]) {
  let acc: T = 0.0;
  for i in 0..len(x) {
    acc = acc + x[i];
  }
  total[0] = acc;
}
