// kuiperc --emit mlir of test/Corpus/kp/good/elu.kp
module {
  kuiper.kernel @elu_fwd block [256, 1, 1] attributes {arg_names = ["x", "y", "n", "alpha"]} {
  ^bb0(%arg0: !kuiper.buffer<f32, 1, in>, %arg1: !kuiper.buffer<f32, 1, out>, %arg2: i32, %arg3: f32):
    %alloca = memref.alloca() : memref<f32>
    %alloca_0 = memref.alloca() : memref<f32>
    kuiper.shape %arg0[%arg2] : <f32, 1, in>, i32
    kuiper.shape %arg1[%arg2] : <f32, 1, out>, i32
    %c256_i32 = arith.constant 256 : i32
    %0 = arith.divsi %arg2, %c256_i32 : i32
    %1 = arith.remsi %arg2, %c256_i32 : i32
    %c0_i32 = arith.constant 0 : i32
    %2 = arith.cmpi sgt, %1, %c0_i32 : i32
    %3 = arith.extui %2 : i1 to i32
    %4 = arith.addi %0, %3 overflow<nsw> : i32
    %c1_i32 = arith.constant 1 : i32
    %c1_i32_1 = arith.constant 1 : i32
    kuiper.launch grid(%4, %c1_i32, %c1_i32_1) : i32, i32, i32
    kuiper.requires {
      %c0_i32_3 = arith.constant 0 : i32
      %10 = arith.cmpi sge, %arg2, %c0_i32_3 : i32
      %c1073741824_i32 = arith.constant 1073741824 : i32
      %11 = arith.cmpi sle, %arg2, %c1073741824_i32 : i32
      %12 = arith.andi %10, %11 : i1
      kuiper.yield %12 : i1
    }
    kuiper.ensures {
      %c0_i32_3 = arith.constant 0 : i32
      %10 = kuiper.forall %c0_i32_3, %arg2 {binder = "i"} : i32 {
      ^bb0(%arg4: i32):
        %11 = kuiper.load %arg1[%arg4] : !kuiper.buffer<f32, 1, out>, i32 -> f32
        %12 = kuiper.load %arg0[%arg4] : !kuiper.buffer<f32, 1, in>, i32 -> f32
        %cst = arith.constant 0.000000e+00 : f32
        %13 = arith.cmpf ogt, %12, %cst : f32
        %14 = math.exp %12 : f32
        %cst_4 = arith.constant 1.000000e+00 : f32
        %15 = arith.subf %14, %cst_4 : f32
        %16 = arith.mulf %arg3, %15 : f32
        %17 = arith.select %13, %12, %16 : f32
        memref.store %17, %alloca_0[] : memref<f32>
        %18 = memref.load %alloca_0[] : memref<f32>
        %19 = arith.cmpf oeq, %11, %18 {kuiper.nan_equal} : f32
        %20 = arith.cmpf uno, %11, %11 : f32
        %21 = arith.cmpf uno, %18, %18 : f32
        %22 = arith.andi %20, %21 : i1
        %23 = arith.ori %19, %22 : i1
        kuiper.yield %23 : i1
      }
      kuiper.yield %10 : i1
    }
    %5 = kuiper.block_id 0 : i32
    %c256_i32_2 = arith.constant 256 : i32
    %6 = arith.muli %5, %c256_i32_2 overflow<nsw> : i32
    %7 = kuiper.thread_id 0 : i32
    %8 = arith.addi %6, %7 overflow<nsw> : i32
    %9 = arith.cmpi slt, %8, %arg2 : i32
    scf.if %9 {
      %10 = kuiper.load %arg0[%8] : !kuiper.buffer<f32, 1, in>, i32 -> f32
      %cst = arith.constant 0.000000e+00 : f32
      %11 = arith.cmpf ogt, %10, %cst : f32
      %12 = scf.if %11 -> (f32) {
        scf.yield %10 : f32
      } else {
        %14 = math.exp %10 : f32
        %cst_3 = arith.constant 1.000000e+00 : f32
        %15 = arith.subf %14, %cst_3 : f32
        %16 = arith.mulf %arg3, %15 : f32
        scf.yield %16 : f32
      }
      memref.store %12, %alloca[] : memref<f32>
      %13 = memref.load %alloca[] : memref<f32>
      kuiper.store %13, %arg1[%8] : f32, !kuiper.buffer<f32, 1, out>, i32
    }
  }
}
