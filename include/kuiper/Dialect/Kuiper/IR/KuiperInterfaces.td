//===- KuiperInterfaces.td - What passes ask a kuiper op ----*- tablegen -*-===//
//
// The questions the verifier, the executor and the lowering ask an op,
// answered once by the op's definition.
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_INTERFACES_TD
#define KUIPER_INTERFACES_TD

include "mlir/IR/OpBase.td"

/// Specification ops: they state facts for the verifier and are erased
/// before code generation (they never reach the GPU).
def Kuiper_SpecOnly : NativeOpTrait<"SpecOnly"> {
  let cppNamespace = "::kuiper";
}

def Kuiper_MemoryAccessOpInterface : OpInterface<"MemoryAccessOpInterface"> {
  let cppNamespace = "::kuiper";
  let description = [{
    An op that accesses one element of a buffer or a shared array. Whether it
    reads, writes or both is stated by the `MemRead`/`MemWrite` effects on its
    `ref` operand (`mlir::MemoryEffectOpInterface`).
  }];
  let methods = [
    InterfaceMethod<"The buffer or shared array accessed.", "::mlir::Value", "getMemory",
                    (ins), [{ return $_op.getRef(); }]>,
    InterfaceMethod<"One index per dimension of the memory.", "::mlir::ValueRange",
                    "getAccessIndices", (ins), [{ return $_op.getIndices(); }]>,
  ];
  let extraSharedClassDeclaration = [{
    /// Whether the access reads the element.
    bool readsElement() {
      return ::mlir::hasEffect<::mlir::MemoryEffects::Read>($_op.getOperation());
    }
    /// Whether the access writes the element.
    bool writesElement() {
      return ::mlir::hasEffect<::mlir::MemoryEffects::Write>($_op.getOperation());
    }
  }];
}

def Kuiper_CollectiveOpInterface : OpInterface<"CollectiveOpInterface"> {
  let cppNamespace = "::kuiper";
  let description = [{
    An op that a group of threads executes together: a block barrier or a warp
    collective. Every participant must reach the same op (the verifier's
    `barrier-divergence` and `warp-convergence` checks).
  }];
  let methods = [
    InterfaceMethod<"The group that meets here.", "::kuiper::CollectiveScope", "getScope">,
    InterfaceMethod<"The lanes that take part, or null for the whole group.",
                    "::mlir::Value", "getParticipantMask", (ins), [{}],
                    [{ return $_op.getMask(); }]>,
  ];
}

#endif
