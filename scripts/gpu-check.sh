#!/bin/bash
# The GPU check (docs/gpu-host.md#the-gpu-check): on a GPU host, one run that proves the GPU path
# and writes one report. Each step has its own time limit and the whole run a budget; a step that
# hangs is stopped and the report says so. Where no GPU is usable, the GPU steps are skipped with
# the reason and the rest still runs.
#
#   scripts/gpu-check.sh [--programs DIR | --pack FILE.tar.xz] [--report-dir DIR]
#                        [--budget-s S] [--layers N]
#
# --programs DIR   a folder with the programs (default: build/bin of this checkout)
# --pack FILE      the archive scripts/gpu-check-pack.sh made: unpacked and used instead
# --report-dir DIR where gpu-check-report.md and gpu-check.log go (default: build/gpu-check)
# --budget-s S     the whole run's time budget in seconds (default 480)
# --layers N       at most this many Llama-2 7B layers in the one-GPU runs (default 32;
#                  fewer where the cost model's memory check says they do not fit)
set -uo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
programs="$repo/build/bin"
pack=""
report_dir="$repo/build/gpu-check"
budget_s=480
layers=32

while [ $# -gt 0 ]; do
    case "$1" in
    --programs) programs="$2"; shift 2 ;;
    --pack) pack="$2"; shift 2 ;;
    --report-dir) report_dir="$2"; shift 2 ;;
    --budget-s) budget_s="$2"; shift 2 ;;
    --layers) layers="$2"; shift 2 ;;
    *) echo "gpu-check: unknown option '$1' (see the header of $0)" >&2; exit 2 ;;
    esac
done
case "$budget_s$layers" in *[!0-9]*) echo "gpu-check: --budget-s and --layers take whole numbers" >&2; exit 2 ;; esac

start_s=$SECONDS
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$report_dir"
report="$report_dir/gpu-check-report.md"
log="$report_dir/gpu-check.log"
: >"$log"
rows="$work/rows"
numbers="$work/numbers"
: >"$rows"
: >"$numbers"

if [ -n "$pack" ]; then
    tar -C "$work" -xJf "$pack" || { echo "gpu-check: cannot unpack $pack" >&2; exit 2; }
    programs="$work/hetplan-gpu-check/bin"
fi
programs="$(cd "$programs" && pwd)" || exit 2
for p in hetplan-worker hetplan-probe hetplan-cli gpu-tests hetplan-bench; do
    [ -x "$programs/$p" ] || { echo "gpu-check: $programs/$p is missing" >&2; exit 2; }
done

# Libraries: the carried ones, then the NVIDIA stack wherever this host keeps it (the CUDA
# toolkit, the system, or the NVIDIA wheels of a Python environment).
lib_path="$(dirname "$programs")/lib"
for dir in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib \
    /usr/lib/x86_64-linux-gnu /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do
    [ -d "$dir" ] && lib_path="$lib_path:$dir"
