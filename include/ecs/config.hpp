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

#if !defined(__GNUC__) && !defined(__clang__)
#  include <atomic>
#endif

#define ECS_VERSION_MAJOR 1
#define ECS_VERSION_MINOR 0
#define ECS_VERSION_PATCH 0

/// Highest number of distinct component types one process may use as components (bitset width).
#ifndef ECS_MAX_COMPONENTS
#  define ECS_MAX_COMPONENTS 256
#endif

/// 1 for the compact-records build: an entity record takes 8 bytes instead of 16 (a 16-bit
/// archetype id, a 16-bit generation and the row), so a world of two 8-byte components holds 32
/// bytes per entity instead of 40. Its limits: generations wrap at 65535 (a handle is mistaken for a
/// newer one after 65535 reuses of its slot, not 2^32), and at most 16383 archetypes are alive in
/// the process at once. CMake option ECS_COMPACT_RECORDS. Every translation unit must agree.
#ifndef ECS_COMPACT_RECORDS
#  define ECS_COMPACT_RECORDS 0
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
#    define ECS_DETAIL_OWN_ASSERT 1 // the library's ECS_ASSERT, compiled out
#    ifndef ECS_ASSERT_ENABLED
#      define ECS_ASSERT_ENABLED 0
#    endif
#  else
#    define ECS_ASSERT(cond, msg) \
        ((cond) ? (void)0 : ::ecs::detail::assert_failed(#cond, (msg), __FILE__, __LINE__))
#    define ECS_DETAIL_OWN_ASSERT 2 // the library's ECS_ASSERT, on
#  endif
#endif
#ifndef ECS_ASSERT_ENABLED
#  define ECS_ASSERT_ENABLED 1
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define ECS_LIKELY(x) __builtin_expect(!!(x), 1)
#  define ECS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#  define ECS_FORCEINLINE inline __attribute__((always_inline))
#  define ECS_NOINLINE __attribute__((noinline))
// On a lambda, after its parameter list: `[&]() ECS_LAMBDA_FORCEINLINE { ... }`. clang only: GCC
// inlines the lambdas it marks on its own, and forcing them costs it compile time (-O0 included).
#  if defined(__clang__)
#    define ECS_LAMBDA_FORCEINLINE __attribute__((always_inline))
#  else
#    define ECS_LAMBDA_FORCEINLINE
#  endif
#else
#  define ECS_LIKELY(x) (x)
#  define ECS_UNLIKELY(x) (x)
#  define ECS_FORCEINLINE inline
#  define ECS_NOINLINE
#  define ECS_LAMBDA_FORCEINLINE
#endif

// ---------------------------------------------------------------------------------------------------
// Refusals: ECS_CHECK and the refusal handler
// ---------------------------------------------------------------------------------------------------

namespace ecs {

/// @brief Called with the message of every refused operation (see ECS_CHECK).
using RefusalHandler = void (*)(const char* message);

namespace detail {
// One process-wide slot, read and written atomically. g++ and clang++ use the __atomic builtins on a
// plain pointer (sparing every translation unit the parse of <atomic>); other compilers std::atomic.
#if defined(__GNUC__) || defined(__clang__)
inline RefusalHandler refusal_handler_slot = nullptr; ///< only accessed through __atomic builtins
inline RefusalHandler load_refusal_handler() noexcept {
    return __atomic_load_n(&refusal_handler_slot, __ATOMIC_ACQUIRE);
}
inline RefusalHandler exchange_refusal_handler(RefusalHandler handler) noexcept {
    return __atomic_exchange_n(&refusal_handler_slot, handler, __ATOMIC_ACQ_REL);
}
#else
inline std::atomic<RefusalHandler> refusal_handler_slot{nullptr};
inline RefusalHandler load_refusal_handler() noexcept { return refusal_handler_slot.load(std::memory_order_acquire); }
inline RefusalHandler exchange_refusal_handler(RefusalHandler handler) noexcept {
    return refusal_handler_slot.exchange(handler, std::memory_order_acq_rel);
}
#endif

/// The failure branch of ECS_CHECK: hands `message` to the refusal handler, if one is set. Kept out
/// of line so the refusing call sites stay small.
ECS_NOINLINE inline void report_refusal(const char* message) {
    if (const RefusalHandler handler = load_refusal_handler()) handler(message);
}
/// ECS_CHECK's failure branch under the library's own ECS_ASSERT with assertions off: the refusal
/// handler; false.
ECS_NOINLINE inline bool refuse(const char* message) {
    report_refusal(message);
    return false;
}
/// ECS_CHECK's failure branch under the library's own ECS_ASSERT with assertions on: the refusal
/// handler, then the assertion fails.
[[noreturn]] ECS_NOINLINE inline bool refuse_and_assert(const char* message, const char* cond, const char* file,
                                                        int line) {
    report_refusal(message);
    assert_failed(cond, message, file, line);
}
} // namespace detail

/**
 * @brief Installs `handler` (nullptr: none), called with the message of every refused
 *        operation, in every build (NDEBUG included), just before ECS_ASSERT fires.
 *
 * The message names the function and the broken condition, and where cheap the component type and
 * the entity (`"World::get<Position>: entity 12v3 is not alive"`). It may be formatted into a buffer
 * of the calling thread that the next message overwrites: copy it to keep it. The handler runs on
 * the thread that made the refused call and
 * may run on several threads at once; it should not call back into the world that refused. Default:
 * none, so a release build prints nothing, as before.
 * @return the previous handler. Thread-safe (an atomic exchange).
 */
inline RefusalHandler set_refusal_handler(RefusalHandler handler) noexcept {
    return detail::exchange_refusal_handler(handler);
}

/// @brief The handler set by set_refusal_handler(), or nullptr. Thread-safe.
[[nodiscard]] inline RefusalHandler refusal_handler() noexcept { return detail::load_refusal_handler(); }

} // namespace ecs

/// Checks a precondition that the library can also honour by refusing the operation: in every build
/// evaluates to whether `cond` holds, so callers can bail out and leave the world as it was. When it
/// does not hold (the refusal), the refusal handler (ecs::set_refusal_handler) is called with `msg`,
/// then ECS_ASSERT fires when assertions are on. The success path is the bare test of `cond`.
/// With the library's own ECS_ASSERT the failure branch is one call of an out-of-line function (no
/// code per call site beyond its arguments). A user-defined ECS_ASSERT runs inside a lambda body, so
/// it may be an expression or a statement (`do { ... } while (0)`, `if (!(c)) throw ...;`).
#if defined(ECS_DETAIL_OWN_ASSERT) && ECS_DETAIL_OWN_ASSERT == 1
#  define ECS_CHECK(cond, msg) ((cond) ? true : ::ecs::detail::refuse(msg))
#elif defined(ECS_DETAIL_OWN_ASSERT) && ECS_DETAIL_OWN_ASSERT == 2
#  define ECS_CHECK(cond, msg) ((cond) ? true : ::ecs::detail::refuse_and_assert((msg), #cond, __FILE__, __LINE__))
#else
#  define ECS_CHECK(cond, msg)                                                                           \
      ((cond) ? true : ([&]() {                                                                        \
          ::ecs::detail::report_refusal(msg);                                                          \
          ECS_ASSERT(cond, msg);                                                                       \
      }(), false))
#endif
