# cmake -DEXE=prog -DDIR=dbdir -DEXPECTED=file -DACTUAL=file -P compare_output.cmake
# Runs `prog dbdir`, writes its output to ACTUAL with dbdir replaced by DIR,
# and fails (showing a diff) unless it equals EXPECTED.
foreach(_v EXE DIR EXPECTED ACTUAL)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "compare_output.cmake: ${_v} is not set")
  endif()
endforeach()
file(REMOVE_RECURSE "${DIR}")
execute_process(COMMAND "${EXE}" "${DIR}"
  OUTPUT_VARIABLE _out ERROR_VARIABLE _err RESULT_VARIABLE _rc)
string(REPLACE "${DIR}" "DIR" _out "${_out}")
file(WRITE "${ACTUAL}" "${_out}")
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${EXE} ${DIR} exited with ${_rc}\n${_err}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${EXPECTED}" "${ACTUAL}" RESULT_VARIABLE _same)
if(NOT _same EQUAL 0)
  find_program(_diff diff)
  if(_diff)
    execute_process(COMMAND "${_diff}" -u "${EXPECTED}" "${ACTUAL}")   # to the test's output
  endif()
  message(FATAL_ERROR "the output of ${EXE} differs from ${EXPECTED} (actual output: ${ACTUAL})")
endif()
