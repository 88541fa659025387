// RUN: not %kuiper-lower %s --libdevice %t.missing.bc 2>&1 | FileCheck %s --check-prefix=LIBDEVICE
// RUN: not %kuiper-lower %s --arch sm_52 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: echo "module {}" | not %kuiper-lower - 2>&1 | FileCheck %s --check-prefix=EMPTY

// Lowering reports errors as values; it never aborts.

// LIBDEVICE: error: cannot read libdevice '{{.*}}.missing.bc'
// ARCH: error: unsupported GPU architecture 'sm_52'
// EMPTY: error: lowering failed (kuiper to LLVM dialect)
// EMPTY: no kuiper.kernel to lower

kuiper.kernel @needs_libdevice block [32, 1, 1] attributes {arg_names = ["x"]} {
^bb0(%x: !kuiper.buffer<f32, 1, inout>):
  %c32 = arith.constant 32 : i32
  kuiper.shape %x [%c32] : !kuiper.buffer<f32, 1, inout>, i32
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %tid = kuiper.thread_id 0 : i32
  %v = kuiper.load %x[%tid] : !kuiper.buffer<f32, 1, inout>, i32 -> f32
  %e = math.tanh %v : f32
  kuiper.store %e, %x[%tid] : f32, !kuiper.buffer<f32, 1, inout>, i32
}
