/* ir_target.c — the target facts the passes plan with (ir/target.c): the rows of known SM versions, an unknown
 * version taking the nearest row below it of its major version, 0 taken as sm_90. */
#include "ir/target.h"
#include "runtime_test.h"

int main(void) {
  TargetFacts h = target_facts(90);
  CHECK(h.arch == 90 && h.shared_per_sm == 228 * 1024 && h.shared_reserved_per_block == 1024 &&
        h.threads_per_sm == 2048 && h.blocks_per_sm == 32 && h.shared_per_block == 48 * 1024);
  TargetFacts z = target_facts(0);
  CHECK(z.arch == 90 && z.shared_per_sm == h.shared_per_sm);
  TargetFacts t = target_facts(75);
  CHECK(t.shared_per_sm == 64 * 1024 && t.threads_per_sm == 1024 && t.blocks_per_sm == 16 &&
        t.shared_reserved_per_block == 0);
  TargetFacts a = target_facts(86);
  CHECK(a.shared_per_sm == 100 * 1024 && a.threads_per_sm == 1536);
  TargetFacts u = target_facts(88); /* not in the table: sm_87's row, its own arch kept */
  CHECK(u.arch == 88 && u.shared_per_sm == 164 * 1024);
  TargetFacts n = target_facts(95); /* sm_90's row */
  CHECK(n.arch == 95 && n.shared_per_sm == 228 * 1024);
  TargetFacts b = target_facts(101); /* sm_100's row */
  CHECK(b.shared_per_sm == 228 * 1024);
  TargetFacts c = target_facts(120);
  CHECK(c.shared_per_sm == 100 * 1024 && c.threads_per_sm == 1536);
  return test_result("ir_target");
}
