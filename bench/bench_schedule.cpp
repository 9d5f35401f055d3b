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
//
// Where a wave loses its time (#31), same T and n:
// - BM_Schedule_LanesSpin: the same Schedule on bench::SpinExecutor(T) (spinning workers, system i
//   on thread i % T): what the waves reach when dispatch costs nothing.
// - BM_Schedule_LanesTraced: on ThreadPool(T) wrapped in bench::TracingExecutor; counters give the
//   wave's length, the last system's start (wake-up), the slowest and mean system, how often one
//   thread ran two systems, and the time run() spends outside the wave (prepare, the flush).
// - BM_Raw_Lanes / BM_Raw_LanesSpin: the hand-written twin, no ECS: T plain float arrays of n values
//   burned in sequence, or one per thread on SpinExecutor(T). Their ratio is the machine's own
//   limit at T threads (clock speed under load, shared cores), which no schedule can beat.
// - BM_Schedule_OneHeavy / BM_Schedule_OneHeavySplit: one heavy system alone in its wave on
//   ThreadPool(T), as usual and with multi_threaded() (its rows cut across the pool).
//   BM_Schedule_HeavyBeside / ...Split: the same beside a light system in one wave.
// - The same six with `Chain` in their name (BM_Schedule_LanesChain, ...Pool, ...Spin, ...Traced,
//   BM_Raw_LanesChain, ...Spin) run a body the compiler cannot vectorize or interleave: one
//   dependent chain of multiply-adds per entity, about 0.2 us each, bound by latency rather than by
//   the floating-point units. The plain body vectorizes and is bound by the units' throughput, which
//   two hardware threads of one core share: the two bodies tell a dispatch loss from a machine limit.
#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <ecs/schedule.hpp>

#include "common.hpp"
#include "executors.hpp"

namespace {

template <int I>
struct Lane {
    float x;
};

/**
 * The per-entity work: 60 multiply-adds, `x = x * 0.999 + 0.5`.
 * - Chain = false: entities are independent, so the compiler vectorizes across them (about 25-50 ns
 *   per entity, bound by the floating-point units' throughput).
 * - Chain = true: an empty asm statement after each step keeps the value in a register and orders
 *   the steps of every entity, so nothing vectorizes or overlaps: one 120-operation dependent chain
 *   per entity, bound by latency.
 */
template <bool Chain>
inline float lane_burn(float x) {
    for (int i = 0; i < 60; ++i) {
        x = x * 0.999f + 0.5f;
        if constexpr (Chain) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
            __asm__ volatile("" : "+x"(x));
#elif defined(__GNUC__)
            __asm__ volatile("" : "+r"(x));
#endif
        }
    }
    return x;
}

template <bool Chain, int... Is>
void build(ecs::World& w, ecs::Schedule& s, size_t lanes, size_t n, std::integer_sequence<int, Is...>) {
    const auto one = [&](auto lane) {
        using L = decltype(lane);
        for (size_t i = 0; i < n; ++i) w.create_with(L{static_cast<float>(i % 7)});
        s.add<L>("lane", [](L& l) { l.x = lane_burn<Chain>(l.x); });
    };
    ((Is < static_cast<int>(lanes) ? one(Lane<Is>{}) : void()), ...);
}

enum class Run { sequential, pool, spin, traced };

