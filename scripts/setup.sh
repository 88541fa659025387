#!/usr/bin/env bash
# Installs the Debian packages Kuiper builds against, if any is missing.
set -euo pipefail

# clang and libclang-rt-dev (libFuzzer, ASan, UBSan runtimes): the fuzz
# targets (`make fuzz`, and the bounded fuzz run of `make check`).
packages=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libz3-dev z3 cvc5
          googletest libgtest-dev ninja-build cmake python3 clang libclang-rt-dev)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg -s "$p" >/dev/null 2>&1; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  sudo=(sudo)
fi
"${sudo[@]}" apt-get update
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y "${missing[@]}"
