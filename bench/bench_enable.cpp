/**
 * @file bench/bench_enable.cpp
 * @brief Enable bits: toggling a component's or an entity's bit (target <= 3 ns per toggle) against a
 *        raw bit flip, and iteration with nothing, 1% and 50% disabled against the plain pass.
 *
 * The "nothing disabled" pass is the one bench_iteration's BM_Iterate2_Each measures; compare it
 * with the same file built before enable bits to see what they cost a world that does not use them.
 *
 * Sparse storage: add + remove of a sparse component (target <= 8 ns per pair) against the same pair
 * on a table component (two archetype migrations), and a pass over a sparse term.
 */
#include <cstdint>
#include <vector>

#include "common.hpp"

namespace bench {
/// A sparse component (component_traits below).
struct Poison {
    int damage;
};
} // namespace bench

template <>
struct ecs::component_traits<bench::Poison> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};

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

// --- sparse: add + remove of one component, for every entity in creation order ---------------------

void BM_Sparse_AddRemove(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    const std::vector<ecs::Entity> handles = populate_pv(world, n);
    for (ecs::Entity e : handles) world.add(e, Poison{1}); // warm-up: the set's pages and index exist
    for (ecs::Entity e : handles) world.remove<Poison>(e);
    for (auto _ : state) {
        for (ecs::Entity e : handles) {
            world.add(e, Poison{1});
            world.remove<Poison>(e);
        }
        benchmark::DoNotOptimize(world.count());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0)); // add + remove pairs
}
ECS_BENCH_RANGE(BM_Sparse_AddRemove);

/// The same pair on a table component: two archetype migrations (bench_structural's BM_AddRemove).
void BM_Table_AddRemove(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    const std::vector<ecs::Entity> handles = populate_pv(world, n);
    for (ecs::Entity e : handles) world.add(e, Health{100, 100});
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
ECS_BENCH_RANGE(BM_Table_AddRemove);

/// p.x += poison over N {Position, Velocity} entities, every tenth holding a sparse Poison.
void BM_Sparse_IterateTerm(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    const std::vector<ecs::Entity> handles = populate_pv(world, n);
    for (size_t i = 0; i < n; i += 10) world.add(handles[i], Poison{1});
    for (auto _ : state) {
        world.each<Position, const Poison>([](Position& p, const Poison& x) { p.x += float(x.damage); });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0)); // rows tested
}
ECS_BENCH_RANGE(BM_Sparse_IterateTerm);

} // namespace
} // namespace bench
