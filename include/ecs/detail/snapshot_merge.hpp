/**
 * @file ecs/detail/snapshot_merge.hpp
 * @brief Loading a snapshot into a world that already holds entities (LoadMode::merge): EntityMap,
 *        the handle remapping of Entity fields, and merge_world (the transplant of a loaded world's
 *        entities into another).
 *
 * deserialize(into, in, LoadMode::merge, map) (serialization.hpp) first loads the snapshot into a
 * world of its own with the ordinary loader: every check of format 1 and 2 (checksums, bounds,
 * names, slots, pairs) runs there, and a damaged snapshot never reaches `into`. What is left can
 * only fail on a name: a loaded entity named as a live entity of `into` is a conflict, found before
 * `into` is touched. Then every loaded archetype's rows move to `into`'s archetype of the same type
 * set (one bulk relocation per column), each row gets a new slot of `into`, and the handles the
 * values hold are remapped:
 * - Entity fields of reflected components (ECS_REFLECT or a runtime layout; nested types and arrays
 *   included), Parent::entity and the lists of Children;
 * - relationship pairs (both ends), names, sparse components and enable bits go along.
 * A handle that names no entity of the snapshot (a stale one, or INVALID_ENTITY) becomes
 * INVALID_ENTITY: it must not alias whatever lives in that slot of `into`. Handles inside
 * components that are neither reflected nor hierarchy types cannot be found, and are copied as they
 * are.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../archetype.hpp"
#include "../builtin/hierarchy.hpp"
#include "../component.hpp"
#include "../entity.hpp"
#include "../reflect.hpp"
#include "../relation.hpp"
#include "../sparse.hpp"
#include "../world.hpp"
#include "pod_array.hpp"
#include "snapshot_registry.hpp"
#include "world_access.hpp"

namespace ecs {

/// How deserialize() treats the entities of the target world.
enum class LoadMode : uint8_t {
    replace, ///< the target has no live entity; the snapshot's handles are restored as they were
    merge,   ///< the target keeps its entities; every loaded entity gets a new handle (EntityMap)
};

/**
 * @brief The handles a load gave the snapshot's entities: `map[old]` is the entity the snapshot
 *        called `old`, in the target world (INVALID_ENTITY for a handle the snapshot did not hold
 *        alive, stale generations included).
 */
