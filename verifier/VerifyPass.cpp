//===- VerifyPass.cpp - The --kuiper-verify pass --------------------------===//
#include "kuiper/Verifier/Passes.h"
#include "verifier/Verifier.h"

#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace kuiper {
#define GEN_PASS_DEF_KUIPERVERIFY
#include "kuiper/Verifier/Passes.h.inc"
} // namespace kuiper

using namespace mlir;

namespace {

/// The file the module came from, for the report.
std::string fileOf(ModuleOp module) {
  if (auto loc = dyn_cast<FileLineColLoc>(module.getLoc()))
    return loc.getFilename().str();
  std::string file;
  module.walk([&](kuiper::KernelOp kernel) {
    if (auto loc = dyn_cast<FileLineColLoc>(kernel.getLoc()); loc && file.empty())
      file = loc.getFilename().str();
  });
  return file;
}

struct KuiperVerifyPass : kuiper::impl::KuiperVerifyBase<KuiperVerifyPass> {
  using KuiperVerifyBase::KuiperVerifyBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (reportFormat != "text" && reportFormat != "json" && reportFormat != "sarif" &&
        reportFormat != "obligations") {
      module.emitError(
          "--kuiper-verify: report must be text, json, sarif or obligations, not '")
          << reportFormat << "'";
      return signalPassFailure();
    }
    kuiper::VerifyOptions opts;
    opts.rlimit = uint64_t(timeoutSeconds) * kuiper::kResourceUnitsPerSecond;
    opts.budgetSeconds = budgetSeconds;
    opts.jobs = jobs;
    opts.useCache = useCache;
    kuiper::Report report = kuiper::verifyModule(module, opts);
    report.file = fileOf(module);
    if (reportFormat == "json")
      llvm::outs() << report.toJSON() << "\n";
    else if (reportFormat == "sarif")
      llvm::outs() << report.toSARIF() << "\n";
    else if (reportFormat == "obligations")
      llvm::outs() << report.toObligationList();
    else
      llvm::errs() << report.toText();
    if (!report.verified())
      signalPassFailure();
  }
};

} // namespace
