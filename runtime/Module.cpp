//===- Module.cpp - The compiled module the runtime runs ------------------===//
//
// A kuiper::Module owns the verified kuiper IR (and its MLIRContext), the
// kernels' signatures, the PTX and the report. The compile driver fills it;
// the executor, the device and the input chooser read it.
//
//===----------------------------------------------------------------------===//
#include "runtime/ModuleImpl.h"

#include "llvm/Support/raw_ostream.h"

using namespace kuiper;

Module::Module(std::unique_ptr<ModuleImpl> impl) : p(std::move(impl)) {}
Module::Module(Module &&) noexcept = default;
Module &Module::operator=(Module &&) noexcept = default;
Module::~Module() {
  // The IR must die before the context that owns its types and attributes.
  if (p)
    p->module = nullptr;
}

const std::vector<KernelInfo> &Module::kernels() const { return p->kernels; }

const KernelInfo *Module::kernel(const std::string &name) const {
  for (const auto &k : p->kernels)
    if (k.name == name)
      return &k;
  return nullptr;
}

const std::string &Module::ptx() const { return p->ptx; }
const Report &Module::report() const { return p->report; }
Report &Module::report() { return p->report; }

std::string Module::mlir(bool debugInfo) const {
  std::string text;
  if (p->module) {
    llvm::raw_string_ostream os(text);
    mlir::OpPrintingFlags flags;
    if (debugInfo)
      flags.enableDebugInfo();
    p->module->print(os, flags);
  }
  return text;
}

