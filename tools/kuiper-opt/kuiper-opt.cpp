//===- kuiper-opt.cpp - mlir-opt with the kuiper dialect and passes -------===//
#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"
#include "kuiper/Verifier/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<kuiper::KuiperDialect, mlir::arith::ArithDialect,
                  mlir::scf::SCFDialect, mlir::memref::MemRefDialect,
                  mlir::math::MathDialect, mlir::func::FuncDialect>();
  kuiper::registerVerifierPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Kuiper optimizer driver\n", registry));
}
