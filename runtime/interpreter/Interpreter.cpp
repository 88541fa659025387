//===- Interpreter.cpp - Launch setup, checks after the run, entry points -===//
//
// Interprets one `kuiper.kernel` op in its launch geometry: binds the
// arguments, evaluates the header (shapes, launch grid, reads/writes boxes,
// requires), rejects kernels holding ops without executor semantics, runs
// every block (Scheduler.cpp), then checks coverage and the ensures.
//
//===----------------------------------------------------------------------===//
#include "runtime/interpreter/Interpreter.h"
#include "runtime/ModuleImpl.h"
#include "runtime/interpreter/KernelInterpreter.h"
#include "runtime/interpreter/Semantics.h"

#include "mlir/IR/Location.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

#define DEBUG_TYPE "kuiper-interp"

using namespace mlir;

namespace kuiper {
namespace interp {

//===----------------------------------------------------------------------===//
// Services for op handlers
//===----------------------------------------------------------------------===//

bool KernelInterpreter::fail(const std::string &message, int code) {
  if (!failed) {
    failed = true;
    error = Error{message, code};
    LLVM_DEBUG(llvm::dbgs() << "kuiper-interp: error: " << message << "\n");
  }
  return false;
}

void KernelInterpreter::violate(CheckId check, Operation *op,
                                const std::string &message,
                                ViolationDetails details) {
  auto key = std::make_pair(check, op);
  auto it = violationIndex.find(key);
  if (it != violationIndex.end()) {
    ++result.violations[it->second].count;
    return;
  }
  if (result.violations.size() >= options.maxViolations) {
    ++droppedViolations;
    return;
  }
  LLVM_DEBUG(llvm::dbgs() << "kuiper-interp: [" << checkName(check) << "] "
                          << message << "\n");
  violationIndex[key] = result.violations.size();
  Violation violation;
  violation.kind = check;
  violation.message = message;
  violation.location = locationOf(op);
  violation.details = std::move(details);
  result.violations.push_back(std::move(violation));
}

std::string KernelInterpreter::who(const EvalContext &context) const {
  if (!context.isThread)
    return "host";
  return threadName(linearBlockId, static_cast<const Thread &>(context).linearId);
}

std::string KernelInterpreter::threadName(int64_t block, int64_t thread) const {
  auto coordinates = [](int64_t linear, const int64_t dims[3]) {
    int64_t x = dims[0] > 0 ? linear % dims[0] : linear;
    int64_t rest = dims[0] > 0 ? linear / dims[0] : 0;
    int64_t y = dims[1] > 0 ? rest % dims[1] : rest, z = dims[1] > 0 ? rest / dims[1] : 0;
    if (dims[1] <= 1 && dims[2] <= 1)
      return std::to_string(x);
    std::string text = "(" + std::to_string(x) + "," + std::to_string(y);
    if (dims[2] > 1)
      text += "," + std::to_string(z);
    return text + ")";
  };
  return "thread " + coordinates(thread, launch.block) + " of block " +
         coordinates(block, launch.grid);
}

std::string KernelInterpreter::inThread(const EvalContext &context) const {
  return context.isThread ? " in " + who(context) : "";
}

ViolationDetails KernelInterpreter::whoDetails(const EvalContext &context) const {
  if (!context.isThread)
    return {};
  auto &thread = static_cast<const Thread &>(context);
  return {{"block", std::to_string(linearBlockId)},
          {"thread", std::to_string(thread.linearId)}};
}

std::optional<RuntimeValue> KernelInterpreter::lookup(EvalContext &context,
                                                      Value value) {
  auto it = context.values.find(value);
  if (it != context.values.end())
    return it->second;
  if (context.isThread) {
    auto fromHost = host.values.find(value);
    if (fromHost != host.values.end())
      return fromHost->second;
  }
  return std::nullopt;
}

bool KernelInterpreter::operand(EvalContext &context, Value value,
                                RuntimeValue &out, Operation *user) {
  if (std::optional<RuntimeValue> found = lookup(context, value)) {
    out = *found;
    return true;
  }
  return fail("internal: value used by '" +
              user->getName().getStringRef().str() + "' at " +
              locationOf(user) + " was not computed");
}

bool KernelInterpreter::evaluate(Operation *op, EvalContext &context) {
  const OpSemantics *semantics = semanticsTable().lookup(op);
  if (!semantics || !semantics->evaluate)
    return fail("unsupported op '" + op->getName().getStringRef().str() +
                "' at " + locationOf(op));
  return semantics->evaluate(*this, op, context);
}

//===----------------------------------------------------------------------===//
// Setup
//===----------------------------------------------------------------------===//

static double scalarAsDouble(const ScalarValue &scalar) {
  if (auto *d = std::get_if<double>(&scalar))
    return *d;
  if (auto *i = std::get_if<int64_t>(&scalar))
    return (double)*i;
  return (double)std::get<bool>(scalar);
}

bool KernelInterpreter::bindParameters(const Args &args) {
  Block &entry = kernel.getBody().front();
  auto names = kernel.getArgNames();
  for (BlockArgument argument : entry.getArguments()) {
    std::string name = cast<StringAttr>(names[argument.getArgNumber()]).str();
    Type type = argument.getType();
    if (auto bufferType = dyn_cast<BufferType>(type)) {
      std::optional<ElementType> elementType =
          elementTypeOf(bufferType.getElementType());
      if (!elementType)
        return fail("buffer '" + name + "' has an unsupported element type");
      GlobalBuffer buffer;
      buffer.name = name;
      buffer.access = bufferType.getAccess();
      buffer.elementType = *elementType;
      buffer.isUnsigned = kernel.isUnsignedArg(argument.getArgNumber());
      bind(host, argument,
           makeMemoryRef(RuntimeValue::Buffer, buffers.size()));
      // (u32/u64: the IR's integers are signless; the kernel says which are
      // unsigned, so that host buffers show them so.)
      std::string typeName = elementType->name;
      if (buffer.isUnsigned && typeName[0] == 'i')
        typeName[0] = 'u';
      launch.bufferTypes[name] = {typeName,
                                  stringifyBufferAccess(buffer.access).str()};
      buffers.push_back(std::move(buffer));
      continue;
    }
    const ScalarValue *scalar = args.scalar(name);
    if (!scalar)
      return fail("missing scalar argument '" + name + "'", 2);
    if (std::optional<FloatFormat> format = floatFormatOf(type)) {
      double value = scalarAsDouble(*scalar);
      bind(host, argument, makeFloat(*format, value, std::fabs(value)));
      continue;
    }
    auto intType = dyn_cast<IntegerType>(type);
    if (!intType)
      return fail("parameter '" + name + "' has an unsupported type");
    if (std::holds_alternative<double>(*scalar))
      return fail("scalar argument '" + name + "' is an integer", 2);
    int64_t value = std::holds_alternative<int64_t>(*scalar)
                        ? std::get<int64_t>(*scalar)
                        : (int64_t)std::get<bool>(*scalar);
    unsigned width = intType.getWidth();
    // A u32 takes 0 .. 2^32 - 1, an i32 -2^31 .. 2^31 - 1 (a u64 is given by
    // its bit pattern: any int64_t).
    bool isUnsigned = width == 1 || kernel.isUnsignedArg(argument.getArgNumber());
    if (width < 64 &&
        (isUnsigned ? value < 0 || value > (int64_t)lowBitsMask(width)
                    : value > (int64_t)lowBitsMask(width - 1) ||
                          value < -(int64_t)(1ull << (width - 1))))
      return fail("scalar argument '" + name + "' = " + std::to_string(value) +
                      " does not fit in " +
                      (width == 1 ? "bool" : (isUnsigned ? "u" : "i") + std::to_string(width)),
                  2);
    bind(host, argument, makeInteger(width, (uint64_t)value));
  }
  return true;
}

/// Whether the header can evaluate `op` in place: arith, math, a local, or
/// an scf.if of arith and math only.
static bool isHeaderArithmetic(Operation *op) {
  auto isArithmetic = [](Operation *inner) {
    StringRef dialect = inner->getName().getDialectNamespace();
    return dialect == "arith" || dialect == "math";
  };
  if (isArithmetic(op) || isa<memref::AllocaOp>(op))
    return true;
  if (!isa<scf::IfOp>(op))
    return false;
  bool pure = true;
  op->walk([&](Operation *inner) {
    if (inner != op && !isArithmetic(inner) && !isa<scf::YieldOp>(inner))
      pure = false;
  });
  return pure;
}

bool KernelInterpreter::evaluateHeaderArithmetic(Operation *op) {
  if (!isHeaderArithmetic(op))
    return true;
  bool ready = true;
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands()) {
      Operation *def = v.getDefiningOp();
      bool local = def && op->isAncestor(def);
      if (!local && !lookup(host, v))
        ready = false;
    }
  });
  return !ready || evaluate(op, host);
}

