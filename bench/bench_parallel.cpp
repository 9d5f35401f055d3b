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
// - Scaling (#31, run on a many-core machine): BM_Parallel_EachParPool/n/T is each_par on
//   ThreadPool(T); BM_Raw_ParallelSpin/n/T is the hand-written twin, plain Work and Seed arrays split
//   into T contiguous blocks on bench::SpinExecutor(T) (T = 1 is the plain sequential loop). The
//   speed-ups are BM_Parallel_Each/n over EachParPool/n/T and RawParallelSpin/n/1 over /n/T.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <ecs/schedule.hpp>

#include "common.hpp"
#include "executors.hpp"

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

void BM_Parallel_EachParPool(benchmark::State& state) {
    ecs::World w;
    fill(w, static_cast<size_t>(state.range(0)));
    ecs::ThreadPool pool(static_cast<size_t>(state.range(1)));
    for (auto _ : state) {
        w.each_par<Work, const Seed>(pool, [](Work& p, const Seed& s) { p.x = burn(p.x, s.k); });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

/// each_par on ThreadPool(T) wrapped in bench::TracingExecutor: how the batches spread.
void BM_Parallel_EachParTraced(benchmark::State& state) {
    ecs::World w;
    fill(w, static_cast<size_t>(state.range(0)));
    ecs::ThreadPool pool(static_cast<size_t>(state.range(1)));
    bench::TracingExecutor traced(pool);
    for (auto _ : state) {
        w.each_par<Work, const Seed>(traced, [](Work& p, const Seed& s) { p.x = burn(p.x, s.k); });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
    bench::report_trace(state, traced.totals());
}

struct RawParallel {
    std::vector<Work> work;
    std::vector<Seed> seed;
    size_t blocks = 1;
    static void block(void* context, size_t b) {
        auto& r = *static_cast<RawParallel*>(context);
        const size_t n = r.work.size();
        const size_t end = n * (b + 1) / r.blocks;
        for (size_t i = n * b / r.blocks; i < end; ++i) r.work[i].x = burn(r.work[i].x, r.seed[i].k);
    }
};

void BM_Raw_ParallelSpin(benchmark::State& state) {
    const size_t n = static_cast<size_t>(state.range(0));
    RawParallel raw;
    for (size_t i = 0; i < n; ++i) {
        raw.work.push_back(Work{static_cast<float>(i % 100)});
        raw.seed.push_back(Seed{0.999f});
    }
    raw.blocks = static_cast<size_t>(state.range(1));
    bench::SpinExecutor spin(raw.blocks);
    for (auto _ : state) {
        spin.parallel_for(raw.blocks, &RawParallel::block, &raw);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

void thread_args(benchmark::internal::Benchmark* b) {
    b->Args({10000, 2}); // the smoke test's size
    for (const int64_t t : {1, 2, 4, 8, 16}) b->Args({1000000, t});
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
BENCHMARK(BM_Parallel_EachParPool)->Apply(thread_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Parallel_EachParTraced)->Apply(thread_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Raw_ParallelSpin)->Apply(thread_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Parallel_SmallEach)->Arg(1000)->Arg(10000)->UseRealTime();
BENCHMARK(BM_Parallel_SmallEachPar)->Arg(1000)->Arg(10000)->UseRealTime();
BENCHMARK(BM_Parallel_Schedule)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Parallel_SchedulePool4)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->UseRealTime();
