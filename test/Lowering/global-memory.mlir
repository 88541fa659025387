// RUN: %kuiper-lower %s --arch sm_90 | FileCheck %s --enable-var-scope
// RUN: %kuiper-lower %s --arch sm_90 --emit llvm | FileCheck %s --check-prefix=LLVM --enable-var-scope
// RUN: %if ptxas %{ %kuiper-lower %s --arch sm_80 -o %t.sm80.ptx && %ptxas --gpu-name=sm_80 %t.sm80.ptx -o /dev/null %}
// RUN: %if ptxas %{ %kuiper-lower %s --arch sm_90 -o %t.sm90.ptx && %ptxas --gpu-name=sm_90 %t.sm90.ptx -o /dev/null %}

// Buffer elements are addressed row-major with an i64 linear index.

// CHECK-LABEL: .visible .entry copy(
// CHECK: .reqntid 256, 1, 1
// CHECK: mov.u32 %{{r[0-9]+}}, %ctaid.x;
// CHECK: mov.u32 %{{r[0-9]+}}, %tid.x;
// CHECK: ld.global.nc.b32
// CHECK: st.global.b32
// CHECK: ret;
kuiper.kernel @copy block [256, 1, 1] attributes {arg_names = ["x", "y", "n"]} {
^bb0(%x: !kuiper.buffer<f32, 1, in>, %y: !kuiper.buffer<f32, 1, out>, %n: i32):
  kuiper.shape %x [%n] : !kuiper.buffer<f32, 1, in>, i32
  kuiper.shape %y [%n] : !kuiper.buffer<f32, 1, out>, i32
  %c1 = arith.constant 1 : i32
  %c256 = arith.constant 256 : i32
  %c255 = arith.constant 255 : i32
  %t = arith.addi %n, %c255 overflow<nsw> : i32
  %g = arith.divsi %t, %c256 : i32
  kuiper.launch grid(%g, %c1, %c1) : i32, i32, i32
  kuiper.access writes %y [%c1, %n] : !kuiper.buffer<f32, 1, out>, i32, i32
  %bid = kuiper.block_id 0 : i32
  %tid = kuiper.thread_id 0 : i32
  %m = arith.muli %bid, %c256 overflow<nsw> : i32
  %i = arith.addi %m, %tid overflow<nsw> : i32
  %cond = arith.cmpi slt, %i, %n : i32
  scf.if %cond {
    %v = kuiper.load %x[%i] : !kuiper.buffer<f32, 1, in>, i32 -> f32
    kuiper.store %v, %y[%i] : f32, !kuiper.buffer<f32, 1, out>, i32
  }
}

// A rank-2 element (r, c) of a rows x cols buffer is at r * cols + c.

// CHECK-LABEL: .visible .entry transpose2d(
// CHECK: .reqntid 16, 16, 1
// CHECK-DAG: mov.u32 %{{r[0-9]+}}, %tid.y;
// CHECK-DAG: mov.u32 %{{r[0-9]+}}, %ctaid.y;
// CHECK: ld.global.nc.b32
// CHECK: st.global.b32

// LLVM-LABEL: define ptx_kernel void @transpose2d(
// LLVM-SAME: ptr addrspace(1) noalias noundef readonly captures(none) %[[A:[0-9]+]], ptr addrspace(1) noalias noundef writeonly captures(none) %[[B:[0-9]+]], i32 %[[ROWS:[0-9]+]], i32 %[[COLS:[0-9]+]])
// LLVM-DAG: %[[COLS64:[0-9]+]] = {{[sz]ext( nneg)?}} i32 %[[COLS]] to i64
// LLVM-DAG: %[[ROWS64:[0-9]+]] = {{[sz]ext( nneg)?}} i32 %[[ROWS]] to i64
// LLVM-DAG: mul {{.*}}i64 {{.*}}%[[COLS64]]
// LLVM-DAG: mul {{.*}}i64 {{.*}}%[[ROWS64]]
// LLVM-DAG: getelementptr {{.*}}float, ptr addrspace(1) %[[A]]
// LLVM-DAG: getelementptr {{.*}}float, ptr addrspace(1) %[[B]]
kuiper.kernel @transpose2d block [16, 16, 1] attributes {arg_names = ["a", "b", "rows", "cols"]} {
^bb0(%a: !kuiper.buffer<f32, 2, in>, %b: !kuiper.buffer<f32, 2, out>, %rows: i32, %cols: i32):
  kuiper.shape %a [%rows, %cols] : !kuiper.buffer<f32, 2, in>, i32, i32
  kuiper.shape %b [%cols, %rows] : !kuiper.buffer<f32, 2, out>, i32, i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  kuiper.launch grid(%cols, %rows, %c1) : i32, i32, i32
  %tx = kuiper.thread_id 0 : i32
  %ty = kuiper.thread_id 1 : i32
  %bx = kuiper.block_id 0 : i32
  %by = kuiper.block_id 1 : i32
  %cx = arith.muli %bx, %c16 overflow<nsw> : i32
  %c = arith.addi %cx, %tx overflow<nsw> : i32
  %ry = arith.muli %by, %c16 overflow<nsw> : i32
  %r = arith.addi %ry, %ty overflow<nsw> : i32
  %inr = arith.cmpi slt, %r, %rows : i32
  %inc = arith.cmpi slt, %c, %cols : i32
  %in = arith.andi %inr, %inc : i1
  scf.if %in {
    %v = kuiper.load %a[%r, %c] : !kuiper.buffer<f32, 2, in>, i32, i32 -> f32
    kuiper.store %v, %b[%c, %r] : f32, !kuiper.buffer<f32, 2, out>, i32, i32
  }
}
