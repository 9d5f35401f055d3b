/**
 * @file ecs/builtin/hierarchy.hpp
 * @brief Parent and Children: the two sides of an entity hierarchy.
 *
 * Ordinary components. Keep both sides in sync with set_parent(), remove_parent() and
 * destroy_recursive() (builtin/hierarchy_ops.hpp); those functions maintain:
 * - `child` has `Parent{p}` if and only if `p`'s Children lists `child`, exactly once;
 * - an entity has a Children component only while it has at least one child;
 * - parent links never form a cycle.
 * Editing the components by hand is allowed, but then these invariants are yours to keep.
 */
#pragma once

#include <vector>

#include "../entity.hpp"

namespace ecs {

/// @brief Points to the entity's parent.
struct Parent {
    Entity entity; ///< INVALID_ENTITY by default
};

/// @brief Lists the entity's children, in the order they were attached.
struct Children {
    std::vector<Entity> entities;
};

} // namespace ecs
