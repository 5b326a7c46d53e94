#!/usr/bin/env bash
# Builds HetPlan's Debian packages from a build folder, checks them as Debian would (lintian,
# appstreamcli, desktop-file-validate, the MIME XML) and installs them where a user would.
# Usage: check_packages.sh BUILD_DIR VERSION
#
# Where the packages are installed (HETPLAN_PACKAGING_ROOT):
#   overlay     (default as root) a throw-away copy of this machine: an overlay of / in a
#               private mount namespace, so nothing on the machine changes. Where mounting is
#               not allowed (an unprivileged container) it falls back to `host`.
#   host        this machine, and the packages are purged afterwards; refused when a HetPlan
#               package is already installed, so that a user's own installation is never touched.
#   debootstrap a fresh minimal Debian 12 made by debootstrap (network, a few minutes): the
#               check that Depends alone suffice on a machine that never built HetPlan
#               (HETPLAN_DEBIAN_MIRROR overrides the mirror).
# Not root: the packages are built and checked, the installation is skipped (exit 77).
set -euo pipefail

build_dir=$(realpath "$1")
version=$2
here=$(dirname "$(realpath "$0")")
work=$build_dir/packaging-test
skipped=77

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# Seconds since START (from `date +%s%N`), with one decimal.
seconds_since() {
    local ds=$((($(date +%s%N) - $1) / 100000000))
    echo "$((ds / 10)).$((ds % 10)) s"
}

rm -rf "$work"
mkdir -p "$work/debs"
start=$(date +%s%N)
cpack --config "$build_dir/CPackConfig.cmake" -B "$work/cpack" >"$work/cpack.log" 2>&1 ||
    { cat "$work/cpack.log"; fail "cpack could not build the packages"; }
echo "packages built in $(seconds_since "$start")"
mv "$work"/cpack/*.deb "$work/debs/"
packages=("$work"/debs/*.deb)
for expected in hetplan hetplan-cli; do
    [[ -f $work/debs/${expected}_${version}_$(dpkg --print-architecture).deb ]] ||
        fail "cpack built no $expected package: ${packages[*]##*/}"
done
for package in "${packages[@]}"; do
    printf '%-40s %8d bytes  Depends: %s\n' "${package##*/}" "$(stat -c %s "$package")" \
        "$(dpkg-deb -f "$package" Depends)"
done

# The app's run-time plugins come with its Depends; the command line and the runtime need no Qt.
app_depends=$(dpkg-deb -f "$work/debs/hetplan_${version}_"*.deb Depends)
for needed in qt6-qpa-plugins libqt6svg6 libqt6widgets6; do
    grep -qw "$needed" <<<"$app_depends" || fail "hetplan does not depend on $needed"
done
for package in "$work"/debs/hetplan-cli_*.deb "$work"/debs/hetplan-runtime_*.deb; do
    [[ -f $package ]] || continue
    ! dpkg-deb -f "$package" Depends | grep -q qt6 || fail "${package##*/} depends on Qt"
done

# lintian: errors fail the test; warnings and the rest are printed for the reader.
lintian_status=0
lintian --fail-on error --tag-display-limit 0 "${packages[@]}" >"$work/lintian.log" 2>&1 ||
    lintian_status=$?
grep -v '^running with root' "$work/lintian.log" || true
((lintian_status == 0)) || fail "lintian reports errors (exit status $lintian_status)"
echo "lintian: no errors"

# The desktop files, as software centres and menus read them.
dpkg-deb -x "$work/debs/hetplan_${version}_"*.deb "$work/app"
appstreamcli validate --no-net "$work/app/usr/share/metainfo/org.hetplan.HetPlan.metainfo.xml" ||
    fail "appstreamcli validate rejects the metainfo"
desktop-file-validate "$work/app/usr/share/applications/org.hetplan.HetPlan.desktop" ||
    fail "desktop-file-validate rejects the desktop entry"
mkdir -p "$work/mime/packages"
cp "$work/app/usr/share/mime/packages/"*.xml "$work/mime/packages/"
update-mime-database "$work/mime" >"$work/mime.log" 2>&1 ||
    { cat "$work/mime.log"; fail "update-mime-database rejects the MIME types"; }
