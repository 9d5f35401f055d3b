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
#include <new>
#include <utility>

#include "../world.hpp"
#include "command_queue.hpp"
#include "component_registry.hpp" // [scripting] check_known_id

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

// ---- [scripting] begin: untyped commands (DeferredProxy / CommandBuffer add_raw, remove_raw) ----

/// A deferred add_raw: owns a copy of the value (or nullptr: value-initialise at flush).
struct AddRawCommand {
    AddRawCommand(Entity target, ComponentTypeID type, void* object, size_t object_align, void (*drop)(void*)) noexcept
        : e(target), id(type), value(object), align(object_align), destroy(drop) {}
    AddRawCommand(const AddRawCommand&) = delete;
    AddRawCommand& operator=(const AddRawCommand&) = delete;
    ~AddRawCommand() {
        if (value == nullptr) return;
        if (destroy != nullptr) destroy(value);
        ::operator delete(value, std::align_val_t(align));
    }
    void run(World& w) { (void)w.add_raw(e, id, value); }
    Entity e;
    ComponentTypeID id;
    void* value;   ///< heap copy (operator new with `align`), or nullptr
    size_t align;
    void (*destroy)(void*); ///< nullptr: nothing to destroy
};

struct RemoveRawCommand {
    RemoveRawCommand(Entity target, ComponentTypeID type) noexcept : e(target), id(type) {}
    void run(World& w) { w.remove_raw(e, id); }
    Entity e;
    ComponentTypeID id;
};

/// Records the untyped commands into a queue (World::DeferredProxy, CommandBuffer).
struct RawCommandRecorder {
    /// Copies `*value` (or nothing, for a value-initialised add) into the queue now. Refused (asserts,
    /// nothing recorded) when the id is unknown, has no storage, or the type cannot copy / default-construct.
    static void add(CommandQueue& q, const char* function, Entity e, ComponentTypeID id, const void* value) {
        if (!check_known_id(function, id)) return;
        const ColumnFactory factory = column_factory(id);
        if (!ECS_CHECK(factory != nullptr, format_message("%s: component id %u has no storage", function, static_cast<unsigned>(id))))
            return;
        const ComponentColumn c = factory();
        if (value == nullptr || c.is_tag) {
            if (!ECS_CHECK(c.is_tag || default_constructors[id].load(std::memory_order_acquire) != nullptr,
                           format_message("%s: component type %.*s is not default-constructible", function,
                                          static_cast<int>(component_info(id).name.size()), component_info(id).name.data())))
                return;
            q.emplace<World, AddRawCommand>(e, id, nullptr, size_t(1), nullptr);
            return;
        }
        if (!ECS_CHECK(c.copy != nullptr, format_message("%s: component type %.*s cannot be copied", function,
                                                          static_cast<int>(component_info(id).name.size()),
                                                          component_info(id).name.data())))
            return;
        void* copy = ::operator new(c.type_size, std::align_val_t(c.elem_align));
        struct Guard { // frees the storage if the copy constructor throws
            void* p;
            size_t align;
            ~Guard() {
                if (p != nullptr) ::operator delete(p, std::align_val_t(align));
            }
        } guard{copy, c.elem_align};
        c.copy(copy, value);
        guard.p = nullptr;
        q.emplace<World, AddRawCommand>(e, id, copy, c.elem_align, c.trivially_relocatable ? nullptr : c.destroy);
    }
    static void remove(CommandQueue& q, const char* function, Entity e, ComponentTypeID id) {
        if (!check_known_id(function, id)) return;
        q.emplace<World, RemoveRawCommand>(e, id);
    }
};

// ---- [scripting] end ----

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
    // ---- [scripting] begin (runtime.hpp) ----
    /// Records add_raw(e, id, value): a copy of `*value` (nothing for nullptr) is taken now.
    void add_raw(Entity e, ComponentTypeID id, const void* value) {
        detail::RawCommandRecorder::add(world_->deferred_, "World::deferred().add_raw", e, id, value);
    }
    /// Records remove_raw(e, id).
    void remove_raw(Entity e, ComponentTypeID id) {
        detail::RawCommandRecorder::remove(world_->deferred_, "World::deferred().remove_raw", e, id);
    }
    // ---- [scripting] end ----

private:
    World* world_;
};

inline World::DeferredProxy World::deferred() noexcept { return DeferredProxy(*this); }

} // namespace ecs
