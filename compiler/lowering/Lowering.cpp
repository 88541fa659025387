//===- Lowering.cpp - kuiper IR to LLVM IR and PTX ------------------------===//
//
// The lowering pipeline, built here and nowhere else:
//   clone -> kuiper-math-to-libcall -> kuiper-erase-specs -> canonicalize, cse
//   -> convert-kuiper-to-llvm (compiler/conversion/KuiperToLLVM)
//   -> scf to cf, math/arith/cf/memref/ub to LLVM, reconcile casts
//   -> LLVM IR -> libdevice, internalize, O3 -> PTX (compiler/target/NVPTX)
//
//===----------------------------------------------------------------------===//
#include "compiler/lowering/Lowering.h"

#include "kuiper/Conversion/Passes.h"
#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"
#include "kuiper/Target/NVPTX/NVPTXBackend.h"
#include "kuiper/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#ifndef KUIPER_DEFAULT_LIBDEVICE
#define KUIPER_DEFAULT_LIBDEVICE                                               \
  "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"
#endif

using namespace mlir;

namespace kuiper {
namespace {

/// Collects the diagnostics emitted while it lives, to return them as an error.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &diag) {
          llvm::raw_string_ostream os(messages);
          os << where(diag.getLocation()) << diag << "\n";
          for (Diagnostic &note : diag.getNotes())
            if (!StringRef(note.str()).starts_with("see current operation"))
              os << where(note.getLocation()) << "note: " << note << "\n";
          return success();
        }) {}

  llvm::Error error(StringRef what) const {
    return llvm::createStringError("lowering failed (" + what.str() + ")" +
                                   (messages.empty() ? "" : ":\n" + messages));
  }

private:
  /// `file:line:col: ` for a source location, nothing for an unknown one.
  static std::string where(Location loc) {
    if (auto file = dyn_cast<FileLineColLoc>(loc))
      return (file.getFilename().str() + ":" + std::to_string(file.getLine()) +
              ":" + std::to_string(file.getColumn()) + ": ");
    if (auto fused = dyn_cast<FusedLoc>(loc);
        fused && !fused.getLocations().empty())
      return where(fused.getLocations().front());
    if (auto named = dyn_cast<NameLoc>(loc))
      return where(named.getChildLoc());
    if (auto callSite = dyn_cast<CallSiteLoc>(loc))
      return where(callSite.getCaller());
    return "";
  }

  std::string messages;
  ScopedDiagnosticHandler handler;
};

void prepareContext(MLIRContext *ctx) {
  DialectRegistry registry;
  registerLoweringDialects(registry);
  ctx->appendDialectRegistry(registry);
  ctx->loadDialect<KuiperDialect, arith::ArithDialect, scf::SCFDialect,
                   memref::MemRefDialect, math::MathDialect,
                   cf::ControlFlowDialect, ub::UBDialect, LLVM::LLVMDialect,
                   NVVM::NVVMDialect>();
}

/// Remembers the argument of the pass that failed, to name it in the error.
class FailedPassRecorder : public PassInstrumentation {
public:
  explicit FailedPassRecorder(std::string &failedPass)
      : failedPass(failedPass) {}
  void runAfterPassFailed(Pass *pass, Operation *) override {
    failedPass = pass->getArgument().str();
  }

private:
  std::string &failedPass;
};

/// kuiper IR -> LLVM dialect, in a clone of `module`.
llvm::Expected<OwningOpRef<ModuleOp>> lowerToLLVMDialect(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  prepareContext(ctx);
  OwningOpRef<ModuleOp> clone(module.clone());
  DiagnosticCollector diagnostics(ctx);
  if (clone->getOps<KernelOp>().empty()) {
    clone->emitError("no kuiper.kernel to lower");
    return diagnostics.error("kuiper to LLVM dialect");
  }

  std::string failedPass = "pass pipeline";
  PassManager pm(ctx);
  pm.addInstrumentation(std::make_unique<FailedPassRecorder>(failedPass));
  buildKuiperToLLVMPipeline(pm);
  if (failed(pm.run(*clone)))
    return diagnostics.error(failedPass);
  return std::move(clone);
}

