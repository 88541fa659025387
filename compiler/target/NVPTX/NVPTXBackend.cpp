//===- NVPTXBackend.cpp - LLVM IR to PTX in-process -----------------------===//
//
// libdevice linking, internalization, the O3 pipeline and PTX emission with the
// NVPTX TargetMachine. Only the NVPTX target is initialized.
//
//===----------------------------------------------------------------------===//
#include "kuiper/Target/NVPTX/NVPTXBackend.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/Vectorize/LoadStoreVectorizer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <mutex>

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace kuiper {
namespace {

constexpr const char *kTriple = "nvptx64-nvidia-cuda";

void initializeNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

bool isKernel(const llvm::Function &fn) {
  return fn.getCallingConv() == llvm::CallingConv::PTX_Kernel;
}

bool callsLibdevice(const llvm::Module &module) {
  for (const llvm::Function &fn : module)
    if (fn.isDeclaration() && fn.getName().starts_with("__nv_"))
      return true;
  return false;
}

/// Links the libdevice functions `module` needs. The bitcode is read lazily:
/// only the functions the linker asks for are materialized (reading all of
/// libdevice took 30 ms, more than the rest of code generation).
llvm::Error linkLibdevice(llvm::Module &module, const std::string &path) {
  llvm::SMDiagnostic diag;
  std::unique_ptr<llvm::Module> libdevice =
      llvm::getLazyIRFileModule(path, diag, module.getContext());
  if (!libdevice)
    return llvm::createStringError(
        "cannot read libdevice '" + path + "': " + diag.getMessage().str() +
        " (set the libdevice path, or install the CUDA toolkit)");
  libdevice->setTargetTriple(module.getTargetTriple());
  libdevice->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(module, std::move(libdevice),
                                llvm::Linker::Flags::LinkOnlyNeeded))
    return llvm::createStringError("linking libdevice '" + path + "' failed");
  return llvm::Error::success();
}

} // namespace

std::string getPTXVersion(const std::string &arch) {
  return llvm::StringSwitch<std::string>(arch)
      .Cases({"sm_75", "sm_80", "sm_86", "sm_87", "sm_89"}, "7.8")
      .Cases({"sm_90", "sm_90a"}, "8.0")
      .Case("sm_100", "8.6")
      .Case("sm_120", "8.7")
      .Default("");
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createNVPTXTargetMachine(const std::string &arch) {
  std::string ptx = getPTXVersion(arch);
  if (ptx.empty())
    return llvm::createStringError(
        "unsupported GPU architecture '" + arch +
        "' (supported: sm_75, sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, "
        "sm_100, sm_120)");
  initializeNVPTX();
  llvm::Triple triple(kTriple);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError("NVPTX target unavailable: " + error);
  std::string features = "+ptx";
  for (char c : ptx)
    if (c != '.')
      features.push_back(c);
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, arch, features, options, std::nullopt, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!tm)
    return llvm::createStringError(
        "cannot create the NVPTX target machine for " + arch);
  return tm;
}

llvm::Error optimizeForNVPTX(llvm::Module &module, llvm::TargetMachine &tm,
                             const std::string &libdevicePath) {
  module.setTargetTriple(tm.getTargetTriple());
  module.setDataLayout(tm.createDataLayout());

  if (callsLibdevice(module))
    if (llvm::Error err = linkLibdevice(module, libdevicePath))
      return err;

  llvm::internalizeModule(module, [](const llvm::GlobalValue &value) {
    auto *fn = llvm::dyn_cast<llvm::Function>(&value);
    return fn && isKernel(*fn);
  });
  module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t(0));

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  // Accesses marked aligned by --kuiper-vectorize are merged into vector
  // accesses first, while each run is still in one basic block: O3 may
  // duplicate the block of the stores into its predecessors (jump threading).
  llvm::FunctionPassManager early;
  early.addPass(llvm::LoadStoreVectorizerPass());
  llvm::ModulePassManager mpm;
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(early)));
  mpm.addPass(pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3));
  mpm.run(module, mam);
  return llvm::Error::success();
}

llvm::Expected<std::string> emitPTX(llvm::Module &module,
                                    llvm::TargetMachine &tm) {
  std::string ptx;
  {
    llvm::raw_string_ostream os(ptx);
    llvm::buffer_ostream bos(os);
    llvm::legacy::PassManager pm;
    if (tm.addPassesToEmitFile(pm, bos, nullptr,
                               llvm::CodeGenFileType::AssemblyFile))
      return llvm::createStringError("the NVPTX target cannot emit assembly");
    pm.run(module);
  }
  return ptx;
}

} // namespace kuiper
