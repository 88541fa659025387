//===- Interpreter.cpp - The kuiper IR interpreter -------------------------===//
//
// Interprets one `kuiper.kernel` op in its launch geometry. Every thread is an
// explicit interpreter state (a stack of frames, each a block and an op
// iterator, plus an SSA value map) that runs until it reaches a barrier, a
// warp collective or its end; a per-block scheduler interleaves the threads,
// resolves collectives per warp and releases barriers. Spec regions
// (requires, ensures, asserts, invariants, barrier contracts) never suspend
// and are evaluated by a plain recursive evaluator.
//
//===----------------------------------------------------------------------===//
#include "runtime/Interpreter.h"
#include "runtime/Float16.h"
#include "runtime/ModuleImpl.h"

#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Location.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>

using namespace mlir;

namespace kuiper {
namespace detail {
namespace {

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

enum class FK : uint8_t { F16, BF16, F32, F64 };

/// A runtime value: an integer (masked to its width), a float (a double
/// already rounded to its type), or a reference to memory.
struct Val {
  enum Kind : uint8_t { Undef, Int, Flt, Buf, Shr, Loc };
  Kind kind = Undef;
  uint8_t bits = 0;
  FK fk = FK::F32;
  uint64_t i = 0;
  double f = 0;
  double mag = 0; ///< approx clauses: sum of the magnitudes of the terms
};

uint64_t maskOf(unsigned bits) {
  return bits >= 64 ? ~0ull : ((1ull << bits) - 1);
}
int64_t sext(uint64_t v, unsigned bits) {
  if (bits >= 64)
    return (int64_t)v;
  unsigned sh = 64 - bits;
  return (int64_t)(v << sh) >> sh;
}
Val mkInt(unsigned bits, uint64_t v) {
  Val r;
  r.kind = Val::Int;
  r.bits = bits;
  r.i = v & maskOf(bits);
  return r;
}
Val mkBool(bool b) { return mkInt(1, b); }

double roundTo(FK fk, double x) {
  switch (fk) {
  case FK::F64:
    return x;
  case FK::F32:
    return (double)(float)x;
  case FK::F16:
    return halfToFloat(floatToHalf((float)x));
  case FK::BF16:
    return bf16ToFloat(floatToBf16((float)x));
  }
  return x;
}
Val mkFlt(FK fk, double x, double mag, bool exact = false) {
  Val r;
  r.kind = Val::Flt;
  r.fk = fk;
  r.bits = fk == FK::F64 ? 64 : fk == FK::F32 ? 32 : 16;
  r.f = exact ? x : roundTo(fk, x);
  r.mag = mag;
  return r;
}

bool floatKind(Type t, FK &fk) {
  if (t.isF32())
    fk = FK::F32;
  else if (t.isF64())
    fk = FK::F64;
  else if (t.isF16())
    fk = FK::F16;
  else if (t.isBF16())
    fk = FK::BF16;
  else
    return false;
  return true;
}

/// Storage of one element type.
struct ElemT {
  bool flt = false;
  FK fk = FK::F32;
  unsigned bits = 32;
  unsigned size = 4;
  std::string name;
};

bool elemTypeOf(Type t, ElemT &e) {
  if (floatKind(t, e.fk)) {
    e.flt = true;
    e.bits = e.fk == FK::F64 ? 64 : e.fk == FK::F32 ? 32 : 16;
    e.size = e.bits / 8;
    e.name = e.fk == FK::F64   ? "f64"
             : e.fk == FK::F32 ? "f32"
             : e.fk == FK::F16 ? "f16"
                               : "bf16";
    return true;
  }
  if (auto it = dyn_cast<IntegerType>(t)) {
    e.flt = false;
    e.bits = it.getWidth();
    if (e.bits > 64)
      return false;
    e.size = e.bits <= 8 ? 1 : e.bits <= 16 ? 2 : e.bits <= 32 ? 4 : 8;
    e.name = e.bits == 1 ? "bool" : "i" + std::to_string(e.bits);
    return true;
  }
  return false;
}

Val readElem(const ElemT &e, const uint8_t *p) {
  if (e.flt) {
    double d = 0;
    switch (e.fk) {
    case FK::F64:
      std::memcpy(&d, p, 8);
      break;
    case FK::F32: {
      float f;
      std::memcpy(&f, p, 4);
      d = f;
      break;
    }
    case FK::F16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      d = halfToFloat(h);
      break;
    }
    case FK::BF16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      d = bf16ToFloat(h);
      break;
    }
    }
    return mkFlt(e.fk, d, std::fabs(d), true);
  }
  uint64_t v = 0;
  std::memcpy(&v, p, e.size); // little endian
  return mkInt(e.bits, v);
}

void writeElem(const ElemT &e, uint8_t *p, const Val &v) {
  if (e.flt) {
    double d = v.kind == Val::Flt ? v.f : (double)sext(v.i, v.bits);
    switch (e.fk) {
    case FK::F64:
      std::memcpy(p, &d, 8);
      break;
    case FK::F32: {
      float f = (float)d;
      std::memcpy(p, &f, 4);
      break;
    }
    case FK::F16: {
      uint16_t h = floatToHalf((float)d);
      std::memcpy(p, &h, 2);
      break;
    }
    case FK::BF16: {
      uint16_t h = floatToBf16((float)d);
      std::memcpy(p, &h, 2);
      break;
    }
    }
    return;
  }
  uint64_t x = v.i & maskOf(e.bits);
  std::memcpy(p, &x, e.size);
}

/// Fills storage with a recognisable garbage pattern (a NaN for floats).
void poison(const ElemT &e, uint8_t *p, size_t n) {
  for (size_t k = 0; k < n; ++k) {
    uint8_t *q = p + k * e.size;
    if (e.flt) {
      switch (e.fk) {
      case FK::F64: {
        uint64_t b = 0x7ff8deadbeef0000ull;
        std::memcpy(q, &b, 8);
        break;
      }
      case FK::F32: {
        uint32_t b = 0x7fdeadbe;
        std::memcpy(q, &b, 4);
        break;
      }
      default: {
        uint16_t b = e.fk == FK::F16 ? 0x7e5a : 0x7fda;
        std::memcpy(q, &b, 2);
        break;
      }
      }
    } else {
      uint64_t b = e.bits == 1 ? 1 : 0xdeadbeefdeadbeefull;
      std::memcpy(q, &b, e.size);
    }
  }
}

std::string fmtDouble(double d, bool f64) {
  if (std::isnan(d))
    return "nan";
  if (std::isinf(d))
    return d > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, f64 ? "%.17g" : "%.9g", d);
  return buf;
}

std::string fmtVal(const Val &v) {
  switch (v.kind) {
  case Val::Int:
    if (v.bits == 1)
      return v.i ? "true" : "false";
    return std::to_string(sext(v.i, v.bits));
  case Val::Flt:
    return fmtDouble(v.f, v.fk == FK::F64);
  case Val::Undef:
    return "undef";
  default:
    return "<memory>";
  }
}

std::string locOf(Operation *op) {
  if (!op)
    return "";
  if (auto fl = op->getLoc()->findInstanceOf<FileLineColLoc>())
    return fl.getFilename().str() + ":" + std::to_string(fl.getLine()) + ":" +
           std::to_string(fl.getColumn());
  return "";
}

