//===- Compiler.cpp - .kp source to a verified Module ---------------------===//
//
// The one pipeline every tool and embedder goes through:
//   read -> parseAndCheck (imports: -I dirs, then the embedded stdlib)
//        -> mlirGen -> verifyModule -> lowerToPTX (only if verified or --no-verify)
// The PTX carries a header naming the hash of the kuiper IR that was verified.
//
//===----------------------------------------------------------------------===//
#include "kuiper/Compiler.h"

#include "compiler/codegen/MLIRGen.h"
#include "compiler/frontend/Frontend.h"
#include "compiler/lowering/Lowering.h"
#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"
#include "kuiper/Replay.h"
#include "runtime/CompilerInternal.h"
#include "runtime/ModuleImpl.h"
#include "stdlib/Stdlib.h"
#include "verifier/Verifier.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <sstream>

using namespace kuiper;

//===----------------------------------------------------------------------===//
// Files and imports
//===----------------------------------------------------------------------===//

bool kuiper::readSourceFile(const std::string &path, std::string &text,
                            std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    error = buffer.getError().message();
    return false;
  }
  text = (*buffer)->getBuffer().str();
  return true;
}

ImportResolver kuiper::makeImportResolver(std::vector<std::string> importPaths) {
  return [importPaths = std::move(importPaths)](const std::string &dotted,
                                                std::string &path, std::string &text) {
    std::string rel = dotted;
    for (char &c : rel)
      if (c == '.')
        c = '/';
    rel += ".kp";
    for (const auto &dir : importPaths) {
      std::string candidate = dir.empty() ? rel : dir + "/" + rel;
      std::string ignored;
      if (readSourceFile(candidate, text, ignored)) {
        path = candidate;
        return true;
      }
    }
    return lookupStdlib(dotted, path, text);
  };
}

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// The pipeline
//===----------------------------------------------------------------------===//

namespace {

/// `file:line:col: ` of the first file location inside `loc`, or "".
std::string locationPrefix(mlir::Location loc) {
  if (auto flc = loc->findInstanceOf<mlir::FileLineColLoc>())
    return (flc.getFilename().str() + ":" + std::to_string(flc.getLine()) + ":" +
            std::to_string(flc.getColumn()) + ": ");
  return "";
}

const char *severityName(mlir::DiagnosticSeverity s) {
  switch (s) {
  case mlir::DiagnosticSeverity::Error: return "error";
  case mlir::DiagnosticSeverity::Warning: return "warning";
  case mlir::DiagnosticSeverity::Note: return "note";
  case mlir::DiagnosticSeverity::Remark: return "remark";
  }
  return "error";
}

/// A clang-style line per diagnostic and per attached note.
std::string formatDiagnostic(mlir::Diagnostic &d) {
  std::string out = locationPrefix(d.getLocation()) + severityName(d.getSeverity()) +
                    ": " + d.str() + "\n";
  for (auto &note : d.getNotes())
    out += locationPrefix(note.getLocation()) + "note: " + note.str() + "\n";
  return out;
}

/// The spelling of a scalar type as in `.kp` source.
std::string typeName(mlir::Type t) {
  if (auto i = llvm::dyn_cast<mlir::IntegerType>(t)) {
    if (i.getWidth() == 1)
      return "bool";
    return (i.isUnsigned() ? "u" : "i") + std::to_string(i.getWidth());
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

/// KernelInfo of every `kuiper.kernel` op.
std::vector<KernelInfo> collectKernels(mlir::ModuleOp module) {
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
        param.type = typeName(buffer.getElementType());
        param.access = stringifyBufferAccess(buffer.getAccess()).str();
        param.rank = buffer.getRank();
      } else {
        param.kind = ParamInfo::Scalar;
        param.type = typeName(arg.getType());
      }
      info.params.push_back(std::move(param));
    }
    kernels.push_back(std::move(info));
  });
  return kernels;
}

/// SHA-256 of the printed IR, in hex.
std::string hashIR(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  auto digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef(text));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