bool KernelInterpreter::evaluateHeader(std::vector<Operation *> &requiresClauses,
                                       std::string &headerError) {
  auto valueOf = [&](Value v, Operation *op, int64_t &out) {
    RuntimeValue value;
    if (!operand(host, v, value, op))
      return false;
    out = value.asSigned();
    return true;
  };
  bool haveGrid = false;
  for (Operation &headerOp : kernel.getBody().front()) {
    Operation *op = &headerOp;
    if (auto shape = dyn_cast<ShapeOp>(op)) {
      RuntimeValue ref;
      if (!operand(host, shape.getBuffer(), ref, op))
        return false;
      GlobalBuffer &buffer = buffers[ref.bits];
      buffer.dims.clear();
      for (Value d : shape.getDims()) {
        int64_t dim;
        if (!valueOf(d, op, dim))
          return false;
        if (dim < 0 && headerError.empty())
          headerError = "buffer '" + buffer.name +
                        "' gets a negative dimension " + std::to_string(dim);
        buffer.dims.push_back(dim);
      }
      launch.bufferDims[buffer.name] = buffer.dims;
    } else if (auto launchOp = dyn_cast<LaunchOp>(op)) {
      for (unsigned d = 0; d < 3 && d < launchOp.getGrid().size(); ++d) {
        if (!valueOf(launchOp.getGrid()[d], op, launch.grid[d]))
          return false;
        if (launch.grid[d] < 0 && headerError.empty())
          headerError = "the launch grid gets a negative dimension " +
                        std::to_string(launch.grid[d]);
      }
      haveGrid = true;
    } else if (isa<RequiresOp>(op)) {
      requiresClauses.push_back(op);
    } else if (isa<EnsuresOp>(op)) {
      ensuresClauses.push_back(op);
    } else if (auto access = dyn_cast<AccessOp>(op)) {
      RuntimeValue ref;
      if (!operand(host, access.getBuffer(), ref, op))
        return false;
      IndexBox box;
      auto bounds = access.getBounds();
      for (unsigned k = 0; k + 1 < bounds.size(); k += 2) {
        int64_t lo, hi;
        if (!valueOf(bounds[k], op, lo) || !valueOf(bounds[k + 1], op, hi))
          return false;
        box.push_back({lo, hi});
      }
      GlobalBuffer &buffer = buffers[ref.bits];
      (access.getKind() == AccessKind::Reads ? buffer.readsClauses
                                             : buffer.writesClauses)
          .push_back(std::move(box));
    } else if (!evaluateHeaderArithmetic(op)) {
      return false;
    }
  }
  if (!haveGrid)
    return fail("kernel has no kuiper.launch");
  for (GlobalBuffer &buffer : buffers)
    if (buffer.dims.empty() && launch.bufferDims.count(buffer.name) == 0)
      return fail("buffer '" + buffer.name + "' has no kuiper.shape");
  return true;
}

