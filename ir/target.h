/* target.h — what passes know of the GPU a module is compiled for (its SM version's limits), one table for
 * every pass that needs them (tile-shared's shared-memory budget and occupancy model), given to the pipeline by
 * whoever knows the target: the runtime from its device, `kfront compile --arch`, kf_pass_options.arch. */
#ifndef KF_IR_TARGET_H
#define KF_IR_TARGET_H

typedef struct TargetFacts {
  unsigned arch;                      /* SM version: 90 for sm_90 */
  unsigned shared_per_block;          /* bytes of shared memory a block may have without opting in (static) */
  unsigned shared_per_sm;             /* bytes of shared memory per multiprocessor */
  unsigned shared_reserved_per_block; /* of those, bytes the system reserves per resident block */
  unsigned threads_per_sm;            /* resident threads per multiprocessor at most */
  unsigned blocks_per_sm;             /* resident blocks per multiprocessor at most */
} TargetFacts;

/* The facts of sm_<arch> (CUDA's table of limits per compute capability): an SM version the table lacks takes
 * the row of the nearest one below it of its major version (else the nearest below); 0 is sm_90. */
TargetFacts target_facts(unsigned arch);

#endif
