//===- Memory.h - Buffers, shared arrays and their shadow state -*- C++ -*-===//
//
// The memory a kernel runs on: global buffers (bound to host buffers), shared
// arrays (one set per block), and the shadow state the dynamic checks keep
// per element: the accesses the race detector remembers, which elements of
// an `out` buffer were written (coverage), and the reads/writes boxes of the
// memory contract.
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_RUNTIME_INTERPRETER_MEMORY_H
#define KUIPER_RUNTIME_INTERPRETER_MEMORY_H

#include "runtime/interpreter/Values.h"

#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"

#include <string>
#include <utility>
#include <vector>

namespace kuiper {
namespace interp {

/// One access remembered by the race detector.
struct AccessRecord {
  int64_t block = -1; ///< linear block id; -1: no access
  int32_t thread = -1;
  /// Barrier interval of the block the access happened in.
  int32_t epoch = 0;
  /// Whole-warp syncwarps the thread's warp had passed: two accesses of lanes
  /// of one warp with different counts are ordered by a syncwarp.
  int32_t warpEpoch = 0;
  bool atomic = false;
  /// The access (a load, store or atomic): a race names both places.
  mlir::Operation *op = nullptr;

  bool exists() const { return block >= 0; }
  bool sameThread(const AccessRecord &other) const {
    return block == other.block && thread == other.thread;
  }
  /// "(block,thread)".
};

/// Whether `current` races with the earlier access `previous`: different
/// threads, not both atomic, and either different blocks or the same
/// barrier interval (and, for two lanes of one warp, no whole-warp syncwarp
/// between them).
bool accessesConflict(const AccessRecord &previous,
                      const AccessRecord &current);

/// Shadow state of one element: its last writer and two distinct readers.
struct ShadowCell {
  AccessRecord writer, reader, otherReader;
};

/// A box of indices [lo, hi) per dimension (a reads/writes clause).
using IndexBox = std::vector<std::pair<int64_t, int64_t>>;

/// Whether `indices` lies in one of `boxes`.
bool inAnyBox(const std::vector<IndexBox> &boxes,
              llvm::ArrayRef<int64_t> indices);

/// A buffer parameter bound to a host buffer.
struct GlobalBuffer {
  std::string name;
  BufferAccess access = BufferAccess::In;
  ElementType elementType;
  bool isUnsigned = false; ///< u32/u64 elements (shown unsigned in messages)
  std::vector<int64_t> dims;
  uint8_t *data = nullptr; ///< the host buffer's bytes; null if not bound
  int64_t numElements = 0;
  /// `old(...)` reads: the contents before the launch (inout buffers).
  std::vector<uint8_t> contentsBeforeLaunch;
  std::vector<ShadowCell> shadow;
  /// Coverage of `out` buffers: 1 where an element was written.
  std::vector<uint8_t> written;
  std::vector<IndexBox> readsClauses, writesClauses;
};

/// A `kuiper.shared_alloc` array of the running block.
struct SharedArray {
  std::string name;
  ElementType elementType;
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;
  std::vector<ShadowCell> shadow;
};

/// The element a load, store or atomic addresses. `address` is null when
/// the access is out of bounds (and was reported) or its buffer is unbound.
struct ElementAddress {
  uint8_t *address = nullptr;
  ElementType elementType;
  ShadowCell *shadow = nullptr;
  GlobalBuffer *buffer = nullptr; ///< null for shared arrays
  const std::string *name = nullptr; ///< the buffer's or shared array's
  std::vector<int64_t> indices;
  /// "s[4, 2]": made only for messages (every access has an address, few a
  /// message).
  std::string text() const;
};

/// The first element of `buffer` never written inside its writes clauses,
/// with the number of such elements (coverage of an `out` buffer).
struct UnwrittenElements {
  std::vector<int64_t> firstIndices;
  int64_t count = 0;
};
UnwrittenElements findUnwrittenElements(const GlobalBuffer &buffer);

} // namespace interp
} // namespace kuiper

#endif