bool KernelInterpreter::bindBuffers(const Args &args, bool forRun) {
  for (GlobalBuffer &buffer : buffers) {
    const ElementType &type = buffer.elementType;
    buffer.numElements = 1;
    for (int64_t d : buffer.dims) {
      if (d != 0 && buffer.numElements > (int64_t(1) << 40) / d)
        return fail("buffer '" + buffer.name + "' is too large", 2);
      buffer.numElements *= d;
    }
    const HostBuffer *host = args.buffer(buffer.name);
    if (!host) {
      if (forRun)
        return fail("missing buffer argument '" + buffer.name + "'", 2);
      continue;
    }
    if (!host->elemType.empty()) {
      const std::string &hostType = host->elemType;
      bool hostIsFloat = (hostType[0] == 'f' || hostType[0] == 'b') &&
                         hostType != "bool";
      if (elementSize(hostType) != type.byteSize ||
          hostIsFloat != type.isFloat || (type.isFloat && hostType != type.name))
        return fail("buffer '" + buffer.name + "' holds " + hostType +
                        ", the kernel expects " + type.name,
                    2);
    }
    if ((int64_t)host->bytes.size() != buffer.numElements * type.byteSize)
      return fail("buffer '" + buffer.name + "' holds " +
                      std::to_string(host->bytes.size() / type.byteSize) +
                      " elements, its shape [" + formatIndices(buffer.dims) +
                      "] needs " + std::to_string(buffer.numElements),
                  2);
    buffer.data = const_cast<uint8_t *>(host->bytes.data());
  }
  return true;
}

