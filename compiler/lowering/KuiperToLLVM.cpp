//===- KuiperToLLVM.cpp - kuiper kernels to NVVM llvm.func ----------------===//
//
// Rewrites each `kuiper.kernel` into an `llvm.func` with the kernel ABI of
// docs/abi.md, and every kuiper op in it into LLVM and NVVM dialect ops. Math
// ops become calls to libdevice. arith, scf and memref ops stay; the upstream
// conversions in Lowering.cpp take them to the LLVM dialect.
//
//===----------------------------------------------------------------------===//
#include "LoweringPasses.h"

#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace kuiper {
namespace {

constexpr unsigned kGlobalAddressSpace = 1;
constexpr unsigned kSharedAddressSpace = 3;
constexpr int32_t kFullWarpMask = -1;
constexpr uint64_t kSharedAlignment = 16;

//===----------------------------------------------------------------------===//
// Small builders
//===----------------------------------------------------------------------===//

Value constI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 32);
}

Value constI64(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 64);
}

/// Sign-extends (or truncates) an integer index to i64.
Value toI64(OpBuilder &b, Location loc, Value v) {
  Type i64 = b.getI64Type();
  if (v.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, i64, v);
  unsigned width = v.getType().getIntOrFloatBitWidth();
  if (width < 64)
    return arith::ExtSIOp::create(b, loc, i64, v);
  if (width > 64)
    return arith::TruncIOp::create(b, loc, i64, v);
  return v;
}

/// Zero-extends (or truncates) an integer mask to i32.
Value toI32Mask(OpBuilder &b, Location loc, Value mask) {
  if (!mask)
    return constI32(b, loc, kFullWarpMask);
  Type i32 = b.getI32Type();
  if (mask.getType().isIndex())
    return arith::IndexCastUIOp::create(b, loc, i32, mask);
  unsigned width = mask.getType().getIntOrFloatBitWidth();
  if (width < 32)
    return arith::ExtUIOp::create(b, loc, i32, mask);
  if (width > 32)
    return arith::TruncIOp::create(b, loc, i32, mask);
  return mask;
}

/// Row-major linear index `((i0 * d1 + i1) * d2 + i2) ...` in i64.
Value linearIndex(OpBuilder &b, Location loc, ValueRange indices,
                  ArrayRef<Value> dims) {
  auto nsw = arith::IntegerOverflowFlags::nsw;
  Value linear = toI64(b, loc, indices.front());
  for (unsigned k = 1; k < indices.size(); ++k) {
    linear = arith::MulIOp::create(b, loc, linear, dims[k], nsw);
    linear =
        arith::AddIOp::create(b, loc, linear, toI64(b, loc, indices[k]), nsw);
  }
  return linear;
}

/// Returns (declaring it on first use) the external function `name`.
LLVM::LLVMFuncOp getOrDeclare(ModuleOp module, StringRef name,
                              LLVM::LLVMFunctionType type) {
  if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return fn;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
}

/// Replaces characters PTX identifiers cannot hold.
std::string sanitize(StringRef name) {
  std::string out;
  for (char c : name)
    out.push_back(llvm::isAlnum(c) || c == '_' ? c : '_');
  return out;
}

//===----------------------------------------------------------------------===//
// Math -> libdevice
//===----------------------------------------------------------------------===//

