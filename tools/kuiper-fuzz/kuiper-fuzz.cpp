//===- kuiper-fuzz.cpp - libFuzzer target for the .kp front end -----------===//
//
// Runs the front end on arbitrary bytes: lexing, parsing (imports resolve to
// the input itself under another name), semantic checks, the expansion
// limits, printing the diagnostics and dumping the AST. Built with
// KUIPER_FUZZ_CODEGEN, a module that checked is also turned into kuiper IR,
// which must then pass the MLIR verifier, before and after --kuiper-vectorize:
// a checked program whose IR does not verify is a bug, reported as a crash.
// The Z3 verifier is not run.
//
// Usage: see `make fuzz`, or run the binary with libFuzzer's flags:
//   build-fuzz/bin/kuiper-fuzz CORPUS_DIR -max_total_time=60
//
//===----------------------------------------------------------------------===//
#include "compiler/frontend/Frontend.h"
#include "compiler/frontend/Sema.h"

#ifdef KUIPER_FUZZ_CODEGEN
#include "compiler/codegen/MLIRGen.h"
#include "kuiper/Transforms/Passes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#endif

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

using namespace kuiper;

namespace {

/// Resolves every import to the fuzz input itself, filed under the module's
/// dotted name, so that inputs can exercise the import machinery.
ImportResolver selfResolver(const std::string &input) {
  return [&input](const std::string &dotted, std::string &path,
                  std::string &text) {
    path = dotted + ".kp";
    text = input;
    return true;
  };
}

#ifdef KUIPER_FUZZ_CODEGEN
/// Kernels bigger than this are not sent to code generation: building their
/// IR is correct but slow under the sanitizers, and would only make the
/// fuzzer report timeouts.
constexpr ExpansionLimits kCodegenLimits{/*maxOps=*/20000, /*maxDepth=*/1000};

/// Emits the IR of a checked module and requires it to verify.
void generateIR(const ast::Module &m) {
  SourceManager sm;
  DiagnosticEngine limitDiags(sm);
  if (!checkExpansion(m, limitDiags, kCodegenLimits))
    return;
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  std::string errors;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
    errors += d.str() + "\n";
    return mlir::success();
  });
  auto module = mlirGen(ctx, m);
  if (!module) {
    std::fprintf(stderr, "kuiper-fuzz: checked program gives invalid IR:\n%s",
                 errors.c_str());
    std::abort();
  }
  // The vectorizing rewrite must give valid IR for every program (whether it
  // applies or not); the pass manager verifies its result.
  mlir::PassManager pm(&ctx);
  pm.addPass(createKuiperVectorize());
  if (mlir::failed(pm.run(*module))) {
    std::fprintf(stderr, "kuiper-fuzz: --kuiper-vectorize gives invalid IR:\n%s",
                 errors.c_str());
    std::abort();
  }
}
#endif

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string input(reinterpret_cast<const char *>(data), size);
  SourceManager sm;
  DiagnosticEngine diags(sm);
  std::unique_ptr<ast::Module> m =
      parseAndCheck("fuzz.kp", input, selfResolver(input), sm, diags);
  std::ostringstream out;
  diags.print(out);
  if (!m)
    return 0;
  dumpAST(*m, out);
#ifdef KUIPER_FUZZ_CODEGEN
  generateIR(*m);
#endif
  return 0;
}