std::string idxStr(ArrayRef<int64_t> idx) {
  std::string s;
  for (size_t k = 0; k < idx.size(); ++k)
    s += (k ? ", " : "") + std::to_string(idx[k]);
  return s;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// One access remembered by the race detector.
struct Acc {
  int64_t blk = -1;
  int32_t thr = -1;
  int32_t epoch = 0;
  bool atomic = false;
  bool same(const Acc &o) const { return blk == o.blk && thr == o.thr; }
};
/// Shadow state of one location: the last writer and two distinct readers.
struct Shadow {
  Acc w, r1, r2;
};

bool conflicts(const Acc &prev, const Acc &cur) {
  if (prev.blk < 0 || prev.same(cur))
    return false;
  if (prev.atomic && cur.atomic)
    return false;
  return prev.blk != cur.blk || prev.epoch == cur.epoch;
}

using Box = std::vector<std::pair<int64_t, int64_t>>;

struct BufState {
  std::string name;
  BufferAccess access = BufferAccess::In;
  ElemT et;
  std::vector<int64_t> dims;
  uint8_t *data = nullptr;
  int64_t n = 0;
  std::vector<uint8_t> oldData;
  std::vector<Shadow> shadow;
  std::vector<uint8_t> written;
  std::vector<Box> reads, writes;
};

struct SharedState {
  std::string name;
  ElemT et;
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;
  std::vector<Shadow> shadow;
};

//===----------------------------------------------------------------------===//
// Contexts and threads
//===----------------------------------------------------------------------===//

enum class Mode { Code, Spec };

/// An evaluation context: the host (header, ensures) or one thread.
struct Ctx {
  llvm::DenseMap<Value, Val> vals;
  std::vector<Val> locals;
  bool isThread = false;
  bool spec = false;
  bool approx = false;
  bool old = false;
  bool missingBuffer = false;
  // Failure description of the clause being evaluated.
  std::vector<std::pair<std::string, int64_t>> binders;
  std::string lastFail;
  /// Why a spec value is false: text, and whether it already names indices.
  llvm::DenseMap<Value, std::pair<std::string, bool>> falseWhy;
  llvm::DenseMap<Value, std::string> loadDesc;
};

struct Frame {
  enum Kind { Body, If, For, While } kind = Body;
  Operation *op = nullptr;
  Block *block = nullptr;
  Block::iterator it;
  int64_t iv = 0, hi = 0, step = 1;
  unsigned ivBits = 32;
  int phase = 0; // while: 0 cond, 1 body
};

struct Thread : Ctx {
  int64_t tid[3] = {0, 0, 0};
  int32_t linear = 0;
  enum St { Ready, AtBarrier, AtColl, Done } st = Ready;
  std::vector<Frame> stack;
  Operation *waitOp = nullptr;
  Val collVal;
  int64_t collDelta = 0;
  bool hasMask = false;
  uint64_t mask = 0;
};

static std::pair<std::string, bool> explain(Ctx &c, Value v, int depth = 0);

enum OpCode {
  OC_Unknown,
  OC_Constant, OC_AddI, OC_SubI, OC_MulI, OC_DivSI, OC_DivUI, OC_RemSI,
  OC_RemUI, OC_CeilDivSI, OC_FloorDivSI, OC_AndI, OC_OrI, OC_XOrI, OC_ShlI,
  OC_ShrSI, OC_ShrUI, OC_CmpI, OC_CmpF, OC_Select, OC_AddF, OC_SubF, OC_MulF,
  OC_DivF, OC_NegF, OC_RemF, OC_MinNumF, OC_MaxNumF, OC_MinimumF,
  OC_MaximumF, OC_MinSI, OC_MaxSI, OC_MinUI, OC_MaxUI, OC_ExtSI, OC_ExtUI,
  OC_TruncI, OC_SIToFP, OC_UIToFP, OC_FPToSI, OC_FPToUI, OC_ExtF, OC_TruncF,
  OC_Bitcast, OC_IndexCast,
  OC_Exp, OC_Exp2, OC_Log, OC_Log2, OC_Sqrt, OC_Rsqrt, OC_Tanh, OC_Erf,
  OC_AbsF, OC_Floor, OC_Ceil, OC_Sin, OC_Cos, OC_Fma, OC_PowF, OC_AbsI,
  OC_Alloca, OC_MLoad, OC_MStore,
  OC_ScfIf,
  OC_ThreadId, OC_BlockId, OC_GridDim, OC_LaneId, OC_WarpId, OC_SharedAlloc,
  OC_Load, OC_Store, OC_Atomic, OC_Assert, OC_Assume, OC_Invariant,
  OC_Forall, OC_Exists, OC_Sum, OC_Old, OC_For, OC_While, OC_Barrier,
  OC_Header, OC_Shfl, OC_Vote, OC_SyncWarp,
};

OpCode opcodeOf(StringRef n) {
  return llvm::StringSwitch<OpCode>(n)
      .Case("arith.constant", OC_Constant)
      .Case("arith.addi", OC_AddI)
      .Case("arith.subi", OC_SubI)
      .Case("arith.muli", OC_MulI)
      .Case("arith.divsi", OC_DivSI)
      .Case("arith.divui", OC_DivUI)
      .Case("arith.remsi", OC_RemSI)
      .Case("arith.remui", OC_RemUI)
      .Case("arith.ceildivsi", OC_CeilDivSI)
      .Case("arith.floordivsi", OC_FloorDivSI)
      .Case("arith.andi", OC_AndI)
      .Case("arith.ori", OC_OrI)
      .Case("arith.xori", OC_XOrI)
      .Case("arith.shli", OC_ShlI)
      .Case("arith.shrsi", OC_ShrSI)
      .Case("arith.shrui", OC_ShrUI)
      .Case("arith.cmpi", OC_CmpI)
      .Case("arith.cmpf", OC_CmpF)
      .Case("arith.select", OC_Select)
      .Case("arith.addf", OC_AddF)
      .Case("arith.subf", OC_SubF)
      .Case("arith.mulf", OC_MulF)
      .Case("arith.divf", OC_DivF)
      .Case("arith.negf", OC_NegF)
      .Case("arith.remf", OC_RemF)
      .Case("arith.minnumf", OC_MinNumF)
      .Case("arith.maxnumf", OC_MaxNumF)
      .Case("arith.minimumf", OC_MinimumF)
      .Case("arith.maximumf", OC_MaximumF)
      .Case("arith.minsi", OC_MinSI)
      .Case("arith.maxsi", OC_MaxSI)
      .Case("arith.minui", OC_MinUI)
      .Case("arith.maxui", OC_MaxUI)
      .Case("arith.extsi", OC_ExtSI)
      .Case("arith.extui", OC_ExtUI)
      .Case("arith.trunci", OC_TruncI)
      .Case("arith.sitofp", OC_SIToFP)
      .Case("arith.uitofp", OC_UIToFP)
      .Case("arith.fptosi", OC_FPToSI)
      .Case("arith.fptoui", OC_FPToUI)
      .Case("arith.extf", OC_ExtF)
      .Case("arith.truncf", OC_TruncF)
      .Case("arith.bitcast", OC_Bitcast)
      .Case("arith.index_cast", OC_IndexCast)
      .Case("arith.index_castui", OC_IndexCast)
      .Case("math.exp", OC_Exp)
      .Case("math.exp2", OC_Exp2)
      .Case("math.log", OC_Log)
      .Case("math.log2", OC_Log2)
      .Case("math.sqrt", OC_Sqrt)
      .Case("math.rsqrt", OC_Rsqrt)
      .Case("math.tanh", OC_Tanh)
      .Case("math.erf", OC_Erf)
      .Case("math.absf", OC_AbsF)
      .Case("math.floor", OC_Floor)
      .Case("math.ceil", OC_Ceil)
      .Case("math.sin", OC_Sin)
      .Case("math.cos", OC_Cos)
      .Case("math.fma", OC_Fma)
      .Case("math.powf", OC_PowF)
      .Case("math.absi", OC_AbsI)
      .Case("memref.alloca", OC_Alloca)
      .Case("memref.load", OC_MLoad)
      .Case("memref.store", OC_MStore)
      .Case("scf.if", OC_ScfIf)
      .Case("kuiper.thread_id", OC_ThreadId)
      .Case("kuiper.block_id", OC_BlockId)
      .Case("kuiper.grid_dim", OC_GridDim)
      .Case("kuiper.lane_id", OC_LaneId)
      .Case("kuiper.warp_id", OC_WarpId)
      .Case("kuiper.shared_alloc", OC_SharedAlloc)
      .Case("kuiper.load", OC_Load)
      .Case("kuiper.store", OC_Store)
      .Case("kuiper.atomic", OC_Atomic)
      .Case("kuiper.assert", OC_Assert)
      .Case("kuiper.assume", OC_Assume)
      .Case("kuiper.invariant", OC_Invariant)
      .Case("kuiper.forall", OC_Forall)
      .Case("kuiper.exists", OC_Exists)
      .Case("kuiper.sum", OC_Sum)
      .Case("kuiper.old", OC_Old)
      .Case("kuiper.for", OC_For)
      .Case("kuiper.while", OC_While)
      .Case("kuiper.barrier", OC_Barrier)
      .Cases({"kuiper.shape", "kuiper.launch", "kuiper.requires",
              "kuiper.ensures", "kuiper.access"},
             OC_Header)
      .Case("kuiper.shfl", OC_Shfl)
      .Case("kuiper.vote", OC_Vote)
      .Case("kuiper.syncwarp", OC_SyncWarp)
      .Default(OC_Unknown);
}

//===----------------------------------------------------------------------===//
// The interpreter
//===----------------------------------------------------------------------===//

class Interp {
public:
  Interp(KernelOp kernel, const ExecOptions &opts, ExecResult &res)
      : kernel(kernel), opts(opts), res(res), rng(opts.seed) {}

  /// Binds arguments and evaluates the header. With `run`, buffers must be
  /// bound and consistent.
  bool setup(const Args &args, bool run);
  /// Runs every block and the post-run checks.
  bool runAll();
  /// Evaluates the ensures on the current buffers (violations recorded).
  bool checkEnsures();
  void finish(Args &args);

  Error error;
  bool failed = false;
  uint64_t totalSteps = 0;
  LaunchInfo launch;

private:
  KernelOp kernel;
  const ExecOptions &opts;
  ExecResult &res;
  std::mt19937_64 rng;

  std::vector<BufState> bufs;
  std::vector<SharedState> shared;
  llvm::DenseMap<Operation *, unsigned> sharedIndex;
  llvm::DenseMap<OperationName, OpCode> opcodes;
  Ctx host;
  std::vector<Operation *> ensures;
  int64_t curBlock[3] = {0, 0, 0};
  int64_t curBlockLinear = 0;
  int32_t epoch = 0;
  std::map<std::pair<std::string, Operation *>, size_t> seen;
  unsigned dropped = 0;

  // Errors and violations.
  bool fail(const std::string &msg, int code = 3) {
    if (!failed) {
      failed = true;
      error = Error{msg, code};
    }
    return false;
  }
  void violate(const std::string &kind, Operation *op, const std::string &msg,
               std::vector<std::pair<std::string, std::string>> details = {}) {
    auto key = std::make_pair(kind, op);
    auto it = seen.find(key);
    if (it != seen.end()) {
      ++res.violations[it->second].count;
      return;
    }
    if (res.violations.size() >= opts.maxViolations) {
      ++dropped;
      return;
    }
    seen[key] = res.violations.size();
    Violation v;
    v.kind = kind;
    v.message = msg;
    v.location = locOf(op);
    v.details = std::move(details);
    res.violations.push_back(std::move(v));
  }
  std::string who(const Ctx &c) const {
    if (!c.isThread)
      return "host";
    auto &t = static_cast<const Thread &>(c);
    return "(" + std::to_string(curBlockLinear) + "," +
           std::to_string(t.linear) + ")";
  }
  std::string who(const Acc &a) const {
    return "(" + std::to_string(a.blk) + "," + std::to_string(a.thr) + ")";
  }
  std::vector<std::pair<std::string, std::string>> whoDetails(const Ctx &c) {
    if (!c.isThread)
      return {};
    auto &t = static_cast<const Thread &>(c);
    return {{"block", std::to_string(curBlockLinear)},
            {"thread", std::to_string(t.linear)}};
  }

  OpCode code(Operation *op) {
    auto it = opcodes.find(op->getName());
    if (it != opcodes.end())
      return it->second;
    OpCode c = opcodeOf(op->getName().getStringRef());
    opcodes[op->getName()] = c;
    return c;
  }

  // Values.
  bool get(Ctx &c, Value v, Val &out) {
    auto it = c.vals.find(v);
    if (it != c.vals.end()) {
      out = it->second;
      return true;
    }
    if (c.isThread) {
      auto h = host.vals.find(v);
      if (h != host.vals.end()) {
        out = h->second;
        return true;
      }
    }
    return false;
  }
  bool need(Ctx &c, Value v, Val &out, Operation *op) {
    if (get(c, v, out))
      return true;
    return fail("internal: value used by '" + op->getName().getStringRef().str() +
                "' at " + locOf(op) + " was not computed");
  }
  void setv(Ctx &c, Value v, const Val &x) { c.vals[v] = x; }

  // Evaluation.
  bool execOp(Operation *op, Ctx &c);
  bool execArith(Operation *op, OpCode oc, Ctx &c);
  bool evalRegion(Region &r, ArrayRef<Val> args, Ctx &c,
                  SmallVectorImpl<Val> &out);
  bool evalClause(Region &r, Ctx &c, bool approx, bool &holds);
  bool checkInvariants(Operation *loop, Region &inv, ArrayRef<Val> args, Ctx &c);
  /// The element a load, store or atomic addresses (ptr is null when the
  /// access is out of bounds and was reported).
  struct ElemRef {
    uint8_t *ptr = nullptr;
    ElemT et;
    Shadow *sh = nullptr;
    BufState *buf = nullptr;
    std::string where;
    std::vector<int64_t> idx;
  };
  bool memRef(Operation *op, Ctx &c, Value ref, ValueRange indices, ElemRef &e);
  void recordAccess(Operation *op, Ctx &c, Shadow *sh, BufState *buf,
                    const std::string &where, bool write, bool atomic);

  // Threads.
  bool runBlock();
  void runThread(Thread &t, bool yieldAtMemory);
  bool terminator(Thread &t, Operation *op);
  bool enterFor(Thread &t, Operation *op);
  bool resolveCollectives(std::vector<Thread> &threads);
};

//===----------------------------------------------------------------------===//
// Setup
//===----------------------------------------------------------------------===//

bool Interp::setup(const Args &args, bool run) {
  Block &entry = kernel.getBody().front();
  auto names = kernel.getArgNames();
  auto blk = kernel.getBlock();
  for (int d = 0; d < 3; ++d)
    launch.block[d] = blk[d];

  for (BlockArgument arg : entry.getArguments()) {
    std::string name = cast<StringAttr>(names[arg.getArgNumber()]).str();
    Type t = arg.getType();
    if (auto bt = dyn_cast<BufferType>(t)) {
      BufState b;
      b.name = name;
      b.access = bt.getAccess();
      if (!elemTypeOf(bt.getElementType(), b.et))
        return fail("buffer '" + name + "' has an unsupported element type");
      Val v;
      v.kind = Val::Buf;
      v.i = bufs.size();
      setv(host, arg, v);
      bufs.push_back(std::move(b));
      launch.bufferTypes[name] = {bufs.back().et.name, stringifyBufferAccess(bufs.back().access).str()};
      continue;
    }
    const ScalarValue *s = args.scalar(name);
    if (!s)
      return fail("missing scalar argument '" + name + "'", 2);
    FK fk;
    if (floatKind(t, fk)) {
      double d = std::holds_alternative<double>(*s)    ? std::get<double>(*s)
                 : std::holds_alternative<int64_t>(*s) ? (double)std::get<int64_t>(*s)
                                                       : (double)std::get<bool>(*s);
      setv(host, arg, mkFlt(fk, d, std::fabs(d)));
    } else if (auto it = dyn_cast<IntegerType>(t)) {
      if (std::holds_alternative<double>(*s))
        return fail("scalar argument '" + name + "' is an integer", 2);
      int64_t x = std::holds_alternative<int64_t>(*s) ? std::get<int64_t>(*s)
                                                      : (int64_t)std::get<bool>(*s);
      unsigned w = it.getWidth();
      if (w < 64 && (x > (int64_t)maskOf(w) || x < -(int64_t)(1ull << (w - 1))))
        return fail("scalar argument '" + name + "' = " + std::to_string(x) +
                        " does not fit in i" + std::to_string(w),
                    2);
      setv(host, arg, mkInt(w, (uint64_t)x));
    } else {
      return fail("parameter '" + name + "' has an unsupported type");
    }
  }

  // Header: shapes, launch, access boxes; arith on the scalars.
  std::vector<Operation *> reqs;
  std::string headerError;
  bool haveGrid = false;
  for (Operation &opr : entry) {
    Operation *op = &opr;
    if (auto shape = dyn_cast<ShapeOp>(op)) {
      Val bv;
      if (!need(host, shape.getBuffer(), bv, op))
        return false;
      BufState &b = bufs[bv.i];
      b.dims.clear();
      for (Value d : shape.getDims()) {
        Val x;
        if (!need(host, d, x, op))
          return false;
        int64_t v = sext(x.i, x.bits);
        if (v < 0 && headerError.empty())
          headerError = "buffer '" + b.name + "' gets a negative dimension " +
                        std::to_string(v);
        b.dims.push_back(v);
      }
      launch.bufferDims[b.name] = b.dims;
    } else if (auto l = dyn_cast<LaunchOp>(op)) {
      for (unsigned d = 0; d < 3 && d < l.getGrid().size(); ++d) {
        Val x;
        if (!need(host, l.getGrid()[d], x, op))
          return false;
        launch.grid[d] = sext(x.i, x.bits);
        if (launch.grid[d] < 0 && headerError.empty())
          headerError = "the launch grid gets a negative dimension " +
                        std::to_string(launch.grid[d]);
      }
      haveGrid = true;
    } else if (isa<RequiresOp>(op)) {
      reqs.push_back(op);
    } else if (isa<EnsuresOp>(op)) {
      ensures.push_back(op);
    } else if (auto acc = dyn_cast<AccessOp>(op)) {
      Val bv;
      if (!need(host, acc.getBuffer(), bv, op))
        return false;
      Box box;
      auto bounds = acc.getBounds();
      for (unsigned k = 0; k + 1 < bounds.size(); k += 2) {
        Val lo, hi;
        if (!need(host, bounds[k], lo, op) || !need(host, bounds[k + 1], hi, op))
          return false;
        box.push_back({sext(lo.i, lo.bits), sext(hi.i, hi.bits)});
      }
      (acc.getKind() == AccessKind::Reads ? bufs[bv.i].reads : bufs[bv.i].writes)
          .push_back(std::move(box));
    } else {
      StringRef dialect = op->getName().getDialectNamespace();
      bool pure = dialect == "arith" || dialect == "math" ||
                  isa<memref::AllocaOp>(op);
      if (isa<scf::IfOp>(op)) {
        pure = true;
        op->walk([&](Operation *inner) {
          StringRef d = inner->getName().getDialectNamespace();
          if (inner != op && d != "arith" && d != "math" &&
              !isa<scf::YieldOp>(inner))
            pure = false;
        });
      }
      if (!pure)
        continue;
      bool ready = true;
      op->walk([&](Operation *inner) {
        for (Value v : inner->getOperands()) {
          Operation *def = v.getDefiningOp();
          bool local = def && op->isAncestor(def);
          Val tmp;
          if (!local && !get(host, v, tmp))
            ready = false;
        }
      });
      if (ready && !execOp(op, host))
        return false;
    }
  }
  if (!haveGrid)
    return fail("kernel has no kuiper.launch");
  for (auto &b : bufs)
    if (b.dims.empty() && launch.bufferDims.count(b.name) == 0)
      return fail("buffer '" + b.name + "' has no kuiper.shape");

  // Bind buffers.
  for (auto &b : bufs) {
    if (!headerError.empty())
      break;
    b.n = 1;
    for (int64_t d : b.dims) {
      if (d != 0 && b.n > (int64_t(1) << 40) / d)
        return fail("buffer '" + b.name + "' is too large", 2);
      b.n *= d;
    }
    const HostBuffer *hb = args.buffer(b.name);
    if (!hb) {
      if (run)
        return fail("missing buffer argument '" + b.name + "'", 2);
      continue;
    }
    if (!hb->elemType.empty()) {
      size_t sz = elementSize(hb->elemType);
      bool hflt = !hb->elemType.empty() &&
                  (hb->elemType[0] == 'f' || hb->elemType[0] == 'b') &&
                  hb->elemType != "bool";
      if (sz != b.et.size || hflt != b.et.flt ||
          (b.et.flt && hb->elemType != b.et.name))
        return fail("buffer '" + b.name + "' holds " + hb->elemType +
                        ", the kernel expects " + b.et.name,
                    2);
    }
    int64_t have = (int64_t)(hb->bytes.size() / b.et.size);
    if ((int64_t)hb->bytes.size() != b.n * (int64_t)b.et.size) {
      std::string dims;
      for (size_t k = 0; k < b.dims.size(); ++k)
        dims += (k ? ", " : "") + std::to_string(b.dims[k]);
      return fail("buffer '" + b.name + "' holds " + std::to_string(have) +
                      " elements, its shape [" + dims + "] needs " +
                      std::to_string(b.n),
                  2);
    }
    b.data = const_cast<uint8_t *>(hb->bytes.data());
  }

  // Requires.
  for (Operation *op : reqs) {
    bool holds = true;
    host.missingBuffer = false;
    if (!evalClause(op->getRegion(0), host, false, holds))
      return false;
    if (host.missingBuffer) {
      launch.requiresNeedBuffers = true;
      continue;
    }
    if (!holds && launch.requiresHold) {
      launch.requiresHold = false;
      launch.failedRequires = "requires at " + locOf(op);
      if (!host.lastFail.empty())
        launch.failedRequires += ": " + host.lastFail;
    }
  }
  res.launch = launch;
  if (!headerError.empty() && launch.requiresHold)
    return fail(headerError, 2);
  return true;
}

//===----------------------------------------------------------------------===//
// Spec regions
//===----------------------------------------------------------------------===//

bool Interp::evalRegion(Region &r, ArrayRef<Val> args, Ctx &c,
                        SmallVectorImpl<Val> &out) {
  out.clear();
  if (r.empty())
    return true;
  Block &b = r.front();
  for (unsigned k = 0; k < b.getNumArguments() && k < args.size(); ++k)
    setv(c, b.getArgument(k), args[k]);
  for (Operation &op : b) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      for (Value v : op.getOperands()) {
        Val x;
        if (!need(c, v, x, &op))
          return false;
        out.push_back(x);
      }
      return true;
    }
    if (!execOp(&op, c))
      return false;
  }
  return true;
}

