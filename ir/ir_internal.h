/* ir_internal.h — private state of ir/ files (the IrContext layout). Not for passes or other layers. */
#ifndef KF_IR_INTERNAL_H
#define KF_IR_INTERNAL_H

#include "ir.h"

struct IrContext {
  Arena arena;        /* types and their element lists */
  Type **types;       /* open-addressing intern table */
  size_t types_cap, ntypes;
};

#endif
