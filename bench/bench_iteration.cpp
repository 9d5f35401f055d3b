/**
 * @file bench/bench_iteration.cpp
 * @brief Query iteration: a dense two-component pass, a three-component pass over a fragmented world,
 *        and the fixed cost of a cached query in a world of 1,000 archetypes.
 */
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "common.hpp"

namespace bench {
namespace {

// --- iterate_2: p += v over N {Position, Velocity} entities -----------------------------------------

void BM_Iterate2_Each(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
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
ECS_BENCH_SCALING(BM_Iterate2_Each);

void BM_Iterate2_EachNoEntity(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    populate_pv(world, n);
    for (auto _ : state) {
        world.each_no_entity<Position, const Velocity>([](Position& p, const Velocity& v) {
            p.x += v.x;
            p.y += v.y;
        });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Iterate2_EachNoEntity);

/// The same pass through a query handle made once (1.0): must cost what world.each costs.
void BM_Iterate2_QueryHandle(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    populate_pv(world, n);
    auto q = world.query<Position, const Velocity>();
    for (auto _ : state) {
        q.each([](Position& p, const Velocity& v) {
            p.x += v.x;
            p.y += v.y;
        });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Iterate2_QueryHandle);

/// The same pass written by hand over each_chunk's columns (1.0): the raw loop inside the library.
void BM_Iterate2_EachChunk(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    populate_pv(world, n);
    auto q = world.query<Position, const Velocity>();
    for (auto _ : state) {
        q.each_chunk([](ecs::Chunk& c) {
            Position* p = c.get<Position>();
            const Velocity* v = c.get<const Velocity>();
            const size_t rows = c.size();
            for (size_t i = 0; i < rows; ++i) {
                p[i].x += v[i].x;
                p[i].y += v[i].y;
            }
        });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Iterate2_EachChunk);

/// With an Optional term over a world where half the entities have it (1.0).
void BM_Iterate2_Optional(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    populate_pv(world, n);
    for (auto _ : state) {
        world.each<Position, ecs::Optional<const Velocity>>([](Position& p, const Velocity* v) {
            if (v != nullptr) {
                p.x += v->x;
                p.y += v->y;
            }
        });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Iterate2_Optional);

/// Baseline: the same loop over two plain vectors.
void BM_Raw_Iterate2(benchmark::State& state) {
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
ECS_BENCH_SCALING(BM_Raw_Iterate2);

// --- iterate_3_fragmented ---------------------------------------------------------------------------
// Entity i gets Position + Velocity, the subset (i % 16) of {A, B, C, D}, and Health when i % 3 == 0:
// 32 archetypes, 16 of them matching {Position, Velocity, Health} with about N/3 rows in all.

template <size_t Bit>
void add_dummy(ecs::World& world, ecs::Entity e) {
    if constexpr (Bit == 0) world.add(e, A{1.0f});
    if constexpr (Bit == 1) world.add(e, B{1.0f});
    if constexpr (Bit == 2) world.add(e, C{1.0f});
    if constexpr (Bit == 3) world.add(e, D{1.0f});
}

/// Builds the fragmented world; returns the number of entities the 3-component query matches.
size_t populate_fragmented(ecs::World& world, size_t n) {
    using Adder = void (*)(ecs::World&, ecs::Entity);
    const std::array<Adder, 4> adders{&add_dummy<0>, &add_dummy<1>, &add_dummy<2>, &add_dummy<3>};
    size_t matching = 0;
    for (size_t i = 0; i < n; ++i) {
        const ecs::Entity e = world.create_with(position_of(i), velocity_of(i));
        const size_t subset = i % 16;
        for (size_t bit = 0; bit < 4; ++bit)
            if (subset & (size_t(1) << bit)) adders[bit](world, e);
        if (i % 3 == 0) {
            world.add(e, Health{100, 100});
            ++matching;
        }
    }
    return matching;
}

inline void update3(Position& p, const Velocity& v, Health& h) {
    p.x += v.x;
    p.y += v.y;
    h.hp -= 1;
}

void BM_Iterate3Fragmented(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    const size_t matching = populate_fragmented(world, n);
    for (auto _ : state) {
        world.each_no_entity<Position, const Velocity, Health>(
            [](Position& p, const Velocity& v, Health& h) { update3(p, v, h); });
        benchmark::ClobberMemory();
    }
    state.counters["matching_rows"] = static_cast<double>(matching);
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(matching));
}
ECS_BENCH_RANGE(BM_Iterate3Fragmented);

void BM_Iterate3Fragmented_Each(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    const size_t matching = populate_fragmented(world, n);
    for (auto _ : state) {
        world.each<Position, const Velocity, Health>(
            [](ecs::Entity, Position& p, const Velocity& v, Health& h) { update3(p, v, h); });
        benchmark::ClobberMemory();
    }
    state.counters["matching_rows"] = static_cast<double>(matching);
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(matching));
}
ECS_BENCH_RANGE(BM_Iterate3Fragmented_Each);

/// Baseline: the same loop over three plain vectors holding only the matching rows.
void BM_Raw_Iterate3Fragmented(benchmark::State& state) {
    const size_t n = arg_n(state);
    const size_t matching = (n + 2) / 3;
    std::vector<Position> positions(matching);
    std::vector<Velocity> velocities(matching);
    std::vector<Health> healths(matching, Health{100, 100});
    for (size_t i = 0; i < matching; ++i) {
        positions[i] = position_of(i);
        velocities[i] = velocity_of(i);
    }
    for (auto _ : state) {
        Position* p = positions.data();
        const Velocity* v = velocities.data();
        Health* h = healths.data();
        for (size_t i = 0; i < matching; ++i) update3(p[i], v[i], h[i]);
        benchmark::ClobberMemory();
    }
    state.counters["matching_rows"] = static_cast<double>(matching);
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(matching));
}
ECS_BENCH_RANGE(BM_Raw_Iterate3Fragmented);

// --- query-cache hit cost with 1,000 archetypes -----------------------------------------------------
// 996 archetypes {Position} + a subset of ten dummies share the N entities; 4 more archetypes also
// hold `Rare` with one entity each. The cost per call of a cached query is then independent of N.

template <size_t I>
struct Dummy {
    int v;
};
struct Rare {
    int v;
};
struct Never {
    int v;
};

constexpr size_t DUMMY_TYPES = 10;
constexpr size_t COMMON_ARCHETYPES = 996;
constexpr size_t RARE_ARCHETYPES = 4;

using DummyAdder = void (*)(ecs::World&, ecs::Entity);

template <size_t... Is>
constexpr std::array<DummyAdder, sizeof...(Is)> make_dummy_adders(std::index_sequence<Is...>) {
    return {{+[](ecs::World& w, ecs::Entity e) { w.add(e, Dummy<Is>{1}); }...}};
}

void add_dummies(ecs::World& world, ecs::Entity e, size_t subset) {
    static constexpr auto adders = make_dummy_adders(std::make_index_sequence<DUMMY_TYPES>{});
    for (size_t bit = 0; bit < DUMMY_TYPES; ++bit)
        if (subset & (size_t(1) << bit)) adders[bit](world, e);
}

void populate_many_archetypes(ecs::World& world, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        const ecs::Entity e = world.create_with(position_of(i));
        add_dummies(world, e, i % COMMON_ARCHETYPES);
    }
    for (size_t r = 0; r < RARE_ARCHETYPES; ++r) {
        const ecs::Entity e = world.create_with(position_of(r), Rare{1});
        add_dummies(world, e, r);
    }
}

void BM_QueryCache_Few(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    populate_many_archetypes(world, n);
    int sum = 0;
    // The first call builds the cache entry; the timed calls are hits.
    world.each_no_entity<const Position, const Rare>([&sum](const Position&, const Rare& r) { sum += r.v; });
    for (auto _ : state) {
        world.each_no_entity<const Position, const Rare>([&sum](const Position&, const Rare& r) { sum += r.v; });
        benchmark::DoNotOptimize(sum);
    }
    state.counters["archetypes"] = static_cast<double>(world.archetype_count());
    state.SetItemsProcessed(state.iterations());
}
ECS_BENCH_RANGE(BM_QueryCache_Few)->Unit(benchmark::kNanosecond);

void BM_QueryCache_None(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    populate_many_archetypes(world, n);
    int sum = 0;
    world.each_no_entity<const Position, const Never>([&sum](const Position&, const Never& v) { sum += v.v; });
    for (auto _ : state) {
        world.each_no_entity<const Position, const Never>([&sum](const Position&, const Never& v) { sum += v.v; });
        benchmark::DoNotOptimize(sum);
    }
    state.counters["archetypes"] = static_cast<double>(world.archetype_count());
    state.SetItemsProcessed(state.iterations());
}
ECS_BENCH_RANGE(BM_QueryCache_None)->Unit(benchmark::kNanosecond);

} // namespace
} // namespace bench
