// RUN: %kuiper-lower %s --arch sm_90 | FileCheck %s --enable-var-scope
// RUN: %if ptxas %{ %kuiper-lower %s --arch sm_80 -o %t.sm80.ptx && %ptxas --gpu-name=sm_80 %t.sm80.ptx -o /dev/null %}
// RUN: %if ptxas %{ %kuiper-lower %s --arch sm_90 -o %t.sm90.ptx && %ptxas --gpu-name=sm_90 %t.sm90.ptx -o /dev/null %}

// Shuffles use the full mask -1 unless given one, and CUDA's clamp values:
// 31 for down/xor/idx, 0 for up. 64-bit values move as two 32-bit halves.

// CHECK-LABEL: .visible .entry shuffles(
// CHECK: shfl.sync.down.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 16, 31, -1;
// CHECK: shfl.sync.up.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 1, 0, -1;
// CHECK: shfl.sync.bfly.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 8, 31, -1;
// CHECK: shfl.sync.idx.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0, 31, 65535;
// CHECK: shfl.sync.down.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 4, 31, -1;
// CHECK: shfl.sync.down.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 4, 31, -1;
// CHECK: st.global.b64
kuiper.kernel @shuffles block [256, 1, 1] attributes {arg_names = ["x", "y", "z"]} {
^bb0(%x: !kuiper.buffer<f32, 1, inout>, %y: !kuiper.buffer<i32, 1, inout>, %z: !kuiper.buffer<f64, 1, inout>):
  %c256 = arith.constant 256 : i32
  kuiper.shape %x [%c256] : !kuiper.buffer<f32, 1, inout>, i32
  kuiper.shape %y [%c256] : !kuiper.buffer<i32, 1, inout>, i32
  kuiper.shape %z [%c256] : !kuiper.buffer<f64, 1, inout>, i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %half = arith.constant 65535 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %tid = kuiper.thread_id 0 : i32
  %v = kuiper.load %x[%tid] : !kuiper.buffer<f32, 1, inout>, i32 -> f32
  %a = kuiper.shfl down %v, %c16 : f32
  %b = kuiper.shfl up %a, %c1 : f32
  kuiper.store %b, %x[%tid] : f32, !kuiper.buffer<f32, 1, inout>, i32
  %w = kuiper.load %y[%tid] : !kuiper.buffer<i32, 1, inout>, i32 -> i32
  %c = kuiper.shfl xor %w, %c8 : i32
  %d = kuiper.shfl idx %c, %c0 mask %half : i32 : i32
  kuiper.store %d, %y[%tid] : i32, !kuiper.buffer<i32, 1, inout>, i32
  %u = kuiper.load %z[%tid] : !kuiper.buffer<f64, 1, inout>, i32 -> f64
  %e = kuiper.shfl down %u, %c4 : f64
  kuiper.store %e, %z[%tid] : f64, !kuiper.buffer<f64, 1, inout>, i32
}

// Votes and warp barriers; laneid/warpid come from the linear thread index
// x + y * 64 of a 64 x 4 block, not from %laneid.

// CHECK-LABEL: .visible .entry votes(
// CHECK: .reqntid 64, 4, 1
// CHECK-NOT: %laneid
// CHECK-DAG: mov.u32 {{%r[0-9]+}}, %tid.x;
// CHECK-DAG: mov.u32 {{%r[0-9]+}}, %tid.y;
// CHECK: and.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 31;
// CHECK: shr.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, 5;
// CHECK: vote.sync.ballot.b32 {{%r[0-9]+}}, {{%p[0-9]+}}, -1;
// CHECK: vote.sync.any.pred {{%p[0-9]+}}, {{%p[0-9]+}}, -1;
// CHECK: vote.sync.all.pred {{%p[0-9]+}}, {{%p[0-9]+}}, 15;
// CHECK: bar.warp.sync -1;
// CHECK: bar.warp.sync 3;
// CHECK-NOT: %laneid
// CHECK: ret;
kuiper.kernel @votes block [64, 4, 1] attributes {arg_names = ["x", "lanes", "warps"]} {
^bb0(%x: !kuiper.buffer<i32, 1, inout>, %lanes: !kuiper.buffer<i32, 1, out>, %warps: !kuiper.buffer<i32, 1, out>):
  %c256 = arith.constant 256 : i32
  kuiper.shape %x [%c256] : !kuiper.buffer<i32, 1, inout>, i32
  kuiper.shape %lanes [%c256] : !kuiper.buffer<i32, 1, out>, i32
  kuiper.shape %warps [%c256] : !kuiper.buffer<i32, 1, out>, i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c15 = arith.constant 15 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %tx = kuiper.thread_id 0 : i32
  %ty = kuiper.thread_id 1 : i32
  %row = arith.muli %ty, %c64 overflow<nsw> : i32
  %lin = arith.addi %row, %tx overflow<nsw> : i32
  %lane = kuiper.lane_id : i32
  %warp = kuiper.warp_id : i32
  kuiper.store %lane, %lanes[%lin] : i32, !kuiper.buffer<i32, 1, out>, i32
  kuiper.store %warp, %warps[%lin] : i32, !kuiper.buffer<i32, 1, out>, i32
  %v = kuiper.load %x[%lin] : !kuiper.buffer<i32, 1, inout>, i32 -> i32
  %p = arith.cmpi sgt, %v, %c0 : i32
  %bal = kuiper.vote ballot %p : i32
  %any = kuiper.vote any %p : i1
  %all = kuiper.vote all %any mask %c15 : i32 : i1
  kuiper.syncwarp
  kuiper.syncwarp mask %c3 : i32
  %anyi = arith.extui %any : i1 to i32
  %alli = arith.extui %all : i1 to i32
  %s1 = arith.addi %bal, %anyi : i32
  %s2 = arith.addi %s1, %alli : i32
  kuiper.store %s2, %x[%lin] : i32, !kuiper.buffer<i32, 1, inout>, i32
}