template <bool Chain, Run How>
void lanes_bench(benchmark::State& state) {
    const size_t lanes = static_cast<size_t>(state.range(0));
    const size_t n = static_cast<size_t>(state.range(1));
    ecs::World w;
    ecs::Schedule s;
    build<Chain>(w, s, lanes, n, std::make_integer_sequence<int, 16>{});
    ecs::ThreadPool pool(How == Run::pool || How == Run::traced ? lanes : 1);
    bench::SpinExecutor spin(How == Run::spin ? lanes : 1);
    bench::TracingExecutor traced(pool);
    double run_ns = 0;
    for (auto _ : state) {
        if constexpr (How == Run::sequential) {
            s.run(w);
        } else if constexpr (How == Run::pool) {
            s.run(w, pool);
        } else if constexpr (How == Run::spin) {
            s.run(w, spin);
        } else {
            const auto start = std::chrono::steady_clock::now();
            s.run(w, traced);
            run_ns += static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
        }
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(lanes * n));
    if constexpr (How == Run::traced) {
        // What run() spent outside the wave (prepare, the flush), then the wave itself.
        state.counters["outside_wave_us"] = (run_ns - traced.totals().wave_ns) / static_cast<double>(state.iterations()) / 1e3;
        bench::report_trace(state, traced.totals());
    } else {
        // A wave lasts at least as long as its slowest system, so the speed-up is bounded by
        // (sum of the systems) / (slowest system), whatever the executor does.
        double slowest = 0.0, sum = 0.0;
        for (const ecs::Schedule::SystemStats& st : s.stats()) {
            slowest = st.avg_ns > slowest ? st.avg_ns : slowest;
            sum += st.avg_ns;
        }
        state.counters["slowest_system_ms"] = slowest / 1e6;
        state.counters["sum_systems_ms"] = sum / 1e6;
    }
}

/// One heavy per-entity system (the vectorized body over n entities) on ThreadPool(T), as usual (one
/// thread runs it) or multi_threaded() (its rows cut across the pool). Alone in its wave, or
/// (Beside) next to a light system of a tenth of its rows on another component, in one wave: as
/// usual the wave lasts as long as the heavy system; split, its batches are shared with the light
/// one. The speed-ups are BM_Schedule_OneHeavy over OneHeavySplit, HeavyBeside over HeavyBesideSplit.
template <bool Split, bool Beside>
void heavy_bench(benchmark::State& state) {
    const size_t threads = static_cast<size_t>(state.range(0));
    const size_t n = static_cast<size_t>(state.range(1));
    const size_t light = Beside ? n / 10 : 0;
    ecs::World w;
    ecs::Schedule s;
    for (size_t i = 0; i < n; ++i) w.create_with(Lane<0>{static_cast<float>(i % 7)});
    for (size_t i = 0; i < light; ++i) w.create_with(Lane<1>{static_cast<float>(i % 7)});
    s.add<Lane<0>>("heavy", [](Lane<0>& l) { l.x = lane_burn<false>(l.x); });
    if constexpr (Split) s.multi_threaded();
    if constexpr (Beside) s.add<Lane<1>>("light", [](Lane<1>& l) { l.x = lane_burn<false>(l.x); });
    ecs::ThreadPool pool(threads);
    for (auto _ : state) {
        s.run(w, pool);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n + light));
}
void BM_Schedule_OneHeavy(benchmark::State& state) { heavy_bench<false, false>(state); }
void BM_Schedule_OneHeavySplit(benchmark::State& state) { heavy_bench<true, false>(state); }
void BM_Schedule_HeavyBeside(benchmark::State& state) { heavy_bench<false, true>(state); }
void BM_Schedule_HeavyBesideSplit(benchmark::State& state) { heavy_bench<true, true>(state); }

void heavy_args(benchmark::internal::Benchmark* b) {
    b->Args({2, 10000}); // the smoke test's size
    for (const int64_t t : {1, 2, 4, 8, 16}) b->Args({t, 1000000});
}

/// T systems with nothing to iterate, on ThreadPool(T): the fixed cost of one wave.
void BM_Schedule_WaveOverhead(benchmark::State& state) {
    const size_t lanes = static_cast<size_t>(state.range(0));
    ecs::World w;
    ecs::Schedule s;
    build<false>(w, s, lanes, 0, std::make_integer_sequence<int, 16>{});
    ecs::ThreadPool pool(lanes);
    for (auto _ : state) {
        s.run(w, pool);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations());
}

/// The hand-written twin: T plain float arrays of n values, one per "system".
template <bool Chain>
struct RawLanes {
    std::vector<std::vector<float>> arrays;
    RawLanes(size_t lanes, size_t n) : arrays(lanes) {
        for (std::vector<float>& a : arrays)
            for (size_t i = 0; i < n; ++i) a.push_back(static_cast<float>(i % 7));
    }
    static void burn_lane(void* context, size_t lane) {
        for (float& x : static_cast<RawLanes*>(context)->arrays[lane]) x = lane_burn<Chain>(x);
    }
};

