//===- Memory.cpp - Element addressing and the memory checks --------------===//
//
// Bounds (every access, checks on or off: an out-of-bounds access is never
// performed), races (a shadow cell per element: last writer and two readers,
// compared by block, thread and barrier interval), the reads/writes
// contract, and the coverage of `out` buffers.
//
//===----------------------------------------------------------------------===//
#include "runtime/interpreter/KernelInterpreter.h"
#include "runtime/interpreter/Memory.h"

using namespace mlir;

namespace kuiper {
namespace interp {

/// What leaves two conflicting accesses unordered: no barrier between them
/// in one block; nothing can order two blocks within a launch.
static std::string unordered(const AccessRecord &a, const AccessRecord &b) {
  return a.block == b.block ? " without a barrier in between"
                            : " (in another block: no barrier orders two blocks)";
}

bool accessesConflict(const AccessRecord &previous,
                      const AccessRecord &current) {
  if (!previous.exists() || previous.sameThread(current))
    return false;
  if (previous.atomic && current.atomic)
    return false;
  if (previous.block != current.block)
    return true;
  bool sameWarp = previous.thread / 32 == current.thread / 32;
  return previous.epoch == current.epoch &&
         !(sameWarp && previous.warpEpoch != current.warpEpoch);
}

bool inAnyBox(const std::vector<IndexBox> &boxes, ArrayRef<int64_t> indices) {
  for (const IndexBox &box : boxes) {
    bool inside = box.size() == indices.size();
    for (size_t k = 0; inside && k < indices.size(); ++k)
      inside = indices[k] >= box[k].first && indices[k] < box[k].second;
    if (inside)
      return true;
  }
  return false;
}

static void delinearize(int64_t linear, ArrayRef<int64_t> dims,
                        std::vector<int64_t> &indices) {
  indices.resize(dims.size());
  for (int k = (int)dims.size() - 1; k >= 0; --k) {
    indices[k] = linear % dims[k];
    linear /= dims[k];
  }
}

UnwrittenElements findUnwrittenElements(const GlobalBuffer &buffer) {
  UnwrittenElements unwritten;
  std::vector<int64_t> indices;
  for (int64_t linear = 0; linear < buffer.numElements; ++linear) {
    if (buffer.written[linear])
      continue;
    delinearize(linear, buffer.dims, indices);
    if (!buffer.writesClauses.empty() &&
        !inAnyBox(buffer.writesClauses, indices))
      continue;
    if (unwritten.count++ == 0)
      unwritten.firstIndices = indices;
  }
  return unwritten;
}

bool KernelInterpreter::resolveElement(Operation *op, EvalContext &context,
                                       Value memory, ValueRange indexValues,
                                       ElementAddress &element) {
  element = ElementAddress();
  RuntimeValue ref;
  if (!operand(context, memory, ref, op))
    return false;
  for (Value v : indexValues) {
    RuntimeValue index;
    if (!operand(context, v, index, op))
      return false;
    element.indices.push_back(index.asSigned());
  }
  const std::vector<int64_t> *dims;
  SharedArray *shared = nullptr;
  if (ref.kind == RuntimeValue::Buffer) {
    element.buffer = &buffers[ref.bits];
    dims = &element.buffer->dims;
    element.name = &element.buffer->name;
    element.elementType = element.buffer->elementType;
  } else if (ref.kind == RuntimeValue::SharedArray) {
    shared = &sharedArrays[ref.bits];
    dims = &shared->dims;
    element.name = &shared->name;
    element.elementType = shared->elementType;
  } else {
    return fail("internal: memory op on a non-memory value");
  }
  const std::string &name = *element.name;
  int64_t linear = 0;
  for (size_t k = 0; k < element.indices.size(); ++k) {
    int64_t index = element.indices[k];
    if (index < 0 || index >= (*dims)[k]) {
      // A spec clause may read out of bounds under a false guard
      // (`p ==> q` evaluates q eagerly): the value is arbitrary, no fault.
      if (context.inSpec)
        return true;
      ViolationDetails details = whoDetails(context);
      details.push_back({"index", formatIndices(element.indices)});
      violate(CheckId::Bounds, op,
              "access " + element.text() + " out of bounds of " + name + "[" +
                  formatIndices(*dims) + "]" +
                  (context.isThread ? " by " + who(context) : ""),
              details);
      return true;
    }
    linear = linear * (*dims)[k] + index;
  }
  size_t offset = linear * element.elementType.byteSize;
  if (shared) {
    element.address = shared->data.data() + offset;
    if (!shared->shadow.empty())
      element.shadow = &shared->shadow[linear];
    return true;
  }
  GlobalBuffer &buffer = *element.buffer;
  if (!buffer.data) {
    context.readUnboundBuffer = true;
    return true;
  }
  bool readOld = context.readsOldContents && !buffer.contentsBeforeLaunch.empty();
  element.address =
      (readOld ? buffer.contentsBeforeLaunch.data() : buffer.data) + offset;
  if (!buffer.shadow.empty())
    element.shadow = &buffer.shadow[linear];
  return true;
}

void KernelInterpreter::markWritten(ElementAddress &element) {
  GlobalBuffer *buffer = element.buffer;
  if (buffer && !buffer->written.empty())
    buffer->written[(element.address - buffer->data) /
                    element.elementType.byteSize] = 1;
}

std::string ElementAddress::text() const {
  return (name ? *name : std::string("?")) + "[" + formatIndices(indices) + "]";
}

void KernelInterpreter::recordAccess(Operation *op, EvalContext &context,
                                     ElementAddress &element, bool isWrite,
                                     bool isAtomic) {
  auto name = [&](const AccessRecord &r) { return threadName(r.block, r.thread); };
  ShadowCell *cell = element.shadow;
  if (!cell || !context.isThread || (context.inSpec && !context.specReadsRace) ||
      context.readsOldContents)
    return;
  auto &thread = static_cast<Thread &>(context);
  AccessRecord current{linearBlockId, thread.linearId, barrierEpoch,
                       warpEpochs[thread.linearId / 32], isAtomic, op};
  // Only a race needs the element's name.
  auto where = [&] { return element.text(); };
  // "other": where the other thread's access is in the source, for two
  // accesses that conflict (the verifier's race checks are per pair of
  // places, kuiper::refutes).
  auto details = [&](const AccessRecord &other) -> ViolationDetails {
    ViolationDetails d = {{"location", where()},
                          {"block", std::to_string(other.block)},
                          {"thread", std::to_string(other.thread)},
                          {"block2", std::to_string(current.block)},
                          {"thread2", std::to_string(current.thread)}};
    if (other.op && accessesConflict(other, current))
      d.push_back({"other", locationOf(other.op)});
    return d;
  };
  if (isWrite) {
    GlobalBuffer *buffer = element.buffer;
    if (accessesConflict(cell->writer, current)) {
      violate(CheckId::Race, op,
              name(cell->writer) + " and " + name(current) +
                  " both wrote " + where(),
              details(cell->writer));
    } else if (accessesConflict(cell->reader, current) ||
               accessesConflict(cell->otherReader, current)) {
      const AccessRecord &reader = accessesConflict(cell->reader, current)
                                       ? cell->reader
                                       : cell->otherReader;
      violate(CheckId::Race, op,
              name(reader) + " read " + where() + " and " + name(current) + " wrote it" +
                  unordered(reader, current),
              details(reader));
    } else if (buffer && buffer->access == BufferAccess::Out &&
               cell->writer.exists() && !cell->writer.sameThread(current) &&
               !isAtomic) {
      violate(CheckId::Race, op,
              "out element " + where() + " is written by both " + name(cell->writer) + " and " +
                  name(current),
              details(cell->writer));
    } else if (buffer && buffer->access == BufferAccess::Out && cell->writer.exists() &&
               cell->writer.sameThread(current) && !isAtomic) {
      // The verifier's "written at most once" (an out element has one
      // write, the one its coverage and postconditions name).
      violate(CheckId::Coverage, op,
              "out element " + where() + " is written more than once by " + name(current),
              details(cell->writer));
    }
    cell->writer = current;
  } else if (accessesConflict(cell->writer, current)) {
    violate(CheckId::Race, op,
            name(cell->writer) + " wrote " + where() + " and " + name(current) + " read it" +
                unordered(cell->writer, current),
            details(cell->writer));
  }
  if (!isWrite || isAtomic) {
    if (!cell->reader.exists() || cell->reader.sameThread(current))
      cell->reader = current;
    else
      cell->otherReader = current;
  }
}

bool KernelInterpreter::sharedArrayFor(Operation *alloc, unsigned &index) {
  auto it = sharedArrayOf.find(alloc);
  if (it != sharedArrayOf.end()) {
    index = it->second;
    return true;
  }
  auto type = cast<SharedType>(alloc->getResult(0).getType());
  SharedArray array;
  array.name = cast<SharedAllocOp>(alloc).getName().str();
  std::optional<ElementType> elementType = elementTypeOf(type.getElementType());
  if (!elementType)
    return fail("unsupported shared element type at " + locationOf(alloc));
  array.elementType = *elementType;
  int64_t count = 1;
  for (int64_t d : type.getShape()) {
    array.dims.push_back(d);
    count *= d;
  }
  array.data.resize(count * array.elementType.byteSize);
  fillWithPoison(array.elementType, array.data.data(), count);
  if (options.checks)
    array.shadow.resize(count);
  index = sharedArrays.size();
  sharedArrays.push_back(std::move(array));
  sharedArrayOf[alloc] = index;
  return true;
}

} // namespace interp
} // namespace kuiper
