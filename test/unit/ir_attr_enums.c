/* ir_attr_enums.c — unit tests of kir's enumerated attributes (ir/attr_enums.def, ir/attr_enums.c):
 *   - every value of every enumeration spells and parses back to itself; NULL and unknown spellings parse to -1, a
 *     value out of range spells NULL; the enumerations' attribute names and counts;
 *   - the typed setters write the kir spelling (the text form is unchanged: `{kind = "nanmax"}`) and the typed
 *     getters read it back, a missing or unknown attribute as IR_<Prefix>_INVALID;
 *   - swapping a comparison's operands twice gives the predicate back, and the swapped predicate of each
 *     ordering is its mirror;
 *   - the verifier's diagnostic for an unknown value lists the table's spellings in order. */
#include <stdio.h>
#include <string.h>

#include "ir/ir.h"
#include "runtime_test.h"

static void test_spellings(void) {
  for (int e = 0; e < IR_ENUM__COUNT; e++) {
    unsigned n = ir_enum_count((IrAttrEnum)e);
    CHECK(n >= 2);
    CHECK(ir_enum_attr_name((IrAttrEnum)e) != NULL);
    for (unsigned v = 0; v < n; v++) {
      const char *s = ir_enum_name((IrAttrEnum)e, (int)v);
      CHECK(s && ir_enum_parse((IrAttrEnum)e, s) == (int)v);
    }
    CHECK(ir_enum_name((IrAttrEnum)e, (int)n) == NULL && ir_enum_name((IrAttrEnum)e, -1) == NULL);
    CHECK(ir_enum_parse((IrAttrEnum)e, NULL) == -1 && ir_enum_parse((IrAttrEnum)e, "no such value") == -1);
  }
  CHECK(IR_CMPI__COUNT == 10 && IR_CMPF__COUNT == 13 && IR_ATOMIC__COUNT == 12 && IR_SHUFFLE__COUNT == 4 &&
        IR_VOTE__COUNT == 4 && IR_ROUND__COUNT == 4);
  CHECK(strcmp(ir_enum_attr_name(IR_ENUM_CMPI), "pred") == 0 && strcmp(ir_enum_attr_name(IR_ENUM_ATOMIC), "kind") == 0 &&
        strcmp(ir_enum_attr_name(IR_ENUM_SHUFFLE), "mode") == 0 && strcmp(ir_enum_attr_name(IR_ENUM_FENCE), "scope") == 0);
  CHECK(strcmp(ir_cmpi_pred_name(IR_CMPI_SLT), "slt") == 0 && ir_cmpf_pred_parse("uno") == IR_CMPF_UNO);
  CHECK(strcmp(ir_atomic_kind_name(IR_ATOMIC_NANMAX), "nanmax") == 0 && ir_shuffle_mode_parse("xor") == IR_SHUFFLE_XOR);
  CHECK(ir_vote_mode_parse("ballot") == IR_VOTE_BALLOT && ir_vote_mode_parse("slt") == IR_VOTE_INVALID);
  CHECK(ir_cmpi_pred_parse("olt") == IR_CMPI_INVALID && ir_cmpi_pred_parse("lt") == IR_CMPI_INVALID);
  StrBuf list;
  sb_init(&list);
  ir_enum_list(IR_ENUM_SHUFFLE, true, &list);
  CHECK(strcmp(sb_cstr(&list), "\"idx\", \"up\", \"down\", \"xor\"") == 0);
  sb_free(&list);
}

static void test_swapped(void) {
  for (int p = 0; p < IR_CMPI__COUNT; p++) CHECK(ir_cmpi_pred_swapped(ir_cmpi_pred_swapped((IrCmpIPred)p)) == p);
  for (int p = 0; p < IR_CMPF__COUNT; p++) CHECK(ir_cmpf_pred_swapped(ir_cmpf_pred_swapped((IrCmpFPred)p)) == p);
  CHECK(ir_cmpi_pred_swapped(IR_CMPI_SLT) == IR_CMPI_SGT && ir_cmpi_pred_swapped(IR_CMPI_UGE) == IR_CMPI_ULE &&
        ir_cmpi_pred_swapped(IR_CMPI_NE) == IR_CMPI_NE);
  CHECK(ir_cmpf_pred_swapped(IR_CMPF_OLE) == IR_CMPF_OGE && ir_cmpf_pred_swapped(IR_CMPF_UGT) == IR_CMPF_ULT &&
        ir_cmpf_pred_swapped(IR_CMPF_UNO) == IR_CMPF_UNO);
}

static void test_ops(void) {
  IrContext *ctx = ir_context_new();
  Module *m = ir_module_new(ctx, "enums");
  Type *i32 = ty_i32(ctx), *u32 = ty_u32(ctx);
  Op *f = ir_func_create(m, "f", ty_func(ctx, 2, (Type *[]){u32, i32}, 0, NULL), (SrcLoc){0});
  IrBuilder b;
  ib_init(&b, m);
  ib_set_end(&b, ir_func_entry(f));
  Value *mask = ir_func_entry(f)->args[0], *x = ir_func_entry(f)->args[1];
  Value *lt = ib_cmpi(&b, IR_CMPI_ULT, x, x);
  CHECK(ir_op_cmpi_pred(lt->def) == IR_CMPI_ULT && strcmp(ir_op_attr_str(lt->def, "pred"), "ult") == 0);
  Value *ops[4] = {mask, x, x, x};
  Op *shfl = ib_op(&b, OP_SHFL, 4, ops, 1, &i32, 0);
  CHECK(ir_op_shuffle_mode(shfl) == IR_SHUFFLE_INVALID); /* missing */
  ir_op_set_shuffle_mode(m, shfl, IR_SHUFFLE_DOWN);
  CHECK(ir_op_shuffle_mode(shfl) == IR_SHUFFLE_DOWN && ir_op_enum_attr(shfl, IR_ENUM_SHUFFLE) == IR_SHUFFLE_DOWN);
  ir_op_set_attr(m, shfl, "mode", attr_str(m, "sideways"));
  CHECK(ir_op_shuffle_mode(shfl) == IR_SHUFFLE_INVALID); /* unknown */
  ir_op_set_shuffle_mode(m, shfl, IR_SHUFFLE_XOR);
  StrBuf text;
  sb_init(&text);
  ir_print_op(shfl, NULL, &text);
  CHECK_CONTAINS(sb_cstr(&text), "{mode = \"xor\"}");
  sb_free(&text);
  ib_op(&b, OP_FUNC_RETURN, 0, NULL, 0, NULL, 0);
  Diag d;
  diag_init(&d);
  CHECK(ir_verify_module(m, &d));
  /* an unknown vote mode: the verifier lists the table's spellings */
  Value *vops[2] = {mask, lt};
  Type *i1 = ty_bool(ctx);
  ib_set_before(&b, ir_block_terminator(ir_func_entry(f)));
  Op *vote = ib_op(&b, OP_VOTE, 2, vops, 1, &i1, 0);
  ir_op_set_attr(m, vote, "mode", attr_str(m, "most"));
  CHECK(!ir_verify_module(m, &d));
  CHECK_CONTAINS(diag_text(&d), "attribute 'mode' must be one of all, any, uni, ballot; got \"most\"");
  diag_free(&d);
  ir_module_free(m);
  ir_context_free(ctx);
}

int main(void) {
  test_spellings();
  test_swapped();
  test_ops();
  return test_result("ir_attr_enums");
}
