# One INTERFACE target that every HetPlan target links: language standard, warnings, defines.
add_library(hetplan_common INTERFACE)
target_compile_features(hetplan_common INTERFACE cxx_std_20)
set(CMAKE_CXX_EXTENSIONS OFF)

# C++ only: nvcc (runtime/cuda) takes neither these flags nor C++20 (docs/gpu-host.md).
set(_hetplan_warnings -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
    -Wcast-align -Woverloaded-virtual -Wnull-dereference -Wimplicit-fallthrough)
if(HETPLAN_WERROR)
    list(APPEND _hetplan_warnings -Werror)
endif()
target_compile_options(hetplan_common INTERFACE "$<$<COMPILE_LANGUAGE:CXX>:${_hetplan_warnings}>")
target_compile_definitions(hetplan_common INTERFACE
    QT_NO_CAST_FROM_ASCII QT_NO_CONTEXTLESS_CONNECT QT_NO_KEYWORDS)
# Checks too slow for a release build: every container index, iterator and front()/back() of
# the standard library is bounds-checked (libstdc++'s assertions, same ABI). The fuzz preset
# turns them on, so an out-of-range index a fuzzer reaches aborts where it happens.
if(HETPLAN_EXPENSIVE_CHECKS)
    target_compile_definitions(hetplan_common INTERFACE _GLIBCXX_ASSERTIONS)
endif()
target_include_directories(hetplan_common INTERFACE "${PROJECT_SOURCE_DIR}"
                                                     "${PROJECT_BINARY_DIR}/generated")
# `#include "base/version.h"`: the version from project(VERSION), one place.
configure_file("${CMAKE_CURRENT_LIST_DIR}/version.h.in"
               "${PROJECT_BINARY_DIR}/generated/base/version.h" @ONLY)

if(HETPLAN_FUZZ)
    set(HETPLAN_FUZZ_FLAGS -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
    target_compile_options(hetplan_common INTERFACE ${HETPLAN_FUZZ_FLAGS})
    target_link_options(hetplan_common INTERFACE -fsanitize=address,undefined)
endif()
