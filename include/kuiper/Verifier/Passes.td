//===- Passes.td - The verifier's passes --------------------*- tablegen -*-===//
#ifndef KUIPER_VERIFIER_PASSES_TD
#define KUIPER_VERIFIER_PASSES_TD

include "mlir/Pass/PassBase.td"

def KuiperVerify : Pass<"kuiper-verify", "::mlir::ModuleOp"> {
  let summary = "Prove every kernel's safety checks and contracts with Z3";
  let description = [{
    Runs the verifier on every `kuiper.kernel` of the module: symbolic
    execution into proof obligations (bounds, overflow, races, barrier
    divergence, warp convergence, memory contracts, coverage, launch limits,
    asserts, invariants, barrier contracts, postconditions, determinism),
    decided by Z3. Prints the report as `kuiperc` does (text on stderr; JSON or
    SARIF on stdout) and fails unless every kernel is verified.

    ```
    kuiper-opt --kuiper-verify kernel.mlir -o /dev/null
    kuiper-opt --kuiper-verify="report=json timeout=60" kernel.mlir -o /dev/null
    ```
  }];
  let options = [
    Option<"reportFormat", "report", "std::string", /*default=*/"\"text\"",
           "report format: text, json, sarif or obligations (one line each)">,
    Option<"timeoutSeconds", "timeout", "unsigned", /*default=*/"10",
           "solver effort per obligation, in seconds of the reference machine "
           "(a Z3 resource limit, never wall-clock time)">,
    Option<"budgetSeconds", "budget", "unsigned", /*default=*/"60",
           "wall-clock budget per kernel (0: none); past it, unknown">,
    Option<"jobs", "jobs", "unsigned", /*default=*/"0",
           "solver threads (0: one per core)">,
    Option<"useCache", "cache", "bool", /*default=*/"true",
           "remember proved obligations on disk">,
  ];
}

#endif
