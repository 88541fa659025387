// RUN: kuiper-opt %s --kuiper-erase-specs --convert-kuiper-to-llvm | FileCheck %s --enable-var-scope

// Thread ids carry the range [0, block size) of their dimension. Lane and warp
// ids are defined on the linear thread id x + y * bx + z * bx * by (a
// dimension of size 1 adds nothing).

// CHECK-LABEL: llvm.func @ids(
// CHECK: nvvm.read.ptx.sreg.tid.z range <i32, 0, 2> : i32
// CHECK: nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK: nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK: %[[X:.*]] = nvvm.read.ptx.sreg.tid.x range <i32, 0, 64> : i32
// CHECK: %[[C64:.*]] = arith.constant 64 : i32
// CHECK: %[[Z:.*]] = nvvm.read.ptx.sreg.tid.z range <i32, 0, 2> : i32
// CHECK: %[[ZS:.*]] = arith.muli %[[Z]], %[[C64]] overflow<nsw, nuw> : i32
// CHECK: %[[LINEAR:.*]] = arith.addi %[[X]], %[[ZS]] overflow<nsw, nuw> : i32
// CHECK: %[[C31:.*]] = arith.constant 31 : i32
// CHECK: arith.andi %[[LINEAR]], %[[C31]] : i32
// CHECK: %[[C5:.*]] = arith.constant 5 : i32
// CHECK: arith.shrui %{{.*}}, %[[C5]] : i32
kuiper.kernel @ids block [64, 1, 2] attributes {arg_names = ["out"]} {
^bb0(%out: !kuiper.buffer<i32, 1, out>):
  %c8 = arith.constant 8 : i32
  kuiper.shape %out [%c8] : !kuiper.buffer<i32, 1, out>, i32
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %c0 = arith.constant 0 : i32
  %tz = kuiper.thread_id 2 : i32
  %by = kuiper.block_id 1 : i32
  %gx = kuiper.grid_dim 0 : i32
  %lane = kuiper.lane_id : i32
  %warp = kuiper.warp_id : i32
  kuiper.store %tz, %out[%c0] : i32, !kuiper.buffer<i32, 1, out>, i32
  kuiper.store %by, %out[%c1] : i32, !kuiper.buffer<i32, 1, out>, i32
  kuiper.store %gx, %out[%c1] : i32, !kuiper.buffer<i32, 1, out>, i32
  kuiper.store %lane, %out[%c1] : i32, !kuiper.buffer<i32, 1, out>, i32
  kuiper.store %warp, %out[%c1] : i32, !kuiper.buffer<i32, 1, out>, i32
  kuiper.return
}
