/**
 * @file ecs/world/observing.hpp
 * @brief Hook and query-observer registration, change detection (track_changes, patch, mark_changed).
 *
 * Registration goes to the observers room (observers.hpp); the hooks themselves are fired by the
 * commit point (structural.hpp) and by destroy (lifecycle.hpp). Change stamps go to the archetype's
 * tick columns (change_detection.hpp).
 */
#pragma once

#include <type_traits>
#include <utility>

#include "../detail/std_function.hpp"
#include "world_class.hpp"

namespace ecs {

template <typename T>
inline ObserverId World::on_add(std::function<void(World&, Entity, T&)> fn) {
    const ComponentTypeID id = ensure_column_factory<detail::bare_t<T>>();
    if (!ECS_CHECK(id < ECS_MAX_COMPONENTS, "World::on_add: too many component types (raise ECS_MAX_COMPONENTS)")) return {};
    return observers_.add_on_add(id, detail::Observers::erase<T>(std::move(fn)));
}

template <typename T>
inline ObserverId World::on_remove(std::function<void(World&, Entity, T&)> fn) {
    const ComponentTypeID id = ensure_column_factory<detail::bare_t<T>>();
    if (!ECS_CHECK(id < ECS_MAX_COMPONENTS, "World::on_remove: too many component types (raise ECS_MAX_COMPONENTS)")) return {};
    return observers_.add_on_remove(id, detail::Observers::erase<T>(std::move(fn)));
}

template <typename T>
inline ObserverId World::on_set(std::function<void(World&, Entity, T&)> fn) {
    const ComponentTypeID id = ensure_column_factory<detail::bare_t<T>>();
    if (!ECS_CHECK(id < ECS_MAX_COMPONENTS, "World::on_set: too many component types (raise ECS_MAX_COMPONENTS)")) return {};
    return observers_.add_on_set(id, detail::Observers::erase<T>(std::move(fn)));
}

template <typename... Terms, typename... Args>
inline ObserverId World::on_enter(Args&&... args) {
    if (!ECS_CHECK(!detail::filter_values(args...).active,
                   "World::on_enter: Related<R>{target} and Cascade<R> are not accepted (Related<R>{} is)"))
        return {};
    return add_query_observer<Terms...>(true, detail::init_t<Args...>{}, detail::last_arg(args...));
}

template <typename... Terms, typename... Args>
inline ObserverId World::on_leave(Args&&... args) {
    if (!ECS_CHECK(!detail::filter_values(args...).active,
                   "World::on_leave: Related<R>{target} and Cascade<R> are not accepted (Related<R>{} is)"))
        return {};
    return add_query_observer<Terms...>(false, detail::init_t<Args...>{}, detail::last_arg(args...));
}

template <typename T>
inline void World::track_changes() {
    const ComponentTypeID id = ensure_column_factory<detail::bare_t<T>>();
    if (!ECS_CHECK(id < ECS_MAX_COMPONENTS, "World::track_changes: too many component types (raise ECS_MAX_COMPONENTS)")) return;
    graph_.track(id);
    entities_.stamp_with(graph_.clock()); // structure stamps start with the clock
}

template <typename T>
inline bool World::tracks_changes() const noexcept {
    return graph_.tracks(component_id<T>());
}

template <typename T, typename Func>
inline void World::patch(Entity e, Func&& fn) {
    using C = detail::bare_t<T>;
    if (!ECS_CHECK(has<C>(e), detail::entity_message("World::patch", type_name<C>(), e,
                                                      "is not alive or does not have the component")))
        return;
    C& value = const_cast<C&>(get<const C>(e));
    fn(value);
    const ComponentTypeID id = component_id<C>();
    if (ECS_UNLIKELY(graph_.any_tracked())) touch(e, id);
    if (ECS_UNLIKELY(observers_.any_set())) observers_.fire_on_set(*this, lookup(), e, id);
}

template <typename T>
inline void World::mark_changed(Entity e) {
    if (graph_.any_tracked()) touch(e, component_id<T>());
}

inline void World::touch(Entity e, ComponentTypeID id) noexcept {
    if (!alive(e)) return;
    const EntityRecord& r = entities_[e.index];
    arch_of(r).touch(id, r.row);
    if (ECS_UNLIKELY(graph_.sparse() != nullptr))
        if (detail::SparseSet* set = graph_.sparse()->set(id))
            if (set->contains(e.index) && set->ticks_active()) set->touch(e.index);
}

template <typename... Terms, typename... Filters, typename Func>
inline ObserverId World::add_query_observer(bool enter, detail::TypeList<Filters...>, Func& fn) {
    using Check = detail::QueryCheck<detail::TypeList<Terms...>, detail::TypeList<Filters...>>;
    static_assert(Check::check(), "ecs query check");
    static_assert(!Check::change_filtered, "World::on_enter/on_leave: Changed<...>/Added<...> filters are not accepted");
    static_assert((!detail::TermTraits<Terms>::optional && ...), "World::on_enter/on_leave: terms are T or const T");
    static_assert(std::is_constructible_v<detail::Observers::EntityHook, Func&>,
                  "World::on_enter/on_leave: the callback must be callable as fn(World&, Entity)");
    ComponentMask include;
    ComponentMask exclude;
    bool impossible = false;
    bool ignored = false;
    detail::set_bits(include, impossible, typename Check::required{});
    detail::set_bits(exclude, ignored, typename Check::excluded{});
    return observers_.add_query_observer(enter, include, exclude, impossible, detail::Observers::EntityHook(fn));
}

} // namespace ecs
