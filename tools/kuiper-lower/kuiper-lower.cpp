//===- kuiper-lower.cpp - kuiper IR to LLVM IR or PTX ---------------------===//
//
// A test driver for compiler/lowering: reads a kuiper `.mlir` file and prints
// the optimized LLVM IR or the PTX that `kuiperc` would produce from it.
//
//===----------------------------------------------------------------------===//
#include "compiler/lowering/Lowering.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

namespace cl = llvm::cl;

enum class Emit { LLVM, PTX };

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .mlir>"),
                                      cl::init("-"));
static cl::opt<std::string> outputFile("o", cl::desc("output file"),
                                       cl::value_desc("file"), cl::init("-"));
static cl::opt<std::string> arch("arch",
                                 cl::desc("GPU architecture (sm_75 ... sm_90)"),
                                 cl::init("sm_80"));
static cl::opt<std::string>
    libdevice("libdevice", cl::desc("path of libdevice.10.bc"), cl::init(""));
static cl::opt<std::string>
    header("header", cl::desc("comment put at the top of the PTX"),
           cl::init(""));
static cl::opt<Emit>
    emit("emit", cl::desc("what to print"), cl::init(Emit::PTX),
         cl::values(clEnumValN(Emit::LLVM, "llvm", "optimized LLVM IR"),
                    clEnumValN(Emit::PTX, "ptx", "PTX assembly")));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "kuiper IR to LLVM IR / PTX\n");

  mlir::DialectRegistry registry;
  kuiper::registerLoweringDialects(registry);
  mlir::MLIRContext context(registry);

  llvm::SourceMgr sourceMgr;
  std::string error;
  auto input = mlir::openInputFile(inputFile, &error);
  if (!input) {
    llvm::WithColor::error() << error << "\n";
    return 1;
  }
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  kuiper::LoweringOptions opts;
  opts.arch = arch;
  opts.libdevice = libdevice;
  opts.headerComment = header;
  llvm::Expected<std::string> text = emit == Emit::LLVM
                                         ? kuiper::lowerToLLVMIR(*module, opts)
                                         : kuiper::lowerToPTX(*module, opts);
  if (!text) {
    llvm::WithColor::error() << llvm::toString(text.takeError()) << "\n";
    return 1;
  }

  auto output = mlir::openOutputFile(outputFile, &error);
  if (!output) {
    llvm::WithColor::error() << error << "\n";
    return 1;
  }
  output->os() << *text;
  output->keep();
  return 0;
}
