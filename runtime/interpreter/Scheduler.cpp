//===- Scheduler.cpp - Threads, blocks and collectives --------------------===//
//
// Every thread is an explicit state (a stack of frames, each a block and the
// op to run next, plus an SSA value map) that runs until it reaches a
// barrier, a warp collective or its end. Per block, the scheduler runs the
// ready threads (in order, reversed, or randomly interleaved at memory
// accesses), resolves collectives warp by warp, and releases a barrier once
// every live thread waits at it (or reports barrier divergence).
//
//===----------------------------------------------------------------------===//
#include "runtime/interpreter/KernelInterpreter.h"
#include "runtime/interpreter/Semantics.h"

#include "llvm/Support/Debug.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

#define DEBUG_TYPE "kuiper-interp"

using namespace mlir;

namespace kuiper {
namespace interp {

//===----------------------------------------------------------------------===//
// Entering regions and suspending
//===----------------------------------------------------------------------===//

bool KernelInterpreter::enterIf(Thread &thread, Operation *op) {
  auto ifOp = cast<scf::IfOp>(op);
  RuntimeValue condition;
  if (!operand(thread, ifOp.getCondition(), condition, op))
    return false;
  Region &taken =
      condition.isTrue() ? ifOp.getThenRegion() : ifOp.getElseRegion();
  if (taken.empty()) {
    ++thread.stack.back().next;
    return true;
  }
  Frame frame;
  frame.kind = Frame::IfRegion;
  frame.op = op;
  frame.block = &taken.front();
  frame.next = frame.block->begin();
  thread.stack.push_back(frame);
  return true;
}

bool KernelInterpreter::enterFor(Thread &thread, Operation *op) {
  auto forOp = cast<ForOp>(op);
  RuntimeValue lo, hi, step;
  if (!operand(thread, forOp.getLo(), lo, op) ||
      !operand(thread, forOp.getHi(), hi, op) ||
      !operand(thread, forOp.getStep(), step, op))
    return false;
  Frame frame;
  frame.kind = Frame::ForBody;
  frame.op = op;
  frame.inductionValue = lo.asSigned();
  frame.upperBound = hi.asSigned();
  frame.step = step.asSigned();
  frame.inductionWidth = lo.width;
  RuntimeValue induction =
      makeInteger(frame.inductionWidth, (uint64_t)frame.inductionValue);
  if (!checkInvariants(forOp.getInvariants(), {induction}, thread, /*onEntry=*/true))
    return false;
  if (frame.step <= 0) {
    violate(CheckId::Overflow, op,
            "loop step " + std::to_string(frame.step) +
                " is not positive in " + who(thread),
            whoDetails(thread));
    ++thread.stack.back().next;
    return true;
  }
  if (frame.inductionValue >= frame.upperBound) {
    ++thread.stack.back().next;
    return true;
  }
  frame.block = &forOp.getBody().front();
  frame.next = frame.block->begin();
  bind(thread, frame.block->getArgument(0), induction);
  thread.stack.push_back(frame);
  return true;
}

bool KernelInterpreter::enterWhile(Thread &thread, Operation *op) {
  auto whileOp = cast<WhileOp>(op);
  if (!checkInvariants(whileOp.getInvariants(), {}, thread, /*onEntry=*/true))
    return false;
  Frame frame;
  frame.kind = Frame::WhileRegion;
  frame.op = op;
  frame.block = &whileOp.getCond().front();
  frame.next = frame.block->begin();
  thread.stack.push_back(frame);
  return true;
}

bool KernelInterpreter::suspendAtBarrier(Thread &thread, Operation *op) {
  thread.state = Thread::AtBarrier;
  thread.waitingAt = op;
  return true;
}

bool KernelInterpreter::suspendAtCollective(Thread &thread, Operation *op) {
  if (auto shuffle = dyn_cast<ShuffleOp>(op)) {
    RuntimeValue delta;
    if (!operand(thread, shuffle.getValue(), thread.collectiveValue, op) ||
        !operand(thread, shuffle.getDelta(), delta, op))
      return false;
    thread.shuffleDelta = delta.asSigned();
  } else if (auto vote = dyn_cast<VoteOp>(op)) {
    if (!operand(thread, vote.getPred(), thread.collectiveValue, op))
      return false;
  }
  thread.participantMask.reset();
  if (Value maskValue = cast<CollectiveOpInterface>(op).getParticipantMask()) {
    RuntimeValue mask;
    if (!operand(thread, maskValue, mask, op))
      return false;
    thread.participantMask = mask.bits & 0xffffffffull;
  }
  thread.state = Thread::AtCollective;
  thread.waitingAt = op;
  return true;
}

//===----------------------------------------------------------------------===//
// Running a thread
//===----------------------------------------------------------------------===//

bool KernelInterpreter::continueFor(Thread &thread) {
  Frame &frame = thread.stack.back();
  auto forOp = cast<ForOp>(frame.op);
  int64_t next, prev = frame.inductionValue;
  bool wraps;
  if (frame.inductionWidth >= 64) {
    wraps = __builtin_add_overflow(frame.inductionValue, frame.step, &next);
  } else {
    next = frame.inductionValue + frame.step;
    wraps = next > (int64_t)(lowBitsMask(frame.inductionWidth) >> 1);
  }
  frame.inductionValue = next;
  if (wraps) {
    // The increment after an iteration leaves the counter's type (as the
    // verifier's overflow check says): on the GPU the loop would go on.
    violate(CheckId::Overflow, frame.op,
            "the loop counter's increment " + std::to_string(prev) + " + " +
                std::to_string(frame.step) + " overflows in " + who(thread),
            whoDetails(thread));
  }
  // After every iteration, the last one included, the invariant holds of the
  // counter's next value: `for i in 0..k step 16` leaves with i the first
  // multiple of 16 at or past k, as the verifier reads it (SymExec::execFor).
  // (A step past the type's range is an overflow the verifier reports; the
  // run then checks the invariant at the bound.)
  int64_t at = wraps ? frame.upperBound : next;
  uint64_t done = ++frame.iterations;
  bool last = wraps || next >= frame.upperBound;
  bool sampled = last || done <= 4 || (done & (done - 1)) == 0;
  if ((sampled || !options.sampleForInvariants) &&
      !checkInvariants(forOp.getInvariants(),
                       {makeInteger(frame.inductionWidth, (uint64_t)at)},
                       thread, /*onEntry=*/false))
    return false;
  Frame &current = thread.stack.back();
  if (current.inductionValue < current.upperBound && !wraps) {
    current.next = current.block->begin();
    bind(thread, current.block->getArgument(0),
         makeInteger(current.inductionWidth, (uint64_t)current.inductionValue));
  } else {
    thread.stack.pop_back();
    ++thread.stack.back().next;
  }
  return true;
}

bool KernelInterpreter::continueWhile(Thread &thread, Operation *terminator) {
  Frame &frame = thread.stack.back();
  auto whileOp = cast<WhileOp>(frame.op);
  if (frame.inWhileBody) {
    if (!checkInvariants(whileOp.getInvariants(), {}, thread, /*onEntry=*/false))
      return false;
    Frame &current = thread.stack.back();
    current.inWhileBody = false;
    current.block = &whileOp.getCond().front();
    current.next = current.block->begin();
    return true;
  }
  RuntimeValue condition;
  if (terminator->getNumOperands() == 0 ||
      !operand(thread, terminator->getOperand(0), condition, terminator))
    return fail("while condition yields no value at " + locationOf(terminator));
  if (condition.isTrue()) {
    frame.inWhileBody = true;
    frame.block = &whileOp.getBody().front();
    frame.next = frame.block->begin();
  } else {
    thread.stack.pop_back();
    ++thread.stack.back().next;
  }
  return true;
}

bool KernelInterpreter::finishRegion(Thread &thread, Operation *terminator) {
  Frame &frame = thread.stack.back();
  switch (frame.kind) {
  case Frame::KernelBody:
    thread.stack.clear();
    thread.state = Thread::Done;
    return true;
  case Frame::IfRegion: {
    Operation *ifOp = frame.op;
    for (unsigned k = 0;
         k < ifOp->getNumResults() && k < terminator->getNumOperands(); ++k) {
      RuntimeValue value;
      if (!operand(thread, terminator->getOperand(k), value, terminator))
        return false;
      bind(thread, ifOp->getResult(k), value);
    }
    thread.stack.pop_back();
    ++thread.stack.back().next;
    return true;
  }
  case Frame::ForBody:
    return continueFor(thread);
  case Frame::WhileRegion:
    return continueWhile(thread, terminator);
  }
  return true;
}

void KernelInterpreter::runThread(Thread &thread, bool yieldAtMemoryAccess) {
  unsigned steps = 0;
  while (!failed) {
    if (thread.stack.empty()) {
      thread.state = Thread::Done;
      return;
    }
    Frame &frame = thread.stack.back();
    if (frame.next == frame.block->end()) {
      fail("internal: block without terminator");
      return;
    }
    Operation *op = &*frame.next;
    if (op->hasTrait<OpTrait::IsTerminator>()) {
      if (!finishRegion(thread, op) || thread.state == Thread::Done)
        return;
      continue;
    }
    const OpSemantics *semantics = semanticsTable().lookup(op);
    if (yieldAtMemoryAccess && steps > 0 && semantics &&
        semantics->accessesMemory)
      return;
    ++steps;
    if (options.maxSteps && ++totalSteps > options.maxSteps) {
      fail("step limit of " + std::to_string(options.maxSteps) +
           " operations reached");
      return;
    }
    if (options.deadline && (totalSteps & 4095) == 0 &&
        std::chrono::steady_clock::now() > *options.deadline) {
      fail("time limit reached");
      return;
    }
    if (semantics && semantics->threadStep) {
      if (!(this->*semantics->threadStep)(thread, op) ||
          thread.state != Thread::Ready)
        return;
      continue;
    }
    bool ok = semantics && semantics->evaluate
                  ? semantics->evaluate(*this, op, thread)
                  : evaluate(op, thread);
    if (!ok)
      return;
    ++thread.stack.back().next;
  }
}

//===----------------------------------------------------------------------===//
// Warp collectives
//===----------------------------------------------------------------------===//

static std::string formatMask(uint64_t mask) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%08llx", (unsigned long long)mask);
  return text;
}

void KernelInterpreter::checkWarpConvergence(Operation *op, int64_t warp,
                                             std::optional<uint64_t> mask,
                                             uint64_t active,
                                             uint64_t fullWarp) {
  std::string where = " in warp " + std::to_string(warp) + " of block " +
                      std::to_string(linearBlockId) + " runs with active lanes " +
                      formatMask(active);
  std::string name = "'" + op->getName().getStringRef().str() + "'";
  ViolationDetails details = {{"block", std::to_string(linearBlockId)},
                              {"warp", std::to_string(warp)},
                              {"active", formatMask(active)}};
  if (!mask && active != fullWarp)
    violate(CheckId::WarpConvergence, op,
            name + " without a mask" + where + ", not the whole warp " +
                formatMask(fullWarp),
            details);
  else if (mask && *mask != active)
    violate(CheckId::WarpConvergence, op,
            name + " with mask " + formatMask(*mask) + where, details);
}

/// The lane a shuffle reads from, or -1 when it reads its own value. As
/// `shfl.sync`, it takes the distance's low five bits (33 is 1, -1 is 31).
static int shuffleSource(ShuffleMode mode, int lane, uint64_t delta) {
  delta &= 31;
  switch (mode) {
  case ShuffleMode::Down:
    return lane + delta < 32 ? (int)(lane + delta) : -1;
  case ShuffleMode::Up:
    return delta <= (uint64_t)lane ? (int)(lane - delta) : -1;
  case ShuffleMode::Xor:
    return (lane ^ delta) < 32 ? (int)(lane ^ delta) : -1;
  case ShuffleMode::Idx:
    return (int)(delta & 31);
  }
  return -1;
}

/// Gives every waiting lane of a warp the result of `op`.
static void deliverCollective(KernelInterpreter &in, Operation *op,
                              Thread *(&lanes)[32], uint64_t active) {
  if (auto shuffle = dyn_cast<ShuffleOp>(op)) {
    RuntimeValue results[32];
    for (int lane = 0; lane < 32; ++lane) {
      if (!lanes[lane])
        continue;
      uint64_t delta = (uint32_t)lanes[lane]->shuffleDelta;
      int source = shuffleSource(shuffle.getMode(), lane, delta);
      results[lane] = source >= 0 && lanes[source]
                          ? lanes[source]->collectiveValue
                          : lanes[lane]->collectiveValue;
    }
    for (int lane = 0; lane < 32; ++lane)
      if (lanes[lane])
        in.bind(*lanes[lane], op->getResult(0), results[lane]);
    return;
  }
  auto vote = dyn_cast<VoteOp>(op);
  if (!vote)
    return; // syncwarp: nothing to deliver
  uint64_t ballot = 0;
  for (int lane = 0; lane < 32; ++lane)
    if (lanes[lane] && lanes[lane]->collectiveValue.isTrue())
      ballot |= 1ull << lane;
  unsigned width = op->getResult(0).getType().getIntOrFloatBitWidth();
  RuntimeValue result = vote.getMode() == VoteMode::Ballot
                            ? makeInteger(width, ballot)
                        : vote.getMode() == VoteMode::Any
                            ? makeInteger(width, ballot != 0)
                            : makeInteger(width, ballot == active);
  for (int lane = 0; lane < 32; ++lane)
    if (lanes[lane])
      in.bind(*lanes[lane], op->getResult(0), result);
}

bool KernelInterpreter::resolveCollectives(std::vector<Thread> &threads) {
  // Threads meet when they are in the same warp at the same op with the
  // same mask.
  using MeetingKey =
      std::tuple<int64_t, Operation *, std::optional<uint64_t>>;
  std::map<MeetingKey, std::vector<unsigned>> meetings;
  for (unsigned k = 0; k < threads.size(); ++k) {
    Thread &thread = threads[k];
    if (thread.state == Thread::AtCollective)
      meetings[{thread.linearId / 32, thread.waitingAt,
                thread.participantMask}]
          .push_back(k);
  }
  if (meetings.empty())
    return false;
  int64_t blockSize = (int64_t)threads.size();
  for (auto &[key, members] : meetings) {
    auto &[warp, op, mask] = key;
    int64_t lanesInWarp = std::min<int64_t>(32, blockSize - warp * 32);
    uint64_t fullWarp =
        lanesInWarp == 32 ? 0xffffffffull : ((1ull << lanesInWarp) - 1);
    uint64_t active = 0;
    Thread *lanes[32] = {nullptr};
    for (unsigned k : members) {
      int lane = threads[k].linearId % 32;
      active |= 1ull << lane;
      lanes[lane] = &threads[k];
    }
    if (options.checks)
      checkWarpConvergence(op, warp, mask, active, fullWarp);
    deliverCollective(*this, op, lanes, active);
    // A syncwarp of every lane of the warp orders their memory accesses (as
    // __syncwarp does; the verifier's model). One of part of the warp does
    // not here: conservative, as in the verifier.
    if (isa<SyncWarpOp>(op) && active == fullWarp)
      ++warpEpochs[warp];
    for (unsigned k : members) {
      threads[k].state = Thread::Ready;
      ++threads[k].stack.back().next;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Blocks
//===----------------------------------------------------------------------===//

void KernelInterpreter::initThreads(std::vector<Thread> &threads) {
  int64_t bx = launch.block[0], by = launch.block[1], bz = launch.block[2];
  threads.assign(bx * by * bz, Thread());
  Block &entry = kernel.getBody().front();
  for (int64_t z = 0; z < bz; ++z)
    for (int64_t y = 0; y < by; ++y)
      for (int64_t x = 0; x < bx; ++x) {
        int64_t linear = x + y * bx + z * bx * by;
        Thread &thread = threads[linear];
        thread.isThread = true;
        thread.threadId[0] = x;
        thread.threadId[1] = y;
        thread.threadId[2] = z;
        thread.linearId = (int32_t)linear;
        for (BlockArgument argument : entry.getArguments())
          thread.values[argument] = host.values[argument];
        thread.stack.reserve(8);
        Frame frame;
        frame.kind = Frame::KernelBody;
        frame.block = &entry;
        frame.next = entry.begin();
        thread.stack.push_back(frame);
      }
}

bool KernelInterpreter::runReadyThreads(std::vector<Thread> &threads) {
  unsigned count = threads.size();
  if (options.schedule == ExecOptions::Random) {
    std::vector<unsigned> ready;
    for (unsigned k = 0; k < count; ++k)
      if (threads[k].state == Thread::Ready)
        ready.push_back(k);
    while (!ready.empty() && !failed) {
      size_t pick = rng() % ready.size();
      Thread &thread = threads[ready[pick]];
      runThread(thread, /*yieldAtMemoryAccess=*/true);
      if (thread.state != Thread::Ready) {
        ready[pick] = ready.back();
        ready.pop_back();
      }
    }
    return !failed;
  }
  for (unsigned k = 0; k < count; ++k) {
    Thread &thread =
        threads[options.schedule == ExecOptions::Reverse ? count - 1 - k : k];
    while (thread.state == Thread::Ready && !failed)
      runThread(thread, /*yieldAtMemoryAccess=*/false);
  }
  return !failed;
}

bool KernelInterpreter::releaseBarrier(std::vector<Thread> &threads,
                                       bool &blockDone) {
  Thread *first = nullptr, *finished = nullptr, *elsewhere = nullptr;
  for (Thread &thread : threads) {
    if (thread.state == Thread::Done) {
      finished = finished ? finished : &thread;
      continue;
    }
    if (!first)
      first = &thread;
    else if (thread.waitingAt != first->waitingAt && !elsewhere)
      elsewhere = &thread;
  }
  blockDone = true;
  if (!first)
    return true;
  if (finished || elsewhere) {
    std::string message;
    if (elsewhere) {
      message = who(*first) + " and " + who(*elsewhere) +
                " wait at different barriers (" + locationOf(first->waitingAt) +
                " and " + locationOf(elsewhere->waitingAt) + ")";
    } else {
      unsigned arrived = 0;
      for (Thread &thread : threads)
        arrived += thread.state == Thread::AtBarrier;
      message = "barrier reached by " + std::to_string(arrived) + " of " +
                std::to_string(threads.size()) + " threads of block " +
                std::to_string(linearBlockId) + "; " + who(*finished) +
                " finished without reaching it";
    }
    Thread *other = elsewhere ? elsewhere : finished;
    violate(CheckId::BarrierDivergence, first->waitingAt, message,
            {{"block", std::to_string(linearBlockId)},
             {"thread", std::to_string(first->linearId)},
             {"thread2", std::to_string(other->linearId)}});
    return true;
  }
  Operation *barrier = first->waitingAt;
  if (options.checks && !barrier->getRegion(0).empty()) {
    bool approx = cast<BarrierOp>(barrier).getApprox();
    // The contract is about shared state; it is checked from the first and
    // the last thread of the block (every thread would cost blocksize x).
    std::vector<Thread *> witnesses = {&threads.front()};
    if (threads.size() > 1)
      witnesses.push_back(&threads.back());
    for (Thread *witness : witnesses) {
      bool holds = true;
      if (!evaluateClause(barrier->getRegion(0), *witness, approx, holds))
        return false;
      if (holds)
        continue;
      std::string message = std::string(approx ? "approx " : "") +
                            "barrier contract does not hold in " + who(*witness);
      if (!witness->clauseFailure.empty())
        message += ": " + witness->clauseFailure;
      violate(CheckId::BarrierContract, barrier, message,
              whoDetails(*witness));
      break;
    }
  }
  ++barrierEpoch;
  for (SharedArray &array : sharedArrays)
    std::fill(array.shadow.begin(), array.shadow.end(), ShadowCell());
  for (Thread &thread : threads) {
    thread.state = Thread::Ready;
    ++thread.stack.back().next;
  }
  blockDone = false;
  return true;
}

bool KernelInterpreter::runBlock() {
  sharedArrays.clear();
  sharedArrayOf.clear();
  barrierEpoch = 0;
  std::vector<Thread> threads;
  initThreads(threads);
  warpEpochs.assign((threads.size() + 31) / 32, 0);
  result.threadsRun += threads.size();
  LLVM_DEBUG(llvm::dbgs() << "kuiper-interp: block " << linearBlockId << ", "
                          << threads.size() << " threads\n");
  while (!failed) {
    if (!runReadyThreads(threads))
      return false;
    if (resolveCollectives(threads))
      continue;
    bool blockDone = false;
    if (!releaseBarrier(threads, blockDone))
      return false;
    if (blockDone)
      return true;
  }
  return !failed;
}

bool KernelInterpreter::runBlocks() {
  int64_t gx = launch.grid[0], gy = launch.grid[1], gz = launch.grid[2];
  for (int64_t z = 0; z < gz && !failed; ++z)
    for (int64_t y = 0; y < gy && !failed; ++y)
      for (int64_t x = 0; x < gx && !failed; ++x) {
        blockId[0] = x;
        blockId[1] = y;
        blockId[2] = z;
        linearBlockId = x + y * gx + z * gx * gy;
        if (!runBlock())
          return false;
      }
  return !failed;
}

} // namespace interp
} // namespace kuiper
