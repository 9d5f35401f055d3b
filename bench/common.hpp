/**
 * @file bench/common.hpp
 * @brief Shared fixtures of the `ecs_bench` suite: components, world builders, handle shuffling,
 *        manual timing and the heap-allocation counter.
 *
 * Every benchmark runs at N = 10k, 100k and 1M (ECS_BENCH_RANGE). Setup happens outside the timed
 * region; benchmarks whose timed work consumes their state (create, destroy, deferred destroy, sort,
 * ...) time each pass themselves (UseManualTime, PhaseTimer) and rebuild the state untimed.
 */
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <numeric>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>
#include <ecs/world.hpp>

#include "components.hpp"

namespace bench {

// Components: components.hpp (shared with ecs_op_cost, which does not link Google Benchmark).

// -------------------------------------------------------------------------------------------------
// Ranges and timing
// -------------------------------------------------------------------------------------------------

/// N = 10k, 100k, 1M. The smoke test filters on the smallest argument, so every benchmark family
/// must start its range at 10000.
#define ECS_BENCH_RANGE(fn) BENCHMARK(fn)->RangeMultiplier(10)->Range(10000, 1000000)->Unit(benchmark::kMillisecond)
/// Same, for benchmarks that time only part of each iteration with a steady clock.
#define ECS_BENCH_RANGE_MANUAL(fn) ECS_BENCH_RANGE(fn)->UseManualTime()
/// The scaling run (#20): N = 10k, 100k, 1M, 10M for create, destroy, get and iterate and their raw
/// twins, so a regression at one size cannot hide behind another (`--benchmark_filter=/10000000`).
#define ECS_BENCH_SCALING(fn) BENCHMARK(fn)->RangeMultiplier(10)->Range(10000, 10000000)->Unit(benchmark::kMillisecond)
#define ECS_BENCH_SCALING_MANUAL(fn) ECS_BENCH_SCALING(fn)->UseManualTime()

/**
 * Clock of the manually timed benchmarks: the calling thread's CPU time (user + system, so page
 * faults count) where POSIX offers it, which keeps the figures meaningful while other processes
 * share the cores; the steady wall clock when ECS_BENCH_WALL_CLOCK is set in the environment or
 * on other systems. Automatically timed benchmarks should be read in the CPU column for the same
 * reason (bench/summarize.py does).
 */
inline bool use_wall_clock() {
#if defined(CLOCK_THREAD_CPUTIME_ID)
    static const bool wall = std::getenv("ECS_BENCH_WALL_CLOCK") != nullptr;
    return wall;
#else
    return true;
#endif
}

/// Seconds on the benchmark clock (see use_wall_clock()); only differences are meaningful.
inline double clock_seconds() {
#if defined(CLOCK_THREAD_CPUTIME_ID)
    if (!use_wall_clock()) {
        timespec ts{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
    }
#endif
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Times one phase of an iteration: `PhaseTimer t; work(); state.SetIterationTime(t.seconds());`
class PhaseTimer {
public:
    PhaseTimer() : start_(clock_seconds()) {}
    [[nodiscard]] double seconds() const { return clock_seconds() - start_; }

private:
    double start_;
};

/// The range argument as a size.
inline size_t arg_n(const benchmark::State& state) { return static_cast<size_t>(state.range(0)); }

// -------------------------------------------------------------------------------------------------
// Builders
// -------------------------------------------------------------------------------------------------

/// Deterministic values for entity `i`.
inline Position position_of(size_t i) { return Position{static_cast<float>(i), 1.0f}; }
inline Velocity velocity_of(size_t) { return Velocity{1.0f, 0.5f}; }

/// Fills `world` with `n` entities of {Position, Velocity}; returns their handles in creation order.
inline std::vector<ecs::Entity> populate_pv(ecs::World& world, size_t n) {
    std::vector<ecs::Entity> handles;
    handles.reserve(n);
    for (size_t i = 0; i < n; ++i) handles.push_back(world.create_with(position_of(i), velocity_of(i)));
    return handles;
}

/// A fixed-seed permutation of `v`.
template <typename T>
void shuffle_fixed(std::vector<T>& v, uint32_t seed = 20261121u) {
    std::mt19937 rng(seed);
    std::shuffle(v.begin(), v.end(), rng);
}

/// 0, 1, ..., n-1 in a fixed-seed random order.
inline std::vector<uint32_t> shuffled_indices(size_t n, uint32_t seed = 20261121u) {
    std::vector<uint32_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0u);
    shuffle_fixed(idx, seed);
    return idx;
}

// -------------------------------------------------------------------------------------------------
// Heap-allocation counter (alloc_counter.cpp replaces the global operator new / delete)
// -------------------------------------------------------------------------------------------------

/// Number of operator new calls made while counting was on.
uint64_t allocation_count() noexcept;
/// Turns counting on or off (off at start-up). Not thread-safe by design: benchmarks run on one thread.
void set_allocation_counting(bool on) noexcept;

/// Counts the allocations made during its lifetime.
class AllocationScope {
public:
    AllocationScope() noexcept : start_(allocation_count()) { set_allocation_counting(true); }
    ~AllocationScope() { set_allocation_counting(false); }
    AllocationScope(const AllocationScope&) = delete;
    AllocationScope& operator=(const AllocationScope&) = delete;
    /// Allocations counted since construction.
    [[nodiscard]] uint64_t count() const noexcept { return allocation_count() - start_; }

private:
    uint64_t start_;
};

} // namespace bench
