/**
 * @file bench/bench_events.cpp
 * @brief Events: one frame of N small events sent, read once by a reader, then update_events(),
 *        against push_back into a reused std::vector, one pass over it and clear().
 *
 * The world and the vector live across iterations, so both run in steady state (buffers reused);
 * the `allocs` counter reports heap allocations per iteration after the first frames (expected 0).
 */
#include <cstdint>
#include <vector>

#include "common.hpp"

namespace bench {
namespace {

/// A small event: 8 bytes, trivially copyable.
struct Damage {
    uint32_t target;
    float amount;
};

inline Damage damage_of(size_t i) { return Damage{static_cast<uint32_t>(i), 1.0f}; }

void BM_EventsSendRead(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    ecs::EventReader<Damage> reader;
    auto frame = [&] {
        for (size_t i = 0; i < n; ++i) world.send(damage_of(i));
        float total = 0;
        reader.read(world, [&](const Damage& d) { total += d.amount; });
        world.update_events();
        benchmark::DoNotOptimize(total);
    };
    frame(); // both frames' pages allocated before timing
    frame();
    const uint64_t before = allocation_count();
    set_allocation_counting(true);
    for (auto _ : state) frame();
    set_allocation_counting(false);
    state.counters["allocs"] = benchmark::Counter(static_cast<double>(allocation_count() - before),
                                                  benchmark::Counter::kAvgIterations);
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_EventsSendRead);

/// Baseline: the same events pushed into a reused vector, read in one pass, cleared.
void BM_Raw_EventsSendRead(benchmark::State& state) {
    const size_t n = arg_n(state);
    std::vector<Damage> events;
    events.reserve(n);
    for (auto _ : state) {
        for (size_t i = 0; i < n; ++i) events.push_back(damage_of(i));
        benchmark::ClobberMemory(); // the pushes happen, as the world's sends must
        float total = 0;
        for (const Damage& d : events) total += d.amount;
        events.clear();
        benchmark::DoNotOptimize(total);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Raw_EventsSendRead);

} // namespace
} // namespace bench
