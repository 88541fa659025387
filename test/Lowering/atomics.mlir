// RUN: %kuiper-lower %s --arch sm_90 | FileCheck %s --enable-var-scope
// RUN: %kuiper-lower %s --arch sm_90 --emit llvm | FileCheck %s --check-prefix=LLVM --enable-var-scope
// RUN: %if ptxas %{ %kuiper-lower %s --arch sm_80 -o %t.sm80.ptx && %ptxas --gpu-name=sm_80 %t.sm80.ptx -o /dev/null %}
// RUN: %if ptxas %{ %kuiper-lower %s --arch sm_90 -o %t.sm90.ptx && %ptxas --gpu-name=sm_90 %t.sm90.ptx -o /dev/null %}

// Atomics are relaxed and return the old value: add/max/min are atomicrmw
// (signed for integers, fmax/fmin for floats), cas is cmpxchg.

// LLVM-LABEL: define ptx_kernel void @atomics(
// LLVM: atomicrmw fadd ptr addrspace(1) {{.*}} syncscope("device") monotonic
// LLVM: atomicrmw add ptr addrspace(1) {{.*}} syncscope("device") monotonic
// LLVM: atomicrmw max ptr addrspace(1) {{.*}} syncscope("device") monotonic
// LLVM: atomicrmw min ptr addrspace(1) {{.*}} syncscope("device") monotonic
// LLVM: cmpxchg ptr addrspace(1) {{.*}} syncscope("device") monotonic monotonic
// LLVM: atomicrmw fadd ptr addrspace(1) {{.*}} double {{.*}} syncscope("device") monotonic
// LLVM: cmpxchg ptr addrspace(1) {{.*}} i64 {{.*}} syncscope("device") monotonic monotonic

// CHECK-LABEL: .visible .entry atomics(
// CHECK: atom.global.add.f32
// CHECK: atom.global.add.u32
// CHECK: atom.global.max.s32
// CHECK: atom.global.min.s32
// CHECK: atom.{{(relaxed.gpu.)?}}global.cas.b32
// CHECK: atom.global.add.f64
// CHECK: atom.{{(relaxed.gpu.)?}}global.cas.b64
// CHECK: ret;
kuiper.kernel @atomics block [128, 1, 1] attributes {arg_names = ["f", "i", "d", "v", "w"]} {
^bb0(%f: !kuiper.buffer<f32, 1, inout>, %i: !kuiper.buffer<i32, 1, inout>, %d: !kuiper.buffer<f64, 1, inout>, %v: f32, %w: i32):
  %c4 = arith.constant 4 : i32
  kuiper.shape %f [%c4] : !kuiper.buffer<f32, 1, inout>, i32
  kuiper.shape %i [%c4] : !kuiper.buffer<i32, 1, inout>, i32
  kuiper.shape %d [%c4] : !kuiper.buffer<f64, 1, inout>, i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %a = kuiper.atomic add %f[%c0], %v : !kuiper.buffer<f32, 1, inout>, (i32), (f32) -> f32
  %b = kuiper.atomic add %i[%c0], %w : !kuiper.buffer<i32, 1, inout>, (i32), (i32) -> i32
  %c = kuiper.atomic max %i[%c1], %b : !kuiper.buffer<i32, 1, inout>, (i32), (i32) -> i32
  %e = kuiper.atomic min %i[%c2], %c : !kuiper.buffer<i32, 1, inout>, (i32), (i32) -> i32
  %g = kuiper.atomic cas %i[%c3], %c0, %e : !kuiper.buffer<i32, 1, inout>, (i32), (i32, i32) -> i32
  %ad = arith.extf %a : f32 to f64
  %h = kuiper.atomic add %d[%c0], %ad : !kuiper.buffer<f64, 1, inout>, (i32), (f64) -> f64
  %z = arith.constant 0.0 : f64
  %k = kuiper.atomic cas %d[%c1], %z, %h : !kuiper.buffer<f64, 1, inout>, (i32), (f64, f64) -> f64
  %gf = arith.sitofp %g : i32 to f32
  kuiper.store %gf, %f[%c1] : f32, !kuiper.buffer<f32, 1, inout>, i32
  kuiper.store %k, %d[%c2] : f64, !kuiper.buffer<f64, 1, inout>, i32
}

// PTX has no f32 atomic max: it becomes a compare-and-swap loop.
// Shared-memory atomics are block scoped.

// LLVM-LABEL: define ptx_kernel void @float_max(
// LLVM: syncscope("block")

// CHECK-LABEL: .visible .entry float_max(
// CHECK: atom.shared.add.f32
// CHECK: atom.{{(relaxed.gpu.)?}}global.cas.b32
kuiper.kernel @float_max block [32, 1, 1] attributes {arg_names = ["m", "v"]} {
^bb0(%m: !kuiper.buffer<f32, 1, inout>, %v: f32):
  %c1 = arith.constant 1 : i32
  kuiper.shape %m [%c1] : !kuiper.buffer<f32, 1, inout>, i32
  %c0 = arith.constant 0 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %s = kuiper.shared_alloc "acc" : !kuiper.shared<f32, [1]>
  %t = kuiper.atomic add %s[%c0], %v : !kuiper.shared<f32, [1]>, (i32), (f32) -> f32
  %o = kuiper.atomic max %m[%c0], %t : !kuiper.buffer<f32, 1, inout>, (i32), (f32) -> f32
}
