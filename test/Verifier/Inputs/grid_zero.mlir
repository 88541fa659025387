// A kernel whose launch runs no thread (grid(0)) but whose ensures names y[0..n).
module {
  kuiper.kernel @copy block [256, 1, 1] attributes {arg_names = ["x", "y", "n"]} {
  ^bb0(%x: !kuiper.buffer<f32, 1, in>, %y: !kuiper.buffer<f32, 1, out>, %n: i32):
    kuiper.shape %x[%n] : <f32, 1, in>, i32
    kuiper.shape %y[%n] : <f32, 1, out>, i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    kuiper.launch grid(%c0, %c1, %c1) : i32, i32, i32
    kuiper.requires {
      %lo = arith.cmpi sge, %n, %c0 : i32
      %c1024 = arith.constant 1024 : i32
      %hi = arith.cmpi sle, %n, %c1024 : i32
      %ok = arith.andi %lo, %hi : i1
      kuiper.yield %ok : i1
    }
    kuiper.ensures {
      %all = kuiper.forall %c0, %n : i32 {
      ^bb0(%i: i32):
        %a = kuiper.load %y[%i] : !kuiper.buffer<f32, 1, out>, i32 -> f32
        %b = kuiper.load %x[%i] : !kuiper.buffer<f32, 1, in>, i32 -> f32
        %eq = arith.cmpf oeq, %a, %b {kuiper.nan_equal} : f32
        kuiper.yield %eq : i1
      }
      kuiper.yield %all : i1
    }
    %t = kuiper.thread_id 0 : i32
    %inb = arith.cmpi slt, %t, %n : i32
    scf.if %inb {
      %v = kuiper.load %x[%t] : !kuiper.buffer<f32, 1, in>, i32 -> f32
      kuiper.store %v, %y[%t] : f32, !kuiper.buffer<f32, 1, out>, i32
    }
    kuiper.return
  }
}
