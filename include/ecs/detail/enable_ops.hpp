/**
 * @file ecs/detail/enable_ops.hpp
 * @brief World::disable / enable / enabled (addition, 1.0): the World members of the enable room.
 *
 * Included at the end of world.hpp, where World is complete. The bits live in the archetypes
 * (enable.hpp); a toggle finds the entity's row and flips one bit, with no migration. With query
 * observers registered, the toggle fires on_leave before and on_enter after the flip, for the
 * observers whose match it changes.
 */
#pragma once

#include "../world.hpp"

namespace ecs {

template <typename T>
ECS_FORCEINLINE void World::disable(Entity e) {
    const ComponentTypeID id = component_id<T>();
    if (!alive(e)) return;
    const EntityRecord& r = entities_[e.index];
    if (!r.archetype->has(id)) return;
    graph_.note_disabled(); // queries stop skipping the enable tests (sticky)
    if (ECS_UNLIKELY(observers_.any_query())) return toggle_observed(e, id, true);
    r.archetype->set_disabled(id, r.row, true);
}

template <typename T>
ECS_FORCEINLINE void World::enable(Entity e) {
    const ComponentTypeID id = component_id<T>();
    if (!alive(e)) return;
    const EntityRecord& r = entities_[e.index];
    if (!r.archetype->has(id)) return;
    if (ECS_UNLIKELY(observers_.any_query())) return toggle_observed(e, id, false);
    r.archetype->set_disabled(id, r.row, false);
}

template <typename T>
ECS_FORCEINLINE bool World::enabled(Entity e) const noexcept {
    const ComponentTypeID id = component_id<T>();
    if (!alive(e)) return false;
    const EntityRecord& r = entities_[e.index];
    return r.archetype->has(id) && !r.archetype->disabled(id, r.row);
}

inline void World::disable(Entity e) {
    if (!alive(e)) return;
    graph_.note_disabled();
    if (ECS_UNLIKELY(observers_.any_query())) return toggle_observed(e, INVALID_COMPONENT_ID, true);
    const EntityRecord& r = entities_[e.index];
    r.archetype->enable.set_entity(r.row, true);
}

inline void World::enable(Entity e) {
    if (!alive(e)) return;
    if (ECS_UNLIKELY(observers_.any_query())) return toggle_observed(e, INVALID_COMPONENT_ID, false);
    const EntityRecord& r = entities_[e.index];
    r.archetype->enable.set_entity(r.row, false);
}

inline bool World::enabled(Entity e) const noexcept {
    if (!alive(e)) return false;
    const EntityRecord& r = entities_[e.index];
    return !r.archetype->enable.entity_disabled(r.row);
}

inline void World::toggle_observed(Entity e, ComponentTypeID id, bool off) {
    const bool entity = id == INVALID_COMPONENT_ID;
    {
        const EntityRecord& r = entities_[e.index];
        const Archetype& a = *r.archetype;
        if ((entity ? a.enable.entity_disabled(r.row) : a.disabled(id, r.row)) == off) return; // nothing changes
    }
    ComponentMask before; // what queries see now, and will see after the flip
    const bool visible = entities_[e.index].archetype->effective_mask(entities_[e.index].row, before);
    ComponentMask after = before;
    if (!entity) {
        if (off) after.reset(id);
        else after.set(id);
    }
    // on_leave: before the flip. A disabled entity matched nothing, so it leaves nothing.
    if (entity) {
        if (off) observers_.fire_leave(*this, entities_, e, nullptr);
    } else if (visible) {
        observers_.fire_leave(*this, entities_, e, &after, true);
    }
    if (!alive(e)) return; // an observer destroyed it
    const EntityRecord& r = entities_[e.index]; // re-read: an observer may have moved it
    if (entity) {
        r.archetype->enable.set_entity(r.row, off);
        if (!off) observers_.fire_enter(*this, entities_, e, nullptr);
        return;
    }
    if (!r.archetype->has(id)) return; // an observer removed it
    r.archetype->set_disabled(id, r.row, off);
    if (visible) observers_.fire_enter(*this, entities_, e, &before, true);
}

} // namespace ecs
