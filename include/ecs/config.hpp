/**
 * @file ecs/config.hpp
 * @brief Version, assertion macro and compile-time knobs.
 *
 * Every knob is an `#ifndef`-guarded macro: define it before the first include of any ecs header
 * to change it. The README lists them all in one table.
 */
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstdlib>

#define ECS_VERSION_MAJOR 0
#define ECS_VERSION_MINOR 9
#define ECS_VERSION_PATCH 0

/// Highest number of distinct component types one process may use as components (bitset width).
#ifndef ECS_MAX_COMPONENTS
#  define ECS_MAX_COMPONENTS 256
#endif

namespace ecs::detail {
/// Default assertion handler: prints the failed condition with its message and aborts.
[[noreturn]] inline void assert_failed(const char* cond, const char* msg, const char* file, int line) noexcept {
    std::fprintf(stderr, "%s:%d: ecs assertion failed: %s (%s)\n", file, line, msg, cond);
    std::fflush(stderr);
    std::abort();
}
} // namespace ecs::detail

/**
 * ECS_ASSERT(cond, msg): checks a precondition. It is an expression of type void.
 *
 * - Define it yourself before the first include to route failures elsewhere (a test may record them
 *   and continue; the library then refuses the offending operation where it can).
 * - Compiled out under NDEBUG or ECS_DISABLE_ASSERT unless you defined it yourself.
 * - ECS_ASSERT_ENABLED is 1 when assertions are compiled in, 0 otherwise.
 */
#ifndef ECS_ASSERT
#  if defined(NDEBUG) || defined(ECS_DISABLE_ASSERT)
#    define ECS_ASSERT(cond, msg) ((void)0)
#    ifndef ECS_ASSERT_ENABLED
#      define ECS_ASSERT_ENABLED 0
#    endif
#  else
#    define ECS_ASSERT(cond, msg) \
        ((cond) ? (void)0 : ::ecs::detail::assert_failed(#cond, (msg), __FILE__, __LINE__))
#  endif
#endif
#ifndef ECS_ASSERT_ENABLED
#  define ECS_ASSERT_ENABLED 1
#endif

/// Checks a precondition that the library can also honour by refusing the operation: asserts when
/// assertions are on, and in every build evaluates to whether `cond` holds, so callers can bail out
/// and leave the world as it was. ECS_ASSERT runs inside a lambda body, so a user-defined ECS_ASSERT
/// may be an expression or a statement (`do { ... } while (0)`, `if (!(c)) throw ...;`).
#define ECS_CHECK(cond, msg) ((cond) ? true : ([&]() { ECS_ASSERT(cond, msg); }(), false))

#if defined(__GNUC__) || defined(__clang__)
#  define ECS_LIKELY(x) __builtin_expect(!!(x), 1)
#  define ECS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#  define ECS_FORCEINLINE inline __attribute__((always_inline))
#  define ECS_NOINLINE __attribute__((noinline))
#else
#  define ECS_LIKELY(x) (x)
#  define ECS_UNLIKELY(x) (x)
#  define ECS_FORCEINLINE inline
#  define ECS_NOINLINE
#endif
