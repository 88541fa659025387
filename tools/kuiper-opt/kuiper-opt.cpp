//===- kuiper-opt.cpp - mlir-opt with the kuiper dialect and passes -------===//
#include "compiler/lowering/Lowering.h"
#include "kuiper/Conversion/Passes.h"
#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"
#include "kuiper/Transforms/Passes.h"
#include "kuiper/Verifier/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  kuiper::registerLoweringDialects(registry);
  registry.insert<mlir::func::FuncDialect>();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  kuiper::registerVerifierPasses();
  kuiper::registerKuiperTransformsPasses();
  kuiper::registerKuiperConversionPasses();
  kuiper::registerKuiperToLLVMPipeline();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Kuiper optimizer driver\n", registry));
}
