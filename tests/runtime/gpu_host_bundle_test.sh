#!/bin/bash
# The GPU-host bundle (scripts/gpu-host-bundle.sh, docs/gpu-host.md) is made within its size
# limit, configures with CMake pointed only at the bundle (the /usr prefix ignored), and compiles
# one source per carried library against the bundle's headers: no Debian package's header is
# read. Every carried shared library finds what it loads in the bundle or in the C/C++ runtime
# every Linux host has. (Linking the worker would take minutes; docs/gpu-host.md says how the
# whole build was checked.)
#   gpu_host_bundle_test.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src="$1"
work="$2"
rm -rf "$work"
mkdir -p "$work"
"$src/scripts/gpu-host-bundle.sh" "$work"
bundle="$work/hetplan-gpu-host"
fail() { echo "FAIL: $*" >&2; exit 1; }

# What the bundle may leave to the host: glibc, the GCC runtime, the loader.
base='^(libc\.so\.6|libm\.so\.6|libstdc\+\+\.so\.6|libgcc_s\.so\.1|ld-linux-x86-64\.so\.2|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1)$'
for lib in "$bundle"/deps/lib/*.so.*; do
    for needed in $(objdump -p "$lib" | awk '/NEEDED/ {print $2}'); do
        if [ ! -e "$bundle/deps/lib/$needed" ] && ! [[ "$needed" =~ $base ]]; then
            fail "$(basename "$lib") needs $needed, which the bundle does not carry"
        fi
    done
done

# Configure as build.sh does, then compile one source per carried library, and NCCL's user
# where this machine has CUDA.
targets="runtime/comm/CMakeFiles/hetplan-comm.dir/rendezvous.cpp.o
runtime/model/CMakeFiles/hetplan-model.dir/blas_gemm.cpp.o
core/CMakeFiles/hetplan-core.dir/planners/metis_partition.cpp.o
core/CMakeFiles/hetplan-core.dir/io/evaluation_json.cpp.o"
cuda=OFF
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
    cuda=ON
    targets="$targets runtime/cuda/CMakeFiles/hetplan-nccl.dir/nccl_setup.cpp.o"
fi
HETPLAN_BUILD_TARGETS="$targets" \
    HETPLAN_CMAKE_OPTIONS="-DHETPLAN_CUDA=$cuda -DHETPLAN_CCACHE=OFF -DCMAKE_CUDA_ARCHITECTURES=80" \
    "$bundle/build.sh" "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "the bundle does not build"; }
grep -q "Gloo_DIR:PATH=$bundle/deps" "$work/build/CMakeCache.txt" || fail "Gloo was not found in the bundle"
deps="$(ninja -C "$work/build" -t deps)"
grep -q "$bundle/deps/include/gloo/" <<<"$deps" || fail "no header was read from the bundle"
if grep -E '^ +/usr/include/(nlohmann|gloo|hiredis|metis\.h|cblas\.h|[a-z0-9_]+-linux-gnu/openblas)' <<<"$deps"; then
    fail "the build read the Debian headers above instead of the bundle's"
fi
echo "PASS: $(du -sh "$bundle" | cut -f1) bundle configures and compiles against itself"
