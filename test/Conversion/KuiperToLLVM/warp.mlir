// RUN: kuiper-opt %s --kuiper-erase-specs --convert-kuiper-to-llvm | FileCheck %s --enable-var-scope

// Shuffles use the full mask -1 unless given one, and CUDA's clamp values: 31
// for down/xor/idx, 0 for up. 64-bit values move as two 32-bit halves, narrow
// ones widened to 32 bits.

// CHECK-LABEL: llvm.func @shuffles(
// CHECK: %[[FULL:.*]] = arith.constant -1 : i32
// CHECK: %[[C31:.*]] = arith.constant 31 : i32
// CHECK: nvvm.shfl.sync down %[[FULL]], %{{.*}}, %{{.*}}, %[[C31]] : f32 -> f32
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK: nvvm.shfl.sync up %{{.*}}, %{{.*}}, %{{.*}}, %[[C0]] : f32 -> f32
// CHECK: nvvm.shfl.sync bfly
// CHECK: %[[HALF:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK: nvvm.shfl.sync idx %[[HALF]], %{{.*}} : i32 -> i32
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f64 to i64
// CHECK: %[[LO:.*]] = arith.trunci %[[BITS]] : i64 to i32
// CHECK: %[[HI:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK: %[[NEW_LO:.*]] = nvvm.shfl.sync down %{{.*}}, %[[LO]]
// CHECK: %[[NEW_HI:.*]] = nvvm.shfl.sync down %{{.*}}, %[[HI]]
// CHECK: arith.bitcast %{{.*}} : i64 to f64
// CHECK: %[[WIDE:.*]] = arith.extui %{{.*}} : i16 to i32
// CHECK: %[[SHUFFLED:.*]] = nvvm.shfl.sync bfly %{{.*}}, %[[WIDE]]
// CHECK: arith.trunci %[[SHUFFLED]] : i32 to i16
kuiper.kernel @shuffles block [32, 1, 1] attributes {arg_names = ["v", "d", "s", "m"]} {
^bb0(%v: f32, %d: f64, %s: i16, %m: i64):
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %c16 = arith.constant 16 : i32
  %a = kuiper.shfl down %v, %c16 : f32
  %b = kuiper.shfl up %a, %c1 : f32
  %c = kuiper.shfl xor %b, %c1 : f32
  %e = kuiper.shfl idx %c1, %c1 mask %m : i64 : i32
  %f = kuiper.shfl down %d, %c16 : f64
  %g = kuiper.shfl xor %s, %c1 : i16
  kuiper.return
}

// Votes and syncwarp take the same masks.

// CHECK-LABEL: llvm.func @votes(
// CHECK: nvvm.vote.sync ballot %{{.*}}, %{{.*}} -> i32
// CHECK: nvvm.vote.sync any %{{.*}}, %{{.*}} -> i1
// CHECK: nvvm.vote.sync all %{{.*}}, %{{.*}} -> i1
// CHECK: nvvm.bar.warp.sync %{{.*}} : i32
kuiper.kernel @votes block [32, 1, 1] attributes {arg_names = ["p"]} {
^bb0(%p: i1):
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %c15 = arith.constant 15 : i32
  %bal = kuiper.vote ballot %p : i32
  %any = kuiper.vote any %p : i1
  %all = kuiper.vote all %any mask %c15 : i32 : i1
  kuiper.syncwarp
  kuiper.return
}

// A barrier's contract is erased with the specifications; the barrier stays.

// CHECK-LABEL: llvm.func @barrier()
// CHECK-NEXT: arith.constant
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.return
kuiper.kernel @barrier block [32, 1, 1] attributes {arg_names = []} {
^bb0:
  %c1 = arith.constant 1 : i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  kuiper.barrier {
    %t = arith.constant true
    kuiper.yield %t : i1
  }
  kuiper.return
}
