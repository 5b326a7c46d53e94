# Finds METIS 5 (Debian: libmetis-dev), which ships no CMake config.
# Provides the imported target METIS::METIS. METIS's idx_t is 32-bit in Debian's build.
find_path(METIS_INCLUDE_DIR metis.h PATH_SUFFIXES metis)
find_library(METIS_LIBRARY NAMES metis)

if(METIS_INCLUDE_DIR AND EXISTS "${METIS_INCLUDE_DIR}/metis.h")
    file(STRINGS "${METIS_INCLUDE_DIR}/metis.h" _metis_major REGEX "#define METIS_VER_MAJOR")
    string(REGEX MATCH "[0-9]+" METIS_VERSION_MAJOR "${_metis_major}")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(METIS REQUIRED_VARS METIS_LIBRARY METIS_INCLUDE_DIR)

if(METIS_FOUND AND NOT TARGET METIS::METIS)
    add_library(METIS::METIS UNKNOWN IMPORTED)
    set_target_properties(METIS::METIS PROPERTIES
        IMPORTED_LOCATION "${METIS_LIBRARY}"
        INTERFACE_INCLUDE_DIRECTORIES "${METIS_INCLUDE_DIR}")
endif()
mark_as_advanced(METIS_INCLUDE_DIR METIS_LIBRARY)
