/* sim_print.c — gpu.print on the simulator: C printf's formats (%lld, %llu, %f, True/False, %%), each thread's
 * lines in its own order, threads and blocks in order whatever the workers did, handed to SimOptions.print when
 * the launch ends (also after a failed check), and output beyond SIM_PRINT_MAX dropped with a warning. */
#include "sim_test.h"

typedef struct Captured {
  char *text;
  size_t len;
  unsigned calls;
} Captured;

static void capture(void *user, const char *text, size_t len) {
  Captured *c = user;
  c->text = realloc(c->text, c->len + len + 1);
  memcpy(c->text + c->len, text, len);
  c->len += len;
  c->text[c->len] = 0;
  c->calls++;
}

/* Each thread prints twice (its id, then the second line) with values of every directive; thread 0 of block 1
 * prints its second line before a check.raise ends it when %fail is true. */
static const char *PRINTS =
    "func.func() ({\n"
    "^bb0(%fail: i1, %big: i64):\n"
    KIR_GRID1
    "  %u = arith.bitcast(%i) : (i64) -> (u64)\n"
    "  %f = arith.sitofp(%i) : (i64) -> (f64)\n"
    "  %h = arith.constant() {value = 0.5} : () -> (f64)\n"
    "  %fh = arith.addf(%f, %h) : (f64, f64) -> (f64)\n"
    "  %two = arith.constant() {value = 2} : () -> (i64)\n"
    "  %odd = arith.remsi(%i, %two) : (i64, i64) -> (i64)\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %even = arith.cmpi(%odd, %z) {pred = \"eq\"} : (i64, i64) -> (i1)\n"
    "  gpu.print(%i, %u, %fh, %even) {format = \"t%lld %llu %f %s 100%%\\n\"} : (i64, u64, f64, i1) -> ()\n"
    "  gpu.print(%i) {format = \"second %lld\\n\"} : (i64) -> ()\n"
    "  %three = arith.constant() {value = 3} : () -> (i64)\n"
    "  %is3 = arith.cmpi(%i, %three) {pred = \"eq\"} : (i64, i64) -> (i1)\n"
    "  %stop = arith.andi(%is3, %fail) : (i1, i1) -> (i1)\n"
    "  check.raise(%stop) {exception = \"ValueError: stop\"} : (i1) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @prints, function_type = (i1, i64) -> (), kernel} : () -> ()\n";

static void test_order_and_formats(void) {
  Kir k;
  if (!kir_load(&k, PRINTS)) return;
  static const char *want =
      "t0 0 0.500000 True 100%\nsecond 0\nt1 1 1.500000 False 100%\nsecond 1\n"
      "t2 2 2.500000 True 100%\nsecond 2\nt3 3 3.500000 False 100%\nsecond 3\n";
  for (unsigned workers = 1; workers <= 2; workers++) {
    Captured c = {0};
    SimOptions o;
    sim_options_init(&o);
    o.nworkers = workers;
    o.print = capture;
    o.print_user = &c;
    SimArg args[2] = {sim_arg_int(0), sim_arg_int(0)};
    SimResult r;
    CHECK(kir_launch(&k, "prints", 2, 1, 2, 1, 0, args, 2, &o, &r));
    CHECK(c.calls == 1 && c.text);
    if (c.text) CHECK_STR(c.text, want);
    free(c.text);
    /* a failed check: what was printed before it still comes out */
    c = (Captured){0};
    args[0] = sim_arg_int(1);
    CHECK(!kir_launch(&k, "prints", 2, 1, 2, 1, 0, args, 2, &o, &r));
    CHECK(r.status == SIM_ERR_RAISE);
    if (c.text) CHECK_STR(c.text, want);
    free(c.text);
  }
  kir_free(&k);
}

/* One long line per thread: past SIM_PRINT_MAX bytes the rest is dropped, with a warning. */
static const char *FLOOD =
    "func.func() ({\n"
    "^bb0(%n: i64):\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %one = arith.constant() {value = 1} : () -> (i64)\n"
    "  scf.for(%z, %n, %one) ({\n"
    "  ^bb0(%k: i64):\n"
    "    gpu.print(%k) {format = \"%lld ................................................................\\n\"} : (i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i64, i64, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @flood, function_type = (i64) -> (), kernel} : () -> ()\n";

static void test_cap(void) {
  Kir k;
  if (!kir_load(&k, FLOOD)) return;
  Captured c = {0};
  SimOptions o;
  sim_options_init(&o);
  o.print = capture;
  o.print_user = &c;
  SimArg args[1] = {sim_arg_int(20000)};
  SimResult r;
  CHECK(kir_launch(&k, "flood", 1, 1, 1, 1, 0, args, 1, &o, &r));
  CHECK(c.len <= SIM_PRINT_MAX && c.len > SIM_PRINT_MAX - 100);
  CHECK(c.text && strncmp(c.text, "0 ....", 6) == 0);
  CHECK_CONTAINS(diag_text(&k.diag), "warning: kernel flood:");
  CHECK_CONTAINS(diag_text(&k.diag), "bytes of print() output beyond 1048576 bytes were dropped");
  free(c.text);
  kir_free(&k);
}

int main(void) {
  RUN(test_order_and_formats);
  RUN(test_cap);
  return sim_test_summary("sim_print");
}
