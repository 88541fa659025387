// RUN: kuiper-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{a block holds at most 1024 threads}}
kuiper.kernel @too_big block [1024, 2, 1] attributes {arg_names = []} {
^bb0:
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
}

// -----

// expected-error @+1 {{buffer parameter #0 has no kuiper.shape}}
kuiper.kernel @no_shape block [32, 1, 1] attributes {arg_names = ["x"]} {
^bb0(%x: !kuiper.buffer<f32, 1, in>):
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
}

// -----

// expected-error @+1 {{expects exactly one kuiper.launch}}
kuiper.kernel @no_launch block [32, 1, 1] attributes {arg_names = []} {
^bb0:
}

// -----

kuiper.kernel @store_in block [32, 1, 1] attributes {arg_names = ["x", "n"]} {
^bb0(%x: !kuiper.buffer<f32, 1, in>, %n: i32):
  kuiper.shape %x [%n] : !kuiper.buffer<f32, 1, in>, i32
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %f = arith.constant 1.0 : f32
  // expected-error @+1 {{cannot store to an 'in' buffer}}
  kuiper.store %f, %x[%c1] : f32, !kuiper.buffer<f32, 1, in>, i32
}

// -----

kuiper.kernel @rank block [32, 1, 1] attributes {arg_names = ["x", "n"]} {
^bb0(%x: !kuiper.buffer<f32, 2, out>, %n: i32):
  kuiper.shape %x [%n, %n] : !kuiper.buffer<f32, 2, out>, i32, i32
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  // expected-error @+1 {{expects 2 indices, got 1}}
  %v = kuiper.load %x[%c1] : !kuiper.buffer<f32, 2, out>, i32 -> f32
}

// -----

kuiper.kernel @shfl_mode block [32, 1, 1] attributes {arg_names = []} {
^bb0:
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  // expected-error @+1 {{enum values for attribute 'mode' [down, up, xor, idx]}}
  %s = kuiper.shfl sideways %c1, %c1 : i32
}

// -----

kuiper.kernel @atomic_kind block [32, 1, 1] attributes {arg_names = ["y", "n"]} {
^bb0(%y: !kuiper.buffer<f32, 1, inout>, %n: i32):
  kuiper.shape %y [%n] : !kuiper.buffer<f32, 1, inout>, i32
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %f = arith.constant 1.0 : f32
  // expected-error @+1 {{enum values for attribute 'kind' [add, max, min, cas, umax, umin]}}
  %o = kuiper.atomic mul %y[%c1], %f : !kuiper.buffer<f32, 1, inout>, (i32), (f32) -> f32
}

// -----

kuiper.kernel @atomic_umax_float block [32, 1, 1] attributes {arg_names = ["y", "n"]} {
^bb0(%y: !kuiper.buffer<f32, 1, inout>, %n: i32):
  kuiper.shape %y [%n] : !kuiper.buffer<f32, 1, inout>, i32
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %f = arith.constant 1.0 : f32
  // expected-error @+1 {{umax and umin take integer elements}}
  %o = kuiper.atomic umax %y[%c1], %f : !kuiper.buffer<f32, 1, inout>, (i32), (f32) -> f32
}

// -----

kuiper.kernel @clause block [32, 1, 1] attributes {arg_names = []} {
^bb0:
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  // expected-error @+1 {{condition region must yield 1 value(s) of the expected type}}
  kuiper.requires {
    kuiper.yield %c1 : i32
  }
}

// -----

kuiper.kernel @assert_kind block [32, 1, 1] attributes {arg_names = []} {
^bb0:
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  // expected-error @+1 {{enum values for attribute 'kind' [assert, precondition, postcondition]}}
  kuiper.assert maybe {
    %t = arith.constant true
    kuiper.yield %t : i1
  }
}

// -----

kuiper.kernel @argmax_type block [32, 1, 1] attributes {arg_names = []} {
^bb0:
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  kuiper.ensures {
    // expected-error @+1 {{argmax/argmin result must have the type of the range}}
    %a = kuiper.reduce argmax %c0, %c1, %c1 : i32 {
    ^bb0(%j: i32):
      %f = arith.constant 1.0 : f32
      kuiper.yield %f : f32
    } -> f32
    %t = arith.constant true
    kuiper.yield %t : i1
  }
}
