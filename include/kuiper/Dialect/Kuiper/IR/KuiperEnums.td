//===- KuiperEnums.td - Kuiper dialect enumerations --------*- tablegen -*-===//
//
// Every kind and mode of the dialect is an enumeration declared once here;
// codegen, the verifier, the executor and the lowering switch over the C++
// enums (a forgotten case is a compiler warning, not a string that never
// matches).
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_ENUMS_TD
#define KUIPER_ENUMS_TD

include "mlir/IR/EnumAttr.td"

def Kuiper_BufferAccess : I32EnumAttr<"BufferAccess", "access mode of a buffer parameter", [
    I32EnumAttrCase<"In", 0, "in">,
    I32EnumAttrCase<"Out", 1, "out">,
    I32EnumAttrCase<"InOut", 2, "inout">]> {
  let cppNamespace = "::kuiper";
  let genSpecializedAttr = 0;
}

def Kuiper_AccessKind : I32EnumAttr<"AccessKind", "a memory-contract clause", [
    I32EnumAttrCase<"Reads", 0, "reads">,
    I32EnumAttrCase<"Writes", 1, "writes">]> {
  let cppNamespace = "::kuiper";
}

def Kuiper_AssertKind : I32EnumAttr<"AssertKind", "what an assert op stands for", [
    I32EnumAttrCase<"Assert", 0, "assert">,
    I32EnumAttrCase<"Precondition", 1, "precondition">,
    I32EnumAttrCase<"Postcondition", 2, "postcondition">]> {
  let cppNamespace = "::kuiper";
}

def Kuiper_AtomicKind : I32EnumAttr<"AtomicKind", "atomic read-modify-write", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"Cas", 3, "cas">,
    // max/min of unsigned elements (u32, u64): compared unsigned.
    I32EnumAttrCase<"UMax", 4, "umax">,
    I32EnumAttrCase<"UMin", 5, "umin">]> {
  let cppNamespace = "::kuiper";
}

def Kuiper_ReduceKind : I32EnumAttr<"ReduceKind", "a spec reduction other than sum", [
    I32EnumAttrCase<"Prod", 0, "prod">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"ArgMax", 3, "argmax">,
    I32EnumAttrCase<"ArgMin", 4, "argmin">]> {
  let cppNamespace = "::kuiper";
}

def Kuiper_ShuffleMode : I32EnumAttr<"ShuffleMode", "warp shuffle source lane", [
    I32EnumAttrCase<"Down", 0, "down">,
    I32EnumAttrCase<"Up", 1, "up">,
    I32EnumAttrCase<"Xor", 2, "xor">,
    I32EnumAttrCase<"Idx", 3, "idx">]> {
  let cppNamespace = "::kuiper";
}

def Kuiper_VoteMode : I32EnumAttr<"VoteMode", "warp vote", [
    I32EnumAttrCase<"Ballot", 0, "ballot">,
    I32EnumAttrCase<"Any", 1, "any">,
    I32EnumAttrCase<"All", 2, "all">]> {
  let cppNamespace = "::kuiper";
}

def Kuiper_CollectiveScope : I32EnumAttr<"CollectiveScope", "who meets at a collective", [
    I32EnumAttrCase<"Block", 0, "block">,
    I32EnumAttrCase<"Warp", 1, "warp">]> {
  let cppNamespace = "::kuiper";
  let genSpecializedAttr = 0;
}

#endif
