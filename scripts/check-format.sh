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
bad=()
for f in "${files[@]}"; do
    "$clang_format" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
    echo "${#bad[@]} file(s) differ from .clang-format (fix: scripts/check-format.sh --fix):"
    printf '  %s\n' "${bad[@]}"
    exit 1
fi
echo "format: ${#files[@]} files match .clang-format"
