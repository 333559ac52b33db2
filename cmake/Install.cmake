# cmake --install: what another project needs to use ddbgen.
#
#   bin/ddbgen                              the generator (ddbgen::ddbgen)
#   lib/libddb.so*                          the runtime (ddbgen::ddb), shared:
#                                           its dependencies (LMDB, xxhash,
#                                           uuid, jansson, libcurl, OpenSSL,
#                                           zlib) are its own DT_NEEDED, so
#                                           consumers need not know them
#   include/ddb/*.h                         the public headers (<ddb/json.h>
#                                           alone needs jansson's headers)
#   share/ddbgen/templates/*.mustache       found by bin/ddbgen relative to itself
#   lib/pkgconfig/ddbgen.pc                 pkg-config --cflags --libs ddbgen
#   lib/cmake/ddbgen/                       find_package(ddbgen): targets,
#                                           version, ddbgen_add_module()
#   share/doc/ddbgen/*.md                   the documentation: README.md and
#                                           every file of docs/
#
# Everything is relocatable: `cmake --install build --prefix DIR` works, and
# the installed tree can be moved.
include(CMakePackageConfigHelpers)

set(DDBGEN_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/ddbgen")
set(DDBGEN_INSTALL_TEMPLATESDIR "${CMAKE_INSTALL_DATADIR}/ddbgen/templates")

install(TARGETS ddbgen EXPORT ddbgenTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ddb_shared EXPORT ddbgenTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/runtime/include/ddb DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${CMAKE_SOURCE_DIR}/templates/ DESTINATION ${DDBGEN_INSTALL_TEMPLATESDIR}
  FILES_MATCHING PATTERN "*.mustache")
# CMAKE_INSTALL_DOCDIR is share/doc/ddbgen (GNUInstallDirs, after the project name).
file(GLOB _ddb_docs ${CMAKE_SOURCE_DIR}/docs/*.md)
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${_ddb_docs} DESTINATION ${CMAKE_INSTALL_DOCDIR})

install(EXPORT ddbgenTargets NAMESPACE ddbgen:: DESTINATION ${DDBGEN_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/ddbgenConfig.cmake.in
  ${CMAKE_BINARY_DIR}/pkg/ddbgenConfig.cmake
  INSTALL_DESTINATION ${DDBGEN_INSTALL_CMAKEDIR}
  PATH_VARS DDBGEN_INSTALL_TEMPLATESDIR)
# Generated code checks DDB_VERSION_MAJOR/MINOR, so 0.1.x serves only 0.1 requests.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/pkg/ddbgenConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/pkg/ddbgenConfig.cmake ${CMAKE_BINARY_DIR}/pkg/ddbgenConfigVersion.cmake
              ${CMAKE_SOURCE_DIR}/cmake/DdbGen.cmake
  DESTINATION ${DDBGEN_INSTALL_CMAKEDIR})

# ddbgen.pc: paths relative to the .pc file itself (${pcfiledir}).
set(_pcdir "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
file(RELATIVE_PATH DDBGEN_PC_PREFIX "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "/$" "" DDBGEN_PC_PREFIX "\${pcfiledir}/${DDBGEN_PC_PREFIX}")
foreach(_d LIBDIR INCLUDEDIR BINDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_d}}")
    set(DDBGEN_PC_${_d} "${CMAKE_INSTALL_${_d}}")
  else()
    set(DDBGEN_PC_${_d} "\${prefix}/${CMAKE_INSTALL_${_d}}")
  endif()
endforeach()
set(DDBGEN_PC_LIBS_EXTRA "")
if(DDB_SANITIZE)
  set(DDBGEN_PC_LIBS_EXTRA " -fsanitize=address,undefined")
endif()
configure_file(${CMAKE_SOURCE_DIR}/cmake/ddbgen.pc.in ${CMAKE_BINARY_DIR}/pkg/ddbgen.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/pkg/ddbgen.pc DESTINATION ${_pcdir})