done
for lib in libnccl.so.2 libcublas.so.13 libcudart.so.13; do
    if ! ldconfig -p 2>/dev/null | grep -q "$lib" && ! ls ${lib_path//:/ } 2>/dev/null | grep -qx "$lib"; then
        found="$(find / -xdev -name "$lib" -path '*nvidia*' 2>/dev/null | head -1)"
        [ -n "$found" ] && lib_path="$lib_path:$(dirname "$found")"
    fi
done
export LD_LIBRARY_PATH="$lib_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export HETPLAN_TEST_SOURCE_DIR="$repo"
export PATH="$PATH:/usr/local/cuda/bin"

# The GPU, or why there is none.
gpu_reason=""
if ! command -v nvidia-smi >/dev/null; then
    gpu_reason="nvidia-smi is not installed (no NVIDIA driver)"
elif ! nvidia-smi -L >"$work/smi-l" 2>&1 || ! grep -q '^GPU ' "$work/smi-l"; then
    gpu_reason="nvidia-smi lists no GPU: $(head -1 "$work/smi-l")"
fi

left_s() { echo $((budget_s - (SECONDS - start_s))); }

# step NAME LIMIT_S COMMAND... : runs COMMAND with LIMIT_S (less if the budget is shorter),
# appends its output to the log and a row to the report.
step() {
    local name="$1" limit="$2"
    shift 2
    local left
    left="$(left_s)"
    if [ "$left" -lt 15 ]; then
        skip "$name" "the run's budget of ${budget_s} s is spent"
        return 1
    fi
    [ "$limit" -gt $((left - 5)) ] && limit=$((left - 5))
    local t0=$SECONDS rc
    { echo; echo "=== $name (limit ${limit} s): $*"; } >>"$log"
    timeout -k 10 "$limit" "$@" >"$work/out" 2>&1
    rc=$?
    cat "$work/out" >>"$log"
    local took=$((SECONDS - t0)) result
    case $rc in
    0) result="ok" ;;
    124 | 137) result="TIMED OUT after ${limit} s" ;;
    *) result="FAILED (exit $rc)" ;;
    esac
    if [ $rc -eq 0 ] && grep -q '^SKIP' "$work/out"; then
        result="skipped: $(grep -m1 '^SKIP' "$work/out" | sed 's/^SKIP *: *//' | cut -c1-160)"
    fi
    printf '| %s | %s | %d |\n' "$name" "$result" "$took" >>"$rows"
    { echo; echo "### $name: $result"; echo '```'; tail -n 25 "$work/out"; echo '```'; } >>"$work/tails"
    return $rc
}

skip() { printf '| %s | skipped: %s | 0 |\n' "$1" "$2" >>"$rows"; }
gpu_step() { # NAME LIMIT COMMAND...: a step that needs the GPU
    if [ -n "$gpu_reason" ]; then skip "$1" "$gpu_reason"; return 1; fi
    step "$@"
}

# 1. The GPU and its links.
gpu_step nvidia-smi 20 nvidia-smi
gpu_step "nvidia-smi topo -m" 20 nvidia-smi topo -m
step libraries 20 bash -c "! ldd '$programs'/* | grep -B1 'not found'"

# 2. The gpu-labelled tests (each skips itself without a usable device).
# Every test the program holds (it lists them when run without one), the kernels first.
gpu_tests="$("$programs/gpu-tests" 2>&1 | sed -n 's/^tests: //p')"
done_tests=""
for t in tst_gpu_device tst_cuda_model_kernels $gpu_tests; do
    case " $done_tests " in *" $t "*) continue ;; esac
    done_tests="$done_tests $t"
    step "test $t" 120 "$programs/gpu-tests" "$t"
done

# 3. The sanitizers over the kernel tests and the serving shard's kernels.
if command -v compute-sanitizer >/dev/null; then
    for tool in memcheck racecheck; do
        gpu_step "compute-sanitizer $tool" 150 compute-sanitizer --tool "$tool" \
            --error-exitcode 3 "$programs/gpu-tests" tst_cuda_model_kernels
        # The serving kernels (decode attention against the KV cache) on one small stage.
        gpu_step "compute-sanitizer $tool (serving)" 60 compute-sanitizer --tool "$tool" \
            --error-exitcode 3 "$programs/gpu-tests" tst_cuda_serve oneStageMatchesTheReference
    done
else
    skip "compute-sanitizer" "compute-sanitizer is not installed"
fi

# 4. Per-layer forward + backward at Llama-2 7B and 70B shapes.
gpu_step "bench model-gpu" 150 "$programs/hetplan-bench" model-gpu &&
    grep -E 'layer|GEMM' "$work/out" >>"$numbers"

# 5. The probe, imported as a cluster.
if step "probe --quick" 120 "$programs/hetplan-probe" --quick --host-name gpu-check \
    --out "$work/probe.json"; then
    grep -E 'GEMM|memory|bandwidth|GPU' "$work/out" | head -20 >>"$numbers"
    # The layer the probe timed on each GPU, and one layer measured beside the `hetplan` GEMM
    # model's prediction for its shape (tst_probe_gpu_layer in step 2; docs/probe.md#the-layer).
    grep -E 'layer of|optimizer .* ns/param' "$work/out" | head -8 >>"$numbers"
    grep -hoE '[^ ]+: measured [0-9.]+ ms, GEMM model .*' "$log" | head -1 >>"$numbers"
    step "import probe" 20 "$programs/hetplan-cli" import "$work/probe.json" \
        --out "$work/cluster.json" --report -
