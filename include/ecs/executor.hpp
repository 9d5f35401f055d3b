/**
 * @file ecs/executor.hpp
 * @brief Executor: the adapter point between the library's parallel work and an engine's job system,
 *        plus InlineExecutor (runs everything in order on the calling thread).
 *
 * The library never starts threads of its own accord: code that can run in parallel takes an
 * `Executor&` and hands it an index range. Implement Executor on top of your engine's job system,
 * or use ecs::ThreadPool (ecs/parallel.hpp). This header includes no thread library, so it is cheap
 * to include everywhere; ecs/parallel.hpp includes it.
 *
 * Contract of parallel_for(count, task, context), for every implementation:
 * - calls `task(context, i)` exactly once for each i in [0, count), in any order, possibly
 *   concurrently on up to concurrency() threads;
 * - returns only when every call has returned, and everything those calls wrote is visible to the
 *   caller (happens-before);
 * - `task` must not throw.
 */
#pragma once

#include <cstddef>
#include <type_traits>

namespace ecs {

/// @brief Runs index ranges, possibly in parallel. See the file comment for the contract.
class Executor {
public:
    virtual ~Executor() = default;
    /// @brief How many calls of a task may run at once (at least 1).
    virtual size_t concurrency() const = 0;
    /// @brief Calls `task(context, i)` once for each i in [0, count); blocks until all returned.
    virtual void parallel_for(size_t count, void (*task)(void* context, size_t index), void* context) = 0;

protected:
    Executor() = default;
    Executor(const Executor&) = default;
    Executor& operator=(const Executor&) = default;
};

/// @brief The trivial executor: concurrency 1, indices in increasing order on the calling thread.
class InlineExecutor final : public Executor {
public:
    size_t concurrency() const override { return 1; }
    void parallel_for(size_t count, void (*task)(void* context, size_t index), void* context) override {
        for (size_t i = 0; i < count; ++i) task(context, i);
    }
};

/**
 * @brief Convenience: `ecs::parallel_for(executor, count, [&](size_t i) { ... })` calls `fn(i)` once
 *        per index through `executor` (fn is passed by address, never copied).
 * @pre `fn(i)` may run concurrently for different i, and does not throw.
 */
template <typename Fn>
void parallel_for(Executor& executor, size_t count, Fn&& fn) {
    using F = std::remove_reference_t<Fn>;
    executor.parallel_for(
        count, [](void* context, size_t index) { (*static_cast<F*>(context))(index); },
        const_cast<void*>(static_cast<const void*>(&fn)));
}

} // namespace ecs
