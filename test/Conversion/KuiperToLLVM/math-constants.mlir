// RUN: kuiper-opt %s --kuiper-math-to-libcall --kuiper-erase-specs --canonicalize --convert-kuiper-to-llvm | FileCheck %s --enable-var-scope
// RUN: kuiper-opt %s --kuiper-erase-specs --convert-kuiper-to-llvm | FileCheck %s --enable-var-scope

// A math op of a constant is a libdevice call like any other, never folded
// with the host's libm (upstream folds erf, tanh, log and exp of constants;
// glibc's erff(0.3) is 0x3EA841C5, __nv_erff(0.3) 0x3EA841C4, and the proof
// takes code and clauses to call one function). The call is made before the
// canonicalizer runs, and neither conversion folds an op before converting
// it (a dialect conversion's default: it folded them too).

// CHECK-LABEL: llvm.func @constants(
// CHECK-DAG: %[[D:.*]] = arith.constant 3.000000e-01 : f64
// CHECK-DAG: %[[C:.*]] = arith.constant 3.000000e-01 : f32
// CHECK-DAG: llvm.call @__nv_erff(%[[C]]) : (f32) -> f32
// CHECK-DAG: llvm.call @__nv_tanhf(%[[C]]) : (f32) -> f32
// CHECK-DAG: llvm.call @__nv_logf(%[[C]]) : (f32) -> f32
// CHECK-DAG: llvm.call @__nv_exp(%[[D]]) : (f64) -> f64
// CHECK-NOT: 0.328626
kuiper.kernel @constants block [32, 1, 1] attributes {arg_names = ["y"]} {
^bb0(%y: !kuiper.buffer<f32, 1, out>):
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  kuiper.shape %y [%c1] : !kuiper.buffer<f32, 1, out>, i32
  %x = arith.constant 3.000000e-01 : f32
  %xd = arith.constant 3.000000e-01 : f64
  %e = math.erf %x : f32
  %t = math.tanh %x : f32
  %l = math.log %x : f32
  %ed = math.exp %xd : f64
  %edf = arith.truncf %ed : f64 to f32
  %s1 = arith.addf %e, %t : f32
  %s2 = arith.addf %s1, %l : f32
  %s3 = arith.addf %s2, %edf : f32
  kuiper.store %s3, %y[%c0] : f32, !kuiper.buffer<f32, 1, out>, i32
  kuiper.return
}
