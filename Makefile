# The two commands a person needs: `make run` and `make test`. Both install what is missing.
BUILD_DIR := build
PRESET    ?= default
JOBS      ?= $(shell nproc)
CLI       := $(BUILD_DIR)/bin/hetplan-cli

.PHONY: all deps build run test bench fuzz core package install clean

all: build

deps:
	@scripts/install-deps.sh all

build: deps
	@cmake --preset $(PRESET) >/dev/null
	@cmake --build --preset $(PRESET) -j $(JOBS)

# The main job: the desktop app on the bundled case study, planned with the default planner
# (HexiScale) and cost model. Without a display, the same plan from the command line.
run: build
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ] && [ -x $(BUILD_DIR)/bin/hetplan ]; then \
	    $(BUILD_DIR)/bin/hetplan; \
	else \
	    echo "No display: planning the case study with hetplan-cli instead of opening the app."; \
	    $(CLI) plan --cluster case-study --model llama2-13b; \
	fi

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

# Debian packages (hetplan, hetplan-cli, hetplan-runtime) into build/: `apt install ./build/hetplan*.deb`.
package: build
	@cmake --build $(BUILD_DIR) --target package
	@ls -l $(BUILD_DIR)/*.deb

# Installs into PREFIX; DESTDIR=/some/dir stages the files under it instead, as packagers do.
PREFIX ?= /usr/local
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD_DIR) --prefix "$(PREFIX)"

clean:
	rm -rf $(BUILD_DIR) build-core build-fuzz
