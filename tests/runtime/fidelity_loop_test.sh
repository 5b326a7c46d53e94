#!/bin/bash
# The fidelity loop (docs/emulated-cluster.md, "The fidelity loop") as a test: probe -> import ->
# plan -> launch -> calibrate on the runs of `calibrate --design` -> three held-out plans, each
# launched once and predicted within the bounds scripts/fidelity-loop.sh --check holds them to
# (calibrated: the iteration within 15 %, every per-rank phase row within 25 % or 2 ms; the
# probe's figures alone: within 35 %).
#   fidelity_loop_test.sh SOURCE_DIR PROGRAMS_DIR
# Exit 77 (CTest: skipped) only where this is not root or a tool is missing.
set -euo pipefail
((EUID == 0)) || { echo "SKIP: needs root (network namespaces)"; exit 77; }
ip netns add "hpc-check-$$" 2>/dev/null || { echo "SKIP: network namespaces are not permitted here"; exit 77; }
ip netns del "hpc-check-$$"
exec "$1/scripts/fidelity-loop.sh" --programs "$2" --name "f$(($$ % 10000000))" --check
