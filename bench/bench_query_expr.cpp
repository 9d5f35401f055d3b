/**
 * @file bench/bench_query_expr.cpp
 * @brief Query text (query_expr.hpp) against typed queries on the same world: DynamicQuery::each over
 *        two value terms against world.each<Position, Velocity>, the same with a filter and an
 *        optional term, count(), and the cost of parsing and resolving a text.
 *
 * Target (ROADMAP 2.0 K): DynamicQuery::each over two value terms <= 1.3x the typed each at 1M
 * (read the median ratio of BM_QueryExpr_EachDynamic to BM_QueryExpr_EachTyped in one run, e.g.
 * `--benchmark_filter=QueryExpr_Each --benchmark_repetitions=10`).
 */
#include <cstdint>
#include <string>

#include <ecs/query_expr.hpp>

#include "common.hpp"

namespace bench {
namespace {

/// The text name of a bench component (its registered or type name).
std::string name_of(ecs::ComponentTypeID id) { return std::string(ecs::component_info(id).name); }

std::string two_terms() { return name_of(ecs::component_id<Position>()) + ", " + name_of(ecs::component_id<Velocity>()); }

void BM_QueryExpr_EachTyped(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    populate_pv(world, n);
    for (auto _ : state) {
        world.each<Position, Velocity>([](ecs::Entity, Position& p, Velocity& v) {
            p.x += v.x;
            p.y += v.y;
        });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_QueryExpr_EachTyped);

void BM_QueryExpr_EachDynamic(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    populate_pv(world, n);
    ecs::DynamicQuery q = ecs::query_expr(world, two_terms());
    if (!q) state.SkipWithError(q.error().c_str());
    for (auto _ : state) {
        q.each([](ecs::Entity, void* const* c) {
            Position& p = *static_cast<Position*>(c[0]);
            const Velocity& v = *static_cast<const Velocity*>(c[1]);
            p.x += v.x;
            p.y += v.y;
        });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_QueryExpr_EachDynamic);

/// Two value terms, a Without filter and an Optional term (three pointers), over a world where one
/// entity in four has the excluded tag and one in eight the optional component.
void BM_QueryExpr_EachFilteredTyped(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    std::vector<ecs::Entity> handles = populate_pv(world, n);
    for (size_t i = 0; i < n; i += 4) world.add(handles[i], Tag{});
    for (size_t i = 1; i < n; i += 8) world.add(handles[i], Health{1, 1});
    for (auto _ : state) {
        world.each<Position, const Velocity, ecs::Optional<Health>>(ecs::Without<Tag>{},
                                                                     [](ecs::Entity, Position& p, const Velocity& v, Health* h) {
                                                                         p.x += v.x;
                                                                         p.y += h != nullptr ? 1.0f : v.y;
                                                                     });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_QueryExpr_EachFilteredTyped);

void BM_QueryExpr_EachFilteredDynamic(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    std::vector<ecs::Entity> handles = populate_pv(world, n);
    for (size_t i = 0; i < n; i += 4) world.add(handles[i], Tag{});
    for (size_t i = 1; i < n; i += 8) world.add(handles[i], Health{1, 1});
    const std::string text = name_of(ecs::component_id<Position>()) + ", [in] " + name_of(ecs::component_id<Velocity>()) +
                             ", ?" + name_of(ecs::component_id<Health>()) + ", !" + name_of(ecs::component_id<Tag>());
    ecs::DynamicQuery q = ecs::query_expr(world, text);
    if (!q) state.SkipWithError(q.error().c_str());
    for (auto _ : state) {
        q.each([](ecs::Entity, void* const* c) {
            Position& p = *static_cast<Position*>(c[0]);
            const Velocity& v = *static_cast<const Velocity*>(c[1]);
            p.x += v.x;
            p.y += c[2] != nullptr ? 1.0f : v.y;
        });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_QueryExpr_EachFilteredDynamic);

void BM_QueryExpr_Count(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    populate_pv(world, n);
    ecs::DynamicQuery q = ecs::query_expr(world, two_terms());
    for (auto _ : state) {
        size_t c = q.count();
        benchmark::DoNotOptimize(c);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_QueryExpr_Count);

/// Parsing and resolving a text of four terms (independent of N: the world only holds the types).
void BM_QueryExpr_Parse(benchmark::State& state) {
    ecs::World world;
    populate_pv(world, arg_n(state));
    world.create_with(Health{1, 1}, Tag{}); // the names resolve once the types are in use
    const std::string text = two_terms() + ", ?" + name_of(ecs::component_id<Health>()) + ", !" + name_of(ecs::component_id<Tag>());
    for (auto _ : state) {
        ecs::DynamicQuery q = ecs::query_expr(world, text);
        benchmark::DoNotOptimize(q.terms().data());
    }
    state.SetItemsProcessed(state.iterations());
}
ECS_BENCH_RANGE(BM_QueryExpr_Parse);

} // namespace
} // namespace bench
