//===- MemoryOpToLLVM.cpp - loads, stores, atomics, shared arrays ---------===//
//
// Buffer and shared array elements are addressed row-major with an i64 linear
// index; buffers take their dims from KernelInfo, shared arrays from their
// type. Atomics are relaxed and return the old value.
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace kuiper {
namespace {

constexpr uint64_t kSharedAlignment = 16;

/// Row-major linear index `((i0 * d1 + i1) * d2 + i2) ...` in i64.
Value createLinearIndex(OpBuilder &b, Location loc, ValueRange indices,
                        ArrayRef<Value> dims) {
  auto nsw = arith::IntegerOverflowFlags::nsw;
  Value linear = createI64Index(b, loc, indices.front());
  for (unsigned k = 1; k < indices.size(); ++k) {
    linear = arith::MulIOp::create(b, loc, linear, dims[k], nsw);
    linear = arith::AddIOp::create(b, loc, linear,
                                   createI64Index(b, loc, indices[k]), nsw);
  }
  return linear;
}

MemorySpace getMemorySpace(Value ref) {
  return isa<SharedType>(ref.getType()) ? MemorySpace::Shared
                                        : MemorySpace::Global;
}

/// The address of element `indices` of the buffer or shared array `ref`,
/// whose lowered pointer is `ptr`.
FailureOr<Value> createElementAddress(ConversionPatternRewriter &rewriter,
                                      Operation *op, Value ref, Value ptr,
                                      ValueRange indices,
                                      const KernelInfo &kernelInfo) {
  Location loc = op->getLoc();
  SmallVector<Value> dims;
  if (auto shared = dyn_cast<SharedType>(ref.getType())) {
    for (int64_t d : shared.getShape())
      dims.push_back(createI64Constant(rewriter, loc, d));
  } else if (const SmallVector<Value> *bufferDims =
                 kernelInfo.getBufferDims(ref)) {
    dims = *bufferDims;
  } else {
    return op->emitError("memory reference is neither a kernel buffer nor a "
                         "kuiper.shared_alloc");
  }
  Value linear = createLinearIndex(rewriter, loc, indices, dims);
  return LLVM::GEPOp::create(rewriter, loc, ptr.getType(),
                             getElementType(ref.getType()), ptr, linear,
                             LLVM::GEPNoWrapFlags::inbounds)
      .getResult();
}

/// Replaces characters PTX identifiers cannot hold.
std::string sanitizeIdentifier(StringRef name) {
  std::string out;
  for (char c : name)
    out.push_back(llvm::isAlnum(c) || c == '_' ? c : '_');
  return out;
}

/// `kuiper.load` -> `llvm.load` of the element's address.
struct LoadOpLowering : KuiperOpToLLVMPattern<LoadOp> {
  using KuiperOpToLLVMPattern::KuiperOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Value> ptr =
        createElementAddress(rewriter, op, op.getRef(), adaptor.getRef(),
                             adaptor.getIndices(), kernelInfo);
    if (failed(ptr))
      return failure();
    rewriter.replaceOpWithNewOp<LLVM::LoadOp>(op, op.getType(), *ptr,
                                              op.getAlign().value_or(0));
    return success();
  }
};

/// `kuiper.store` -> `llvm.store` to the element's address.
struct StoreOpLowering : KuiperOpToLLVMPattern<StoreOp> {
  using KuiperOpToLLVMPattern::KuiperOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Value> ptr =
        createElementAddress(rewriter, op, op.getRef(), adaptor.getRef(),
                             adaptor.getIndices(), kernelInfo);
    if (failed(ptr))
      return failure();
    rewriter.replaceOpWithNewOp<LLVM::StoreOp>(op, adaptor.getValue(), *ptr,
                                               op.getAlign().value_or(0));
    return success();
  }
};

/// `kuiper.aligned` -> `(ptrtoint ptr) & (bytes - 1) == 0`.
struct AlignedOpLowering : KuiperOpToLLVMPattern<AlignedOp> {
  using KuiperOpToLLVMPattern::KuiperOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(AlignedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    Value address = LLVM::PtrToIntOp::create(rewriter, loc, i64, adaptor.getRef());
    Value mask = createI64Constant(rewriter, loc, op.getBytes() - 1);
    Value low = LLVM::AndOp::create(rewriter, loc, address, mask);
    Value zero = createI64Constant(rewriter, loc, 0);
    rewriter.replaceOpWithNewOp<LLVM::ICmpOp>(op, LLVM::ICmpPredicate::eq, low, zero);
    return success();
  }
};

