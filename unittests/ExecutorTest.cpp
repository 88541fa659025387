//===- ExecutorTest.cpp - CPU executor and CUDA launcher tests ------------===//
//
// Kernels are written directly in kuiper IR (parseModuleIR), so these tests
// do not depend on the front end.
//
//===----------------------------------------------------------------------===//
#include "kuiper/Compiler.h"
#include "kuiper/Device.h"
#include "kuiper/Executor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

using namespace kuiper;

namespace {

/// Replaces every `{KEY}` in `text`.
std::string subst(std::string text,
                  const std::vector<std::pair<std::string, std::string>> &kv) {
  for (const auto &[k, v] : kv) {
    std::string key = "{" + k + "}";
    for (size_t pos; (pos = text.find(key)) != std::string::npos;)
      text.replace(pos, key.size(), v);
  }
  return text;
}

Module parse(const std::string &ir) {
  Result<Module> m = parseModuleIR(ir, "test.mlir");
  if (!m) {
    ADD_FAILURE() << m.error().message;
    Result<Module> empty = parseModuleIR("module {}");
    return std::move(*empty);
  }
  return std::move(*m);
}

ExecResult runOK(const Module &m, const std::string &kernel, Args &args,
                 ExecOptions opts = {}) {
  Result<ExecResult> r = Executor(opts).run(m, kernel, args);
  if (!r) {
    ADD_FAILURE() << r.error().message;
    return {};
  }
  return *r;
}

std::string dump(const ExecResult &r) {
  std::string s;
  for (const auto &v : r.violations)
    s += "[" + std::string(checkName(v.kind)) + "] " + v.message + "\n";
  return s;
}

// s[t] = x[t]; {BARRIER} y[t] = s[(t + 1) % 64]
const char *kShift = R"(
kuiper.kernel @shift block [64, 1, 1] attributes {arg_names = ["x", "y"]} {
^bb0(%x: !kuiper.buffer<f32, 1, "in">, %y: !kuiper.buffer<f32, 1, "out">):
  %c64 = arith.constant 64 : i32
  %c1 = arith.constant 1 : i32
  kuiper.shape %x [%c64] : !kuiper.buffer<f32, 1, "in">, i32
  kuiper.shape %y [%c64] : !kuiper.buffer<f32, 1, "out">, i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %t = kuiper.thread_id 0 : i32
  %s = kuiper.shared_alloc "s" : !kuiper.shared<f32, [64]>
  %v = kuiper.load %x[%t] : !kuiper.buffer<f32, 1, "in">, i32 -> f32
  kuiper.store %v, %s[%t] : f32, !kuiper.shared<f32, [64]>, i32
  {BARRIER}
  %t1 = arith.addi %t, %c1 overflow<nsw> : i32
  %j = arith.remsi %t1, %c64 : i32
  %w = kuiper.load %s[%j] : !kuiper.shared<f32, [64]>, i32 -> f32
  kuiper.store %w, %y[%t] : f32, !kuiper.buffer<f32, 1, "out">, i32
}
)";

Args shiftArgs() {
  Args a;
  std::vector<float> x(64);
  for (int i = 0; i < 64; ++i)
    x[i] = float(i);
  a.setBuffer("x", HostBuffer::f32(x));
  a.setBuffer("y", HostBuffer::f32(std::vector<float>(64)));
  return a;
}

TEST(Executor, BarrierShift) {
  Module m = parse(subst(kShift, {{"BARRIER", "kuiper.barrier"}}));
  for (auto sched : {ExecOptions::InOrder, ExecOptions::Reverse, ExecOptions::Random}) {
    Args a = shiftArgs();
    ExecOptions o;
    o.schedule = sched;
    o.seed = 7;
    ExecResult r = runOK(m, "shift", a, o);
    EXPECT_TRUE(r.ok()) << dump(r);
    const HostBuffer *y = a.buffer("y");
    for (int i = 0; i < 64; ++i)
      EXPECT_EQ(y->get(i), double((i + 1) % 64)) << i;
  }
}

TEST(Executor, MissingBarrierRaces) {
  Module m = parse(subst(kShift, {{"BARRIER", ""}}));
  Args a = shiftArgs();
  ExecResult r = runOK(m, "shift", a);
  const Violation *v = r.find(CheckId::Race);
  ASSERT_NE(v, nullptr) << dump(r);
  EXPECT_NE(v->message.find("s["), std::string::npos) << v->message;
}

TEST(Executor, SchedulesDifferOnRacyKernel) {
  Module m = parse(subst(kShift, {{"BARRIER", ""}}));
  Args a = shiftArgs(), b = shiftArgs();
  ExecOptions in, rev;
  rev.schedule = ExecOptions::Reverse;
  runOK(m, "shift", a, in);
  runOK(m, "shift", b, rev);
  // In order, thread 0 reads s[1] before thread 1 wrote it; reversed, it is
  // already written.
  EXPECT_TRUE(std::isnan(a.buffer("y")->get(0)));
  EXPECT_EQ(b.buffer("y")->get(0), 1.0);
}

