/* target.c — the limits of each SM version that passes plan with (CUDA C++ Programming Guide, "Technical
 * Specifications per Compute Capability"): shared memory per block without opt-in and per multiprocessor, the
 * shared memory reserved per block, resident threads and blocks per multiprocessor. */
#include "ir/target.h"

static const TargetFacts table[] = {
    /* arch  per block    per SM       reserved threads blocks */
    {70, 48 * 1024, 96 * 1024, 0, 2048, 32},
    {72, 48 * 1024, 96 * 1024, 0, 2048, 32},
    {75, 48 * 1024, 64 * 1024, 0, 1024, 16},
    {80, 48 * 1024, 164 * 1024, 1024, 2048, 32},
    {86, 48 * 1024, 100 * 1024, 1024, 1536, 16},
    {87, 48 * 1024, 164 * 1024, 1024, 2048, 16},
    {89, 48 * 1024, 100 * 1024, 1024, 1536, 24},
    {90, 48 * 1024, 228 * 1024, 1024, 2048, 32},
    {100, 48 * 1024, 228 * 1024, 1024, 2048, 32},
    {103, 48 * 1024, 228 * 1024, 1024, 2048, 32},
    {110, 48 * 1024, 228 * 1024, 1024, 2048, 32},
    {120, 48 * 1024, 100 * 1024, 1024, 1536, 32},
    {121, 48 * 1024, 100 * 1024, 1024, 1536, 32},
};

TargetFacts target_facts(unsigned arch) {
  if (!arch) arch = 90;
  const TargetFacts *best = &table[0];
  for (unsigned i = 0; i < sizeof table / sizeof *table; i++)
    if (table[i].arch <= arch && (table[i].arch / 10 == arch / 10 || best->arch / 10 != arch / 10)) best = &table[i];
  TargetFacts f = *best;
  f.arch = arch;
  return f;
}
