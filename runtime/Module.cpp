//===- Module.cpp - The compiled module the runtime runs ------------------===//
//
// A kuiper::Module owns the verified kuiper IR (and its MLIRContext), the
// kernels' signatures, the PTX and the report. The compile driver fills it;
// the executor, the device and the input chooser read it.
//
//===----------------------------------------------------------------------===//
#include "runtime/ModuleImpl.h"
#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"

#include "llvm/Support/raw_ostream.h"

using namespace kuiper;

/// The spelling of a scalar type as in `.kp` source (integers are
/// signless in the IR: `isUnsigned` from the kernel's `arg_unsigned`).
static std::string typeName(mlir::Type t, bool isUnsigned) {
  if (auto i = llvm::dyn_cast<mlir::IntegerType>(t)) {
    if (i.getWidth() == 1)
      return "bool";
    return (isUnsigned || i.isUnsigned() ? "u" : "i") + std::to_string(i.getWidth());
  }
  if (t.isBF16())
    return "bf16";
  if (auto f = llvm::dyn_cast<mlir::FloatType>(t))
    return "f" + std::to_string(f.getWidth());
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

std::vector<KernelInfo> kuiper::collectKernels(mlir::ModuleOp module) {
  std::vector<KernelInfo> kernels;
  module.walk([&](KernelOp op) {
    KernelInfo info;
    info.name = op.getSymName().str();
    auto block = op.getBlock();
    for (size_t d = 0; d < 3 && d < block.size(); ++d)
      info.block[d] = block[d];
    auto names = op.getArgNames();
    auto args = op.getBody().front().getArguments();
    for (auto [i, arg] : llvm::enumerate(args)) {
      ParamInfo param;
      if (i < names.size())
        if (auto s = llvm::dyn_cast<mlir::StringAttr>(names[i]))
          param.name = s.str();
      if (auto buffer = llvm::dyn_cast<BufferType>(arg.getType())) {
        param.kind = ParamInfo::Buffer;
        param.type = typeName(buffer.getElementType(), op.isUnsignedArg(i));
        param.access = stringifyBufferAccess(buffer.getAccess()).str();
        param.rank = buffer.getRank();
      } else {
        param.kind = ParamInfo::Scalar;
        param.type = typeName(arg.getType(), op.isUnsignedArg(i));
      }
      info.params.push_back(std::move(param));
    }
    info.approx = op.hasApproxClauses();
    kernels.push_back(std::move(info));
  });
  return kernels;
}

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

