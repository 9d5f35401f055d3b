/**
 * @file ecs/detail/atomic_slot.hpp
 * @brief AtomicSlot<T>: one process-wide registry entry (a pointer or a 32-bit number) read and
 *        written atomically, with std::atomic's names and default orders for the operations the
 *        library uses.
 *
 * The registries (column factories, value-initialisers, requirements, type ids, pack and query
 * slots, the stored enable-bit walk) are read on every first use of a type or a query. With g++ and
 * clang++ each operation is a builtin inlined where it is called: no function per pointer type, not
 * even without optimisation, where std::atomic<T*>'s members are out-of-line calls in every program.
 * Other compilers get std::atomic itself. The orders are named `order_relaxed` ... `order_seq_cst`
 * (memory_order's values), so that no core header needs <atomic>, which costs every program
 * that includes the library about 3% of its compile time.
 */
#pragma once

#include "../config.hpp"

#if !defined(__GNUC__) && !defined(__clang__)
#include <atomic>
#endif

namespace ecs::detail {

#if defined(__GNUC__) || defined(__clang__)
/// A memory order, as the __atomic builtins take it.
using memory_order = int;
inline constexpr memory_order order_relaxed = __ATOMIC_RELAXED;
inline constexpr memory_order order_acquire = __ATOMIC_ACQUIRE;
inline constexpr memory_order order_release = __ATOMIC_RELEASE;
inline constexpr memory_order order_acq_rel = __ATOMIC_ACQ_REL;
inline constexpr memory_order order_seq_cst = __ATOMIC_SEQ_CST;

/// A T (a pointer or an integer) only accessed through the __atomic builtins. Aggregate, so a
/// namespace-scope entry is constant-initialised: `AtomicSlot<F> slots[N] = {};`, `AtomicSlot<F> s{x};`.
template <typename T>
struct AtomicSlot {
    T value{};

    ECS_FORCEINLINE T load(memory_order order = order_seq_cst) const noexcept {
        return __atomic_load_n(&value, order);
    }
    ECS_FORCEINLINE void store(T desired, memory_order order = order_seq_cst) noexcept {
        __atomic_store_n(&value, desired, order);
    }
    ECS_FORCEINLINE T fetch_add(T add, memory_order order = order_seq_cst) noexcept {
        return __atomic_fetch_add(&value, add, order);
    }
    ECS_FORCEINLINE T exchange(T desired, memory_order order = order_seq_cst) noexcept {
        return __atomic_exchange_n(&value, desired, order);
    }
    /// As std::atomic's single-order form: on failure, acq_rel reads as acquire and release as relaxed.
    ECS_FORCEINLINE bool compare_exchange_strong(T& expected, T desired,
                                                 memory_order order = order_seq_cst) noexcept {
        const memory_order failure = order == order_acq_rel   ? order_acquire
                                     : order == order_release ? order_relaxed
                                                              : order;
        return __atomic_compare_exchange_n(&value, &expected, desired, false, order, failure);
    }
};
#else
using memory_order = std::memory_order;
inline constexpr memory_order order_relaxed = std::memory_order_relaxed;
inline constexpr memory_order order_acquire = std::memory_order_acquire;
inline constexpr memory_order order_release = std::memory_order_release;
inline constexpr memory_order order_acq_rel = std::memory_order_acq_rel;
inline constexpr memory_order order_seq_cst = std::memory_order_seq_cst;

template <typename T>
using AtomicSlot = std::atomic<T>;
#endif

} // namespace ecs::detail
