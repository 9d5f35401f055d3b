/**
 * @file ecs/world/deferred.hpp
 * @brief The structural commands that World::DeferredProxy and CommandBuffer record, and
 *        World::DeferredProxy itself.
 *
 * A command is a small struct with `run(World&)`, constructed in place in a CommandQueue page (see
 * detail/command_queue.hpp) and destroyed exactly once, run or not. Included by world.hpp,
 * where World is complete.
 */
#pragma once

#include <cstddef>
#include <type_traits>
#include <new>
#include <utility>

#include "../detail/atomic_slot.hpp"
#include "../detail/command_queue.hpp"
#include "../detail/component_registry.hpp" // check_known_id
#include "../detail/value_pack.hpp"
#include "../detail/world_access.hpp"
#include "world_class.hpp"

namespace ecs {


class Prefab;

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

/// CommandBuffer::create_with: a new entity at the flush (no handle before).
template <typename... Ts>
struct CreateCommand {
    template <typename... Vs>
    explicit CreateCommand(Vs&&... vs) : values(std::forward<Vs>(vs)...) {}
    void run(World& w) {
        values.apply([&](Ts&&... vs) { (void)w.create_with(std::move(vs)...); });
    }
    ValuesOf<Ts...> values;
};

// -- relationship commands --------------------------------------------------------------------

/// relate<R>(source, target) at flush: a no-op when either is dead by then (not a refusal).
template <typename R>
struct RelateCommand {
    RelateCommand(Entity s, Entity t) noexcept : source(s), target(t) {}
    void run(World& w) {
        if (w.alive(source) && w.alive(target)) w.relate<R>(source, target);
    }
    Entity source;
    Entity target;
};

template <typename R>
struct UnrelateCommand {
    UnrelateCommand(Entity s, Entity t) noexcept : source(s), target(t) {}
    void run(World& w) { w.unrelate<R>(source, target); }
    Entity source;
    Entity target;
};

template <typename R>
struct UnrelateAllCommand {
    explicit UnrelateAllCommand(Entity s) noexcept : source(s) {}
    void run(World& w) { w.unrelate_all<R>(source); }
    Entity source;
};

/// DeferredProxy::create / create_with: creates the entity at the handle reserved when recording.
/// If the creation cannot happen (refused, or dropped unflushed during a flush) the reservation is
/// cancelled: the slot is freed with its generation bumped, and the handle never becomes alive.
template <typename... Ts>
struct ReservedCreateCommand {
    template <typename... Vs>
    explicit ReservedCreateCommand(Entity slot, Vs&&... vs) : e(slot), values(std::forward<Vs>(vs)...) {}
    void run(World& w) {
        values.apply([&](Ts&&... vs) { (void)WorldAccess::create_reserved(w, e, std::move(vs)...); });
        WorldAccess::cancel_reservation(w, e); // no-op once created
    }
    /// Dropped without running: during a flush of `w` the slot is released; with no world (the queue
    /// dies with its world, or is replaced with it) there is nothing left to release.
    void drop(World* w) noexcept {
        if (w != nullptr) WorldAccess::cancel_reservation(*w, e);
    }
    Entity e;
    ValuesOf<Ts...> values;
};

/// add(e, a, b, ...) with two or more values: one migration at the flush.
template <typename... Ts>
struct AddManyCommand {
    template <typename... Vs>
    explicit AddManyCommand(Entity target, Vs&&... vs) : e(target), values(std::forward<Vs>(vs)...) {}
    void run(World& w) {
        values.apply([&](Ts&&... vs) { w.add(e, std::move(vs)...); });
    }
    Entity e;
    ValuesOf<Ts...> values;
};

template <typename... Ts>
struct RemoveManyCommand {
    explicit RemoveManyCommand(Entity target) noexcept : e(target) {}
    void run(World& w) { w.remove<Ts...>(e); }
    Entity e;
};

/// emplace<T>(e, args...): the arguments are kept (decayed: copied from lvalues, moved from rvalues)
/// and T is constructed from them at the flush, in place. No-op when `e` is dead by then.
template <typename T, typename... Args>
struct EmplaceCommand {
    template <typename... Vs>
    explicit EmplaceCommand(Entity target, Vs&&... vs) : e(target), args(std::forward<Vs>(vs)...) {}
    void run(World& w) {
        if (!w.alive(e)) return;
        args.apply([&](Args&&... as) { (void)w.template emplace<T>(e, std::move(as)...); });
    }
    Entity e;
    ValuesOf<Args...> args;
};

/// call(fn): `fn(World&)` at its place in the queue.
template <typename F>
struct CallCommand {
    template <typename G>
    explicit CallCommand(G&& g) : fn(std::forward<G>(g)) {}
    void run(World& w) { fn(w); }
    F fn;
};

/// instantiate(prefab, overrides...): holds a copy of the prefab (the original may die before the
/// flush). Defined in prefab.hpp, where Prefab is complete; `slot` is the reserved handle
/// (DeferredProxy) or INVALID_ENTITY (CommandBuffer: a new slot at the flush).
template <typename P, typename... Os>
struct InstantiateCommand;

// -- untyped commands (DeferredProxy / CommandBuffer add_raw, remove_raw) ---------------------

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
    template <typename = void>
    static void add(CommandQueue& q, const char* function, Entity e, ComponentTypeID id, const void* value) {
        if (!check_known_id(function, id)) return;
        const ColumnFactory factory = column_factory(id);
        if (!ECS_CHECK(factory != nullptr, format_message("%s: component id %u has no storage", function, static_cast<unsigned>(id))))
            return;
        const ComponentColumn c = factory();
        if (value == nullptr || c.is_tag) {
            if (!ECS_CHECK(c.is_tag || default_constructors[id].load(detail::order_acquire) != nullptr,
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
    template <typename = void>
    static void remove(CommandQueue& q, const char* function, Entity e, ComponentTypeID id) {
        if (!check_known_id(function, id)) return;
        q.emplace<World, RemoveRawCommand>(e, id);
    }
};


/// Records the structural API into a CommandQueue. Shared by DeferredProxy and CommandBuffer.
struct CommandRecorder {
    template <typename = void>
    static void destroy(CommandQueue& q, Entity e) { q.emplace<World, DestroyCommand>(e); }
    template <typename T>
    static void add(CommandQueue& q, Entity e, T&& value) {
        q.emplace<World, AddCommand<owned_t<T>>>(e, std::forward<T>(value));
    }
    template <typename... Ts>
    static void add_many(CommandQueue& q, Entity e, Ts&&... values) {
        static_assert(distinct_v<Ts...>, "add(e, values...): component types must be distinct");
        q.emplace<World, AddManyCommand<owned_t<Ts>...>>(e, std::forward<Ts>(values)...);
    }
    template <typename T>
    static void remove(CommandQueue& q, Entity e) {
        q.emplace<World, RemoveCommand<bare_t<T>>>(e);
    }
    template <typename... Ts>
    static void remove_many(CommandQueue& q, Entity e) {
        static_assert(distinct_v<Ts...>, "remove<Ts...>(e): component types must be distinct");
        q.emplace<World, RemoveManyCommand<bare_t<Ts>...>>(e);
    }
    template <typename T, typename... Args>
    static void emplace(CommandQueue& q, Entity e, Args&&... args) {
        static_assert(std::is_same_v<T, bare_t<T>>, "emplace<T>: T must be a component type (no cv, no reference)");
        static_assert(buildable_v<T, std::decay_t<Args>&&...>,
                      "emplace<T>(e, args...): T must be constructible from the (decayed) arguments");
        q.emplace<World, EmplaceCommand<T, std::decay_t<Args>...>>(e, std::forward<Args>(args)...);
    }
    template <typename F>
    static void call(CommandQueue& q, F&& fn) {
        static_assert(std::is_invocable_v<std::decay_t<F>&, World&>, "call(fn): fn must be callable as fn(World&)");
        q.emplace<World, CallCommand<std::decay_t<F>>>(std::forward<F>(fn));
    }
    template <typename... Ts>
    static void create_with(CommandQueue& q, Ts&&... values) {
        static_assert(distinct_v<Ts...>, "create_with: component types must be distinct");
        q.emplace<World, CreateCommand<owned_t<Ts>...>>(std::forward<Ts>(values)...);
    }
    template <typename R>
    static void relate(CommandQueue& q, Entity source, Entity target) {
        q.emplace<World, RelateCommand<R>>(source, target);
    }
    template <typename R>
    static void unrelate(CommandQueue& q, Entity source, Entity target) {
        q.emplace<World, UnrelateCommand<R>>(source, target);
    }
    template <typename R>
    static void unrelate_all(CommandQueue& q, Entity source) {
        q.emplace<World, UnrelateAllCommand<R>>(source);
    }
    template <typename... Ts>
    static void create_reserved(CommandQueue& q, Entity slot, Ts&&... values) {
        static_assert(distinct_v<Ts...>, "create_with: component types must be distinct");
        q.emplace<World, ReservedCreateCommand<owned_t<Ts>...>>(slot, std::forward<Ts>(values)...);
    }
    template <typename P, typename... Os>
    static void instantiate(CommandQueue& q, Entity slot, const P& prefab, Os&&... overrides) {
        static_assert(std::is_same_v<P, Prefab>, "instantiate: the first argument must be an ecs::Prefab");
        static_assert(distinct_v<Os...>, "instantiate: override types must be distinct");
        q.emplace<World, InstantiateCommand<P, owned_t<Os>...>>(slot, prefab, std::forward<Os>(overrides)...);
    }
};

} // namespace detail

/**
 * @brief Records structural changes into the world's deferred queue instead of executing them.
 *
 * Same structural API as World; every call returns at once, does no heap allocation once the queue's
 * pages have grown (instantiate copies its prefab), and takes effect at World::flush_deferred(), in
 * recording order. A command whose entity is dead by then is a no-op (its payload is still destroyed).
 *
 * create(), create_with() and instantiate() return the new entity's handle at once: its
 * slot is reserved now. The handle is not alive until the flush creates the entity at exactly that
 * handle; commands recorded for it meanwhile apply after it exists, in recording order. If its
 * command is dropped without running, the slot is freed with its generation bumped (the handle
 * never becomes alive).
 */
/// World::DeferredProxy: records structural changes into a world's own queue (World::deferred()).
class DeferredProxy {
public:
    explicit DeferredProxy(World& world) noexcept : world_(&world) {}
    /// Records destroy(e).
    template <typename = void> // like the members below: compiled only where called
    void destroy(Entity e) { detail::CommandRecorder::destroy(world_->deferred_.create(), e); }
    /// Records add(e, value); the value is moved (or copied) into the queue now.
    template <typename T>
    void add(Entity e, T&& value) {
        detail::CommandRecorder::add(world_->deferred_.create(), e, std::forward<T>(value));
    }
    /// Records add<T>(e) with a value-initialised T.
    template <typename T>
    void add(Entity e) {
        add(e, construct<T>()); // built in place at the flush
    }
    /// Records add(e, a, b, ...): one migration at the flush.
    template <typename T, typename U, typename... Ts>
    void add(Entity e, T&& first, U&& second, Ts&&... rest) {
        detail::CommandRecorder::add_many(world_->deferred_.create(), e, std::forward<T>(first), std::forward<U>(second),
                                          std::forward<Ts>(rest)...);
    }
    /// Records remove<T>(e).
    template <typename T>
    void remove(Entity e) {
        detail::CommandRecorder::remove<T>(world_->deferred_.create(), e);
    }
    /// Records remove<A, B, ...>(e): one migration at the flush.
    template <typename T, typename U, typename... Ts>
    void remove(Entity e) {
        detail::CommandRecorder::remove_many<T, U, Ts...>(world_->deferred_.create(), e);
    }
    /// Records emplace<T>(e, args...): the arguments are copied or moved into the queue
    /// now and `T` is constructed from them in place at the flush; no-op if `e` is dead by then.
    template <typename T, typename... Args>
    void emplace(Entity e, Args&&... args) {
        detail::CommandRecorder::emplace<T>(world_->deferred_.create(), e, std::forward<Args>(args)...);
    }
    /// Records `fn(World&)`, run at its place in the queue at the flush.
    template <typename F>
    void call(F&& fn) {
        detail::CommandRecorder::call(world_->deferred_.create(), std::forward<F>(fn));
    }
    /// Records create() and returns the entity's handle now (alive after the flush).
    template <typename = void>
    Entity create() {
        const Entity e = world_->entities_.reserve();
        detail::CommandRecorder::create_reserved(world_->deferred_.create(), e);
        return e;
    }
    /// Records create_with(values...) and returns the entity's handle now (addition: the spec's
    /// form returned nothing; the entity is alive after the flush).
    template <typename... Ts>
    Entity create_with(Ts&&... values) {
        static_assert(detail::distinct_v<Ts...>, "create_with: component types must be distinct");
        const Entity e = world_->entities_.reserve();
        detail::CommandRecorder::create_reserved(world_->deferred_.create(), e, std::forward<Ts>(values)...);
        return e;
    }
    /// Records instantiate(prefab, overrides...) and returns the entity's handle now. The
    /// prefab is copied into the queue (it may be destroyed before the flush). Needs ecs/prefab.hpp.
    template <typename P, typename... Os>
    Entity instantiate(const P& prefab, Os&&... overrides) {
        static_assert(std::is_same_v<P, Prefab>, "DeferredProxy::instantiate: the first argument must be an ecs::Prefab");
        static_assert(detail::distinct_v<Os...>, "instantiate: override types must be distinct");
        const Entity e = world_->entities_.reserve();
        detail::CommandRecorder::instantiate(world_->deferred_.create(), e, prefab, std::forward<Os>(overrides)...);
        return e;
    }
    // ---- ----
    /// Records relate<R>(source, target); at flush a no-op when either is dead by then.
    template <typename R>
    void relate(Entity source, Entity target) {
        detail::CommandRecorder::relate<R>(world_->deferred_.create(), source, target);
    }
    /// Records unrelate<R>(source, target).
    template <typename R>
    void unrelate(Entity source, Entity target) {
        detail::CommandRecorder::unrelate<R>(world_->deferred_.create(), source, target);
    }
    /// Records unrelate_all<R>(source).
    template <typename R>
    void unrelate_all(Entity source) {
        detail::CommandRecorder::unrelate_all<R>(world_->deferred_.create(), source);
    }
    /// Records add_raw(e, id, value): a copy of `*value` (nothing for nullptr) is taken now.
    template <typename = void>
    void add_raw(Entity e, ComponentTypeID id, const void* value) {
        detail::RawCommandRecorder::add(world_->deferred_.create(), "World::deferred().add_raw", e, id, value);
    }
    /// Records remove_raw(e, id).
    template <typename = void>
    void remove_raw(Entity e, ComponentTypeID id) {
        detail::RawCommandRecorder::remove(world_->deferred_.create(), "World::deferred().remove_raw", e, id);
    }

private:
    World* world_;
};

inline DeferredProxy World::deferred() noexcept { return DeferredProxy(*this); }

inline void World::flush_deferred() {
    if (!ECS_CHECK(!iterating(), "World::flush_deferred: called during iteration")) return;
    if (deferred_ != nullptr) deferred_->run_all(this);
}

} // namespace ecs