template <bool Chain, bool Spin>
void raw_lanes_bench(benchmark::State& state) {
    RawLanes<Chain> raw(static_cast<size_t>(state.range(0)), static_cast<size_t>(state.range(1)));
    bench::SpinExecutor spin(Spin ? raw.arrays.size() : 1);
    for (auto _ : state) {
        if constexpr (Spin) {
            spin.parallel_for(raw.arrays.size(), &RawLanes<Chain>::burn_lane, &raw);
        } else {
            for (size_t lane = 0; lane < raw.arrays.size(); ++lane) RawLanes<Chain>::burn_lane(&raw, lane);
        }
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0) * state.range(1));
}

void BM_Schedule_Lanes(benchmark::State& state) { lanes_bench<false, Run::sequential>(state); }
void BM_Schedule_LanesPool(benchmark::State& state) { lanes_bench<false, Run::pool>(state); }
void BM_Schedule_LanesSpin(benchmark::State& state) { lanes_bench<false, Run::spin>(state); }
void BM_Schedule_LanesTraced(benchmark::State& state) { lanes_bench<false, Run::traced>(state); }
void BM_Raw_Lanes(benchmark::State& state) { raw_lanes_bench<false, false>(state); }
void BM_Raw_LanesSpin(benchmark::State& state) { raw_lanes_bench<false, true>(state); }
void BM_Schedule_LanesChain(benchmark::State& state) { lanes_bench<true, Run::sequential>(state); }
void BM_Schedule_LanesChainPool(benchmark::State& state) { lanes_bench<true, Run::pool>(state); }
void BM_Schedule_LanesChainSpin(benchmark::State& state) { lanes_bench<true, Run::spin>(state); }
void BM_Schedule_LanesChainTraced(benchmark::State& state) { lanes_bench<true, Run::traced>(state); }
void BM_Raw_LanesChain(benchmark::State& state) { raw_lanes_bench<true, false>(state); }
void BM_Raw_LanesChainSpin(benchmark::State& state) { raw_lanes_bench<true, true>(state); }

void lane_args(benchmark::internal::Benchmark* b) {
    for (const int64_t t : {1, 2, 4, 8, 16})
        for (const int64_t n : {10000, 100000}) b->Args({t, n});
}

/// The chained body costs 40-90 ns per entity: 50k entities make a system of 2-5 ms.
void chain_args(benchmark::internal::Benchmark* b) {
    b->Args({2, 10000}); // the smoke test's size
    for (const int64_t t : {1, 2, 4, 8, 16}) b->Args({t, 50000});
}

} // namespace

BENCHMARK(BM_Schedule_Lanes)->Apply(lane_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Schedule_LanesPool)->Apply(lane_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Schedule_LanesSpin)->Apply(lane_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Schedule_LanesTraced)->Apply(lane_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Raw_Lanes)->Apply(lane_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Raw_LanesSpin)->Apply(lane_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Schedule_LanesChain)->Apply(chain_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Schedule_LanesChainPool)->Apply(chain_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Schedule_LanesChainSpin)->Apply(chain_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Schedule_LanesChainTraced)->Apply(chain_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Raw_LanesChain)->Apply(chain_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Raw_LanesChainSpin)->Apply(chain_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Schedule_OneHeavy)->Apply(heavy_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Schedule_OneHeavySplit)->Apply(heavy_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Schedule_HeavyBeside)->Apply(heavy_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Schedule_HeavyBesideSplit)->Apply(heavy_args)->Unit(benchmark::kMillisecond)->UseRealTime();
// (the second argument only lets the smoke filter `/10000` pick it)
BENCHMARK(BM_Schedule_WaveOverhead)->Args({1, 10000})->Args({2, 10000})->Args({4, 10000})->Args({8, 10000})->Args({16, 10000})->Unit(benchmark::kMicrosecond)->UseRealTime();
