// kuiperc --emit mlir of test/Corpus/kp/bad/elu_empty.kp (the body writes nothing)
module {
  kuiper.kernel @elu_fwd block [256, 1, 1] attributes {arg_names = ["x", "y", "n", "alpha"]} {
  ^bb0(%arg0: !kuiper.buffer<f32, 1, in>, %arg1: !kuiper.buffer<f32, 1, out>, %arg2: i32, %arg3: f32):
    %alloca = memref.alloca() : memref<f32>
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
    %c1_i32_0 = arith.constant 1 : i32
    kuiper.launch grid(%4, %c1_i32, %c1_i32_0) : i32, i32, i32
    kuiper.requires {
      %c0_i32_1 = arith.constant 0 : i32
      %5 = arith.cmpi sge, %arg2, %c0_i32_1 : i32
      %c1073741824_i32 = arith.constant 1073741824 : i32
      %6 = arith.cmpi sle, %arg2, %c1073741824_i32 : i32
      %7 = arith.andi %5, %6 : i1
      kuiper.yield %7 : i1
    }
    kuiper.ensures {
      %c0_i32_1 = arith.constant 0 : i32
      %5 = kuiper.forall %c0_i32_1, %arg2 {binder = "i"} : i32 {
      ^bb0(%arg4: i32):
        %6 = kuiper.load %arg1[%arg4] : !kuiper.buffer<f32, 1, out>, i32 -> f32
        %7 = kuiper.load %arg0[%arg4] : !kuiper.buffer<f32, 1, in>, i32 -> f32
        %cst = arith.constant 0.000000e+00 : f32
        %8 = arith.cmpf ogt, %7, %cst : f32
        %9 = math.exp %7 : f32
        %cst_2 = arith.constant 1.000000e+00 : f32
        %10 = arith.subf %9, %cst_2 : f32
        %11 = arith.mulf %arg3, %10 : f32
        %12 = arith.select %8, %7, %11 : f32
        memref.store %12, %alloca[] : memref<f32>
        %13 = memref.load %alloca[] : memref<f32>
        %14 = arith.cmpf oeq, %6, %13 {kuiper.nan_equal} : f32
        %15 = arith.cmpf uno, %6, %6 : f32
        %16 = arith.cmpf uno, %13, %13 : f32
        %17 = arith.andi %15, %16 : i1
        %18 = arith.ori %14, %17 : i1
        kuiper.yield %18 : i1
      }
      kuiper.yield %5 : i1
    }
  }
}
