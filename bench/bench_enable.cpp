/**
 * @file bench/bench_enable.cpp
 * @brief Enable bits: toggling a component's or an entity's bit (target <= 3 ns per toggle) against a
 *        raw bit flip, and iteration with nothing, 1% and 50% disabled against the plain pass.
 *
 * The "nothing disabled" pass is the one bench_iteration's BM_Iterate2_Each measures; compare it
 * with the same file built before enable bits to see what they cost a world that does not use them.
 */
#include <cstdint>
#include <vector>

#include "common.hpp"

namespace bench {
namespace {

// --- toggle: disable<Velocity>(e) then enable<Velocity>(e), for every entity in creation order -----

void BM_Enable_ToggleComponent(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    const std::vector<ecs::Entity> handles = populate_pv(world, n);
    for (ecs::Entity e : handles) world.disable<Velocity>(e); // warm-up: the bit column exists
    for (ecs::Entity e : handles) world.enable<Velocity>(e);
    for (auto _ : state) {
        for (ecs::Entity e : handles) {
            world.disable<Velocity>(e);
            world.enable<Velocity>(e);
        }
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0) * 2); // toggles
}
ECS_BENCH_RANGE(BM_Enable_ToggleComponent);

void BM_Enable_ToggleEntity(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    const std::vector<ecs::Entity> handles = populate_pv(world, n);
    for (ecs::Entity e : handles) world.disable(e);
    for (ecs::Entity e : handles) world.enable(e);
    for (auto _ : state) {
        for (ecs::Entity e : handles) {
            world.disable(e);
            world.enable(e);
        }
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0) * 2);
}
ECS_BENCH_RANGE(BM_Enable_ToggleEntity);

/// Baseline: the same toggles on a plain bit vector indexed by a handle -> row table (the lookup
/// every toggle has to make), with the handle's generation checked like alive() does.
void BM_Raw_Toggle(benchmark::State& state) {
    const size_t n = arg_n(state);
    struct Record {
        uint32_t row;
        uint32_t generation;
    };
    std::vector<Record> records(n);
    std::vector<uint64_t> bits((n + 63) / 64, 0);
    for (size_t i = 0; i < n; ++i) records[i] = Record{static_cast<uint32_t>(i), 1};
    std::vector<ecs::Entity> handles(n);
    for (size_t i = 0; i < n; ++i) handles[i] = ecs::Entity{static_cast<uint32_t>(i), 1};
    for (auto _ : state) {
        for (ecs::Entity e : handles) {
            if (e.index < records.size() && records[e.index].generation == e.generation) {
                const uint32_t row = records[e.index].row;
                bits[row >> 6] |= uint64_t(1) << (row & 63);
            }
            if (e.index < records.size() && records[e.index].generation == e.generation) {
                const uint32_t row = records[e.index].row;
                bits[row >> 6] &= ~(uint64_t(1) << (row & 63));
            }
        }
        benchmark::ClobberMemory();
    }
    benchmark::DoNotOptimize(bits.data());
    state.SetItemsProcessed(state.iterations() * state.range(0) * 2);
}
ECS_BENCH_RANGE(BM_Raw_Toggle);

// --- iteration: p += v over N {Position, Velocity}, with some Velocity disabled ---------------------

void iterate(benchmark::State& state, size_t disabled_every) {
    const size_t n = arg_n(state);
    ecs::World world;
    const std::vector<ecs::Entity> handles = populate_pv(world, n);
    if (disabled_every != 0)
        for (size_t i = 0; i < n; i += disabled_every) world.disable<Velocity>(handles[i]);
    for (auto _ : state) {
        world.each<Position, const Velocity>([](ecs::Entity, Position& p, const Velocity& v) {
            p.x += v.x;
            p.y += v.y;
        });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

/// Nothing disabled, but the archetype once had a disabled row (its bit column exists, all clear).
void BM_Enable_Iterate_NoneDisabled(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    const std::vector<ecs::Entity> handles = populate_pv(world, n);
    world.disable<Velocity>(handles[0]);
    world.enable<Velocity>(handles[0]);
    for (auto _ : state) {
        world.each<Position, const Velocity>([](ecs::Entity, Position& p, const Velocity& v) {
            p.x += v.x;
            p.y += v.y;
        });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Enable_Iterate_NoneDisabled);

/// Never disabled: the pass every world that does not use enable bits runs.
void BM_Enable_Iterate_NeverDisabled(benchmark::State& state) { iterate(state, 0); }
ECS_BENCH_RANGE(BM_Enable_Iterate_NeverDisabled);

void BM_Enable_Iterate_1PercentDisabled(benchmark::State& state) { iterate(state, 100); }
ECS_BENCH_RANGE(BM_Enable_Iterate_1PercentDisabled);

void BM_Enable_Iterate_HalfDisabled(benchmark::State& state) { iterate(state, 2); }
ECS_BENCH_RANGE(BM_Enable_Iterate_HalfDisabled);

/// Baseline: the same pass over two plain vectors.
void BM_Raw_Iterate(benchmark::State& state) {
    const size_t n = arg_n(state);
    std::vector<Position> positions(n);
    std::vector<Velocity> velocities(n);
    for (size_t i = 0; i < n; ++i) {
        positions[i] = position_of(i);
        velocities[i] = velocity_of(i);
    }
    for (auto _ : state) {
        Position* p = positions.data();
        const Velocity* v = velocities.data();
        for (size_t i = 0; i < n; ++i) {
            p[i].x += v[i].x;
            p[i].y += v[i].y;
        }
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Raw_Iterate);

} // namespace
} // namespace bench