/// The libdevice base name of a math op (`exp` -> `__nv_expf`/`__nv_exp`).
/// sqrt maps to the correctly rounded `__nv_fsqrt_rn`/`__nv_dsqrt_rn`.
std::optional<std::pair<std::string, std::string>>
libdeviceNames(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (name == "math.sqrt")
    return std::make_pair(std::string("__nv_fsqrt_rn"),
                          std::string("__nv_dsqrt_rn"));
  StringRef base = llvm::StringSwitch<StringRef>(name)
                       .Case("math.exp", "exp")
                       .Case("math.exp2", "exp2")
                       .Case("math.expm1", "expm1")
                       .Case("math.log", "log")
                       .Case("math.log2", "log2")
                       .Case("math.log10", "log10")
                       .Case("math.log1p", "log1p")
                       .Case("math.rsqrt", "rsqrt")
                       .Case("math.cbrt", "cbrt")
                       .Case("math.tanh", "tanh")
                       .Case("math.sinh", "sinh")
                       .Case("math.cosh", "cosh")
                       .Case("math.sin", "sin")
                       .Case("math.cos", "cos")
                       .Case("math.tan", "tan")
                       .Case("math.asin", "asin")
                       .Case("math.acos", "acos")
                       .Case("math.atan", "atan")
                       .Case("math.atan2", "atan2")
                       .Case("math.erf", "erf")
                       .Case("math.erfc", "erfc")
                       .Case("math.absf", "fabs")
                       .Case("math.floor", "floor")
                       .Case("math.ceil", "ceil")
                       .Case("math.round", "round")
                       .Case("math.roundeven", "rint")
                       .Case("math.trunc", "trunc")
                       .Case("math.powf", "pow")
                       .Case("math.fma", "fma")
                       .Case("math.copysign", "copysign")
                       .Default("");
  if (base.empty())
    return std::nullopt;
  return std::make_pair(("__nv_" + base + "f").str(), ("__nv_" + base).str());
}

