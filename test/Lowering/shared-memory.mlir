// RUN: %kuiper-lower %s --arch sm_90 | FileCheck %s --enable-var-scope
// RUN: %if ptxas %{ %kuiper-lower %s --arch sm_80 -o %t.sm80.ptx && %ptxas --gpu-name=sm_80 %t.sm80.ptx -o /dev/null %}
// RUN: %if ptxas %{ %kuiper-lower %s --arch sm_90 -o %t.sm90.ptx && %ptxas --gpu-name=sm_90 %t.sm90.ptx -o /dev/null %}

// Each kuiper.shared_alloc is one .shared array of its full shape; elements are
// indexed row-major with the constant dims. Barrier contracts are erased, the
// barrier stays.

// CHECK-LABEL: .visible .entry tile_transpose(
// CHECK: .reqntid 32, 32, 1
// CHECK: .shared .align 16 .b8 __kuiper_shared_tile_transpose_tile[4224];
// CHECK: ld.global.nc.b32
// CHECK: st.shared.b32
// CHECK: bar.sync 0;
// CHECK: ld.shared.b32
// CHECK: st.global.b32
kuiper.kernel @tile_transpose block [32, 32, 1] attributes {arg_names = ["a", "b", "n"]} {
^bb0(%a: !kuiper.buffer<f32, 2, in>, %b: !kuiper.buffer<f32, 2, out>, %n: i32):
  kuiper.shape %a [%n, %n] : !kuiper.buffer<f32, 2, in>, i32, i32
  kuiper.shape %b [%n, %n] : !kuiper.buffer<f32, 2, out>, i32, i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %g = arith.divsi %n, %c32 : i32
  kuiper.launch grid(%g, %g, %c1) : i32, i32, i32
  kuiper.requires {
    %c0 = arith.constant 0 : i32
    %r = arith.remsi %n, %c32 : i32
    %p = arith.cmpi eq, %r, %c0 : i32
    kuiper.yield %p : i1
  }
  %tile = kuiper.shared_alloc "tile" : !kuiper.shared<f32, [32, 33]>
  %tx = kuiper.thread_id 0 : i32
  %ty = kuiper.thread_id 1 : i32
  %bx = kuiper.block_id 0 : i32
  %by = kuiper.block_id 1 : i32
  %x0 = arith.muli %bx, %c32 overflow<nsw> : i32
  %y0 = arith.muli %by, %c32 overflow<nsw> : i32
  %x = arith.addi %x0, %tx overflow<nsw> : i32
  %y = arith.addi %y0, %ty overflow<nsw> : i32
  %v = kuiper.load %a[%y, %x] : !kuiper.buffer<f32, 2, in>, i32, i32 -> f32
  kuiper.store %v, %tile[%ty, %tx] : f32, !kuiper.shared<f32, [32, 33]>, i32, i32
  kuiper.barrier {
    %t = arith.constant true
    kuiper.yield %t : i1
  }
  %w = kuiper.load %tile[%tx, %ty] : !kuiper.shared<f32, [32, 33]>, i32, i32 -> f32
  %ox = arith.addi %y0, %tx overflow<nsw> : i32
  %oy = arith.addi %x0, %ty overflow<nsw> : i32
  kuiper.store %w, %b[%oy, %ox] : f32, !kuiper.buffer<f32, 2, out>, i32, i32
}

// A rank-1 i32 array updated by a shared-memory atomic inside a loop.
// CHECK-LABEL: .visible .entry hist(
// CHECK: .shared .align 16 .b8 __kuiper_shared_hist_bins[1024];
// CHECK: st.shared.b32
// CHECK: bar.sync 0;
// CHECK: atom.shared{{.*}}.add.u32
// CHECK: bar.sync 0;
// CHECK: ld.shared.b32
// CHECK: atom.global.add.u32
kuiper.kernel @hist block [256, 1, 1] attributes {arg_names = ["x", "h", "n"]} {
^bb0(%x: !kuiper.buffer<i32, 1, in>, %h: !kuiper.buffer<i32, 1, inout>, %n: i32):
  kuiper.shape %x [%n] : !kuiper.buffer<i32, 1, in>, i32
  %c256 = arith.constant 256 : i32
  kuiper.shape %h [%c256] : !kuiper.buffer<i32, 1, inout>, i32
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  %c255 = arith.constant 255 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %bins = kuiper.shared_alloc "bins" : !kuiper.shared<i32, [256]>
  %tid = kuiper.thread_id 0 : i32
  kuiper.store %c0, %bins[%tid] : i32, !kuiper.shared<i32, [256]>, i32
  kuiper.barrier
  kuiper.for %tid to %n step %c256 : i32 invariants {
  ^bb0(%i: i32):
    kuiper.yield
  } do {
  ^bb0(%i: i32):
    %v = kuiper.load %x[%i] : !kuiper.buffer<i32, 1, in>, i32 -> i32
    %k = arith.andi %v, %c255 : i32
    %old = kuiper.atomic add %bins[%k], %c1 : !kuiper.shared<i32, [256]>, (i32), (i32) -> i32
    kuiper.yield
  }
  kuiper.barrier
  %cnt = kuiper.load %bins[%tid] : !kuiper.shared<i32, [256]>, i32 -> i32
  %o = kuiper.atomic add %h[%tid], %cnt : !kuiper.buffer<i32, 1, inout>, (i32), (i32) -> i32
}
