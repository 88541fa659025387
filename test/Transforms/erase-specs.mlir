// RUN: kuiper-opt %s --kuiper-erase-specs | FileCheck %s --enable-var-scope

// Contracts, invariants, quantifiers and the values only they use go; the
// kuiper loops become scf loops (kuiper.for compares signed, as scf.for on
// i32 does); kuiper.shape and kuiper.launch stay for the conversion.

// CHECK-LABEL: kuiper.kernel @loops
// CHECK-NOT: kuiper.requires
// CHECK-NOT: kuiper.ensures
// CHECK: kuiper.shape
// CHECK: kuiper.launch
// CHECK-NOT: kuiper.access
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NOT: kuiper.invariant
// CHECK-NOT: kuiper.assert
// CHECK: kuiper.store %{{.*}}, %{{.*}}[%[[I]]]
// CHECK: scf.while : () -> () {
// CHECK: scf.condition(%{{.*}})
// CHECK: } do {
// CHECK: kuiper.barrier
// CHECK-NEXT: scf.yield
kuiper.kernel @loops block [32, 1, 1] attributes {arg_names = ["y", "n"]} {
^bb0(%y: !kuiper.buffer<f32, 1, out>, %n: i32):
  kuiper.shape %y [%n] : !kuiper.buffer<f32, 1, out>, i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  kuiper.requires {
    %p = arith.cmpi sge, %n, %c0 : i32
    kuiper.yield %p : i1
  }
  kuiper.ensures {
    %q = kuiper.forall %c0, %n : i32 {
    ^bb0(%i: i32):
      %a = kuiper.load %y[%i] : !kuiper.buffer<f32, 1, out>, i32 -> f32
      %e = arith.cmpf oeq, %a, %a : f32
      kuiper.yield %e : i1
    }
    kuiper.yield %q : i1
  }
  kuiper.access writes %y [%c1, %n] : !kuiper.buffer<f32, 1, out>, i32, i32
  kuiper.for %c0 to %n step %c1 : i32 invariants {
  ^bb0(%i: i32):
    %p = arith.cmpi sge, %i, %c0 : i32
    kuiper.invariant %p
    kuiper.yield
  } do {
  ^bb0(%i: i32):
    kuiper.assert assert {
      %t = arith.constant true
      kuiper.yield %t : i1
    }
    %f = arith.sitofp %i : i32 to f32
    kuiper.store %f, %y[%i] : f32, !kuiper.buffer<f32, 1, out>, i32
    kuiper.yield
  }
  kuiper.while cond {
    %p = arith.cmpi slt, %c0, %n : i32
    kuiper.yield %p : i1
  } invariants {
    %t = arith.constant true
    kuiper.invariant %t
    kuiper.yield
  } do {
    kuiper.barrier
    kuiper.yield
  }
  kuiper.return
}
