# The two commands a person needs: `make run` and `make test`. Both install what is missing.
BUILD_DIR := build
PRESET    ?= default
JOBS      ?= $(shell nproc)
# ccache (when installed) shares objects between the build folders of the presets: paths are
# made relative to the checkout, so `build` and `build-core` compile the same command lines.
export CCACHE_BASEDIR   := $(CURDIR)
export CCACHE_NOHASHDIR := 1
# Objects compiled with a precompiled header are cached only with these (cmake/PrecompiledHeaders.cmake).
export CCACHE_SLOPPINESS := pch_defines,time_macros,include_file_mtime,include_file_ctime
CLI       := $(BUILD_DIR)/bin/hetplan-cli

.PHONY: all deps configure build build-app run test lint bench fuzz core package install clean gpu-host-bundle gpu-check gpu-check-pack

all: build

deps:
	@scripts/install-deps.sh all

configure: deps
	@cmake --preset $(PRESET) >/dev/null

build: configure
	@cmake --build --preset $(PRESET) -j $(JOBS)

# Only what `make run` starts: the app and the CLI with their libraries (no tests, no benchmarks).
build-app: configure
	@cmake --build --preset $(PRESET) -j $(JOBS) --target hetplan hetplan-cli

# The main job: the desktop app on the bundled case study, planned with the default planner
# (HexiScale) and cost model. Without a display, the same plan from the command line.
run: build-app
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ] && [ -x $(BUILD_DIR)/bin/hetplan ]; then \
	    $(BUILD_DIR)/bin/hetplan; \
	else \
	    echo "No display: planning the case study with hetplan-cli instead of opening the app."; \
	    $(CLI) plan --cluster case-study --model llama2-13b; \
	fi

# Every test of the preset, then the Qt-free `core` preset built and its core tests run, so a
# Qt dependency that creeps into core/, runtime/ or the CLI fails here.
test: build
	ctest --preset $(PRESET) -j $(JOBS)
	@$(MAKE) --no-print-directory core CORE_TESTS="-L core"

# The lint tests alone; then the files clang-tidy found clean are recorded in
# tests/lint/tidy-clean.txt, so a fresh clone analyses only what changes after this (docs/building.md).
lint: build
	ctest --preset $(PRESET) -L lint
	scripts/check-tidy.py $(BUILD_DIR) --record

# Benchmarks are separate from the tests: numbers, not pass/fail.
bench: build
	$(BUILD_DIR)/bin/hetplan-bench

# Core, CLI and core tests without Qt Widgets: proves the core does not need the GUI.
CORE_TESTS ?=
core:
	@scripts/install-deps.sh core
	@cmake --preset core >/dev/null
	@cmake --build --preset core -j $(JOBS)
	ctest --preset core -j $(JOBS) $(CORE_TESTS)

# Coverage-guided fuzzing with libFuzzer (clang). FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 60
fuzz:
	@scripts/install-deps.sh fuzz
	cmake --preset fuzz && cmake --build --preset fuzz -j $(JOBS) --target fuzz-targets
	FUZZ_PARALLEL=1 scripts/fuzz.sh build-fuzz $(FUZZ_SECONDS)

# What a bare GPU host needs to build hetplan-worker and hetplan-probe (docs/gpu-host.md):
# build/hetplan-gpu-host/ and build/hetplan-gpu-host.tar.gz.
gpu-host-bundle: deps
	@scripts/gpu-host-bundle.sh $(BUILD_DIR)

# The GPU check (docs/gpu-host.md#the-gpu-check). On a GPU host with the full build: builds the
# programs it runs and runs it (report in build/gpu-check/). gpu-check-pack makes the archive
# that a bare GPU host runs it from: scripts/gpu-check.sh --pack build/hetplan-gpu-check.tar.xz.
GPU_CHECK_PROGRAMS := hetplan-worker hetplan-probe hetplan-cli gpu-tests hetplan-bench
gpu-check: configure
	@cmake --build --preset $(PRESET) -j $(JOBS) --target $(GPU_CHECK_PROGRAMS)
	scripts/gpu-check.sh --programs $(BUILD_DIR)/bin

gpu-check-pack: configure
	@cmake --build --preset $(PRESET) -j $(JOBS) --target $(GPU_CHECK_PROGRAMS)
	@scripts/gpu-check-pack.sh $(BUILD_DIR) $(BUILD_DIR)

# Debian packages (hetplan, hetplan-cli, hetplan-runtime) into build/: `apt install ./build/hetplan*.deb`.
# Packages carry GPU code for every supported architecture; test builds compile one.
package: deps
	@cmake --preset $(PRESET) -DHETPLAN_CUDA_ARCHITECTURES=all >/dev/null
	@cmake --build --preset $(PRESET) -j $(JOBS)
	@cmake --build $(BUILD_DIR) --target package
	@ls -l $(BUILD_DIR)/*.deb

# Installs into PREFIX; DESTDIR=/some/dir stages the files under it instead, as packagers do.
PREFIX ?= /usr/local
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD_DIR) --prefix "$(PREFIX)"

clean:
	rm -rf $(BUILD_DIR) build-core build-fuzz