/// `kuiper.atomic` -> add/max/min as `llvm.atomicrmw` (signed for integers),
/// cas as `llvm.cmpxchg`; relaxed, at the scope of the memory's space.
struct AtomicOpLowering : KuiperOpToLLVMPattern<AtomicOp> {
  using KuiperOpToLLVMPattern::KuiperOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(AtomicOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op.getType();
    unsigned width = type.getIntOrFloatBitWidth();
    if (width < 16 || width > 64)
      return op.emitError("atomics on ") << type << " are not supported";
    FailureOr<Value> ptr =
        createElementAddress(rewriter, op, op.getRef(), adaptor.getRef(),
                             adaptor.getIndices(), kernelInfo);
    if (failed(ptr))
      return failure();
    StringRef scope =
        targetInfo.getAtomicSyncScope(getMemorySpace(op.getRef()));
    if (op.getKind() == AtomicKind::Cas)
      rewriter.replaceOp(op, createCompareExchange(rewriter, op, *ptr,
                                                   adaptor.getValues(), scope));
    else
      rewriter.replaceOpWithNewOp<LLVM::AtomicRMWOp>(
          op, getBinOp(op.getKind(), isa<FloatType>(type)), *ptr,
          adaptor.getValues()[0], kRelaxed, scope);
    return success();
  }

private:
  static constexpr LLVM::AtomicOrdering kRelaxed =
      LLVM::AtomicOrdering::monotonic;

  static LLVM::AtomicBinOp getBinOp(AtomicKind kind, bool isFloat) {
    switch (kind) {
    case AtomicKind::Add:
      return isFloat ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add;
    case AtomicKind::Max:
      return isFloat ? LLVM::AtomicBinOp::fmax : LLVM::AtomicBinOp::max;
    case AtomicKind::UMax:
      return LLVM::AtomicBinOp::umax;
    case AtomicKind::UMin:
      return LLVM::AtomicBinOp::umin;
    case AtomicKind::Min:
    case AtomicKind::Cas:
      break;
    }
    return isFloat ? LLVM::AtomicBinOp::fmin : LLVM::AtomicBinOp::min;
  }

  /// cmpxchg works on integers: floats go through their bits.
  static Value createCompareExchange(OpBuilder &b, AtomicOp op, Value ptr,
                                     ValueRange values, StringRef scope) {
    Location loc = op.getLoc();
    Type type = op.getType();
    bool isFloat = isa<FloatType>(type);
    Type intType = b.getIntegerType(type.getIntOrFloatBitWidth());
    Value cmp = values[0], val = values[1];
    if (isFloat) {
      cmp = arith::BitcastOp::create(b, loc, intType, cmp);
      val = arith::BitcastOp::create(b, loc, intType, val);
    }
    auto pair = LLVM::AtomicCmpXchgOp::create(b, loc, ptr, cmp, val, kRelaxed,
                                              kRelaxed, scope);
    Value old = LLVM::ExtractValueOp::create(b, loc, pair, 0);
    if (isFloat)
      old = arith::BitcastOp::create(b, loc, type, old);
    return old;
  }
};

/// `kuiper.shared_alloc` -> an internal, undef-initialised global of the
/// array's full shape in the shared address space, and its address.
struct SharedAllocOpLowering : KuiperOpToLLVMPattern<SharedAllocOp> {
  using KuiperOpToLLVMPattern::KuiperOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(SharedAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SharedType type = op.getType();
    Type arrayType = type.getElementType();
    for (int64_t d : llvm::reverse(type.getShape()))
      arrayType = LLVM::LLVMArrayType::get(arrayType, d);
    auto module = op->getParentOfType<ModuleOp>();
    LLVM::GlobalOp global;
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      global = LLVM::GlobalOp::create(
          rewriter, op.getLoc(), arrayType, /*isConstant=*/false,
          LLVM::Linkage::Internal, getUniqueName(module, op), Attribute(),
          kSharedAlignment, targetInfo.getAddressSpace(MemorySpace::Shared));
    }
    rewriter.replaceOpWithNewOp<LLVM::AddressOfOp>(op, global);
    return success();
  }

private:
  /// `__kuiper_shared_<kernel>_<array>`, numbered if taken.
  static std::string getUniqueName(ModuleOp module, SharedAllocOp op) {
    auto kernel = op->getParentOfType<SymbolOpInterface>();
    std::string base = "__kuiper_shared_" +
                       sanitizeIdentifier(kernel.getName()) + "_" +
                       sanitizeIdentifier(op.getName());
    std::string name = base;
    for (unsigned n = 1; module.lookupSymbol(name); ++n)
      name = base + "_" + std::to_string(n);
    return name;
  }
};

} // namespace

void populateMemoryOpToLLVMPatterns(const KuiperToLLVMTypeConverter &converter,
                                    RewritePatternSet &patterns,
                                    const TargetInfo &targetInfo,
                                    const KernelInfo &kernelInfo) {
  patterns.add<LoadOpLowering, StoreOpLowering, AtomicOpLowering,
               AlignedOpLowering, SharedAllocOpLowering>(converter, patterns.getContext(),
                                      targetInfo, kernelInfo);
}

} // namespace kuiper
