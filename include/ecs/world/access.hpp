/**
 * @file ecs/world/access.hpp
 * @brief World::has, get, try_get, each_component, names and memory_bytes: reading what an entity holds.
 *
 * Reads go entity -> record -> archetype -> column; sparse types go to their set (sparse.hpp). A
 * mutable get of a tracked type stamps the row as changed.
 */
#pragma once

#include <cstddef>
#include <string_view>
#include <type_traits>

#include "world_class.hpp"

namespace ecs {

inline void World::set_name(Entity e, std::string_view name) {
    if (!ECS_CHECK(alive(e), detail::entity_message("World::set_name", {}, e, "is not alive"))) return;
    if (!ECS_CHECK(name.size() <= MAX_ENTITY_NAME_LENGTH, "World::set_name: name longer than MAX_ENTITY_NAME_LENGTH"))
        return;
    if (ECS_CHECK(names_.set(e, name), names_.taken_message("World::set_name", name))) entities_.stamp(e.index);
}

template <typename T>
inline bool World::has(Entity e) const noexcept {
    if constexpr (detail::is_sparse_v<T>) return find_sparse<const detail::bare_t<T>>(e) != nullptr;
    else return alive(e) && arch_of(e).has(component_id<T>());
}

template <typename T, typename U, typename... Ts>
inline bool World::has(Entity e) const noexcept {
    if constexpr (detail::is_sparse_v<T> || detail::is_sparse_v<U> || (detail::is_sparse_v<Ts> || ...)) {
        return has<T>(e) && has<U>(e) && (has<Ts>(e) && ...); // sparse types are in their sets
    } else {
        if (!alive(e)) return false;
        const Archetype& a = arch_of(e);
        return a.has(component_id<T>()) && a.has(component_id<U>()) && (a.has(component_id<Ts>()) && ...);
    }
}

template <typename T>
ECS_FORCEINLINE T& World::get(Entity e) {
    if constexpr (detail::is_sparse_v<T>) return get_sparse<T>(e); // detail/sparse_ops.hpp
#if ECS_ASSERT_ENABLED
    if (!ECS_CHECK(alive(e), detail::entity_message("World::get", type_name<detail::bare_t<T>>(), e, "is not alive")))
        return detail::fallback_object<T>();
    if (!ECS_CHECK(arch_of(e).has(component_id<T>()),
                   detail::entity_message("World::get", type_name<detail::bare_t<T>>(), e, "does not have the component")))
        return detail::fallback_object<T>();
    if (!detail::access_ok<T>()) return detail::fallback_object<T>();
#endif
    const EntityRecord r = entities_[e.index];
    Archetype& a = arch_of(r);
    if constexpr (!std::is_const_v<T>) // mutable access counts as a change
        if (ECS_UNLIKELY(graph_.any_tracked()) && a.ticks.active()) a.touch(component_id<T>(), r.row);
    return detail::element(column_data<T>(a), r.row);
}

template <typename T>
ECS_FORCEINLINE const T& World::get(Entity e) const {
    return const_cast<World*>(this)->get<const T>(e);
}

template <typename T>
ECS_FORCEINLINE T* World::try_get(Entity e) noexcept {
    if constexpr (detail::is_sparse_v<T>) return try_get_sparse<T>(e);
    if (!alive(e) || !detail::access_ok<T>()) return nullptr;
    const EntityRecord r = entities_[e.index];
    Archetype& a = arch_of(r);
    if (!a.has(component_id<T>())) return nullptr;
    if constexpr (!std::is_const_v<T>) // mutable access counts as a change
        if (ECS_UNLIKELY(graph_.any_tracked()) && a.ticks.active()) a.touch(component_id<T>(), r.row);
    return &detail::element(column_data<T>(a), r.row);
}

template <typename T>
ECS_FORCEINLINE const T* World::try_get(Entity e) const noexcept {
    return const_cast<World*>(this)->try_get<const T>(e);
}

template <typename Func>
inline void World::each_component(Entity e, Func&& fn) {
    if (!alive(e)) return;
    const EntityRecord& r = entities_[e.index];
    const Archetype& arch = arch_of(r);
    const detail::SparseRoom* room = graph_.sparse();
    if (ECS_LIKELY(room == nullptr)) {
        for (const ComponentColumn& c : arch.columns) fn(c.type_id, c.at(r.row));
        return;
    }
    size_t next = 0; // merged with the table components, in id order
    for (const ComponentTypeID id : room->ids()) {
        void* value = room->member(id).find(e.index);
        if (value == nullptr) continue;
        for (; next < arch.columns.size() && arch.columns[next].type_id < id; ++next)
            fn(arch.columns[next].type_id, arch.columns[next].at(r.row));
        fn(id, value);
    }
    for (; next < arch.columns.size(); ++next) fn(arch.columns[next].type_id, arch.columns[next].at(r.row));
}

template <typename Func>
inline void World::each_component(Entity e, Func&& fn) const {
    const_cast<World*>(this)->each_component(e, [&](ComponentTypeID id, const void* p) { fn(id, p); });
}

template <typename T>
inline T* World::column_data(Archetype& arch) noexcept {
    return reinterpret_cast<T*>(arch.data_by_id[component_id<T>()]);
}

inline size_t World::memory_bytes() const noexcept {
    return entities_.memory_bytes() + graph_.memory_bytes() + (deferred_ != nullptr ? deferred_->capacity_bytes() : 0) + names_.memory_bytes() +
           relations_.memory_bytes();
}

} // namespace ecs
