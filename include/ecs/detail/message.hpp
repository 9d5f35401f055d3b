/**
 * @file ecs/detail/message.hpp
 * @brief Assertion and refusal messages that name the component type and the entity:
 *        `World::get<Position>: entity 12v3 does not have the component`.
 *
 * The text is built only when a check fails (ECS_CHECK evaluates its message in the failure branch),
 * into a per-thread buffer that the next message on the same thread overwrites: handlers that keep
 * a message must copy it.
 */
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <string_view>

#include "../entity.hpp"

namespace ecs::detail {

/// printf-style formatting into the calling thread's message buffer.
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 1, 2), noinline, cold))
#endif
inline const char* format_message(const char* format, ...) noexcept {
    thread_local char buffer[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    return buffer;
}

/// `"<function>: entity <index>v<generation> <what>"`; `type` goes between angle brackets after the
/// function when not empty: `World::get<Position>: entity 12v3 is not alive`.
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline, cold))
#endif
inline const char* entity_message(const char* function, std::string_view type, Entity e, const char* what) noexcept {
    if (type.empty())
        return format_message("%s: entity %uv%u %s", function, static_cast<unsigned>(e.index),
                              static_cast<unsigned>(e.generation), what);
    return format_message("%s<%.*s>: entity %uv%u %s", function, static_cast<int>(type.size()), type.data(),
                          static_cast<unsigned>(e.index), static_cast<unsigned>(e.generation), what);
}

/// `"<message> [<type>, entity <index>v<generation>]"`: a refusal whose message text is fixed (and
/// matched by users' logs and tests) gains the type and the entity at its end.
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline, cold))
#endif
inline const char* detailed_message(const char* message, std::string_view type, Entity e) noexcept {
    return format_message("%s [%.*s, entity %uv%u]", message, static_cast<int>(type.size()), type.data(),
                          static_cast<unsigned>(e.index), static_cast<unsigned>(e.generation));
}

/// `"<message> [<types>]"`: a refusal that concerns no single entity names the types involved.
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline, cold))
#endif
inline const char* typed_message(const char* message, std::string_view types) noexcept {
    return format_message("%s [%.*s]", message, static_cast<int>(types.size()), types.data());
}

} // namespace ecs::detail
