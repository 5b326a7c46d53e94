# The desktop app's integration with the desktop, installed with the hetplan package: a menu
# entry that opens .hetplan.json projects and .cluster.json files, the icon at every size a
# menu asks for, the MIME types behind the double-click, and the AppStream metainfo software
# centres show. The IDs follow the reverse-DNS of the homepage (HETPLAN_HOMEPAGE).
set(_share "${CMAKE_INSTALL_DATADIR}")
set(_icon_svg "${PROJECT_SOURCE_DIR}/resources/icons/hetplan.svg")

install(FILES "${HETPLAN_APP_ID}.desktop" DESTINATION "${_share}/applications" COMPONENT hetplan)
install(FILES "${HETPLAN_APP_ID}.mime.xml" RENAME "${HETPLAN_APP_ID}.xml"
        DESTINATION "${_share}/mime/packages" COMPONENT hetplan)
configure_file("${HETPLAN_APP_ID}.metainfo.xml.in" "${_gen}/${HETPLAN_APP_ID}.metainfo.xml" @ONLY)
install(FILES "${_gen}/${HETPLAN_APP_ID}.metainfo.xml" DESTINATION "${_share}/metainfo"
        COMPONENT hetplan)

# Icons: the SVG for scalable themes, PNGs rendered from it for menus that want bitmaps.
set(_icons "${_share}/icons/hicolor")
install(FILES "${_icon_svg}" RENAME "${HETPLAN_APP_ID}.svg" DESTINATION "${_icons}/scalable/apps"
        COMPONENT hetplan)
find_program(HETPLAN_RSVG_CONVERT rsvg-convert REQUIRED) # Debian: librsvg2-bin
set(_pngs "")
foreach(_px 16 24 32 48 64 128 256)
    set(_png "${_gen}/icons/${_px}/${HETPLAN_APP_ID}.png")
    add_custom_command(OUTPUT "${_png}"
        COMMAND "${CMAKE_COMMAND}" -E make_directory "${_gen}/icons/${_px}"
        COMMAND "${HETPLAN_RSVG_CONVERT}" -w ${_px} -h ${_px} -o "${_png}" "${_icon_svg}"
        DEPENDS "${_icon_svg}"
        VERBATIM)
    install(FILES "${_png}" DESTINATION "${_icons}/${_px}x${_px}/apps" COMPONENT hetplan)
    list(APPEND _pngs "${_png}")
endforeach()
add_custom_target(hetplan-icons ALL DEPENDS ${_pngs})
