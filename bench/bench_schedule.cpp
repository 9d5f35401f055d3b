// Schedule scaling: T independent, equal per-entity systems (each over its own component Lane<i>,
// on its own n entities), run sequentially (`run(world)`) and on `ThreadPool(T)`
// (`run(world, pool)`): the speed-up is BM_Schedule_Lanes / BM_Schedule_LanesPool at the same
// T and n. All T systems form one wave, so the ideal is T (bounded by the machine's cores).
//
// Counters: slowest_system_ms and sum_systems_ms (the systems' own mean durations), so a run shows
// how much of a wave is the slowest system and how much the pool adds.
//
// BM_Schedule_WaveOverhead runs T systems over empty queries on ThreadPool(T): what a wave costs
// with no work in it (wake-ups, prepare, the flush).
#include <cstddef>
#include <string>
#include <utility>

#include <ecs/schedule.hpp>

#include "common.hpp"

namespace {

template <int I>
struct Lane {
    float x;
};

/// About 50 ns per entity: 60 dependent multiply-adds.
inline float lane_burn(float x) {
    for (int i = 0; i < 60; ++i) x = x * 0.999f + 0.5f;
    return x;
}

template <int... Is>
void build(ecs::World& w, ecs::Schedule& s, size_t lanes, size_t n, std::integer_sequence<int, Is...>) {
    const auto one = [&](auto lane) {
        using L = decltype(lane);
        for (size_t i = 0; i < n; ++i) w.create_with(L{static_cast<float>(i % 7)});
        s.add<L>("lane", [](L& l) { l.x = lane_burn(l.x); });
    };
    ((Is < static_cast<int>(lanes) ? one(Lane<Is>{}) : void()), ...);
}

void lanes_bench(benchmark::State& state, bool pooled) {
    const size_t lanes = static_cast<size_t>(state.range(0));
    const size_t n = static_cast<size_t>(state.range(1));
    ecs::World w;
    ecs::Schedule s;
    build(w, s, lanes, n, std::make_integer_sequence<int, 16>{});
    ecs::ThreadPool pool(pooled ? lanes : 1);
    for (auto _ : state) {
        if (pooled) s.run(w, pool);
        else s.run(w);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(lanes * n));
    // Where a wave's time goes: it lasts at least as long as its slowest system, so the speed-up is
    // bounded by (sum of the systems) / (slowest system), whatever the pool does.
    double slowest = 0.0, sum = 0.0;
    for (const ecs::Schedule::SystemStats& st : s.stats()) {
        slowest = st.avg_ns > slowest ? st.avg_ns : slowest;
        sum += st.avg_ns;
    }
    state.counters["slowest_system_ms"] = slowest / 1e6;
    state.counters["sum_systems_ms"] = sum / 1e6;
}

void BM_Schedule_Lanes(benchmark::State& state) { lanes_bench(state, false); }
void BM_Schedule_LanesPool(benchmark::State& state) { lanes_bench(state, true); }

/// T systems with nothing to iterate, on ThreadPool(T): the fixed cost of one wave.
void BM_Schedule_WaveOverhead(benchmark::State& state) {
    const size_t lanes = static_cast<size_t>(state.range(0));
    ecs::World w;
    ecs::Schedule s;
    build(w, s, lanes, 0, std::make_integer_sequence<int, 16>{});
    ecs::ThreadPool pool(lanes);
    for (auto _ : state) {
        s.run(w, pool);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations());
}

void lane_args(benchmark::internal::Benchmark* b) {
    for (const int64_t t : {1, 2, 4, 8, 16})
        for (const int64_t n : {10000, 100000}) b->Args({t, n});
}

} // namespace

BENCHMARK(BM_Schedule_Lanes)->Apply(lane_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Schedule_LanesPool)->Apply(lane_args)->Unit(benchmark::kMillisecond)->UseRealTime();
// (the second argument only lets the smoke filter `/10000` pick it)
BENCHMARK(BM_Schedule_WaveOverhead)->Args({1, 10000})->Args({2, 10000})->Args({4, 10000})->Unit(benchmark::kMicrosecond)->UseRealTime();
