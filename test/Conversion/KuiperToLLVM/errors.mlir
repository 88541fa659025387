// RUN: kuiper-opt %s -split-input-file -verify-diagnostics --kuiper-erase-specs --convert-kuiper-to-llvm
// RUN: not kuiper-opt %s -split-input-file --convert-kuiper-to-llvm=target=amdgcn 2>&1 | FileCheck %s --check-prefix=TARGET

// TARGET: error: unknown GPU target 'amdgcn'

kuiper.kernel @byte_atomic block [32, 1, 1] attributes {arg_names = ["x"]} {
^bb0(%x: !kuiper.buffer<i8, 1, inout>):
  %c32 = arith.constant 32 : i32
  kuiper.shape %x [%c32] : !kuiper.buffer<i8, 1, inout>, i32
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %c0 = arith.constant 0 : i32
  %v = arith.constant 1 : i8
  // expected-error @+2 {{atomics on 'i8' are not supported}}
  // expected-error @+1 {{failed to legalize operation 'kuiper.atomic'}}
  %o = kuiper.atomic add %x[%c0], %v : !kuiper.buffer<i8, 1, inout>, (i32), (i8) -> i8
  kuiper.return
}

// -----

kuiper.kernel @vector_math block [32, 1, 1] attributes {arg_names = ["v"]} {
^bb0(%v: vector<4xf32>):
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  // expected-error @+2 {{only scalar float math is supported}}
  // expected-error @+1 {{failed to legalize operation 'math.exp'}}
  %e = math.exp %v : vector<4xf32>
  kuiper.return
}

// -----

kuiper.kernel @spec_in_code block [32, 1, 1] attributes {arg_names = ["x"]} {
^bb0(%x: !kuiper.buffer<i32, 1, inout>):
  %c32 = arith.constant 32 : i32
  kuiper.shape %x [%c32] : !kuiper.buffer<i32, 1, inout>, i32
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{specification value used by executable code}}
  %s = kuiper.sum %c0, %c32, %c1 : i32 {
  ^bb0(%i: i32):
    kuiper.yield %i : i32
  } -> i32
  kuiper.store %s, %x[%c0] : i32, !kuiper.buffer<i32, 1, inout>, i32
  kuiper.return
}
