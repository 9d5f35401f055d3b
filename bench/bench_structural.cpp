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

/// Baseline: the same two migrations written by hand for these three types. Two SoA tables
/// ({Position, Velocity} and {Position, Velocity, Health}) with row -> handle lists and a handle ->
/// (table, row) record; each step appends the row to the other table and swap-removes it from its
/// own. This is what an archetype migration costs when every type is known at compile time.
void BM_Raw_AddRemove(benchmark::State& state) {
    const size_t n = arg_n(state);
    struct Table {
        std::vector<Position> p;
        std::vector<Velocity> v;
        std::vector<Health> h; // empty in the {P, V} table
        std::vector<uint32_t> handle;
    };
    struct Record {
        uint32_t table;
        uint32_t row;
    };
    Table tables[2];
    std::vector<Record> records(n);
    for (Table& t : tables) {
        t.p.reserve(n);
        t.v.reserve(n);
        t.h.reserve(n);
        t.handle.reserve(n);
    }
    for (size_t i = 0; i < n; ++i) {
        tables[0].p.push_back(position_of(i));
        tables[0].v.push_back(velocity_of(i));
        tables[0].handle.push_back(static_cast<uint32_t>(i));
        records[i] = Record{0, static_cast<uint32_t>(i)};
    }
    // Moves handle `e` from its table to table `to`, appending its row there and closing the hole.
    const auto migrate = [&](uint32_t e, uint32_t to) {
        Record& r = records[e];
        Table& src = tables[r.table];
        Table& dst = tables[to];
        const uint32_t row = r.row;
        const size_t last = src.handle.size() - 1;
        dst.p.push_back(src.p[row]);
        dst.v.push_back(src.v[row]);
        dst.handle.push_back(e);
        src.p[row] = src.p[last];
        src.v[row] = src.v[last];
        src.p.pop_back();
        src.v.pop_back();
        if (!src.h.empty()) {
            src.h[row] = src.h[last];
            src.h.pop_back();
        }
        const uint32_t moved = src.handle[last];
        src.handle[row] = moved;
        records[moved].row = row;
        src.handle.pop_back();
        r = Record{to, static_cast<uint32_t>(dst.handle.size() - 1)};
    };
    for (auto _ : state) {
        for (size_t i = 0; i < n; ++i) {
            const auto e = static_cast<uint32_t>(i);
            migrate(e, 1);
            tables[1].h.push_back(Health{100, 100});
            migrate(e, 0);
        }
        benchmark::DoNotOptimize(tables[0].p.data());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Raw_AddRemove);

} // namespace
} // namespace bench