// Warp sum with shfl down: y[0] = sum x[0..32).
const char *kWarpSum = R"(
kuiper.kernel @warp_sum block [32, 1, 1] attributes {arg_names = ["x", "y"]} {
^bb0(%x: !kuiper.buffer<f32, 1, "in">, %y: !kuiper.buffer<f32, 1, "out">):
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %c32 = arith.constant 32 : i32
  kuiper.shape %x [%c32] : !kuiper.buffer<f32, 1, "in">, i32
  kuiper.shape %y [%c1] : !kuiper.buffer<f32, 1, "out">, i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  kuiper.ensures approx {
    %a = kuiper.load %y[%c0] : !kuiper.buffer<f32, 1, "out">, i32 -> f32
    %s = kuiper.sum %c0, %c32, %c1 : i32 {
    ^bb0(%j: i32):
      %w = kuiper.load %x[%j] : !kuiper.buffer<f32, 1, "in">, i32 -> f32
      kuiper.yield %w : f32
    } -> f32
    %e = arith.cmpf oeq, %a, %s : f32
    kuiper.yield %e : i1
  }
  %l = kuiper.lane_id : i32
  %v0 = kuiper.load %x[%l] : !kuiper.buffer<f32, 1, "in">, i32 -> f32
  %s1 = kuiper.shfl "{MODE}" %v0, %c16 : f32
  %v1 = arith.addf %v0, %s1 : f32
  %s2 = kuiper.shfl "{MODE}" %v1, %c8 : f32
  %v2 = arith.addf %v1, %s2 : f32
  %s3 = kuiper.shfl "{MODE}" %v2, %c4 : f32
  %v3 = arith.addf %v2, %s3 : f32
  %s4 = kuiper.shfl "{MODE}" %v3, %c2 : f32
  %v4 = arith.addf %v3, %s4 : f32
  %s5 = kuiper.shfl "{MODE}" %v4, %c1 : f32
  %v5 = arith.addf %v4, %s5 : f32
  %is0 = arith.cmpi eq, %l, %c{WRITER} : i32
  scf.if %is0 {
    kuiper.store %v5, %y[%c0] : f32, !kuiper.buffer<f32, 1, "out">, i32
  }
}
)";

Args warpArgs() {
  Args a;
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i)
    x[i] = float(i + 1);
  a.setBuffer("x", HostBuffer::f32(x));
  a.setBuffer("y", HostBuffer::f32({0}));
  return a;
}

TEST(Executor, ShflDownSum) {
  Module m = parse(subst(kWarpSum, {{"MODE", "down"}, {"WRITER", "0"}}));
  Args a = warpArgs();
  ExecResult r = runOK(m, "warp_sum", a);
  EXPECT_TRUE(r.ok()) << dump(r);
  EXPECT_EQ(a.buffer("y")->get(0), 528.0);
}

TEST(Executor, ShflXorAllLanesGetSum) {
  // With xor every lane holds the sum; lane 16 writes it.
  Module m = parse(subst(kWarpSum, {{"MODE", "xor"}, {"WRITER", "16"}}));
  Args a = warpArgs();
  ExecResult r = runOK(m, "warp_sum", a);
  EXPECT_TRUE(r.ok()) << dump(r);
  EXPECT_EQ(a.buffer("y")->get(0), 528.0);
}

TEST(Executor, ShflDownWrongLaneFailsEnsures) {
  // With down only lane 0 holds the sum; lane 16 holds a partial sum.
  Module m = parse(subst(kWarpSum, {{"MODE", "down"}, {"WRITER", "16"}}));
  Args a = warpArgs();
  ExecResult r = runOK(m, "warp_sum", a);
  const Violation *v = r.find(CheckId::Postcondition);
  ASSERT_NE(v, nullptr) << dump(r);
  EXPECT_NE(v->message.find("y[0] = "), std::string::npos) << v->message;
  EXPECT_NE(v->message.find("expected 528"), std::string::npos) << v->message;
}

// Half the warp takes a shuffle: partial warp, with or without a mask.
const char *kPartialShfl = R"(
kuiper.kernel @partial block [32, 1, 1] attributes {arg_names = ["y"]} {
^bb0(%y: !kuiper.buffer<i32, 1, "out">):
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %c32 = arith.constant 32 : i32
  %mask = arith.constant 65535 : i32
  kuiper.shape %y [%c32] : !kuiper.buffer<i32, 1, "out">, i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %l = kuiper.lane_id : i32
  %lo = arith.cmpi slt, %l, %c16 : i32
  %r = scf.if %lo -> (i32) {
    %s = kuiper.shfl "xor" %l, %c1 {MASK} : i32
    scf.yield %s : i32
  } else {
    scf.yield %l : i32
  }
  kuiper.store %r, %y[%l] : i32, !kuiper.buffer<i32, 1, "out">, i32
}
)";

