// Parallel iteration and the schedule (ROADMAP 1.0 E), wall-clock timed (UseRealTime: CPU time of
// the calling thread alone would hide the workers).
//
// - BM_Parallel_Each / BM_Parallel_EachPar2: ~50 ns of dependent arithmetic per entity, sequential
//   each vs each_par on ThreadPool(2). Speed-up = Each / EachPar2 (target >= 0.9 x 2 threads at 1M).
// - BM_Parallel_SmallEach / BM_Parallel_SmallEachPar: 1,000 entities, each_par runs inline (target
//   <= 1.1x the sequential each).
// - BM_Parallel_Schedule / BM_Parallel_SchedulePool4: 8 independent per-entity systems, each over
//   its own component, run(world) vs run(world, ThreadPool(4)). On a 2-core machine 4 threads can
//   give at most 2x.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include <ecs/schedule.hpp>

#include "common.hpp"

namespace {

struct Work {
    float x;
};
struct Seed {
    float k;
};

/// About 50 ns per entity: 60 dependent multiply-adds. (40 of them, the first calibration, measured
/// 20 ns per entity on the 2-core VM: the compiler interleaves the chains of neighbouring entities.)
inline float burn(float x, float k) {
    for (int i = 0; i < 60; ++i) x = x * k + 0.5f;
    return x;
}

void fill(ecs::World& w, size_t n) {
    for (size_t i = 0; i < n; ++i) w.create_with(Work{static_cast<float>(i % 100)}, Seed{0.999f});
}

void BM_Parallel_Each(benchmark::State& state) {
    ecs::World w;
    fill(w, static_cast<size_t>(state.range(0)));
    for (auto _ : state) {
        w.each<Work, const Seed>([](Work& p, const Seed& s) { p.x = burn(p.x, s.k); });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_Parallel_EachPar2(benchmark::State& state) {
    ecs::World w;
    fill(w, static_cast<size_t>(state.range(0)));
    ecs::ThreadPool pool(2);
    for (auto _ : state) {
        w.each_par<Work, const Seed>(pool, [](Work& p, const Seed& s) { p.x = burn(p.x, s.k); });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_Parallel_SmallEach(benchmark::State& state) {
    ecs::World w;
    fill(w, static_cast<size_t>(state.range(0)));
    for (auto _ : state) {
        w.each<Work, const Seed>([](Work& p, const Seed& s) { p.x = p.x * s.k + 0.5f; });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_Parallel_SmallEachPar(benchmark::State& state) {
    ecs::World w;
    fill(w, static_cast<size_t>(state.range(0)));
    ecs::ThreadPool pool(2);
    for (auto _ : state) {
        w.each_par<Work, const Seed>(pool, [](Work& p, const Seed& s) { p.x = p.x * s.k + 0.5f; });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

template <int I>
struct Lane {
    float x;
};

template <int... Is>
void build_lanes(ecs::World& w, ecs::Schedule& s, size_t n, std::integer_sequence<int, Is...>) {
    for (size_t i = 0; i < n; ++i) w.create_with(Lane<Is>{static_cast<float>(i % 7)}...);
    (s.add<Lane<Is>>("lane" + std::to_string(Is), [](Lane<Is>& l) { l.x = burn(l.x, 0.999f); }), ...);
}

void schedule_bench(benchmark::State& state, ecs::Executor* executor) {
    ecs::World w;
    ecs::Schedule s;
    const size_t n = static_cast<size_t>(state.range(0));
    build_lanes(w, s, n, std::make_integer_sequence<int, 8>{});
    for (auto _ : state) {
        if (executor != nullptr) s.run(w, *executor);
        else s.run(w);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0) * 8);
}

void BM_Parallel_Schedule(benchmark::State& state) { schedule_bench(state, nullptr); }

void BM_Parallel_SchedulePool4(benchmark::State& state) {
    ecs::ThreadPool pool(4);
    schedule_bench(state, &pool);
}

} // namespace

ECS_BENCH_RANGE(BM_Parallel_Each)->UseRealTime();
ECS_BENCH_RANGE(BM_Parallel_EachPar2)->UseRealTime();
BENCHMARK(BM_Parallel_SmallEach)->Arg(1000)->Arg(10000)->UseRealTime();
BENCHMARK(BM_Parallel_SmallEachPar)->Arg(1000)->Arg(10000)->UseRealTime();
BENCHMARK(BM_Parallel_Schedule)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Parallel_SchedulePool4)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->UseRealTime();
