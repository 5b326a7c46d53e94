#!/usr/bin/env bash
# Installs HetPlan's Debian packages on the system this runs on (a throw-away root, or the
# machine itself) and checks what a user gets: programs that run from any directory, the app's
# version without a display, its translations, man pages, the desktop entry and MIME types.
# Usage: check_installed.sh VERSION PACKAGE_DIR [--update]   (--update: apt-get update first)
set -euo pipefail

version=$1
package_dir=$2
update=${3:-}

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

export DEBIAN_FRONTEND=noninteractive
if [[ $update == --update ]]; then
    apt-get update -qq || fail "apt-get update failed"
fi
# apt resolves what the packages depend on (from the archive, when the system lacks it);
# Recommends stay out so that what is checked is what Depends alone brings.
apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=120 \
    "$package_dir"/*.deb >/dev/null || fail "the packages do not install"
for package in "$package_dir"/*.deb; do
    name=$(dpkg-deb -f "$package" Package)
    dpkg-query -W -f='${Status}\n' "$name" | grep -q 'install ok installed' ||
        fail "$name is not installed after apt-get install"
done

# An unrelated directory: nothing may be found relative to the build or the source.
cd "$(mktemp -d)"

[[ $(command -v hetplan-cli) == /usr/bin/hetplan-cli ]] || fail "hetplan-cli is not in /usr/bin"
[[ $(hetplan-cli --version) == "hetplan-cli $version" ]] ||
    fail "hetplan-cli --version printed '$(hetplan-cli --version)', expected 'hetplan-cli $version'"
plan=$(hetplan-cli plan --cluster case-study --model llama2-13b) ||
    fail "hetplan-cli plan --cluster case-study --model llama2-13b exited with $?"
grep -q 'Pipeline 0' <<<"$plan" || fail "hetplan-cli plan printed no plan: $plan"
head -n 12 <<<"$plan"

# The app without a display: it prints its version and exits, and its Chinese strings are
# found from the installed binary.
app_version=$(QT_QPA_PLATFORM=offscreen timeout 60 hetplan --version 2>/dev/null) ||
    fail "QT_QPA_PLATFORM=offscreen hetplan --version exited with $?"
[[ $app_version == "HetPlan $version" ]] ||
    fail "hetplan --version printed '$app_version', expected 'HetPlan $version'"
echo "$app_version"
# Line 2 of --help is the app's own description (Qt's strings come from qt6-translations-l10n,
# which is only recommended).
description() {
    QT_QPA_PLATFORM=offscreen timeout 60 hetplan --lang "$1" --help 2>/dev/null | sed -n 2p
}
english=$(description en)
chinese=$(description zh_CN)
[[ -n $english && $chinese != "$english" ]] ||
    fail "hetplan --lang zh_CN --help shows '$chinese': the app's translations were not found"

for page in hetplan hetplan-cli; do
    [[ -s /usr/share/man/man1/$page.1.gz ]] || fail "no man page for $page"
done
for file in /usr/share/applications/org.hetplan.HetPlan.desktop \
            /usr/share/metainfo/org.hetplan.HetPlan.metainfo.xml \
            /usr/share/icons/hicolor/scalable/apps/org.hetplan.HetPlan.svg \
            /usr/share/icons/hicolor/48x48/apps/org.hetplan.HetPlan.png \
            /usr/share/doc/hetplan-cli/copyright; do
    [[ -s $file ]] || fail "$file is missing"
done
# shared-mime-info's trigger has rebuilt the database: a double-clicked project finds its type.
for type in x-hetplan-project x-hetplan-cluster; do
    [[ -s /usr/share/mime/application/$type.xml ]] ||
        fail "the MIME database does not know application/$type"
done
echo "installed packages: OK"
