# Kuiper: `make demo` builds and verifies the examples, `make check` runs the tests.
BUILD   ?= build
PREFIX  ?= /usr/local
KUIPERC := $(BUILD)/bin/kuiperc
EXAMPLES := $(sort $(wildcard examples/*.kp))

.PHONY: all setup configure build demo check gpu-check install clean

all: build

setup:
	scripts/setup.sh

$(BUILD)/build.ninja:
	cmake -G Ninja -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release \
	  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit

configure: setup $(BUILD)/build.ninja

build: configure
	ninja -C $(BUILD)

demo: build
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

check: build
	ninja -C $(BUILD) check-kuiper

# Every example on the GPU vs the CPU executor, and bandwidth at 2^28 elements
# (says "GPU check not run" where there is no GPU).
gpu-check: configure
	BUILD=$(BUILD) scripts/gpu-check.sh

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
