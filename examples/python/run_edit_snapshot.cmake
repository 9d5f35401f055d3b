# The edit_snapshot example as a test (`cmake -P`, registered by bindings/python/CMakeLists.txt when
# the Python module is built): C++ writes a snapshot, Python edits it, C++ loads the result and must
# report exactly the summary line Python computed for the world it wrote.
#
#   HARNESS     the stress_harness executable
#   PYTHON      the Python interpreter the module was built for
#   MODULE_DIR  the directory holding the built module `ecs`
#   SCRIPT      examples/python/edit_snapshot.py
#   WORK_DIR    where the snapshots go
cmake_minimum_required(VERSION 3.16)
foreach(var HARNESS PYTHON MODULE_DIR SCRIPT WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "run_edit_snapshot.cmake: ${var} is required")
  endif()
endforeach()
file(MAKE_DIRECTORY "${WORK_DIR}")
set(original "${WORK_DIR}/original.ecs")
set(edited "${WORK_DIR}/edited.ecs")
set(expected_file "${WORK_DIR}/expected_summary.txt")
file(REMOVE "${original}" "${edited}" "${expected_file}")

function(run what)
  execute_process(COMMAND ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  message("---- ${what}\n${out}")
  if(err)
    message("stderr:\n${err}")
  endif()
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} exited with status '${rc}'")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

run("C++ writes a snapshot" "${HARNESS}" --scene churn --entities 2000 --frames 2 --seed 7 --save "${original}")
run("Python edits it" "${CMAKE_COMMAND}" -E env "PYTHONPATH=${MODULE_DIR}" PYTHONDONTWRITEBYTECODE=1
    "${PYTHON}" "${SCRIPT}" "${original}" "${edited}" --summary "${expected_file}")
run("C++ loads the result" "${HARNESS}" --load "${edited}")

file(READ "${expected_file}" expected)
string(STRIP "${expected}" expected)
string(FIND "${run_output}" ": ${expected}\n" at)
if(at EQUAL -1)
  message(FATAL_ERROR "stress_harness --load does not report what Python wrote:\n  expected: ${expected}")
endif()
if(NOT run_output MATCHES "snapshot check: OK")
  message(FATAL_ERROR "stress_harness --load did not report 'snapshot check: OK'")
endif()
if(NOT expected MATCHES " Dying=0 " OR NOT expected MATCHES " Mass=5 " OR NOT expected MATCHES " min_x=(8|9)[0-9][0-9] ")
  message(FATAL_ERROR "the edited world does not carry the edits: ${expected}")
endif()
message("edit_snapshot: C++ reads back exactly what Python wrote")
