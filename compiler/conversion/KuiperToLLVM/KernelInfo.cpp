//===- KernelInfo.cpp - kernel facts the kuiper to LLVM patterns read -----===//
#include "kuiper/Conversion/KuiperToLLVM/KuiperToLLVM.h"

#include "PatternUtils.h"

#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "convert-kuiper-to-llvm"

using namespace mlir;

namespace kuiper {

FailureOr<KernelInfo> KernelInfo::build(ModuleOp module) {
  KernelInfo info;
  OpBuilder b(module.getContext());
  for (KernelOp kernel : module.getOps<KernelOp>()) {
    ArrayRef<int64_t> block = kernel.getBlock();
    info.blockSizes[kernel.getSymName()] = {block[0], block[1], block[2]};
    Block &entry = kernel.getBody().front();
    for (ShapeOp shape : entry.getOps<ShapeOp>()) {
      b.setInsertionPoint(shape);
      SmallVector<Value> dims;
      for (Value dim : shape.getDims())
        dims.push_back(createI64Index(b, shape.getLoc(), dim));
      info.bufferDims[shape.getBuffer()] = std::move(dims);
    }
    for (BlockArgument arg : entry.getArguments())
      if (isa<BufferType>(arg.getType()) && !info.bufferDims.count(arg))
        return kernel.emitError("buffer parameter #")
               << arg.getArgNumber() << " has no kuiper.shape";
    LLVM_DEBUG(llvm::dbgs()
               << "kernel @" << kernel.getSymName() << ": block [" << block[0]
               << ", " << block[1] << ", " << block[2] << "]\n");
  }
  return info;
}

ArrayRef<int64_t> KernelInfo::getBlockSize(Operation *op) const {
  auto kernel = op->getParentOfType<SymbolOpInterface>();
  assert(kernel && "op outside a kernel");
  auto it = blockSizes.find(kernel.getName());
  assert(it != blockSizes.end() && "kernel not recorded");
  return it->second;
}

const SmallVector<Value> *KernelInfo::getBufferDims(Value buffer) const {
  auto it = bufferDims.find(buffer);
  return it == bufferDims.end() ? nullptr : &it->second;
}

} // namespace kuiper
