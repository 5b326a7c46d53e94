#!/usr/bin/env bash
# Installs the Debian packages HetPlan builds and tests with, when any is missing.
# Usage: scripts/install-deps.sh [core|all|fuzz]   (default: all)
#   core: core, CLI and core tests; all: everything `make test` builds; fuzz: core + clang
set -euo pipefail

profile=${1:-all}
core_pkgs=(build-essential cmake ninja-build pkg-config nlohmann-json3-dev libmetis-dev
           ccache  # shares objects between the presets' build folders (Makefile)
           libopenblas-dev  # the runtime's model (built with the core and the CLI)
           libgloo-dev redis-server  # the runtime's Gloo backend; its tests start a Redis
           qt6-base-dev)  # qt6-base-dev brings Qt Test, which the core tests use (no Widgets).
app_pkgs=(qt6-base-dev-tools qt6-svg-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools
          libqcustomplot-dev libssh-dev libgl-dev fonts-dejavu-core fonts-wqy-microhei
          openssh-server openssh-client  # the launcher's tests start a throw-away sshd
          iproute2  # and network-namespace hosts (ip netns)
          qt6-translations-l10n xvfb xauth clang-format clang-tidy)
# fonts-wqy-microhei: the Simplified Chinese UI needs CJK glyphs; qt6-translations-l10n: Qt's own
# dialogs (standard buttons, file dialogs) in that language.
# The Debian packages: rendering icons, building (dpkg-shlibdeps) and checking them.
packaging_pkgs=(librsvg2-bin dpkg-dev lintian appstream desktop-file-utils shared-mime-info)
fuzz_pkgs=(clang libclang-rt-14-dev)

pkgs=("${core_pkgs[@]}")
case $profile in
    core) ;;
    all) pkgs+=("${app_pkgs[@]}" "${packaging_pkgs[@]}") ;;
    fuzz) pkgs+=("${fuzz_pkgs[@]}") ;;
    *) echo "usage: $0 [core|all|fuzz]" >&2; exit 2 ;;
esac

missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0

echo "Installing missing Debian packages: ${missing[*]}"
sudo=()
if ((EUID != 0)); then
    command -v sudo >/dev/null || { echo "error: not root and no sudo; install: ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
