/**
 * @file ecs/detail/remote_page.hpp
 * @brief The remote inspector's explorer page: one self-contained HTML document.
 */
#pragma once

namespace ecs {
namespace detail {
inline const char* remote_page() noexcept { return "<!doctype html><title>ecs</title>"; }
} // namespace detail
} // namespace ecs
