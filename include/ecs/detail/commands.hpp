/**
 * @file ecs/detail/commands.hpp
 * @brief The structural commands that World::DeferredProxy and CommandBuffer record, and
 *        World::DeferredProxy itself.
 *
 * A command is a small struct with `run(World&)`, constructed in place in a CommandQueue page (see
 * detail/command_queue.hpp) and destroyed exactly once, run or not. Included at the end of world.hpp,
 * where World is complete.
 */
#pragma once

#include <cstddef>
#include <utility>

#include "../world.hpp"
#include "command_queue.hpp"

namespace ecs {


namespace detail {

struct DestroyCommand {
    explicit DestroyCommand(Entity target) noexcept : e(target) {}
    void run(World& w) { w.destroy(e); }
    Entity e;
};

template <typename T>
struct AddCommand {
    template <typename V>
    AddCommand(Entity target, V&& v) : e(target), value(std::forward<V>(v)) {}
    void run(World& w) { w.add(e, std::move(value)); }
    Entity e;
    T value;
};

template <typename T>
struct RemoveCommand {
    explicit RemoveCommand(Entity target) noexcept : e(target) {}
    void run(World& w) { w.remove<T>(e); }
    Entity e;
};

/// One value of a CreateCommand (the index tells equal types apart).
template <size_t I, typename T>
struct CreateValue {
    template <typename V>
    explicit CreateValue(V&& v) : value(std::forward<V>(v)) {}
    T value;
};

template <typename Indices, typename... Ts>
struct CreateValues;
template <size_t... Is, typename... Ts>
struct CreateValues<std::index_sequence<Is...>, Ts...> : CreateValue<Is, Ts>... {
    template <typename... Vs>
    explicit CreateValues(Vs&&... vs) : CreateValue<Is, Ts>(std::forward<Vs>(vs))... {}
    void create(World& w) { (void)w.create_with(std::move(static_cast<CreateValue<Is, Ts>&>(*this).value)...); }
};

template <typename... Ts>
struct CreateCommand {
    template <typename... Vs>
    explicit CreateCommand(Vs&&... vs) : values(std::forward<Vs>(vs)...) {}
    void run(World& w) { values.create(w); }
    CreateValues<std::index_sequence_for<Ts...>, Ts...> values;
};

/// Records the structural API into a CommandQueue. Shared by DeferredProxy and CommandBuffer.
struct CommandRecorder {
    static void destroy(CommandQueue& q, Entity e) { q.emplace<World, DestroyCommand>(e); }
    template <typename T>
    static void add(CommandQueue& q, Entity e, T&& value) {
        q.emplace<World, AddCommand<bare_t<T>>>(e, std::forward<T>(value));
    }
    template <typename T>
    static void remove(CommandQueue& q, Entity e) {
        q.emplace<World, RemoveCommand<bare_t<T>>>(e);
    }
    template <typename... Ts>
    static void create_with(CommandQueue& q, Ts&&... values) {
        static_assert(distinct_v<Ts...>, "create_with: component types must be distinct");
        q.emplace<World, CreateCommand<bare_t<Ts>...>>(std::forward<Ts>(values)...);
    }
};

} // namespace detail

/**
 * @brief Records structural changes into the world's deferred queue instead of executing them.
 *
 * Same structural API as World; every call returns at once, does no heap allocation once the queue's
 * pages have grown, and takes effect at World::flush_deferred(), in recording order. A command whose
 * entity is dead by then is a no-op (its payload is still destroyed).
 */
class World::DeferredProxy {
public:
    explicit DeferredProxy(World& world) noexcept : world_(&world) {}
    /// Records destroy(e).
    void destroy(Entity e) { detail::CommandRecorder::destroy(world_->deferred_, e); }
    /// Records add(e, value); the value is moved (or copied) into the queue now.
    template <typename T>
    void add(Entity e, T&& value) {
        detail::CommandRecorder::add(world_->deferred_, e, std::forward<T>(value));
    }
    /// Records add<T>(e) with a value-initialised T.
    template <typename T>
    void add(Entity e) {
        add(e, T{});
    }
    /// Records remove<T>(e).
    template <typename T>
    void remove(Entity e) {
        detail::CommandRecorder::remove<T>(world_->deferred_, e);
    }
    /// Records create_with(values...). Returns nothing: the entity exists only after the flush.
    template <typename... Ts>
    void create_with(Ts&&... values) {
        detail::CommandRecorder::create_with(world_->deferred_, std::forward<Ts>(values)...);
    }
    // ---- [scripting] begin (defined in runtime.hpp) ----
    /// Records add_raw(e, id, value): a copy of `*value` (nothing for nullptr) is taken now.
    void add_raw(Entity e, ComponentTypeID id, const void* value);
    /// Records remove_raw(e, id).
    void remove_raw(Entity e, ComponentTypeID id);
    // ---- [scripting] end ----

private:
    World* world_;
};

inline World::DeferredProxy World::deferred() noexcept { return DeferredProxy(*this); }

} // namespace ecs