/// kuiper IR -> optimized LLVM IR for the NVPTX target `tm`.
llvm::Expected<std::unique_ptr<llvm::Module>>
lowerToLLVMModule(ModuleOp module, const LoweringOptions &opts,
                  llvm::LLVMContext &llvmContext, llvm::TargetMachine &tm) {
  auto llvmDialect = lowerToLLVMDialect(module);
  if (!llvmDialect)
    return llvmDialect.takeError();
  DiagnosticCollector diagnostics(module.getContext());
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(**llvmDialect, llvmContext, "kuiper");
  if (!llvmModule)
    return diagnostics.error("translation to LLVM IR");
  std::string libdevice = opts.libdevice.empty()
                              ? std::string(KUIPER_DEFAULT_LIBDEVICE)
                              : opts.libdevice;
  if (llvm::Error err = optimizeForNVPTX(*llvmModule, tm, libdevice))
    return std::move(err);
  return std::move(llvmModule);
}

std::string commentLines(const std::string &text) {
  std::string out;
  StringRef rest(text);
  while (!rest.empty()) {
    auto [line, tail] = rest.split('\n');
    out += ("// " + line + "\n").str();
    rest = tail;
  }
  return out;
}

} // namespace

void buildKuiperToLLVMPipeline(OpPassManager &pm) {
  // (Before the canonicalizer, whose folders would evaluate `erf(0.3)` with
  // the host's libm.)
  pm.addPass(createConvertMathToLibCall());
  pm.addPass(createKuiperEraseSpecs());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createConvertKuiperToLLVM());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void registerKuiperToLLVMPipeline() {
  PassPipelineRegistration<>(
      "kuiper-to-llvm",
      "Lower kuiper IR to the LLVM dialect, as kuiperc does before LLVM IR",
      buildKuiperToLLVMPipeline);
}

void registerLoweringDialects(DialectRegistry &registry) {
  registry
      .insert<KuiperDialect, arith::ArithDialect, scf::SCFDialect,
              memref::MemRefDialect, math::MathDialect, cf::ControlFlowDialect,
              ub::UBDialect, LLVM::LLVMDialect, NVVM::NVVMDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

std::string ptxVersionFor(const std::string &arch) {
  return getPTXVersion(arch);
}

/// Lowers `module` to an optimised LLVM module for `opts.arch` and hands it,
/// with its target machine, to `use`.
static llvm::Expected<std::string> withLLVMModule(
    ModuleOp module, const LoweringOptions &opts,
    llvm::function_ref<llvm::Expected<std::string>(llvm::Module &,
                                                   llvm::TargetMachine &)>
        use) {
  auto tm = createNVPTXTargetMachine(opts.arch);
  if (!tm)
    return tm.takeError();
  llvm::LLVMContext llvmContext;
  auto llvmModule = lowerToLLVMModule(module, opts, llvmContext, **tm);
  if (!llvmModule)
    return llvmModule.takeError();
  return use(**llvmModule, **tm);
}

llvm::Expected<std::string> lowerToLLVMIR(ModuleOp module,
                                          const LoweringOptions &opts) {
  return withLLVMModule(module, opts,
                        [](llvm::Module &m, llvm::TargetMachine &)
                            -> llvm::Expected<std::string> {
                          std::string text;
                          llvm::raw_string_ostream os(text);
                          m.print(os, nullptr);
                          return text;
                        });
}

llvm::Expected<std::string> lowerToPTX(ModuleOp module,
                                       const LoweringOptions &opts) {
  return withLLVMModule(module, opts,
                        [&](llvm::Module &m, llvm::TargetMachine &tm)
                            -> llvm::Expected<std::string> {
                          auto ptx = emitPTX(m, tm);
                          if (!ptx)
                            return ptx.takeError();
                          return commentLines(opts.headerComment) + *ptx;
                        });
}

} // namespace kuiper
