/**
 * @file ecs/detail/std_function.hpp
 * @brief std::function for the headers that store callbacks, at the lowest compile-time cost.
 *
 * Internal. libstdc++ declares std::function in <bits/std_function.h>; <functional> adds the
 * searchers, bind and <unordered_map> (about 0.06 s per translation unit). Other standard libraries
 * get <functional>.
 */
#pragma once

#if defined(__GLIBCXX__) && defined(__has_include)
#  if __has_include(<bits/std_function.h>)
#    include <bits/std_function.h>
#    define ECS_DETAIL_HAVE_STD_FUNCTION_H 1
#  endif
#endif
#ifndef ECS_DETAIL_HAVE_STD_FUNCTION_H
#  include <functional>
#endif
