# The two commands a person needs: `make run` and `make test`. Both install what is missing.
BUILD_DIR := build
PRESET    ?= default
JOBS      ?= $(shell nproc)
CLI       := $(BUILD_DIR)/bin/hetplan-cli

.PHONY: all deps build run test bench fuzz core clean

all: build

deps:
	@scripts/install-deps.sh all

build: deps
	@cmake --preset $(PRESET) >/dev/null
	@cmake --build --preset $(PRESET) -j $(JOBS)

# Until the desktop app lands, the main job is planning the bundled case study with the
# default planner (HexiScale) and the default, realistic cost model.
run: build
	$(CLI) plan --cluster case-study --model llama2-13b

test: build
	ctest --preset $(PRESET) -j $(JOBS)

# Benchmarks are separate from the tests: numbers, not pass/fail.
bench: build
	$(BUILD_DIR)/bin/hetplan-bench

# Core, CLI and core tests without Qt Widgets: proves the core does not need the GUI.
core:
	@scripts/install-deps.sh core
	cmake --preset core && cmake --build --preset core -j $(JOBS) && ctest --preset core

# Coverage-guided fuzzing with libFuzzer (clang). FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 60
fuzz:
	@scripts/install-deps.sh fuzz
	cmake --preset fuzz && cmake --build --preset fuzz -j $(JOBS) --target fuzz-targets
	FUZZ_PARALLEL=1 scripts/fuzz.sh build-fuzz $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD_DIR) build-core build-fuzz