bool Interp::evalClause(Region &r, Ctx &c, bool approx, bool &holds) {
  bool spec = c.spec, apx = c.approx;
  c.spec = true;
  c.approx = approx;
  c.lastFail.clear();
  c.binders.clear();
  c.loadDesc.clear();
  c.falseWhy.clear();
  SmallVector<Val, 1> out;
  bool ok = evalRegion(r, {}, c, out);
  c.spec = spec;
  c.approx = apx;
  if (!ok)
    return false;
  holds = out.empty() || out[0].kind != Val::Int || out[0].i != 0;
  if (c.missingBuffer)
    holds = true;
  if (!holds && !r.empty())
    c.lastFail = explain(c, r.front().getTerminator()->getOperand(0)).first;
  return true;
}

bool Interp::checkInvariants(Operation *loop, Region &inv, ArrayRef<Val> args,
                             Ctx &c) {
  if (!opts.checks || inv.empty())
    return true;
  bool approx = false;
  inv.walk([&](InvariantOp i) { approx |= i.getApprox(); });
  bool spec = c.spec, apx = c.approx;
  c.spec = true;
  c.approx = approx;
  c.lastFail.clear();
  c.binders.clear();
  c.falseWhy.clear();
  SmallVector<Val, 1> out;
  bool ok = evalRegion(inv, args, c, out);
  c.spec = spec;
  c.approx = apx;
  return ok;
}

//===----------------------------------------------------------------------===//
// Memory access
//===----------------------------------------------------------------------===//

bool Interp::memRef(Operation *op, Ctx &c, Value ref, ValueRange indices, ElemRef &e) {
  auto &[ptr, et, sh, buf, where, idx] = e;
  ptr = nullptr;
  sh = nullptr;
  buf = nullptr;
  Val r;
  if (!need(c, ref, r, op))
    return false;
  idx.clear();
  for (Value v : indices) {
    Val x;
    if (!need(c, v, x, op))
      return false;
    idx.push_back(sext(x.i, x.bits));
  }
  const std::vector<int64_t> *dims;
  std::string name;
  if (r.kind == Val::Buf) {
    buf = &bufs[r.i];
    dims = &buf->dims;
    name = buf->name;
    et = buf->et;
  } else if (r.kind == Val::Shr) {
    dims = &shared[r.i].dims;
    name = shared[r.i].name;
    et = shared[r.i].et;
  } else {
    return fail("internal: memory op on a non-memory value");
  }
  where = name + "[" + idxStr(idx) + "]";
  int64_t lin = 0;
  for (size_t k = 0; k < idx.size(); ++k) {
    if (idx[k] < 0 || idx[k] >= (*dims)[k]) {
      // A spec clause may read out of bounds under a false guard
      // (`p ==> q` evaluates q eagerly): the value is arbitrary, no fault.
      if (c.spec)
        return true;
      std::string dimStr;
      for (size_t j = 0; j < dims->size(); ++j)
        dimStr += (j ? ", " : "") + std::to_string((*dims)[j]);
      auto d = whoDetails(c);
      d.push_back({"index", idxStr(idx)});
      violate("bounds", op,
              "access " + where + " out of bounds of " + name + "[" + dimStr +
                  "]" + (c.isThread ? " by thread " + who(c) : ""),
              d);
      return true;
    }
    lin = lin * (*dims)[k] + idx[k];
  }
  if (buf) {
    if (!buf->data) {
      c.missingBuffer = true;
      return true;
    }
    ptr = (c.old && !buf->oldData.empty() ? buf->oldData.data() : buf->data) +
          lin * et.size;
    if (!buf->shadow.empty())
      sh = &buf->shadow[lin];
  } else {
    ptr = shared[r.i].data.data() + lin * et.size;
    if (!shared[r.i].shadow.empty())
      sh = &shared[r.i].shadow[lin];
  }
  return true;
}

