# ctest fixture: `cmake --install` the build being tested into a fresh staging prefix.
# Arguments: ECS_BUILD_DIR, ECS_STAGE, ECS_CONFIG.
foreach(arg ECS_BUILD_DIR ECS_STAGE)
  if(NOT ${arg})
    message(FATAL_ERROR "stage_install.cmake: ${arg} is not set")
  endif()
endforeach()
file(REMOVE_RECURSE "${ECS_STAGE}")
set(_config)
if(ECS_CONFIG)
  set(_config --config "${ECS_CONFIG}")
endif()
execute_process(
  COMMAND "${CMAKE_COMMAND}" --install "${ECS_BUILD_DIR}" --prefix "${ECS_STAGE}" ${_config}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${ECS_BUILD_DIR} --prefix ${ECS_STAGE} failed (${rc})")
endif()
file(GLOB_RECURSE _configs "${ECS_STAGE}/*/ecsConfig.cmake")
if(NOT _configs)
  message(FATAL_ERROR "the staged install has no ecsConfig.cmake")
endif()
