/**
 * @file ecs/world/lifecycle.hpp
 * @brief World::create, create_with, destroy: a slot and its row come into being or go away.
 *
 * The entity index hands out and frees slots; the archetype appends or swap-removes the row. A
 * world with observers, pairs, sparse components, names or entity-event observers takes destroy_observed, which runs the
 * leave observers and on_remove hooks before the row goes (relations.hpp handles pairs).
 */
#pragma once

#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "../detail/required.hpp"
#include "../detail/value_pack.hpp"
#include "structural.hpp"
#include "world_class.hpp"

namespace ecs {

inline Entity World::create() {
    if (!ECS_CHECK(!iterating(), "World::create: structural change during iteration (use deferred())"))
        return INVALID_ENTITY;
    if (ECS_UNLIKELY(observers_.any())) return create_observed();
    uint32_t row = 0; // commit()'s no-observer branch
    return spawn(*graph_.empty_archetype(), row);
}

/// create() through the commit point, out of line: the plain path above stays small where it is inlined.
ECS_NOINLINE inline Entity World::create_observed() {
    Entity e = INVALID_ENTITY;
    detail::Notice notice{nullptr, nullptr, false, true}; // new: it matched nothing before
    commit(
        e, notice, [] { return true; },
        [&] {
            uint32_t row = 0;
            e = spawn(*graph_.empty_archetype(), row);
        },
        [] {});
    return e;
}

inline void World::destroy(Entity e) {
    if (!alive(e)) return;
    if (!ECS_CHECK(!iterating(), "World::destroy: structural change during iteration (use deferred())")) return;
    if (ECS_UNLIKELY(observers_.any() || relations_.any() || graph_.sparse() != nullptr || names_.any() || (entity_events_ != nullptr && entity_events_->any())))
        return destroy_observed(e); // hooks, pairs, sparse components or names to deal with
    const EntityRecord rec = entities_[e.index]; // the plain path, nothing else to call
    const Entity moved = arch_of(rec).erase_row(rec.row);
    if (moved != INVALID_ENTITY) entities_[moved.index].row = rec.row;
    entities_.release(e);
}

/// destroy()'s body through the commit point: on_leave (the entity will match nothing), on_remove
/// hooks while the values are readable, then the row, the pairs (`Related`), the sparse values, the
/// name and the slot go. A hook may destroy `e` again: that nested call is a no-op, this one
/// finishes the job.
template <bool Related>
inline void World::destroy_entity(Entity e) {
    detail::Notice notice{nullptr, nullptr, true, false};
    notice.leave = observers_.any_query() && !observers_.dying(e);
    commit(
        e, notice,
        [&] {
            if (!alive(e)) return false;
            if (observers_.any_remove() && observers_.any_remove_for(arch_of(e).mask, e.index))
                return observers_.fire_all_on_remove(*this, lookup(), e) && alive(e);
            return true;
        },
        [&] {
            if constexpr (Related) {
                if (ECS_UNLIKELY(entities_.stamping())) stamp_sources(e); // they lose a pair
                relations_.detach(e); // after the hooks: they may read the pairs
            }
            const EntityRecord& rec = entities_[e.index]; // re-read: a hook may have moved it
            const uint32_t row = rec.row;
            const Entity moved = arch_of(rec).erase_row(row);
            if (moved != INVALID_ENTITY) entities_[moved.index].row = row;
            if (ECS_UNLIKELY(graph_.sparse() != nullptr)) graph_.sparse()->erase_entity(e.index);
            if (ECS_UNLIKELY(names_.any())) names_.erase(e.index);
            if (ECS_UNLIKELY(entity_events_ != nullptr && entity_events_->any())) entity_events_->drop(e); // its observers go with it
            entities_.release(e);
        },
        [] {});
}

ECS_NOINLINE inline void World::destroy_observed(Entity e) {
    if (relations_.any()) relations_destroy(e); // pairs, cascades
    else destroy_entity<false>(e);
}

ECS_FORCEINLINE Entity World::spawn(Archetype& arch, uint32_t& row) {
    arch.reserve_row(); // the steps that may fail to allocate come first
    row = static_cast<uint32_t>(arch.size());
    const Entity e = entities_.allocate_placed(&arch, row); // the record written once, live at once
    (void)arch.push_entity(e);                             // no growth: reserved above
    return e;
}

inline Entity World::spawn_reserved(Entity slot, Archetype& arch, uint32_t& row) {
    row = arch.push_entity(slot);
    entities_.place_reserved(slot.index, &arch, row);
    return slot;
}

template <bool Reserved, typename... Ts>
inline Entity World::create_in(Entity slot, Ts&&... components) {
    if constexpr ((std::is_lvalue_reference_v<Ts> || ...)) {
        // Copy first: an argument may refer into a column this call is about to grow.
        return create_in<Reserved>(slot, detail::owned_t<Ts>(std::forward<Ts>(components))...);
    } else if constexpr ((detail::is_sparse_v<detail::component_t<Ts>> || ...)) { // world/sparse.hpp
        return create_with_sparse<Reserved>(slot, std::move(components)...);
    } else {
        if (!ECS_CHECK(!iterating(), "World::create_with: structural change during iteration (use deferred())"))
            return INVALID_ENTITY;
        Archetype* arch = graph_.pack_archetype<detail::component_t<Ts>...>();
        if (arch == nullptr) return INVALID_ENTITY;
        if (ECS_UNLIKELY(arch->full())) {
            // The block is about to move and an argument may live in it: move the values (or a
            // construct's arguments) out first.
            return place_new<Reserved, detail::component_t<Ts>...>(*arch, slot, detail::owned_t<Ts>(std::move(components))...);
        }
        return place_new<Reserved, detail::component_t<Ts>...>(*arch, slot, std::forward<Ts>(components)...);
    }
}

template <typename... Ts>
inline std::vector<Entity> World::create_n(size_t n, const Ts&... values) {
    std::vector<Entity> out(iterating() ? 0 : n);
    create_n(out.data(), out.size(), values...);
    if (!out.empty() && !alive(out.back())) out.clear(); // refused
    return out;
}

/// Bulk creation. A world with observers, a pack naming sparse types or bringing required
/// components along creates one entity at a time (create_with's order of hooks); otherwise the
/// slots are taken, the rows appended and each column filled in one pass, after one growth.
template <typename... Ts>
inline void World::create_n(Entity* out, size_t n, const Ts&... values) {
    static_assert(detail::distinct_v<Ts...>, "create_n: component types must be distinct");
    static_assert(((std::is_copy_constructible_v<Ts> && !detail::is_construct_v<Ts>) && ...),
                  "create_n: the values are copied into every entity (copy-constructible components)");
    if (!ECS_CHECK(!iterating(), "World::create_n: structural change during iteration (use deferred())")) {
        for (size_t i = 0; i < n; ++i) out[i] = INVALID_ENTITY;
        return;
    }
    if (n == 0) return;
    Archetype* arch = nullptr;
    if constexpr (!(detail::is_sparse_v<Ts> || ...)) arch = graph_.pack_archetype<Ts...>();
    if (arch == nullptr || observers_.any() || arch->columns.size() != sizeof...(Ts)) {
        for (size_t i = 0; i < n; ++i) out[i] = create_with(values...);
        return;
    }
    const detail::ValuesOf<Ts...> local{values...}; // a value may live in the block the growth moves
    arch->reserve(arch->size() + n);
    entities_.reserve_more(n);
    const uint32_t base = static_cast<uint32_t>(arch->size());
    for (size_t i = 0; i < n; ++i) {
        uint32_t row = 0;
        out[i] = spawn(*arch, row); // no growth: reserved above
    }
    local.apply([&](const Ts&... v) { (fill_rows<Ts>(*arch, base, n, v), ...); });
}

template <typename C>
inline void World::fill_rows(Archetype& arch, uint32_t base, size_t n, const C& value) {
    if constexpr (!detail::is_tag_v<C>) {
        C* column = reinterpret_cast<C*>(arch.column(component_id<C>()).data) + base;
        if constexpr (std::is_trivially_copyable_v<C>) {
            const C v = value; // a copy the stores below cannot alias: kept in registers
            for (size_t r = 0; r < n; ++r) ::new (static_cast<void*>(column + r)) C(v);
        } else {
            for (size_t r = 0; r < n; ++r) ::new (static_cast<void*>(column + r)) C(value);
        }
    } else {
        (void)arch, (void)base, (void)n, (void)value;
    }
}

template <typename C, typename V>
ECS_FORCEINLINE void World::construct_mixed(Archetype& arch, uint32_t row, Entity e, V&& value) {
    if constexpr (detail::is_sparse_v<C>) {
        (void)arch;
        (void)row;
        detail::SparseSet& set = sparse_set_of(ensure_column_factory<C>());
        detail::place<C>(set.insert(e), std::forward<V>(value));
    } else {
        (void)e;
        construct_at<C>(arch, row, std::forward<V>(value));
    }
}

template <bool Reserved, typename... Ts, typename... Vs>
ECS_FORCEINLINE Entity World::place_new(Archetype& arch, Entity slot, Vs&&... values) {
    Entity e = slot;
    detail::Notice notice{nullptr, nullptr, false, true}; // new: it matched nothing before
    commit(
        e, notice, [] { return true; },
        [&]() ECS_LAMBDA_FORCEINLINE { // the creation itself, inlined as place_new is (clang would not: too costly)
            uint32_t row = 0;
            if constexpr (Reserved) e = spawn_reserved(slot, arch, row);
            else e = spawn(arch, row);
            (construct_mixed<detail::bare_t<Ts>>(arch, row, e, std::forward<Vs>(values)), ...);
            if constexpr ((detail::has_requires_v<detail::bare_t<Ts>> || ...)) { // else nothing came along
                if (ECS_UNLIKELY(arch.columns.size() != sizeof...(Ts))) { // the pack's requirements came along
                    const ComponentTypeID ids[sizeof...(Ts) + 1] = {component_id<Ts>()..., INVALID_COMPONENT_ID};
                    detail::construct_required(*graph_.empty_archetype(), arch, row, ids, sizeof...(Ts));
                }
            }
        },
        [&] {
            if (observers_.any_add()) (observers_.fire_on_add(*this, lookup(), e, component_id<Ts>()), ...);
            if constexpr ((detail::has_requires_v<detail::bare_t<Ts>> || ...)) {
                if (ECS_UNLIKELY(arch.columns.size() != sizeof...(Ts)) && observers_.any_add()) {
                    const ComponentTypeID ids[sizeof...(Ts) + 1] = {component_id<Ts>()..., INVALID_COMPONENT_ID};
                    detail::for_each_required(*graph_.empty_archetype(), arch, ids, sizeof...(Ts),
                                              [&](ComponentTypeID r) { observers_.fire_on_add(*this, lookup(), e, r); });
                }
            }
        });
    return e;
}

template <typename C, typename V>
inline void World::construct_at(Archetype& arch, uint32_t row, V&& value) {
    if constexpr (!detail::is_tag_v<C>) {
        detail::place<C>(static_cast<void*>(reinterpret_cast<C*>(arch.column(component_id<C>()).data) + row),
                         std::forward<V>(value));
    } else {
        (void)arch;
        (void)row;
        (void)value;
    }
}

} // namespace ecs
