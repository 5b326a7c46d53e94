#!/bin/bash
# Packs the programs scripts/gpu-check.sh runs, for a GPU host that has the NVIDIA stack (driver,
# CUDA runtime, cuBLAS, NCCL) and nothing of the Debian packages (docs/gpu-host.md#the-gpu-check).
# The programs are stripped; every shared library they load that is not the C/C++ runtime or the
# NVIDIA stack travels beside them in lib/.
#
#   scripts/gpu-check-pack.sh BUILD_DIR OUT_DIR   → OUT_DIR/hetplan-gpu-check.tar.xz
set -euo pipefail

build="${1:?usage: scripts/gpu-check-pack.sh BUILD_DIR OUT_DIR}"
out="${2:?usage: scripts/gpu-check-pack.sh BUILD_DIR OUT_DIR}"
limit_mib=64
programs=(hetplan-worker hetplan-probe hetplan-cli gpu-tests hetplan-bench)

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
pack="$stage/hetplan-gpu-check"
mkdir -p "$pack/bin" "$pack/lib" "$out"

for p in "${programs[@]}"; do
    if [ ! -x "$build/bin/$p" ]; then
        echo "gpu-check-pack: $build/bin/$p is missing; build it first (make gpu-check-pack)" >&2
        exit 1
    fi
    strip -o "$pack/bin/$p" "$build/bin/$p"
done

# The host provides these: the C and C++ runtimes and the NVIDIA stack, which must match its
# driver (a carried libcuda or NCCL could not).
host_provides='^(linux-vdso|ld-linux|libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|libcuda|libcudart|libcublas|libcublasLt|libnccl|libnvidia-[a-z-]*)\.so'
for p in "${programs[@]}"; do ldd "$build/bin/$p"; done |
    awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
    while read -r name path; do
        if [[ ! "$name" =~ $host_provides ]]; then
            cp -L "$path" "$pack/lib/$name"
        fi
    done
git -C "$(dirname "$0")/.." describe --always --dirty >"$pack/VERSION" 2>/dev/null || true

size_mib=$(( $(du -sb "$pack" | cut -f1) / 1048576 ))
tar -C "$stage" -cJf "$out/hetplan-gpu-check.tar.xz" hetplan-gpu-check
tar_mib=$(( ($(stat -c %s "$out/hetplan-gpu-check.tar.xz") + 1048575) / 1048576 ))
if [ "$tar_mib" -gt "$limit_mib" ]; then
    echo "gpu-check-pack: $out/hetplan-gpu-check.tar.xz is $tar_mib MiB, over $limit_mib MiB" >&2
    exit 1
fi
echo "gpu-check-pack: $out/hetplan-gpu-check.tar.xz ($tar_mib MiB packed, $size_mib MiB unpacked)"
