/* lower_foreign.c — calls of foreign device functions: a name the embedder bound to KF_VALUE_FOREIGN (numba-cuda's
 * cuda.declare_device(name, sig, link=...)), a function of CUDA C/C++ or PTX that is linked into the kernel.
 *
 * The call is typed by the declared signature alone, as numba-cuda types it (one concrete signature: each argument
 * converted to its parameter's type). It is lowered with numba-cuda's ABI for device functions, the C-ABI style
 *     extern "C" __device__ int name(T *return_value, args...)
 * the result written through a pointer to a slot of the caller's (a local array of one, as numba-cuda allocates
 * one), the int returned a status: 0 goes on; anything else ends the thread as a raise does in a kernel compiled
 * without debug (numba-cuda propagates the status out of every caller: the kernel returns). The function is a
 * body-less func.func of that C type in the module, marked `foreign` (the simulator refuses to run it: it needs a
 * GPU), and stays an external symbol in the kernel's PTX or LTO-IR for the link step (backend/link.c).
 * Declared with abi="c" (fn->foreign.c_abi) it is a plain C function instead, `extern "C" __device__ T name(args...)`:
 * called with the converted arguments, its result the call's value, no status. A function declared with
 * use_cooperative=True (fn->foreign.cooperative: it synchronises the grid) makes its caller cooperative, and so the
 * kernel that calls it (a cooperative launch, runtime/plan.c). */
#include <string.h>

#include "frontend/lower.h"

/* The module's declaration of the foreign function symbol, of C type fty: made on the first call, the same on the
 * next ones; NULL after a located error (a kfront function of that name, or a second declaration of another type). */
static Op *foreign_declaration(Lower *L, const char *symbol, Type *fty, SrcLoc loc) {
  Op *f = ir_module_lookup(L->m, symbol);
  if (f) {
    if (f->kind == OP_FUNC_FUNC && ir_op_attr(f, "foreign") && ir_func_type(f) == fty) return f;
    lw_lerr(L, loc, "the foreign function '%s' (cuda.declare_device) is declared twice with different signatures, "
            "or its name is the name of a kernel or device function", symbol);
    return NULL;
  }
  f = ir_func_create(L->m, symbol, fty, op_loc(L, loc)); /* (reported by the link step, after the source went) */
  ir_op_set_attr(L->m, f, "foreign", attr_unit());
  /* a declaration: ir_func_create gave it an entry block for the parameters, which a body-less function has not */
  Block *entry = ir_func_entry(f);
  if (entry) ir_block_unlink(entry);
  return f;
}

