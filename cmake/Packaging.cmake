# Debian packages, one per component (packaging/CMakeLists.txt assigns the files):
# `make package`, or `cpack` in the build folder. Depends come from the binaries
# (dpkg-shlibdeps) plus what the app loads at run time without linking it.
set(HETPLAN_HOMEPAGE "https://hetplan.org")
set(HETPLAN_MAINTAINER "HetPlan maintainers <maintainers@hetplan.org>")
add_subdirectory(packaging)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME "hetplan")
set(CPACK_PACKAGE_VENDOR "HetPlan")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
# Empty: each package has its own summary, the first line of its description below (CPack
# would otherwise put this one above every package's).
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
get_property(CPACK_COMPONENTS_ALL GLOBAL PROPERTY HETPLAN_PACKAGES)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${HETPLAN_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${HETPLAN_HOMEPAGE}")
set(CPACK_DEBIAN_PACKAGE_SOURCE "hetplan")
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE "xz")
# Directories 0755 and files 0644/0755 whatever the umask of the person building.
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

foreach(_package IN LISTS CPACK_COMPONENTS_ALL)
    string(TOUPPER "${_package}" _upper)
    set(CPACK_DEBIAN_${_upper}_PACKAGE_NAME "${_package}")
endforeach()

# A package's description: its summary line, then the extended text (CPack indents it).
set(CPACK_COMPONENT_HETPLAN-CLI_DESCRIPTION
    "plan parallel LLM training and serving on heterogeneous GPUs (CLI)
hetplan-cli searches for asymmetric parallel plans for training and serving
large language models on mixed GPU fleets (several pipelines with their own
stages, tensor-parallel degrees and layers), evaluates them with a named cost
model and explains where the time goes. The GPU and model catalogs and the
example clusters are built in. It needs no Qt: for scripts, CI and servers.")
set(CPACK_COMPONENT_HETPLAN_DESCRIPTION
    "plan parallel LLM training and serving on heterogeneous GPUs (desktop app)
HetPlan is a desktop app to draw a heterogeneous GPU cluster, plan how to
train or serve a large language model on it, and see the plan, where the
iteration time goes, memory per GPU and the 1F1B timeline. What-if sliders
re-evaluate the plan as link bandwidths change; planners from the HexiScale,
Metis, HexGen and Holmes papers can be compared on the same cluster.")
set(CPACK_COMPONENT_HETPLAN-RUNTIME_DESCRIPTION
    "run HetPlan plans on GPU and CPU hosts
hetplan-worker runs one rank of a HetPlan training plan and measures where its
time goes; hetplan-probe measures a host's GPUs and links. A GPU host needs
this package only, without Qt. CUDA and NCCL are used from the host where the
programs were built with them.")

# Loaded by the app at run time, so shlibdeps cannot see them: the platform plugins beyond
# xcb and offscreen (which come with libqt6gui6). The SVG icon engine comes with libqt6svg6,
# which shlibdeps adds because the app links QtSvg.
set(CPACK_DEBIAN_HETPLAN_PACKAGE_DEPENDS "qt6-qpa-plugins")
# The same planning from scripts; Qt's own translated strings (standard buttons, file dialogs)
# for the Chinese UI; the native Wayland platform (without it Qt uses XWayland).
set(CPACK_DEBIAN_HETPLAN_PACKAGE_RECOMMENDS "hetplan-cli, qt6-translations-l10n, qt6-wayland")
if(TARGET hetplan-worker)
    # `hetplan-cli run` starts hetplan-worker from the folder hetplan-cli is in.
    set(CPACK_DEBIAN_HETPLAN-CLI_PACKAGE_RECOMMENDS "hetplan-runtime")
endif()

include(CPack)
