#!/bin/bash
# Makes the GPU-host bundle (docs/gpu-host.md): a folder and a tarball that build hetplan-worker
# and hetplan-probe on a host that has CUDA, NCCL, CMake, ninja and a C++ compiler but none of
# the Debian libraries. It carries the sources, the header-only libraries as files, and the
# shared libraries of this machine (Gloo, hiredis, OpenBLAS, METIS and what they load), which
# the binaries find through their rpath.
#
#   scripts/gpu-host-bundle.sh OUT_DIR    → OUT_DIR/hetplan-gpu-host/ and hetplan-gpu-host.tar.gz
set -euo pipefail

out="${1:?usage: scripts/gpu-host-bundle.sh OUT_DIR}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
bundle="$out/hetplan-gpu-host"
limit_mib=64
multiarch="$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)"
libdir="/usr/lib/$multiarch"

rm -rf "$bundle" "$out/hetplan-gpu-host.tar.gz"
mkdir -p "$bundle/src" "$bundle/deps/include" "$bundle/deps/lib"

# The sources: every tracked file but the tests (the bundle builds programs, not test suites).
git -C "$repo" ls-files -z | grep -zv '^tests/' |
    (cd "$repo" && xargs -0 cp --parents -t "$bundle/src")

# Headers of the Debian packages the runtime compiles against.
cp -r /usr/include/nlohmann /usr/include/gloo /usr/include/hiredis "$bundle/deps/include/"
cp /usr/include/metis.h "$bundle/deps/include/"
cp /usr/include/"$multiarch"/openblas-pthread/{cblas.h,openblas_config.h} "$bundle/deps/include/"

# Shared libraries: each under its soname, plus the unversioned name the linker looks for.
carry() { # PATH [LINK_NAME]
    local real soname
    real="$(readlink -f "$1")"
    soname="$(objdump -p "$real" | awk '/SONAME/ {print $2}')"
    cp "$real" "$bundle/deps/lib/$soname"
    if [ -n "${2:-}" ]; then ln -sf "$soname" "$bundle/deps/lib/$2"; fi
}
carry /usr/lib/libgloo.so libgloo.so
carry "$libdir/libopenblas.so.0" libopenblas.so
carry "$libdir/libmetis.so" libmetis.so
# What those load that a bare host lacks (ldd of each, less the C and C++ runtimes).
for lib in hiredis.so.0.14 ibverbs.so.1 nl-route-3.so.200 nl-3.so.200 gfortran.so.5 quadmath.so.0; do
    carry "$libdir/lib$lib"
done

# CMake packages that point into the bundle wherever it lies.
mkdir -p "$bundle/deps/share/cmake"
cp -r /usr/share/cmake/nlohmann_json "$bundle/deps/share/cmake/"
mkdir -p "$bundle/deps/share/cmake/Gloo" "$bundle/deps/share/cmake/OpenBLAS"
cat >"$bundle/deps/share/cmake/Gloo/GlooConfig.cmake" <<'CMAKE'
# Gloo as the GPU-host bundle carries it: deps/lib/libgloo.so.0, headers in deps/include.
get_filename_component(_deps "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET gloo)
    add_library(gloo SHARED IMPORTED)
    set_target_properties(gloo PROPERTIES
        IMPORTED_LOCATION "${_deps}/lib/libgloo.so.0"
        IMPORTED_SONAME "libgloo.so.0"
        INTERFACE_INCLUDE_DIRECTORIES "${_deps}/include")
endif()
set(Gloo_FOUND TRUE)
CMAKE
cat >"$bundle/deps/share/cmake/OpenBLAS/OpenBLASConfig.cmake" <<'CMAKE'
# OpenBLAS (pthread) as the GPU-host bundle carries it.
get_filename_component(_deps "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(OpenBLAS_INCLUDE_DIRS "${_deps}/include")
set(OpenBLAS_LIBRARIES "${_deps}/lib/libopenblas.so")
set(OpenBLAS_FOUND TRUE)
CMAKE

cat >"$bundle/build.sh" <<'SH'
#!/bin/bash
# Builds hetplan-worker and hetplan-probe from this bundle (docs/gpu-host.md). Needs CUDA with
# nvcc, NCCL (under the CUDA toolkit or NCCL_HOME), CMake ≥ 3.25, ninja and a C++20 compiler.
#   ./build.sh [BUILD_DIR]      extra CMake options in HETPLAN_CMAKE_OPTIONS, other targets in
#                               HETPLAN_BUILD_TARGETS
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/build}"
# /usr is ignored as a package prefix so that nothing of a half-installed Debian package mixes
# with what the bundle carries. DT_RPATH (not RUNPATH) reaches the libraries' own dependencies.
# Warnings stay warnings: the host's compiler is not the one the sources were checked with.
# shellcheck disable=SC2086
cmake -S "$here/src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DHETPLAN_BUILD_APP=OFF -DHETPLAN_BUILD_TESTS=OFF -DHETPLAN_CUDA=ON -DHETPLAN_WERROR=OFF \
    -DCMAKE_PREFIX_PATH="$here/deps" -DCMAKE_IGNORE_PREFIX_PATH=/usr \
    -DCMAKE_EXE_LINKER_FLAGS="-Wl,--disable-new-dtags" ${HETPLAN_CMAKE_OPTIONS:-}
if [ -n "${HETPLAN_BUILD_TARGETS:-}" ]; then
    # shellcheck disable=SC2206
    targets=(${HETPLAN_BUILD_TARGETS})
else
    targets=(hetplan-worker)
    if cmake --build "$build" --target help | grep -q '^hetplan-probe:'; then
        targets+=(hetplan-probe)
    fi
fi
cmake --build "$build" --target "${targets[@]}"
echo "built: ${targets[*]}"
SH
chmod +x "$bundle/build.sh"

tar -C "$out" -czf "$out/hetplan-gpu-host.tar.gz" hetplan-gpu-host
size_mib=$(( $(du -sb "$bundle" | cut -f1) / 1048576 ))
tar_mib=$(( $(stat -c %s "$out/hetplan-gpu-host.tar.gz") / 1048576 ))
if [ "$size_mib" -gt "$limit_mib" ]; then
    echo "gpu-host-bundle: $bundle is $size_mib MiB, over the $limit_mib MiB limit" >&2
    exit 1
fi
echo "gpu-host-bundle: $bundle ($size_mib MiB), $out/hetplan-gpu-host.tar.gz ($tar_mib MiB)"
