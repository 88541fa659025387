//===- AST.cpp - Helpers on AST types -------------------------------------===//
#include "compiler/frontend/AST.h"

namespace kuiper::ast {

int bitWidth(ScalarKind k) {
  switch (k) {
  case ScalarKind::Bool: return 1;
  case ScalarKind::I32:
  case ScalarKind::U32:
  case ScalarKind::F32: return 32;
  case ScalarKind::I64:
  case ScalarKind::U64:
  case ScalarKind::F64: return 64;
  case ScalarKind::F16:
  case ScalarKind::BF16: return 16;
  case ScalarKind::Error:
  case ScalarKind::Void: return 0;
  }
  return 0;
}

const char *spelling(ScalarKind k) {
  switch (k) {
  case ScalarKind::Error: return "<error>";
  case ScalarKind::Void: return "void";
  case ScalarKind::Bool: return "bool";
  case ScalarKind::I32: return "i32";
  case ScalarKind::U32: return "u32";
  case ScalarKind::I64: return "i64";
  case ScalarKind::U64: return "u64";
  case ScalarKind::F16: return "f16";
  case ScalarKind::BF16: return "bf16";
  case ScalarKind::F32: return "f32";
  case ScalarKind::F64: return "f64";
  }
  return "?";
}

std::string toString(const Type &t) {
  std::string s = spelling(t.scalar);
  if (t.rank > 0) {
    s += "[";
    for (int i = 0; i < t.rank; ++i)
      s += i ? ",_" : "_";
    s += "]";
  }
  return s;
}

} // namespace kuiper::ast