TEST(Executor, PartialWarpShflWithoutMask) {
  Module m = parse(subst(kPartialShfl, {{"MASK", ""}}));
  Args a;
  a.setBuffer("y", HostBuffer::i32(std::vector<int32_t>(32)));
  ExecResult r = runOK(m, "partial", a);
  const Violation *v = r.find(CheckId::WarpConvergence);
  ASSERT_NE(v, nullptr) << dump(r);
  EXPECT_NE(v->message.find("0x0000ffff"), std::string::npos) << v->message;
}

TEST(Executor, PartialWarpShflWithMask) {
  Module m = parse(subst(kPartialShfl, {{"MASK", "mask %mask : i32"}}));
  Args a;
  a.setBuffer("y", HostBuffer::i32(std::vector<int32_t>(32)));
  ExecResult r = runOK(m, "partial", a);
  EXPECT_TRUE(r.ok()) << dump(r);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(a.buffer("y")->at<int32_t>(i), i < 16 ? (i ^ 1) : i);
}

TEST(Executor, WrongMaskIsReported) {
  std::string ir = subst(kPartialShfl, {{"MASK", "mask %mask : i32"}});
  ir.replace(ir.find("65535"), 5, "255");
  Module m = parse(ir);
  Args a;
  a.setBuffer("y", HostBuffer::i32(std::vector<int32_t>(32)));
  ExecResult r = runOK(m, "partial", a);
  EXPECT_NE(r.find(CheckId::WarpConvergence), nullptr) << dump(r);
}

// Every thread of every block adds 1 to c[0]; y[gid] = the old value.
const char *kAtomic = R"(
kuiper.kernel @count block [64, 1, 1] attributes {arg_names = ["c", "n"]} {
^bb0(%cnt: !kuiper.buffer<i32, 1, "inout">, %n: i32):
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  kuiper.shape %cnt [%c1] : !kuiper.buffer<i32, 1, "inout">, i32
  kuiper.launch grid(%n, %c1, %c1) : i32, i32, i32
  kuiper.requires {
    %p = arith.cmpi sge, %n, %c0 : i32
    kuiper.yield %p : i1
  }
  {BODY}
}
)";

