# pkg-config consumer: what a Makefile user does, `c++ -std=c++17 $(pkg-config --cflags ecs) ...`,
# against the staged install only (PKG_CONFIG_LIBDIR hides every other .pc file).
# Arguments: PKG_CONFIG, ECS_PKGCONFIG_DIR, ECS_EXPECT_INCLUDE_DIR, ECS_EXPECT_VERSION, CXX, SOURCE,
# OUT_DIR.
set(ENV{PKG_CONFIG_LIBDIR} "${ECS_PKGCONFIG_DIR}")
unset(ENV{PKG_CONFIG_PATH})
unset(ENV{PKG_CONFIG_SYSROOT_DIR})

function(run_pkg_config out)
  execute_process(COMMAND "${PKG_CONFIG}" ${ARGN} ecs
    RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config ${ARGN} ecs failed (${rc}): ${err}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

run_pkg_config(version --modversion)
if(NOT version STREQUAL ECS_EXPECT_VERSION)
  message(FATAL_ERROR "pkg-config --modversion ecs = '${version}', expected '${ECS_EXPECT_VERSION}'")
endif()
run_pkg_config(libs --libs)
if(NOT libs STREQUAL "")
  message(FATAL_ERROR "pkg-config --libs ecs = '${libs}', expected nothing (header-only)")
endif()
run_pkg_config(cflags --cflags)
separate_arguments(cflags UNIX_COMMAND "${cflags}")
if(NOT cflags MATCHES "^-I[^;]+$")
  message(FATAL_ERROR "pkg-config --cflags ecs = '${cflags}', expected exactly one -I")
endif()
string(SUBSTRING "${cflags}" 2 -1 include_dir)
get_filename_component(include_dir "${include_dir}" REALPATH)
get_filename_component(expected "${ECS_EXPECT_INCLUDE_DIR}" REALPATH)
if(NOT include_dir STREQUAL expected)
  message(FATAL_ERROR "pkg-config --cflags ecs points at '${include_dir}', expected '${expected}'")
endif()

# The headers found through the .pc file carry its version (main.cpp static_asserts the macros).
if(NOT ECS_EXPECT_VERSION MATCHES "^([0-9]+)\\.([0-9]+)\\.([0-9]+)$")
  message(FATAL_ERROR "ECS_EXPECT_VERSION '${ECS_EXPECT_VERSION}' is not x.y.z")
endif()
set(version_flags -DECS_EXPECT_VERSION_MAJOR=${CMAKE_MATCH_1} -DECS_EXPECT_VERSION_MINOR=${CMAKE_MATCH_2}
                  -DECS_EXPECT_VERSION_PATCH=${CMAKE_MATCH_3})

# Built twice: as a debug build, and as a release build (-O2 -DNDEBUG: assertions compiled out,
# optimiser-driven warnings such as -Wmaybe-uninitialized on).
file(MAKE_DIRECTORY "${OUT_DIR}")
foreach(variant debug release)
  if(variant STREQUAL "release")
    set(variant_flags -O2 -DNDEBUG)
  else()
    set(variant_flags -O0 -g)
  endif()
  set(exe "${OUT_DIR}/consumer_pkg_config_${variant}")
  file(REMOVE "${exe}")
  execute_process(
    COMMAND "${CXX}" -std=c++17 ${cflags} ${variant_flags} ${version_flags} -Wall -Wextra -Wpedantic -Werror -fno-exceptions -fno-rtti
            "${SOURCE}" -o "${exe}"
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "compiling the ${variant} consumer with pkg-config flags failed (${rc})")
  endif()
  execute_process(COMMAND "${exe}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the ${variant} pkg-config consumer failed (${rc})")
  endif()
endforeach()