/// Rewrites a float math op as a libdevice call; f16/bf16 go through f32.
LogicalResult lowerMathOp(IRRewriter &rewriter, ModuleOp module,
                          Operation *op) {
  auto names = libdeviceNames(op);
  if (!names)
    return success(); // left to math-to-llvm
  if (op->getNumResults() != 1)
    return op->emitError("unexpected math op form");
  auto type = dyn_cast<FloatType>(op->getResult(0).getType());
  if (!type)
    return op->emitError("only scalar float math is supported");
  Location loc = op->getLoc();
  rewriter.setInsertionPoint(op);
  bool isDouble = type.isF64();
  Type callType =
      isDouble ? Type(rewriter.getF64Type()) : rewriter.getF32Type();
  SmallVector<Value> args;
  for (Value operand : op->getOperands())
    args.push_back(operand.getType() == callType
                       ? operand
                       : arith::ExtFOp::create(rewriter, loc, callType, operand)
                             .getResult());
  SmallVector<Type> argTypes(args.size(), callType);
  auto fnType = LLVM::LLVMFunctionType::get(callType, argTypes);
  LLVM::LLVMFuncOp fn =
      getOrDeclare(module, isDouble ? names->second : names->first, fnType);
  Value result = LLVM::CallOp::create(rewriter, loc, fn, args).getResult();
  if (result.getType() != type)
    result = arith::TruncFOp::create(rewriter, loc, type, result);
  rewriter.replaceOp(op, result);
  return success();
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// Lowers one kernel; holds what its ops need to know about memory.
class KernelLowering {
public:
  KernelLowering(KernelOp kernel, ModuleOp module, IRRewriter &rewriter)
      : kernel(kernel), module(module), rewriter(rewriter),
        ctx(kernel.getContext()) {
    ArrayRef<int64_t> b = kernel.getBlock();
    block = {b[0], b[1], b[2]};
  }

  LogicalResult run();

private:
  LogicalResult collectHeader();
  void lowerParameters();
  void lowerSharedAlloc(SharedAllocOp op);
  LogicalResult lowerOp(Operation *op);
  FailureOr<Value> address(Operation *op, Value ref, ValueRange indices);
  Value threadId(Location loc, int64_t dim);
  Value linearThreadId(Location loc);
  Value shuffle(ShuffleOp op);
  LogicalResult lowerAtomic(AtomicOp op);
  void createFunction();

  KernelOp kernel;
  ModuleOp module;
  IRRewriter &rewriter;
  MLIRContext *ctx;
  std::array<int64_t, 3> block;
  /// The element type and row-major dims (as i64 values) of each buffer.
  DenseMap<Value, std::pair<Type, SmallVector<Value>>> buffers;
  /// The type of each shared array, keyed by its `llvm.mlir.addressof`.
  DenseMap<Value, SharedType> sharedArrays;
};

LogicalResult KernelLowering::collectHeader() {
  Block &entry = kernel.getBody().front();
  SmallVector<Operation *> header;
  for (Operation &op : entry) {
    if (auto shape = dyn_cast<ShapeOp>(op)) {
      auto type = shape.getBuffer().getType();
      rewriter.setInsertionPoint(shape);
      SmallVector<Value> dims;
      for (Value d : shape.getDims())
        dims.push_back(toI64(rewriter, shape.getLoc(), d));
      buffers[shape.getBuffer()] = {type.getElementType(), dims};
      header.push_back(shape);
    } else if (isa<LaunchOp>(op)) {
      header.push_back(&op);
    }
  }
  for (BlockArgument arg : entry.getArguments())
    if (isa<BufferType>(arg.getType()) && !buffers.count(arg))
      return kernel.emitError("buffer parameter #")
             << arg.getArgNumber() << " has no kuiper.shape";
  for (Operation *op : header)
    rewriter.eraseOp(op);
  return success();
}

/// Buffers become `ptr<1>`; bools travel as one byte (nonzero is true).
void KernelLowering::lowerParameters() {
  Block &entry = kernel.getBody().front();
  for (BlockArgument arg : entry.getArguments()) {
    if (isa<BufferType>(arg.getType())) {
      arg.setType(LLVM::LLVMPointerType::get(ctx, kGlobalAddressSpace));
    } else if (arg.getType().isInteger(1)) {
      arg.setType(rewriter.getI8Type());
      rewriter.setInsertionPointToStart(&entry);
      Value zero = arith::ConstantIntOp::create(rewriter, arg.getLoc(), 0, 8);
      auto isTrue = arith::CmpIOp::create(rewriter, arg.getLoc(),
                                          arith::CmpIPredicate::ne, arg, zero);
      rewriter.replaceAllUsesExcept(arg, isTrue, isTrue);
    }
  }
}

/// One internal, undef-initialised `addrspace(3)` global per shared array.
void KernelLowering::lowerSharedAlloc(SharedAllocOp op) {
  SharedType type = op.getType();
  Type arrayType = type.getElementType();
  for (int64_t d : llvm::reverse(type.getShape()))
    arrayType = LLVM::LLVMArrayType::get(arrayType, d);

  std::string base = "__kuiper_shared_" + sanitize(kernel.getSymName()) + "_" +
                     sanitize(op.getName());
  std::string name = base;
  for (unsigned n = 1; module.lookupSymbol(name); ++n)
    name = base + "_" + std::to_string(n);

  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto global = LLVM::GlobalOp::create(
      b, op.getLoc(), arrayType, /*isConstant=*/false, LLVM::Linkage::Internal,
      name, Attribute(), kSharedAlignment, kSharedAddressSpace);

  rewriter.setInsertionPoint(op);
  Value addr = LLVM::AddressOfOp::create(rewriter, op.getLoc(), global);
  sharedArrays[addr] = type;
  rewriter.replaceOp(op, addr);
}

/// The address of element `indices` of a buffer or shared array.
FailureOr<Value> KernelLowering::address(Operation *op, Value ref,
                                         ValueRange indices) {
  Location loc = op->getLoc();
  auto ptrType = cast<LLVM::LLVMPointerType>(ref.getType());
  if (auto it = buffers.find(ref); it != buffers.end()) {
    auto &[elt, dims] = it->second;
    Value linear = linearIndex(rewriter, loc, indices, dims);
    return LLVM::GEPOp::create(rewriter, loc, ptrType, elt, ref, linear,
                               LLVM::GEPNoWrapFlags::inbounds)
        .getResult();
  }
  if (auto it = sharedArrays.find(ref); it != sharedArrays.end()) {
    SharedType type = it->second;
    SmallVector<Value> dims;
    for (int64_t d : type.getShape())
      dims.push_back(constI64(rewriter, loc, d));
    Value linear = linearIndex(rewriter, loc, indices, dims);
    return LLVM::GEPOp::create(rewriter, loc, ptrType, type.getElementType(),
                               ref, linear, LLVM::GEPNoWrapFlags::inbounds)
        .getResult();
  }
  return op->emitError("memory reference is neither a kernel buffer nor a "
                       "kuiper.shared_alloc");
}

Value KernelLowering::threadId(Location loc, int64_t dim) {
  Type i32 = rewriter.getI32Type();
  auto range = LLVM::ConstantRangeAttr::get(ctx, llvm::APInt(32, 0),
                                            llvm::APInt(32, block[dim]));
  switch (dim) {
  case 0:
    return NVVM::ThreadIdXOp::create(rewriter, loc, i32, range);
  case 1:
    return NVVM::ThreadIdYOp::create(rewriter, loc, i32, range);
  default:
    return NVVM::ThreadIdZOp::create(rewriter, loc, i32, range);
  }
}

/// `x + y * bx + z * bx * by`, the index laneid and warpid are defined on.
Value KernelLowering::linearThreadId(Location loc) {
  auto flags =
      arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw;
  Value linear = threadId(loc, 0);
  int64_t stride = block[0];
  for (int64_t dim = 1; dim < 3; ++dim) {
    if (block[dim] > 1) {
      Value scaled =
          arith::MulIOp::create(rewriter, loc, threadId(loc, dim),
                                constI32(rewriter, loc, stride), flags);
      linear = arith::AddIOp::create(rewriter, loc, linear, scaled, flags);
    }
    stride *= block[dim];
  }
  return linear;
}

/// shfl.sync on 32-bit pieces: narrow values are widened, 64-bit ones split.
Value KernelLowering::shuffle(ShuffleOp op) {
  Location loc = op.getLoc();
  Type i32 = rewriter.getI32Type();
  Type type = op.getType();
  NVVM::ShflKind kind = NVVM::ShflKind::idx;
  switch (op.getMode()) {
  case ShuffleMode::Down:
    kind = NVVM::ShflKind::down;
    break;
  case ShuffleMode::Up:
    kind = NVVM::ShflKind::up;
    break;
  case ShuffleMode::Xor:
    kind = NVVM::ShflKind::bfly;
    break;
  case ShuffleMode::Idx:
    kind = NVVM::ShflKind::idx;
    break;
  }
  Value mask = toI32Mask(rewriter, loc, op.getMask());
  Value clamp = constI32(rewriter, loc, kind == NVVM::ShflKind::up ? 0 : 0x1f);
  Value delta = op.getDelta();
  auto shfl32 = [&](Value v) -> Value {
    return NVVM::ShflOp::create(rewriter, loc, v.getType(), mask, v, delta,
                                clamp, kind, UnitAttr())
        .getResult();
  };

  if (type.isInteger(32) || type.isF32())
    return shfl32(op.getValue());

  unsigned width = type.getIntOrFloatBitWidth();
  Type intType = rewriter.getIntegerType(width);
  Value bits = op.getValue();
  if (isa<FloatType>(type))
    bits = arith::BitcastOp::create(rewriter, loc, intType, bits);

  Value result;
  if (width < 32) {
    Value wide = arith::ExtUIOp::create(rewriter, loc, i32, bits);
    result = arith::TruncIOp::create(rewriter, loc, intType, shfl32(wide));
  } else {
    Type i64 = rewriter.getI64Type();
    Value c32 = constI64(rewriter, loc, 32);
    Value lo = arith::TruncIOp::create(rewriter, loc, i32, bits);
    Value hi = arith::TruncIOp::create(
        rewriter, loc, i32, arith::ShRUIOp::create(rewriter, loc, bits, c32));
    Value newLo = arith::ExtUIOp::create(rewriter, loc, i64, shfl32(lo));
    Value newHi = arith::ExtUIOp::create(rewriter, loc, i64, shfl32(hi));
    result = arith::OrIOp::create(
        rewriter, loc, arith::ShLIOp::create(rewriter, loc, newHi, c32), newLo);
  }
  if (isa<FloatType>(type))
    result = arith::BitcastOp::create(rewriter, loc, type, result);
  return result;
}

/// add/max/min as atomicrmw (signed for integers), cas as cmpxchg; all
/// relaxed, at device scope on buffers and block scope on shared arrays.
LogicalResult KernelLowering::lowerAtomic(AtomicOp op) {
  Location loc = op.getLoc();
  FailureOr<Value> ptr = address(op, op.getRef(), op.getIndices());
  if (failed(ptr))
    return failure();
  StringRef scope = sharedArrays.count(op.getRef()) ? "block" : "device";
  Type type = op.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  if (width < 16 || width > 64)
    return op.emitError("atomics on ") << type << " are not supported";
  auto relaxed = LLVM::AtomicOrdering::monotonic;
  bool isFloat = isa<FloatType>(type);
  AtomicKind kind = op.getKind();

  if (kind == AtomicKind::Cas) {
    Value cmp = op.getValues()[0], val = op.getValues()[1];
    Type intType = rewriter.getIntegerType(width);
    if (isFloat) {
      cmp = arith::BitcastOp::create(rewriter, loc, intType, cmp);
      val = arith::BitcastOp::create(rewriter, loc, intType, val);
    }
    auto pair = LLVM::AtomicCmpXchgOp::create(rewriter, loc, *ptr, cmp, val,
                                              relaxed, relaxed, scope);
    Value old = LLVM::ExtractValueOp::create(rewriter, loc, pair, 0);
    if (isFloat)
      old = arith::BitcastOp::create(rewriter, loc, type, old);
    rewriter.replaceOp(op, old);
    return success();
  }

  LLVM::AtomicBinOp binOp;
  if (kind == AtomicKind::Add)
    binOp = isFloat ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add;
  else if (kind == AtomicKind::Max)
    binOp = isFloat ? LLVM::AtomicBinOp::fmax : LLVM::AtomicBinOp::max;
  else
    binOp = isFloat ? LLVM::AtomicBinOp::fmin : LLVM::AtomicBinOp::min;
  Value old = LLVM::AtomicRMWOp::create(rewriter, loc, binOp, *ptr,
                                        op.getValues()[0], relaxed, scope);
  rewriter.replaceOp(op, old);
  return success();
}

LogicalResult KernelLowering::lowerOp(Operation *op) {
  Location loc = op->getLoc();
  rewriter.setInsertionPoint(op);
  Type i32 = rewriter.getI32Type();
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](ThreadIdOp op) {
        rewriter.replaceOp(op, threadId(loc, op.getDim()));
        return success();
      })
      .Case([&](BlockIdOp op) {
        Value v;
        if (op.getDim() == 0)
          v = NVVM::BlockIdXOp::create(rewriter, loc, i32);
        else if (op.getDim() == 1)
          v = NVVM::BlockIdYOp::create(rewriter, loc, i32);
        else
          v = NVVM::BlockIdZOp::create(rewriter, loc, i32);
        rewriter.replaceOp(op, v);
        return success();
      })
      .Case([&](GridDimOp op) {
        Value v;
        if (op.getDim() == 0)
          v = NVVM::GridDimXOp::create(rewriter, loc, i32);
        else if (op.getDim() == 1)
          v = NVVM::GridDimYOp::create(rewriter, loc, i32);
        else
          v = NVVM::GridDimZOp::create(rewriter, loc, i32);
        rewriter.replaceOp(op, v);
        return success();
      })
      .Case([&](LaneIdOp op) {
        Value lane = arith::AndIOp::create(rewriter, loc, linearThreadId(loc),
                                           constI32(rewriter, loc, 31));
        rewriter.replaceOp(op, lane);
        return success();
      })
      .Case([&](WarpIdOp op) {
        Value warp = arith::ShRUIOp::create(rewriter, loc, linearThreadId(loc),
                                            constI32(rewriter, loc, 5));
        rewriter.replaceOp(op, warp);
        return success();
      })
      .Case([&](LoadOp op) -> LogicalResult {
        FailureOr<Value> ptr = address(op, op.getRef(), op.getIndices());
        if (failed(ptr))
          return failure();
        rewriter.replaceOp(
            op, LLVM::LoadOp::create(rewriter, loc, op.getType(), *ptr));
        return success();
      })
      .Case([&](StoreOp op) -> LogicalResult {
        FailureOr<Value> ptr = address(op, op.getRef(), op.getIndices());
        if (failed(ptr))
          return failure();
        LLVM::StoreOp::create(rewriter, loc, op.getValue(), *ptr);
        rewriter.eraseOp(op);
        return success();
      })
      .Case([&](AtomicOp op) { return lowerAtomic(op); })
      .Case([&](BarrierOp op) {
        NVVM::Barrier0Op::create(rewriter, loc);
        rewriter.eraseOp(op);
        return success();
      })
      .Case([&](ShuffleOp op) {
        rewriter.replaceOp(op, shuffle(op));
        return success();
      })
      .Case([&](VoteOp op) {
        auto kind = op.getMode() == VoteMode::Ballot ? NVVM::VoteSyncKind::ballot
                    : op.getMode() == VoteMode::Any  ? NVVM::VoteSyncKind::any
                                                     : NVVM::VoteSyncKind::all;
        Value mask = toI32Mask(rewriter, loc, op.getMask());
        rewriter.replaceOp(op,
                           NVVM::VoteSyncOp::create(rewriter, loc, op.getType(),
                                                    mask, op.getPred(), kind));
        return success();
      })
      .Case([&](SyncWarpOp op) {
        NVVM::SyncWarpOp::create(rewriter, loc,
                                 toI32Mask(rewriter, loc, op.getMask()));
        rewriter.eraseOp(op);
        return success();
      })
      .Case([&](ReturnOp op) {
        rewriter.replaceOpWithNewOp<LLVM::ReturnOp>(op, ValueRange{});
        return success();
      })
      .Default([&](Operation *op) -> LogicalResult {
        if (isa<math::MathDialect>(op->getDialect()))
          return lowerMathOp(rewriter, module, op);
        if (isa<KuiperDialect>(op->getDialect()))
          return op->emitError("cannot lower '") << op->getName() << "' to PTX";
        return success();
      });
}

