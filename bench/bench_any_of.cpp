/**
 * @file bench/bench_any_of.cpp
 * @brief AnyOf<A, B> against the two queries that visit the same entities by hand:
 *        each(With<A>) then each(With<B>, Without<A>).
 *
 * World: n entities with Position and Velocity; a third also have A, a third B, a sixth both, the
 * rest neither (five archetypes). Target (ROADMAP-2.0 K): AnyOf costs no more than the two queries
 * (read the median ratio of BM_AnyOf_Filter to BM_AnyOf_TwoQueries in one run, e.g.
 * `--benchmark_filter=AnyOf --benchmark_repetitions=10`). The _Disabled pair has A disabled on one
 * row in eight, so AnyOf takes its row path (enable words ANDed) where the two queries take theirs.
 */
#include <cstdint>
#include <vector>

#include "common.hpp"

namespace bench {
namespace {

std::vector<ecs::Entity> populate_any(ecs::World& world, size_t n, bool disable) {
    std::vector<ecs::Entity> handles = populate_pv(world, n);
    for (size_t i = 0; i < n; ++i) {
        switch (i % 6) {
        case 0: world.add(handles[i], A{1}); break;
        case 1: world.add(handles[i], B{1}); break;
        case 2: world.add(handles[i], A{1}, B{1}); break;
        case 3: world.add(handles[i], A{1}); break;
        case 4: world.add(handles[i], B{1}); break;
        default: break;
        }
    }
    if (disable)
        for (size_t i = 0; i < n; i += 8)
            if (world.has<A>(handles[i])) world.disable<A>(handles[i]);
    return handles;
}

void step(Position& p, const Velocity& v) {
    p.x += v.x;
    p.y += v.y;
}

void any_of(benchmark::State& state, bool disable) {
    const size_t n = arg_n(state);
    ecs::World world;
    populate_any(world, n, disable);
    for (auto _ : state) {
        world.each<Position, const Velocity>(ecs::AnyOf<A, B>{}, step);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

void two_queries(benchmark::State& state, bool disable) {
    const size_t n = arg_n(state);
    ecs::World world;
    populate_any(world, n, disable);
    for (auto _ : state) {
        // With<A> skips a disabled A and Without<A> passes it: together, AnyOf's rows.
        world.each<Position, const Velocity>(ecs::With<A>{}, step);
        world.each<Position, const Velocity>(ecs::With<B>{}, ecs::Without<A>{}, step);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_AnyOf_Filter(benchmark::State& state) { any_of(state, false); }
void BM_AnyOf_TwoQueries(benchmark::State& state) { two_queries(state, false); }
void BM_AnyOf_Filter_Disabled(benchmark::State& state) { any_of(state, true); }
void BM_AnyOf_TwoQueries_Disabled(benchmark::State& state) { two_queries(state, true); }
ECS_BENCH_RANGE(BM_AnyOf_Filter);
ECS_BENCH_RANGE(BM_AnyOf_TwoQueries);
ECS_BENCH_RANGE(BM_AnyOf_Filter_Disabled);
ECS_BENCH_RANGE(BM_AnyOf_TwoQueries_Disabled);

} // namespace
} // namespace bench
