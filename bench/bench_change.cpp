/**
 * @file bench/bench_change.cpp
 * @brief Change detection: what an untracked world pays (nothing), what a tracked mutable pass pays,
 *        and how much of a full scan a Changed<T> query costs when 1% of the rows changed, clustered
 *        in a few blocks or scattered.
 */
#include <cstdint>
#include <vector>

#include "common.hpp"

namespace bench {
namespace {

template <bool Tracked>
void BM_Change_Iterate2(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    if constexpr (Tracked) world.track_changes<Position>();
    populate_pv(world, n);
    for (auto _ : state) {
        world.each<Position, const Velocity>([](ecs::Entity, Position& p, const Velocity& v) {
            p.x += v.x;
            p.y += v.y;
        });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
/// A world where nothing is tracked (compare with BM_Iterate2_Each).
void BM_Change_Iterate2_Untracked(benchmark::State& state) { BM_Change_Iterate2<false>(state); }
ECS_BENCH_RANGE(BM_Change_Iterate2_Untracked);
/// The same pass when Position (a mutable term) is tracked: every visited row is stamped.
void BM_Change_Iterate2_Tracked(benchmark::State& state) { BM_Change_Iterate2<true>(state); }
ECS_BENCH_RANGE(BM_Change_Iterate2_Tracked);

/// A world where another type is tracked: the pass over untracked columns.
void BM_Change_Iterate2_OtherTracked(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    world.track_changes<Health>();
    populate_pv(world, n);
    for (auto _ : state) {
        world.each<Position, const Velocity>([](ecs::Entity, Position& p, const Velocity& v) {
            p.x += v.x;
            p.y += v.y;
        });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Change_Iterate2_OtherTracked);

/// Changed<Position> where 1% of the rows changed since the handle's last run: the changes are made
/// once, and each iteration runs a copy of the handle (copies carry its progress).
template <bool Clustered>
void BM_Change_Changed1pct(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    world.track_changes<Position>();
    const std::vector<ecs::Entity> handles = populate_pv(world, n);
    std::vector<ecs::Entity> touched;
    const size_t k = n / 100;
    for (size_t i = 0; i < k; ++i) touched.push_back(Clustered ? handles[i] : handles[i * 100 + 37]);
    auto q = world.query<const Position, const Velocity>(ecs::Changed<Position>{});
    q.each([](const Position&, const Velocity&) {});
    for (ecs::Entity e : touched) world.mark_changed<Position>(e);
    float sum = 0;
    for (auto _ : state) {
        auto copy = q; // a copy carries q's progress: each run sees exactly the 1% again
        copy.each([&](const Position& p, const Velocity& v) { sum += p.x * v.x; });
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
void BM_Change_Changed1pct_Clustered(benchmark::State& state) { BM_Change_Changed1pct<true>(state); }
ECS_BENCH_RANGE(BM_Change_Changed1pct_Clustered);
void BM_Change_Changed1pct_Scattered(benchmark::State& state) { BM_Change_Changed1pct<false>(state); }
ECS_BENCH_RANGE(BM_Change_Changed1pct_Scattered);

/// The full scan those are compared with: the same read-only query without the filter.
void BM_Change_FullScan(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    world.track_changes<Position>();
    populate_pv(world, n);
    auto q = world.query<const Position, const Velocity>();
    float sum = 0;
    for (auto _ : state) {
        q.each([&](const Position& p, const Velocity& v) { sum += p.x * v.x; });
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Change_FullScan);

} // namespace
} // namespace bench
