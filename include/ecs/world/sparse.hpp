/**
 * @file ecs/world/sparse.hpp
 * @brief The World's paths for sparse components: add, remove, get, create_with.
 *
 * Included by world.hpp, where World is complete. The values live in the world's sparse
 * sets (sparse.hpp, owned by the archetype graph); none of these paths moves the entity. Hooks fire
 * as for table components: on_add after the value is in place (then on_set), on_remove before it is
 * destroyed; query observers see the change (on_leave before, on_enter after).
 *
 * Adding or removing a sparse component is not a structural change: it is allowed during iteration
 * (whether the running query sees it on a row it has not reached yet is unspecified). It is not
 * thread-safe: never inside each_par or a Schedule wave.
 */
#pragma once

#include <new>
#include <type_traits>
#include <utility>

#include "../detail/required.hpp"
#include "../detail/world_access.hpp"
#include "../runtime_types.hpp"
#include "../sparse.hpp"
#include "structural.hpp"
#include "world_class.hpp"

namespace ecs {

inline detail::SparseSet& World::sparse_set_of(ComponentTypeID id) {
    detail::SparseSet& set = graph_.sparse_set(id);
    observers_.attach_sparse(graph_.sparse()); // the room exists now; hooks read sparse values through it
    return set;
}

inline detail::SparseSet* World::sparse_member(Entity e, ComponentTypeID id) const noexcept {
    const detail::SparseRoom* room = graph_.sparse();
    detail::SparseSet* set = room != nullptr ? room->set(id) : nullptr;
    return set != nullptr && set->contains(e.index) ? set : nullptr;
}

template <typename T>
ECS_FORCEINLINE T* World::find_sparse(Entity e) const noexcept {
    if (!alive(e)) return nullptr;
    const detail::SparseRoom* room = graph_.sparse();
    if (room == nullptr) return nullptr;
    const detail::SparseSet* set = room->set(component_id<T>());
    return set != nullptr ? static_cast<T*>(set->find(e.index)) : nullptr;
}

template <typename T>
ECS_FORCEINLINE T* World::try_get_sparse(Entity e) noexcept {
    if (!alive(e) || !detail::access_ok<T>()) return nullptr;
    const detail::SparseRoom* room = graph_.sparse();
    if (room == nullptr) return nullptr;
    detail::SparseSet* set = room->set(component_id<T>());
    if (set == nullptr) return nullptr;
    const uint32_t slot = set->slot_of(e.index);
    if (slot == 0) return nullptr;
    if constexpr (!std::is_const_v<T>) // mutable access counts as a change
        if (ECS_UNLIKELY(set->ticks_active())) set->touch(e.index);
    return static_cast<T*>(set->at(slot - 1));
}

template <typename T>
inline T& World::get_sparse(Entity e) {
    T* p = try_get_sparse<T>(e);
    if (!ECS_CHECK(p != nullptr, detail::entity_message("World::get", type_name<detail::bare_t<T>>(), e,
                                                        alive(e) ? "does not have the component" : "is not alive")))
        return detail::fallback_object<T>();
    return *p;
}

template <typename C, typename V>
inline void World::add_sparse(Entity e, V&& value) {
    if (!alive(e)) return;
    const ComponentTypeID id = component_id<C>();
    detail::SparseRoom* room = graph_.sparse();
    detail::SparseSet* found = room != nullptr ? room->set(id) : nullptr; // a set exists: so does the factory
    if (ECS_UNLIKELY(found == nullptr)) {
        if (!ECS_CHECK(ensure_column_factory<C>() < ECS_MAX_COMPONENTS,
                       "World::add: more than ECS_MAX_COMPONENTS component types in use"))
            return;
        found = &sparse_set_of(id);
    }
    detail::SparseSet& set = *found;
    if constexpr (detail::nothrow_place_v<C, V>) {
        if (ECS_LIKELY(!observers_.any()) && !set.contains(e.index)) { // the plain path: no hook to run
            detail::place<C>(set.insert(e), std::forward<V>(value));
            entities_.stamp(e.index);
            return;
        }
    }
    if (void* existing = set.find(e.index)) { // overwrite in place: no hook but on_set, a change
        if constexpr (!detail::is_tag_v<C>) {
            detail::replace_at(static_cast<C*>(existing), std::forward<V>(value));
        }
        if (ECS_UNLIKELY(set.ticks_active())) set.touch(e.index);
        if (ECS_UNLIKELY(observers_.any_set())) observers_.fire_on_set(*this, lookup(), e, id);
        return;
    }
    ComponentMask before; // what queries saw before, and will see after (enable bits, sparse types)
    ComponentMask after;
    detail::Notice notice{&after, &before, false, false, true};
    if (ECS_UNLIKELY(observers_.any_query())) {
        notice.leave = detail::Observers::seen_mask(arch_of(e), entities_[e.index].row, e.index, graph_.sparse(), before);
        notice.enter = true;
        after = before;
        after.set(id);
    }
    commit(
        e, notice, [&] { return alive(e) && !set.contains(e.index); }, // an observer destroyed it or added the value
        [&] {
            void* storage = set.insert(e);
            if constexpr (detail::nothrow_place_v<C, V>) {
                detail::place<C>(storage, std::forward<V>(value));
            } else {
                struct Undo { // the slot goes back if the constructor throws
                    detail::SparseSet& s;
                    uint32_t index;
                    bool done = false;
                    ~Undo() {
                        if (!done) s.erase(index, false);
                    }
                } undo{set, e.index};
                detail::place<C>(storage, std::forward<V>(value));
                undo.done = true;
            }
        },
        [&] {
            if (observers_.any_add()) observers_.fire_on_add(*this, lookup(), e, id);
            if (observers_.any_set()) observers_.fire_on_set(*this, lookup(), e, id);
        });
}

template <typename C>
inline void World::remove_sparse(Entity e) {
    if (!alive(e)) return;
    detail::SparseRoom* room = graph_.sparse();
    if (room == nullptr) return;
    const ComponentTypeID id = component_id<C>();
    detail::SparseSet* set = room->set(id);
    if (set == nullptr || !set->contains(e.index)) return;
    if (ECS_LIKELY(!observers_.any())) { // the plain path: no hook to run, typed destruction
        const uint32_t slot = set->slot_of(e.index) - 1;
        if constexpr (!std::is_trivially_destructible_v<C> && !detail::is_tag_v<C>) static_cast<C*>(set->at(slot))->~C();
        set->release(e.index, slot);
        entities_.stamp(e.index);
        return;
    }
    remove_sparse_id(e, id);
}

inline void World::remove_sparse_id(Entity e, ComponentTypeID id) {
    detail::SparseSet* set = graph_.sparse() != nullptr ? graph_.sparse()->set(id) : nullptr;
    if (!alive(e) || set == nullptr || !set->contains(e.index)) return;
    ComponentMask before; // what queries saw before, and will see after (enable bits, sparse types)
    ComponentMask after;
    detail::Notice notice{&after, &before, false, false, true};
    if (ECS_UNLIKELY(observers_.any_query())) {
        notice.leave = detail::Observers::seen_mask(arch_of(e), entities_[e.index].row, e.index, graph_.sparse(), before);
        notice.enter = true;
        after = before;
        after.reset(id);
    }
    commit(
        e, notice,
        [&] {
            if (!alive(e) || !set->contains(e.index)) return false;
            if (observers_.any_remove() && observers_.has_remove(id)) {
                observers_.fire_on_remove(*this, lookup(), e, id);
                if (!alive(e) || !set->contains(e.index)) return false;
            }
            return true;
        },
        [&] { set->erase(e.index); }, [] {});
}

/**
 * add_raw of a sparse type: the value is copied (or value-initialised) outside the world first, so
 * `value` may point anywhere (into the set itself, into a row an observer moves) and a throwing copy
 * leaves nothing behind; then it is relocated into the set through the commit point, as add_sparse.
 */
inline void* World::add_sparse_raw(Entity e, ComponentTypeID id, const void* value) {
    detail::SparseSet& set = sparse_set_of(id);
    const ComponentColumn& c = set.ops();
    detail::RawValue made(c);
    if (!c.is_tag && !detail::make_raw_value(made, c, id, value)) return nullptr;
    if (void* existing = set.find(e.index)) { // overwrite in place: no hook but on_set, a change
        if (!c.is_tag) {
            c.destroy_at(existing);
            made.relocate_to(existing);
        }
        if (ECS_UNLIKELY(set.ticks_active())) set.touch(e.index);
        if (ECS_UNLIKELY(observers_.any_set())) observers_.fire_on_set(*this, lookup(), e, id);
        return alive(e) ? set.find(e.index) : nullptr;
    }
    ComponentMask before; // what queries saw before, and will see after (enable bits, sparse types)
    ComponentMask after;
    detail::Notice notice{&after, &before, false, false, true};
    if (ECS_UNLIKELY(observers_.any_query())) {
        notice.leave = detail::Observers::seen_mask(arch_of(e), entities_[e.index].row, e.index, graph_.sparse(), before);
        notice.enter = true;
        after = before;
        after.set(id);
    }
    commit(
        e, notice, [&] { return alive(e) && !set.contains(e.index); }, // an observer destroyed it or added the value
        [&] {
            void* storage = set.insert(e);
            if (!c.is_tag) made.relocate_to(storage);
        },
        [&] {
            if (observers_.any_add()) observers_.fire_on_add(*this, lookup(), e, id);
            if (observers_.any_set()) observers_.fire_on_set(*this, lookup(), e, id);
        });
    return alive(e) ? set.find(e.index) : nullptr; // hooks may have removed it
}

namespace detail {
/// The archetype of the table types of a create_with pack (sparse ones left out).
template <typename... Ts>
struct TablePack;
template <typename... Ts>
struct TablePack<TypeList<Ts...>> {
    static Archetype* archetype(ArchetypeGraph& graph) { return graph.pack_archetype<Ts...>(); }
};
} // namespace detail

template <bool Reserved, typename... Ts>
inline Entity World::create_with_sparse(Entity slot, Ts&&... values) {
    if constexpr ((std::is_lvalue_reference_v<Ts> || ...)) {
        return create_with_sparse<Reserved>(slot, detail::owned_t<Ts>(std::forward<Ts>(values))...); // copies first
    } else {
        if (!ECS_CHECK(!iterating(), "World::create_with: structural change during iteration (use deferred())"))
            return INVALID_ENTITY;
        ((void)ensure_column_factory<detail::component_t<Ts>>(), ...);
        Archetype* arch =
            detail::TablePack<detail::table_only_t<detail::TypeList<detail::component_t<Ts>...>>>::archetype(graph_);
        if (arch == nullptr) return INVALID_ENTITY;
        if (ECS_UNLIKELY(arch->full())) {
            // The block is about to move and a value may live in it: move them out first (temporaries).
            return place_new<Reserved, detail::component_t<Ts>...>(*arch, slot, detail::owned_t<Ts>(std::move(values))...);
        }
        return place_new<Reserved, detail::component_t<Ts>...>(*arch, slot, std::move(values)...);
    }
}

} // namespace ecs
