#!/usr/bin/env bash
# Builds and runs the libFuzzer targets of tools/kuiper-fuzz.
#
#   scripts/fuzz.sh           `make fuzz`: kuiper-fuzz (front end, code
#                             generation, MLIR verifier) for FUZZ_TIME seconds
#                             (default 600), corpus kept in build-fuzz/corpus
#   scripts/fuzz.sh --smoke   `make check`: kuiper-fuzz-frontend (builds in
#                             well under a minute) for FUZZ_TIME seconds
#                             (default 20) from the seeds alone, fixed seed
#   ... --build-only          only configure and build the target (`make build`
#                             builds the smoke target, so that `make check`
#                             spends its time on tests)
#
# Seeds: every .kp file of the repository. Another build directory with
# FUZZ_BUILD (default build-fuzz); KUIPER_BUILD_LOCK=FILE runs the build
# under `flock FILE`. Without clang and its libFuzzer runtime, says so and
# exits 0 (scripts/setup.sh installs them). A crash leaves its input in
# FUZZ_BUILD/artifacts and exits 1.
set -euo pipefail

mode=full
build_only=false
for arg in "$@"; do
  case "$arg" in
    --smoke) mode=smoke ;;
    --build-only) build_only=true ;;
    *) echo "fuzz.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD:-build-fuzz}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
if [ $mode = smoke ]; then
  target=kuiper-fuzz-frontend
  time=${FUZZ_TIME:-20}
else
  target=kuiper-fuzz
  time=${FUZZ_TIME:-600}
fi

cxx=${FUZZ_CXX:-clang++}
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char *, unsigned long) { return 0; }' \
  > "$probe/probe.cpp"
if ! command -v "$cxx" >/dev/null 2>&1 ||
   ! "$cxx" -fsanitize=fuzzer,address,undefined "$probe/probe.cpp" -o "$probe/probe" \
     >/dev/null 2>&1; then
  echo "fuzz: skipped ($cxx with libFuzzer not found; scripts/setup.sh installs clang)"
  exit 0
fi

lock=()
if [ -n "${KUIPER_BUILD_LOCK:-}" ]; then
  lock=(flock "$KUIPER_BUILD_LOCK")
fi
if [ ! -f "$build/build.ninja" ]; then
  launcher=()
  if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="${FUZZ_CC:-clang}" -DCMAKE_CXX_COMPILER="$cxx" \
    -DKUIPER_ENABLE_FUZZER=ON -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    "${launcher[@]}" >"$build.configure.log" 2>&1 ||
    { cat "$build.configure.log"; exit 1; }
fi
start=$(date +%s)
"${lock[@]}" nice ninja -C "$build" "$target" | grep -v '^\[' || true
test -x "$build/bin/$target" || { echo "fuzz: $target did not build"; exit 1; }
echo "fuzz: built $target in $(( $(date +%s) - start )) s"
if $build_only; then
  exit 0
fi

seeds="$build/seeds"
rm -rf "$seeds"
mkdir -p "$seeds" "$build/artifacts"
# (One process copies them all: a cp per file took 7 of the smoke run's 26 s.)
(cd "$root" && git ls-files -co --exclude-standard -- '*.kp' 2>/dev/null ||
               find examples test stdlib -name '*.kp') |
  python3 -c '
import shutil, sys
root, seeds = sys.argv[1], sys.argv[2]
for f in sys.stdin.read().split("\n"):
    if f:
        shutil.copyfile(root + "/" + f, seeds + "/" + f.replace("/", "_"))
' "$root" "$seeds"

if [ $mode = smoke ]; then
  corpus=$(mktemp -d)
  trap 'rm -rf "$probe" "$corpus"' EXIT
  extra=(-seed="${FUZZ_SEED:-1}")
else
  corpus="$build/corpus"
  mkdir -p "$corpus"
  extra=()
fi

echo "fuzz: $target for $time s on $(ls "$seeds" | wc -l) seeds" \
     "(+$(ls "$corpus" | wc -l) corpus inputs)"
set +e
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
nice -n 19 "$build/bin/$target" "$corpus" "$seeds" \
  -dict="$root/tools/kuiper-fuzz/kp.dict" -max_len=8192 -timeout=30 \
  -rss_limit_mb=4096 -max_total_time="$time" -print_final_stats=1 \
  -artifact_prefix="$build/artifacts/" "${extra[@]}" >"$build/fuzz.log" 2>&1
status=$?
set -e
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' \
  "$build/fuzz.log" || true
if [ $status -ne 0 ]; then
  tail -60 "$build/fuzz.log"
  echo "fuzz: $target FAILED (input in $build/artifacts; reproduce with" \
       "$build/bin/$target FILE)"
  exit 1
fi
echo "fuzz: $target ran $time s without a crash (log: $build/fuzz.log)"