static bool inBoxes(const std::vector<Box> &boxes, ArrayRef<int64_t> idx) {
  for (const Box &b : boxes) {
    bool in = b.size() == idx.size();
    for (size_t k = 0; in && k < idx.size(); ++k)
      in = idx[k] >= b[k].first && idx[k] < b[k].second;
    if (in)
      return true;
  }
  return false;
}

void Interp::recordAccess(Operation *op, Ctx &c, Shadow *sh, BufState *buf,
                          const std::string &where, bool write, bool atomic) {
  if (!sh || !c.isThread || c.spec)
    return;
  auto &t = static_cast<Thread &>(c);
  Acc cur{curBlockLinear, t.linear, epoch, atomic};
  auto details = [&](const Acc &o) {
    std::vector<std::pair<std::string, std::string>> d = {
        {"location", where},
        {"block", std::to_string(o.blk)},
        {"thread", std::to_string(o.thr)},
        {"block2", std::to_string(cur.blk)},
        {"thread2", std::to_string(cur.thr)}};
    return d;
  };
  if (write) {
    if (conflicts(sh->w, cur)) {
      violate("race", op,
              "threads " + who(sh->w) + " and " + who(cur) + " both wrote " +
                  where,
              details(sh->w));
    } else if (conflicts(sh->r1, cur) || conflicts(sh->r2, cur)) {
      const Acc &o = conflicts(sh->r1, cur) ? sh->r1 : sh->r2;
      violate("race", op,
              "thread " + who(o) + " read " + where + " and thread " + who(cur) +
                  " wrote it without a barrier in between",
              details(o));
    } else if (buf && buf->access == BufferAccess::Out && sh->w.blk >= 0 &&
               !sh->w.same(cur) && !atomic) {
      violate("race", op,
              "out element " + where + " is written by both threads " +
                  who(sh->w) + " and " + who(cur),
              details(sh->w));
    }
    sh->w = cur;
  } else {
    if (conflicts(sh->w, cur))
      violate("race", op,
              "thread " + who(sh->w) + " wrote " + where + " and thread " +
                  who(cur) + " read it without a barrier in between",
              details(sh->w));
  }
  if (!write || atomic) {
    if (sh->r1.blk < 0 || sh->r1.same(cur))
      sh->r1 = cur;
    else
      sh->r2 = cur;
  }
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

static double fminnum(double a, double b) {
  if (std::isnan(a))
    return b;
  if (std::isnan(b))
    return a;
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
static double fmaxnum(double a, double b) {
  if (std::isnan(a))
    return b;
  if (std::isnan(b))
    return a;
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

/// Why the i1 value `v` of a spec region is false: follows and/or/select
/// down to the false comparison (or quantifier) that decides it.
static std::pair<std::string, bool> explain(Ctx &c, Value v, int depth) {
  auto it = c.falseWhy.find(v);
  if (it != c.falseWhy.end())
    return it->second;
  Operation *def = v.getDefiningOp();
  if (!def || depth > 64)
    return {"", false};
  auto isFalse = [&](Value x) {
    auto f = c.vals.find(x);
    return f != c.vals.end() && f->second.kind == Val::Int && f->second.i == 0;
  };
  if (isa<arith::OrIOp, arith::AndIOp>(def)) {
    for (Value x : def->getOperands())
      if (isFalse(x)) {
        auto r = explain(c, x, depth + 1);
        if (!r.first.empty())
          return r;
      }
  } else if (auto sel = dyn_cast<arith::SelectOp>(def)) {
    auto cond = c.vals.find(sel.getCondition());
    if (cond != c.vals.end())
      return explain(c, cond->second.i ? sel.getTrueValue() : sel.getFalseValue(),
                     depth + 1);
  } else if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
    auto cond = c.vals.find(ifOp.getCondition());
    unsigned k = cast<OpResult>(v).getResultNumber();
    if (cond != c.vals.end()) {
      Region &r = cond->second.i ? ifOp.getThenRegion() : ifOp.getElseRegion();
      if (!r.empty())
        return explain(c, r.front().getTerminator()->getOperand(k), depth + 1);
    }
  }
  return {"", false};
}

/// How a false comparison in a clause reads: "y[3] = 1.5, expected 2" for
/// equalities, "n = -3, not sge 0" otherwise.
static std::string failText(Ctx &c, Operation *op, const Val &a, const Val &b,
                            bool equality, const std::string &pred) {
  Value lhsV = op->getOperand(0);
  std::string lhs;
  auto it = c.loadDesc.find(lhsV);
  if (it != c.loadDesc.end()) {
    lhs = it->second;
  } else if (auto arg = dyn_cast<BlockArgument>(lhsV)) {
    if (auto k = dyn_cast<KernelOp>(arg.getOwner()->getParentOp()))
      lhs = cast<StringAttr>(k.getArgNames()[arg.getArgNumber()]).str();
  }
  if (lhs.empty())
    lhs = "lhs";
  if (equality)
    return lhs + " = " + fmtVal(a) + ", expected " + fmtVal(b);
  return lhs + " = " + fmtVal(a) + ", not " + pred + " " + fmtVal(b);
}

bool Interp::execArith(Operation *op, OpCode oc, Ctx &c) {
  Val a, b, z;
  unsigned nops = op->getNumOperands();
  if (nops >= 1 && !need(c, op->getOperand(0), a, op))
    return false;
  if (nops >= 2 && !need(c, op->getOperand(1), b, op))
    return false;
  Type rt = op->getNumResults() ? op->getResult(0).getType() : Type();
  unsigned w = a.bits;
  bool nsw = false, nuw = false;
  if (auto ofi = dyn_cast<arith::ArithIntegerOverflowFlagsInterface>(op)) {
    nsw = ofi.hasNoSignedWrap();
    nuw = ofi.hasNoUnsignedWrap();
  }
  auto overflow = [&](const std::string &what) {
    if (c.spec || !opts.checks)
      return;
    auto d = whoDetails(c);
    d.push_back({"operands", fmtVal(a) + ", " + fmtVal(b)});
    violate("overflow", op,
            what + " (" + op->getName().getStringRef().str() + " " + fmtVal(a) +
                ", " + fmtVal(b) + ")" +
                (c.isThread ? " in thread " + who(c) : ""),
            d);
  };
  int64_t sa = sext(a.i, a.bits), sb = sext(b.i, b.bits);
  uint64_t ua = a.i, ub = b.i;
  __int128 smin = -((__int128)1 << (w - 1)), smax = ((__int128)1 << (w - 1)) - 1;
  unsigned __int128 umax = maskOf(w);
  FK fk = a.fk;
  double fa = a.f, fb = b.f;
  bool ex = c.approx; // approx clauses compute over the reals (no rounding)
  auto flt = [&](double x, double mag) { return mkFlt(fk, x, mag, ex); };
  switch (oc) {
  case OC_AddI:
  case OC_SubI:
  case OC_MulI: {
    __int128 s = oc == OC_AddI   ? (__int128)sa + sb
                 : oc == OC_SubI ? (__int128)sa - sb
                                 : (__int128)sa * sb;
    unsigned __int128 u = oc == OC_AddI   ? (unsigned __int128)ua + ub
                          : oc == OC_SubI ? (unsigned __int128)ua - ub
                                          : (unsigned __int128)ua * ub;
    if (nsw && (s < smin || s > smax))
      overflow("signed overflow");
    else if (nuw && (oc == OC_SubI ? ua < ub : u > umax))
      overflow("unsigned overflow");
    z = mkInt(w, (uint64_t)u);
    break;
  }
  case OC_DivSI:
  case OC_RemSI:
  case OC_CeilDivSI:
  case OC_FloorDivSI:
    if (sb == 0) {
      overflow("division by zero");
      z = mkInt(w, 0);
    } else if (sb == -1 && sa == (int64_t)smin) {
      overflow("signed overflow");
      z = mkInt(w, oc == OC_RemSI ? 0 : (uint64_t)sa);
    } else {
      int64_t q = sa / sb, r = sa % sb;
      if (oc == OC_RemSI)
        z = mkInt(w, (uint64_t)r);
      else if (oc == OC_CeilDivSI)
        z = mkInt(w, (uint64_t)(q + ((r != 0 && ((r > 0) == (sb > 0))) ? 1 : 0)));
      else if (oc == OC_FloorDivSI)
        z = mkInt(w, (uint64_t)(q - ((r != 0 && ((r < 0) != (sb < 0))) ? 1 : 0)));
      else
        z = mkInt(w, (uint64_t)q);
    }
    break;
  case OC_DivUI:
  case OC_RemUI:
    if (ub == 0) {
      overflow("division by zero");
      z = mkInt(w, 0);
    } else {
      z = mkInt(w, oc == OC_DivUI ? ua / ub : ua % ub);
    }
    break;
  case OC_AndI:
    z = mkInt(w, ua & ub);
    break;
  case OC_OrI:
    z = mkInt(w, ua | ub);
    break;
  case OC_XOrI:
    z = mkInt(w, ua ^ ub);
    break;
  case OC_ShlI:
  case OC_ShrSI:
  case OC_ShrUI:
    if (ub >= w) {
      overflow("shift amount out of range");
      z = mkInt(w, 0);
    } else if (oc == OC_ShlI) {
      uint64_t r = (ua << ub) & maskOf(w);
      if (nsw && (sext(r, w) >> ub) != sa)
        overflow("signed overflow");
      else if (nuw && (r >> ub) != ua)
        overflow("unsigned overflow");
      z = mkInt(w, r);
    } else if (oc == OC_ShrSI) {
      z = mkInt(w, (uint64_t)(sa >> ub));
    } else {
      z = mkInt(w, ua >> ub);
    }
    break;
  case OC_MinSI:
    z = sa <= sb ? a : b;
    break;
  case OC_MaxSI:
    z = sa >= sb ? a : b;
    break;
  case OC_MinUI:
    z = ua <= ub ? a : b;
    break;
  case OC_MaxUI:
    z = ua >= ub ? a : b;
    break;
  case OC_CmpI: {
    using P = arith::CmpIPredicate;
    bool r = false;
    switch (cast<arith::CmpIOp>(op).getPredicate()) {
    case P::eq: r = ua == ub; break;
    case P::ne: r = ua != ub; break;
    case P::slt: r = sa < sb; break;
    case P::sle: r = sa <= sb; break;
    case P::sgt: r = sa > sb; break;
    case P::sge: r = sa >= sb; break;
    case P::ult: r = ua < ub; break;
    case P::ule: r = ua <= ub; break;
    case P::ugt: r = ua > ub; break;
    case P::uge: r = ua >= ub; break;
    }
    if (!r && c.spec) {
      auto pred = cast<arith::CmpIOp>(op).getPredicate();
      c.falseWhy[op->getResult(0)].first = failText(c, op, a, b, pred == arith::CmpIPredicate::eq,
                            arith::stringifyCmpIPredicate(pred).str());
    }
    z = mkBool(r);
    break;
  }
  case OC_CmpF: {
    using P = arith::CmpFPredicate;
    bool una = std::isnan(fa) || std::isnan(fb);
    double eps = c.approx ? opts.approxRelTol * (a.mag + b.mag) : 0;
    bool eq = fa == fb || (c.approx && std::fabs(fa - fb) <= eps);
    bool lt = !eq && fa < fb, gt = !eq && fa > fb;
    bool bothNan = std::isnan(fa) && std::isnan(fb);
    bool r = false;
    switch (cast<arith::CmpFOp>(op).getPredicate()) {
    case P::AlwaysFalse: r = false; break;
    case P::OEQ: r = (!una && eq) || (c.spec && bothNan); break;
    case P::OGT: r = !una && gt; break;
    case P::OGE: r = !una && (gt || eq); break;
    case P::OLT: r = !una && lt; break;
    case P::OLE: r = !una && (lt || eq); break;
    case P::ONE: r = !una && !eq; break;
    case P::ORD: r = !una; break;
    case P::UEQ: r = una || eq; break;
    case P::UGT: r = una || gt; break;
    case P::UGE: r = una || gt || eq; break;
    case P::ULT: r = una || lt; break;
    case P::ULE: r = una || lt || eq; break;
    case P::UNE: r = (una || !eq) && !(c.spec && bothNan); break;
    case P::UNO: r = una; break;
    case P::AlwaysTrue: r = true; break;
    }
    if (!r && c.spec) {
      auto pred = cast<arith::CmpFOp>(op).getPredicate();
      std::string &why = c.falseWhy[op->getResult(0)].first;
      why = failText(c, op, a, b,
                            pred == arith::CmpFPredicate::OEQ ||
                                pred == arith::CmpFPredicate::UEQ,
                            arith::stringifyCmpFPredicate(pred).str());
      if (c.approx)
        why += " (tolerance " + fmtDouble(eps, true) + ")";
    }
    z = mkBool(r);
    break;
  }
  case OC_Select: {
    Val x;
    if (!need(c, op->getOperand(2), x, op))
      return false;
    z = a.i ? b : x;
    break;
  }
  case OC_AddF:
    z = flt(fa + fb, a.mag + b.mag);
    break;
  case OC_SubF:
    z = flt(fa - fb, a.mag + b.mag);
    break;
  case OC_MulF:
    z = flt(fa * fb, a.mag * b.mag);
    break;
  case OC_DivF:
    z = flt(fa / fb, a.mag / std::fabs(fb));
    break;
  case OC_RemF:
    z = flt(std::fmod(fa, fb), std::fabs(std::fmod(fa, fb)));
    break;
  case OC_NegF:
    z = a;
    z.f = -fa;
    break;
  case OC_MinNumF:
    z = fminnum(fa, fb) == fa && !std::isnan(fa) ? a : b;
    z.f = fminnum(fa, fb);
    break;
  case OC_MaxNumF:
    z = fmaxnum(fa, fb) == fa && !std::isnan(fa) ? a : b;
    z.f = fmaxnum(fa, fb);
    break;
  case OC_MinimumF:
    z = a;
    z.f = (std::isnan(fa) || std::isnan(fb)) ? NAN : fminnum(fa, fb);
    break;
  case OC_MaximumF:
    z = a;
    z.f = (std::isnan(fa) || std::isnan(fb)) ? NAN : fmaxnum(fa, fb);
    break;
  case OC_ExtSI:
  case OC_ExtUI:
  case OC_TruncI:
  case OC_IndexCast: {
    unsigned rw = rt.isIndex() ? 64 : cast<IntegerType>(rt).getWidth();
    z = mkInt(rw, oc == OC_ExtUI ? ua : (uint64_t)sa);
    break;
  }
  case OC_SIToFP:
  case OC_UIToFP: {
    FK rf;
    floatKind(rt, rf);
    double d = oc == OC_SIToFP ? (double)sa : (double)ua;
    if (rf == FK::F32 || rf == FK::F16 || rf == FK::BF16) // round once
      d = oc == OC_SIToFP ? (double)(float)sa : (double)(float)ua;
    z = mkFlt(rf, d, std::fabs(d), ex);
    break;
  }
  case OC_FPToSI:
  case OC_FPToUI: {
    unsigned rw = cast<IntegerType>(rt).getWidth();
    double t = std::trunc(fa);
    bool ok;
    if (oc == OC_FPToSI)
      ok = !std::isnan(t) && t >= std::ldexp(-1.0, rw - 1) &&
           t < std::ldexp(1.0, rw - 1);
    else
      ok = !std::isnan(t) && t >= 0 && t < std::ldexp(1.0, rw);
    if (!ok) {
      overflow("float to integer conversion out of range");
      z = mkInt(rw, 0);
    } else {
      z = mkInt(rw, oc == OC_FPToSI ? (uint64_t)(int64_t)t : (uint64_t)t);
    }
    break;
  }
  case OC_ExtF:
  case OC_TruncF: {
    FK rf;
    floatKind(rt, rf);
    z = mkFlt(rf, fa, a.mag, ex);
    break;
  }
  case OC_Bitcast: {
    FK rf;
    if (floatKind(rt, rf)) {
      ElemT e;
      elemTypeOf(rt, e);
      uint8_t buf[8] = {0};
      std::memcpy(buf, &ua, 8);
      z = readElem(e, buf);
    } else {
      ElemT e;
      elemTypeOf(op->getOperand(0).getType(), e);
      uint8_t buf[8] = {0};
      writeElem(e, buf, a);
      uint64_t bits = 0;
      std::memcpy(&bits, buf, e.size);
      z = mkInt(cast<IntegerType>(rt).getWidth(), bits);
    }
    break;
  }
  case OC_Exp:
  case OC_Exp2:
  case OC_Log:
  case OC_Log2:
  case OC_Sqrt:
  case OC_Rsqrt:
  case OC_Tanh:
  case OC_Erf:
  case OC_AbsF:
  case OC_Floor:
  case OC_Ceil:
  case OC_Sin:
  case OC_Cos: {
    bool f32 = fk != FK::F64 && !ex;
    float x = (float)fa;
    double r = 0;
    switch (oc) {
    case OC_Exp: r = f32 ? expf(x) : std::exp(fa); break;
    case OC_Exp2: r = f32 ? exp2f(x) : std::exp2(fa); break;
    case OC_Log: r = f32 ? logf(x) : std::log(fa); break;
    case OC_Log2: r = f32 ? log2f(x) : std::log2(fa); break;
    case OC_Sqrt: r = f32 ? sqrtf(x) : std::sqrt(fa); break;
    case OC_Rsqrt: r = f32 ? 1.0f / sqrtf(x) : 1.0 / std::sqrt(fa); break;
    case OC_Tanh: r = f32 ? tanhf(x) : std::tanh(fa); break;
    case OC_Erf: r = f32 ? erff(x) : std::erf(fa); break;
    case OC_AbsF: r = std::fabs(fa); break;
    case OC_Floor: r = std::floor(fa); break;
    case OC_Ceil: r = std::ceil(fa); break;
    case OC_Sin: r = f32 ? sinf(x) : std::sin(fa); break;
    case OC_Cos: r = f32 ? cosf(x) : std::cos(fa); break;
    default: break;
    }
    z = flt(r, oc == OC_AbsF ? a.mag : std::fabs(r));
    break;
  }
  case OC_PowF: {
    double r = (fk != FK::F64 && !ex) ? powf((float)fa, (float)fb) : std::pow(fa, fb);
    z = flt(r, std::fabs(r));
    break;
  }
  case OC_Fma: {
    Val x;
    if (!need(c, op->getOperand(2), x, op))
      return false;
    double r = (fk != FK::F64 && !ex) ? fmaf((float)fa, (float)fb, (float)x.f)
                                      : std::fma(fa, fb, x.f);
    z = flt(r, a.mag * b.mag + x.mag);
    break;
  }
  case OC_AbsI:
    z = mkInt(w, (uint64_t)(sa < 0 ? -sa : sa));
    break;
  default:
    return fail("unsupported op '" + op->getName().getStringRef().str() +
                "' at " + locOf(op));
  }
  setv(c, op->getResult(0), z);
  return true;
}

bool Interp::execOp(Operation *op, Ctx &c) {
  OpCode oc = code(op);
  switch (oc) {
  case OC_Constant: {
    Attribute attr = cast<arith::ConstantOp>(op).getValue();
    Val z;
    if (auto ia = dyn_cast<IntegerAttr>(attr)) {
      unsigned w = ia.getType().isIndex() ? 64 : ia.getType().getIntOrFloatBitWidth();
      z = mkInt(w, ia.getValue().getZExtValue());
    } else if (auto fa = dyn_cast<FloatAttr>(attr)) {
      FK fk;
      if (!floatKind(fa.getType(), fk))
        return fail("unsupported float constant at " + locOf(op));
      double d = fa.getValueAsDouble();
      z = mkFlt(fk, d, std::fabs(d));
    } else {
      return fail("unsupported constant at " + locOf(op));
    }
    setv(c, op->getResult(0), z);
    return true;
  }
  case OC_Alloca: {
    Val z;
    z.kind = Val::Loc;
    z.i = c.locals.size();
    Type et = cast<MemRefType>(op->getResult(0).getType()).getElementType();
    ElemT e;
    Val init;
    if (elemTypeOf(et, e)) {
      uint8_t buf[8];
      poison(e, buf, 1);
      init = readElem(e, buf);
    }
    c.locals.push_back(init);
    setv(c, op->getResult(0), z);
    return true;
  }
  case OC_MLoad: {
    Val r;
    if (!need(c, op->getOperand(0), r, op))
      return false;
    if (r.kind != Val::Loc || r.i >= c.locals.size())
      return fail("internal: memref.load of an unknown local at " + locOf(op));
    Val v = c.locals[r.i];
    if (v.kind == Val::Flt)
      v.mag = std::fabs(v.f);
    setv(c, op->getResult(0), v);
    return true;
  }
  case OC_MStore: {
    Val v, r;
    if (!need(c, op->getOperand(0), v, op) || !need(c, op->getOperand(1), r, op))
      return false;
    if (r.kind != Val::Loc || r.i >= c.locals.size())
      return fail("internal: memref.store to an unknown local at " + locOf(op));
    c.locals[r.i] = v;
    return true;
  }
  case OC_ScfIf: {
    auto ifOp = cast<scf::IfOp>(op);
    Val cond;
    if (!need(c, ifOp.getCondition(), cond, op))
      return false;
    Region &r = cond.i ? ifOp.getThenRegion() : ifOp.getElseRegion();
    SmallVector<Val, 2> out;
    if (!evalRegion(r, {}, c, out))
      return false;
    for (unsigned k = 0; k < op->getNumResults() && k < out.size(); ++k)
      setv(c, op->getResult(k), out[k]);
    return true;
  }
  case OC_ThreadId:
  case OC_BlockId:
  case OC_GridDim:
  case OC_LaneId:
  case OC_WarpId: {
    if (!c.isThread && oc != OC_GridDim)
      return fail("'" + op->getName().getStringRef().str() +
                      "' used outside thread code at " + locOf(op),
                  3);
    auto &t = static_cast<Thread &>(c);
    int64_t v = 0;
    int64_t dim = oc <= OC_GridDim ? op->getAttrOfType<IntegerAttr>("dim").getInt() : 0;
    if (oc == OC_ThreadId)
      v = t.tid[dim];
    else if (oc == OC_BlockId)
      v = curBlock[dim];
    else if (oc == OC_GridDim)
      v = launch.grid[dim];
    else if (oc == OC_LaneId)
      v = t.linear % 32;
    else
      v = t.linear / 32;
    setv(c, op->getResult(0), mkInt(32, (uint64_t)v));
    return true;
  }
  case OC_SharedAlloc: {
    auto it = sharedIndex.find(op);
    unsigned idx;
    if (it == sharedIndex.end()) {
      auto st = cast<SharedType>(op->getResult(0).getType());
      SharedState s;
      s.name = cast<SharedAllocOp>(op).getName().str();
      if (!elemTypeOf(st.getElementType(), s.et))
        return fail("unsupported shared element type at " + locOf(op));
      int64_t n = 1;
      for (int64_t d : st.getShape()) {
        s.dims.push_back(d);
        n *= d;
      }
      s.data.resize(n * s.et.size);
      poison(s.et, s.data.data(), n);
      if (opts.checks)
        s.shadow.resize(n);
      idx = shared.size();
      shared.push_back(std::move(s));
      sharedIndex[op] = idx;
    } else {
      idx = it->second;
    }
    Val z;
    z.kind = Val::Shr;
    z.i = idx;
    setv(c, op->getResult(0), z);
    return true;
  }
  case OC_Load: {
    auto ld = cast<LoadOp>(op);
    ElemRef ref;
    if (!memRef(op, c, ld.getRef(), ld.getIndices(), ref))
      return false;
    auto &[p, et, sh, buf, where, idx] = ref;
    Val v;
    if (p) {
      v = readElem(et, p);
      if (opts.checks && !c.spec) {
        if (buf && !buf->reads.empty() && !inBoxes(buf->reads, idx) &&
            !inBoxes(buf->writes, idx))
          violate("contract", op,
                  "read of " + where + " outside the reads clause of " +
                      buf->name + (c.isThread ? " by thread " + who(c) : ""),
                  whoDetails(c));
        recordAccess(op, c, sh, buf, where, false, false);
      }
    } else {
      ElemT e;
      elemTypeOf(op->getResult(0).getType(), e);
      uint8_t tmp[8];
      poison(e, tmp, 1);
      v = readElem(e, tmp);
    }
    if (c.spec)
      c.loadDesc[op->getResult(0)] = where;
    setv(c, op->getResult(0), v);
    return true;
  }
  case OC_Store: {
    auto st = cast<StoreOp>(op);
    if (c.spec)
      return fail("store in a spec region at " + locOf(op));
    Val v;
    if (!need(c, st.getValue(), v, op))
      return false;
    ElemRef ref;
    if (!memRef(op, c, st.getRef(), st.getIndices(), ref))
      return false;
    auto &[p, et, sh, buf, where, idx] = ref;
    if (!p)
      return true;
    if (opts.checks) {
      if (buf && !buf->writes.empty() && !inBoxes(buf->writes, idx))
        violate("contract", op,
                "write of " + where + " outside the writes clause of " +
                    buf->name + (c.isThread ? " by thread " + who(c) : ""),
                whoDetails(c));
      recordAccess(op, c, sh, buf, where, true, false);
    }
    if (buf && !buf->written.empty())
      buf->written[(p - buf->data) / et.size] = 1;
    writeElem(et, p, v);
    return true;
  }
  case OC_Atomic: {
    auto at = cast<AtomicOp>(op);
    if (c.spec)
      return fail("atomic in a spec region at " + locOf(op));
    SmallVector<Val, 2> vs;
    for (Value x : at.getValues()) {
      Val y;
      if (!need(c, x, y, op))
        return false;
      vs.push_back(y);
    }
    ElemRef ref;
    if (!memRef(op, c, at.getRef(), at.getIndices(), ref))
      return false;
    auto &[p, et, sh, buf, where, idx] = ref;
    Val old;
    if (!p) {
      uint8_t tmp[8];
      poison(et, tmp, 1);
      setv(c, op->getResult(0), readElem(et, tmp));
      return true;
    }
    old = readElem(et, p);
    if (opts.checks)
      recordAccess(op, c, sh, buf, where, true, true);
    if (buf && !buf->written.empty())
      buf->written[(p - buf->data) / et.size] = 1;
    AtomicKind k = at.getKind();
    Val nv = old;
    if (vs.empty())
      return fail("atomic without operands at " + locOf(op));
    const Val &v = vs[0];
    if (k == AtomicKind::Add) {
      nv = et.flt ? mkFlt(et.fk, old.f + v.f, 0) : mkInt(et.bits, old.i + v.i);
    } else if (k == AtomicKind::Max || k == AtomicKind::Min) {
      bool mx = k == AtomicKind::Max;
      if (et.flt)
        nv = mkFlt(et.fk, mx ? fmaxnum(old.f, v.f) : fminnum(old.f, v.f), 0);
      else {
        int64_t so = sext(old.i, et.bits), sv = sext(v.i, v.bits);
        nv = (mx ? sv > so : sv < so) ? mkInt(et.bits, v.i) : old;
      }
    } else {
      if (vs.size() < 2)
        return fail("atomic cas needs two values at " + locOf(op));
      uint8_t cb[8] = {0}, ob[8] = {0};
      writeElem(et, cb, vs[0]);
      writeElem(et, ob, old);
      if (std::memcmp(cb, ob, et.size) == 0)
        nv = vs[1];
    }
    writeElem(et, p, nv);
    setv(c, op->getResult(0), old);
    return true;
  }
  case OC_Assert:
  case OC_Assume: {
    if (!opts.checks)
      return true;
    bool approx = false;
    std::string kind = "assume";
    if (auto a = dyn_cast<AssertOp>(op)) {
      approx = a.getApprox();
      kind = stringifyAssertKind(a.getKind()).str();
    }
    bool holds = true;
    if (!evalClause(op->getRegion(0), c, approx, holds))
      return false;
    if (!holds) {
      std::string msg = (kind == "assume" ? std::string("assumption")
                                           : kind == "assert" ? "assertion"
                                                              : kind) +
                        " failed" +
                        (c.isThread ? " in thread " + who(c) : "");
      if (!c.lastFail.empty())
        msg += ": " + c.lastFail;
      violate(kind, op, msg, whoDetails(c));
    }
    return true;
  }
  case OC_Invariant: {
    Val v;
    if (!need(c, op->getOperand(0), v, op))
      return false;
    if (!v.i) {
      std::string msg = "loop invariant does not hold" +
                        (c.isThread ? " in thread " + who(c) : "");
      std::string why = explain(c, op->getOperand(0)).first;
      if (!why.empty())
        msg += ": " + why;
      violate("invariant", op, msg, whoDetails(c));
    }
    return true;
  }
  case OC_Forall:
  case OC_Exists: {
    Val lo, hi;
    if (!need(c, op->getOperand(0), lo, op) || !need(c, op->getOperand(1), hi, op))
      return false;
    bool all = oc == OC_Forall, r = all;
    int64_t l = sext(lo.i, lo.bits), h = sext(hi.i, hi.bits);
    SmallVector<Val, 1> out;
    auto binder = op->getAttrOfType<StringAttr>("binder");
    std::string bname = binder ? binder.str() : "";
    std::pair<std::string, bool> why;
    for (int64_t i = l; i < h; ++i) {
      c.binders.push_back({bname, i});
      if (!evalRegion(op->getRegion(0), {mkInt(lo.bits, (uint64_t)i)}, c, out))
        return false;
      bool b = !out.empty() && out[0].i;
      if (all && !b) {
        r = false;
        Block &body = op->getRegion(0).front();
        why = explain(c, body.getTerminator()->getOperand(0));
        if (!why.second) {
          std::string names, vals;
          bool named = true;
          for (size_t k = 0; k < c.binders.size(); ++k) {
            names += (k ? ", " : "") + c.binders[k].first;
            vals += (k ? ", " : "") + std::to_string(c.binders[k].second);
            named &= !c.binders[k].first.empty();
          }
          bool many = c.binders.size() > 1;
          std::string at =
              named ? "at " + (many ? "(" + names + ")" : names) + " = " +
                          (many ? "(" + vals + ")" : vals)
                    : "at index " + (many ? "(" + vals + ")" : vals);
          why.first = at + (why.first.empty() ? "" : ": " + why.first);
          why.second = true;
        }
        c.binders.pop_back();
        break;
      }
      c.binders.pop_back();
      if (!all && b) {
        r = true;
        break;
      }
    }
    if (!r)
      c.falseWhy[op->getResult(0)] = why;
    setv(c, op->getResult(0), mkBool(r));
    return true;
  }
  case OC_Sum: {
    Val lo, hi, st;
    if (!need(c, op->getOperand(0), lo, op) || !need(c, op->getOperand(1), hi, op) ||
        !need(c, op->getOperand(2), st, op))
      return false;
    int64_t l = sext(lo.i, lo.bits), h = sext(hi.i, hi.bits),
            s = sext(st.i, st.bits);
    Type rt = op->getResult(0).getType();
    FK fk;
    bool isF = floatKind(rt, fk);
    Val acc = isF ? mkFlt(fk, 0, 0) : mkInt(rt.getIntOrFloatBitWidth(), 0);
    if (s <= 0) {
      violate("overflow", op, "sum with a non-positive step");
      s = 1;
    }
    SmallVector<Val, 1> out;
    for (int64_t i = l; i < h; i += s) {
      if (!evalRegion(op->getRegion(0), {mkInt(lo.bits, (uint64_t)i)}, c, out))
        return false;
      if (out.empty())
        return fail("sum body yields nothing at " + locOf(op));
      if (isF)
        acc = mkFlt(fk, acc.f + out[0].f, acc.mag + out[0].mag, c.approx);
      else
        acc = mkInt(acc.bits, acc.i + out[0].i);
    }
    setv(c, op->getResult(0), acc);
    return true;
  }
  case OC_Old: {
    bool o = c.old;
    c.old = true;
    SmallVector<Val, 1> out;
    bool ok = evalRegion(op->getRegion(0), {}, c, out);
    c.old = o;
    if (!ok)
      return false;
    if (!out.empty())
      setv(c, op->getResult(0), out[0]);
    return true;
  }
  case OC_For: {
    // Non-suspending form (loops nested in spec regions or scf.if results).
    auto f = cast<ForOp>(op);
    Val lo, hi, st;
    if (!need(c, f.getLo(), lo, op) || !need(c, f.getHi(), hi, op) ||
        !need(c, f.getStep(), st, op))
      return false;
    int64_t i = sext(lo.i, lo.bits), h = sext(hi.i, hi.bits),
            s = sext(st.i, st.bits);
    if (s <= 0) {
      violate("overflow", op, "loop step " + std::to_string(s) + " is not positive");
      return true;
    }
    SmallVector<Val, 1> out;
    int64_t first = i;
    while (true) {
      int64_t at = i == first ? i : std::min(i, h);
      if (!checkInvariants(op, f.getInvariants(), {mkInt(lo.bits, (uint64_t)at)}, c))
        return false;
      if (i >= h)
        break;
      if (!evalRegion(f.getBody(), {mkInt(lo.bits, (uint64_t)i)}, c, out))
        return false;
      i += s;
    }
    return true;
  }
  case OC_While: {
    auto w = cast<WhileOp>(op);
    SmallVector<Val, 1> out;
    while (true) {
      if (!checkInvariants(op, w.getInvariants(), {}, c))
        return false;
      if (!evalRegion(w.getCond(), {}, c, out))
        return false;
      if (out.empty() || !out[0].i)
        break;
      if (!evalRegion(w.getBody(), {}, c, out))
        return false;
    }
    return true;
  }
  case OC_Header:
    return true;
  case OC_Barrier:
  case OC_Shfl:
  case OC_Vote:
  case OC_SyncWarp:
    return fail("'" + op->getName().getStringRef().str() +
                "' in a context that cannot suspend (spec region or host) at " +
                locOf(op));
  case OC_Unknown:
    return fail("unsupported op '" + op->getName().getStringRef().str() +
                "' at " + locOf(op));
  default:
    return execArith(op, oc, c);
  }
}

//===----------------------------------------------------------------------===//
// Threads
//===----------------------------------------------------------------------===//

static bool isMemOp(OpCode oc) {
  return oc == OC_Load || oc == OC_Store || oc == OC_Atomic;
}

bool Interp::enterFor(Thread &t, Operation *op) {
  auto f = cast<ForOp>(op);
  Val lo, hi, st;
  if (!need(t, f.getLo(), lo, op) || !need(t, f.getHi(), hi, op) ||
      !need(t, f.getStep(), st, op))
    return false;
  Frame fr;
  fr.kind = Frame::For;
  fr.op = op;
  fr.iv = sext(lo.i, lo.bits);
  fr.hi = sext(hi.i, hi.bits);
  fr.step = sext(st.i, st.bits);
  fr.ivBits = lo.bits;
  if (!checkInvariants(op, f.getInvariants(), {mkInt(fr.ivBits, (uint64_t)fr.iv)}, t))
    return false;
  if (fr.step <= 0) {
    violate("overflow", op,
            "loop step " + std::to_string(fr.step) + " is not positive in thread " +
                who(t),
            whoDetails(t));
    ++t.stack.back().it;
    return true;
  }
  if (fr.iv >= fr.hi) {
    ++t.stack.back().it;
    return true;
  }
  fr.block = &f.getBody().front();
  fr.it = fr.block->begin();
  setv(t, fr.block->getArgument(0), mkInt(fr.ivBits, (uint64_t)fr.iv));
  t.stack.push_back(fr);
  return true;
}

bool Interp::terminator(Thread &t, Operation *op) {
  Frame &f = t.stack.back();
  switch (f.kind) {
  case Frame::Body:
    t.stack.clear();
    t.st = Thread::Done;
    return true;
  case Frame::If: {
    Operation *owner = f.op;
    for (unsigned k = 0; k < owner->getNumResults() && k < op->getNumOperands(); ++k) {
      Val v;
      if (!need(t, op->getOperand(k), v, op))
        return false;
      setv(t, owner->getResult(k), v);
    }
    t.stack.pop_back();
    ++t.stack.back().it;
    return true;
  }
  case Frame::For: {
    auto fo = cast<ForOp>(f.op);
    int64_t next = f.iv + f.step;
    bool wraps = f.ivBits < 64 && next > (int64_t)(maskOf(f.ivBits) >> 1);
    f.iv = next;
    Frame copy = f;
    // At the exit the invariant is checked with the induction variable
    // clamped to the upper bound (`for i in 0..k step 16` leaves with i = k).
    int64_t at = std::min(copy.iv, copy.hi);
    if (!checkInvariants(copy.op, fo.getInvariants(),
                         {mkInt(copy.ivBits, (uint64_t)at)}, t))
      return false;
    Frame &g = t.stack.back();
    if (g.iv < g.hi && !wraps) {
      g.it = g.block->begin();
      setv(t, g.block->getArgument(0), mkInt(g.ivBits, (uint64_t)g.iv));
    } else {
      t.stack.pop_back();
      ++t.stack.back().it;
    }
    return true;
  }
  case Frame::While: {
    auto w = cast<WhileOp>(f.op);
    if (f.phase == 0) {
      Val c;
      if (op->getNumOperands() == 0 || !need(t, op->getOperand(0), c, op))
        return fail("while condition yields no value at " + locOf(op));
      if (c.i) {
        f.phase = 1;
        f.block = &w.getBody().front();
        f.it = f.block->begin();
      } else {
        t.stack.pop_back();
        ++t.stack.back().it;
      }
    } else {
      Operation *wop = f.op;
      if (!checkInvariants(wop, w.getInvariants(), {}, t))
        return false;
      Frame &g = t.stack.back();
      g.phase = 0;
      g.block = &w.getCond().front();
      g.it = g.block->begin();
    }
    return true;
  }
  }
  return true;
}

void Interp::runThread(Thread &t, bool yieldAtMemory) {
  unsigned steps = 0;
  while (!failed) {
    if (t.stack.empty()) {
      t.st = Thread::Done;
      return;
    }
    Frame &f = t.stack.back();
    if (f.it == f.block->end()) {
      fail("internal: block without terminator");
      return;
    }
    Operation *op = &*f.it;
    if (op->hasTrait<OpTrait::IsTerminator>()) {
      if (!terminator(t, op))
        return;
      if (t.st == Thread::Done)
        return;
      continue;
    }
    OpCode oc = code(op);
    if (yieldAtMemory && steps > 0 && isMemOp(oc))
      return;
    ++steps;
    if (opts.maxSteps && ++totalSteps > opts.maxSteps) {
      fail("step limit of " + std::to_string(opts.maxSteps) + " operations reached");
      return;
    }
    switch (oc) {
    case OC_ScfIf: {
      auto ifOp = cast<scf::IfOp>(op);
      Val c;
      if (!need(t, ifOp.getCondition(), c, op))
        return;
      Region &r = c.i ? ifOp.getThenRegion() : ifOp.getElseRegion();
      if (r.empty()) {
        ++f.it;
        continue;
      }
      Frame fr;
      fr.kind = Frame::If;
      fr.op = op;
      fr.block = &r.front();
      fr.it = fr.block->begin();
      t.stack.push_back(fr);
      continue;
    }
    case OC_For:
      if (!enterFor(t, op))
        return;
      continue;
    case OC_While: {
      auto w = cast<WhileOp>(op);
      if (!checkInvariants(op, w.getInvariants(), {}, t))
        return;
      Frame fr;
      fr.kind = Frame::While;
      fr.op = op;
      fr.block = &w.getCond().front();
      fr.it = fr.block->begin();
      t.stack.push_back(fr);
      continue;
    }
    case OC_Barrier:
      t.st = Thread::AtBarrier;
      t.waitOp = op;
      return;
    case OC_Shfl:
    case OC_Vote:
    case OC_SyncWarp: {
      t.hasMask = false;
      Value maskV;
      if (auto s = dyn_cast<ShuffleOp>(op)) {
        if (!need(t, s.getValue(), t.collVal, op))
          return;
        Val d;
        if (!need(t, s.getDelta(), d, op))
          return;
        t.collDelta = sext(d.i, d.bits);
        maskV = s.getMask();
      } else if (auto v = dyn_cast<VoteOp>(op)) {
        if (!need(t, v.getPred(), t.collVal, op))
          return;
        maskV = v.getMask();
      } else {
        maskV = cast<SyncWarpOp>(op).getMask();
      }
      if (maskV) {
        Val m;
        if (!need(t, maskV, m, op))
          return;
        t.hasMask = true;
        t.mask = m.i & 0xffffffffull;
      }
      t.st = Thread::AtColl;
      t.waitOp = op;
      return;
    }
    default:
      if (!execOp(op, t))
        return;
      ++t.stack.back().it;
    }
  }
}

bool Interp::resolveCollectives(std::vector<Thread> &threads) {
  struct Key {
    int64_t warp;
    Operation *op;
    bool hasMask;
    uint64_t mask;
    bool operator<(const Key &o) const {
      return std::tie(warp, op, hasMask, mask) <
             std::tie(o.warp, o.op, o.hasMask, o.mask);
    }
  };
  std::map<Key, std::vector<unsigned>> groups;
  for (unsigned k = 0; k < threads.size(); ++k) {
    Thread &t = threads[k];
    if (t.st == Thread::AtColl)
      groups[{t.linear / 32, t.waitOp, t.hasMask, t.mask}].push_back(k);
  }
  if (groups.empty())
    return false;
  int64_t n = (int64_t)threads.size();
  for (auto &[key, members] : groups) {
    Operation *op = key.op;
    int64_t base = key.warp * 32;
    int64_t exist = std::min<int64_t>(32, n - base);
    uint64_t full = exist == 32 ? 0xffffffffull : ((1ull << exist) - 1);
    uint64_t active = 0;
    Thread *lane[32] = {nullptr};
    for (unsigned k : members) {
      int l = threads[k].linear % 32;
      active |= 1ull << l;
      lane[l] = &threads[k];
    }
    if (opts.checks) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "0x%08llx", (unsigned long long)active);
      std::string act = buf;
      if (!key.hasMask && active != full) {
        std::snprintf(buf, sizeof buf, "0x%08llx", (unsigned long long)full);
        violate("warp-convergence", op,
                "'" + op->getName().getStringRef().str() + "' without a mask in warp " +
                    std::to_string(key.warp) + " of block " +
                    std::to_string(curBlockLinear) + " runs with active lanes " +
                    act + ", not the whole warp " + buf,
                {{"block", std::to_string(curBlockLinear)},
                 {"warp", std::to_string(key.warp)},
                 {"active", act}});
      } else if (key.hasMask && key.mask != active) {
        std::snprintf(buf, sizeof buf, "0x%08llx", (unsigned long long)key.mask);
        violate("warp-convergence", op,
                "'" + op->getName().getStringRef().str() + "' with mask " + buf +
                    " in warp " + std::to_string(key.warp) + " of block " +
                    std::to_string(curBlockLinear) + " runs with active lanes " +
                    act,
                {{"block", std::to_string(curBlockLinear)},
                 {"warp", std::to_string(key.warp)},
                 {"active", act}});
      }
    }
    if (auto s = dyn_cast<ShuffleOp>(op)) {
      ShuffleMode mode = s.getMode();
      std::vector<Val> results(32);
      for (int l = 0; l < 32; ++l) {
        if (!lane[l])
          continue;
        uint64_t d = (uint64_t)(uint32_t)lane[l]->collDelta;
        int64_t src = -1;
        if (mode == ShuffleMode::Down)
          src = l + d < 32 ? (int64_t)(l + d) : -1;
        else if (mode == ShuffleMode::Up)
          src = d <= (uint64_t)l ? (int64_t)(l - d) : -1;
        else if (mode == ShuffleMode::Xor)
          src = (l ^ d) < 32 ? (int64_t)(l ^ d) : -1;
        else
          src = (int64_t)(d & 31);
        results[l] = (src >= 0 && lane[src]) ? lane[src]->collVal : lane[l]->collVal;
      }
      for (int l = 0; l < 32; ++l)
        if (lane[l])
          setv(*lane[l], op->getResult(0), results[l]);
    } else if (auto v = dyn_cast<VoteOp>(op)) {
      uint64_t ballot = 0;
      for (int l = 0; l < 32; ++l)
        if (lane[l] && lane[l]->collVal.i)
          ballot |= 1ull << l;
      VoteMode mode = v.getMode();
      for (int l = 0; l < 32; ++l) {
        if (!lane[l])
          continue;
        Type rt = op->getResult(0).getType();
        unsigned w = rt.getIntOrFloatBitWidth();
        Val r = mode == VoteMode::Ballot ? mkInt(w, ballot)
                : mode == VoteMode::Any    ? mkInt(w, ballot != 0)
                                 : mkInt(w, ballot == active);
        setv(*lane[l], op->getResult(0), r);
      }
    }
    for (unsigned k : members) {
      threads[k].st = Thread::Ready;
      ++threads[k].stack.back().it;
    }
  }
  return true;
}

