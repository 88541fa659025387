//===- ModuleStub.cpp - Stand-in for Compiler.cpp (temporary) -------------===//
//
// Built only while runtime/Compiler.cpp does not exist (see CMakeLists.txt):
// defines kuiper::Module so the executor, its tests and kuiper-run link, and
// makes kuiper::Compiler report that the front end is not built.
//
//===----------------------------------------------------------------------===//
#include "runtime/ModuleImpl.h"

namespace kuiper {

Module::Module(std::unique_ptr<ModuleImpl> impl) : p(std::move(impl)) {}
Module::Module(Module &&) noexcept = default;
Module &Module::operator=(Module &&) noexcept = default;
Module::~Module() = default;
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
std::string Module::mlir() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  p->module->print(os);
  return s;
}

Result<Module> Compiler::compileFile(const std::string &path) const {
  return Error{"kuiper: the compiler is not built into this library (" + path +
                   ")",
               3};
}
Result<Module> Compiler::compileString(const std::string &,
                                       const std::string &name) const {
  return Error{"kuiper: the compiler is not built into this library (" + name +
                   ")",
               3};
}

} // namespace kuiper
