// RUN: kuiper-opt %s --kuiper-erase-specs --convert-kuiper-to-llvm | FileCheck %s --enable-var-scope

// Math ops libdevice has a function for become calls of it, declared once per
// module; f16 goes through f32; sqrt is the correctly rounded one. Other math
// ops (fpowi, ...) stay for the upstream math to LLVM conversion.

// CHECK-LABEL: llvm.func @unary(
// CHECK-SAME: %[[X:.*]]: f32, %[[D:.*]]: f64, %[[H:.*]]: f16)
// CHECK: %[[S:.*]] = llvm.call @__nv_fsqrt_rn(%[[X]]) : (f32) -> f32
// CHECK: %[[E:.*]] = llvm.call @__nv_expf(%[[S]]) : (f32) -> f32
// CHECK: llvm.call @__nv_expf(%[[E]]) : (f32) -> f32
// CHECK: llvm.call @__nv_dsqrt_rn(%[[D]]) : (f64) -> f64
// CHECK: llvm.call @__nv_pow(%[[D]], %[[D]]) : (f64, f64) -> f64
// CHECK: %[[WIDE:.*]] = arith.extf %[[H]] : f16 to f32
// CHECK: %[[T:.*]] = llvm.call @__nv_tanhf(%[[WIDE]]) : (f32) -> f32
// CHECK: arith.truncf %[[T]] : f32 to f16
// CHECK: math.fpowi
kuiper.kernel @unary block [32, 1, 1] attributes {arg_names = ["x", "d", "h"]} {
^bb0(%x: f32, %d: f64, %h: f16):
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %s = math.sqrt %x : f32
  %e = math.exp %s : f32
  %e2 = math.exp %e : f32
  %sd = math.sqrt %d : f64
  %p = math.powf %d, %d : f64
  %t = math.tanh %h : f16
  %i = math.fpowi %x, %c1 : f32, i32
  kuiper.return
}

// CHECK-DAG: llvm.func @__nv_fsqrt_rn(f32) -> f32
// CHECK-DAG: llvm.func @__nv_expf(f32) -> f32
// CHECK-DAG: llvm.func @__nv_dsqrt_rn(f64) -> f64
// CHECK-DAG: llvm.func @__nv_pow(f64, f64) -> f64
// CHECK-DAG: llvm.func @__nv_tanhf(f32) -> f32
