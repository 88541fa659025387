#!/usr/bin/env bash
# The GPU check: every example kernel (examples/*.kp) on the GPU through
# kuiper::Device and on the CPU executor, compared bit for bit (exact clauses)
# or against the ensures within the derived bound (approx clauses); then the
# elementwise kernels (elu, hardtanh, gelu, sigmoid) timed on the GPU at 2^28
# elements for their effective bandwidth (bytes read + written / time) against
# the H200's 4.8 TB/s. One table; well under 5 minutes.
#
#   scripts/gpu-check.sh [kuiper-gpu-check options]   (BUILD=dir, default build)
#
# Builds kuiper-gpu-check if needed. Without a GPU or CUDA driver it prints
# "no GPU: <reason>" and "GPU check not run" and exits 0. Exit 1 if a kernel's
# GPU output did not match.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
LIMIT=${GPU_CHECK_TIMEOUT:-300}

if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
# Shared machines serialize builds on a lock; elsewhere build directly.
if command -v flock > /dev/null; then
  flock /tmp/kuiper-build.lock ninja -C "$BUILD" kuiper-gpu-check > /dev/null
else
  ninja -C "$BUILD" kuiper-gpu-check > /dev/null
fi

status=0
timeout "$LIMIT" "$BUILD/bin/kuiper-gpu-check" \
  --compare-n 65536 --bench-n 268435456 --reps 5 --peak-gbs 4800 \
  --bench elu_fwd,hardtanh,gelu_fwd,sigmoid_fwd \
  "$@" examples/*.kp || status=$?
if [ "$status" -eq 124 ]; then
  echo "gpu-check: timed out after ${LIMIT}s" >&2
fi
exit "$status"
