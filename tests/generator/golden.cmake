# golden.cmake — a schema's generated module (and, with OLD_MODEL, its old
# forms: --old-model of that model, every kind of field as struct
# <name>_old) against the expected files in EXPECTED (cmake -P).
#   -DDDBGEN=<ddbgen> -DOUT=<scratch dir> [-DUPDATE=1]
#   [-DSCHEMA=<schema, from WORKDIR>] [-DWORKDIR=<where ddbgen runs>]
#   [-DEXPECTED=<folder of expected files>] [-DOLD_MODEL=<model, from WORKDIR>]
# Left out: the golden schema schemas/shop.h with its model, run from
# tests/generator (so the recorded source path is "schemas/shop.h"),
# expected in golden/.  The seed schemas run from the repository's root
# (recorded path "schemas/<name>.h") into golden/seeds/.
# Without UPDATE: generates into OUT and fails on any difference, printing
# a unified diff.  With UPDATE=1: rewrites EXPECTED (the update-golden
# target; review the diff before committing).
foreach(_v DDBGEN OUT)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "golden.cmake: -D${_v}=... is required")
  endif()
endforeach()
if(NOT DEFINED SCHEMA)
  set(SCHEMA schemas/shop.h)
  set(OLD_MODEL schemas/shop.model.json)
endif()
if(NOT DEFINED WORKDIR)
  set(WORKDIR "${CMAKE_CURRENT_LIST_DIR}")
endif()
if(NOT DEFINED EXPECTED)
  set(EXPECTED "${CMAKE_CURRENT_LIST_DIR}/golden")
endif()
get_filename_component(_base "${SCHEMA}" NAME_WE)
set(_files ${_base}_ddb.h ${_base}_ddb.c)
set(_old)
if(OLD_MODEL)
  set(_old --old-model "${OLD_MODEL}")
  list(APPEND _files ${_base}_old.h ${_base}_old.c)
endif()
set(_dir "${OUT}")
if(UPDATE)
  set(_dir "${EXPECTED}")
else()
  file(REMOVE_RECURSE "${OUT}")
endif()
execute_process(COMMAND "${DDBGEN}" -o "${_dir}" ${_old} "${SCHEMA}"
  WORKING_DIRECTORY "${WORKDIR}" RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "ddbgen failed (${_rc})")
endif()
if(UPDATE)
  return()
endif()
set(_failed 0)
foreach(_f ${_files})
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files
    "${EXPECTED}/${_f}" "${OUT}/${_f}" RESULT_VARIABLE _same)
  if(NOT _same EQUAL 0)
    set(_failed 1)
    execute_process(COMMAND diff -u "${EXPECTED}/${_f}" "${OUT}/${_f}")
  endif()
endforeach()
if(_failed)
  message(FATAL_ERROR "generated code differs from ${EXPECTED}: if the change is "
                      "intended, run `cmake --build build --target update-golden` and review the diff")
endif()