bool KernelInterpreter::checkRequires(ArrayRef<Operation *> requiresClauses) {
  for (Operation *op : requiresClauses) {
    bool holds = true;
    host.readUnboundBuffer = false;
    if (!evaluateClause(op->getRegion(0), host, /*approx=*/false, holds))
      return false;
    if (host.readUnboundBuffer) {
      launch.requiresNeedBuffers = true;
      continue;
    }
    if (!holds && launch.requiresHold) {
      launch.requiresHold = false;
      launch.failedRequires = "requires at " + locationOf(op);
      if (!host.clauseFailure.empty())
        launch.failedRequires += ": " + host.clauseFailure;
    }
  }
  return true;
}

bool KernelInterpreter::setup(const Args &args, bool forRun) {
  auto blockDims = kernel.getBlock();
  for (int d = 0; d < 3; ++d)
    launch.block[d] = blockDims[d];
  std::vector<Operation *> requiresClauses;
  std::string headerError;
  if (!bindParameters(args) || !evaluateHeader(requiresClauses, headerError))
    return false;
  if (headerError.empty() && !bindBuffers(args, forRun))
    return false;
  if (!checkRequires(requiresClauses))
    return false;
  result.launch = launch;
  if (!headerError.empty() && launch.requiresHold)
    return fail(headerError, 2);
  return true;
}

//===----------------------------------------------------------------------===//
// The run and the checks after it
//===----------------------------------------------------------------------===//

bool KernelInterpreter::runLaunch() {
  for (GlobalBuffer &buffer : buffers) {
    size_t bytes = buffer.numElements * buffer.elementType.byteSize;
    if ((options.ensuresOnly || options.checks) &&
        buffer.access == BufferAccess::InOut)
      buffer.contentsBeforeLaunch.assign(buffer.data, buffer.data + bytes);
  }
  if (options.ensuresOnly)
    return checkEnsures();
  if (options.checks) {
    for (GlobalBuffer &buffer : buffers) {
      buffer.shadow.resize(buffer.numElements);
      if (buffer.access == BufferAccess::Out) {
        buffer.written.assign(buffer.numElements, 0);
        fillWithPoison(buffer.elementType, buffer.data, buffer.numElements);
      }
    }
  }
  if (!runBlocks())
    return false;
  if (!options.checks)
    return true;
  checkCoverage();
  if (options.checkEnsures && !checkEnsures())
    return false;
  if (droppedViolations) {
    Violation violation;
    violation.kind = CheckId::Truncated;
    violation.message = std::to_string(droppedViolations) +
                        " more violations not recorded";
    result.violations.push_back(std::move(violation));
  }
  return true;
}

void KernelInterpreter::checkCoverage() {
  for (GlobalBuffer &buffer : buffers) {
    if (buffer.access != BufferAccess::Out)
      continue;
    UnwrittenElements unwritten = findUnwrittenElements(buffer);
    if (!unwritten.count)
      continue;
    std::string indices = formatIndices(unwritten.firstIndices);
    std::string message = buffer.name + "[" + indices + "] never written";
    if (unwritten.count > 1)
      message += " (" + std::to_string(unwritten.count) + " of " +
                 std::to_string(buffer.numElements) + " elements of " +
                 buffer.name + " never written)";
    Violation violation;
    violation.kind = CheckId::Coverage;
    violation.message = message;
    violation.location = locationOf(kernel);
    violation.details = {{"buffer", buffer.name},
                         {"index", indices},
                         {"missing", std::to_string(unwritten.count)}};
    result.violations.push_back(std::move(violation));
  }
}

