# Precompiled headers: Qt's headers, which most of the app's and the tests' translation units
# spend most of their time parsing, compiled once per target instead of once per file
# (docs/building.md, "Build time"). Only headers outside the project, so editing a project header
# never rebuilds a precompiled one. The core, the runtime and the CLI take none: their files spend
# their time generating code, and loading a large precompiled header made them slower.
#
# ccache caches objects compiled with a precompiled header only under the sloppiness the Makefile
# exports (CCACHE_SLOPPINESS).
option(HETPLAN_PCH "Compile with precompiled headers" ON)

# The app and its tests: Qt Widgets and QCustomPlot (through the project's wrapper, which spells
# out the Qt keywords QCustomPlot needs).
set(HETPLAN_GUI_PCH <QtWidgets> "${PROJECT_SOURCE_DIR}/app/gui/results/qcustomplot_include.h"
    <algorithm> <functional> <map> <memory> <optional> <string> <vector>)

# target_precompile_headers(target PRIVATE headers...) when HETPLAN_PCH is on.
function(hetplan_precompile target)
    if(HETPLAN_PCH)
        target_precompile_headers(${target} PRIVATE ${ARGN})
    endif()
endfunction()
