/**
 * @file bench/bench_transform.cpp
 * @brief propagate_transforms over a forest of 1,000 roots, depth 4 (N = 100k is the headline),
 *        against a hand-written pass over plain arrays in parent-before-child order.
 *        Compiled only when <ecs/builtin/transform_propagation.hpp> exists.
 */
#if __has_include(<ecs/builtin/transform_propagation.hpp>)

#include <cstdint>
#include <vector>

#include <ecs/builtin/hierarchy_ops.hpp>
#include <ecs/builtin/transform.hpp>
#include <ecs/builtin/transform_propagation.hpp>

#include "common.hpp"

namespace bench {
namespace {

constexpr size_t ROOTS = 1000;
constexpr size_t DEPTH = 4; ///< edges from a root to its deepest descendants

/// Smallest branching factor b whose full tree of depth DEPTH has at least `nodes` nodes.
size_t branching_for(size_t nodes) {
    for (size_t b = 1;; ++b) {
        size_t total = 0;
        size_t level = 1;
        for (size_t d = 0; d <= DEPTH; ++d) {
            total += level;
            level *= b;
        }
        if (total >= nodes) return b;
    }
}

/// Parent of every node of one tree of `nodes` nodes in breadth-first numbering (-1 for the root):
/// node k > 0 hangs under (k - 1) / b, so depth never exceeds DEPTH and parents precede children.
std::vector<int32_t> tree_parents(size_t nodes) {
    const size_t b = branching_for(nodes);
    std::vector<int32_t> parent(nodes, -1);
    for (size_t k = 1; k < nodes; ++k) parent[k] = static_cast<int32_t>((k - 1) / b);
    return parent;
}

ecs::Mat4 local_of(size_t i) {
    const float f = static_cast<float>(i % 13);
    return ecs::Mat4::translation(f, 1.0f, -f);
}

void BM_PropagateTransforms(benchmark::State& state) {
    const size_t n = arg_n(state);
    const size_t per_tree = n / ROOTS;
    const std::vector<int32_t> parent = tree_parents(per_tree);
    ecs::World world;
    std::vector<ecs::Entity> tree(per_tree);
    for (size_t r = 0; r < ROOTS; ++r) {
        for (size_t k = 0; k < per_tree; ++k) {
            tree[k] = world.create_with(ecs::LocalTransform{local_of(r * per_tree + k)}, ecs::WorldTransform{});
            if (parent[k] >= 0) ecs::set_parent(world, tree[k], tree[static_cast<size_t>(parent[k])]);
        }
    }
    ecs::propagate_transforms(world); // warm: grows the scratch queue once
    for (auto _ : state) {
        ecs::propagate_transforms(world);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(per_tree * ROOTS));
}
ECS_BENCH_RANGE(BM_PropagateTransforms);

/// Baseline: local / world matrices and parent indices in plain arrays, parents before children.
void BM_Raw_PropagateTransforms(benchmark::State& state) {
    const size_t n = arg_n(state);
    const size_t per_tree = n / ROOTS;
    const std::vector<int32_t> tree_parent = tree_parents(per_tree);
    const size_t total = per_tree * ROOTS;
    std::vector<ecs::Mat4> local(total);
    std::vector<ecs::Mat4> global(total);
    std::vector<int32_t> parent(total);
    // Level order across the whole forest (as a breadth-first walk visits it): node k of tree r at
    // position k * ROOTS + r, so every parent index is smaller than its children's.
    for (size_t r = 0; r < ROOTS; ++r) {
        for (size_t k = 0; k < per_tree; ++k) {
            const size_t at = k * ROOTS + r;
            local[at] = local_of(r * per_tree + k);
            parent[at] = tree_parent[k] < 0 ? -1 : static_cast<int32_t>(static_cast<size_t>(tree_parent[k]) * ROOTS + r);
        }
    }
    for (auto _ : state) {
        for (size_t i = 0; i < total; ++i) {
            const int32_t p = parent[i];
            global[i] = p < 0 ? local[i] : global[static_cast<size_t>(p)].multiply(local[i]);
        }
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(total));
}
ECS_BENCH_RANGE(BM_Raw_PropagateTransforms);

} // namespace
} // namespace bench

#endif // __has_include(<ecs/builtin/transform_propagation.hpp>)
