# Debian package of the CLI and (when built) the desktop app: `cpack -G DEB` in the build folder.
set(CPACK_PACKAGE_NAME "hetplan")
set(CPACK_PACKAGE_VENDOR "HetPlan")
set(CPACK_PACKAGE_CONTACT "HetPlan maintainers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_GENERATOR DEB)
include(CPack)