/// The `llvm.func` of the kernel ABI: source-order parameters, buffers as
/// `noalias` (and `readonly` for "in") global pointers, `nvvm.kernel`,
/// `nvvm.reqntid` from the block attribute.
void KernelLowering::createFunction() {
  Block &entry = kernel.getBody().front();
  SmallVector<Type> argTypes(entry.getArgumentTypes());
  auto fnType =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), argTypes);
  rewriter.setInsertionPoint(kernel);
  auto func = LLVM::LLVMFuncOp::create(rewriter, kernel.getLoc(),
                                       kernel.getSymName(), fnType);
  func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                rewriter.getUnitAttr());
  func->setAttr(NVVM::NVVMDialect::getReqntidAttrName(),
                rewriter.getDenseI32ArrayAttr(
                    {int32_t(block[0]), int32_t(block[1]), int32_t(block[2])}));
  for (BlockArgument arg : entry.getArguments()) {
    auto it = buffers.find(arg);
    if (it == buffers.end())
      continue;
    func.setArgAttr(arg.getArgNumber(), LLVM::LLVMDialect::getNoAliasAttrName(),
                    rewriter.getUnitAttr());
    func.setArgAttr(arg.getArgNumber(), LLVM::LLVMDialect::getNoUndefAttrName(),
                    rewriter.getUnitAttr());
  }
  rewriter.inlineRegionBefore(kernel.getBody(), func.getBody(), func.end());
  rewriter.eraseOp(kernel);
}

