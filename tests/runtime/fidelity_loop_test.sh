#!/bin/bash
# The fidelity loop (docs/emulated-cluster.md, "The fidelity loop") as a test: probe -> import
# (every link within 15 % of its shaped rate) -> plan -> launch -> calibrate on the runs of
# `calibrate --design` -> three held-out plans, each launched once, on hosts with CPU budgets of
# their own. Fails unless every held-out plan's iteration is predicted within 35 % from the
# probe's figures alone and within 15 % calibrated (scripts/fidelity-loop.sh
# --check-iterations). Printed beside their bounds, not held (docs/emulated-cluster.md, "What
# it measured"): the per-rank phase rows (waits that are differences of two ranks' compute, and
# hops whose time one side of an exchange sees as waiting).
#   fidelity_loop_test.sh SOURCE_DIR PROGRAMS_DIR
# Exit 77 (CTest: skipped) only where this is not root or a tool is missing.
set -euo pipefail
((EUID == 0)) || { echo "SKIP: needs root (network namespaces)"; exit 77; }
ip netns add "hpc-check-$$" 2>/dev/null || { echo "SKIP: network namespaces are not permitted here"; exit 77; }
ip netns del "hpc-check-$$"
exec "$1/scripts/fidelity-loop.sh" --programs "$2" --name "f$(($$ % 10000000))" --check-iterations
