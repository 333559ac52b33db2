# ddbgen_add_module(<target> SCHEMA <schemas/x.h>
#                   [INCLUDE_DIRS <dir>...] [DEFINES <NAME[=VALUE]>...]
#                   [TEMPLATES <dir>] [OUTPUT_DIR <dir>]
#                   [DEPLOYED_MODEL <schemas/x.model.json> [MIGRATION_PLAN <file>]])
#
# Generates <x>_ddb.h / <x>_ddb.c from a decorated schema header at build
# time and builds them into a static library <target> that links libddb
# (ddbgen::ddb); link <target> and #include "<x>_ddb.h".
#
# - Generation reruns when the schema, a header it includes (a depfile from
#   the C compiler's -MM), a template (TEMPLATES, else DDBGEN_TEMPLATES_DIR)
#   or the ddbgen executable changes.
# - The files land in the build tree (OUTPUT_DIR, default
#   ${CMAKE_CURRENT_BINARY_DIR}/ddbgen/<target>).  ddbgen rewrites a file
#   only when its content changes and the command's output is a stamp, so a
#   rerun that produces the same code recompiles nothing.
# - The generator and runtime are the targets ddbgen::ddbgen and ddbgen::ddb:
#   aliases of the in-tree targets inside this project, imported targets
#   after find_package(ddbgen) (whose config includes this file).
#
# - DEPLOYED_MODEL: the model of the schema the deployed data was written
#   with (ddbgen --emit-model), kept next to the schema in version control.
#   When it exists, every generation first runs ddbgen --check-compat
#   against it and the build fails on a breaking change, unless
#   MIGRATION_PLAN (default: the model's name with .migration.json for
#   .model.json) holds the migration plan of exactly that change (ddbgen
#   --plan-migration ... --plan-out it).  The target <target>_deploy_model
#   writes the current model over DEPLOYED_MODEL: build it when the new
#   schema's data is deployed (after the migration ran).  While it exists,
#   the module also holds <x>_old.h / <x>_old.c (ddbgen --old-model): the
#   deployed model's structs as struct <name>_old with their descriptors,
#   and, when the plan needs a transform, the typed callback
#   <entity>_from_old you define, the migration steps and
#   <table>_migrate_from_old (docs/SCHEMA.md, "Changing a schema").
#
# Relative SCHEMA, INCLUDE_DIRS, TEMPLATES, DEPLOYED_MODEL and MIGRATION_PLAN are relative to the calling
# CMakeLists.txt's directory, a relative OUTPUT_DIR to its build directory.
# INCLUDE_DIRS are searched by ddbgen (like -I) and added to <target>'s
# public include directories.  ddbgen runs in ${PROJECT_SOURCE_DIR}, so its
# diagnostics and the generated preamble name the schema from there.

# include() gives this file its own policy scope; the function keeps these.
cmake_policy(VERSION 3.20...3.28)

# The default templates: the project's templates/ (set by its top-level
# CMakeLists.txt) or, when installed, the package's (set by ddbgenConfig).
if(NOT DEFINED DDBGEN_TEMPLATES_DIR)
  get_filename_component(DDBGEN_TEMPLATES_DIR "${CMAKE_CURRENT_LIST_DIR}/../templates" ABSOLUTE)
endif()

