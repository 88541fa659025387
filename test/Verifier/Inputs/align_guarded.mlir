// Each thread copies x[4t .. 4t+3]; see verify-pass.test (the alignment check).
module {
  kuiper.kernel @copy4 block [64, 1, 1] attributes {arg_names = ["x", "y", "n"]} {
  ^bb0(%arg0: !kuiper.buffer<f32, 1, in>, %arg1: !kuiper.buffer<f32, 1, out>, %arg2: i32):
    kuiper.shape %arg0[%arg2] : <f32, 1, in>, i32
    kuiper.shape %arg1[%arg2] : <f32, 1, out>, i32
    %c256_i32 = arith.constant 256 : i32
    %0 = arith.divsi %arg2, %c256_i32 : i32
    %c1_i32 = arith.constant 1 : i32
    %c1_i32_0 = arith.constant 1 : i32
    kuiper.launch grid(%0, %c1_i32, %c1_i32_0) : i32, i32, i32
    kuiper.requires {
      %c0_i32 = arith.constant 0 : i32
      %16 = arith.cmpi sge, %arg2, %c0_i32 : i32
      %c268435456_i32 = arith.constant 268435456 : i32
      %17 = arith.cmpi sle, %arg2, %c268435456_i32 : i32
      %18 = arith.andi %16, %17 : i1
      %c256_i32_5 = arith.constant 256 : i32
      %19 = arith.remsi %arg2, %c256_i32_5 : i32
      %c0_i32_6 = arith.constant 0 : i32
      %20 = arith.cmpi eq, %19, %c0_i32_6 : i32
      %21 = arith.andi %18, %20 : i1
      kuiper.yield %21 : i1
    }
    kuiper.ensures {
      %c0_i32 = arith.constant 0 : i32
      %16 = kuiper.forall %c0_i32, %arg2 {binder = "i"} : i32 {
      ^bb0(%arg3: i32):
        %17 = kuiper.load %arg1[%arg3] : !kuiper.buffer<f32, 1, out>, i32 -> f32
        %18 = kuiper.load %arg0[%arg3] : !kuiper.buffer<f32, 1, in>, i32 -> f32
        %19 = arith.cmpf oeq, %17, %18 {kuiper.nan_equal} : f32
        %20 = arith.cmpf uno, %17, %17 : f32
        %21 = arith.cmpf uno, %18, %18 : f32
        %22 = arith.andi %20, %21 : i1
        %23 = arith.ori %19, %22 : i1
        kuiper.yield %23 : i1
      }
      kuiper.yield %16 : i1
    }
    %1 = kuiper.block_id 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %2 = arith.muli %1, %c64_i32 overflow<nsw> : i32
    %3 = kuiper.thread_id 0 : i32
    %4 = arith.addi %2, %3 overflow<nsw> : i32
    %c4_i32 = arith.constant 4 : i32
    %5 = arith.muli %4, %c4_i32 overflow<nsw> : i32
    %a = kuiper.aligned %arg0, 16 : <f32, 1, in>
    scf.if %a {
      %6 = kuiper.load %arg0[%5] {align = 16 : i64} : !kuiper.buffer<f32, 1, in>, i32 -> f32
      kuiper.store %6, %arg1[%5] : f32, !kuiper.buffer<f32, 1, out>, i32
    } else {
      %6 = kuiper.load %arg0[%5] : !kuiper.buffer<f32, 1, in>, i32 -> f32
      kuiper.store %6, %arg1[%5] : f32, !kuiper.buffer<f32, 1, out>, i32
    }
    %c1_i32_1 = arith.constant 1 : i32
    %7 = arith.addi %5, %c1_i32_1 overflow<nsw> : i32
    %c1_i32_2 = arith.constant 1 : i32
    %8 = arith.addi %5, %c1_i32_2 overflow<nsw> : i32
    %9 = kuiper.load %arg0[%8] : !kuiper.buffer<f32, 1, in>, i32 -> f32
    kuiper.store %9, %arg1[%7] : f32, !kuiper.buffer<f32, 1, out>, i32
    %c2_i32 = arith.constant 2 : i32
    %10 = arith.addi %5, %c2_i32 overflow<nsw> : i32
    %c2_i32_3 = arith.constant 2 : i32
    %11 = arith.addi %5, %c2_i32_3 overflow<nsw> : i32
    %12 = kuiper.load %arg0[%11] : !kuiper.buffer<f32, 1, in>, i32 -> f32
    kuiper.store %12, %arg1[%10] : f32, !kuiper.buffer<f32, 1, out>, i32
    %c3_i32 = arith.constant 3 : i32
    %13 = arith.addi %5, %c3_i32 overflow<nsw> : i32
    %c3_i32_4 = arith.constant 3 : i32
    %14 = arith.addi %5, %c3_i32_4 overflow<nsw> : i32
    %15 = kuiper.load %arg0[%14] : !kuiper.buffer<f32, 1, in>, i32 -> f32
    kuiper.store %15, %arg1[%13] : f32, !kuiper.buffer<f32, 1, out>, i32
  }
}