TEST(Executor, AtomicAddCounts) {
  Module m = parse(subst(kAtomic, {{"BODY", R"(
  %old = kuiper.atomic "add" %cnt[%c0], %c1 : !kuiper.buffer<i32, 1, "inout">, (i32), (i32) -> i32
  )"}}));
  for (auto sched : {ExecOptions::InOrder, ExecOptions::Random}) {
    Args a;
    a.setInt("n", 4);
    a.setBuffer("c", HostBuffer::i32({10}));
    ExecOptions o;
    o.schedule = sched;
    ExecResult r = runOK(m, "count", a, o);
    EXPECT_TRUE(r.ok()) << dump(r);
    EXPECT_EQ(a.buffer("c")->at<int32_t>(0), 10 + 256);
  }
}

TEST(Executor, NonAtomicIncrementRacesAndRandomLosesUpdates) {
  Module m = parse(subst(kAtomic, {{"BODY", R"(
  %v = kuiper.load %cnt[%c0] : !kuiper.buffer<i32, 1, "inout">, i32 -> i32
  %w = arith.addi %v, %c1 overflow<nsw> : i32
  kuiper.store %w, %cnt[%c0] : i32, !kuiper.buffer<i32, 1, "inout">, i32
  )"}}));
  Args a;
  a.setInt("n", 1);
  a.setBuffer("c", HostBuffer::i32({0}));
  ExecResult r = runOK(m, "count", a);
  EXPECT_NE(r.find(CheckId::Race), nullptr) << dump(r);
  EXPECT_EQ(a.buffer("c")->at<int32_t>(0), 64); // in order: no lost update
  bool lost = false;
  for (uint64_t seed = 1; seed <= 5 && !lost; ++seed) {
    Args b;
    b.setInt("n", 1);
    b.setBuffer("c", HostBuffer::i32({0}));
    ExecOptions o;
    o.schedule = ExecOptions::Random;
    o.seed = seed;
    runOK(m, "count", b, o);
    lost = b.buffer("c")->at<int32_t>(0) < 64;
  }
  EXPECT_TRUE(lost);
}

TEST(Executor, FalseRequiresIsAnError) {
  Module m = parse(subst(kAtomic, {{"BODY", ""}}));
  Args a;
  a.setInt("n", -1);
  a.setBuffer("c", HostBuffer::i32({0}));
  Result<ExecResult> r = Executor().run(m, "count", a);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, 2);
  EXPECT_NE(r.error().message.find("precondition"), std::string::npos);
}

TEST(Executor, ZeroBlocksRunsNothing) {
  Module m = parse(subst(kAtomic, {{"BODY", R"(
  %old = kuiper.atomic "add" %cnt[%c0], %c1 : !kuiper.buffer<i32, 1, "inout">, (i32), (i32) -> i32
  )"}}));
  Args a;
  a.setInt("n", 0);
  a.setBuffer("c", HostBuffer::i32({5}));
  ExecResult r = runOK(m, "count", a);
  EXPECT_TRUE(r.ok()) << dump(r);
  EXPECT_EQ(r.threadsRun, 0u);
  EXPECT_EQ(a.buffer("c")->at<int32_t>(0), 5);
}

// Elementwise kernel over n elements: y[i] = 2 * x[i] for i < {LIMIT}.
const char *kScale = R"(
kuiper.kernel @scale block [64, 1, 1] attributes {arg_names = ["x", "y", "n"]} {
^bb0(%x: !kuiper.buffer<f32, 1, "in">, %y: !kuiper.buffer<f32, 1, "out">, %n: i32):
  kuiper.shape %x [%n] : !kuiper.buffer<f32, 1, "in">, i32
  kuiper.shape %y [%n] : !kuiper.buffer<f32, 1, "out">, i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c63 = arith.constant 63 : i32
  %t0 = arith.addi %n, %c63 overflow<nsw> : i32
  %g = arith.divsi %t0, %c64 : i32
  kuiper.launch grid(%g, %c1, %c1) : i32, i32, i32
  kuiper.requires {
    %p = arith.cmpi sge, %n, %c0 : i32
    kuiper.yield %p : i1
  }
  kuiper.ensures {
    %q = kuiper.forall %c0, %n : i32 {
    ^bb0(%i: i32):
      %a = kuiper.load %y[%i] : !kuiper.buffer<f32, 1, "out">, i32 -> f32
      %b = kuiper.load %x[%i] : !kuiper.buffer<f32, 1, "in">, i32 -> f32
      %two = arith.constant 2.0 : f32
      %e = arith.mulf %two, %b : f32
      %r = arith.cmpf oeq, %a, %e : f32
      kuiper.yield %r : i1
    }
    kuiper.yield %q : i1
  }
  %bid = kuiper.block_id 0 : i32
  %tid = kuiper.thread_id 0 : i32
  %m = arith.muli %bid, %c64 {MULFLAGS} : i32
  %i = arith.addi %m, %tid overflow<nsw> : i32
  %lim = {LIMIT}
  %in = arith.cmpi slt, %i, %lim : i32
  scf.if %in {
    %v = kuiper.load %x[%i] : !kuiper.buffer<f32, 1, "in">, i32 -> f32
    %k = arith.constant {FACTOR} : f32
    %w = arith.mulf %k, %v : f32
    kuiper.store %w, %y[%i{OFF}] : f32, !kuiper.buffer<f32, 1, "out">, i32
  }
}
)";

std::string scale(std::string limit = "arith.addi %n, %c0 : i32",
                  std::string factor = "2.0", std::string off = "",
                  std::string mulFlags = "overflow<nsw>") {
  return subst(kScale, {{"LIMIT", limit},
                        {"FACTOR", factor},
                        {"OFF", off},
                        {"MULFLAGS", mulFlags}});
}

Args scaleArgs(int n) {
  Args a;
  a.setInt("n", n);
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = 0.5f * float(i) - 3.0f;
  a.setBuffer("x", HostBuffer::f32(x));
  a.setBuffer("y", HostBuffer::f32(std::vector<float>(n)));
  return a;
}

TEST(Executor, ElementwiseEnsuresHold) {
  Module m = parse(scale());
  Args a = scaleArgs(100);
  ExecResult r = runOK(m, "scale", a);
  EXPECT_TRUE(r.ok()) << dump(r);
  EXPECT_EQ(r.launch.grid[0], 2);
  EXPECT_EQ(a.buffer("y")->get(99), 2 * (0.5 * 99 - 3.0));
}

TEST(Executor, WrongValueFailsEnsuresWithIndex) {
  Module m = parse(scale("arith.addi %n, %c0 : i32", "3.0"));
  Args a = scaleArgs(100);
  ExecResult r = runOK(m, "scale", a);
  const Violation *v = r.find(CheckId::Postcondition);
  ASSERT_NE(v, nullptr) << dump(r);
  // x[0] = -3: y[0] = -9, expected -6.
  EXPECT_NE(v->message.find("at index 0: y[0] = -9, expected -6"),
            std::string::npos)
      << v->message;
}

TEST(Executor, UnwrittenOutElement) {
  Module m = parse(scale("arith.constant 32 : i32"));
  Args a = scaleArgs(64);
  ExecResult r = runOK(m, "scale", a);
  const Violation *v = r.find(CheckId::Coverage);
  ASSERT_NE(v, nullptr) << dump(r);
  EXPECT_EQ(v->message.rfind("y[32] never written", 0), 0u) << v->message;
  EXPECT_NE(r.find(CheckId::Postcondition), nullptr);
}

TEST(Executor, OutOfBounds) {
  std::string ir = scale("arith.addi %n, %c0 : i32", "2.0", "p1");
  ir.replace(ir.find("%ip1"), 4, "%i1");
  ir.replace(ir.find("    %v = kuiper.load"), 0,
             "    %i1 = arith.addi %i, %c1 overflow<nsw> : i32\n");
  Module m = parse(ir);
  Args a = scaleArgs(100);
  ExecResult r = runOK(m, "scale", a);
  const Violation *v = r.find(CheckId::Bounds);
  ASSERT_NE(v, nullptr) << dump(r);
  EXPECT_NE(v->message.find("y[100]"), std::string::npos) << v->message;
}

TEST(Executor, Overflow) {
  // blockIdx * 2^30 overflows i32 from block 2 on.
  std::string ir = scale();
  ir.replace(ir.find("%m = arith.muli %bid, %c64"), 26,
             "%big = arith.constant 1073741824 : i32\n  %m = arith.muli %bid, %big");
  Module m = parse(ir);
  Args a = scaleArgs(200);
  ExecResult r = runOK(m, "scale", a);
  const Violation *v = r.find(CheckId::Overflow);
  ASSERT_NE(v, nullptr) << dump(r);
  EXPECT_NE(v->message.find("signed overflow"), std::string::npos) << v->message;
}

// y[0] = a OP b in one thread: the integer semantics of one arith op.
const char *kIntegerOp = R"(
kuiper.kernel @intop block [1, 1, 1] attributes {arg_names = ["y", "a", "b"]} {
^bb0(%y: !kuiper.buffer<i32, 1, "out">, %a: i32, %b: i32):
  %c1 = arith.constant 1 : i32
  kuiper.shape %y [%c1] : !kuiper.buffer<i32, 1, "out">, i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %c0 = arith.constant 0 : i32
  %r = arith.{OP} %a, %b {FLAGS} : i32
  kuiper.store %r, %y[%c0] : i32, !kuiper.buffer<i32, 1, "out">, i32
}
)";

struct IntegerCase {
  const char *op, *flags;
  int64_t a, b;
  const char *fault; ///< expected overflow message, or null
  int32_t value;     ///< y[0] when there is no fault
};

TEST(Executor, IntegerSemanticsFollowTheOpFlags) {
  const int64_t intMin = INT32_MIN, intMax = INT32_MAX;
  const IntegerCase cases[] = {
      {"addi", "", intMax, 1, nullptr, INT32_MIN}, // wraps
      {"addi", "overflow<nsw>", intMax, 1, "signed overflow", 0},
      {"addi", "overflow<nuw>", intMax, 1, nullptr, INT32_MIN},
      {"subi", "overflow<nuw>", 0, 1, "unsigned overflow", 0},
      {"subi", "overflow<nsw>", 0, 1, nullptr, -1},
      {"muli", "", 65536, 65536, nullptr, 0},
      {"muli", "overflow<nuw>", 65536, 65536, "unsigned overflow", 0},
      {"divsi", "", 7, 0, "division by zero", 0},
      {"remui", "", 7, 0, "division by zero", 0},
      {"divsi", "", intMin, -1, "signed overflow", 0},
      {"remsi", "", intMin, -1, "signed overflow", 0},
      {"divsi", "", -7, 2, nullptr, -3},
      {"floordivsi", "", -7, 2, nullptr, -4},
      {"ceildivsi", "", 7, 2, nullptr, 4},
      {"shli", "", 1, 32, "shift amount out of range", 0},
      {"shrui", "", 1, 40, "shift amount out of range", 0},
      {"shrsi", "", -8, 1, nullptr, -4},
      {"shli", "", 0x40000000, 1, nullptr, INT32_MIN},
      {"shli", "overflow<nsw>", 0x40000000, 1, "signed overflow", 0},
  };
  for (const IntegerCase &c : cases) {
    std::string name = std::string(c.op) + " " + c.flags + " " +
                       std::to_string(c.a) + ", " + std::to_string(c.b);
    Module m = parse(subst(kIntegerOp, {{"OP", c.op}, {"FLAGS", c.flags}}));
    Args args;
    args.setInt("a", c.a).setInt("b", c.b);
    args.setBuffer("y", HostBuffer::i32({0}));
    ExecResult r = runOK(m, "intop", args);
    const Violation *v = r.find(CheckId::Overflow);
    if (c.fault) {
      ASSERT_NE(v, nullptr) << name << "\n" << dump(r);
      EXPECT_NE(v->message.find(c.fault), std::string::npos)
          << name << ": " << v->message;
      continue;
    }
    EXPECT_TRUE(r.ok()) << name << "\n" << dump(r);
    EXPECT_EQ(args.buffer("y")->at<int32_t>(0), c.value) << name;
  }
}

TEST(Executor, OpWithoutSemanticsIsRejectedBeforeRunning) {
  // math.atan sits in a branch no thread takes (n = 0): the kernel is still
  // rejected, before it runs.
  std::string ir = scale();
  ir.replace(ir.find("    %k = arith.constant 2.0 : f32"), 0,
             "    %at = math.atan %v : f32\n");
  Module m = parse(ir);
  Args a = scaleArgs(0);
  a.setBuffer("y", HostBuffer::f32({}));
  Result<ExecResult> r = Executor().run(m, "scale", a);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, 3);
  EXPECT_NE(r.error().message.find("unsupported op 'math.atan' at test.mlir:"),
            std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("no semantics"), std::string::npos)
      << r.error().message;
}

TEST(Executor, ValueTypeWithoutSemanticsIsRejectedBeforeRunning) {
  std::string ir = scale();
  ir.replace(ir.find("  %bid = kuiper.block_id"), 0,
             "  %wide = arith.constant 1 : i128\n");
  Module m = parse(ir);
  Args a = scaleArgs(64);
  Result<ExecResult> r = Executor().run(m, "scale", a);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, 3);
  EXPECT_NE(r.error().message.find("unsupported op 'arith.constant'"),
            std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("type i128"), std::string::npos)
      << r.error().message;
}

TEST(Executor, BufferSizeMismatchIsAnError) {
  Module m = parse(scale());
  Args a = scaleArgs(100);
  a.setBuffer("y", HostBuffer::f32(std::vector<float>(99)));
  Result<ExecResult> r = Executor().run(m, "scale", a);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("'y'"), std::string::npos) << r.error().message;
}

TEST(Executor, DescribeAndAllocate) {
  Module m = parse(scale());
  Args a;
  a.setInt("n", 1000);
  Executor ex;
  Result<LaunchInfo> info = ex.allocateBuffers(m, "scale", a);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->grid[0], 16);
  EXPECT_EQ(info->block[0], 64);
  EXPECT_TRUE(info->requiresHold);
  ASSERT_NE(a.buffer("x"), nullptr);
  EXPECT_EQ(a.buffer("x")->numElements(), 1000);
  a.setInt("n", -5);
  Result<LaunchInfo> bad = ex.describe(m, "scale", a);
  ASSERT_TRUE(bad) << bad.error().message; // requires n >= 0 explains it
  EXPECT_FALSE(bad->requiresHold);
}

// Threads 0..31 wait at a barrier the others skip.
TEST(Executor, DivergentBarrier) {
  Module m = parse(R"(
kuiper.kernel @div block [64, 1, 1] attributes {arg_names = ["y"]} {
^bb0(%y: !kuiper.buffer<f32, 1, "out">):
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  kuiper.shape %y [%c64] : !kuiper.buffer<f32, 1, "out">, i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %t = kuiper.thread_id 0 : i32
  %lo = arith.cmpi slt, %t, %c32 : i32
  scf.if %lo {
    kuiper.barrier
  }
  %f = arith.constant 1.0 : f32
  kuiper.store %f, %y[%t] : f32, !kuiper.buffer<f32, 1, "out">, i32
}
)");
  Args a;
  a.setBuffer("y", HostBuffer::f32(std::vector<float>(64)));
  ExecResult r = runOK(m, "div", a);
  const Violation *v = r.find(CheckId::BarrierDivergence);
  ASSERT_NE(v, nullptr) << dump(r);
  EXPECT_NE(v->message.find("32 of 64"), std::string::npos) << v->message;
}

// Block tree sum through shared memory, with loops, locals and barriers.
TEST(Executor, BlockTreeSumApproxEnsures) {
  Module m = parse(R"(
kuiper.kernel @block_sum block [64, 1, 1] attributes {arg_names = ["x", "y", "nb"]} {
^bb0(%x: !kuiper.buffer<f32, 1, "in">, %y: !kuiper.buffer<f32, 1, "out">, %nb: i32):
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c6 = arith.constant 6 : i32
  %c64 = arith.constant 64 : i32
  %n = arith.muli %nb, %c64 overflow<nsw> : i32
  kuiper.shape %x [%n] : !kuiper.buffer<f32, 1, "in">, i32
  kuiper.shape %y [%nb] : !kuiper.buffer<f32, 1, "out">, i32
  kuiper.launch grid(%nb, %c1, %c1) : i32, i32, i32
  kuiper.ensures approx {
    %q = kuiper.forall %c0, %nb : i32 {
    ^bb0(%b: i32):
      %a = kuiper.load %y[%b] : !kuiper.buffer<f32, 1, "out">, i32 -> f32
      %base = arith.muli %b, %c64 : i32
      %s = kuiper.sum %c0, %c64, %c1 : i32 {
      ^bb0(%j: i32):
        %k = arith.addi %base, %j : i32
        %w = kuiper.load %x[%k] : !kuiper.buffer<f32, 1, "in">, i32 -> f32
        kuiper.yield %w : f32
      } -> f32
      %e = arith.cmpf oeq, %a, %s : f32
      kuiper.yield %e : i1
    }
    kuiper.yield %q : i1
  }
  %stride = memref.alloca() : memref<i32>
  %bid = kuiper.block_id 0 : i32
  %t = kuiper.thread_id 0 : i32
  %s = kuiper.shared_alloc "s" : !kuiper.shared<f32, [64]>
  %bb = arith.muli %bid, %c64 overflow<nsw> : i32
  %gi = arith.addi %bb, %t overflow<nsw> : i32
  %v = kuiper.load %x[%gi] : !kuiper.buffer<f32, 1, "in">, i32 -> f32
  kuiper.store %v, %s[%t] : f32, !kuiper.shared<f32, [64]>, i32
  kuiper.barrier
  %c32 = arith.constant 32 : i32
  memref.store %c32, %stride[] : memref<i32>
  kuiper.for %c0 to %c6 step %c1 : i32 invariants {
  ^bb0(%it: i32):
    %p = arith.cmpi sge, %it, %c0 : i32
    kuiper.invariant %p
    kuiper.yield
  } do {
  ^bb0(%it: i32):
    %st = memref.load %stride[] : memref<i32>
    %act = arith.cmpi slt, %t, %st : i32
    scf.if %act {
      %o = arith.addi %t, %st overflow<nsw> : i32
      %a = kuiper.load %s[%t] : !kuiper.shared<f32, [64]>, i32 -> f32
      %b = kuiper.load %s[%o] : !kuiper.shared<f32, [64]>, i32 -> f32
      %c = arith.addf %a, %b : f32
      kuiper.store %c, %s[%t] : f32, !kuiper.shared<f32, [64]>, i32
    }
    kuiper.barrier
    %half = arith.divsi %st, %c2 : i32
    memref.store %half, %stride[] : memref<i32>
    kuiper.yield
  }
  %is0 = arith.cmpi eq, %t, %c0 : i32
  scf.if %is0 {
    %r = kuiper.load %s[%c0] : !kuiper.shared<f32, [64]>, i32 -> f32
    kuiper.store %r, %y[%bid] : f32, !kuiper.buffer<f32, 1, "out">, i32
  }
}
)");
  for (auto sched : {ExecOptions::InOrder, ExecOptions::Reverse, ExecOptions::Random}) {
    Args a;
    a.setInt("nb", 3);
    std::vector<float> x(192);
    double total = 0;
    for (int i = 0; i < 192; ++i) {
      x[i] = 0.1f * float(i % 17) - 0.7f;
      if (i < 64)
        total += x[i];
    }
    a.setBuffer("x", HostBuffer::f32(x));
    a.setBuffer("y", HostBuffer::f32(std::vector<float>(3)));
    ExecOptions o;
    o.schedule = sched;
    o.seed = 3;
    ExecResult r = runOK(m, "block_sum", a, o);
    EXPECT_TRUE(r.ok()) << dump(r);
    EXPECT_NEAR(a.buffer("y")->get(0), total, 1e-4);
  }
}

TEST(Executor, VoteBallot) {
  Module m = parse(R"(
kuiper.kernel @vote block [40, 1, 1] attributes {arg_names = ["y"]} {
^bb0(%y: !kuiper.buffer<i32, 1, "out">):
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %c40 = arith.constant 40 : i32
  kuiper.shape %y [%c40] : !kuiper.buffer<i32, 1, "out">, i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %t = kuiper.thread_id 0 : i32
  %p = arith.cmpi slt, %t, %c3 : i32
  %b = kuiper.vote "ballot" %p : i32
  kuiper.store %b, %y[%t] : i32, !kuiper.buffer<i32, 1, "out">, i32
}
)");
  Args a;
  a.setBuffer("y", HostBuffer::i32(std::vector<int32_t>(40)));
  ExecResult r = runOK(m, "vote", a);
  EXPECT_TRUE(r.ok()) << dump(r); // partial last warp (8 lanes) is whole
  EXPECT_EQ(a.buffer("y")->at<int32_t>(0), 7);
  EXPECT_EQ(a.buffer("y")->at<int32_t>(35), 0);
}

TEST(Executor, UnknownKernelIsAnError) {
  Module m = parse(scale());
  Args a = scaleArgs(4);
  Result<ExecResult> r = Executor().run(m, "nope", a);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("scale"), std::string::npos);
}

TEST(HostBuffer, IndicesPastTheEndThrowInsteadOfWritingPastTheBuffer) {
  HostBuffer b = HostBuffer::f32({1.0f, 2.0f, 3.0f, 4.0f});
  EXPECT_EQ(b.get(3), 4.0);
  EXPECT_THROW(b.get(4), std::out_of_range);
  EXPECT_THROW(b.set(6, 1.0), std::out_of_range);
  EXPECT_THROW(b.str(-1), std::out_of_range);
  HostBuffer unknown("weird", {4}); // no element size: no element either
  EXPECT_THROW(unknown.get(0), std::out_of_range);
}

TEST(HostBuffer, FactoriesAndConversionsOfEveryType) {
  HostBuffer u = HostBuffer::u32({0u, 4000000000u});
  EXPECT_EQ(u.elemType, "u32");
  EXPECT_EQ(u.get(1), 4000000000.0);
  HostBuffer h = HostBuffer::f16({1.0f, 65504.0f, 1.0f / 3.0f});
  EXPECT_EQ(h.get(1), 65504.0);
  EXPECT_EQ(h.get(2), 0.333251953125); // rounded to nearest f16
  HostBuffer bf = HostBuffer::bf16({1.0f / 3.0f});
  EXPECT_EQ(bf.get(0), 0.333984375);
  HostBuffer flags = HostBuffer::boolean({true, false});
  EXPECT_EQ(flags.get(0), 1.0);
  EXPECT_EQ(flags.get(1), 0.0);
  // Integers: NaN is 0 in every width; out of range wraps; -1 in a u32.
  HostBuffer i = HostBuffer::i32({7});
  i.set(0, std::nan(""));
  EXPECT_EQ(i.get(0), 0.0);
  HostBuffer l = HostBuffer::i64({7});
  l.set(0, std::nan(""));
  EXPECT_EQ(l.get(0), 0.0);
  u.set(0, -1.0);
  EXPECT_EQ(u.get(0), 4294967295.0);
}

TEST(Compiler, AnUnknownArchitectureIsBadInputFoundBeforeAnyWork) {
  CompileOptions co;
  co.arch = "sm_12";
  Result<Module> m = Compiler(co).compileString("kernel k(out y: f32[n], n: i32)\n"
                                                "  launch block(32) grid(cdiv(n, 32))\n"
                                                "{ let i = blockIdx.x * 32 + threadIdx.x;\n"
                                                "  if i < n { y[i] = 1.0; } }\n");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code, 2);
  EXPECT_NE(m.error().message.find("unsupported GPU architecture 'sm_12'"), std::string::npos);
}

