/**
 * @file bench/bench_structural.cpp
 * @brief Structural changes: create, destroy, add + remove (archetype migration), each against the
 *        plain-vector baseline where one exists.
 */
#include <cstdint>
#include <vector>

#include "common.hpp"

namespace bench {
namespace {

// --- create: N x create_with<Position, Velocity> into a fresh world (world lifetime untimed) -------

void BM_Create(benchmark::State& state) {
    const size_t n = arg_n(state);
    for (auto _ : state) {
        ecs::World world;
        const PhaseTimer timer;
        for (size_t i = 0; i < n; ++i) {
            ecs::Entity e = world.create_with(position_of(i), velocity_of(i));
            benchmark::DoNotOptimize(e);
        }
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(world.count());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE_MANUAL(BM_Create);

/// Baseline: push_back into two fresh SoA vectors.
void BM_Raw_Create(benchmark::State& state) {
    const size_t n = arg_n(state);
    for (auto _ : state) {
        std::vector<Position> positions;
        std::vector<Velocity> velocities;
        const PhaseTimer timer;
        for (size_t i = 0; i < n; ++i) {
            positions.push_back(position_of(i));
            velocities.push_back(velocity_of(i));
        }
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(positions.data());
        benchmark::DoNotOptimize(velocities.data());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE_MANUAL(BM_Raw_Create);

// --- destroy: N entities, in creation order (world build and teardown untimed) --------------------

void BM_Destroy(benchmark::State& state) {
    const size_t n = arg_n(state);
    for (auto _ : state) {
        ecs::World world;
        const std::vector<ecs::Entity> handles = populate_pv(world, n);
        const PhaseTimer timer;
        for (ecs::Entity e : handles) world.destroy(e);
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(world.count());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE_MANUAL(BM_Destroy);

/// Baseline: swap-remove from SoA vectors with a handle -> row table and a row -> handle list (the
/// least bookkeeping a destroy that keeps rows dense and handles valid can do).
void BM_Raw_Destroy(benchmark::State& state) {
    const size_t n = arg_n(state);
    for (auto _ : state) {
        std::vector<Position> positions(n);
        std::vector<Velocity> velocities(n);
        std::vector<uint32_t> row_of(n);
        std::vector<uint32_t> handle_at(n);
        for (size_t i = 0; i < n; ++i) {
            positions[i] = position_of(i);
            velocities[i] = velocity_of(i);
            row_of[i] = static_cast<uint32_t>(i);
            handle_at[i] = static_cast<uint32_t>(i);
        }
        const PhaseTimer timer;
        for (size_t h = 0; h < n; ++h) {
            const uint32_t row = row_of[h];
            const size_t last = positions.size() - 1;
            positions[row] = positions[last];
            velocities[row] = velocities[last];
            const uint32_t moved = handle_at[last];
            handle_at[row] = moved;
            row_of[moved] = row;
            positions.pop_back();
            velocities.pop_back();
            handle_at.pop_back();
        }
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(positions.size());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE_MANUAL(BM_Raw_Destroy);

// --- add_remove: per entity, add Health then remove it (two migrations; the world ends as it began) -

void BM_AddRemove(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    const std::vector<ecs::Entity> handles = populate_pv(world, n);
    for (ecs::Entity e : handles) { // warm-up: create the {P, V, Health} archetype and grow its block
        world.add(e, Health{100, 100});
    }
    for (ecs::Entity e : handles) world.remove<Health>(e);
    for (auto _ : state) {
        for (ecs::Entity e : handles) {
            world.add(e, Health{100, 100});
            world.remove<Health>(e);
        }
        benchmark::DoNotOptimize(world.count());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_AddRemove);

} // namespace
} // namespace bench
