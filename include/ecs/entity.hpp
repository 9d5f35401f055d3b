/**
 * @file ecs/entity.hpp
 * @brief Entity handles: an index into the world's slots plus a generation that makes stale handles
 *        detectable.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector> // declares std::hash (for vector<bool>): far cheaper than <functional>

#include "config.hpp"

namespace ecs {

/**
 * @brief A lightweight, copyable handle to an entity in a World.
 *
 * `index` names a slot in the world; slots are recycled through a free list. `generation` is bumped
 * every time the slot's entity is destroyed, so a handle kept past destruction never aliases the
 * entity that reuses the slot.
 */
struct Entity {
    uint32_t index = 0;
    uint32_t generation = 0;

    [[nodiscard]] friend constexpr bool operator==(Entity a, Entity b) noexcept {
        return a.index == b.index && a.generation == b.generation;
    }
    [[nodiscard]] friend constexpr bool operator!=(Entity a, Entity b) noexcept { return !(a == b); }
    /// Orders by index, then generation, so handles can be keys of ordered containers.
    [[nodiscard]] friend constexpr bool operator<(Entity a, Entity b) noexcept {
        return a.index != b.index ? a.index < b.index : a.generation < b.generation;
    }
};

/// The null handle `{0, 0}`. Slot 0 is reserved by every World, so it never names a live entity.
inline constexpr Entity INVALID_ENTITY{0, 0};

/// Hash functor for unordered containers keyed by Entity.
struct EntityHash {
    [[nodiscard]] size_t operator()(Entity e) const noexcept {
        const uint64_t v = (uint64_t(e.generation) << 32) | e.index;
        // splitmix64 finaliser: cheap and spreads sequential indices over the whole range.
        uint64_t z = v + 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return static_cast<size_t>(z ^ (z >> 31));
    }
};

} // namespace ecs

/// `std::hash<ecs::Entity>` so `std::unordered_map<Entity, X>` works without naming EntityHash.
template <>
struct std::hash<ecs::Entity> {
    size_t operator()(ecs::Entity e) const noexcept { return ecs::EntityHash{}(e); }
};
