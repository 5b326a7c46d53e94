# The GPU backend (runtime/cuda) and the probe's GPU half: CUDA, cuBLAS and NCCL.
#
# HETPLAN_CUDA: ON needs nvcc and NCCL; AUTO (the default) builds them when nvcc is found at
# CMAKE_CUDA_COMPILER, on PATH or under /usr/local/cuda, and says so when it is not; OFF never.
# Nothing here needs a GPU: a machine without one builds everything, and the GPU tests skip.
set(HETPLAN_CUDA "AUTO" CACHE STRING "Build the CUDA/NCCL backend: ON, OFF or AUTO")
set_property(CACHE HETPLAN_CUDA PROPERTY STRINGS ON OFF AUTO)
# Architectures, pinned (`native` needs a GPU at configure time). `all`, for packages: 80 (A100,
# A800), 86 (RTX 30xx), 89 (RTX 40xx, L40) and 90 (H100, H200), with PTX for 90 so newer GPUs
# JIT-compile it. `one`, for test builds: the architecture of this machine's first GPU, or 90
# (the GPU the project's checks run on) where there is none; a quarter of the compile time.
set(HETPLAN_CUDA_ARCHITECTURES "all" CACHE STRING
    "CUDA architectures: all (packages), one (this machine's GPU, else 90) or a CMake list")
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    if(HETPLAN_CUDA_ARCHITECTURES STREQUAL "all")
        set(CMAKE_CUDA_ARCHITECTURES "80-real;86-real;89-real;90")
    elseif(HETPLAN_CUDA_ARCHITECTURES STREQUAL "one")
        set(CMAKE_CUDA_ARCHITECTURES 90)
        find_program(_hetplan_nvidia_smi nvidia-smi)
        if(_hetplan_nvidia_smi)
            execute_process(COMMAND "${_hetplan_nvidia_smi}" --query-gpu=compute_cap
                                    --format=csv,noheader
                            OUTPUT_VARIABLE _hetplan_cap RESULT_VARIABLE _hetplan_smi_result
                            ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 20)
            string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" _hetplan_cap_match "${_hetplan_cap}")
            if(_hetplan_smi_result EQUAL 0 AND _hetplan_cap_match)
                set(CMAKE_CUDA_ARCHITECTURES "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
            endif()
        endif()
    else()
        set(CMAKE_CUDA_ARCHITECTURES "${HETPLAN_CUDA_ARCHITECTURES}")
    endif()
endif()

set(HETPLAN_HAVE_CUDA OFF)
if(NOT HETPLAN_CUDA STREQUAL "OFF")
    if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
        find_program(_hetplan_nvcc nvcc HINTS /usr/local/cuda/bin)
        if(_hetplan_nvcc)
            set(CMAKE_CUDA_COMPILER "${_hetplan_nvcc}")
        endif()
    endif()
    include(CheckLanguage)
    check_language(CUDA)
    if(CMAKE_CUDA_COMPILER)
        enable_language(CUDA)
        find_package(CUDAToolkit REQUIRED)
        find_path(HETPLAN_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} ENV NCCL_HOME
                  PATH_SUFFIXES include)
        find_library(HETPLAN_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} ENV NCCL_HOME
                     PATH_SUFFIXES lib lib64)
        if(HETPLAN_NCCL_INCLUDE_DIR AND HETPLAN_NCCL_LIBRARY)
            set(HETPLAN_HAVE_CUDA ON)
        elseif(HETPLAN_CUDA STREQUAL "ON")
            message(FATAL_ERROR "HETPLAN_CUDA=ON but NCCL was not found (nccl.h and libnccl); "
                                "set NCCL_HOME or install NCCL")
        endif()
    elseif(HETPLAN_CUDA STREQUAL "ON")
        message(FATAL_ERROR "HETPLAN_CUDA=ON but no CUDA compiler was found; "
                            "set CMAKE_CUDA_COMPILER or put nvcc on PATH")
    endif()
endif()

if(HETPLAN_HAVE_CUDA)
    message(STATUS "GPU backend: CUDA ${CUDAToolkit_VERSION}, NCCL ${HETPLAN_NCCL_LIBRARY}, "
                   "architectures ${CMAKE_CUDA_ARCHITECTURES}")
    # CMake 3.25 cannot ask for C++20 in CUDA; nvcc 12+ accepts it, so .cu files may include
    # the core's headers. -Xcompiler passes warnings to the host compiler.
    set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -std=c++20 --expt-relaxed-constexpr")
    if(HETPLAN_CCACHE_PROGRAM AND NOT CMAKE_CUDA_COMPILER_LAUNCHER)
        set(CMAKE_CUDA_COMPILER_LAUNCHER "${HETPLAN_CCACHE_PROGRAM}")
    endif()
    add_library(hetplan::nccl UNKNOWN IMPORTED)
    set_target_properties(hetplan::nccl PROPERTIES
        IMPORTED_LOCATION "${HETPLAN_NCCL_LIBRARY}"
        INTERFACE_INCLUDE_DIRECTORIES "${HETPLAN_NCCL_INCLUDE_DIR}")
else()
    message(STATUS "GPU backend: not built (HETPLAN_CUDA=${HETPLAN_CUDA}; no nvcc or NCCL found)")
endif()
