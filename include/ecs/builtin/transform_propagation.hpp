/**
 * @file ecs/builtin/transform_propagation.hpp
 * @brief propagate_transforms(): computes every WorldTransform from the LocalTransforms down the
 *        Parent/Children hierarchy.
 */
#pragma once

#include <cstddef>
#include <vector>

#include "../detail/dependent.hpp"
#include "../entity.hpp"
#include "../world.hpp"
#include "hierarchy.hpp"
#include "hierarchy_ops.hpp"
#include "transform.hpp"

namespace ecs {

namespace detail {

/// One pending child of the breadth-first walk: the child, the entity that lists it, and that
/// entity's freshly computed world matrix (stable: the walk makes no structural change).
struct PropagationItem {
    Entity child;
    Entity parent;
    const Mat4* parent_world;
};

template <class D = void>
inline void enqueue_children(Dependent<D, World>& world, std::vector<PropagationItem>& queue, Entity parent,
                             const Mat4* parent_world) {
    if (const Children* children = world.template try_get<Children>(parent))
        for (const Entity c : children->entities) queue.push_back(PropagationItem{c, parent, parent_world});
}

} // namespace detail

/**
 * @brief Writes `WorldTransform` for every entity of every hierarchy, breadth-first.
 *
 * 1. Roots are the entities with LocalTransform and WorldTransform and no Parent:
 *    `root.World = root.Local`.
 * 2. Then each child, level by level: `child.World = parent.World * child.Local`.
 *
 * A Children entry is followed only when the child is alive and its Parent names the listing
 * entity (see builtin/hierarchy_ops.hpp). A child that lacks LocalTransform or WorldTransform is
 * skipped together with its whole subtree: those descendants keep their previous WorldTransform.
 * Entities whose Parent chain does not lead to a root (dead parent, parent without transforms) are
 * likewise left untouched.
 *
 * Iterative (no recursion: any depth works). The queue is per-thread scratch storage reused across
 * calls, so a stable world allocates nothing here once warm.
 * @pre Not called during iteration (it iterates itself; it makes no structural change).
 * Complexity: O(entities in the hierarchies), a few O(1) lookups per child.
 */
template <class D = void>
inline void propagate_transforms(detail::Dependent<D, World>& world) {
    detail::ScratchVector<detail::PropagationItem> scratch;
    std::vector<detail::PropagationItem>& queue = scratch.items;

    world.template each<const LocalTransform, WorldTransform>(
        Exclude<Parent>{}, [&](Entity e, const LocalTransform& local, WorldTransform& global) {
            global.matrix = local.matrix;
            detail::enqueue_children<D>(world, queue, e, &global.matrix);
        });

    for (size_t head = 0; head < queue.size(); ++head) {
        const detail::PropagationItem item = queue[head];
        if (!detail::is_child_of<D>(world, item.child, item.parent)) continue;
        const LocalTransform* local = world.template try_get<LocalTransform>(item.child);
        WorldTransform* global = world.template try_get<WorldTransform>(item.child);
        if (local == nullptr || global == nullptr) continue;
        global->matrix = item.parent_world->multiply(local->matrix);
        detail::enqueue_children<D>(world, queue, item.child, &global->matrix);
    }
}

} // namespace ecs