/// The comment put at the top of the PTX: what was verified, and what was trusted.
std::string headerComment(const Report &report, const std::string &irHash,
                          const CompileOptions &opts) {
  std::ostringstream os;
  os << "Generated by Kuiper " << version() << "\n";
  os << "source: " << report.file << "\n";
  os << "kuiper IR sha256: " << irHash << "\n";
  std::string ptxVersion = ptxVersionFor(opts.arch);
  os << "arch: " << opts.arch;
  if (!ptxVersion.empty())
    os << " (PTX ISA " << ptxVersion << ")";
  os << "\n";
  if (!opts.verify) {
    os << "NOT VERIFIED (--no-verify): no check of this code was proven\n";
    return os.str();
  }
  for (const auto &k : report.kernels) {
    std::map<std::string, unsigned> discharged;
    for (const auto &c : k.checks)
      if (c.status == CheckStatus::Proved)
        ++discharged[checkName(c.id)];
    os << "kernel " << k.name << ": " << verdictName(k.verdict) << "; checks discharged:";
    if (discharged.empty())
      os << " none";
    for (const auto &[id, n] : discharged)
      os << " " << id << " x" << n;
    os << "\n";
    os << "  trusted:";
    if (k.trusted.empty())
      os << " nothing";
    for (size_t i = 0; i < k.trusted.size(); ++i)
      os << (i ? ", " : " ") << k.trusted[i];
    os << "\n";
    for (const auto &t : k.tolerances)
      os << "  tolerance at " << t.clause << ": " << t.bound << "\n";
  }
  return os.str();
}

Error makeError(std::string message, int code) {
  Error e;
  e.message = std::move(message);
  e.code = code;
  return e;
}

Result<Module> compile(const std::string &source, const std::string &path,
                       const CompileOptions &opts) {
  SourceManager sm;
  DiagnosticEngine diags(sm);
  std::unique_ptr<ast::Module> ast =
      parseAndCheck(path, source, makeImportResolver(opts.importPaths), sm, diags);
  if (!ast || diags.errorCount()) {
    std::ostringstream os;
    diags.print(os);
    std::string message = os.str();
    if (message.empty())
      message = path + ": error: the input could not be parsed\n";
    return makeError(message, 2);
  }

  auto impl = std::make_unique<ModuleImpl>();
  mlir::DialectRegistry registry;
  registerKuiperDialects(registry);
  registerLoweringDialects(registry);
  impl->context = std::make_unique<mlir::MLIRContext>(registry);
  impl->context->loadAllAvailableDialects();

  std::string captured;
  mlir::ScopedDiagnosticHandler handler(impl->context.get(), [&](mlir::Diagnostic &d) {
    captured += formatDiagnostic(d);
    return mlir::success();
  });

  impl->module = mlirGen(*impl->context, *ast);
  if (!impl->module) {
    if (captured.empty())
      return makeError(path + ": error: internal error: code generation failed\n", 3);
    return makeError(captured, 2);
  }
  impl->kernels = collectKernels(*impl->module);
  std::string irHash = hashIR(*impl->module);

  if (opts.verify) {
    VerifyOptions vopts;
    vopts.rlimit = uint64_t(opts.solverTimeoutMs) * kResourceUnitsPerSecond / 1000;
    vopts.budgetSeconds = opts.budgetSeconds;
    vopts.progress = opts.progress;
    vopts.jobs = opts.jobs;
    vopts.useCache = opts.useCache;
    vopts.keepSMT = opts.keepSMT;
    vopts.releaseMemory = opts.releaseSolverMemory;
    impl->report = verifyModule(*impl->module, vopts);
    impl->report.file = path;
  } else {
    impl->report.file = path;
    for (const auto &k : impl->kernels) {
      KernelReport kr;
      kr.name = k.name;
      kr.verdict = Verdict::NotVerified;
      impl->report.kernels.push_back(std::move(kr));
    }
  }

  if (opts.emitPTX && (!opts.verify || impl->report.verified())) {
    LoweringOptions lopts;
    lopts.arch = opts.arch;
    lopts.libdevice = opts.libdevice;
    lopts.headerComment = headerComment(impl->report, irHash, opts);
    auto ptx = lowerToPTX(*impl->module, lopts);
    if (!ptx) {
      std::string reason = llvm::toString(ptx.takeError());
      while (!reason.empty() && reason.back() == '\n')
        reason.pop_back();
      std::string message = path + ": error: lowering to PTX for " + opts.arch +
                            " failed: " + reason + "\n" + captured;
      return makeError(message, 3);
    }
    impl->ptx = std::move(*ptx);
  }
  Module result(std::move(impl));
  // A failed check is confirmed (or reported as possible) by running its
  // counterexample on the CPU executor.
  if (opts.verify && opts.replay && !result.report().verified())
    replayCounterexamples(result, result.report());
  return result;
}

} // namespace

Result<Module> Compiler::compileFile(const std::string &path) const {
  std::string text, reason;
  if (!readSourceFile(path, text, reason))
    return makeError(path + ": error: cannot read file: " + reason + "\n", 2);
  return compile(text, path, opts);
}

Result<Module> Compiler::compileString(const std::string &source,
                                       const std::string &name) const {
  return compile(source, name, opts);
}
