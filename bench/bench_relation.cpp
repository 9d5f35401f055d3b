/**
 * @file bench/bench_relation.cpp
 * @brief Relationships (relation.hpp), read as ratios within one run:
 *        - relate + unrelate of a pair against add + remove of a tag (target: <= 2x); both move the
 *          entity between two archetypes (relating the first target adds the HasRelation tag), so the
 *          ratio is the price of the index. BM_RelateUnrelate_Tagged relates a second target to a
 *          source that keeps its first one: the index alone, no migration;
 *        - each_source over k sources against a loop over a std::vector<Entity> (target: <= 2 ns per
 *          source);
 *        - Cascade<ChildOf> iteration over a forest against a plain query over the same entities
 *          (target: <= 3x at 100k), with a light body (one float add) and a propagation body (reads
 *          the parent's Position through world.get), for a forest created tree by tree (depths
 *          interleaved in every archetype: the hard case) and one created level by level.
 */
#include <cstdint>
#include <vector>

#include "common.hpp"

namespace {
struct BenchLikes {};
struct BenchChildOf {};
} // namespace

template <>
struct ecs::relation_traits<BenchChildOf> {
    static constexpr bool exclusive = true;
    static constexpr ecs::OnDeleteTarget on_delete_target = ecs::OnDeleteTarget::destroy_sources;
};

