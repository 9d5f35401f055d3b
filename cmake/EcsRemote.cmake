# ecs::remote: the remote inspector (include/ecs/remote.hpp) on top of cpp-httplib.
#
# cpp-httplib comes from, in order: the system package (Debian/Ubuntu libcpp-httplib-dev, found
# through pkg-config; it is a compiled library there), an installed CMake package (httplib::httplib),
# else a pinned release through FetchContent (header-only, without TLS or compression). The core
# target ecs::ecs never links it.
find_package(Threads REQUIRED)
set(_ecs_httplib_target "")
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(ECS_CPP_HTTPLIB QUIET IMPORTED_TARGET cpp-httplib)
  if(ECS_CPP_HTTPLIB_FOUND)
    set(_ecs_httplib_target PkgConfig::ECS_CPP_HTTPLIB)
  endif()
endif()
if(NOT _ecs_httplib_target)
  find_package(httplib CONFIG QUIET)
  if(httplib_FOUND)
    set(_ecs_httplib_target httplib::httplib)
  endif()
endif()
if(NOT _ecs_httplib_target AND ECS_REMOTE_FETCH)
  include(FetchContent)
  FetchContent_Declare(ecs_cpp_httplib
    GIT_REPOSITORY https://github.com/yhirose/cpp-httplib.git
    GIT_TAG v0.11.4
    GIT_SHALLOW TRUE)
  FetchContent_GetProperties(ecs_cpp_httplib)
  if(NOT ecs_cpp_httplib_POPULATED)
    FetchContent_Populate(ecs_cpp_httplib)
  endif()
  add_library(ecs_cpp_httplib INTERFACE)
  # SYSTEM: its warnings are not ours.
  target_include_directories(ecs_cpp_httplib SYSTEM INTERFACE "${ecs_cpp_httplib_SOURCE_DIR}")
  set(_ecs_httplib_target ecs_cpp_httplib)
endif()

if(_ecs_httplib_target)
  add_library(ecs_remote INTERFACE)
  add_library(ecs::remote ALIAS ecs_remote)
  target_link_libraries(ecs_remote INTERFACE ecs::ecs ${_ecs_httplib_target} Threads::Threads)
  set(ECS_REMOTE_AVAILABLE ON)
else()
  message(STATUS "ecs: cpp-httplib not found (apt install libcpp-httplib-dev): ecs::remote is not defined")
  set(ECS_REMOTE_AVAILABLE OFF)
endif()
