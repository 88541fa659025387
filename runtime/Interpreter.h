//===- Interpreter.h - The kuiper IR interpreter (internal) ------*- C++ -*-===//
//
// Entry points of the interpreter behind kuiper::Executor and kuiper::Device.
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_RUNTIME_INTERPRETER_H
#define KUIPER_RUNTIME_INTERPRETER_H

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
