#!/usr/bin/env bash
# Fails when an #include crosses a layer the wrong way (docs/architecture.md, "Layers"):
#   - core/ and runtime/ include no Qt header and nothing from app/;
#   - core/ includes nothing from runtime/; core/io includes nothing from core/import;
#   - app/ and runtime/ include only core's public headers: a planner's own folder
#     (core/planners/<name>/) is public only through its <name>_planner.h, and the cost model's
#     terms, driver and helpers are reached through core/cost/cost_model.h;
#   - core/io's JSON helpers are internal to core/io (and core/catalog, which reads its bundled
#     files with io's object readers); the importer's evidence, line splitting and per-tool log
#     readers are internal to core/import.
# Tests may include anything. Usage: scripts/check-layers.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# The headers of core/ that only core/ (and tests) may include.
internal='core/planners/[a-z_]+/[a-z_]+\.h|core/planners/(metis_partition|closest_fit|search_reporter)\.h'
internal+='|core/cost/(cost_driver|cost_helpers|stage_query|stage_terms|hetplan_terms|terms_model)\.h'
internal+='|core/cost/(hetplan_comm|hetplan_model|paper_formulas|paper_model|hexgen_paper|hexiscale_paper)\.h'
public_planner='core/planners/([a-z_]+)/\1_planner\.h'

# The headers of one core folder that only the folders named beside them (and tests) may include.
io_internal='core/io/(json_util|format_objects)\.h'
io_users='core/(io|catalog)/'
import_internal='core/import/(import_evidence|text_lines|nccl_tests|nvbandwidth)\.h'
import_users='core/import/'

# Known includes of an internal header, each with the reason it is still there. The project file
# is read in app/ with io's JSON helpers until its reader is one of core/io's formats.
exceptions=('app/gui/model/project.cpp:core/io/format_objects.h')

failures=0
used_exceptions=()
report() { # file:line:text, rule
    local file=${1%%:*} target=$3
    for exception in "${exceptions[@]}"; do
        if [[ $exception == "$file:$target" ]]; then
            used_exceptions+=("$exception")
            return
        fi
    done
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
            report "$line" "core/ and runtime/ are Qt-free (docs/architecture.md)" "$target"
        [[ $target == app/* ]] && report "$line" "core/ and runtime/ never include app/" "$target"
        ;;
    esac
    [[ $file == core/* && $target == runtime/* ]] &&
        report "$line" "core/ never includes runtime/" "$target"
    [[ $file == core/io/* && $target == core/import/* ]] &&
        report "$line" "core/import reads through core/io, never the reverse" "$target"
    if [[ $file == app/* || $file == runtime/* ]] && [[ $target =~ ^($internal)$ ]] &&
        ! [[ $target =~ ^$public_planner$ ]]; then
        report "$line" "$target is internal to core/; use the planner's front header or core/cost/cost_model.h" "$target"
    fi
    [[ $target =~ ^($io_internal)$ && ! $file =~ ^$io_users ]] &&
        report "$line" "$target is internal to core/io; use core/io/formats.h or another public reader" "$target"
    [[ $target =~ ^($import_internal)$ && ! $file =~ ^$import_users ]] &&
        report "$line" "$target is internal to core/import; use core/import/import.h" "$target"
done < <(includes core runtime app)

for exception in "${exceptions[@]}"; do
    [[ " ${used_exceptions[*]} " == *" $exception "* ]] ||
        echo "note: the exception $exception is no longer needed; drop it from $0"
done
if ((failures)); then
    echo "$failures include(s) cross a layer the wrong way (docs/architecture.md, \"Layers\")"
    exit 1
fi
echo "layers: every include in core/, runtime/ and app/ points the right way"