grep -q 'application/x-hetplan-project:\*\.hetplan\.json' "$work/mime/globs2" ||
    fail "the MIME types do not map *.hetplan.json to application/x-hetplan-project"
echo "appstreamcli, desktop-file-validate, update-mime-database: OK"

if ((EUID != 0)); then
    echo "SKIPPED: installing the packages needs root"
    exit $skipped
fi

# Runs check_installed.sh inside ROOT (a directory holding a whole system) with the packages;
# further arguments go to check_installed.sh.
check_in_root() {
    local root=$1
    shift
    mount --rbind /dev "$root/dev"
    mount -t proc proc "$root/proc"
    mount -t tmpfs tmpfs "$root/tmp"
    # apt may fetch a missing dependency; a container's resolv.conf is a mount the root lacks.
    rm -f "$root/etc/resolv.conf"
    cp -L /etc/resolv.conf "$root/etc/resolv.conf"
    mkdir -p "$root/tmp/hetplan-packages"
    cp "${packages[@]}" "$here/check_installed.sh" "$root/tmp/hetplan-packages/"
    chroot "$root" /bin/bash /tmp/hetplan-packages/check_installed.sh "$version" \
        /tmp/hetplan-packages "$@"
}

# Mounts a throw-away copy of / at DIR/root: an overlay whose upper layer is a tmpfs at DIR.
mount_overlay() {
    local dir=$1
    mount -t tmpfs tmpfs "$dir"
    mkdir "$dir/upper" "$dir/work" "$dir/root"
    mount -t overlay overlay -o "lowerdir=/,upperdir=$dir/upper,workdir=$dir/work" "$dir/root"
}

# Runs the bash COMMANDS in a private mount namespace, so that every mount vanishes with it;
# this script's functions and variables are defined there too.
in_mount_namespace() {
    unshare --mount --propagation private -- bash -euo pipefail -c "
        $(declare -f mount_overlay check_in_root fail)
        packages=(${packages[*]@Q}) here=${here@Q} version=${version@Q}
        $1"
}

overlay_possible() {
    local probe=$work/overlay-probe
    mkdir -p "$probe"
    in_mount_namespace "mount_overlay ${probe@Q}; test -x ${probe@Q}/root/usr/bin/dpkg" 2>/dev/null
}

install_in_overlay() {
    local scratch=$work/overlay
    mkdir -p "$scratch"
    in_mount_namespace "mount_overlay ${scratch@Q}; check_in_root ${scratch@Q}/root"
}

install_on_host() {
    local name
    for name in hetplan hetplan-cli hetplan-runtime; do
        if dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q 'install ok installed'; then
            echo "SKIPPED: $name is already installed on this machine; not replacing it"
            exit $skipped
        fi
    done
    trap 'dpkg --purge hetplan hetplan-cli hetplan-runtime >/dev/null 2>&1 || true' EXIT
    "$here/check_installed.sh" "$version" "$work/debs"
}

install_in_debootstrap() {
    local root=$work/bookworm
    command -v debootstrap >/dev/null || fail "HETPLAN_PACKAGING_ROOT=debootstrap needs debootstrap"
    local begun
    begun=$(date +%s%N)
    debootstrap --variant=minbase bookworm "$root" \
        "${HETPLAN_DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$work/debootstrap.log" 2>&1 ||
        { tail -20 "$work/debootstrap.log"; fail "debootstrap failed"; }
    echo "debootstrap --variant=minbase bookworm: $(seconds_since "$begun")"
    in_mount_namespace "check_in_root ${root@Q} --update"
    rm -rf "$root"
}

mode=${HETPLAN_PACKAGING_ROOT:-overlay}
if [[ $mode == overlay ]] && ! overlay_possible; then
    echo "no overlay mount here (unprivileged container?): installing on this machine"
    mode=host
fi
start=$(date +%s%N)
case $mode in
    overlay) install_in_overlay ;;
    host) install_on_host ;;
    debootstrap) install_in_debootstrap ;;
    *) fail "HETPLAN_PACKAGING_ROOT=$mode; valid: overlay, host, debootstrap" ;;
esac
echo "installed and checked ($mode) in $(seconds_since "$start")"