function(ddbgen_add_module target)
  cmake_parse_arguments(M "" "SCHEMA;TEMPLATES;OUTPUT_DIR;DEPLOYED_MODEL;MIGRATION_PLAN" "INCLUDE_DIRS;DEFINES"
                        ${ARGN})
  if(M_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ddbgen_add_module(${target}): unknown arguments: ${M_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT M_SCHEMA)
    message(FATAL_ERROR "ddbgen_add_module(${target}): SCHEMA is required")
  endif()
  if(NOT TARGET ddbgen::ddbgen OR NOT TARGET ddbgen::ddb)
    message(FATAL_ERROR "ddbgen_add_module(${target}): targets ddbgen::ddbgen and ddbgen::ddb are "
                        "missing; call find_package(ddbgen REQUIRED) first")
  endif()

  get_filename_component(_schema "${M_SCHEMA}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_filename_component(_schema_dir "${_schema}" DIRECTORY)
  get_filename_component(_base "${_schema}" NAME_WE)
  if(M_OUTPUT_DIR)
    get_filename_component(_out "${M_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  else()
    set(_out "${CMAKE_CURRENT_BINARY_DIR}/ddbgen/${target}")
  endif()
  if(M_TEMPLATES)
    get_filename_component(_tdir "${M_TEMPLATES}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  else()
    set(_tdir "${DDBGEN_TEMPLATES_DIR}")
  endif()
  file(GLOB _tdeps CONFIGURE_DEPENDS "${_tdir}/*.mustache")
  if(NOT _tdeps)
    message(FATAL_ERROR "ddbgen_add_module(${target}): no templates (*.mustache) in '${_tdir}'")
  endif()
  file(MAKE_DIRECTORY "${_out}")

  # Options shared by ddbgen (libclang) and the dependency scan (the C compiler).
  set(_incs)
  set(_opts)
  foreach(_d IN LISTS M_INCLUDE_DIRS)
    get_filename_component(_da "${_d}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND _incs "${_da}")
    list(APPEND _opts -I "${_da}")
  endforeach()
  foreach(_d IN LISTS M_DEFINES)
    list(APPEND _opts -D "${_d}")
  endforeach()

  # ddbgen runs in the project's root with the schema's path relative to it:
  # that path is what the generated preamble and the diagnostics name
  # ("schemas/x.h"), whatever the directory the tree lives in.
  file(RELATIVE_PATH _schema_arg "${PROJECT_SOURCE_DIR}" "${_schema}")
  set(_stamp "${_out}/${_base}.stamp")
  set(_gen_h "${_out}/${_base}_ddb.h")
  set(_gen_c "${_out}/${_base}_ddb.c")
  set(_exe "$<TARGET_FILE:ddbgen::ddbgen>")
  set(_exe_deps "${_exe}")
  get_target_property(_real ddbgen::ddbgen ALIASED_TARGET)
  if(_real)
    list(APPEND _exe_deps ${_real})   # in-tree: also build ddbgen first
  endif()

  set(_scan)
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    # Headers the schema includes, found as the compiler sees them (with the
    # runtime's include directory for <ddb/schema.h>); -MM leaves out system
    # headers.
    set(_depfile "${_out}/${_base}.d")
    set(_scan DEPFILE "${_depfile}")
    set(_scan_cmd COMMAND "${CMAKE_C_COMPILER}" -x c -std=c11 -DDDB_SCHEMA_PARSE=1 ${_opts}
      "-I$<JOIN:$<TARGET_PROPERTY:ddbgen::ddb,INTERFACE_INCLUDE_DIRECTORIES>,$<SEMICOLON>-I>"
      -MM -MT "${_stamp}" -MF "${_depfile}" "${_schema}")
  else()
    set(_scan IMPLICIT_DEPENDS C "${_schema}")   # Makefile generators only
    set(_scan_cmd)
  endif()

  # The deployed model: breaking changes fail the build unless a plan covers them.
  set(_compat_cmd)
  set(_compat_deps)
  set(_old_opts)
  set(_old_files)
  if(M_MIGRATION_PLAN AND NOT M_DEPLOYED_MODEL)
    message(FATAL_ERROR "ddbgen_add_module(${target}): MIGRATION_PLAN goes with DEPLOYED_MODEL")
  endif()
  if(M_DEPLOYED_MODEL)
    get_filename_component(_model "${M_DEPLOYED_MODEL}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(M_MIGRATION_PLAN)
      get_filename_component(_plan "${M_MIGRATION_PLAN}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    else()
      string(REGEX REPLACE "(\\.model)?\\.json$" "" _plan "${_model}")
      set(_plan "${_plan}.migration.json")
    endif()
    if(EXISTS "${_model}")
      set(_compat_cmd COMMAND "${_exe}" ${_opts} --check-compat "${_model}" --migration-plan "${_plan}"
                              "${_schema_arg}")
      set(_compat_deps "${_model}")
      set(_old_opts --old-model "${_model}")
      set(_old_files "${_out}/${_base}_old.h" "${_out}/${_base}_old.c")
      if(EXISTS "${_plan}")
        list(APPEND _compat_deps "${_plan}")
      endif()
    endif()
    add_custom_target(${target}_deploy_model
      COMMAND "${_exe}" ${_opts} --emit-model "${_model}" "${_schema_arg}"
      WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
      DEPENDS ${_exe_deps}
      COMMENT "ddbgen: ${_schema_arg} is the deployed model now (${M_DEPLOYED_MODEL})"
      COMMAND_EXPAND_LISTS
      VERBATIM)
  endif()

  add_custom_command(
    OUTPUT "${_stamp}"
    BYPRODUCTS "${_gen_h}" "${_gen_c}" ${_old_files}
    ${_compat_cmd}
    COMMAND "${_exe}" ${_opts} --templates "${_tdir}" -o "${_out}" ${_old_opts} "${_schema_arg}"
    ${_scan_cmd}
    COMMAND "${CMAKE_COMMAND}" -E touch "${_stamp}"
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    DEPENDS "${_schema}" ${_tdeps} ${_exe_deps} ${_compat_deps}
    ${_scan}
    COMMENT "ddbgen ${_schema_arg} -> ${_base}_ddb.h, ${_base}_ddb.c"
    COMMAND_EXPAND_LISTS
    VERBATIM)
  add_custom_target(${target}_ddbgen DEPENDS "${_stamp}")
  list(FILTER _old_files INCLUDE REGEX "\\.c$")
  add_library(${target} STATIC "${_gen_c}" ${_old_files})
  add_dependencies(${target} ${target}_ddbgen)
  target_include_directories(${target} PUBLIC "${_out}" "${_schema_dir}" ${_incs})
  target_link_libraries(${target} PUBLIC ddbgen::ddb)
  set_target_properties(${target} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON
                                             POSITION_INDEPENDENT_CODE ON)
endfunction()

# ddbgen_add_migration_module(<target> MODULE <module target> [SOURCES <file.c>...])
#
# The loadable module `ddb migrate --module` takes: a shared library
# (MODULE) built from the generated code of <module target> (a
# ddbgen_add_module target: <x>_ddb.c and, with its DEPLOYED_MODEL, the old
# forms <x>_old.c with the plan's steps) and your SOURCES (the transforms
# the plan asks for: <entity>_from_old), linked with the shared libddb, so
# that the migration runs inside one copy of libddb.  Relative SOURCES are
# relative to the calling CMakeLists.txt's directory.
function(ddbgen_add_migration_module target)
  cmake_parse_arguments(M "" "MODULE" "SOURCES" ${ARGN})
  if(M_UNPARSED_ARGUMENTS OR NOT M_MODULE)
    message(FATAL_ERROR "ddbgen_add_migration_module(${target}): MODULE <ddbgen_add_module target> is required, "
                        "then SOURCES (got: ${M_UNPARSED_ARGUMENTS})")
  endif()
  if(NOT TARGET ${M_MODULE}_ddbgen)
    message(FATAL_ERROR "ddbgen_add_migration_module(${target}): ${M_MODULE} is not a ddbgen_add_module target")
  endif()
  get_target_property(_gen ${M_MODULE} SOURCES)
  get_target_property(_incs ${M_MODULE} INCLUDE_DIRECTORIES)
  set(_user)
  foreach(_s IN LISTS M_SOURCES)
    get_filename_component(_sa "${_s}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND _user "${_sa}")
  endforeach()
  add_library(${target} MODULE ${_gen} ${_user})
  add_dependencies(${target} ${M_MODULE}_ddbgen)
  target_include_directories(${target} PRIVATE ${_incs})
  if(TARGET ddb_shared) # in this project's tree: the shared libddb; installed, ddbgen::ddb is
    target_link_libraries(${target} PRIVATE ddb_shared)
  else()
    target_link_libraries(${target} PRIVATE ddbgen::ddb)
  endif()
  set_target_properties(${target} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
endfunction()