bool Interp::runBlock() {
  shared.clear();
  sharedIndex.clear();
  epoch = 0;
  int64_t bx = launch.block[0], by = launch.block[1], bz = launch.block[2];
  int64_t n = bx * by * bz;
  std::vector<Thread> threads(n);
  Block &entry = kernel.getBody().front();
  for (int64_t z = 0; z < bz; ++z)
    for (int64_t y = 0; y < by; ++y)
      for (int64_t x = 0; x < bx; ++x) {
        int64_t lin = x + y * bx + z * bx * by;
        Thread &t = threads[lin];
        t.isThread = true;
        t.tid[0] = x;
        t.tid[1] = y;
        t.tid[2] = z;
        t.linear = (int32_t)lin;
        for (BlockArgument a : entry.getArguments())
          t.vals[a] = host.vals[a];
        Frame fr;
        fr.kind = Frame::Body;
        fr.block = &entry;
        fr.it = entry.begin();
        t.stack.push_back(fr);
      }
  res.threadsRun += n;
  std::vector<unsigned> order(n);
  for (int64_t k = 0; k < n; ++k)
    order[k] = opts.schedule == ExecOptions::Reverse ? n - 1 - k : k;

  while (!failed) {
    if (opts.schedule == ExecOptions::Random) {
      std::vector<unsigned> ready;
      for (unsigned k = 0; k < n; ++k)
        if (threads[k].st == Thread::Ready)
          ready.push_back(k);
      while (!ready.empty() && !failed) {
        size_t pick = rng() % ready.size();
        Thread &t = threads[ready[pick]];
        runThread(t, true);
        if (t.st != Thread::Ready) {
          ready[pick] = ready.back();
          ready.pop_back();
        }
      }
    } else {
      for (unsigned k : order)
        while (threads[k].st == Thread::Ready && !failed)
          runThread(threads[k], false);
    }
    if (failed)
      return false;
    if (resolveCollectives(threads))
      continue;
    Thread *first = nullptr, *done = nullptr, *other = nullptr;
    for (auto &t : threads) {
      if (t.st == Thread::Done) {
        if (!done)
          done = &t;
        continue;
      }
      if (!first)
        first = &t;
      else if (t.waitOp != first->waitOp && !other)
        other = &t;
    }
    if (!first)
      return true; // all done
    if (done || other) {
      Operation *op = first->waitOp;
      std::string msg;
      if (other)
        msg = "threads " + who(*first) + " and " + who(*other) +
              " wait at different barriers (" + locOf(first->waitOp) + " and " +
              locOf(other->waitOp) + ")";
      else {
        unsigned arrived = 0;
        for (auto &t : threads)
          arrived += t.st == Thread::AtBarrier;
        msg = "barrier reached by " + std::to_string(arrived) + " of " +
              std::to_string(n) + " threads of block " +
              std::to_string(curBlockLinear) + "; thread " + who(*done) +
              " finished without reaching it";
      }
      violate("barrier-divergence", op, msg,
              {{"block", std::to_string(curBlockLinear)},
               {"thread", std::to_string(first->linear)},
               {"thread2", std::to_string(other ? other->linear : done->linear)}});
      return true; // stop this block
    }
    // All live threads at the same barrier: check its contract, release.
    Operation *bar = first->waitOp;
    if (opts.checks && !bar->getRegion(0).empty()) {
      bool approx = cast<BarrierOp>(bar).getApprox();
      // The contract is about shared state; it is checked from the first and
      // the last thread of the block (every thread would cost blocksize x).
      std::vector<Thread *> reps = {&threads.front()};
      if (threads.size() > 1)
        reps.push_back(&threads.back());
      for (Thread *tp : reps) {
        Thread &t = *tp;
        bool holds = true;
        if (!evalClause(bar->getRegion(0), t, approx, holds))
          return false;
        if (!holds) {
          std::string msg = "barrier contract does not hold in thread " + who(t);
          if (!t.lastFail.empty())
            msg += ": " + t.lastFail;
          violate("barrier-contract", bar, msg, whoDetails(t));
          break;
        }
      }
    }
    ++epoch;
    for (auto &s : shared)
      std::fill(s.shadow.begin(), s.shadow.end(), Shadow());
    for (auto &t : threads) {
      t.st = Thread::Ready;
      ++t.stack.back().it;
    }
  }
  return !failed;
}

