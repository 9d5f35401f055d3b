/**
 * @file ecs/world/resources.hpp
 * @brief World::set_resource, resource, try_resource, has_resource, remove_resource, send and update_events.
 *
 * Resources are one value per type (resources.hpp); events are per-type channels read by
 * EventReader (events.hpp). Neither is a structural change: both are allowed during iteration.
 */
#pragma once

#include <type_traits>
#include <utility>

#include "../detail/message.hpp"
#include "world_class.hpp"

namespace ecs {

template <typename T>
inline void World::set_resource(T&& value) {
    using R = detail::bare_t<T>;
    if constexpr (std::is_lvalue_reference_v<T>) set_resource(R(value)); // `value` may be the resource
    else resources_.create().set<R>(std::move(value));
}

template <typename T>
inline T& World::resource() {
    T* p = try_resource<T>();
    if (!ECS_CHECK(p != nullptr, detail::format_message("World::resource: resource does not exist [%.*s]",
                                                        int(type_name<detail::bare_t<T>>().size()),
                                                        type_name<detail::bare_t<T>>().data())))
        return detail::fallback_object<T>();
    return *p;
}

template <typename T>
inline const T& World::resource() const {
    return const_cast<World*>(this)->resource<const T>();
}

template <typename T>
inline T* World::try_resource() noexcept {
    if (!detail::access_ok<T>()) return nullptr;
    return resources_ != nullptr ? static_cast<T*>(resources_->find(component_id<T>())) : nullptr;
}

template <typename T>
inline const T* World::try_resource() const noexcept {
    return const_cast<World*>(this)->try_resource<const T>();
}

template <typename T>
inline bool World::has_resource() const noexcept {
    return try_resource<T>() != nullptr;
}

template <typename T>
inline void World::remove_resource() noexcept {
    if (resources_ != nullptr) resources_->remove(component_id<T>());
}

template <typename E>
inline void World::send(E&& event) {
    using T = detail::bare_t<E>;
    static_assert(std::is_move_constructible_v<T> && std::is_destructible_v<T>, "World::send: event must be move-constructible");
    events_.send<T>(std::forward<E>(event));
}

inline void World::update_events() {
    const bool done = events_.update();
    ECS_ASSERT(done, "World::update_events: called while an EventReader reads this world");
    (void)done;
}

} // namespace ecs