namespace bench {
namespace {

// --- relate + unrelate vs add + remove of a tag ----------------------------------------------------

void BM_RelateUnrelate(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    const std::vector<ecs::Entity> h = populate_pv(world, n);
    for (size_t i = 0; i < n; ++i) world.relate<BenchLikes>(h[i], h[(i + 1) % n]); // warm: archetypes, edges, index
    for (size_t i = 0; i < n; ++i) world.unrelate<BenchLikes>(h[i], h[(i + 1) % n]);
    for (auto _ : state) {
        for (size_t i = 0; i < n; ++i) {
            world.relate<BenchLikes>(h[i], h[(i + 1) % n]);
            world.unrelate<BenchLikes>(h[i], h[(i + 1) % n]);
        }
        benchmark::DoNotOptimize(world.count());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_RelateUnrelate);

/// A second target for sources that keep their first: no archetype change, the index alone.
void BM_RelateUnrelate_Tagged(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    const std::vector<ecs::Entity> h = populate_pv(world, n);
    for (size_t i = 0; i < n; ++i) world.relate<BenchLikes>(h[i], h[(i + 2) % n]);
    for (auto _ : state) {
        for (size_t i = 0; i < n; ++i) {
            world.relate<BenchLikes>(h[i], h[(i + 1) % n]);
            world.unrelate<BenchLikes>(h[i], h[(i + 1) % n]);
        }
        benchmark::DoNotOptimize(world.count());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_RelateUnrelate_Tagged);

/// The reference: add + remove of an empty tag (two migrations, as relate + unrelate of a first pair).
void BM_AddRemoveTag(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    const std::vector<ecs::Entity> h = populate_pv(world, n);
    for (size_t i = 0; i < n; ++i) world.add(h[i], Tag{});
    for (size_t i = 0; i < n; ++i) world.remove<Tag>(h[i]);
    for (auto _ : state) {
        for (size_t i = 0; i < n; ++i) {
            world.add(h[i], Tag{});
            world.remove<Tag>(h[i]);
        }
        benchmark::DoNotOptimize(world.count());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_AddRemoveTag);

// --- each_source over k sources ----------------------------------------------------------------------

void BM_EachSource(benchmark::State& state) {
    const size_t k = arg_n(state);
    ecs::World world;
    const ecs::Entity target = world.create_with(position_of(0));
    const std::vector<ecs::Entity> sources = populate_pv(world, k);
    for (const ecs::Entity s : sources) world.relate<BenchLikes>(s, target);
    for (auto _ : state) {
        uint64_t sum = 0;
        world.each_source<BenchLikes>(target, [&](ecs::Entity s) { sum += s.index; });
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_EachSource);

/// Baseline: the sources in a std::vector<Entity>.
void BM_Raw_EachSource(benchmark::State& state) {
    const size_t k = arg_n(state);
    std::vector<ecs::Entity> sources(k);
    for (size_t i = 0; i < k; ++i) sources[i] = ecs::Entity{static_cast<uint32_t>(i + 2), 1};
    for (auto _ : state) {
        uint64_t sum = 0;
        for (const ecs::Entity s : sources) sum += s.index;
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Raw_EachSource);

// --- Cascade over a forest vs a plain query ---------------------------------------------------------

constexpr size_t kBranching = 4;
constexpr size_t kTreeDepth = 4; // 1 + 4 + 16 + 64 + 256 = 341 nodes per tree

/// `n` entities with Position (a third also with Velocity: two archetypes), in trees of kBranching
/// children per node down to kTreeDepth, related by BenchChildOf. `level_order`: all roots first,
/// then every depth-1 node, ...; else tree by tree, depth first (depths interleave in the rows).
void build_forest(ecs::World& world, size_t n, bool level_order) {
    size_t tree_size = 0;
    for (size_t d = 0, width = 1; d <= kTreeDepth; ++d, width *= kBranching) tree_size += width;
    const size_t trees = (n + tree_size - 1) / tree_size;
    // Node j of a tree (breadth-first numbering): parent (j - 1) / kBranching.
    std::vector<ecs::Entity> nodes(trees * tree_size);
    size_t made = 0;
    auto make = [&](size_t t, size_t j) {
        if (made == n) return;
        const size_t id = t * tree_size + j;
        nodes[id] = made % 3 == 0 ? world.create_with(position_of(made), velocity_of(made)) : world.create_with(position_of(made));
        ++made;
        if (j != 0) world.relate<BenchChildOf>(nodes[id], nodes[t * tree_size + (j - 1) / kBranching]);
    };
    if (level_order) {
        for (size_t begin = 0, width = 1; begin < tree_size; begin += width, width *= kBranching)
            for (size_t t = 0; t < trees; ++t)
                for (size_t j = begin; j < begin + width; ++j) make(t, j);
    } else {
        std::vector<size_t> stack;
        for (size_t t = 0; t < trees; ++t) {
            stack.assign(1, 0);
            while (!stack.empty()) { // depth first: a node, then its subtrees
                const size_t j = stack.back();
                stack.pop_back();
                make(t, j);
                for (size_t c = kBranching; c > 0; --c)
                    if (j * kBranching + c < tree_size) stack.push_back(j * kBranching + c);
            }
        }
    }
}

template <bool Cascade, bool Propagate>
void forest_run(benchmark::State& state) {
    const size_t n = arg_n(state);
    const bool level_order = state.range(1) != 0;
    ecs::World world;
    build_forest(world, n, level_order);
    auto light = [](Position& p) { p.x += 1.0f; };
    auto propagate = [&world](ecs::Entity e, Position& p) {
        const ecs::Entity parent = world.target<BenchChildOf>(e);
        p.y = parent == ecs::INVALID_ENTITY ? p.x : world.get<const Position>(parent).y + p.x;
    };
    for (auto _ : state) {
        if constexpr (Cascade) {
            if constexpr (Propagate) world.each<Position>(ecs::Cascade<BenchChildOf>{}, propagate);
            else world.each_no_entity<Position>(ecs::Cascade<BenchChildOf>{}, light);
        } else {
            if constexpr (Propagate) world.each<Position>(propagate);
            else world.each_no_entity<Position>(light);
        }
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_CascadeForest(benchmark::State& state) { forest_run<true, false>(state); }
void BM_PlainForest(benchmark::State& state) { forest_run<false, false>(state); }
void BM_CascadeForest_Propagate(benchmark::State& state) { forest_run<true, true>(state); }
void BM_PlainForest_Propagate(benchmark::State& state) { forest_run<false, true>(state); }

/// N = 10k, 100k, 1M; second argument 0: tree-by-tree order, 1: level order.
#define ECS_BENCH_FOREST(fn) BENCHMARK(fn)->ArgsProduct({{10000, 100000, 1000000}, {0, 1}})->Unit(benchmark::kMicrosecond)
ECS_BENCH_FOREST(BM_CascadeForest);
ECS_BENCH_FOREST(BM_PlainForest);
ECS_BENCH_FOREST(BM_CascadeForest_Propagate);
ECS_BENCH_FOREST(BM_PlainForest_Propagate);

/// The first Cascade run after a change to the relationship: the order is computed again.
void BM_CascadeForest_Recompute(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    build_forest(world, n, false);
    const ecs::Entity extra = world.create_with(position_of(0));
    const ecs::Entity root = world.create_with(position_of(1));
    bool flip = false;
    for (auto _ : state) {
        if (flip) world.relate<BenchChildOf>(extra, root);
        else world.unrelate<BenchChildOf>(extra, root);
        flip = !flip;
        world.each_no_entity<Position>(ecs::Cascade<BenchChildOf>{}, [](Position& p) { p.x += 1.0f; });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_CascadeForest_Recompute);

} // namespace
} // namespace bench
