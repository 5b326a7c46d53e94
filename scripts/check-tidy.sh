#!/usr/bin/env bash
# Runs clang-tidy with the repository's .clang-tidy over the Qt-free levels (core/, runtime/)
# and fails on any finding. Needs a configured build folder (compile_commands.json).
# Usage: scripts/check-tidy.sh [BUILD_DIR] [FILE...]   (default: build, every tracked .cpp)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
clang_tidy=$(command -v clang-tidy-14 || command -v clang-tidy || true)
[[ -n $clang_tidy ]] || { echo "error: clang-tidy is not installed (scripts/install-deps.sh all)" >&2; exit 1; }
[[ -f $build/compile_commands.json ]] ||
    { echo "error: $build/compile_commands.json is missing: configure with a preset first" >&2; exit 1; }

if (($#)); then
    files=("$@")
else
    mapfile -t files < <(git ls-files 'core/*.cpp' 'runtime/*.cpp')
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# One file per process, as many processes as cores; --quiet keeps only the findings.
printf '%s\n' "${files[@]}" |
    xargs -P "$(nproc)" -I{} "$clang_tidy" -p "$build" --quiet {} >"$log" 2>/dev/null || true
findings=$(grep -c ': warning: \|: error: ' "$log" || true)
if ((findings)); then
    grep -A3 ': warning: \|: error: ' "$log"
    echo "clang-tidy: $findings finding(s) in ${#files[@]} files (checks: .clang-tidy)"
    exit 1
fi
echo "clang-tidy: ${#files[@]} files of core/ and runtime/ without findings"
