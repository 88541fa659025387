//===- Overflow.cpp - Integer overflow and division faults ------------------===//
#include "verifier/analysis/SymExec.h"

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;

void SymExec::checkOverflow(Operation &op, z3::expr r, unsigned width, bool isSigned) {
  if (inSpec || width <= 1)
    return;
  z3::expr lo = z.int_val(isSigned ? signedMin(width) : 0);
  z3::expr hi = isSigned ? z.int_val(signedMax(width))
                         : z.int_val((uint64_t)(width == 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1));
  std::string type = (isSigned ? "i" : "u") + std::to_string(width);
  addObligation(CheckId::Overflow, op.getLoc(),
                "the " + op.getName().getStringRef().str() + " result fits in " + type,
                "integer overflow: the result leaves the range of " + type, r >= lo && r <= hi);
}