fi

# 6. One rank trains Llama-2 7B's first layers, as many as the model says fit (at most
# --layers), with 4 micro-batches; `calibrate` fits the cluster to that run; a second run, half the
# layers and 8 micro-batches, is then predicted by the calibrated cluster (docs/calibration.md).
write_model() { # NAME LAYERS: Llama-2 7B's first LAYERS layers
    cat >"$work/$1.model.json" <<JSON
{"format": "hetplan.model/1", "name": "llama2-7b-$2l", "layers": $2,
 "hidden": 4096, "ffn_hidden": 11008, "heads": 32, "kv_heads": 32, "vocab": 32000,
 "max_seq_len": 4096, "mlp": "swiglu"}
JSON
}
write_case() { # NAME LAYERS MICRO_BATCHES
    write_model "$1" "$2"
    cat >"$work/$1.plan.json" <<JSON
{"format": "hetplan.plan/1", "planner": "hand", "cost_model": "hetplan",
 "cluster": "imported", "model": "llama2-7b-$2l",
 "workload": {"mode": "train", "global_batch": $3, "micro_batch": 1, "seq_len": 4096,
              "precision": "bf16", "recompute": false},
 "pipelines": [{"micro_batch": 1, "micro_batches": $3,
   "stages": [{"gpus": ["gpu-check:0"], "layers": [0, $2]}]}]}
JSON
}
fits() { # NAME: the model's memory check passes on the probed GPU
    "$programs/hetplan-cli" evaluate --plan "$work/$1.plan.json" --cluster "$work/cluster.json" \
        --model "$work/$1.model.json" >/dev/null 2>&1
}
run_case() { # NAME CLUSTER: trains 3 iterations, then the prediction beside the measurement
    step "run $1 --backend cuda ($(grep -o '"layers": [0-9]*' "$work/$1.model.json" | head -1))" 200 \
        "$programs/hetplan-cli" run --plan "$work/$1.plan.json" --cluster "$work/cluster.json" \
        --model "$work/$1.model.json" --iterations 3 --backend cuda --timeout-s 180 \
        --out "$work/$1.measured.json" || return 1
    cp "$work/$1.measured.json" "$report_dir/gpu-check-$1.measured.json"
    step "evaluate $1 --measured ($(basename "$2"))" 30 "$programs/hetplan-cli" evaluate \
        --plan "$work/$1.plan.json" --cluster "$2" --model "$work/$1.model.json" \
        --measured "$work/$1.measured.json" &&
        { echo "$1 on $(basename "$2"):"; sed -n '/predicted beside measured/,$p' "$work/out"; } >>"$numbers"
}
if [ -z "$gpu_reason" ] && [ -f "$work/cluster.json" ]; then
    fitted=$layers
    while [ "$fitted" -gt 1 ]; do
        write_case fit "$fitted" 4
        fits fit && break
        fitted=$((fitted - 1))
    done
    write_case calibration "$fitted" 4
    write_case check $(((fitted + 1) / 2)) 8
    if run_case calibration "$work/cluster.json" &&
        step "calibrate" 60 "$programs/hetplan-cli" calibrate --cluster "$work/cluster.json" \
            --measured "$work/calibration.measured.json" --plan "$work/calibration.plan.json" \
            --model "$work/calibration.model.json" --out "$work/calibrated.json"; then
        grep -iE 'achieved|fraction|residual' "$work/out" | head -8 >>"$numbers"
        run_case check "$work/calibrated.json"
    fi
else
    skip "run --backend cuda" "${gpu_reason:-the probe gave no cluster}"
fi
[ -f "$work/probe.json" ] && cp "$work/probe.json" "$report_dir/gpu-check-probe.json"

