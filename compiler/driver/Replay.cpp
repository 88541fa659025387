//===- Replay.cpp - Counterexample replay on the CPU executor --------------===//
//
// A failed check's counterexample names scalar parameters (`n` = `256`),
// quantified indices (`i`, `index 0 of y`), thread ids of two-thread checks
// (`thread A threadIdx.x`), buffer indices (`y index 0`) and the input values
// the solver chose (`x[5]` = `-0.5`, `NaN`, `inf`, `-0.0`). The replay binds
// the scalars (choosing small values satisfying `requires` for the others),
// allocates the buffers of the shapes those scalars give, fills the inputs
// with seeded random values and puts every input value of the counterexample
// at its index, then runs the kernel with dynamic checks: in order, and for
// schedule-dependent checks also in reverse and in a few random orders. A
// violation of the same kind, or the same bug showing as a related kind (an
// unwritten element is both a coverage and a postcondition failure), confirms
// the check.
//
//===----------------------------------------------------------------------===//
#include "kuiper/Replay.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>

namespace kuiper {

namespace {

std::string trim(const std::string &s) {
  size_t a = s.find_first_not_of(" \t\n");
  if (a == std::string::npos)
    return "";
  size_t b = s.find_last_not_of(" \t\n");
  return s.substr(a, b - a + 1);
}

/// Z3 prints negative numbers as `(- 5)`: make it `-5`.
std::string unwrapNegation(const std::string &text) {
  std::string s = trim(text);
  if (s.size() > 3 && s.front() == '(' && s.back() == ')') {
    std::string in = trim(s.substr(1, s.size() - 2));
    if (in.size() > 2 && in[0] == '-' && in[1] == ' ')
      return "-" + trim(in.substr(1));
  }
  return s;
}

bool parseInt(const std::string &text, int64_t &v) {
  std::string s = unwrapNegation(text);
  if (s == "true" || s == "false") {
    v = s == "true";
    return true;
  }
  if (s.size() > 2 && s[0] == '#' && (s[1] == 'x' || s[1] == 'b')) {
    // A bit-vector literal: sign-extend from its width.
    int base = s[1] == 'x' ? 16 : 2;
    unsigned width = (unsigned)(s.size() - 2) * (base == 16 ? 4 : 1);
    if (width == 0 || width > 64)
      return false;
    errno = 0;
    char *end = nullptr;
    unsigned long long u = std::strtoull(s.c_str() + 2, &end, base);
    if (errno || *end)
      return false;
    if (width < 64 && (u >> (width - 1)) & 1)
      u |= ~0ull << width;
    v = (int64_t)u;
    return true;
  }
  errno = 0;
  char *end = nullptr;
  long long x = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || errno || *end)
    return false;
  v = (int64_t)x;
  return true;
}

bool parseFloat(const std::string &text, double &v) {
  std::string s = unwrapNegation(text);
  std::string lower = s;
  for (char &ch : lower)
    ch = (char)std::tolower((unsigned char)ch);
  if (lower == "nan" || lower == "-nan" || lower == "+nan") {
    v = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (lower == "inf" || lower == "+inf" || lower == "infinity" || lower == "+oo") {
    v = std::numeric_limits<double>::infinity();
    return true;
  }
  if (lower == "-inf" || lower == "-infinity" || lower == "-oo") {
    v = -std::numeric_limits<double>::infinity();
    return true;
  }
  size_t slash = s.find('/');
  if (slash != std::string::npos) {
    double a, b;
    if (!parseFloat(s.substr(0, slash), a) || !parseFloat(s.substr(slash + 1), b) ||
        b == 0)
      return false;
    v = a / b;
    return true;
  }
  char *end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return !s.empty() && !*end;
}

/// A value the solver printed with 9 decimals that reads as zero but is not
/// an exact zero (those print as "0.0" and "-0.0"): "-0.000000000".
bool isLossyZero(const std::string &text) {
  std::string s = unwrapNegation(text);
  if (!s.empty() && (s[0] == '-' || s[0] == '+'))
    s = s.substr(1);
  return s.size() > 3 && s.rfind("0.", 0) == 0 &&
         s.find_first_not_of('0', 2) == std::string::npos;
}

bool isFloatType(const std::string &t) {
  return t == "f16" || t == "bf16" || t == "f32" || t == "f64";
}

bool isIdentChar(char ch) { return std::isalnum((unsigned char)ch) || ch == '_'; }

/// `x[5]` or `x[1, 2]`: a buffer name and its indices.
bool parseElement(const std::string &name, std::string &buffer,
                  std::vector<int64_t> &idx) {
  size_t open = name.find('[');
  if (open == std::string::npos || open == 0 || name.back() != ']')
    return false;
  buffer = name.substr(0, open);
  for (char ch : buffer)
    if (!isIdentChar(ch))
      return false;
  std::string inner = name.substr(open + 1, name.size() - open - 2);
  idx.clear();
  size_t pos = 0;
  while (pos <= inner.size()) {
    size_t comma = inner.find(',', pos);
    std::string part = inner.substr(pos, comma == std::string::npos ? std::string::npos
                                                                    : comma - pos);
    // A comma inside `(- 5)` does not occur; indices are plain integers.
    int64_t v;
    if (!parseInt(part, v))
      return false;
    idx.push_back(v);
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  return !idx.empty();
}

/// Row-major linear index of `idx` in `dims`, or -1 when out of range.
int64_t linearIndex(const std::vector<int64_t> &dims, const std::vector<int64_t> &idx) {
  if (dims.size() != idx.size())
    return -1;
  int64_t lin = 0;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (idx[k] < 0 || idx[k] >= dims[k])
      return -1;
    lin = lin * dims[k] + idx[k];
  }
  return lin;
}

/// a * b, saturating at a large value.
int64_t satMul(int64_t a, int64_t b) {
  const int64_t big = std::numeric_limits<int64_t>::max() / 4;
  if (a <= 0 || b <= 0)
    return 0;
  if (a > big / b)
    return big;
  return a * b;
}

/// Whether element `i` still holds the executor's poison pattern (the value
/// an `out` element has when no thread wrote it).
bool isPoison(const HostBuffer &b, int64_t i) {
  if (i < 0 || i >= b.numElements())
    return false;
  const uint8_t *p = b.bytes.data() + i * b.elemSize();
  if (b.elemType == "f32") {
    uint32_t x;
    std::memcpy(&x, p, 4);
    return x == 0x7fdeadbeu;
  }
  if (b.elemType == "f64") {
    uint64_t x;
    std::memcpy(&x, p, 8);
    return x == 0x7ff8deadbeef0000ull;
  }
  if (b.elemType == "f16" || b.elemType == "bf16") {
    uint16_t x;
    std::memcpy(&x, p, 2);
    return x == (b.elemType == "f16" ? 0x7e5a : 0x7fda);
  }
  return false;
}

/// Names the executor's poison in a message: every `buf[idx] = nan` whose
/// element holds the poison pattern is `NaN-poison (never written)` where the
/// executor said the element was never written, and `NaN-poison (computed
/// from memory never initialized)` where a thread stored a value computed from
/// such an element (a shared array read before any thread wrote it).
std::string markPoison(std::string msg, const Args &after) {
  const std::string pat = " = nan";
  const std::string unwritten = " (never written)";
  for (size_t p = msg.find(pat); p != std::string::npos; p = msg.find(pat, p + 1)) {
    if (p == 0 || msg[p - 1] != ']')
      continue;
    size_t open = msg.rfind('[', p - 1);
    if (open == std::string::npos || open == 0)
      continue;
    size_t start = open;
    while (start > 0 && isIdentChar(msg[start - 1]))
      --start;
    std::string buf;
    std::vector<int64_t> idx;
    if (!parseElement(msg.substr(start, p - start), buf, idx))
      continue;
    const HostBuffer *b = after.buffer(buf);
    if (!b || !isPoison(*b, linearIndex(b->dims, idx)))
      continue;
    if (msg.compare(p + pat.size(), unwritten.size(), unwritten) == 0)
      msg.replace(p, pat.size() + unwritten.size(), " = NaN-poison (never written)");
    else
      msg.replace(p, pat.size(), " = NaN-poison (computed from memory never initialized)");
  }
  return msg;
}

/// Whether an executor violation of kind `kind` shows the bug that check
/// `id` names, besides the check's own kind (Checks.def).
bool isRelatedKind(CheckId id, CheckId kind) {
  std::vector<CheckId> related = relatedChecks(id);
  return std::find(related.begin(), related.end(), kind) != related.end();
}

/// `file:line:col` -> file, line, col (line and col 0 if absent).
void splitLocation(const std::string &loc, std::string &file, int &line, int &col) {
  file = loc;
  line = col = 0;
  size_t c2 = loc.rfind(':');
  if (c2 == std::string::npos || c2 == 0)
    return;
  size_t c1 = loc.rfind(':', c2 - 1);
  if (c1 == std::string::npos)
    return;
  file = loc.substr(0, c1);
  line = std::atoi(loc.c_str() + c1 + 1);
  col = std::atoi(loc.c_str() + c2 + 1);
}

std::string baseName(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// Whether a violation of `kind` is found at the operation the verifier's
/// check of it is about (an access, a clause), so that it names that check
/// alone. Races, coverage and divergence are found elsewhere (the other
/// access, the kernel, the barrier a thread missed).
bool hasExactLocation(CheckId kind) {
  switch (kind) {
  case CheckId::Postcondition:
  case CheckId::Assert:
  case CheckId::Invariant:
  case CheckId::BarrierContract:
  case CheckId::Bounds:
  case CheckId::Contract:
    return true;
  default:
    return false;
  }
}

/// 4: same kind at the check's location; 3: same kind on the check's line;
/// 2: same kind elsewhere; 1: a related kind, or a race of the other access
/// kind; 0: unrelated.
int matchScore(const Violation &v, const CheckResult &c) {
  if (v.kind == c.id) {
    std::string file;
    int line, col;
    splitLocation(v.location, file, line, col);
    bool sameFile = c.file.empty() || baseName(file) == baseName(c.file);
    // A race between a read and a write shows a race of two writes (and the
    // reverse) less well than one of its own kind.
    if (v.kind == CheckId::Race &&
        (c.message.find("two threads write") != std::string::npos) !=
            (v.message.find(" both wrote ") != std::string::npos))
      return 1;
    if (sameFile && c.line > 0 && line == c.line)
      return col == c.col ? 4 : 3;
    // An access out of bounds (an assert, an invariant, a contract) at
    // another line is another check's failure: `rowptr[m]` read past its end
    // does not confirm that `val[k]` is.
    if (hasExactLocation(v.kind) && v.kind != CheckId::Postcondition && c.line > 0)
      return 0;
    return 2;
  }
  if (!isRelatedKind(c.id, v.kind))
    return 0;
  // Only the kernel's ensures stand for its outputs (not an inlined fn's).
  if (v.kind == CheckId::Postcondition && v.message.rfind("ensures failed", 0) != 0 &&
      v.message.rfind("approx ensures failed", 0) != 0)
    return 0;
  return 1;
}

/// The first element of an `out`/`inout` buffer whose bits differ between
/// two runs ("s[0] = 42.01 vs 42.02"), or "".
std::string firstDifference(const KernelInfo &k, const Args &a, const Args &b) {
  for (const ParamInfo &p : k.params) {
    if (p.kind != ParamInfo::Buffer || p.access == "in")
      continue;
    const HostBuffer *x = a.buffer(p.name), *y = b.buffer(p.name);
    if (!x || !y || x->bytes.size() != y->bytes.size())
      continue;
    size_t es = x->elemSize();
    for (int64_t i = 0; i < x->numElements(); ++i) {
      if (std::memcmp(x->bytes.data() + i * es, y->bytes.data() + i * es, es) == 0)
        continue;
      if (std::isnan(x->get(i)) && std::isnan(y->get(i)))
        continue;
      std::string idx;
      int64_t r = i;
      std::vector<int64_t> parts(x->dims.size());
      for (int d = (int)x->dims.size() - 1; d >= 0; --d) {
        parts[d] = x->dims[d] ? r % x->dims[d] : 0;
        r = x->dims[d] ? r / x->dims[d] : 0;
      }
      for (size_t d = 0; d < parts.size(); ++d)
        idx += (d ? ", " : "") + std::to_string(parts[d]);
      return p.name + "[" + idx + "] = " + x->str(i) + " vs " + y->str(i);
    }
  }
  return "";
}

/// Sets every element of the `in` and `inout` buffers of `args` to `v`.
void constantInputs(const KernelInfo &k, Args &args, double v) {
  for (const ParamInfo &p : k.params)
    if (p.kind == ParamInfo::Buffer && p.access != "out")
      if (HostBuffer *b = args.buffer(p.name))
        for (int64_t i = 0; i < b->numElements(); ++i)
          b->set(i, v);
}

/// Whether an `assume` of the kernel did not hold in run `r`: its inputs are
/// outside what the proofs assume, so none of its findings is a counterexample.
bool assumptionBroken(const ExecResult &r) {
  return std::any_of(r.violations.begin(), r.violations.end(),
                     [](const Violation &v) { return v.kind == CheckId::Assume; });
}

std::string scheduleText(const ExecOptions &o) {
  switch (o.schedule) {
  case ExecOptions::InOrder:
    return "in-order schedule";
  case ExecOptions::Reverse:
    return "reverse schedule";
  case ExecOptions::Random:
    return "random schedule, seed " + std::to_string(o.seed);
  }
  return "";
}

/// "n = 257, alpha = 1.5" in parameter order.
std::string launchText(const KernelInfo &k, const Args &args) {
  std::string s;
  for (const ParamInfo &p : k.params) {
    if (p.kind != ParamInfo::Scalar)
      continue;
    const ScalarValue *v = args.scalar(p.name);
    if (!v)
      continue;
    s += (s.empty() ? "" : ", ") + p.name + " = " + toString(*v);
  }
  return s;
}

} // namespace

/// The largest value (sign > 0) or the smallest (sign < 0) that every
/// element of every integer input buffer can take at once while the requires
/// clause holds, with those buffers filled with it in `args`; nothing where
/// the kernel has no integer input or not even +-1 meets the clause. (A data
/// requires `x[i] <= 1000000` is met up to 1000000: found by bisection, as
/// such clauses bound each element.)
static std::optional<int64_t> fillIntegersAtExtreme(const Module &module,
                                                    const std::string &kernel,
                                                    const KernelInfo &k, Args &args, int sign) {
  std::vector<HostBuffer *> buffers;
  int64_t limit = std::numeric_limits<int64_t>::max();
  for (const ParamInfo &p : k.params) {
    if (p.kind != ParamInfo::Buffer || p.access == "out" || isFloatType(p.type))
      continue;
    HostBuffer *b = args.buffer(p.name);
    if (!b || b->elemType == "bool" || b->elemType == "i1")
      continue;
    bool isUnsigned = !b->elemType.empty() && b->elemType[0] == 'u';
    if (sign < 0 && isUnsigned)
      return std::nullopt;
    unsigned bits = unsigned(b->elemSize() * 8);
    // (Past 2^53 a double no longer holds every integer: i64 elements stop
    // there, far past any overflow of a narrower accumulator.)
    int64_t typeMax = bits >= 53 ? (int64_t(1) << 53)
                                 : (int64_t(1) << (bits - (isUnsigned ? 0 : 1))) - 1;
    limit = std::min(limit, typeMax);
    buffers.push_back(b);
  }
  if (buffers.empty())
    return std::nullopt;
  Executor probe;
  auto holdsAt = [&](int64_t magnitude) {
    for (HostBuffer *b : buffers)
      for (int64_t i = 0, n = b->numElements(); i < n; ++i)
        b->set(i, double(sign * magnitude));
    Result<LaunchInfo> info = probe.describe(module, kernel, args);
    return info && info->requiresHold;
  };
  if (!holdsAt(1))
    return std::nullopt;
  int64_t lo = 1, hi = limit;
  if (holdsAt(hi)) {
    lo = hi;
  } else {
    while (hi - lo > 1) {
      int64_t mid = lo + (hi - lo) / 2;
      (holdsAt(mid) ? lo : hi) = mid;
    }
  }
  holdsAt(lo);
  return sign * lo;
}

/// The integer scalar parameter of `args` with the largest value above 1 (a
/// size the solver's model made large), and that value; null if none.
static const ParamInfo *largestSize(const KernelInfo &k, const Args &args, int64_t &value) {
  const ParamInfo *largest = nullptr;
  value = 1;
  for (const ParamInfo &p : k.params)
    if (p.kind == ParamInfo::Scalar && !isFloatType(p.type) && p.type != "bool" && p.type != "i1")
      if (const ScalarValue *v = args.scalar(p.name))
        if (const int64_t *i = std::get_if<int64_t>(v); i && *i > value)
          largest = &p, value = *i;
  return largest;
}

/// How the inputs of fillIntegersAtExtreme read in a report.
static std::string extremeText(int64_t value) {
  return "every integer input " + std::to_string(value) + ", the " +
         (value > 0 ? "largest" : "smallest") + " the requires clause admits";
}

void replayCheck(const Module &module, const std::string &kernel, CheckResult &c,
                 const ReplayOptions &opts) {
  // A failure a run showed (runForFailures) is confirmed by that run: its
  // inputs (edge cases, say) are not in its counterexample to replay.
  if (c.status != CheckStatus::Failed || c.confirmed.has_value())
    return;
  auto notReplayed = [&](const std::string &why) {
    c.confirmed = false;
    c.observed = "not replayed: " + why;
  };
  const KernelInfo *k = module.kernel(kernel);
  if (!k)
    return notReplayed("no kernel '" + kernel + "' in the module");
  auto param = [&](const std::string &name) -> const ParamInfo * {
    for (const ParamInfo &p : k->params)
      if (p.name == name)
        return &p;
    return nullptr;
  };

  // 1. Scalars and input values of the counterexample.
  struct Placement {
    std::string buffer;
    std::vector<int64_t> idx;
    std::string value;
  };
  Args args;
  std::vector<Placement> placements;
  for (const auto &[name, value] : c.counterexample) {
    const ParamInfo *p = param(name);
    if (p && p->kind == ParamInfo::Scalar) {
      if (args.scalar(name))
        continue;
      if (isFloatType(p->type)) {
        double d;
        if (parseFloat(value, d))
          args.setFloat(name, d);
      } else if (p->type == "bool" || p->type == "i1") {
        int64_t b;
        if (parseInt(value, b))
          args.setBool(name, b != 0);
      } else {
        int64_t i;
        if (parseInt(value, i))
          args.setInt(name, i);
      }
      continue;
    }
    Placement pl;
    if (parseElement(name, pl.buffer, pl.idx)) {
      const ParamInfo *b = param(pl.buffer);
      // `out` elements in a counterexample are what the buffer holds, not
      // inputs: the executor poisons `out` buffers before the run.
      if (b && b->kind == ParamInfo::Buffer && b->access != "out") {
        pl.value = value;
        placements.push_back(std::move(pl));
      }
    }
  }

  // 2. Small values, satisfying `requires`, for the other scalars.
  {
    Args trial = args;
    Result<std::vector<std::string>> choice = chooseScalars(module, kernel, trial);
    if (!choice) {
      trial = args;
      choice = chooseScalars(module, kernel, trial,
                             std::min(opts.maxElements, opts.maxThreads));
    }
    if (!choice)
      return notReplayed("no small values of the other scalar parameters satisfy "
                         "the requires clause");
    args = std::move(trial);
  }

  // 3. The launch: requires, sizes.
  Executor probe;
  Result<LaunchInfo> info = probe.describe(module, kernel, args);
  if (!info)
    return notReplayed(info.error().message + " (" + launchText(*k, args) + ")");
  if (!info->requiresHold)
    return notReplayed("the launch of the counterexample does not satisfy requires (" +
                       info->failedRequires + ")");
  // Elements and threads of a launch; an error for a negative dimension.
  auto measure = [&](const LaunchInfo &launch, int64_t &elements,
                     int64_t &threads) -> std::optional<std::string> {
    elements = 0;
    for (const auto &[name, dims] : launch.bufferDims) {
      int64_t n = 1;
      for (int64_t d : dims) {
        if (d < 0)
          return "buffer '" + name + "' gets a negative dimension (" + std::to_string(d) +
                 ") with " + launchText(*k, args);
        if (d == 0) {
          n = 0;
          break;
        }
        n = satMul(n, d);
      }
      elements = std::min(elements + n, std::numeric_limits<int64_t>::max() / 4);
    }
    threads = satMul(launch.numBlocks(), launch.blockSize());
    return std::nullopt;
  };
  int64_t elements = 0, threads = 0;
  if (std::optional<std::string> why = measure(*info, elements, threads))
    return notReplayed(*why);
  // A model whose sizes are too large for the executor (a sum over 2148 rows
  // of a tensor whose other dimension the solver set to 96430) is replayed
  // with its largest size parameters made small, one at a time, while the
  // launch stays too large and the requires clause holds: the replay says so.
  std::string shrunk, tooLarge;
  auto tooLargeText = [&] {
    return elements > opts.maxElements
               ? "needs a launch of " + std::to_string(elements) + " elements (" +
                     launchText(*k, args) + "); at most " + std::to_string(opts.maxElements) +
                     " are replayed"
               : "needs a launch of " + std::to_string(threads) + " threads (" +
                     launchText(*k, args) + "); the CPU executor replays at most " +
                     std::to_string(opts.maxThreads);
  };
  if (elements > opts.maxElements || threads > opts.maxThreads)
    tooLarge = tooLargeText();
  while (elements > opts.maxElements || threads > opts.maxThreads) {
    int64_t largestValue = 1;
    const ParamInfo *largest = largestSize(*k, args, largestValue);
    if (!largest)
      break;
    bool smaller = false;
    for (int64_t small = 1; small < largestValue && !smaller; small *= 2) {
      Args trial = args;
      trial.setInt(largest->name, small);
      Result<LaunchInfo> again = probe.describe(module, kernel, trial);
      int64_t e = 0, t = 0;
      if (!again || !again->requiresHold || measure(*again, e, t))
        continue;
      shrunk += (shrunk.empty() ? "" : ", ") + largest->name + " = " + std::to_string(small) +
                " for the model's " + std::to_string(largestValue);
      args = std::move(trial);
      info = std::move(again);
      elements = e, threads = t;
      smaller = true;
    }
    if (!smaller)
      break;
  }
  if (elements > opts.maxElements || threads > opts.maxThreads)
    return notReplayed(tooLarge);

  // 4. Buffers and random inputs.
  Result<LaunchInfo> alloc = probe.allocateBuffers(module, kernel, args);
  if (!alloc)
    return notReplayed(alloc.error().message);
  fillInputs(module, kernel, args, opts.seed);

  // The counterexample's input values, at their indices. Values are printed
  // with 9 decimals, so a tiny nonzero input (a denormal, say) reads as
  // "-0.000000000": attempt 0 takes the text as written (-0.0), later attempts
  // put tiny values of its sign there instead.
  static const double tiny[] = {1e-10, 1.4e-45};
  bool lossy = false;
  auto place = [&](Args &a, int attempt) {
    for (const Placement &pl : placements) {
      HostBuffer *b = a.buffer(pl.buffer);
      if (!b)
        continue;
      int64_t lin = linearIndex(b->dims, pl.idx);
      if (lin < 0)
        continue;
      if (isFloatType(b->elemType)) {
        double d;
        if (!parseFloat(pl.value, d))
          continue;
        if (d == 0 && isLossyZero(pl.value)) {
          lossy = true;
          if (attempt > 0)
            d = std::copysign(tiny[attempt - 1], std::signbit(d) ? -1.0 : 1.0);
        }
        b->set(lin, d);
      } else {
        int64_t i;
        if (!parseInt(pl.value, i))
          continue;
        if (b->elemType == "i64" || b->elemType == "u64")
          std::memcpy(b->bytes.data() + lin * 8, &i, 8);
        else
          b->set(lin, (double)i);
      }
    }
  };

  // 5. Runs: in order; schedule-dependent checks also in reverse and random
  // orders (while the launch is small enough to afford them).
  std::vector<ExecOptions> runs;
  ExecOptions base;
  base.maxSteps = opts.maxSteps;
  base.deadline = opts.deadline;
  base.checks = true;
  // An overflow happens in the code, and its replay runs the model's (large)
  // sizes: a cumulative sum's `ensures ... sum(k in 0..c + 1: ...)` is
  // quadratic in the row's length there (65536 columns: 2^32 operations, past
  // the step limit, so an overflow the solver found was "not reproduced").
  base.checkEnsures = c.id != CheckId::Overflow;
  base.seed = opts.seed;
  // Invariants at the sampled iterations only, unless the check replayed is
  // one: an invariant over the sum so far, checked every iteration, made the
  // replay of a row sum's overflow at 2148 columns quadratic, past its step
  // limit ("not replayed"). (What the code computes does not depend on its
  // invariants: they are checks, not assumptions.)
  base.sampleForInvariants = c.id != CheckId::Invariant;
  runs.push_back(base);
  if (isScheduleDependent(c.id) && threads <= std::max<int64_t>(opts.maxThreads / 4, 1)) {
    ExecOptions r = base;
    r.schedule = ExecOptions::Reverse;
    runs.push_back(r);
    for (unsigned s = 0; s < opts.randomSchedules; ++s) {
      r.schedule = ExecOptions::Random;
      r.seed = opts.seed + s;
      runs.push_back(r);
    }
  }

  int bestScore = 0;
  std::string bestText, error, other;
  bool anyRan = false;
  // A violation of a run with inputs `a`: the best match of the check so far
  // is kept, with how the run was made (`how`, after the launch).
  auto consider = [&](const Violation &v, const Args &a, const std::string &how) {
    int score = matchScore(v, c);
    if (score == 0 && other.empty())
      other = v.message + " [" + checkName(v.kind) + "]";
    if (score <= bestScore)
      return;
    bestScore = score;
    std::string launch = launchText(*k, args);
    bestText = markPoison(v.message, a) +
               (v.kind != c.id ? " [" + std::string(checkName(v.kind)) + "]" : "") + " (" +
               (launch.empty() ? "" : launch + ", ") + how + ")";
  };
  const int attempts = 1 + (int)(sizeof tiny / sizeof tiny[0]);
  for (int attempt = 0; attempt < attempts && bestScore == 0; ++attempt) {
    if (attempt > 0 && !lossy)
      break;
    // The inputs the model does not name are random; where they break a
    // `requires` over the buffers (`x[i] >= 0`), ones, zeros and then other
    // seeds fill them instead (a counterexample was "not replayed" for
    // x[0] = -14, an element the model left free).
    Args inputs = args;
    bool holds = false;
    for (int fill = 0; fill < 5 && !holds; ++fill) {
      inputs = args;
      if (fill == 1 || fill == 2)
        constantInputs(*k, inputs, fill == 1 ? 1.0 : 0.0);
      else if (fill > 2)
        fillInputs(module, kernel, inputs, opts.seed + fill);
      place(inputs, attempt);
      Result<LaunchInfo> again = probe.describe(module, kernel, inputs);
      if (!again) {
        error = again.error().message;
        break;
      }
      holds = again->requiresHold;
      if (!holds)
        error = "the inputs chosen do not satisfy requires (" + again->failedRequires + ")";
    }
    if (!holds)
      continue;
    std::optional<Args> firstOut;
    ExecOptions firstEo;
    for (const ExecOptions &eo : runs) {
      Args a = inputs;
      Result<ExecResult> r = Executor(eo).run(module, kernel, a);
      if (!r) {
        error = r.error().message;
        continue;
      }
      anyRan = true;
      // A run whose inputs break an `assume` shows nothing about the kernel
      // the proofs are about (they hold where the assumptions do).
      if (assumptionBroken(*r)) {
        if (other.empty())
          other = "an assumption did not hold in the run";
        continue;
      }
      // A result that depends on the schedule: the determinism check's bug,
      // and a symptom of a race.
      if (!firstOut) {
        firstOut = a;
        firstEo = eo;
      } else if (c.id == CheckId::Determinism || c.id == CheckId::Race) {
        int score = c.id == CheckId::Determinism ? 3 : 1;
        std::string diff = score > bestScore ? firstDifference(*k, *firstOut, a) : "";
        if (!diff.empty()) {
          bestScore = score;
          std::string launch = launchText(*k, args);
          bestText = "the result depends on the schedule: " + diff + " (" +
                     (launch.empty() ? "" : launch + ", ") + scheduleText(firstEo) +
                     " vs " + scheduleText(eo) + ")";
        }
      }
      for (const Violation &v : r->violations)
        consider(v, a,
                 scheduleText(eo) +
                     (attempt > 0 ? ", inputs printed as 0 taken as +-" +
                                        std::string(attempt == 1 ? "1e-10" : "1.4e-45")
                                  : std::string()));
      if (bestScore >= 3)
        break;
    }
  }
  // An integer overflow the model's inputs do not show (its model rests on a
  // sum known by its definition: the terms it names cannot reach the bound
  // alone) is tried with every integer input at the largest value the
  // requires clause admits, then the smallest: a row of 2148 terms in
  // [-10^6, 10^6] summed in i32 overflows at 10^6 each.
  // Where that run stops at its step limit (2 rows of 1048529 columns), the
  // largest size parameter is halved while the requires clause holds, until
  // a run finishes: 32766 columns of 10^5 still overflow.
  auto halveLargest = [&](Args &a) {
    int64_t largestValue = 1;
    const ParamInfo *largest = largestSize(*k, a, largestValue);
    if (!largest)
      return false;
    Args trial = a;
    trial.setInt(largest->name, largestValue / 2);
    trial.allBuffers().clear(); // (reallocated at the new sizes)
    Result<LaunchInfo> again = probe.allocateBuffers(module, kernel, trial);
    if (!again)
      return false;
    // Random inputs, else ones, else zeros: the first the requires admit.
    for (int fill = 0; fill < 3; ++fill) {
      if (fill == 0)
        fillInputs(module, kernel, trial, opts.seed);
      else
        constantInputs(*k, trial, fill == 1 ? 1.0 : 0.0);
      again = probe.describe(module, kernel, trial);
      if (!again || again->requiresHold)
        break;
    }
    if (!again || !again->requiresHold)
      return false;
    a = std::move(trial);
    return true;
  };
  // (Halved with the inputs the runs above had, before the bisection of the
  // fill, whose every step evaluates the requires clause over the buffers.)
  Args sized = args;
  auto stopsAtLimit = [](const std::string &e) { return e.find("step limit") != std::string::npos; };
  if (c.id == CheckId::Overflow && bestScore == 0 && !anyRan && stopsAtLimit(error))
    for (int tries = 0; tries < 24 && halveLargest(sized); ++tries) {
      Args trial = sized;
      Result<ExecResult> r = Executor(base).run(module, kernel, trial);
      if (r || !stopsAtLimit(r.error().message))
        break;
    }
  // The sizes halved, against the model's: "run with cols = 65533 for the
  // model's 1048529, whose run passes the step limit".
  std::string halved;
  for (const ParamInfo &p : k->params) {
    const ScalarValue *was = args.scalar(p.name), *now = sized.scalar(p.name);
    const int64_t *w = was ? std::get_if<int64_t>(was) : nullptr;
    const int64_t *n = now ? std::get_if<int64_t>(now) : nullptr;
    if (w && n && *w != *n)
      halved += (halved.empty() ? "run with " : ", ") + p.name + " = " + std::to_string(*n) +
                " for the model's " + std::to_string(*w);
  }
  if (!halved.empty())
    halved += ", whose run passes the step limit";
  for (int sign : {1, -1}) {
    if (bestScore > 0 || c.id != CheckId::Overflow)
      break;
    Args inputs = sized;
    std::optional<int64_t> value = fillIntegersAtExtreme(module, kernel, *k, inputs, sign);
    if (!value)
      continue;
    Result<ExecResult> r = Executor(base).run(module, kernel, inputs);
    if (!r) {
      error = r.error().message;
      continue;
    }
    anyRan = true;
    if (assumptionBroken(*r))
      continue;
    for (const Violation &v : r->violations)
      consider(v, inputs,
               extremeText(*value) + ", " + (halved.empty() ? "" : halved + ", ") +
                   scheduleText(base));
  }
  // (Made small, a launch that shows nothing says nothing of the model's.)
  if (!shrunk.empty() && bestScore == 0)
    return notReplayed(tooLarge + "; with " + shrunk + " the run does not show it");
  if (!anyRan)
    return notReplayed(error);
  if (bestScore > 0) {
    c.confirmed = true;
    c.observed = bestText + (shrunk.empty() ? "" : " (the model's launch is too large to run: " +
                                                       shrunk + ")");
    return;
  }
  c.confirmed = false;
  std::string launch = launchText(*k, args);
  c.observed = "possible: not reproduced (" + (launch.empty() ? "" : launch + "; ") +
               (runs.size() == 1 ? std::string("in-order schedule")
                                 : "in-order, reverse and " +
                                       std::to_string(opts.randomSchedules) +
                                       " random schedules") +
               ")";
  if (!other.empty())
    c.observed += "; the run showed instead: " + other;
}

void replayCounterexamples(const Module &module, Report &report,
                           const ReplayOptions &opts) {
  for (KernelReport &kr : report.kernels)
    for (CheckResult &c : kr.checks)
      if (c.status == CheckStatus::Failed)
        replayCheck(module, kr.name, c, opts);
}

struct RunMemo {
  struct Run {
    ExecResult result;
    Args after; // the arguments as the run left them
  };
  std::mutex lock;
  std::map<std::string, Run> runs;
};

std::shared_ptr<RunMemo> makeRunMemo() { return std::make_shared<RunMemo>(); }

std::vector<CheckResult> runForFailures(const Module &module, const std::string &kernel,
                                        bool reverse, const std::vector<int64_t> &caps,
                                        const ReplayOptions &opts) {
  std::vector<CheckResult> found;
  const KernelInfo *k = module.kernel(kernel);
  if (!k)
    return found;
  bool lowPrecision = false;
  for (const ParamInfo &p : k->params)
    lowPrecision |= p.type == "f16" || p.type == "bf16";
  std::set<std::string> seen; // kind and location
  // Under each cap, the balanced sizes chooseScalars picks, then a skewed
  // shape per integer parameter (rows = 1, cols = 1000): a failure that
  // shows only when one dimension is large (a reduction tree missing a
  // level shows only past 128 columns) is found before the proof too.
  bool hasInputBuffer = false;
  for (const ParamInfo &p : k->params)
    hasInputBuffer |= p.kind == ParamInfo::Buffer && p.access != "out";
  std::vector<std::string> intParams;
  for (const ParamInfo &p : k->params)
    if (p.kind == ParamInfo::Scalar && !isFloatType(p.type) && p.type != "bool" && p.type != "i1")
      intParams.push_back(p.name);
  std::vector<std::pair<int64_t, std::string>> shapes;
  for (int64_t cap : caps) {
    shapes.push_back({cap, ""});
    if (intParams.size() >= 2 && intParams.size() <= 4)
      for (const std::string &p : intParams)
        shapes.push_back({cap, p});
  }
  std::set<std::string> tried; // the scalar choices already run
  for (size_t shape = 0; shape < shapes.size(); ++shape) {
    auto [cap, favour] = shapes[shape];
    if (opts.deadline && std::chrono::steady_clock::now() > *opts.deadline)
      return found;
    Args args;
    // Solving for sizes takes Z3 up to seconds: not where the budget's end is near.
    bool solve = opts.solveSizes && favour.empty() &&
                 (!opts.deadline ||
                  *opts.deadline - std::chrono::steady_clock::now() > std::chrono::seconds(5));
    Result<std::vector<std::string>> choice =
        chooseScalars(module, kernel, args, std::min(cap, opts.maxElements), solve, favour);
    if (!choice)
      continue;
    std::string key;
    for (const std::string &c : *choice)
      key += c + ",";
    if (!tried.insert(key).second)
      continue;
    Executor probe;
    Result<LaunchInfo> info = probe.describe(module, kernel, args);
    if (!info || !info->requiresHold ||
        satMul(info->numBlocks(), info->blockSize()) > opts.maxThreads ||
        !probe.allocateBuffers(module, kernel, args))
      continue;
    // Random inputs; then edge cases, alone and in runs of one value (for
    // the checks proven for any inputs, below): a NaN an fmax
    // drops, an infinity, -0, a group of -0s whose sum must stay -0 (the
    // solver took 9 s to find a warp max's dropped NaN, and 24 s to say,
    // without a model, that a reciprocal of a sum of -0s can fail).
    // Then values in [0, 1) (integers below the smallest size), another
    // seed: a sum that misses half its terms is within the run's tolerance
    // (a hundredth of the sum of magnitudes) where random values cancel,
    // and far outside it where they do not (a dot product's tree missing a
    // level: unknown after 47 s); and a claim that holds for one seed's
    // values by chance (a tree's sum equal to the fold, bit for bit) gets a
    // second draw. Last, ramps along each row (rising, falling): a row
    // reduction that loses an end of its rows (the last warp of a block
    // never gathered: unknown after 52 s, the one-row skewed run showing it
    // one time in eight) fails in every row.
    enum class Fill { Random, Edge, Unit, Ramp, HighIntegers, LowIntegers };
    struct Filled {
      Args args;
      Fill fill;
      std::string fallback; // InputFill::fallback: how the requires clause was met
    };
    std::vector<Filled> inputs;
    for (Fill fill : {Fill::Random, Fill::Edge, Fill::Unit, Fill::Ramp}) {
      if (fill != Fill::Random && !hasInputBuffer)
        break;
      uint64_t seed = fill == Fill::Unit ? opts.seed + 1 : opts.seed;
      // Random values break a `requires` over the data that bounds them
      // (`b[i] >= 0 && b[i] < 1000`, class targets below a size) or fixes an
      // accumulator (`y[0] == 0.0`): then zeroed `inout` buffers, integers
      // below the smallest size, or both, as `kuiper-run` fills them.
      Args filled = args;
      InputValues values = fill == Fill::Edge   ? InputValues::Edge
                           : fill == Fill::Unit ? InputValues::Index
                           : fill == Fill::Ramp ? InputValues::Ramp
                                                : InputValues::Random;
      InputFill met = fillInputsMeetingRequires(module, kernel, filled, seed, values);
      if (!met.requiresHold)
        continue;
      inputs.push_back({std::move(filled), fill, met.fellBack ? met.fallback : ""});
    }
    // (ReplayOptions::extremeIntegers: over the random inputs, each integer
    // input at the requires clause's extreme.)
    for (Fill fill : {Fill::HighIntegers, Fill::LowIntegers}) {
      if (!opts.extremeIntegers || inputs.empty() || inputs[0].fill != Fill::Random)
        break;
      Filled extreme = inputs[0];
      std::optional<int64_t> value = fillIntegersAtExtreme(
          module, kernel, *k, extreme.args, fill == Fill::HighIntegers ? 1 : -1);
      if (!value)
        continue;
      extreme.fill = fill;
      extreme.fallback = extremeText(*value);
      inputs.push_back(std::move(extreme));
    }
    std::vector<ExecOptions> runs(1);
    runs[0].maxSteps = opts.maxSteps;
    runs[0].deadline = opts.deadline;
    runs[0].seed = opts.seed;
    runs[0].approxRelTol = 1e-2;
    runs[0].approxWithinRange = true;
    runs[0].sampleForInvariants = true;
    if (reverse) {
      runs.push_back(runs[0]);
      runs[1].schedule = ExecOptions::Reverse;
    }
    bool tooLong = false; // a run stopped at its step limit
    for (const auto &[filled, fill, fallback] : inputs)
    for (const ExecOptions &eo : runs) {
      // Once a run of these sizes stopped at its step limit, the others
      // would too (the same loops): they run at the smaller sizes below.
      if (tooLong)
        break;
      bool edge = fill == Fill::Edge;
      if (opts.deadline && std::chrono::steady_clock::now() > *opts.deadline)
        return found;
      // The same kernel, scalars, inputs (their fill and seed) and schedule:
      // the same run (the executor is deterministic), whatever its limits.
      std::string memoKey;
      if (opts.memo)
        memoKey = kernel + "|" + key + "|" + std::to_string(int(fill)) + "|" +
                  std::to_string(int(eo.schedule)) + "|" + std::to_string(eo.seed);
      Args a = filled;
      std::optional<ExecResult> ran;
      if (opts.memo) {
        std::lock_guard<std::mutex> guard(opts.memo->lock);
        auto it = opts.memo->runs.find(memoKey);
        if (it != opts.memo->runs.end()) {
          ran = it->second.result;
          a = it->second.after;
        }
      }
      if (!ran) {
        Result<ExecResult> r = Executor(eo).run(module, kernel, a);
        if (!r) {
          tooLong |= r.error().message.find("step limit") != std::string::npos;
          continue;
        }
        ran = std::move(*r);
        if (opts.memo) {
          std::lock_guard<std::mutex> guard(opts.memo->lock);
          opts.memo->runs.emplace(memoKey, RunMemo::Run{*ran, a});
        }
      }
      ExecResult *r = &*ran;
      // Past a barrier not all threads reach, what the executor does next is
      // its own choice (the program's behaviour is undefined): such a run
      // names no other check.
      bool diverged = false;
      for (const Violation &v : r->violations)
        diverged |= v.kind == CheckId::BarrierDivergence || v.kind == CheckId::WarpConvergence;
      if (diverged || assumptionBroken(*r))
        continue;
      for (const Violation &v : r->violations) {
        // A race names both of its places (the verifier's race checks are
        // per pair): it refutes that pair's check.
        std::string other;
        for (const auto &[key, value] : v.details)
          if (key == "other")
            other = value;
        bool racePair = v.kind == CheckId::Race && !other.empty();
        // (An integer overflow is taken from the runs that hunt it, at the
        // requires clause's extremes: elsewhere it may stem from a value
        // another bug left undefined, a racy read, which its own check names.)
        bool extreme = fill == Fill::HighIntegers || fill == Fill::LowIntegers;
        if (!(hasExactLocation(v.kind) || racePair || (extreme && v.kind == CheckId::Overflow)) ||
            // An approx clause is proven for finite inputs only: with edge
            // cases a run shows nothing about it (its failure says
            // "approx ..."). The exact ones are proven for every input, NaN
            // included: a softmax's exact row maximum whose fmax drops a NaN
            // (unknown after 60 s).
            ((lowPrecision || edge) && v.message.rfind("approx ", 0) == 0) ||
            !seen.insert(std::string(checkName(v.kind)) + "@" + v.location).second)
          continue;
        CheckResult c;
        c.id = v.kind;
        c.status = CheckStatus::Failed;
        splitLocation(v.location, c.file, c.line, c.col);
        if (racePair) {
          std::string otherFile;
          splitLocation(other, otherFile, c.otherLine, c.otherCol);
        }
        for (const ParamInfo &p : k->params)
          if (const ScalarValue *sv = p.kind == ParamInfo::Scalar ? a.scalar(p.name) : nullptr)
            c.counterexample.push_back({p.name, toString(*sv)});
        c.explanation =
            extreme ? "a run on the CPU executor, with " + fallback + " (other inputs random, seed " +
                          std::to_string(opts.seed) + "), shows the failure"
            : fill == Fill::Ramp
                ? std::string("a run on the CPU executor, with inputs that ramp along each row "
                              "(rising, falling) in [0, 1), shows the failure")
                : std::string("a run on the CPU executor, with random inputs") +
                      (edge ? ", and edge cases (NaN, infinities, -0, extremes; alone and in runs),"
                       : fill == Fill::Unit ? " in [0, 1) (integers below the smallest size)"
                                            : "") +
                      " (seed " + std::to_string(fill == Fill::Unit ? opts.seed + 1 : opts.seed) +
                      (fallback.empty() ? std::string()
                                        : "; where they break the requires clause: " + fallback) +
                      "), shows the failure";
        c.confirmed = true;
        c.emptyLaunch = r->launch.numBlocks() == 0 || r->launch.blockSize() == 0;
        std::string launch = launchText(*k, a);
        c.observed = markPoison(v.message, a) + " (" + (launch.empty() ? "" : launch + ", ") +
                     scheduleText(eo) + ")";
        found.push_back(std::move(c));
      }
    }
    // Too many operations at these sizes (a warp reduction over 100 rows
    // with its clause: past 200 000): the same shape again at half the
    // elements, down to 64. (Not an eighth: a 2-D stencil through a 16x16
    // tile that loses its right halo shows at 32x32, which a 4096-element
    // cap's 33x33 run overstepped, and not at 16x16.)
    if (tooLong && cap / 2 >= 64)
      shapes.push_back({cap / 2, favour});
  }
  return found;
}

namespace {

/// The undecided checks of one kernel that a run on the executor shows
/// failing become failed (see falsifyUndecided).
void falsifyKernel(const Module &module, KernelReport &kr, const ReplayOptions &opts) {
  std::vector<CheckResult *> open;
  bool scheduleDependent = false;
  // Checks left unsolved once the kernel failed (--fail-fast) stay so.
  bool failed = std::any_of(kr.checks.begin(), kr.checks.end(), [](const CheckResult &c) {
    return c.status == CheckStatus::Failed;
  });
  ReplayOptions runOpts = opts;
  for (CheckResult &c : kr.checks)
    if (c.status == CheckStatus::Unknown && c.id != CheckId::Unsupported &&
        c.id != CheckId::Internal && !(failed && !c.attempted)) {
      open.push_back(&c);
      scheduleDependent |= isScheduleDependent(c.id);
      runOpts.extremeIntegers |= c.id == CheckId::Overflow;
    }
  if (open.empty())
    return;
  for (CheckResult &run :
       runForFailures(module, kr.name, scheduleDependent, {1 << 12, 64, 1 << 16}, runOpts)) {
    // One check per violation: the first open one it refutes.
    auto match = std::find_if(open.begin(), open.end(),
                              [&](const CheckResult *c) { return refutes(run, *c); });
    if (match == open.end() || (*match)->status != CheckStatus::Unknown)
      continue;
    CheckResult &c = **match;
    c.status = CheckStatus::Failed;
    if (!c.failMessage.empty())
      c.message = c.failMessage;
    c.counterexample = std::move(run.counterexample);
    c.explanation = "the solver gave no answer; " + run.explanation;
    c.confirmed = true;
    c.observed = std::move(run.observed);
    kr.verdict = Verdict::Failed;
  }
}

/// `opts` with the deadline of a kernel whose verification took `kr.timeMs`
/// of its budget; none where the budget is spent.
std::optional<ReplayOptions> withinBudget(const KernelReport &kr, const ReplayOptions &opts) {
  ReplayOptions bounded = opts;
  if (opts.budgetSeconds <= 0)
    return bounded;
  double left = opts.budgetSeconds - kr.timeMs / 1000;
  if (left <= 0)
    return std::nullopt;
  bounded.deadline = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(left));
  return bounded;
}

} // namespace

void falsifyUndecided(const Module &module, Report &report, const ReplayOptions &opts) {
  for (KernelReport &kr : report.kernels)
    if (std::optional<ReplayOptions> bounded = withinBudget(kr, opts))
      falsifyKernel(module, kr, *bounded);
}

void settleTentative(KernelReport &kr) {
  bool changed = false;
  for (CheckResult &c : kr.checks)
    if (c.tentative && c.status == CheckStatus::Failed && c.confirmed != true) {
      c.status = CheckStatus::Unknown;
      c.message = "undecided: " + c.message + " (the solver's model rests on " +
                  (c.tentativeWhy.empty()
                       ? std::string("sums or reductions it knows only by their definitions")
                       : c.tentativeWhy) +
                  ", and no run reproduced it)";
      changed = true;
    }
  if (changed)
    kr.verdict = verdictOf(kr.checks);
}

void replayAndFalsify(const Module &module, Report &report, const ReplayOptions &opts) {
  for (KernelReport &kr : report.kernels) {
    // Replay and falsifying runs share what the proof left of the budget;
    // past it a failed check stays failed (not replayed) and an undecided
    // one unknown.
    std::optional<ReplayOptions> bounded = withinBudget(kr, opts);
    for (CheckResult &c : kr.checks)
      if (c.status == CheckStatus::Failed && !c.confirmed.has_value()) { // (a run's failure is shown)
        if (bounded)
          replayCheck(module, kr.name, c, *bounded);
        else
          c.observed = "not replayed: the kernel's verification budget is spent";
      }
    settleTentative(kr);
    if (bounded)
      falsifyKernel(module, kr, *bounded);
  }
}

} // namespace kuiper
