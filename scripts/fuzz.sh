#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzz build (cmake --preset fuzz) for SECONDS each, over a
# copy of its seed corpus (tests/fuzz/corpus/<name>/), so the checked-in corpus stays small.
# Crash, leak, timeout and out-of-memory inputs go to tests/fuzz/findings/; add a fixed one to
# the corpus so that `ctest` replays it forever. Exits non-zero if any target found anything.
#
# Usage: scripts/fuzz.sh BUILD_DIR SECONDS
# FUZZ_PARALLEL=1 runs all targets at once (each for SECONDS of wall time) instead of in turn.
set -euo pipefail

if [[ $# -ne 2 || ! "$2" =~ ^[0-9]+$ ]]; then
    echo "usage: $0 BUILD_DIR SECONDS" >&2
    exit 2
fi
build_dir=$1
seconds=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
findings="$root/tests/fuzz/findings"
mkdir -p "$findings"

shopt -s nullglob
targets=("$build_dir"/bin/fuzz_* "$build_dir"/tests/fuzz/fuzz_*)
if [[ ${#targets[@]} -eq 0 ]]; then
    echo "no fuzz_* binaries in $build_dir; build with: cmake --preset fuzz && cmake --build --preset fuzz" >&2
    exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

# Runs one target; its exit status says whether it found anything.
fuzz_one() {
    local target=$1 name corpus seeds
    name=$(basename "$target")
    corpus="$work/$name"
    mkdir -p "$corpus"
    seeds="$root/tests/fuzz/corpus/${name#fuzz_}"
    [[ -d "$seeds" ]] && cp -r "$seeds"/. "$corpus"/
    "$target" "$corpus" -max_total_time="$seconds" -max_len=65536 -timeout=5 \
        -rss_limit_mb=2048 -print_final_stats=1 -dict="$root/tests/fuzz/hetplan.dict" \
        -artifact_prefix="$findings/$name-" >"$work/$name.log" 2>&1
}

report_one() {
    local name=$1 status=$2
    echo "== $name: ${seconds}s"
    if [[ $status -ne 0 ]]; then
        failed=1
        echo "!! $name found a problem:"
        tail -n 40 "$work/$name.log"
    fi
    grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$work/$name.log" | tail -n 2 || true
}

runnable=()
for target in "${targets[@]}"; do
    [[ -x "$target" && -f "$target" ]] && runnable+=("$target")
done
if [[ ${FUZZ_PARALLEL:-0} == 1 ]]; then
    pids=()
    for target in "${runnable[@]}"; do
        fuzz_one "$target" &
        pids+=($!)
    done
    for i in "${!runnable[@]}"; do
        status=0
        wait "${pids[$i]}" || status=$?
        report_one "$(basename "${runnable[$i]}")" "$status"
    done
else
    for target in "${runnable[@]}"; do
        status=0
        fuzz_one "$target" || status=$?
        report_one "$(basename "$target")" "$status"
    done
fi

left=("$findings"/*)
if [[ ${#left[@]} -gt 0 ]]; then
    echo "findings in $findings:"
    printf '  %s\n' "${left[@]}"
    failed=1
fi
exit $failed
