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
 * Other compilers get std::atomic itself.
 */
#pragma once

#include <atomic>

#include "../config.hpp"

namespace ecs::detail {

#if defined(__GNUC__) || defined(__clang__)
/// A T (a pointer or an integer) only accessed through the __atomic builtins. Aggregate, so a
/// namespace-scope entry is constant-initialised: `AtomicSlot<F> slots[N] = {};`, `AtomicSlot<F> s{x};`.
template <typename T>
struct AtomicSlot {
    T value{};

    ECS_FORCEINLINE T load(std::memory_order order = std::memory_order_seq_cst) const noexcept {
        return __atomic_load_n(&value, static_cast<int>(order));
    }
    ECS_FORCEINLINE void store(T desired, std::memory_order order = std::memory_order_seq_cst) noexcept {
        __atomic_store_n(&value, desired, static_cast<int>(order));
    }
    ECS_FORCEINLINE T fetch_add(T add, std::memory_order order = std::memory_order_seq_cst) noexcept {
        return __atomic_fetch_add(&value, add, static_cast<int>(order));
    }
    /// As std::atomic's single-order form: on failure, acq_rel reads as acquire and release as relaxed.
    ECS_FORCEINLINE bool compare_exchange_strong(T& expected, T desired,
                                                 std::memory_order order = std::memory_order_seq_cst) noexcept {
        const int failure = order == std::memory_order_acq_rel ? static_cast<int>(std::memory_order_acquire)
                            : order == std::memory_order_release ? static_cast<int>(std::memory_order_relaxed)
                                                                 : static_cast<int>(order);
        return __atomic_compare_exchange_n(&value, &expected, desired, false, static_cast<int>(order), failure);
    }
};
#else
template <typename T>
using AtomicSlot = std::atomic<T>;
#endif

} // namespace ecs::detail
