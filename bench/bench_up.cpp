/**
 * @file bench/bench_up.cpp
 * @brief Up<R, const T> terms against reading the parent's component by hand through `get`.
 *
 * World: a 3-level hierarchy of ~100k entities, 100 roots with 30 children each, each child with 32
 * leaves; every entity has Position, roots and children have Health (the value read from the
 * parent). Target (ROADMAP-2.0 K): the Up term <= 1.5x the hand-written read
 * (`target<R>(e)` / `get<Parent>(e)` then `get<Health>(parent)`), median ratio in one run, e.g.
 * `--benchmark_filter=Up_ --benchmark_repetitions=10`. Both relationships: an exclusive one
 * (BM_Up_Relation*) and ecs::Parent (BM_Up_Parent*).
 */
#include <cstdint>
#include <vector>

#include <ecs/builtin/hierarchy_ops.hpp>

#include "common.hpp"

namespace bench {
namespace {

struct BenchChildOf {};

} // namespace
} // namespace bench

template <>
struct ecs::relation_traits<bench::BenchChildOf> {
    static constexpr bool exclusive = true;
};

namespace bench {
namespace {

void populate_tree(ecs::World& world, bool by_parent) {
    for (int r = 0; r < 100; ++r) {
        const ecs::Entity root = world.create_with(Position{float(r), 0}, Health{r, 100});
        for (int c = 0; c < 30; ++c) {
            const ecs::Entity child = world.create_with(Position{float(c), 1}, Health{c, 100});
            if (by_parent) ecs::set_parent(world, child, root);
            else world.relate<BenchChildOf>(child, root);
            for (int l = 0; l < 32; ++l) {
                const ecs::Entity leaf = world.create_with(Position{float(l), 2});
                if (by_parent) ecs::set_parent(world, leaf, child);
                else world.relate<BenchChildOf>(leaf, child);
            }
        }
    }
}

void BM_Up_Relation(benchmark::State& state) {
    ecs::World world;
    populate_tree(world, false);
    for (auto _ : state) {
        int64_t sum = 0;
        world.each<const Position, ecs::Up<BenchChildOf, const Health>>(
            [&](const Position&, const Health* h) { sum += h != nullptr ? h->hp : 0; });
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(world.count<Position>()));
}
BENCHMARK(BM_Up_Relation)->Unit(benchmark::kMicrosecond);

void BM_Up_RelationByHand(benchmark::State& state) {
    ecs::World world;
    populate_tree(world, false);
    for (auto _ : state) {
        int64_t sum = 0;
        world.each<const Position>([&](ecs::Entity e, const Position&) {
            const ecs::Entity parent = world.target<BenchChildOf>(e);
            sum += parent != ecs::INVALID_ENTITY ? world.get<Health>(parent).hp : 0;
        });
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(world.count<Position>()));
}
BENCHMARK(BM_Up_RelationByHand)->Unit(benchmark::kMicrosecond);

void BM_Up_Parent(benchmark::State& state) {
    ecs::World world;
    populate_tree(world, true);
    for (auto _ : state) {
        int64_t sum = 0;
        world.each<const Position, ecs::Up<ecs::Parent, const Health>>(
            [&](const Position&, const Health* h) { sum += h != nullptr ? h->hp : 0; });
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(world.count<Position>()));
}
BENCHMARK(BM_Up_Parent)->Unit(benchmark::kMicrosecond);

void BM_Up_ParentByHand(benchmark::State& state) {
    ecs::World world;
    populate_tree(world, true);
    for (auto _ : state) {
        int64_t sum = 0;
        world.each<const Position, ecs::Optional<const ecs::Parent>>([&](const Position&, const ecs::Parent* p) {
            sum += p != nullptr && world.alive(p->entity) ? world.get<Health>(p->entity).hp : 0;
        });
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(world.count<Position>()));
}
BENCHMARK(BM_Up_ParentByHand)->Unit(benchmark::kMicrosecond);

} // namespace
} // namespace bench
