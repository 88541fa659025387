//===- ModuleImpl.h - What a kuiper::Module holds (internal) ----*- C++ -*-===//
#ifndef KUIPER_RUNTIME_MODULEIMPL_H
#define KUIPER_RUNTIME_MODULEIMPL_H

#include "kuiper/Compiler.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

namespace kuiper {

struct ModuleImpl {
  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module; ///< the verified kuiper IR
  std::vector<KernelInfo> kernels;
  std::string ptx;
  Report report;
};

/// The signature of every `kuiper.kernel` op of `module`, in order.
std::vector<KernelInfo> collectKernels(mlir::ModuleOp module);

} // namespace kuiper

#endif
