// RUN: %kuiper-lower %s --arch sm_90 | FileCheck %s --enable-var-scope
// RUN: %kuiper-lower %s --arch sm_90 --emit llvm | FileCheck %s --check-prefix=LLVM --enable-var-scope
// RUN: %if ptxas %{ %kuiper-lower %s --arch sm_80 -o %t.sm80.ptx && %ptxas --gpu-name=sm_80 %t.sm80.ptx -o /dev/null %}
// RUN: %if ptxas %{ %kuiper-lower %s --arch sm_90 -o %t.sm90.ptx && %ptxas --gpu-name=sm_90 %t.sm90.ptx -o /dev/null %}

// kuiper.for is a signed `i < hi` loop, kuiper.while tests before each
// iteration; their invariants, and every requires/ensures/assert/assume, are
// erased: the spec-only load of %x below leaves no trace.

// LLVM-LABEL: define ptx_kernel void @grid_stride(
// LLVM-NOT: load
// LLVM: icmp slt i32
// LLVM-NOT: load
// LLVM: store float
// LLVM-NOT: load
// LLVM: ret void

// CHECK-LABEL: .visible .entry grid_stride(
// CHECK-NOT: ld.global
// CHECK: [[LOOP:\$L__BB[0-9_]+]]:
// CHECK: st.global.b32
// CHECK: setp.lt.s32
// CHECK: bra{{(.uni)?}} [[LOOP]];
kuiper.kernel @grid_stride block [256, 1, 1] attributes {arg_names = ["x", "y", "n"]} {
^bb0(%x: !kuiper.buffer<f32, 1, in>, %y: !kuiper.buffer<f32, 1, out>, %n: i32):
  kuiper.shape %x [%n] : !kuiper.buffer<f32, 1, in>, i32
  kuiper.shape %y [%n] : !kuiper.buffer<f32, 1, out>, i32
  %c1 = arith.constant 1 : i32
  %c80 = arith.constant 80 : i32
  %c256 = arith.constant 256 : i32
  kuiper.launch grid(%c80, %c1, %c1) : i32, i32, i32
  kuiper.requires {
    %c0 = arith.constant 0 : i32
    %p = arith.cmpi sge, %n, %c0 : i32
    kuiper.yield %p : i1
  }
  kuiper.ensures {
    %c0 = arith.constant 0 : i32
    %q = kuiper.forall %c0, %n : i32 {
    ^bb0(%i: i32):
      %a = kuiper.load %y[%i] : !kuiper.buffer<f32, 1, out>, i32 -> f32
      %o = kuiper.old : f32 {
        %v = kuiper.load %x[%i] : !kuiper.buffer<f32, 1, in>, i32 -> f32
        kuiper.yield %v : f32
      }
      %e = arith.cmpf oeq, %a, %o : f32
      kuiper.yield %e : i1
    }
    kuiper.yield %q : i1
  }
  kuiper.access writes %y [%c1, %n] : !kuiper.buffer<f32, 1, out>, i32, i32
  %bid = kuiper.block_id 0 : i32
  %tid = kuiper.thread_id 0 : i32
  %gd = kuiper.grid_dim 0 : i32
  %m = arith.muli %bid, %c256 overflow<nsw> : i32
  %start = arith.addi %m, %tid overflow<nsw> : i32
  %stride = arith.muli %gd, %c256 overflow<nsw> : i32
  kuiper.for %start to %n step %stride : i32 invariants {
  ^bb0(%i: i32):
    %p = arith.cmpi sge, %i, %start : i32
    kuiper.invariant %p
    kuiper.yield
  } do {
  ^bb0(%i: i32):
    kuiper.assert assert {
      %v = kuiper.load %x[%i] : !kuiper.buffer<f32, 1, in>, i32 -> f32
      %p = arith.cmpf oeq, %v, %v : f32
      kuiper.yield %p : i1
    }
    kuiper.assume {
      %t = arith.constant true
      kuiper.yield %t : i1
    }
    %f = arith.sitofp %i : i32 to f32
    kuiper.store %f, %y[%i] : f32, !kuiper.buffer<f32, 1, out>, i32
    kuiper.yield
  }
}

// A while loop over a mutable local (memref.alloca), which mem2reg removes.

// LLVM-LABEL: define ptx_kernel void @halving(
// LLVM-NOT: alloca
// LLVM: ret void

// CHECK-LABEL: .visible .entry halving(
// CHECK: [[LOOP:\$L__BB[0-9_]+]]:
// CHECK: shr.{{[us]}}32
// CHECK: bra{{(.uni)?}} [[LOOP]];
// CHECK: st.global.b32
kuiper.kernel @halving block [32, 1, 1] attributes {arg_names = ["y", "n"]} {
^bb0(%y: !kuiper.buffer<i32, 1, out>, %n: i32):
  %c32 = arith.constant 32 : i32
  kuiper.shape %y [%c32] : !kuiper.buffer<i32, 1, out>, i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %k = memref.alloca() : memref<i32>
  %steps = memref.alloca() : memref<i32>
  memref.store %n, %k[] : memref<i32>
  memref.store %c0, %steps[] : memref<i32>
  kuiper.while cond {
    %v = memref.load %k[] : memref<i32>
    %p = arith.cmpi sgt, %v, %c1 : i32
    kuiper.yield %p : i1
  } invariants {
    %v = memref.load %k[] : memref<i32>
    %p = arith.cmpi sge, %v, %c0 : i32
    kuiper.invariant %p
    kuiper.yield
  } do {
    %v = memref.load %k[] : memref<i32>
    %h = arith.shrsi %v, %c1 : i32
    memref.store %h, %k[] : memref<i32>
    %s = memref.load %steps[] : memref<i32>
    %s1 = arith.addi %s, %c1 overflow<nsw> : i32
    memref.store %s1, %steps[] : memref<i32>
    kuiper.yield
  }
  %tid = kuiper.thread_id 0 : i32
  %r = memref.load %steps[] : memref<i32>
  kuiper.store %r, %y[%tid] : i32, !kuiper.buffer<i32, 1, out>, i32
}
