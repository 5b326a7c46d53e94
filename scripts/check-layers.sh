#!/usr/bin/env bash
# Fails when an #include crosses a layer the wrong way (docs/architecture.md, "Layers"):
#   - core/ and runtime/ include no Qt header and nothing from app/;
#   - core/ includes nothing from runtime/; core/io includes nothing from core/import;
#   - app/ and runtime/ include only core's public headers: a planner's own folder
#     (core/planners/<name>/) is public only through its <name>_planner.h, and the cost model's
#     terms and helpers are reached through core/cost/cost_model.h;
#   - core/io's JSON helpers are internal to core/io; the importer's evidence, line splitting and per-tool log
#     readers are internal to core/import.
# Tests may include anything. Usage: scripts/check-layers.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# The headers of core/ that only core/ (and tests) may include.
internal='core/planners/[a-z_]+/[a-z_]+\.h|core/planners/(metis_partition|closest_fit|search_reporter)\.h'
internal+='|core/cost/(cost_helpers|stage_query|stage_terms|hetplan_terms|hetplan_comm)\.h'
internal+='|core/cost/(paper_formulas|hexgen_paper|hexiscale_paper)\.h'
public_planner='core/planners/([a-z_]+)/\1_planner\.h'

# The headers of one core folder that only the folders named beside them (and tests) may include.
io_internal='core/io/(json_util|format_objects)\.h'
io_users='core/io/'
import_internal='core/import/(import_evidence|text_lines|nccl_tests|nvbandwidth)\.h'
import_users='core/import/'


failures=0
report() { # file:line:text, rule
    echo "  $1"
    echo "    -> $2"
    failures=$((failures + 1))
}

includes() { # folder... : every '#include' line as file:line:text
    git ls-files -- "${@/%//*.h}" "${@/%//*.cpp}" "${@/%//*.cu}" | sort -u | xargs -r grep -nH '^[[:space:]]*#[[:space:]]*include' || true
}

while IFS= read -r line; do
    [[ $line =~ include[[:space:]]*[\<\"]([^\>\"]+) ]] || continue
    target=${BASH_REMATCH[1]}
    file=${line%%:*}
    case $file in
    core/* | runtime/*)
        [[ $target =~ ^Q[A-Za-z]*(/|$) || $target =~ ^Qt ]] &&
            report "$line" "core/ and runtime/ are Qt-free (docs/architecture.md)"
        [[ $target == app/* ]] && report "$line" "core/ and runtime/ never include app/"
        ;;
    esac
    [[ $file == core/* && $target == runtime/* ]] &&
        report "$line" "core/ never includes runtime/"
    [[ $file == core/io/* && $target == core/import/* ]] &&
        report "$line" "core/import reads through core/io, never the reverse"
    if [[ $file == app/* || $file == runtime/* ]] && [[ $target =~ ^($internal)$ ]] &&
        ! [[ $target =~ ^$public_planner$ ]]; then
        report "$line" "$target is internal to core/; use the planner's front header or core/cost/cost_model.h"
    fi
    [[ $target =~ ^($io_internal)$ && ! $file =~ ^$io_users ]] &&
        report "$line" "$target is internal to core/io; use core/io/formats.h or another public reader"
    [[ $target =~ ^($import_internal)$ && ! $file =~ ^$import_users ]] &&
        report "$line" "$target is internal to core/import; use core/import/import.h"
done < <(includes core runtime app)

if ((failures)); then
    echo "$failures include(s) cross a layer the wrong way (docs/architecture.md, \"Layers\")"
    exit 1
fi
echo "layers: every include in core/, runtime/ and app/ points the right way"
