# Kuiper: `make demo` builds and verifies the examples, `make check` runs the tests.
BUILD   ?= build
PREFIX  ?= /usr/local
KUIPERC := $(BUILD)/bin/kuiperc
EXAMPLES := $(sort $(wildcard examples/*.kp))
# ccache, where installed, makes rebuilds of other checkouts cheap.
CCACHE_LAUNCHER := $(if $(shell command -v ccache 2>/dev/null),\
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
DIST_BUILD ?= build-dist

.PHONY: all setup configure build build-compiler demo check check-slow check-sanitize fuzz gpu-check gpu-bench kernelbench \
  dist install clean

all: build

setup:
	scripts/setup.sh

$(BUILD)/build.ninja:
	cmake -G Ninja -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release \
	  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit $(CCACHE_LAUNCHER)

configure: setup $(BUILD)/build.ninja

# The compiler, its tools and unit tests (in $(BUILD)); `build` adds the front-end
# fuzzing target `make check` runs (in build-fuzz, with clang; "skipped" without
# clang's libFuzzer), so that `make check` spends its time on the tests.
build-compiler: configure
	ninja -C $(BUILD)

build: build-compiler
	scripts/fuzz.sh --smoke --build-only

demo: build-compiler
	@mkdir -p $(BUILD)/demo
	@status=0; \
	for f in $(EXAMPLES); do \
	  name=$$(basename $$f .kp); \
	  echo "== kuiperc $$f -o $(BUILD)/demo/$$name.ptx"; \
	  if $(KUIPERC) $$f -o $(BUILD)/demo/$$name.ptx; then \
	    echo "   -> $(BUILD)/demo/$$name.ptx"; \
	  else \
	    echo "   -> FAILED (exit $$?)"; status=1; \
	  fi; \
	done; \
	echo "== kuiperc examples/elu.kp --verify-only --report json"; \
	$(KUIPERC) examples/elu.kp --verify-only --report json || status=1; \
	if [ $$status -eq 0 ]; then echo "demo: every example verified"; \
	else echo "demo: some examples did not verify"; fi; \
	exit $$status

# The test suite (lit and unit tests), then a 10 s fuzzing run of the front end
# under ASan + UBSan (its target is built by `build`; "skipped" without clang's
# libFuzzer).
check: build
	ninja -C $(BUILD) check-kuiper
	FUZZ_TIME=$${FUZZ_SMOKE_TIME:-10} scripts/fuzz.sh --smoke

# The corpus files whose proofs are long (a `// SLOW:` line in the file says why), which
# `make check` leaves out, and the kernels written from the docs (test/Corpus/kp/probes);
# `.ci/run` runs them after `make check`.
check-slow: build-compiler
	/usr/lib/llvm-22/bin/lit --param slow=1 -sv $(BUILD)/test/Verifier/verdicts-slow.test \
	  $(BUILD)/test/Corpus/probes-1.test $(BUILD)/test/Corpus/probes-2.test \
	  $(BUILD)/test/Corpus/ptx-probes.test

# The whole project and its tests under ASan + UBSan, in build-sanitize.
check-sanitize: configure
	scripts/check-sanitize.sh

# libFuzzer on the front end, code generation and the MLIR verifier, built
# with clang in build-fuzz; FUZZ_TIME seconds (default 600).
fuzz: configure
	FUZZ_TIME=$${FUZZ_TIME:-600} scripts/fuzz.sh

# Every example on the GPU vs the CPU executor, and bandwidth at 2^28 elements
# (says "GPU check not run" where there is no GPU).
gpu-check: configure
	BUILD=$(BUILD) scripts/gpu-check.sh

# Kuiper's kernels beside PyTorch eager (GB/s, GFLOP/s for SGEMM, a device copy as the
# limit) and their ptxas registers/spills beside nvcc's for bench/*.cu (docs/performance.md).
# Without a GPU it prints the register table and "no GPU: ...; timings not run".
# KUIPERC=PATH on the command line (a release bundle's kuiperc) skips the build.
gpu-bench: $(if $(filter command line,$(origin KUIPERC)),,build-compiler)
	scripts/gpu-bench --kuiperc $(KUIPERC) $(GPU_BENCH_ARGS)

# KernelBench level 1 (examples/kernelbench): verify every problem's kernel and print one
# table (verdict, checks, obligations, time, derived tolerance, trusted items, what is missing),
# totals and the slowest five. KB_ARGS='--report json' for machines, '--report markdown' for docs.
# Exits 1 when a verdict differs from its file's EXPECT line.
kernelbench: build-compiler
	scripts/kernelbench --kuiperc $(KUIPERC) --check-expect $(KB_ARGS)

# The self-contained release bundle (docs/dist.md): LLVM/MLIR linked statically into
# libkuiper.so, in $(DIST_BUILD) (Release; link jobs one at a time), bundled libz3,
# $(DIST_BUILD)/kuiper-VERSION-linux-x86_64.tar.xz, then its smoke test.
$(DIST_BUILD)/build.ninja:
	cmake -G Ninja -S . -B $(DIST_BUILD) -DCMAKE_BUILD_TYPE=Release -DKUIPER_STATIC_LLVM=ON \
	  -DLLVM_PARALLEL_LINK_JOBS=1 -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
	  $(CCACHE_LAUNCHER)

dist: setup $(DIST_BUILD)/build.ninja
	scripts/dist $(DIST_BUILD)

install: build-compiler
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