TEST(Device, OpenWithoutDriverFailsCleanly) {
  Result<Device> d = Device::open();
  if (d) {
    GTEST_SKIP() << "a CUDA device is present: " << d->name();
  }
  EXPECT_FALSE(d.error().message.empty());
  EXPECT_EQ(d.error().code, 2); // the machine lacks it: no internal error
}

} // namespace

namespace {

// One thread copies x[{IDX}] to y[0] with the load marked 16-byte aligned, and
// stores kuiper.aligned(x, 16) in y[1].
const char *kAligned = R"(
kuiper.kernel @al block [1, 1, 1] attributes {arg_names = ["x", "y"]} {
^bb0(%x: !kuiper.buffer<f32, 1, "in">, %y: !kuiper.buffer<f32, 1, "out">):
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c8 = arith.constant 8 : i32
  %c0 = arith.constant 0 : i32
  %i = arith.constant {IDX} : i32
  kuiper.shape %x [%c8] : !kuiper.buffer<f32, 1, "in">, i32
  kuiper.shape %y [%c2] : !kuiper.buffer<f32, 1, "out">, i32
  kuiper.launch grid(%c1, %c1, %c1) : i32, i32, i32
  %v = kuiper.load %x[%i] {align = 16 : i64} : !kuiper.buffer<f32, 1, "in">, i32 -> f32
  kuiper.store %v, %y[%c0] : f32, !kuiper.buffer<f32, 1, "out">, i32
  %a = kuiper.aligned %x, 16 : !kuiper.buffer<f32, 1, "in">
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %f = arith.select %a, %one, %zero : f32
  kuiper.store %f, %y[%c1] : f32, !kuiper.buffer<f32, 1, "out">, i32
}
)";

