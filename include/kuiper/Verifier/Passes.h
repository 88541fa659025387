//===- Passes.h - The verifier's passes -------------------------*- C++ -*-===//
#ifndef KUIPER_VERIFIER_PASSES_H
#define KUIPER_VERIFIER_PASSES_H

#include "mlir/Pass/Pass.h"

namespace kuiper {

#define GEN_PASS_DECL
#include "kuiper/Verifier/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kuiper/Verifier/Passes.h.inc"

} // namespace kuiper

#endif
