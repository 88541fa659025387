//===- KuiperOps.td - Kuiper dialect operations ------------*- tablegen -*-===//
#ifndef KUIPER_OPS_TD
#define KUIPER_OPS_TD

include "kuiper/Dialect/Kuiper/IR/KuiperBase.td"
include "kuiper/Dialect/Kuiper/IR/KuiperInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

class Kuiper_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kuiper_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

def Kuiper_KernelOp : Kuiper_Op<"kernel", [Symbol, IsolatedFromAbove, AutomaticAllocationScope,
                                            SingleBlockImplicitTerminator<"ReturnOp">]> {
  let summary = "a kernel entry point with its contracts";
  let description = [{
    The entry block's arguments are the kernel parameters in source order;
    `arg_names` names them and `block` holds the constant block dimensions.
    The body starts with the header ops (`kuiper.shape`, `kuiper.launch`,
    `kuiper.requires`, `kuiper.ensures`, `kuiper.access`) followed by code.
    Integers are signless; `arg_unsigned`, present when some parameter is of
    an unsigned type (`u32`, `u64`, or a buffer of them), says which, so that
    reports show those values unsigned (the ops' predicates and overflow flags
    carry the arithmetic's signedness).

    ```mlir
    kuiper.kernel @copy block [256, 1, 1] attributes {arg_names = ["x", "y", "n"]} {
    ^bb0(%x: !kuiper.buffer<f32, 1, in>, %y: !kuiper.buffer<f32, 1, out>, %n: i32):
      kuiper.shape %x [%n] : !kuiper.buffer<f32, 1, in>, i32
      ...
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, DenseI64ArrayAttr:$block,
                       StrArrayAttr:$arg_names, UnitAttr:$deterministic,
                       OptionalAttr<DenseBoolArrayAttr>:$arg_unsigned);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name `block` $block attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether an `ensures`, barrier contract, invariant or assert is
    /// `approx`: proven over the reals, for finite inputs.
    bool hasApproxClauses();
    /// Whether parameter `index` is of an unsigned type (`arg_unsigned`).
    bool isUnsignedArg(unsigned index);
  }];
}

def Kuiper_ReturnOp : Kuiper_Op<"return", [Terminator, HasParent<"KernelOp">, Pure]> {
  let summary = "end of a kernel body";
  let assemblyFormat = "attr-dict";
}

def Kuiper_YieldOp : Kuiper_Op<"yield", [Terminator, Pure, ReturnLike]> {
  let summary = "yields values from a spec or loop region";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, ::mlir::ValueRange()); }]>];
}

def Kuiper_ShapeOp : Kuiper_Op<"shape"> {
  let summary = "declares the dimensions of a buffer parameter";
  let description = [{ `kuiper.shape %a [%rows, %cols] : !kuiper.buffer<f32, 2, in>, i32, i32` }];
  let arguments = (ins Kuiper_BufferType:$buffer, Variadic<AnyInteger>:$dims);
  let assemblyFormat = "$buffer `[` $dims `]` attr-dict `:` type($buffer) `,` type($dims)";
  let hasVerifier = 1;
}

def Kuiper_LaunchOp : Kuiper_Op<"launch"> {
  let summary = "the grid dimensions of the launch clause";
  let description = [{ `kuiper.launch grid(%g, %c1, %c1) : i32, i32, i32` }];
  let arguments = (ins Variadic<AnyInteger>:$grid);
  let assemblyFormat = "`grid` `(` $grid `)` attr-dict `:` type($grid)";
  let hasVerifier = 1;
}

def Kuiper_AccessOp : Kuiper_Op<"access", [Kuiper_SpecOnly]> {
  let summary = "a `reads` or `writes` memory-contract range";
  let description = [{
    `kuiper.access writes %y [%lo, %hi] : ...`: the buffer may be accessed
    only at indices in the box given by (lo, hi) pairs per dimension.
  }];
  let arguments = (ins Kuiper_AccessKind:$kind, Kuiper_BufferType:$buffer, Variadic<AnyInteger>:$bounds);
  let assemblyFormat = "$kind $buffer `[` $bounds `]` attr-dict `:` type($buffer) `,` type($bounds)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Spec clauses: each holds a region that yields one i1.
//===----------------------------------------------------------------------===//

class Kuiper_ClauseOp<string mnemonic> : Kuiper_Op<mnemonic, [Kuiper_SpecOnly]> {
  let regions = (region SizedRegion<1>:$cond);
  let hasVerifier = 1;
}

def Kuiper_RequiresOp : Kuiper_ClauseOp<"requires"> {
  let summary = "a precondition of the launch";
  let assemblyFormat = "attr-dict-with-keyword $cond";
}

def Kuiper_EnsuresOp : Kuiper_ClauseOp<"ensures"> {
  let summary = "a functional postcondition, exact or approx";
  let arguments = (ins UnitAttr:$approx);
  let assemblyFormat = "(`approx` $approx^)? attr-dict-with-keyword $cond";
}

def Kuiper_AssertOp : Kuiper_ClauseOp<"assert"> {
  let summary = "a proof obligation at this program point";
  let description = [{
    `kind` is the check id reported when it fails: `assert`, `precondition`
    (of an inlined fn) or `postcondition` (of an inlined fn).
  }];
  let arguments = (ins Kuiper_AssertKind:$kind, UnitAttr:$approx);
  let assemblyFormat = "$kind (`approx` $approx^)? attr-dict-with-keyword $cond";
}

def Kuiper_AssumeOp : Kuiper_ClauseOp<"assume"> {
  let summary = "a trusted fact (reported as a hole in the trust base)";
  let assemblyFormat = "attr-dict-with-keyword $cond";
}

def Kuiper_InvariantOp : Kuiper_Op<"invariant", [Kuiper_SpecOnly, HasParent<"ForOp, WhileOp">]> {
  let summary = "one loop invariant inside a loop's invariant region";
  let arguments = (ins I1:$cond, UnitAttr:$approx);
  let assemblyFormat = "$cond (`approx` $approx^)? attr-dict";
}

//===----------------------------------------------------------------------===//
// Spec expressions
//===----------------------------------------------------------------------===//

class Kuiper_QuantOp<string mnemonic> : Kuiper_Op<mnemonic, [Kuiper_SpecOnly, Pure, AllTypesMatch<["lo", "hi"]>]> {
  let arguments = (ins AnyInteger:$lo, AnyInteger:$hi);
  let results = (outs I1:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$lo `,` $hi attr-dict `:` type($lo) $body";
  let hasVerifier = 1;
}

def Kuiper_ForallOp : Kuiper_QuantOp<"forall"> {
  let summary = "universal quantifier over a half-open integer range";
  let description = [{
    `%p = kuiper.forall %lo, %hi : i32 { ^bb0(%i: i32): ... kuiper.yield %c : i1 }`
  }];
}

def Kuiper_ExistsOp : Kuiper_QuantOp<"exists"> {
  let summary = "existential quantifier over a half-open integer range";
}

def Kuiper_SumOp : Kuiper_Op<"sum", [Kuiper_SpecOnly, Pure, AllTypesMatch<["lo", "hi", "step"]>]> {
  let summary = "sum of a term over a half-open integer range with a step";
  let description = [{
    `%s = kuiper.sum %lo, %hi, %step : i32 { ^bb0(%j: i32): ... kuiper.yield %v : f32 } -> f32`.
    In exact clauses it is the left-to-right fold; in approx clauses the real sum.
  }];
  let arguments = (ins AnyInteger:$lo, AnyInteger:$hi, AnyInteger:$step);
  let results = (outs AnyType:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$lo `,` $hi `,` $step attr-dict `:` type($lo) $body `->` type($result)";
  let hasVerifier = 1;
}

def Kuiper_ReduceOp : Kuiper_Op<"reduce", [Kuiper_SpecOnly, Pure, AllTypesMatch<["lo", "hi", "step"]>]> {
  let summary = "product, maximum, minimum or arg-max/arg-min of a term over a range";
  let description = [{
    `%m = kuiper.reduce max %lo, %hi, %step : i32 { ^bb0(%j: i32): ... kuiper.yield %v : f32 } -> f32`.
    `prod` is the left-to-right fold of `*` (1 over an empty range; the real
    product in approx clauses). `max`/`min` fold IEEE 754-2019 maximum/minimum
    (`fmaximum`/`fminimum`: a NaN term makes the result NaN, -0 < +0) for
    floats, signed `max`/`min` for integers (`u32` terms come zero-extended
    to i64); over an empty range they are -inf/+inf (the type's smallest/
    largest value for integers). `argmax`/`argmin`
    return the index (the range's type) of the first term that is the
    maximum/minimum, a NaN counting as greater (argmax) or smaller (argmin)
    than every number and -0 equal to +0, as torch.argmax breaks ties; over an
    empty range they return `lo`.
  }];
  let arguments = (ins Kuiper_ReduceKind:$kind, AnyInteger:$lo, AnyInteger:$hi, AnyInteger:$step);
  let results = (outs AnyType:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$kind $lo `,` $hi `,` $step attr-dict `:` type($lo) $body `->` type($result)";
  let hasVerifier = 1;
}

def Kuiper_OldOp : Kuiper_Op<"old", [Kuiper_SpecOnly, Pure]> {
  let summary = "the value of an expression at kernel entry";
  let results = (outs AnyType:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "`:` type($result) attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Threads and memory
//===----------------------------------------------------------------------===//

class Kuiper_DimOp<string mnemonic> : Kuiper_Op<mnemonic, [Pure]> {
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<2>]>:$dim);
  let results = (outs I32:$result);
  let assemblyFormat = "$dim attr-dict `:` type($result)";
}

def Kuiper_ThreadIdOp : Kuiper_DimOp<"thread_id"> { let summary = "threadIdx.{x,y,z} (dim 0, 1, 2)"; }
def Kuiper_BlockIdOp : Kuiper_DimOp<"block_id"> { let summary = "blockIdx.{x,y,z}"; }
def Kuiper_GridDimOp : Kuiper_DimOp<"grid_dim"> { let summary = "gridDim.{x,y,z}"; }

def Kuiper_LaneIdOp : Kuiper_Op<"lane_id", [Pure]> {
  let summary = "the lane of the linear thread index within its warp";
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Kuiper_WarpIdOp : Kuiper_Op<"warp_id", [Pure]> {
  let summary = "the warp of the linear thread index within its block";
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Kuiper_SharedAllocOp : Kuiper_Op<"shared_alloc"> {
  let summary = "a block-shared array";
  let arguments = (ins StrAttr:$name);
  let results = (outs Kuiper_SharedType:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
}

def Kuiper_LoadOp : Kuiper_Op<"load", [Kuiper_MemoryAccessOpInterface]> {
  let summary = "reads one element of a buffer or shared array";
  let description = [{
    `%v = kuiper.load %x[%i] : !kuiper.buffer<f32, 1, in>, i32 -> f32`

    `{align = A}` (bytes, a power of two) claims that the element's address is a
    multiple of A; the verifier proves it (check `alignment`) and the lowering
    passes it to LLVM, which may then merge neighbouring accesses into vectors.
  }];
  let arguments = (ins Arg<Kuiper_MemoryType, "the memory read", [MemRead]>:$ref,
                       Variadic<AnyInteger>:$indices,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$align);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$ref `[` $indices `]` attr-dict `:` type($ref) `,` type($indices) `->` type($result)";
  let builders = [OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$ref, "::mlir::ValueRange":$indices),
    [{ build($_builder, $_state, result, ref, indices, ::mlir::IntegerAttr()); }]>];
  let hasVerifier = 1;
}

def Kuiper_StoreOp : Kuiper_Op<"store", [Kuiper_MemoryAccessOpInterface]> {
  let summary = "writes one element of a buffer or shared array";
  let description = [{ `{align = A}`: as on `kuiper.load`. }];
  let arguments = (ins AnyType:$value, Arg<Kuiper_MemoryType, "the memory written", [MemWrite]>:$ref,
                       Variadic<AnyInteger>:$indices,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$align);
  let assemblyFormat = "$value `,` $ref `[` $indices `]` attr-dict `:` type($value) `,` type($ref) `,` type($indices)";
  let builders = [OpBuilder<(ins "::mlir::Value":$value, "::mlir::Value":$ref, "::mlir::ValueRange":$indices),
    [{ build($_builder, $_state, value, ref, indices, ::mlir::IntegerAttr()); }]>];
  let hasVerifier = 1;
}

def Kuiper_AlignedOp : Kuiper_Op<"aligned", [Pure]> {
  let summary = "whether a buffer's base address is a multiple of `bytes`";
  let description = [{
    `%a = kuiper.aligned %x, 16 : !kuiper.buffer<f32, 1, in>`: true when the
    device address of `%x` is a multiple of 16. The same value for every thread
    of a launch; the verifier knows nothing else about it, so both outcomes are
    proven. Made by `--kuiper-vectorize` to guard its vector accesses.
  }];
  let arguments = (ins Kuiper_BufferType:$ref, ConfinedAttr<I64Attr, [IntPositive]>:$bytes);
  let results = (outs I1:$result);
  let assemblyFormat = "$ref `,` $bytes attr-dict `:` type($ref)";
  let hasVerifier = 1;
}

def Kuiper_AtomicOp : Kuiper_Op<"atomic", [AttrSizedOperandSegments, Kuiper_MemoryAccessOpInterface]> {
  let summary = "atomic read-modify-write; returns the old value";
  let description = [{
    `kind` is `add`, `max`, `min` (signed, or floats), `umax`, `umin` (unsigned
    integers) or `cas` (values: compare, new).
  }];
  let arguments = (ins Kuiper_AtomicKind:$kind,
                       Arg<Kuiper_MemoryType, "the memory updated", [MemRead, MemWrite]>:$ref,
                       Variadic<AnyInteger>:$indices,
                       Variadic<AnyType>:$values);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$kind $ref `[` $indices `]` `,` $values attr-dict `:` type($ref) `,` `(` type($indices) `)` `,` `(` type($values) `)` `->` type($result)";
  let hasVerifier = 1;
}

def Kuiper_BarrierOp : Kuiper_Op<"barrier", [
    DeclareOpInterfaceMethods<Kuiper_CollectiveOpInterface, ["getParticipantMask"]>]> {
  let summary = "block-wide barrier with an optional contract";
  let description = [{
    `kuiper.barrier` or `kuiper.barrier approx { ... kuiper.yield %p : i1 }`:
    the contract is proven when the block arrives and is all that is known of
    shared memory after it.
  }];
  let arguments = (ins UnitAttr:$approx);
  let regions = (region AnyRegion:$contract);
  let assemblyFormat = "(`approx` $approx^)? attr-dict-with-keyword ($contract^)?";
  let hasVerifier = 1;
}

def Kuiper_ShuffleOp : Kuiper_Op<"shfl", [AllTypesMatch<["value", "result"]>,
    DeclareOpInterfaceMethods<Kuiper_CollectiveOpInterface>]> {
  let summary = "warp shuffle (down, up, xor, idx)";
  let arguments = (ins Kuiper_ShuffleMode:$mode, AnyType:$value, I32:$delta, Optional<AnyInteger>:$mask);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$mode $value `,` $delta (`mask` $mask^ `:` type($mask))? attr-dict `:` type($value)";
  let hasVerifier = 1;
}

def Kuiper_VoteOp : Kuiper_Op<"vote", [DeclareOpInterfaceMethods<Kuiper_CollectiveOpInterface>]> {
  let summary = "warp vote: ballot (-> i32 mask), any, all (-> i1)";
  let arguments = (ins Kuiper_VoteMode:$mode, I1:$pred, Optional<AnyInteger>:$mask);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$mode $pred (`mask` $mask^ `:` type($mask))? attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Kuiper_SyncWarpOp : Kuiper_Op<"syncwarp", [DeclareOpInterfaceMethods<Kuiper_CollectiveOpInterface>]> {
  let summary = "warp-level barrier";
  let arguments = (ins Optional<AnyInteger>:$mask);
  let assemblyFormat = "(`mask` $mask^ `:` type($mask))? attr-dict";
}

//===----------------------------------------------------------------------===//
// Loops with invariants
//===----------------------------------------------------------------------===//

def Kuiper_ForOp : Kuiper_Op<"for", [AllTypesMatch<["lo", "hi", "step"]>]> {
  let summary = "counted loop with invariants";
  let description = [{
    Iterates `%i = lo, lo+step, ...` while `%i < hi` (signed). The
    `invariants` region (argument: the induction variable) holds
    `kuiper.invariant` ops; the body (argument: the induction variable) ends in
    `kuiper.yield`.
  }];
  let arguments = (ins AnyInteger:$lo, AnyInteger:$hi, AnyInteger:$step);
  let regions = (region SizedRegion<1>:$invariants, SizedRegion<1>:$body);
  let assemblyFormat = "$lo `to` $hi `step` $step attr-dict `:` type($lo) `invariants` $invariants `do` $body";
  let hasVerifier = 1;
}

def Kuiper_WhileOp : Kuiper_Op<"while"> {
  let summary = "while loop with invariants";
  let description = [{
    `cond` yields the i1 tested before each iteration, `invariants` holds
    `kuiper.invariant` ops, `body` ends in `kuiper.yield`.
  }];
  let regions = (region SizedRegion<1>:$cond, SizedRegion<1>:$invariants, SizedRegion<1>:$body);
  let assemblyFormat = "`cond` $cond `invariants` $invariants `do` $body attr-dict";
  let hasVerifier = 1;
}

#endif
