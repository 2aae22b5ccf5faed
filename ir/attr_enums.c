/* attr_enums.c — kir's enumerated attributes (attr_enums.def): each enumeration's attribute name and spellings,
 * spelling <-> value, and an op's attribute read and written as its value (ir.h, "Enumerated attributes"). */
#include <string.h>

#include "ir.h"

typedef struct EnumInfo {
  const char *attr;           /* the op attribute that holds it */
  unsigned count;
  const char *const *names;   /* its spellings, in value order */
} EnumInfo;

#define ATTR_ENUM(Prefix, Type, fn, attr) static const char *const names_##Prefix[] = {
#define ATTR_ENUM_VALUE(Prefix, Name, text) [IR_##Prefix##_##Name] = text,
#define ATTR_ENUM_END(Prefix) };
#include "attr_enums.def"
#undef ATTR_ENUM
#undef ATTR_ENUM_VALUE
#undef ATTR_ENUM_END

static const EnumInfo enum_info[IR_ENUM__COUNT] = {
#define ATTR_ENUM(Prefix, Type, fn, attr) [IR_ENUM_##Prefix] = {attr, IR_##Prefix##__COUNT, names_##Prefix},
#define ATTR_ENUM_VALUE(Prefix, Name, text)
#define ATTR_ENUM_END(Prefix)
#include "attr_enums.def"
#undef ATTR_ENUM
#undef ATTR_ENUM_VALUE
#undef ATTR_ENUM_END
};

const char *ir_enum_attr_name(IrAttrEnum e) { return enum_info[e].attr; }
unsigned ir_enum_count(IrAttrEnum e) { return enum_info[e].count; }

const char *ir_enum_name(IrAttrEnum e, int v) {
  return v >= 0 && (unsigned)v < enum_info[e].count ? enum_info[e].names[v] : NULL;
}

int ir_enum_parse(IrAttrEnum e, const char *s) {
  for (unsigned i = 0; s && i < enum_info[e].count; i++)
    if (strcmp(s, enum_info[e].names[i]) == 0) return (int)i;
  return -1;
}

void ir_enum_list(IrAttrEnum e, bool quoted, StrBuf *out) {
  const char *q = quoted ? "\"" : "";
  for (unsigned i = 0; i < enum_info[e].count; i++) sb_printf(out, "%s%s%s%s", i ? ", " : "", q, enum_info[e].names[i], q);
}

int ir_op_enum_attr(const Op *op, IrAttrEnum e) { return ir_enum_parse(e, ir_op_attr_str(op, enum_info[e].attr)); }

void ir_op_set_enum_attr(Module *m, Op *op, IrAttrEnum e, int v) {
  ir_op_set_attr(m, op, enum_info[e].attr, attr_str(m, ir_enum_name(e, v)));
}

IrCmpIPred ir_cmpi_pred_swapped(IrCmpIPred p) {
  switch (p) {
  case IR_CMPI_SLT: return IR_CMPI_SGT;
  case IR_CMPI_SLE: return IR_CMPI_SGE;
  case IR_CMPI_SGT: return IR_CMPI_SLT;
  case IR_CMPI_SGE: return IR_CMPI_SLE;
  case IR_CMPI_ULT: return IR_CMPI_UGT;
  case IR_CMPI_ULE: return IR_CMPI_UGE;
  case IR_CMPI_UGT: return IR_CMPI_ULT;
  case IR_CMPI_UGE: return IR_CMPI_ULE;
  default: return p; /* eq, ne */
  }
}

IrCmpFPred ir_cmpf_pred_swapped(IrCmpFPred p) {
  switch (p) {
  case IR_CMPF_OLT: return IR_CMPF_OGT;
  case IR_CMPF_OLE: return IR_CMPF_OGE;
  case IR_CMPF_OGT: return IR_CMPF_OLT;
  case IR_CMPF_OGE: return IR_CMPF_OLE;
  case IR_CMPF_ULT: return IR_CMPF_UGT;
  case IR_CMPF_ULE: return IR_CMPF_UGE;
  case IR_CMPF_UGT: return IR_CMPF_ULT;
  case IR_CMPF_UGE: return IR_CMPF_ULE;
  default: return p; /* oeq, one, ord, une, uno */
  }
}
