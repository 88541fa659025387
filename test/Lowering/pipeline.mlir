// RUN: kuiper-opt %s --kuiper-to-llvm | FileCheck %s --enable-var-scope
// RUN: not kuiper-lower %S/../Conversion/KuiperToLLVM/errors.mlir 2>&1 | FileCheck %s --check-prefix=FAILED

// --kuiper-to-llvm is the pipeline kuiperc runs before LLVM IR: what is left
// is LLVM and NVVM dialect only.

// CHECK-LABEL: llvm.func @scale(
// CHECK-NOT: kuiper.
// CHECK-NOT: arith.
// CHECK-NOT: scf.
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: llvm.fmul
// CHECK: llvm.return

// A failing step is named in the error.
// (The first step, math ops to library calls, meets errors.mlir's vector exp.)
// FAILED: error: lowering failed (kuiper-math-to-libcall):
// FAILED: errors.mlir:{{[0-9]+}}:{{[0-9]+}}: only scalar float math is supported
kuiper.kernel @scale block [64, 1, 1] attributes {arg_names = ["x", "n"]} {
^bb0(%x: !kuiper.buffer<f32, 1, inout>, %n: i32):
  kuiper.shape %x [%n] : !kuiper.buffer<f32, 1, inout>, i32
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %t = kuiper.thread_id 0 : i32
  %in = arith.cmpi slt, %t, %n : i32
  scf.if %in {
    %v = kuiper.load %x[%t] : !kuiper.buffer<f32, 1, inout>, i32 -> f32
    %two = arith.constant 2.0 : f32
    %w = arith.mulf %v, %two : f32
    kuiper.store %w, %x[%t] : f32, !kuiper.buffer<f32, 1, inout>, i32
  }
  kuiper.return
}
