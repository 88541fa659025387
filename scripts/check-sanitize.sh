#!/usr/bin/env bash
# `make check-sanitize`: the whole project and its test suite built with
# AddressSanitizer and UndefinedBehaviorSanitizer in SANITIZE_BUILD (default
# build-sanitize). Not part of `make check`: a second full build. Any
# sanitizer report fails the test that triggered it. KUIPER_BUILD_LOCK=FILE
# runs the build under `flock FILE`.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${SANITIZE_BUILD:-build-sanitize}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g1"

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
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit "${launcher[@]}"
fi
"${lock[@]}" nice ninja -C "$build"
# Leaks are not checked: MLIR and Z3 keep process-lifetime singletons.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
"${lock[@]}" ninja -C "$build" check-kuiper
