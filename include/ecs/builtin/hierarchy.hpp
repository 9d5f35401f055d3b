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
 *
 * Snapshots: Parent is trivially copyable (register it without functions); Children holds a
 * vector, so register it with the functions below:
 * `ecs::register_component<ecs::Children>("Children", &ecs::write_children, &ecs::read_children);`
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>
#include <vector>

#include "../detail/stream.hpp"
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

namespace detail {
template <class D = void>
inline void write_u32_le(Dependent<D, std::ostream>& out, uint32_t v) {
    const char bytes[4] = {static_cast<char>(v & 0xFFu), static_cast<char>((v >> 8) & 0xFFu),
                           static_cast<char>((v >> 16) & 0xFFu), static_cast<char>((v >> 24) & 0xFFu)};
    out.write(bytes, 4);
}
template <class D = void>
inline bool read_u32_le(Dependent<D, std::istream>& in, uint32_t& v) {
    unsigned char bytes[4];
    if (!in.read(reinterpret_cast<char*>(bytes), 4)) return false;
    v = uint32_t(bytes[0]) | (uint32_t(bytes[1]) << 8) | (uint32_t(bytes[2]) << 16) | (uint32_t(bytes[3]) << 24);
    return true;
}
} // namespace detail

/**
 * @brief Snapshot writer for Children (a ComponentColumn::SerializeFunc): the child count, then each
 *        child's index and generation, all as little-endian uint32.
 * @pre `component` points to a Children holding fewer than 2^32 entries.
 * A template with a defaulted parameter, so that no translation unit parses <ostream> for it:
 * `&ecs::write_children` still converts to a SerializeFunc.
 */
template <class D = void>
inline void write_children(detail::Dependent<D, std::ostream>& out, const void* component) {
    const std::vector<Entity>& list = static_cast<const Children*>(component)->entities;
    detail::write_u32_le<D>(out, static_cast<uint32_t>(list.size()));
    for (const Entity e : list) {
        detail::write_u32_le<D>(out, e.index);
        detail::write_u32_le<D>(out, e.generation);
    }
}

/**
 * @brief Snapshot reader for Children (a ComponentColumn::DeserializeFunc): constructs a Children in
 *        the uninitialised `storage` from what write_children() wrote. On malformed or truncated
 *        input it sets the stream's failbit and constructs nothing. Memory grows with the entries
 *        actually read, never with an unchecked count.
 */
template <class D = void>
inline void read_children(detail::Dependent<D, std::istream>& in, void* storage) {
    uint32_t count = 0;
    if (!detail::read_u32_le<D>(in, count)) {
        in.setstate(in.failbit);
        return;
    }
    std::vector<Entity> list;
    for (uint32_t i = 0; i < count; ++i) {
        Entity e;
        if (!detail::read_u32_le<D>(in, e.index) || !detail::read_u32_le<D>(in, e.generation)) {
            in.setstate(in.failbit);
            return;
        }
        list.push_back(e);
    }
    ::new (storage) Children{std::move(list)};
}

} // namespace ecs
