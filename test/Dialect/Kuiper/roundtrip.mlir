// RUN: kuiper-opt %s | kuiper-opt | FileCheck %s --enable-var-scope

// CHECK-LABEL: kuiper.kernel @elu_fwd
kuiper.kernel @elu_fwd block [256, 1, 1] attributes {arg_names = ["x", "y", "n", "alpha"]} {
^bb0(%x: !kuiper.buffer<f32, 1, in>, %y: !kuiper.buffer<f32, 1, out>, %n: i32, %alpha: f32):
  // CHECK: kuiper.shape %{{.*}}[%{{.*}}] : <f32, 1, in>, i32
  kuiper.shape %x [%n] : !kuiper.buffer<f32, 1, in>, i32
  kuiper.shape %y [%n] : !kuiper.buffer<f32, 1, out>, i32
  %c1 = arith.constant 1 : i32
  %c256 = arith.constant 256 : i32
  %c255 = arith.constant 255 : i32
  %t = arith.addi %n, %c255 overflow<nsw> : i32
  %g = arith.divsi %t, %c256 : i32
  // CHECK: kuiper.launch grid(
  kuiper.launch grid(%g, %c1, %c1) : i32, i32, i32
  // CHECK: kuiper.requires
  kuiper.requires {
    %c0 = arith.constant 0 : i32
    %p = arith.cmpi sge, %n, %c0 : i32
    kuiper.yield %p : i1
  }
  // CHECK: kuiper.ensures approx
  kuiper.ensures approx {
    %c0 = arith.constant 0 : i32
    // CHECK: kuiper.forall
    %q = kuiper.forall %c0, %n : i32 {
    ^bb0(%i: i32):
      %a = kuiper.load %y[%i] : !kuiper.buffer<f32, 1, out>, i32 -> f32
      %b = kuiper.load %x[%i] : !kuiper.buffer<f32, 1, in>, i32 -> f32
      %o = kuiper.old : f32 {
        %v = kuiper.load %x[%i] : !kuiper.buffer<f32, 1, in>, i32 -> f32
        kuiper.yield %v : f32
      }
      %s = kuiper.sum %c0, %n, %c1 : i32 {
      ^bb0(%j: i32):
        %w = kuiper.load %x[%j] : !kuiper.buffer<f32, 1, in>, i32 -> f32
        kuiper.yield %w : f32
      } -> f32
      // CHECK: kuiper.reduce max
      %mx = kuiper.reduce max %c0, %n, %c1 : i32 {
      ^bb0(%j: i32):
        %w = kuiper.load %x[%j] : !kuiper.buffer<f32, 1, in>, i32 -> f32
        kuiper.yield %w : f32
      } -> f32
      // CHECK: kuiper.reduce argmax
      %am = kuiper.reduce argmax %c0, %n, %c1 : i32 {
      ^bb0(%j: i32):
        %w = kuiper.load %x[%j] : !kuiper.buffer<f32, 1, in>, i32 -> f32
        kuiper.yield %w : f32
      } -> i32
      %e = arith.cmpf oeq, %a, %b : f32
      kuiper.yield %e : i1
    }
    kuiper.yield %q : i1
  }
  kuiper.access writes %y [%c1, %n] : !kuiper.buffer<f32, 1, out>, i32, i32
  %bid = kuiper.block_id 0 : i32
  %tid = kuiper.thread_id 0 : i32
  %lane = kuiper.lane_id : i32
  %m = arith.muli %bid, %c256 overflow<nsw> : i32
  %i = arith.addi %m, %tid overflow<nsw> : i32
  %s = kuiper.shared_alloc "tile" : !kuiper.shared<f32, [32, 33]>
  %acc = memref.alloca() : memref<f32>
  %cond = arith.cmpi slt, %i, %n : i32
  scf.if %cond {
    %v = kuiper.load %x[%i] : !kuiper.buffer<f32, 1, in>, i32 -> f32
    %e = math.exp %v : f32
    kuiper.store %e, %y[%i] : f32, !kuiper.buffer<f32, 1, out>, i32
    kuiper.store %e, %s[%tid, %tid] : f32, !kuiper.shared<f32, [32, 33]>, i32, i32
    // CHECK: kuiper.shfl down
    %sh = kuiper.shfl down %e, %c1 : f32
    %sh2 = kuiper.shfl xor %e, %c1 mask %c255 : i32 : f32
    %bal = kuiper.vote ballot %cond : i32
    kuiper.syncwarp
    %old = kuiper.atomic add %y[%i], %e : !kuiper.buffer<f32, 1, out>, (i32), (f32) -> f32
    memref.store %e, %acc[] : memref<f32>
  }
  // CHECK: kuiper.barrier
  kuiper.barrier
  kuiper.barrier approx {
    %t1 = arith.constant true
    kuiper.yield %t1 : i1
  }
  kuiper.for %c1 to %n step %c1 : i32 invariants {
  ^bb0(%k: i32):
    %p = arith.cmpi sge, %k, %c1 : i32
    kuiper.invariant %p
    kuiper.yield
  } do {
  ^bb0(%k: i32):
    kuiper.assert assert {
      %p = arith.cmpi sge, %k, %c1 : i32
      kuiper.yield %p : i1
    }
    kuiper.yield
  }
}
