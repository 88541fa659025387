// Integer ops without overflow flags wrap around (MLIR's semantics, as in the executor): no fault.
module {
  kuiper.kernel @hash block [32, 1, 1] attributes {arg_names = ["y", "seed"]} {
  ^bb0(%y: !kuiper.buffer<i32, 1, out>, %seed: i32):
    %c32 = arith.constant 32 : i32
    kuiper.shape %y[%c32] : <i32, 1, out>, i32
    %c1 = arith.constant 1 : i32
    kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
    %t = kuiper.thread_id 0 : i32
    %k = arith.constant 1000003 : i32
    %h = arith.muli %seed, %k : i32
    %v = arith.addi %h, %t : i32
    kuiper.store %v, %y[%t] : i32, !kuiper.buffer<i32, 1, out>, i32
    kuiper.return
  }
}