bool KernelInterpreter::checkEnsures() {
  for (Operation *op : ensuresClauses) {
    bool approx = cast<EnsuresOp>(op).getApprox();
    bool holds = true;
    if (!evaluateClause(op->getRegion(0), host, approx, holds))
      return false;
    if (holds)
      continue;
    std::string message =
        std::string(approx ? "approx " : "") + "ensures failed";
    if (!host.clauseFailure.empty())
      message += " " + host.clauseFailure;
    violate(CheckId::Postcondition, op, message);
  }
  return true;
}

} // namespace interp

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

namespace detail {

static KernelOp findKernel(const Module &module, const std::string &name,
                           Error &error) {
  ModuleOp moduleOp = module.impl().module.get();
  KernelOp found;
  std::string names;
  if (moduleOp)
    moduleOp.walk([&](KernelOp kernel) {
      if (kernel.getSymName() == name)
        found = kernel;
      names += (names.empty() ? "" : ", ") + kernel.getSymName().str();
    });
  if (!found)
    error = Error{"no kernel '" + name + "' in the module" +
                      (names.empty() ? "" : " (kernels: " + names + ")"),
                  2};
  return found;
}

/// The first op of `kernel` the executor cannot run: in the whole kernel,
/// or only in its requires and ensures when the body is not run.
static std::optional<std::string> unsupportedPart(KernelOp kernel,
                                                  const ExecOptions &options) {
  if (!options.ensuresOnly)
    return interp::findUnsupportedOperation(kernel);
  for (Operation &op : kernel.getBody().front())
    if (isa<RequiresOp, EnsuresOp>(op))
      if (auto problem = interp::findUnsupportedOperation(&op))
        return problem;
  return std::nullopt;
}

Result<ExecResult> interpretKernel(const Module &module,
                                   const std::string &kernel, Args &args,
                                   const ExecOptions &options) {
  Error error;
  KernelOp kernelOp = findKernel(module, kernel, error);
  if (!kernelOp)
    return error;
  if (std::optional<std::string> problem = unsupportedPart(kernelOp, options))
    return Error{*problem, 3};
  ExecResult result;
  interp::KernelInterpreter interpreter(kernelOp, options, result);
  if (!interpreter.setup(args, /*forRun=*/true))
    return interpreter.error;
  if (!interpreter.launch.requiresHold)
    return Error{"precondition failed: " + interpreter.launch.failedRequires,
                 2};
  if (!interpreter.runLaunch())
    return interpreter.error;
  return result;
}

Result<LaunchInfo> describeKernel(const Module &module,
                                  const std::string &kernel, const Args &args) {
  Error error;
  KernelOp kernelOp = findKernel(module, kernel, error);
  if (!kernelOp)
    return error;
  ExecResult result;
  ExecOptions options;
  interp::KernelInterpreter interpreter(kernelOp, options, result);
  if (!interpreter.setup(args, /*forRun=*/false))
    return interpreter.error;
  return interpreter.launch;
}

Result<Module> parseIR(const std::string &text, const std::string &name) {
  auto impl = std::make_unique<ModuleImpl>();
  impl->context = std::make_unique<MLIRContext>();
  DialectRegistry registry;
  registry.insert<KuiperDialect, arith::ArithDialect, scf::SCFDialect,
                  memref::MemRefDialect, math::MathDialect>();
  impl->context->appendDialectRegistry(registry);
  impl->context->loadAllAvailableDialects();
  std::string diagnostics;
  {
    llvm::raw_string_ostream os(diagnostics);
    ScopedDiagnosticHandler handler(impl->context.get(), [&](Diagnostic &d) {
      os << name << ": " << d << "\n";
      return success();
    });
    impl->module = parseSourceString<ModuleOp>(
        text, ParserConfig(impl->context.get()), name);
  }
  if (!impl->module)
    return Error{diagnostics.empty() ? name + ": cannot parse IR" : diagnostics,
                 2};
  impl->kernels = collectKernels(*impl->module);
  impl->report.file = name;
  return Module(std::move(impl));
}

} // namespace detail
} // namespace kuiper