class EntityMap {
public:
    /// The target's handle of the snapshot's `from`, or INVALID_ENTITY. O(1).
    [[nodiscard]] Entity operator[](Entity from) const noexcept {
        if (from.index >= slots_.size()) return INVALID_ENTITY;
        const Slot& s = slots_[from.index];
        return s.generation == from.generation && s.generation != 0 ? s.to : INVALID_ENTITY;
    }
    /// True when the snapshot held `from` alive.
    [[nodiscard]] bool contains(Entity from) const noexcept { return (*this)[from] != INVALID_ENTITY; }
    /// Number of entities mapped.
    [[nodiscard]] size_t size() const noexcept { return size_; }
    [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
    /// Calls `fn(from, to)` for every mapped entity, in the snapshot's slot order.
    template <typename Fn>
    void each(Fn&& fn) const {
        for (uint32_t i = 0; i < slots_.size(); ++i)
            if (slots_[i].generation != 0) fn(Entity{i, slots_[i].generation}, slots_[i].to);
    }
    void clear() noexcept {
        slots_.clear();
        size_ = 0;
    }
    /// Records that the snapshot's `from` is `to` (replacing an earlier entry for the slot).
    template <typename = void>
    void set(Entity from, Entity to) {
        if (from.index >= slots_.size()) slots_.resize(size_t(from.index) + 1);
        if (slots_[from.index].generation == 0) ++size_;
        slots_[from.index] = Slot{from.generation, to};
    }

private:
    struct Slot {
        uint32_t generation = 0; ///< 0: not mapped
        Entity to = INVALID_ENTITY;
    };
    std::vector<Slot> slots_;
    size_t size_ = 0;
};

namespace detail {

/// `e` through `map`: the mapped handle, or INVALID_ENTITY for anything the snapshot did not hold.
template <class = void>
inline Entity remap_entity(const EntityMap& map, Entity e) noexcept { return map[e]; }

/// Remaps every Entity inside the reflected object at `object` (fields, nested types, arrays).
template <class = void>
inline void remap_fields(FieldView view, unsigned char* object, const EntityMap& map) noexcept;

template <class = void>
inline void remap_field(const FieldInfo& f, unsigned char* at, const EntityMap& map) noexcept {
    switch (f.kind) {
    case FieldKind::entity: {
        Entity e;
        std::memcpy(&e, at, sizeof(Entity));
        e = remap_entity(map, e);
        std::memcpy(at, &e, sizeof(Entity));
        return;
    }
    case FieldKind::nested: remap_fields(f.nested(), at, map); return;
    case FieldKind::array:
        if (f.element == nullptr) return;
        if (f.element_kind != FieldKind::entity && f.element_kind != FieldKind::nested && f.element_kind != FieldKind::array)
            return;
        for (size_t i = 0; i < f.element_count; ++i) remap_field(*f.element, at + i * f.element_size, map);
        return;
    default: return;
    }
}

template <class>
inline void remap_fields(FieldView view, unsigned char* object, const EntityMap& map) noexcept {
    for (const FieldInfo& f : view) remap_field(f, object + f.offset, map);
}

/// True when a value of type `id` may hold entity handles the merge remaps.
template <class = void>
inline bool holds_entities(FieldView view) noexcept {
    for (const FieldInfo& f : view) {
        if (f.kind == FieldKind::entity || f.element_kind == FieldKind::entity) return true;
        if ((f.kind == FieldKind::nested || f.element_kind == FieldKind::nested) && holds_entities(f.nested())) return true;
    }
    return false;
}

/// Remaps the handles one value of type `id` holds (see the file comment).
template <class = void>
inline void remap_value(ComponentTypeID id, void* value, const EntityMap& map) {
    if (id == component_id<Parent>()) {
        Parent& p = *static_cast<Parent*>(value);
        p.entity = remap_entity(map, p.entity);
        return;
    }
    if (id == component_id<Children>()) {
        std::vector<Entity>& list = static_cast<Children*>(value)->entities;
        size_t kept = 0;
        for (const Entity child : list) { // a child the snapshot did not hold is dropped from the list
            const Entity mapped = remap_entity(map, child);
            if (mapped != INVALID_ENTITY) list[kept++] = mapped;
        }
        list.resize(kept);
        return;
    }
    const FieldView view = fields(id);
    if (!view.empty() && holds_entities(view)) remap_fields(view, static_cast<unsigned char*>(value), map);
}

/// True when values of type `id` need remap_value at all.
template <class = void>
inline bool needs_remap(ComponentTypeID id) {
    if (id == component_id<Parent>() || id == component_id<Children>()) return true;
    const FieldView view = fields(id);
    return !view.empty() && holds_entities(view);
}

/**
 * @brief Moves every live entity of `from` (a world just loaded, owned by the caller) into `into`
 *        under new handles, recorded in `map` (cleared first). See the file comment.
 * @return false, touching nothing, when a name of `from` is taken in `into` (`result` says which).
 * @pre `from` and `into` are distinct and neither is iterating.
 */
template <class = void>
inline bool merge_world(World& from, World& into, EntityMap& map, DeserializeResult& result) {
    const NameIndex& names = WorldAccess::names(from);
    bool clash = false;
    std::string clash_name;
    names.each([&](Entity, std::string_view name) {
        if (!clash && WorldAccess::names(into).find(name) != INVALID_ENTITY) {
            clash = true;
            clash_name = std::string(name);
        }
    });
    if (clash) {
        result.error = DeserializeError::name_taken;
        result.offset = 0;
        result.message = "merge: the snapshot names an entity \"" + clash_name + "\", a name the target world already gives another entity";
        return false;
    }
    map.clear();

    // Rows: each archetype's rows move in bulk to `into`'s twin, then get slots of their own.
    std::vector<Archetype*> moved; // `into`'s archetypes that received rows, with their first new row
    std::vector<uint32_t> bases;
    for (Archetype* a : WorldAccess::archetypes(from)) {
        if (a->size() == 0) continue;
        Archetype* twin = WorldAccess::find_or_create_archetype(into, a->types);
        if (twin == nullptr) continue; // cannot happen: the same type set exists in `from`
        const uint32_t base = a->append_rows_to(*twin);
        for (uint32_t row = base; row < twin->size(); ++row) {
            const Entity old = twin->entities[row];
            map.set(old, WorldAccess::adopt_row(into, *twin, row));
        }
        moved.push_back(twin);
        bases.push_back(base);
    }
    WorldAccess::set_alive_count(from, 0); // every row left `from`; its records are reset below
    if (WorldAccess::graph(from).may_have_disabled()) WorldAccess::note_disabled(into);

    // Handles inside the values.
    for (size_t k = 0; k < moved.size(); ++k) {
        Archetype& arch = *moved[k];
        for (ComponentColumn& c : arch.columns) {
            if (c.elem_size == 0 || !needs_remap(c.type_id)) continue;
            for (size_t row = bases[k]; row < arch.size(); ++row) remap_value(c.type_id, c.at(row), map);
        }
    }

    // Sparse components: each value moves to `into`'s set of its type.
    if (SparseRoom* room = WorldAccess::sparse(from)) {
        for (const ComponentTypeID id : room->ids()) {
            SparseSet& src = *room->set(id);
            if (src.size() == 0) continue;
            SparseSet& dst = WorldAccess::sparse_set(into, id);
            const bool bytes = src.ops().elem_size != 0;
            const bool remap = bytes && needs_remap(id);
            src.each([&](uint32_t index, const void* value) {
                const Entity to = map[Entity{index, WorldAccess::generation(from, index)}];
                void* slot = dst.insert(to);
                if (bytes) {
                    src.ops().relocate(slot, const_cast<void*>(value));
                    if (remap) remap_value(id, slot, map);
                }
                if (src.disabled(index)) dst.set_disabled(to.index, true);
            });
            src.clear_relocated();
        }
    }

    // Relationship pairs, both ends remapped (every end is a loaded entity: the loader checked).
    WorldAccess::relations(from).each_index([&](const RelationIndex& index) {
        if (index.pairs() == 0) return;
        std::vector<Entity> sources, targets;
        std::vector<uint32_t> positions;
        sources.reserve(index.pairs());
        targets.reserve(index.pairs());
        positions.reserve(index.pairs());
        for (uint32_t slot = 0; slot < index.slots(); ++slot) {
            const LinkList& list = *index.targets_of(slot);
            for (uint32_t k = 0; k < list.size(); ++k) {
                sources.push_back(map[Entity{slot, WorldAccess::generation(from, slot)}]);
                targets.push_back(map[list[k].other]);
                positions.push_back(list[k].mirror);
            }
        }
        Relations& relations_into = WorldAccess::relations(into);
        relations_into.install(relations_into.ensure(index.info()), sources.data(), targets.data(), positions.data(),
                               sources.size());
    });

    // Names (checked free above).
    names.each([&](Entity e, std::string_view name) { (void)WorldAccess::names(into).set(map[e], name); });

    WorldAccess::reset_entities(from); // its rows are gone; forget its slots, names and pairs
    return true;
}

} // namespace detail

} // namespace ecs
