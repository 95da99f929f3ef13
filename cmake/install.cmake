# `cmake --install`: the kiln tool, the VM embedding library (kilnvm) with its
# C and C++ headers, and a CMake package so an outside project can write
#   find_package(Kiln REQUIRED)
#   target_link_libraries(app PRIVATE Kiln::vm)
# and run `Kiln::kiln` (the command line) from its build.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS kilnvm kiln EXPORT KilnTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/vm/include/kiln/vm.h ${PROJECT_SOURCE_DIR}/vm/include/kiln/vm.hpp
              ${PROJECT_SOURCE_DIR}/runtime/include/kiln/dtypes.def
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln)
install(EXPORT KilnTargets NAMESPACE Kiln:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Kiln)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/KilnConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/KilnConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Kiln)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/KilnConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/KilnConfig.cmake ${PROJECT_BINARY_DIR}/KilnConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Kiln)
