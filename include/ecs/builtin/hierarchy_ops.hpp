/**
 * @file ecs/builtin/hierarchy_ops.hpp
 * @brief set_parent(), remove_parent(), destroy_recursive(): hierarchy edits that keep Parent and
 *        Children in sync.
 *
 * Invariants these functions maintain (see builtin/hierarchy.hpp): a child's Parent and its
 * parent's Children agree; a child is listed once; Children exists only while non-empty (the
 * component is removed together with the last child, so `world.each<Children>` visits exactly the
 * entities that have children); parent links never form a cycle.
 *
 * Traversals follow a Children entry only when it is alive and its Parent names the entity that
 * lists it. Entries that disagree (left by hand edits) are ignored, which also guarantees that
 * every traversal terminates, whatever the data.
 *
 * All three make structural changes: they must not be called during iteration (asserted, and
 * refused: the world is left unchanged). Defer them, e.g. by collecting entities first.
 */
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "../config.hpp"
#include "../detail/dependent.hpp"
#include "../entity.hpp"
#include "../world.hpp"
#include "hierarchy.hpp"

namespace ecs {

namespace detail {

/// Per-thread scratch storage for hierarchy traversals, taken by swap so that a re-entrant call
/// (a hook inside destroy_recursive calling it again) gets its own buffer instead of corrupting
/// the caller's. Keeps its capacity between calls: no allocation once warm.
template <typename T>
class ScratchVector {
public:
    ScratchVector() { std::swap(items, pool()); }
    ~ScratchVector() {
        items.clear();
        std::swap(items, pool());
    }
    ScratchVector(const ScratchVector&) = delete;
    ScratchVector& operator=(const ScratchVector&) = delete;

    std::vector<T> items;

private:
    static std::vector<T>& pool() {
        thread_local std::vector<T> buffer;
        return buffer;
    }
};

/// True when `child` is alive and its Parent is `parent`: the Children entry is genuine.
template <class D = void>
inline bool is_child_of(Dependent<D, World>& world, Entity child, Entity parent) noexcept {
    const Parent* p = world.template try_get<Parent>(child);
    return p != nullptr && p->entity == parent;
}

/// Removes `child` from `parent`'s Children (all occurrences), and the Children component itself
/// when it becomes empty. No-op when `parent` is dead or has no Children.
template <class D = void>
inline void detach_from_children(Dependent<D, World>& world, Entity parent, Entity child) {
    Children* children = world.template try_get<Children>(parent);
    if (children == nullptr) return;
    auto& list = children->entities;
    size_t kept = 0;
    for (size_t i = 0; i < list.size(); ++i)
        if (list[i] != child) list[kept++] = list[i];
    list.erase(list.begin() + static_cast<std::ptrdiff_t>(kept), list.end()); // the component stays, even when empty
}

/// True when `ancestor` appears on the Parent chain of `e` (`e` itself excluded). The walk stops
/// after as many steps as there are live entities, so a hand-made cycle cannot hang it.
template <class D = void>
inline bool has_ancestor(Dependent<D, World>& world, Entity e, Entity ancestor) noexcept {
    size_t steps = world.count();
    for (const Parent* p = world.template try_get<Parent>(e); p != nullptr && steps != 0; --steps) {
        if (p->entity == ancestor) return true;
        p = world.template try_get<Parent>(p->entity);
    }
    return false;
}

} // namespace detail

/**
 * @brief Makes `parent` the parent of `child`, keeping both sides in sync.
 *
 * Re-parenting removes `child` from its old parent's Children (and that component when it becomes
 * empty). `parent` gets a Children component when it has none. Setting the current parent again
 * changes nothing (the child is never listed twice).
 *
 * No-op when `child` or `parent` is dead.
 * @pre `child != parent` (asserted; refused).
 * @pre `parent` is not a descendant of `child`: that would make a cycle (asserted; refused).
 * @pre Not called during iteration (asserted; refused).
 * Complexity: O(depth of `parent`) for the cycle check, plus O(children of the old parent).
 */
template <class D = void>
inline void set_parent(detail::Dependent<D, World>& world, Entity child, Entity parent) {
    if (!world.alive(child) || !world.alive(parent)) return;
    if (!ECS_CHECK(child != parent, "set_parent: an entity cannot be its own parent")) return;
    if (!ECS_CHECK(!world.iterating(), "set_parent: structural change during iteration")) return;
    if (!ECS_CHECK(!detail::has_ancestor<D>(world, parent, child),
                   "set_parent: the new parent is a descendant of the child (would make a cycle)"))
        return;

    if (const Parent* current = world.template try_get<Parent>(child)) {
        const Entity old_parent = current->entity;
        if (old_parent == parent) {
            // Already attached: only repair a missing Children entry, never duplicate it.
            Children* children = world.template try_get<Children>(parent);
            if (children == nullptr) {
                world.add(parent, Children{{child}});
            } else if (detail::find_value(children->entities.begin(), children->entities.end(), child) ==
                       children->entities.end()) {
                children->entities.push_back(child);
            }
            return;
        }
        detail::detach_from_children<D>(world, old_parent, child);
    }

    world.add(child, Parent{parent});
    // Looked up after the add above: it may have moved rows of `parent`'s archetype.
    if (Children* children = world.template try_get<Children>(parent)) {
        if (detail::find_value(children->entities.begin(), children->entities.end(), child) == children->entities.end())
            children->entities.push_back(child);
    } else {
        world.add(parent, Children{{child}});
    }
}

/**
 * @brief Detaches `child` from its parent: removes it from the parent's Children (the component
 *        stays, possibly empty), then removes `child`'s Parent component.
 *
 * No-op when `child` is dead or has no Parent. A Parent naming a dead entity is simply removed.
 * @pre Not called during iteration (asserted; refused).
 * Complexity: O(children of the parent).
 */
template <class D = void>
inline void remove_parent(detail::Dependent<D, World>& world, Entity child) {
    const Parent* current = world.template try_get<Parent>(child);
    if (current == nullptr) return;
    if (!ECS_CHECK(!world.iterating(), "remove_parent: structural change during iteration")) return;
    const Entity parent = current->entity;
    detail::detach_from_children<D>(world, parent, child);
    world.template remove<Parent>(child);
}

/**
 * @brief Destroys `root` and all its descendants.
 *
 * First detaches `root` from its own parent (as remove_parent does), then collects the subtree
 * breadth-first and destroys it in reverse order: every entity is destroyed after all of its
 * descendants (leaves first), so an on_remove hook of any entity still finds its parent alive.
 *
 * No-op when `root` is dead.
 * @pre Not called during iteration (asserted; refused).
 * Complexity: O(size of the subtree). Scratch memory is reused between calls.
 */
template <class D = void>
inline void destroy_recursive(detail::Dependent<D, World>& world, Entity root) {
    if (!world.alive(root)) return;
    if (!ECS_CHECK(!world.iterating(), "destroy_recursive: structural change during iteration")) return;
    remove_parent<D>(world, root);

    detail::ScratchVector<Entity> scratch;
    std::vector<Entity>& order = scratch.items;
    order.push_back(root);
    for (size_t i = 0; i < order.size(); ++i) {
        const Entity node = order[i];
        const Children* children = world.template try_get<Children>(node);
        if (children == nullptr) continue;
        for (const Entity c : children->entities)
            if (c != root && detail::is_child_of<D>(world, c, node)) order.push_back(c);
    }
    for (size_t i = order.size(); i-- > 0;) world.destroy(order[i]);
}

} // namespace ecs