# 7. Serving (docs/runtime.md#serving-runs): one replica of one stage serves a short Poisson
# stream of Llama-2 7B requests (512 prompt tokens, 64 output, batch 1) with as many layers as
# the model says fit (at most --layers); `run` prints the serving simulator's prefill and per-token
# time beside the measured ones, and the numbers get decode ms/token and prefill tokens/s beside
# the prediction. Without a GPU the same commands run on --backend gloo at --scale 32 with two
# layers (a dry run of this step's files and parsing; its figures mean nothing).
write_serve_case() { # LAYERS CLUSTER_NAME GPU
    write_model serve "$1"
    cat >"$work/serve.plan.json" <<JSON
{"format": "hetplan.plan/1", "planner": "hand", "cost_model": "hetplan",
 "cluster": "$2", "model": "llama2-7b-$1l",
 "workload": {"mode": "infer", "prompt_len": 512, "output_len": 64, "request_rate": 2,
              "batch": 1, "precision": "bf16"},
 "pipelines": [{"micro_batch": 1, "micro_batches": 1,
   "stages": [{"gpus": ["$3"], "layers": [0, $1]}]}]}
JSON
}
# serve_case NAME CLUSTER BACKEND SCALE: serves 8 requests, then the figures into the numbers.
serve_case() {
    mkdir -p "$work/serve-out"
    step "$1" 150 "$programs/hetplan-cli" run --plan "$work/serve.plan.json" --cluster "$2" \
        --model "$work/serve.model.json" --backend "$3" --scale "$4" --requests 8 --seed 1 \
        --timeout-s 120 --out "$work/serve-out" || return 1
    local measured="$work/serve-out/serving-measurement.json"
    {
        echo "$1:"
        grep -E '^(replica 0 (prefill|per token)|per output token p50|time to first token p50) ' \
            "$work/out"
        figure() { grep -o "\"$1\": *[0-9.eE+-]*" "$measured" | head -1 | sed 's/.*: *//'; }
        awk -v prefill="$(figure mean_prefill_s)" -v tpot="$(figure mean_tpot_s)" \
            -v prompt=$((512 / $4)) 'BEGIN {
                if (prefill > 0 && tpot > 0)
                    printf "serve measured: decode %.2f ms/token, prefill %.0f tokens/s (%d-token prompts)\n",
                        tpot * 1000, prompt / prefill, prompt
                else print "serve measured: no prefill or per-token figure in the measurement" }'
    } >>"$numbers"
    cp "$measured" "$report_dir/gpu-check-serve.measured.json" 2>/dev/null
    return 0
}
if [ -z "$gpu_reason" ] && [ -f "$work/cluster.json" ]; then
    served=$layers
    while [ "$served" -gt 1 ]; do
        write_serve_case "$served" imported gpu-check:0
        "$programs/hetplan-cli" evaluate --plan "$work/serve.plan.json" \
            --cluster "$work/cluster.json" --model "$work/serve.model.json" >/dev/null 2>&1 && break
        served=$((served - 1))
    done
    serve_case "serve (one replica)" "$work/cluster.json" cuda 1
else
    skip "serve (one replica)" "${gpu_reason:-the probe gave no cluster}"
    write_serve_case 2 case-study A:0
    serve_case "serve dry run (gloo, --scale 32)" case-study gloo 32
fi

{
    echo "# HetPlan GPU check"
    echo
    echo "- version: $(cat "$(dirname "$programs")/VERSION" 2>/dev/null || git -C "$repo" describe --always --dirty 2>/dev/null)"
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- GPU: ${gpu_reason:-$(nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null | head -1)}"
    echo "- total: $((SECONDS - start_s)) s of a ${budget_s} s budget"
    echo
    echo "| step | result | seconds |"
    echo "|---|---|---|"
    cat "$rows"
    echo
    echo "## Numbers"
    echo '```'
    cat "$numbers"
    echo '```'
    echo
    echo "## Step outputs (last 25 lines each; the whole output is in gpu-check.log)"
    cat "$work/tails" 2>/dev/null
} >"$report"
echo "gpu-check: wrote $report"
sed -n '1,/^## Numbers/p' "$report"
! grep -qE '\| (FAILED|TIMED OUT)' "$rows"
