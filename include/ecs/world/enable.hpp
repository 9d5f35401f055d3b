/**
 * @file ecs/world/enable.hpp
 * @brief World::disable / enable / enabled: the World members of the enable room.
 *
 * Included by world.hpp, where World is complete. The bits live in the archetypes
 * (enable.hpp); a toggle finds the entity's row and flips one bit, with no migration. With query
 * observers registered, the toggle fires on_leave before and on_enter after the flip, for the
 * observers whose match it changes.
 */
#pragma once

#include "../detail/world_access.hpp"
#include "structural.hpp"
#include "world_class.hpp"

namespace ecs {

template <typename T>
ECS_FORCEINLINE void World::disable(Entity e) {
    const ComponentTypeID id = component_id<T>();
    if constexpr (detail::is_sparse_v<T>) return toggle_sparse(e, id, true); // a flag in the set
    if (!alive(e)) return;
    const EntityRecord& r = entities_[e.index];
    if (!arch_of(r).has(id)) return;
    graph_.note_disabled(); // queries stop skipping the enable tests (sticky)
    if (ECS_UNLIKELY(observers_.any_query())) return toggle_observed(e, id, true);
    if (arch_of(r).set_disabled(id, r.row, true)) entities_.stamp(e.index);
}

template <typename T>
ECS_FORCEINLINE void World::enable(Entity e) {
    const ComponentTypeID id = component_id<T>();
    if constexpr (detail::is_sparse_v<T>) return toggle_sparse(e, id, false);
    if (!alive(e)) return;
    const EntityRecord& r = entities_[e.index];
    if (!arch_of(r).has(id)) return;
    if (ECS_UNLIKELY(observers_.any_query())) return toggle_observed(e, id, false);
    if (arch_of(r).set_disabled(id, r.row, false)) entities_.stamp(e.index);
}

template <typename T>
ECS_FORCEINLINE bool World::enabled(Entity e) const noexcept {
    const ComponentTypeID id = component_id<T>();
    if constexpr (detail::is_sparse_v<T>) {
        const detail::bare_t<T>* p = find_sparse<const detail::bare_t<T>>(e);
        return p != nullptr && !graph_.sparse()->set(id)->disabled(e.index);
    }
    if (!alive(e)) return false;
    const EntityRecord& r = entities_[e.index];
    return arch_of(r).has(id) && !arch_of(r).disabled(id, r.row);
}

inline void World::disable(Entity e) {
    if (!alive(e)) return;
    graph_.note_disabled();
    if (ECS_UNLIKELY(observers_.any_query())) return toggle_observed(e, INVALID_COMPONENT_ID, true);
    const EntityRecord& r = entities_[e.index];
    arch_of(r).enable.set_entity(r.row, true);
    entities_.stamp(e.index);
}

inline void World::enable(Entity e) {
    if (!alive(e)) return;
    if (ECS_UNLIKELY(observers_.any_query())) return toggle_observed(e, INVALID_COMPONENT_ID, false);
    const EntityRecord& r = entities_[e.index];
    arch_of(r).enable.set_entity(r.row, false);
    entities_.stamp(e.index);
}

inline bool World::enabled(Entity e) const noexcept {
    if (!alive(e)) return false;
    const EntityRecord& r = entities_[e.index];
    return !arch_of(r).enable.entity_disabled(r.row);
}

inline void World::toggle_sparse(Entity e, ComponentTypeID id, bool off) {
    if (!alive(e) || graph_.sparse() == nullptr) return;
    detail::SparseSet* set = graph_.sparse()->set(id);
    if (set == nullptr || !set->contains(e.index)) return;
    if (ECS_UNLIKELY(observers_.any_query())) return toggle_observed(e, id, off);
    if (set->set_disabled(e.index, off)) entities_.stamp(e.index);
}

inline void World::toggle_observed(Entity e, ComponentTypeID id, bool off) {
    const bool entity = id == INVALID_COMPONENT_ID;
    detail::SparseSet* sparse = !entity && graph_.sparse() != nullptr ? graph_.sparse()->set(id) : nullptr;
    if (sparse != nullptr && !sparse->contains(e.index)) sparse = nullptr;
    {
        const EntityRecord& r = entities_[e.index];
        const Archetype& a = arch_of(r);
        const bool now_off = entity ? a.enable.entity_disabled(r.row) : sparse != nullptr ? sparse->disabled(e.index) : a.disabled(id, r.row);
        if (now_off == off) return; // nothing changes
    }
    ComponentMask before; // what queries see now, and will see after the flip
    const bool visible = detail::Observers::seen_mask(arch_of(e), entities_[e.index].row, e.index, graph_.sparse(), before);
    ComponentMask after = before;
    if (!entity) {
        if (off) after.reset(id);
        else after.set(id);
    }
    // A disabled entity matches nothing: disabling it leaves every query, enabling it enters them.
    // A component flip is seen only while the entity itself is visible.
    detail::Notice notice = entity ? detail::Notice{nullptr, nullptr, off, !off, false}
                                   : detail::Notice{&after, &before, visible, visible, true};
    commit(
        e, notice,
        [&] {
            if (!alive(e)) return false; // an observer destroyed it
            if (entity) return true;
            if (sparse != nullptr) { // re-read: an observer may have removed it
                sparse = graph_.sparse()->set(id);
                return sparse != nullptr && sparse->contains(e.index);
            }
            return arch_of(e).has(id); // an observer may have removed it
        },
        [&] {
            const EntityRecord& r = entities_[e.index]; // re-read: an observer may have moved it
            if (entity) arch_of(r).enable.set_entity(r.row, off);
            else if (sparse != nullptr) sparse->set_disabled(e.index, off);
            else arch_of(r).set_disabled(id, r.row, off);
        },
        [] {});
}

} // namespace ecs