LogicalResult KernelLowering::run() {
  Block &entry = kernel.getBody().front();
  SmallVector<bool> readOnly;
  for (BlockArgument arg : entry.getArguments()) {
    auto buffer = dyn_cast<BufferType>(arg.getType());
    readOnly.push_back(buffer && buffer.getAccess() == BufferAccess::In);
  }
  if (failed(collectHeader()))
    return failure();
  lowerParameters();

  SmallVector<SharedAllocOp> allocs;
  kernel.walk([&](SharedAllocOp op) { allocs.push_back(op); });
  for (SharedAllocOp op : allocs)
    lowerSharedAlloc(op);

  SmallVector<Operation *> ops;
  kernel.getBody().walk([&](Operation *op) { ops.push_back(op); });
  for (Operation *op : ops)
    if (failed(lowerOp(op)))
      return failure();

  StringRef name = kernel.getSymName();
  createFunction();
  auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
  for (auto [i, ro] : llvm::enumerate(readOnly))
    if (ro)
      func.setArgAttr(i, LLVM::LLVMDialect::getReadonlyAttrName(),
                      UnitAttr::get(ctx));
  return success();
}

} // namespace

LogicalResult convertKuiperToLLVM(ModuleOp module) {
  IRRewriter rewriter(module.getContext());
  SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
  if (kernels.empty())
    return module.emitError("no kuiper.kernel to lower");
  for (KernelOp kernel : kernels)
    if (failed(KernelLowering(kernel, module, rewriter).run()))
      return failure();
  for (Operation &op : module.getOps())
    if (isa<KuiperDialect>(op.getDialect()))
      return op.emitError("cannot lower '") << op.getName() << "' to PTX";
  return success();
}

} // namespace kuiper
