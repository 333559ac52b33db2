# golden.cmake — the generated module of the golden schema, and its old
# forms (--old-model of its own model: every kind of field as struct
# <name>_old), against the expected files in golden/ (cmake -P, run from tests/generator so the
# recorded source path is "schemas/shop.h").
#   -DDDBGEN=<ddbgen> -DOUT=<scratch dir> [-DUPDATE=1]
# Without UPDATE: generates into OUT and fails on any difference, printing
# a unified diff.  With UPDATE=1: rewrites golden/ (the update-golden
# target; review the diff before committing).
foreach(_v DDBGEN OUT)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "golden.cmake: -D${_v}=... is required")
  endif()
endforeach()
set(_dir "${OUT}")
if(UPDATE)
  set(_dir "${CMAKE_CURRENT_LIST_DIR}/golden")
else()
  file(REMOVE_RECURSE "${OUT}")
endif()
execute_process(COMMAND "${DDBGEN}" -o "${_dir}" --old-model schemas/shop.model.json schemas/shop.h
  WORKING_DIRECTORY "${CMAKE_CURRENT_LIST_DIR}" RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "ddbgen failed (${_rc})")
endif()
if(UPDATE)
  return()
endif()
set(_failed 0)
foreach(_f shop_ddb.h shop_ddb.c shop_old.h shop_old.c)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files
    "${CMAKE_CURRENT_LIST_DIR}/golden/${_f}" "${OUT}/${_f}" RESULT_VARIABLE _same)
  if(NOT _same EQUAL 0)
    set(_failed 1)
    execute_process(COMMAND diff -u "${CMAKE_CURRENT_LIST_DIR}/golden/${_f}" "${OUT}/${_f}")
  endif()
endforeach()
if(_failed)
  message(FATAL_ERROR "generated code differs from tests/generator/golden: if the change is "
                      "intended, run `cmake --build build --target update-golden` and review the diff")
endif()