Args alignedArgs() {
  Args a;
  a.setBuffer("x", HostBuffer::f32({0, 1, 2, 3, 4, 5, 6, 7}));
  a.setBuffer("y", HostBuffer::f32({0, 0}));
  return a;
}

} // namespace

// The executor tests kuiper.aligned on the host address and checks {align}
// accesses: x[4] of a 16-byte aligned buffer is aligned, x[1] is not.
TEST(Executor, AlignedAccesses) {
  Module good = parse(subst(kAligned, {{"IDX", "4"}}));
  Args a = alignedArgs();
  const void *base = a.buffer("x")->bytes.data();
  ASSERT_EQ(reinterpret_cast<uintptr_t>(base) % 16, 0u) << "host buffers are 16-byte aligned";
  ExecResult r = runOK(good, "al", a);
  EXPECT_TRUE(r.violations.empty()) << dump(r);
  EXPECT_EQ(a.buffer("y")->get(0), 4.0);
  EXPECT_EQ(a.buffer("y")->get(1), 1.0); // kuiper.aligned(x, 16)

  Module bad = parse(subst(kAligned, {{"IDX", "1"}}));
  Args b = alignedArgs();
  ExecResult rb = runOK(bad, "al", b);
  const Violation *v = rb.find(CheckId::Alignment);
  ASSERT_NE(v, nullptr) << dump(rb);
  EXPECT_NE(v->message.find("not aligned to 16 bytes"), std::string::npos) << v->message;
}
