# Checks shared by the consumer projects: ecs gives the consumer exactly one target, ecs::ecs,
# carrying the include path and cxx_std_17 and nothing else, and none of ecs's own targets.

set(ECS_CONSUMER_COMMON_DIR "${CMAKE_CURRENT_LIST_DIR}")

# ecs_check_target(<target>): the usage requirements of `target` are include directories and
# cxx_std_17 only (no compile options, definitions, link libraries or link options).
function(ecs_check_target target)
  if(NOT TARGET ${target})
    message(FATAL_ERROR "consumer: target ${target} does not exist")
  endif()
  foreach(prop INTERFACE_COMPILE_OPTIONS INTERFACE_COMPILE_DEFINITIONS INTERFACE_LINK_LIBRARIES
               INTERFACE_LINK_OPTIONS INTERFACE_SOURCES INTERFACE_PRECOMPILE_HEADERS)
    get_target_property(value ${target} ${prop})
    if(value)
      message(FATAL_ERROR "consumer: ${target} leaks ${prop} = '${value}'")
    endif()
  endforeach()
  get_target_property(features ${target} INTERFACE_COMPILE_FEATURES)
  if(NOT features STREQUAL "cxx_std_17")
    message(FATAL_ERROR "consumer: ${target} INTERFACE_COMPILE_FEATURES = '${features}', expected cxx_std_17")
  endif()
  get_target_property(includes ${target} INTERFACE_INCLUDE_DIRECTORIES)
  if(NOT includes)
    message(FATAL_ERROR "consumer: ${target} has no include directory")
  endif()
endfunction()

# ecs_check_no_leaks(): none of ecs's own targets (tests, examples, benchmarks, warning options)
# exist in the consumer, although the consumer enabled testing with include(CTest).
function(ecs_check_no_leaks)
  if(NOT BUILD_TESTING)
    message(FATAL_ERROR "consumer: expected include(CTest) to set BUILD_TESTING")
  endif()
  foreach(t ecs_tests ecs_assert_tests ecs_no_rtti_no_exceptions ecs_project_options ecs_bench ecs_header_check)
    if(TARGET ${t})
      message(FATAL_ERROR "consumer: ecs leaked its own target '${t}' into the consumer")
    endif()
  endforeach()
endfunction()

# ecs_check_subproject(<ecs source dir>): the ecs directory defines the `ecs` target (and the optional
# rooms' INTERFACE targets) and adds no
# subdirectory (tests, examples, bench, fuzz) when it is not the top-level project.
function(ecs_check_subproject dir)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  # The core target and the optional rooms' INTERFACE targets (ecs::columnar, ecs::parquet, and
  # ecs::remote when ECS_REMOTE is on), which a consumer links by choice; nothing else.
  set(extra "${targets}")
  list(REMOVE_ITEM extra ecs ecs_columnar ecs_parquet ecs_remote)
  list(FIND targets ecs has_core)
  if(has_core EQUAL -1 OR extra)
    message(FATAL_ERROR "consumer: ecs defined targets '${targets}', expected 'ecs' and the optional rooms only")
  endif()
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  if(subdirs)
    message(FATAL_ERROR "consumer: ecs added subdirectories '${subdirs}' as a subproject")
  endif()
  get_property(tests DIRECTORY "${dir}" PROPERTY TESTS)
  if(tests)
    message(FATAL_ERROR "consumer: ecs registered tests '${tests}' as a subproject")
  endif()
endfunction()

# ecs_consumer_executable(<name>): the shared consumer program, built as strictly as a user could.
function(ecs_consumer_executable name)
  add_executable(${name} "${ECS_CONSUMER_COMMON_DIR}/main.cpp")
  target_link_libraries(${name} PRIVATE ecs::ecs)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${name} PRIVATE -Wall -Wextra -Wpedantic -Werror -fno-exceptions -fno-rtti)
  elseif(MSVC)
    target_compile_options(${name} PRIVATE /W4 /WX /GR-)
  endif()
  add_test(NAME ${name} COMMAND ${name})
endfunction()

# ecs_check_version_macros(<target> <x.y.z>): `target` (built from main.cpp) fails to compile unless
# ECS_VERSION_MAJOR/MINOR/PATCH in the ecs headers it includes equal x, y and z.
function(ecs_check_version_macros target version)
  if(NOT version MATCHES "^([0-9]+)\\.([0-9]+)\\.([0-9]+)$")
    message(FATAL_ERROR "consumer: '${version}' is not a version x.y.z")
  endif()
  target_compile_definitions(${target} PRIVATE
    ECS_EXPECT_VERSION_MAJOR=${CMAKE_MATCH_1} ECS_EXPECT_VERSION_MINOR=${CMAKE_MATCH_2}
    ECS_EXPECT_VERSION_PATCH=${CMAKE_MATCH_3})
endfunction()
