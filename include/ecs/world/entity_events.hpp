/**
 * @file ecs/world/entity_events.hpp
 * @brief World::observe (entity events, on one entity or any) and World::emit: the event visits the
 *        target, then each ancestor by Parent, until an observer calls Propagation::stop().
 *
 * emit runs, at each level from the target up: the observers registered on that entity (in
 * registration order), then the observers of any entity, each receiving that entity as `target`.
 * It climbs at most MAX_PROPAGATION levels (the target and 64 ancestors). The event is one object,
 * moved in once, that every observer receives by reference: an observer may change it for those
 * after it. emit is refused during iteration (a CommandBuffer records it instead: cb.emit(e, ev));
 * a dead target is a no-op. Observers registered on an entity go with it when it is destroyed.
 * Event types are numbered like EventReader channels (events.hpp), apart from component ids, so
 * they never use up ECS_MAX_COMPONENTS.
 */
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "../builtin/hierarchy.hpp"
#include "../entity_events.hpp"
#include "../events.hpp"
#include "world_class.hpp"

namespace ecs {

/// @brief Most levels an entity event climbs above its target.
inline constexpr uint32_t MAX_PROPAGATION = 64;

namespace detail {
/// Wraps `fn(World&, Entity, E&, Propagation&)` for the observer table.
template <typename E, typename F>
auto entity_observer(F&& fn) {
    static_assert(std::is_invocable_v<std::decay_t<F>&, World&, Entity, E&, Propagation&>,
                  "World::observe<E>: the observer must be callable as fn(World&, Entity, E&, Propagation&)");
    return [f = std::forward<F>(fn)](World& w, Entity e, void* ev, Propagation& p) mutable { f(w, e, *static_cast<E*>(ev), p); };
}
} // namespace detail

template <typename E, typename F>
inline ObserverId World::observe(Entity target, F&& fn) {
    using T = detail::bare_t<E>;
    if (!ECS_CHECK(alive(target), "World::observe: entity is not alive")) return ObserverId{};
    detail::EntityEvents& room = entity_events_.create();
    room.set_up_id(component_id<Parent>());
    return room.add(target, detail::event_type_id<T>(), detail::entity_observer<T>(std::forward<F>(fn)));
}

template <typename E, typename F>
inline ObserverId World::observe(F&& fn) {
    using T = detail::bare_t<E>;
    detail::EntityEvents& room = entity_events_.create();
    room.set_up_id(component_id<Parent>());
    return room.add(INVALID_ENTITY, detail::event_type_id<T>(), detail::entity_observer<T>(std::forward<F>(fn)));
}

template <typename E>
inline void World::emit(Entity target, E&& event) {
    using T = detail::bare_t<E>;
    static_assert(std::is_move_constructible_v<T> && std::is_destructible_v<T>, "World::emit: event must be move-constructible");
    if (!ECS_CHECK(!iterating(), "World::emit: called during iteration (use a CommandBuffer: cb.emit(e, ev))")) return;
    if (entity_events_ == nullptr || !entity_events_->any() || !alive(target)) return;
    T ev(std::forward<E>(event));
    detail::EmitFrame frame(*this, &ev, target, detail::event_type_id<T>());
    const bool outermost = entity_events_->begin_emit();
    entity_events_->dispatch(frame, target);
    if (!frame.propagation.stopped()) {
        // The target's record is read again: its observers may have destroyed or reparented it.
        const EntityRecord& rec = entities_[target.index];
        // up_id() is Parent's id, cached by observe() (any valid id if Parent has none: emit_up checks again).
        if (rec.generation == target.generation && rec.archetype != nullptr && rec.archetype->mask[entity_events_->up_id()])
            emit_up(frame);
    }
    entity_events_->end_emit(outermost);
}

/// emit's climb from `frame.current` (whose observers ran, and which has a Parent) to its
/// ancestors, out of line and the same for every event type. Each level's record is read after its
/// observers ran: they may have destroyed it, reparented it or removed its Parent.
ECS_NOINLINE inline void World::emit_up(detail::EmitFrame& frame) {
    const ComponentTypeID parent_id = component_id<Parent>();
    if (parent_id >= ECS_MAX_COMPONENTS) return; // the ids ran out before Parent took one: no entity has it
    Propagation& p = frame.propagation;
    for (;;) {
        const Entity current = frame.current;
        const EntityRecord& rec = entities_[current.index];
        if (rec.generation != current.generation || rec.archetype == nullptr) return; // destroyed
        if (!rec.archetype->mask.test(parent_id)) return;                               // no Parent: the top
        const Entity up = static_cast<const Parent*>(rec.archetype->column(parent_id).at(rec.row))->entity;
        if (!alive(up) || p.depth() == MAX_PROPAGATION) return;
        frame.current = up;
        p.climb();
        entity_events_->dispatch(frame);
        if (p.stopped()) return;
    }
}

} // namespace ecs
