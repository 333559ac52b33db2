# ddbgen_add_module(<target> SCHEMA <schemas/x.h>
#                   [INCLUDE_DIRS <dir>...] [DEFINES <NAME[=VALUE]>...]
#                   [TEMPLATES <dir>] [OUTPUT_DIR <dir>])
#
# Generates <x>_ddb.h / <x>_ddb.c from a decorated schema header at build
# time and builds them into a static library <target> that links libddb.
# Generation reruns when the schema (or a header it includes), the
# templates or the ddbgen executable change; the generated files live in
# the build tree (default ${CMAKE_CURRENT_BINARY_DIR}/ddbgen) and are only
# rewritten when their content changes.  Include "<x>_ddb.h" to use it.
function(ddbgen_add_module target)
  cmake_parse_arguments(M "" "SCHEMA;TEMPLATES;OUTPUT_DIR" "INCLUDE_DIRS;DEFINES" ${ARGN})
  if(NOT M_SCHEMA)
    message(FATAL_ERROR "ddbgen_add_module(${target}): SCHEMA is required")
  endif()
  if(TARGET ddbgen)
    set(_exe ddbgen)
  elseif(TARGET ddbgen::ddbgen)
    set(_exe ddbgen::ddbgen)
  else()
    message(FATAL_ERROR "ddbgen_add_module: no ddbgen executable (find_package(ddbgen) first)")
  endif()
  if(TARGET ddb)
    set(_lib ddb)
  else()
    set(_lib ddbgen::ddb)
  endif()

  get_filename_component(_schema_abs "${M_SCHEMA}" ABSOLUTE)
  get_filename_component(_schema_dir "${_schema_abs}" DIRECTORY)
  get_filename_component(_base "${M_SCHEMA}" NAME_WE)
  if(M_OUTPUT_DIR)
    set(_out "${M_OUTPUT_DIR}")
  else()
    set(_out "${CMAKE_CURRENT_BINARY_DIR}/ddbgen")
  endif()
  file(MAKE_DIRECTORY "${_out}")

  set(_args)
  foreach(_d ${M_INCLUDE_DIRS})
    get_filename_component(_da "${_d}" ABSOLUTE)
    list(APPEND _args -I "${_da}")
  endforeach()
  foreach(_d ${M_DEFINES})
    list(APPEND _args -D "${_d}")
  endforeach()
  set(_tdeps)
  if(M_TEMPLATES)
    get_filename_component(_tdir "${M_TEMPLATES}" ABSOLUTE)
    list(APPEND _args --templates "${_tdir}")
    file(GLOB _tdeps "${_tdir}/*.mustache")
  elseif(DEFINED DDBGEN_TEMPLATES_DIR)
    file(GLOB _tdeps "${DDBGEN_TEMPLATES_DIR}/*.mustache")
  endif()

  set(_stamp "${_out}/${_base}.stamp")
  add_custom_command(
    OUTPUT "${_stamp}"
    BYPRODUCTS "${_out}/${_base}_ddb.h" "${_out}/${_base}_ddb.c"
    COMMAND ${_exe} ${_args} -o "${_out}" "${M_SCHEMA}"
    COMMAND ${CMAKE_COMMAND} -E touch "${_stamp}"
    WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
    DEPENDS "${_schema_abs}" ${_exe} ${_tdeps}
    IMPLICIT_DEPENDS C "${_schema_abs}"
    COMMENT "ddbgen ${M_SCHEMA}"
    VERBATIM)
  add_custom_target(${target}_ddbgen DEPENDS "${_stamp}")
  add_library(${target} STATIC "${_out}/${_base}_ddb.c")
  add_dependencies(${target} ${target}_ddbgen)
  target_include_directories(${target} PUBLIC "${_out}" "${_schema_dir}" ${M_INCLUDE_DIRS})
  target_link_libraries(${target} PUBLIC ${_lib})
  set_target_properties(${target} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
endfunction()