bool Interp::runAll() {
  if (opts.ensuresOnly) {
    for (auto &b : bufs)
      if (b.access == BufferAccess::InOut)
        b.oldData.assign(b.data, b.data + b.n * b.et.size);
    return checkEnsures();
  }
  if (opts.checks) {
    for (auto &b : bufs) {
      if (b.access == BufferAccess::InOut)
        b.oldData.assign(b.data, b.data + b.n * b.et.size);
      if (b.access == BufferAccess::In)
        b.oldData.clear();
      b.shadow.resize(b.n);
      if (b.access == BufferAccess::Out) {
        b.written.assign(b.n, 0);
        poison(b.et, b.data, b.n);
      }
    }
  }
  int64_t g0 = launch.grid[0], g1 = launch.grid[1], g2 = launch.grid[2];
  for (int64_t z = 0; z < g2 && !failed; ++z)
    for (int64_t y = 0; y < g1 && !failed; ++y)
      for (int64_t x = 0; x < g0 && !failed; ++x) {
        curBlock[0] = x;
        curBlock[1] = y;
        curBlock[2] = z;
        curBlockLinear = x + y * g0 + z * g0 * g1;
        if (!runBlock())
          return false;
      }
  if (failed || !opts.checks)
    return !failed;

  // Coverage of out buffers.
  for (auto &b : bufs) {
    if (b.access != BufferAccess::Out)
      continue;
    int64_t missing = 0, first = -1;
    std::vector<int64_t> idx(b.dims.size());
    for (int64_t lin = 0; lin < b.n; ++lin) {
      if (b.written[lin])
        continue;
      int64_t r = lin;
      for (int k = (int)b.dims.size() - 1; k >= 0; --k) {
        idx[k] = r % b.dims[k];
        r /= b.dims[k];
      }
      if (!b.writes.empty() && !inBoxes(b.writes, idx))
        continue;
      if (first < 0)
        first = lin;
      ++missing;
    }
    if (missing) {
      int64_t r = first;
      for (int k = (int)b.dims.size() - 1; k >= 0; --k) {
        idx[k] = r % b.dims[k];
        r /= b.dims[k];
      }
      std::string where = b.name + "[" + idxStr(idx) + "]";
      std::string msg = where + " never written";
      if (missing > 1)
        msg += " (" + std::to_string(missing) + " of " + std::to_string(b.n) +
               " elements of " + b.name + " never written)";
      Violation v;
      v.kind = "coverage";
      v.message = msg;
      v.location = locOf(kernel);
      v.details = {{"buffer", b.name}, {"index", idxStr(idx)},
                   {"missing", std::to_string(missing)}};
      res.violations.push_back(std::move(v));
    }
  }

  // Postconditions.
  if (opts.checkEnsures && !checkEnsures())
    return false;
  if (dropped) {
    Violation v;
    v.kind = "truncated";
    v.message = std::to_string(dropped) + " more violations not recorded";
    res.violations.push_back(std::move(v));
  }
  return true;
}

