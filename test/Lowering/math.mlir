// REQUIRES: libdevice
// RUN: %kuiper-lower %s --arch sm_90 | FileCheck %s --enable-var-scope
// RUN: %kuiper-lower %s --arch sm_90 --emit llvm | FileCheck %s --check-prefix=LLVM --enable-var-scope
// RUN: %if ptxas %{ %kuiper-lower %s --arch sm_80 -o %t.sm80.ptx && %ptxas --gpu-name=sm_80 %t.sm80.ptx -o /dev/null %}
// RUN: %if ptxas %{ %kuiper-lower %s --arch sm_90 -o %t.sm90.ptx && %ptxas --gpu-name=sm_90 %t.sm90.ptx -o /dev/null %}

// Math ops are libdevice calls (linked, internalized and inlined), built
// without flush-to-zero; sqrt is correctly rounded; fminf/fmaxf are min/max.f32,
// which return the non-NaN operand. No multiply-add is contracted into an fma.

// LLVM-NOT: declare {{.*}}@__nv_
// LLVM: !"nvvm-reflect-ftz", i32 0}

// CHECK-LABEL: .visible .entry unary_f32(
// CHECK: sqrt.rn.f32
// CHECK: rsqrt.approx.f32
// CHECK: abs.f32
// CHECK: cvt.rmi.f32.f32
// CHECK: cvt.rpi.f32.f32
// CHECK: max.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0fBF800000;
// CHECK: min.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0f3F800000;
// CHECK: mul.rn.f32 [[SQ:%r[0-9]+]], [[X:%r[0-9]+]], [[X]];
// CHECK: add.rn.f32 {{%r[0-9]+}}, [[SQ]], 0f3F800000;
// CHECK: ret;
kuiper.kernel @unary_f32 block [128, 1, 1] attributes {arg_names = ["x", "y", "n"]} {
^bb0(%x: !kuiper.buffer<f32, 1, in>, %y: !kuiper.buffer<f32, 1, out>, %n: i32):
  %c16 = arith.constant 16 : i32
  kuiper.shape %x [%n] : !kuiper.buffer<f32, 1, in>, i32
  kuiper.shape %y [%c16] : !kuiper.buffer<f32, 1, out>, i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c5 = arith.constant 5 : i32
  %c6 = arith.constant 6 : i32
  %c7 = arith.constant 7 : i32
  %c8 = arith.constant 8 : i32
  %c9 = arith.constant 9 : i32
  %c10 = arith.constant 10 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %tid = kuiper.thread_id 0 : i32
  %v = kuiper.load %x[%tid] : !kuiper.buffer<f32, 1, in>, i32 -> f32
  %s = math.sqrt %v : f32
  kuiper.store %s, %y[%c0] : f32, !kuiper.buffer<f32, 1, out>, i32
  %r = math.rsqrt %v : f32
  kuiper.store %r, %y[%c1] : f32, !kuiper.buffer<f32, 1, out>, i32
  %a = math.absf %v : f32
  kuiper.store %a, %y[%c2] : f32, !kuiper.buffer<f32, 1, out>, i32
  %f = math.floor %v : f32
  kuiper.store %f, %y[%c3] : f32, !kuiper.buffer<f32, 1, out>, i32
  %c = math.ceil %v : f32
  kuiper.store %c, %y[%c4] : f32, !kuiper.buffer<f32, 1, out>, i32
  %lo = arith.constant -1.0 : f32
  %hi = arith.constant 1.0 : f32
  %mx = arith.maxnumf %v, %lo : f32
  %mn = arith.minnumf %mx, %hi : f32
  kuiper.store %mn, %y[%c5] : f32, !kuiper.buffer<f32, 1, out>, i32
  %e = math.exp %v : f32
  kuiper.store %e, %y[%c6] : f32, !kuiper.buffer<f32, 1, out>, i32
  %l = math.log %v : f32
  kuiper.store %l, %y[%c7] : f32, !kuiper.buffer<f32, 1, out>, i32
  %t = math.tanh %v : f32
  kuiper.store %t, %y[%c8] : f32, !kuiper.buffer<f32, 1, out>, i32
  %er = math.erf %v : f32
  kuiper.store %er, %y[%c9] : f32, !kuiper.buffer<f32, 1, out>, i32
  %p = arith.mulf %v, %v : f32
  %q = arith.addf %p, %hi : f32
  kuiper.store %q, %y[%c10] : f32, !kuiper.buffer<f32, 1, out>, i32
}

// CHECK-LABEL: .visible .entry unary_f64(
// CHECK: sqrt.rn.f64
// CHECK: abs.f64
// CHECK: cvt.rmi.f64.f64
// CHECK: cvt.rpi.f64.f64
// CHECK: ret;
kuiper.kernel @unary_f64 block [128, 1, 1] attributes {arg_names = ["x", "y", "n"]} {
^bb0(%x: !kuiper.buffer<f64, 1, in>, %y: !kuiper.buffer<f64, 1, out>, %n: i32):
  %c16 = arith.constant 16 : i32
  kuiper.shape %x [%n] : !kuiper.buffer<f64, 1, in>, i32
  kuiper.shape %y [%c16] : !kuiper.buffer<f64, 1, out>, i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c5 = arith.constant 5 : i32
  %c6 = arith.constant 6 : i32
  %c7 = arith.constant 7 : i32
  %c8 = arith.constant 8 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %tid = kuiper.thread_id 0 : i32
  %v = kuiper.load %x[%tid] : !kuiper.buffer<f64, 1, in>, i32 -> f64
  %s = math.sqrt %v : f64
  kuiper.store %s, %y[%c0] : f64, !kuiper.buffer<f64, 1, out>, i32
  %a = math.absf %v : f64
  kuiper.store %a, %y[%c1] : f64, !kuiper.buffer<f64, 1, out>, i32
  %f = math.floor %v : f64
  kuiper.store %f, %y[%c2] : f64, !kuiper.buffer<f64, 1, out>, i32
  %c = math.ceil %v : f64
  kuiper.store %c, %y[%c3] : f64, !kuiper.buffer<f64, 1, out>, i32
  %e = math.exp %v : f64
  kuiper.store %e, %y[%c4] : f64, !kuiper.buffer<f64, 1, out>, i32
  %l = math.log %v : f64
  kuiper.store %l, %y[%c5] : f64, !kuiper.buffer<f64, 1, out>, i32
  %t = math.tanh %v : f64
  kuiper.store %t, %y[%c6] : f64, !kuiper.buffer<f64, 1, out>, i32
  %er = math.erf %v : f64
  kuiper.store %er, %y[%c7] : f64, !kuiper.buffer<f64, 1, out>, i32
  %r = math.rsqrt %v : f64
  kuiper.store %r, %y[%c8] : f64, !kuiper.buffer<f64, 1, out>, i32
}

// Half-precision math is computed in f32.
// CHECK-LABEL: .visible .entry half_exp(
// CHECK: cvt.f32.f16
// CHECK: cvt.rn.f16.f32
kuiper.kernel @half_exp block [32, 1, 1] attributes {arg_names = ["x"]} {
^bb0(%x: !kuiper.buffer<f16, 1, inout>):
  %c32 = arith.constant 32 : i32
  kuiper.shape %x [%c32] : !kuiper.buffer<f16, 1, inout>, i32
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %tid = kuiper.thread_id 0 : i32
  %v = kuiper.load %x[%tid] : !kuiper.buffer<f16, 1, inout>, i32 -> f16
  %e = math.exp %v : f16
  kuiper.store %e, %x[%tid] : f16, !kuiper.buffer<f16, 1, inout>, i32
}
