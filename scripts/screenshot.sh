#!/usr/bin/env bash
# Takes the documentation's screenshots from the real app at its default window size: starts
# it on a bundled example under a virtual X server, waits for the start plan and saves
# designer.png, plan.png, breakdown.png, timeline.png (training), whatif.png, memory.png,
# convergence.png, serving.png (inference), sweep.png and compare.png.
# Usage: scripts/screenshot.sh [BUILD_DIR] [OUTPUT_DIR] [LANGUAGE] [EXAMPLE]
#   defaults: build, docs/screenshots, the English text, case-study. With a LANGUAGE (e.g.
#   zh_CN) each picture is saved as <name>-<LANGUAGE>.png; "" keeps the English text.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
output=${2:-$root/docs/screenshots}
language=${3:-}
example=${4:-case-study}
app=$build/bin/hetplan

[[ -x $app ]] || { echo "error: $app not found; build the app first (make build)" >&2; exit 1; }
command -v xvfb-run >/dev/null || { echo "error: xvfb-run not found (Debian: xvfb)" >&2; exit 1; }
mkdir -p "$output"

# A settings folder of its own: the pictures must not depend on the person's window layout,
# recent files or language.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/pictures"
XDG_CONFIG_HOME=$scratch XDG_DATA_HOME=$scratch LANG=C.UTF-8 \
    xvfb-run -a -s "-screen 0 1600x1000x24 -dpi 96" \
    "$app" --screenshot "$scratch/pictures" --example "$example" ${language:+--lang "$language"}

for picture in "$scratch"/pictures/*.png; do
    name=$(basename "$picture" .png)
    target=$output/$name${language:+-$language}.png
    cp "$picture" "$target"
    echo "wrote $target"
done
