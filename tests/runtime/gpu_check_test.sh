#!/bin/bash
# scripts/gpu-check.sh on a machine without a GPU (docs/gpu-host.md#the-gpu-check): it runs end
# to end, every GPU step is in the report as skipped with the reason, the steps that need no GPU
# pass, and the report has the documented layout.
#   gpu_check_test.sh SOURCE_DIR PROGRAMS_DIR WORK_DIR
set -euo pipefail
src="$1" programs="$2" work="$3"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "gpu_check_test: $*" >&2; cat "$work/gpu-check-report.md" >&2 || true; exit 1; }

if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "SKIP: this machine has a GPU; the check runs for real there (make gpu-check)"
    exit 0
fi
"$src/scripts/gpu-check.sh" --programs "$programs" --report-dir "$work" --budget-s 240 \
    >"$work/stdout" 2>&1 || fail "exit status $? (stdout in $work/stdout)"
report="$work/gpu-check-report.md"
[ -s "$report" ] || fail "no report"
[ -s "$work/gpu-check.log" ] || fail "no log"
grep -q '^# HetPlan GPU check' "$report" || fail "no title"
grep -q '^| step | result | seconds |' "$report" || fail "no step table"
grep -q '^## Numbers' "$report" || fail "no Numbers section"
for step in nvidia-smi 'test tst_cuda_model_kernels' 'test tst_gpu_run' 'bench model-gpu' \
    'probe --quick' 'import probe' 'run --backend cuda' 'serve (one replica)'; do
    grep -qF "| $step |" "$report" || fail "no row for step '$step'"
done
# Without a GPU: GPU steps skipped with a reason; the probe and the import ran.
grep -qE '^\| nvidia-smi \| skipped: .{10,}' "$report" || fail "nvidia-smi not skipped with a reason"
grep -qE '^\| test tst_cuda_model_kernels \| skipped: .*CUDA' "$report" ||
    fail "the kernel tests were not skipped with the driver's reason"
grep -qE '^\| probe --quick \| ok \|' "$report" || fail "the probe did not run"
grep -qE '^\| import probe \| ok \|' "$report" || fail "the import did not run"
# Serving: the GPU step skipped with the reason; its dry run on Gloo served, and its figures
# (decode ms/token, prefill tokens/s, the prediction's rows) reached the numbers.
grep -qE '^\| serve \(one replica\) \| skipped: .{10,}' "$report" ||
    fail "the serving step was not skipped with a reason"
grep -qE '^\| serve dry run \(gloo, --scale 32\) \| ok \|' "$report" ||
    fail "the serving step's dry run on Gloo did not run"
grep -qE '^serve measured: decode [0-9.]+ ms/token, prefill [0-9]+ tokens/s' "$report" ||
    fail "no decode and prefill figures from the serving step"
grep -qE '^replica 0 per token +[0-9.]+ [mun]?s ' "$report" ||
    fail "no predicted-beside-measured per-token row from the serving step"
! grep -qE '\| (FAILED|TIMED OUT)' "$report" || fail "a step failed"
echo "gpu-check report: every step present, GPU steps skipped with their reason"
