// RUN: kuiper-opt %s --kuiper-erase-specs --convert-kuiper-to-llvm | FileCheck %s --enable-var-scope

// A kernel becomes an llvm.func with its parameters in source order: buffers
// as noalias noundef global pointers (readonly for "in"), scalars by value and
// a bool as one byte compared with zero. kuiper.shape and kuiper.launch leave
// only the i64 dims the accesses use; the block size becomes nvvm.reqntid.

// CHECK-LABEL: llvm.func @abi(
// CHECK-SAME: %[[X:.*]]: !llvm.ptr<1> {llvm.noalias, llvm.noundef, llvm.readonly},
// CHECK-SAME: %[[Y:.*]]: !llvm.ptr<1> {llvm.noalias, llvm.noundef},
// CHECK-SAME: %[[N:.*]]: i32, %[[FLAG:.*]]: i8)
// CHECK-SAME: attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>}
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK-DAG: %[[IS_SET:.*]] = arith.cmpi ne, %[[FLAG]], %[[ZERO]] : i8
// CHECK: %[[DIM:.*]] = arith.extsi %[[N]] : i32 to i64
// CHECK-NOT: kuiper.
// CHECK: scf.if %[[IS_SET]]
// CHECK: llvm.getelementptr inbounds %[[X]]
// CHECK: llvm.getelementptr inbounds %[[Y]]
// CHECK: llvm.return
kuiper.kernel @abi block [128, 1, 1] attributes {arg_names = ["x", "y", "n", "flag"]} {
^bb0(%x: !kuiper.buffer<f32, 1, in>, %y: !kuiper.buffer<f32, 1, out>, %n: i32, %flag: i1):
  kuiper.shape %x [%n] : !kuiper.buffer<f32, 1, in>, i32
  kuiper.shape %y [%n] : !kuiper.buffer<f32, 1, out>, i32
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %t = kuiper.thread_id 0 : i32
  scf.if %flag {
    %v = kuiper.load %x[%t] : !kuiper.buffer<f32, 1, in>, i32 -> f32
    kuiper.store %v, %y[%t] : f32, !kuiper.buffer<f32, 1, out>, i32
  }
  kuiper.return
}

// Every kernel of a module is converted, each with its own block size.

// CHECK-LABEL: llvm.func @second()
// CHECK-SAME: nvvm.reqntid = array<i32: 16, 16, 1>
// CHECK: nvvm.read.ptx.sreg.tid.y range <i32, 0, 16>
kuiper.kernel @second block [16, 16, 1] attributes {arg_names = []} {
^bb0:
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %t = kuiper.thread_id 1 : i32
  kuiper.return
}
