//===- Interpreter.h - The kuiper IR interpreter (internal) ------*- C++ -*-===//
//
// Entry points of the interpreter behind kuiper::Executor. The interpreter
// lives in this folder: Values, Memory, ArithOps, KuiperOps, SpecClauses,
// Scheduler, Semantics (the op table) and Interpreter.cpp (setup, checks
// after the run, these entry points).
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_RUNTIME_INTERPRETER_INTERPRETER_H
#define KUIPER_RUNTIME_INTERPRETER_INTERPRETER_H

#include "kuiper/Executor.h"

namespace kuiper {
namespace detail {

/// Runs a kernel (Executor::run).
Result<ExecResult> interpretKernel(const Module &module,
                                   const std::string &kernel, Args &args,
                                   const ExecOptions &opts);

/// Evaluates the header: shapes, grid, requires (Executor::describe).
Result<LaunchInfo> describeKernel(const Module &module,
                                  const std::string &kernel, const Args &args);

/// Parses kuiper IR text into a Module (parseModuleIR).
Result<Module> parseIR(const std::string &text, const std::string &name);

} // namespace detail
} // namespace kuiper

#endif
