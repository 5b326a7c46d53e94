#!/usr/bin/env bash
# Fails when a tracked C/C++ source differs from the repository's .clang-format.
# Usage: scripts/check-format.sh [--fix]
set -euo pipefail
cd "$(dirname "$0")/.."
clang_format=$(command -v clang-format-14 || command -v clang-format || true)
[[ -n $clang_format ]] || { echo "error: clang-format is not installed (scripts/install-deps.sh all)" >&2; exit 1; }
mapfile -t files < <(git ls-files '*.c' '*.cpp' '*.h' '*.hpp' '*.cu' '*.cuh')
if [[ ${1:-} == --fix ]]; then
    "$clang_format" -i "${files[@]}"
    exit 0
fi
# Batches of 40 files per process, as many processes as cores: one clang-format start per
# batch instead of per file. Each differing file is reported as "<file>:<line>:<col>: error: …".
log=$(mktemp)
trap 'rm -f "$log"' EXIT
printf '%s\0' "${files[@]}" |
    xargs -0 -n 40 -P "$(nproc)" "$clang_format" --dry-run -Werror --ferror-limit=1 2>"$log" >/dev/null || true
mapfile -t bad < <(grep -oE '^[^:]+:[0-9]+:[0-9]+: error:' "$log" | cut -d: -f1 | sort -u)
if ((${#bad[@]} == 0)) && grep -q . "$log"; then
    # Anything clang-format said that is not a formatting difference (e.g. it could not run).
    cat "$log" >&2
    exit 1
fi
if ((${#bad[@]})); then
    echo "${#bad[@]} file(s) differ from .clang-format (fix: scripts/check-format.sh --fix):"
    printf '  %s\n' "${bad[@]}"
    exit 1
fi
echo "format: ${#files[@]} files match .clang-format"