bool Interp::checkEnsures() {
  for (Operation *op : ensures) {
    bool approx = cast<EnsuresOp>(op).getApprox();
    bool holds = true;
    if (!evalClause(op->getRegion(0), host, approx, holds))
      return false;
    if (!holds) {
      std::string msg = std::string(approx ? "approx " : "") + "ensures failed";
      if (!host.lastFail.empty())
        msg += " " + host.lastFail;
      violate("postcondition", op, msg);
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

KernelOp findKernel(const Module &module, const std::string &name, Error &err) {
  ModuleOp m = module.impl().module.get();
  KernelOp found;
  if (m)
    m.walk([&](KernelOp k) {
      if (k.getSymName() == name)
        found = k;
    });
  if (!found) {
    std::string names;
    if (m)
      m.walk([&](KernelOp k) { names += (names.empty() ? "" : ", ") + k.getSymName().str(); });
    err = Error{"no kernel '" + name + "' in the module" +
                    (names.empty() ? "" : " (kernels: " + names + ")"),
                2};
  }
  return found;
}

} // namespace

Result<ExecResult> interpretKernel(const Module &module,
                                   const std::string &kernel, Args &args,
                                   const ExecOptions &opts) {
  Error err;
  KernelOp k = findKernel(module, kernel, err);
  if (!k)
    return err;
  ExecResult res;
  Interp in(k, opts, res);
  if (!in.setup(args, true))
    return in.error;
  if (!in.launch.requiresHold)
    return Error{"precondition failed: " + in.launch.failedRequires, 2};
  if (!in.runAll())
    return in.error;
  return res;
}

Result<LaunchInfo> describeKernel(const Module &module,
                                  const std::string &kernel, const Args &args) {
  Error err;
  KernelOp k = findKernel(module, kernel, err);
  if (!k)
    return err;
  ExecResult res;
  ExecOptions opts;
  Interp in(k, opts, res);
  if (!in.setup(args, false))
    return in.error;
  return in.launch;
}

static std::string typeName(Type t) {
  if (t.isInteger(1))
    return "bool";
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

Result<Module> parseIR(const std::string &text, const std::string &name) {
  auto impl = std::make_unique<ModuleImpl>();
  impl->context = std::make_unique<MLIRContext>();
  DialectRegistry registry;
  registry.insert<KuiperDialect, arith::ArithDialect, scf::SCFDialect,
                  memref::MemRefDialect, math::MathDialect>();
  impl->context->appendDialectRegistry(registry);
  impl->context->loadAllAvailableDialects();
  std::string diag;
  {
    llvm::raw_string_ostream os(diag);
    ScopedDiagnosticHandler handler(impl->context.get(), [&](Diagnostic &d) {
      os << name << ": " << d << "\n";
      return success();
    });
    impl->module = parseSourceString<ModuleOp>(
        text, ParserConfig(impl->context.get()), name);
  }
  if (!impl->module)
    return Error{diag.empty() ? name + ": cannot parse IR" : diag, 2};
  impl->module->walk([&](KernelOp k) {
    KernelInfo ki;
    ki.name = k.getSymName().str();
    for (int d = 0; d < 3; ++d)
      ki.block[d] = k.getBlock()[d];
    Block &entry = k.getBody().front();
    for (BlockArgument a : entry.getArguments()) {
      ParamInfo p;
      p.name = cast<StringAttr>(k.getArgNames()[a.getArgNumber()]).str();
      if (auto bt = dyn_cast<BufferType>(a.getType())) {
        p.kind = ParamInfo::Buffer;
        p.type = typeName(bt.getElementType());
        p.access = stringifyBufferAccess(bt.getAccess()).str();
        p.rank = bt.getRank();
      } else {
        p.type = typeName(a.getType());
      }
      ki.params.push_back(p);
    }
    impl->kernels.push_back(ki);
  });
  impl->report.file = name;
  return Module(std::move(impl));
}

} // namespace detail
} // namespace kuiper
