// arith.remf (C's fmod) is an uninterpreted function in proofs: y[i] = x[i] rem 3.0 against an ensures of x[i] rem 2.0.
module {
  kuiper.kernel @rem block [32, 1, 1] attributes {arg_names = ["x", "y"]} {
  ^bb0(%x: !kuiper.buffer<f32, 1, in>, %y: !kuiper.buffer<f32, 1, out>):
    %c32 = arith.constant 32 : i32
    kuiper.shape %x[%c32] : <f32, 1, in>, i32
    kuiper.shape %y[%c32] : <f32, 1, out>, i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
    kuiper.ensures {
      %all = kuiper.forall %c0, %c32 : i32 {
      ^bb0(%i: i32):
        %a = kuiper.load %y[%i] : !kuiper.buffer<f32, 1, out>, i32 -> f32
        %b = kuiper.load %x[%i] : !kuiper.buffer<f32, 1, in>, i32 -> f32
        %two = arith.constant 2.0 : f32
        %r = arith.remf %b, %two : f32
        %eq = arith.cmpf oeq, %a, %r {kuiper.nan_equal} : f32
        kuiper.yield %eq : i1
      }
      kuiper.yield %all : i1
    }
    %t = kuiper.thread_id 0 : i32
    %v = kuiper.load %x[%t] : !kuiper.buffer<f32, 1, in>, i32 -> f32
    %d = arith.constant 3.0 : f32
    %w = arith.remf %v, %d : f32
    kuiper.store %w, %y[%t] : f32, !kuiper.buffer<f32, 1, out>, i32
    kuiper.return
  }
}