FeVal lw_call_foreign(Lower *L, const FeVal *fn, const PyExpr *e) {
  const char *symbol = fn->foreign.symbol;
  const char *text = fn->foreign.signature;
  FeSig sig;
  if (!nb_parse_signature_text(L->fe, text, strlen(text), e->loc.file, e->loc.line, e->loc.col, &sig))
    return lw_lerr(L, e->loc, "the signature \"%s\" of the foreign function '%s' (cuda.declare_device) is not one "
                   "kfront reads", text, symbol);
  if (!sig.has_ret)
    return lw_lerr(L, e->loc, "the foreign function '%s' needs a return type in its signature \"%s\" (numba-cuda: "
                   "\"Return type must be provided for device declarations\")", symbol, text);
  if (e->call.nkeywords)
    return lw_lerr(L, e->call.keywords[0]->loc, "the foreign function '%s' takes no keyword arguments", symbol);
  if (e->call.args.n != sig.nargs)
    return lw_lerr(L, e->loc, "the foreign function '%s' declared as \"%s\" takes %u argument%s, not %u", symbol, text,
                   sig.nargs, sig.nargs == 1 ? "" : "s", e->call.args.n);
  for (unsigned i = 0; i < sig.nargs; i++) {
    Type *t = sig.args[i];
    if (t->kind != TY_INT && t->kind != TY_FLOAT && t->kind != TY_BOOL && t->kind != TY_PTR)
      return lw_lerr(L, e->loc, "the foreign function '%s': parameter %u is %s; kfront passes numbers, booleans and "
                     "pointers to numbers to foreign functions", symbol, i + 1, tname(L, t));
  }
  Type *ret = sig.ret;
  if (ret && ret->kind != TY_INT && ret->kind != TY_FLOAT && ret->kind != TY_BOOL && ret->kind != TY_PTR)
    return lw_lerr(L, e->loc, "the foreign function '%s' returns %s; kfront takes numbers, booleans and pointers to "
                   "numbers back from foreign functions", symbol, tname(L, ret));
  if (fn->foreign.cooperative) mark_cooperative(L);  /* declare_device(..., use_cooperative=True) */
  /* the arguments, each converted to its parameter's type */
  Value **vals = ARENA_ARRAY(&L->fe->arena, Value *, sig.nargs + 1);
  for (unsigned i = 0; i < sig.nargs; i++) {
    const PyExpr *a = e->call.args.items[i];
    if (a->kind == EX_STARRED) return lw_lerr(L, a->loc, "*args in a call of the foreign function '%s'", symbol);
    FeVal v = lower_expr(L, a);
    if (v.kind == FV_POISON) return v;
    /* arr.ctypes to a pointer to arr's dtype: its data pointer (numba-cuda's cast of an ArrayCTypes to a CPointer) */
    if (v.kind == FV_CTYPES && sig.args[i]->kind == TY_PTR && sig.args[i]->elem == v.type->elem) {
      Value *arr = v.v;
      v = val(sig.args[i], op_result(ib_op(&L->b, OP_DATA, 1, &arr, 1, &sig.args[i], 0), 0));
    }
    /* a pointer parameter takes that pointer type alone (numba-cuda converts no array or other pointer to it) */
    bool pointers = sig.args[i]->kind == TY_PTR || (v.kind == FV_VAL && v.type->kind == TY_PTR);
    if (v.kind != FV_VAL || v.type->kind == TY_ARRAY || v.type->kind == TY_COMPLEX || (pointers && v.type != sig.args[i]))
      return lw_lerr(L, a->loc, "argument %u of the foreign function '%s' declared as \"%s\" must be %s, not %s", i + 1,
                     symbol, text, tname(L, sig.args[i]), lw_vname(L, &v));
    FeVal c = lw_conv(L, v, sig.args[i]);
    if (c.kind == FV_POISON) return c;
    vals[1 + i] = lw_mat(L, &c);
  }
  at(L, e->loc);  /* the call's ops at the call (not at its last argument) */
  if (fn->foreign.c_abi) { /* abi="c": T symbol(args...), the result returned, no status */
    Type *fty = ty_func(L->ctx, sig.nargs, sig.args, ret ? 1 : 0, &ret);
    Op *decl = foreign_declaration(L, symbol, fty, e->loc);
    if (!decl) return (FeVal){.kind = FV_POISON};
    Op *call = ib_op(&L->b, OP_FUNC_CALL, sig.nargs, vals + 1, ret ? 1 : 0, &ret, 0);
    ir_op_set_attr(L->m, call, "callee", attr_sym(L->m, symbol));
    return ret ? val(ret, op_result(call, 0)) : (FeVal){.kind = FV_NONE};
  }
  /* the return slot: a local of the result's type (void: numba-cuda still passes one, of a byte) */
  Type *slot_elem = ret ? ret : ty_int(L->ctx, 8, false);
  Type *slot_type = ty_array(L->ctx, slot_elem, 1, LAYOUT_C);
  Op *alloca = ir_op_create(L->m, OP_ALLOCA, L->b.loc, 0, NULL, 1, &slot_type, 0);
  Attr one = attr_int(ty_i64(L->ctx), 1);
  ir_op_set_attr(L->m, alloca, "shape", attr_array(L->m, 1, &one));
  ir_block_prepend(ir_func_entry(L->func_op), alloca);
  Value *slot = op_result(alloca, 0);
  Type *ptr = ty_ptr(L->ctx, slot_elem, 0);
  vals[0] = op_result(ib_op(&L->b, OP_DATA, 1, &slot, 1, &ptr, 0), 0);
  Type **params = ARENA_ARRAY(&L->fe->arena, Type *, sig.nargs + 1);
  params[0] = ptr;
  for (unsigned i = 0; i < sig.nargs; i++) params[1 + i] = sig.args[i];
  Type *status_type = ty_i32(L->ctx);
  Type *fty = ty_func(L->ctx, sig.nargs + 1, params, 1, &status_type);
  Op *decl = foreign_declaration(L, symbol, fty, e->loc);
  if (!decl) return (FeVal){.kind = FV_POISON};
  Op *call = ib_op(&L->b, OP_FUNC_CALL, sig.nargs + 1, vals, 1, &status_type, 0);
  ir_op_set_attr(L->m, call, "callee", attr_sym(L->m, symbol));
  Value *failed = ib_cmpi(&L->b, IR_CMPI_NE, op_result(call, 0), ib_const_int(&L->b, status_type, 0));
  Op *end = ib_op(&L->b, OP_RAISE, 1, &failed, 0, NULL, 0);
  ir_op_set_attr(L->m, end, "exception",
                 attr_str(L->m, arena_printf(&L->fe->arena, "RuntimeError: the foreign function '%s' returned a "
                                             "nonzero status", symbol)));
  ir_op_set_attr(L->m, end, "silent", attr_unit());
  if (!ret) return (FeVal){.kind = FV_NONE};
  Value *zero = ib_const_int(&L->b, ty_i64(L->ctx), 0);
  return lw_load_element(L, slot, &zero);
}
