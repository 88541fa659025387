//===- Passes.td - conversions out of the kuiper dialect ---*- tablegen -*-===//
#ifndef KUIPER_CONVERSION_PASSES
#define KUIPER_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertKuiperToLLVM : Pass<"convert-kuiper-to-llvm", "mlir::ModuleOp"> {
  let summary = "Convert kuiper kernels to LLVM dialect GPU kernels";
  let description = [{
    Turns every `kuiper.kernel` into an `llvm.func` with the kernel ABI of
    docs/abi.md (source-order parameters, buffers as `noalias` global
    pointers, bools as one byte) and every kuiper op in it into LLVM dialect
    ops and the target's ops (NVVM for `nvptx`). Math ops the target's math
    library has a function for become calls to it (libdevice for `nvptx`).
    arith, scf, cf and the remaining math ops are left for the upstream
    conversions. Specifications must have been erased first
    (`--kuiper-erase-specs`).

    ```mlir
    %t = kuiper.thread_id 0 : i32
    // becomes, in a kernel of 256 threads
    %t = nvvm.read.ptx.sreg.tid.x range <i32, 0, 256> : i32
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"nvptx\"",
           "The GPU target whose ops and libraries the kernels use (nvptx)">,
  ];
  let dependentDialects = [
    "mlir::LLVM::LLVMDialect",
    "mlir::NVVM::NVVMDialect",
    "mlir::arith::ArithDialect",
  ];
}

#endif // KUIPER_CONVERSION_PASSES
