#!/usr/bin/env bash
# Runs `hetplan-cli compare` on every bundled example with the model its scenario names, under the
# default cost model, and prints one table: example, planner, iteration (or latency) seconds.
# Usage: scripts/compare-examples.sh [CLI]   (default: build/bin/hetplan-cli)
set -euo pipefail
cli=${1:-build/bin/hetplan-cli}
examples=(case-study:llama2-13b hetero-setting-1:llama2-13b hetero-setting-2:llama2-13b
          hetero-setting-3:llama-30b large-cluster:llama2-70b metis-v100-t4:gpt3-6.7b
          holmes-hybrid:gpt3-7.5b hexgen-full-price:llama2-70b hexgen-half-price:llama2-70b)
printf '%-20s %-12s %s\n' example planner result
for e in "${examples[@]}"; do
    cluster=${e%%:*} model=${e#*:}
    "$cli" compare --cluster "$cluster" --model "$model" --json 2>&1 \
        | python3 -c '
import json, sys
name = sys.argv[1]
try:
    doc = json.load(sys.stdin)
except Exception as err:
    print(f"{name:20} (no JSON: {err})"); sys.exit(0)
rows = doc if isinstance(doc, list) else doc.get("results", doc.get("planners", []))
for r in rows:
    est = r.get("estimate") or r.get("evaluation") or {}
    value = est.get("iteration_s", r.get("iteration_s", r.get("error", "?")))
    planner = r.get("planner", "?")
    print(f"{name:20} {planner:12} {value}")
' "$cluster"
done
