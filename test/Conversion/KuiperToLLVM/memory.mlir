// RUN: kuiper-opt %s --kuiper-erase-specs --convert-kuiper-to-llvm | FileCheck %s --enable-var-scope

// Elements are addressed row-major with an i64 linear index: buffers scale by
// the dims of their kuiper.shape (sign-extended once, before the shape), shared
// arrays by the constant dims of their type.

// CHECK-LABEL: llvm.mlir.global internal @__kuiper_shared_tiles_tile()
// CHECK-SAME: {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<8 x array<33 x f32>>

// CHECK-LABEL: llvm.func @tiles(
// CHECK-SAME: %[[A:.*]]: !llvm.ptr<1> {{.*}}, %[[ROWS:.*]]: i32, %[[COLS:.*]]: i32)
// CHECK: %[[COLS64:.*]] = arith.extsi %[[COLS]] : i32 to i64
// CHECK: %[[TILE:.*]] = llvm.mlir.addressof @__kuiper_shared_tiles_tile : !llvm.ptr<3>
// CHECK: %[[R:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: %[[SCALED:.*]] = arith.muli %[[R]], %[[COLS64]] overflow<nsw> : i64
// CHECK: %[[LINEAR:.*]] = arith.addi %[[SCALED]], %{{.*}} overflow<nsw> : i64
// CHECK: %[[GPTR:.*]] = llvm.getelementptr inbounds %[[A]][%[[LINEAR]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: %[[V:.*]] = llvm.load %[[GPTR]] : !llvm.ptr<1> -> f32
// CHECK: %[[C33:.*]] = arith.constant 33 : i64
// CHECK: arith.muli %{{.*}}, %[[C33]] overflow<nsw> : i64
// CHECK: %[[SPTR:.*]] = llvm.getelementptr inbounds %[[TILE]][%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
// CHECK: llvm.store %[[V]], %[[SPTR]] : f32, !llvm.ptr<3>
kuiper.kernel @tiles block [32, 8, 1] attributes {arg_names = ["a", "rows", "cols"]} {
^bb0(%a: !kuiper.buffer<f32, 2, in>, %rows: i32, %cols: i32):
  kuiper.shape %a [%rows, %cols] : !kuiper.buffer<f32, 2, in>, i32, i32
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %tile = kuiper.shared_alloc "tile" : !kuiper.shared<f32, [8, 33]>
  %x = kuiper.thread_id 0 : i32
  %y = kuiper.thread_id 1 : i32
  %v = kuiper.load %a[%y, %x] : !kuiper.buffer<f32, 2, in>, i32, i32 -> f32
  kuiper.store %v, %tile[%y, %x] : f32, !kuiper.shared<f32, [8, 33]>, i32, i32
  kuiper.return
}

// Atomics are relaxed (monotonic) and return the old value: add/max/min are
// atomicrmw (signed for integers), cas is cmpxchg on the bits of a float.
// Buffers synchronize at device scope, shared arrays at block scope.

// CHECK-LABEL: llvm.func @atomics(
// CHECK: llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, f32
// CHECK: llvm.atomicrmw max %{{.*}}, %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, i32
// CHECK: llvm.atomicrmw min %{{.*}}, %{{.*}} syncscope("block") monotonic : !llvm.ptr<3>, i32
// CHECK: %[[CMP:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: %[[NEW:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: %[[PAIR:.*]] = llvm.cmpxchg %{{.*}}, %[[CMP]], %[[NEW]] syncscope("device") monotonic monotonic : !llvm.ptr<1>, i32
// CHECK: %[[OLD:.*]] = llvm.extractvalue %[[PAIR]][0] : !llvm.struct<(i32, i1)>
// CHECK: arith.bitcast %[[OLD]] : i32 to f32
kuiper.kernel @atomics block [64, 1, 1] attributes {arg_names = ["f", "i"]} {
^bb0(%f: !kuiper.buffer<f32, 1, inout>, %i: !kuiper.buffer<i32, 1, inout>):
  %c64 = arith.constant 64 : i32
  kuiper.shape %f [%c64] : !kuiper.buffer<f32, 1, inout>, i32
  kuiper.shape %i [%c64] : !kuiper.buffer<i32, 1, inout>, i32
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %s = kuiper.shared_alloc "counts" : !kuiper.shared<i32, [64]>
  %t = kuiper.thread_id 0 : i32
  %one = arith.constant 1.0 : f32
  %a0 = kuiper.atomic add %f[%t], %one : !kuiper.buffer<f32, 1, inout>, (i32), (f32) -> f32
  %a1 = kuiper.atomic max %i[%t], %t : !kuiper.buffer<i32, 1, inout>, (i32), (i32) -> i32
  %a2 = kuiper.atomic min %s[%t], %t : !kuiper.shared<i32, [64]>, (i32), (i32) -> i32
  %a3 = kuiper.atomic cas %f[%t], %one, %a0 : !kuiper.buffer<f32, 1, inout>, (i32), (f32, f32) -> f32
  kuiper.return
}

// Two shared arrays of the same name in one kernel get distinct globals.

// CHECK-LABEL: llvm.func @same_names()
// CHECK-DAG: llvm.mlir.addressof @__kuiper_shared_same_names_buf :
// CHECK-DAG: llvm.mlir.addressof @__kuiper_shared_same_names_buf_1 :
kuiper.kernel @same_names block [32, 1, 1] attributes {arg_names = []} {
^bb0:
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %s0 = kuiper.shared_alloc "buf" : !kuiper.shared<f32, [32]>
  %s1 = kuiper.shared_alloc "buf" : !kuiper.shared<f32, [32]>
  kuiper.return
}
