#!/usr/bin/env bash
# Takes the documentation's screenshot of the designer: starts the app on the bundled case
# study under a virtual X server and saves the window.
# Usage: scripts/screenshot.sh [BUILD_DIR] [OUTPUT]   (default: build docs/screenshots/designer.png)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
output=${2:-$root/docs/screenshots/designer.png}
app=$build/bin/hetplan

[[ -x $app ]] || { echo "error: $app not found; build the app first (make build)" >&2; exit 1; }
command -v xvfb-run >/dev/null || { echo "error: xvfb-run not found (Debian: xvfb)" >&2; exit 1; }
mkdir -p "$(dirname "$output")"

# A settings folder of its own: the picture must not depend on the person's window layout,
# recent files or language.
settings=$(mktemp -d)
trap 'rm -rf "$settings"' EXIT
XDG_CONFIG_HOME=$settings XDG_DATA_HOME=$settings LANG=C.UTF-8 \
    xvfb-run -a -s "-screen 0 1600x1000x24 -dpi 96" \
    "$app" --screenshot "$output" "${@:3}"
echo "wrote $output"
