/**
 * @file bench/bench_prefab.cpp
 * @brief Prefab instantiation against create_with of the same components, into a fresh world
 *        (world lifetime untimed). Compiled only when <ecs/prefab.hpp> exists.
 */
#if __has_include(<ecs/prefab.hpp>)

#include <ecs/prefab.hpp>

#include "common.hpp"

namespace bench {
namespace {

ecs::Prefab make_prefab() { return ecs::Prefab::create(Position{0.0f, 0.0f}, Velocity{1.0f, 0.5f}, Health{100, 100}); }

void BM_PrefabInstantiate(benchmark::State& state) {
    const size_t n = arg_n(state);
    const ecs::Prefab prefab = make_prefab();
    for (auto _ : state) {
        ecs::World world;
        const PhaseTimer timer;
        for (size_t i = 0; i < n; ++i) {
            ecs::Entity e = ecs::instantiate(world, prefab);
            benchmark::DoNotOptimize(e);
        }
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(world.count());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE_MANUAL(BM_PrefabInstantiate);

/// With one override (a Position per entity), the common way prefabs are used.
void BM_PrefabInstantiate_Override(benchmark::State& state) {
    const size_t n = arg_n(state);
    const ecs::Prefab prefab = make_prefab();
    for (auto _ : state) {
        ecs::World world;
        const PhaseTimer timer;
        for (size_t i = 0; i < n; ++i) {
            ecs::Entity e = ecs::instantiate(world, prefab, position_of(i));
            benchmark::DoNotOptimize(e);
        }
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(world.count());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE_MANUAL(BM_PrefabInstantiate_Override);

/// Twin: create_with of the same three components.
void BM_PrefabCreateWithTwin(benchmark::State& state) {
    const size_t n = arg_n(state);
    for (auto _ : state) {
        ecs::World world;
        const PhaseTimer timer;
        for (size_t i = 0; i < n; ++i) {
            ecs::Entity e = world.create_with(position_of(i), Velocity{1.0f, 0.5f}, Health{100, 100});
            benchmark::DoNotOptimize(e);
        }
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(world.count());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE_MANUAL(BM_PrefabCreateWithTwin);

} // namespace
} // namespace bench

#endif // __has_include(<ecs/prefab.hpp>)
