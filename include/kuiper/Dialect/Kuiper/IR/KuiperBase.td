//===- KuiperBase.td - Kuiper dialect, types ---------------*- tablegen -*-===//
#ifndef KUIPER_BASE_TD
#define KUIPER_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "kuiper/Dialect/Kuiper/IR/KuiperEnums.td"

def Kuiper_Dialect : Dialect {
  let name = "kuiper";
  let cppNamespace = "::kuiper";
  let summary = "GPU kernels with their verification contracts";
  let description = [{
    The `kuiper` dialect holds kernels as written in `.kp` together with their
    specifications (pre/postconditions, memory contracts, barrier contracts,
    loop invariants) as first-class ops. The verifier reads this IR; lowering
    erases the spec ops only afterwards.
  }];
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::math::MathDialect"];
}

class Kuiper_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Kuiper_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Kuiper_BufferType : Kuiper_Type<"Buffer", "buffer"> {
  let summary = "a global-memory buffer parameter";
  let description = [{
    A row-major buffer in global memory: `!kuiper.buffer<f32, 2, in>` is a
    rank-2 read-only buffer. Its dimensions are given by a `kuiper.shape` op.
    The access mode (`in`, `out`, `inout`) is what the kernel may do with it.
  }];
  let parameters = (ins "::mlir::Type":$elementType, "unsigned":$rank,
                        EnumParameter<Kuiper_BufferAccess>:$access);
  let assemblyFormat = "`<` $elementType `,` $rank `,` $access `>`";
}

def Kuiper_SharedType : Kuiper_Type<"Shared", "shared"> {
  let summary = "a block-shared array of fixed shape";
  let description = [{ `!kuiper.shared<f32, [32, 33]>`, row-major. }];
  let parameters = (ins "::mlir::Type":$elementType, ArrayRefParameter<"int64_t">:$shape);
  let assemblyFormat = "`<` $elementType `,` `[` $shape `]` `>`";
}

def Kuiper_MemoryType : AnyTypeOf<[Kuiper_BufferType, Kuiper_SharedType]>;
def Kuiper_IntLike : AnyTypeOf<[AnyInteger]>;

#endif
