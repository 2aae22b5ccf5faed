/* type_tree.h — a parsed signature as a kf_value tree (type_tree.c; compile.h's fe_signature_tree uses it). */
#ifndef KF_FRONTEND_TYPE_TREE_H
#define KF_FRONTEND_TYPE_TREE_H

#include "frontend/fe.h"

/* sig (parsed in fe) as kf_signature_parse's tree, in one block of the current allocator (*out); false after an
 * error reported to fe->diag (a type with no Numba type, out of memory). */
bool fe_sig_tree(FeCtx *fe, const FeSig *sig, kf_value **out);

#endif
