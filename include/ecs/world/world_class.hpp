/**
 * @file ecs/world.hpp
 * @brief The World: the facade that ties the rooms together.
 *
 * A World owns one of each room and routes every call to them; the logic lives in the rooms:
 *
 * | room             | header                 | owns                                                  |
 * |------------------|------------------------|-------------------------------------------------------|
 * | entity index     | entity_index.hpp       | records (archetype, row, generation), free list       |
 * | archetype        | archetype.hpp          | one table's rows: growth, migration, swap-remove      |
 * | archetype graph  | archetype_graph.hpp    | every archetype, the type-set index, edges, packs     |
 * | query engine     | query.hpp              | terms, filters, caches, chunks, handles, row loops    |
 * | observers        | observers.hpp          | on_add / on_remove / on_set hooks, query observers    |
 * | change detection | change_detection.hpp   | tick clock, per-archetype tick columns, Changed/Added |
 * | resources        | resources.hpp          | one value per type                                    |
 * | names            | names.hpp              | entity names: name -> entity, entity -> name          |
 * | relations        | relation.hpp, detail/relation_ops.hpp | relationship pairs, both directions    |
 * | commands         | detail/command_queue.hpp, detail/commands.hpp | deferred structural changes    |
 * | structural ops   | detail/structural.hpp  | multi-type add/remove, emplace, bulk ops, add/remove fast path |
 *
 * Data flows one way: entity -> record -> archetype -> column.
 *
 * Structural changes (create, destroy, adding a new component type, removing one) are forbidden
 * while a query runs: they assert in debug builds and are refused (the world is left as it was) in
 * every build. Queue them with deferred() instead.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "../archetype.hpp"
#include "../archetype_graph.hpp"
#include "../change_detection.hpp"
#include "../component.hpp"
#include "../detail/algorithms.hpp"
#include "../detail/command_queue.hpp"
#include "../detail/message.hpp"
#include "../detail/std_function.hpp"
#include "../entity.hpp"
#include "../entity_events.hpp"
#include "../entity_index.hpp"
#include "../events.hpp"
#include "../names.hpp"
#include "../observers.hpp"
#include "../query.hpp"
#include "../relation.hpp"
#include "../resources.hpp"
#include "../sparse.hpp"

namespace ecs {

class World;
class DeferredProxy;
class DynamicQuery;

namespace detail {

/// Storage a failed assertion can hand back as a reference when the library is built with a
/// recording ECS_ASSERT (tests). Never reached while preconditions hold.
template <typename T>
T& fallback_object() noexcept {
    alignas(T) static unsigned char bytes[sizeof(T)] = {};
    return *reinterpret_cast<T*>(bytes);
}

/// `"<message> [A, B, ...]"`: a refusal naming the types of a pack (cold path).
template <typename... Ts>
ECS_NOINLINE const char* pack_message(const char* message) {
    std::string names;
    ((names += names.empty() ? "" : ", ", names += type_name<bare_t<Ts>>()), ...);
    return typed_message(message, names);
}

/// What the query observers are told about one structural change (World::commit).
struct Notice {
    const ComponentMask* after = nullptr;  ///< on_leave: the mask the entity will have; nullptr: it will match nothing
    const ComponentMask* before = nullptr; ///< on_enter: the mask it had; nullptr: it matched nothing
    bool leave = true;                     ///< whether on_leave observers are told
    bool enter = true;                     ///< whether on_enter observers are told
    bool exact = false;                    ///< the masks already apply enable bits and sparse types
};

/// World::add_plain()'s answer: `done` when the entity migrated (`at`: raw storage for the new value).
struct PlainMove {
    void* at;
    bool done;
};

/// Where World::add() puts its value. EXISTING: `e` already has the type, `at` is its value (overwrite
/// in place). FRESH: `e` has migrated through the commit point, the value was constructed at
/// `at` and the hooks ran. DESTINATION_FULL: nothing done, the destination block moves on the
/// next row (the value must be taken out first). NOTHING: dead or refused.
struct AddSlot {
    enum Kind : uint8_t { NOTHING, EXISTING, FRESH, DESTINATION_FULL };
    void* at;
    Kind kind;
};
/// Constructs the new value at `at` from `value` (moved or copied, as the caller needs).
using ConstructFn = void (*)(void* at, void* value);

struct WorldAccess;
struct StructuralOps;

} // namespace detail

/**
 * @brief Owns entities, their components and everything attached to them.
 *
 * Not thread-safe: one thread at a time. Movable (query handles stay bound to the old address), not
 * copyable.
 */
class World {
public:
    /// Records structural changes into this world's queue (world/deferred.hpp).
    using DeferredProxy = ecs::DeferredProxy;
    /// Type-erased observer: receives the world, the entity and the component's address.
    using ErasedHook = detail::Observers::ErasedHook;
    /// `World::Exclude<Ts...>` names the same type as `ecs::Exclude<Ts...>` (both spellings work).
    template <typename... Ts>
    using Exclude = ecs::Exclude<Ts...>;

    World() = default;
    World(const World&) = delete;
    World& operator=(const World&) = delete;
    World(World&&) noexcept = default;
    World& operator=(World&&) noexcept = default;
    ~World() { deferred_.reset(); } // pending payloads go before the components they may name

    // -- Entity lifecycle -------------------------------------------------------------------------

    /// @brief Creates an entity with no components. @pre Not during iteration (refused: INVALID_ENTITY).
    Entity create();

    /**
     * @brief Creates an entity directly in the archetype of `{Ts...}`, moving (or copying lvalues of)
     *        the given values into place. No migration; `on_add` fires per component in pack order.
     * @pre Not during iteration. The types are distinct (checked at compile time).
     * @return the new entity, or INVALID_ENTITY when refused.
     */
    template <typename... Ts>
    Entity create_with(Ts&&... components) {
        static_assert(detail::distinct_v<Ts...>, "create_with: component types must be distinct");
        return create_in<false>(INVALID_ENTITY, std::forward<Ts>(components)...);
    }

    /// @brief `n` entities holding copies of `values`, as `n` create_with calls would make them, with
    ///        one archetype lookup and one growth of each column. @pre Not during iteration (refused: none).
    template <typename... Ts>
    std::vector<Entity> create_n(size_t n, const Ts&... values);
    template <typename... Ts>
    void create_n(Entity* out, size_t n, const Ts&... values); ///< the same, handles written to out[0, n)

    /**
     * @brief Destroys an entity: `on_remove` fires for each of its components, then its row is
     *        swap-removed, its slot's generation bumped and the slot freed. No-op for dead handles.
     * @pre Not during iteration (refused).
     */
    void destroy(Entity e);

    /// @brief True when `e` names a live entity of this world.
    [[nodiscard]] bool alive(Entity e) const noexcept { return entities_.alive(e); }

    // -- Relationships (relation.hpp; bodies in world/relations.hpp) ------------------------------

    /**
     * @brief Attaches the pair (R, target) to `source`. No-op when already related. For an exclusive
     *        R (relation_traits) a new target replaces the old one. The first pair of R gives `source`
     *        the tag `detail::HasRelation<R>` (an archetype change: on_add / on_enter fire then).
     * @pre Both alive; not during iteration (asserted and refused: nothing changes).
     */
    template <typename R>
    void relate(Entity source, Entity target);
    /// @brief Removes the pair (R, target) from `source`; no-op when not related. Removing the last R
    ///        pair takes the HasRelation<R> tag off. @pre Not during iteration when it removes (refused).
    template <typename R>
    void unrelate(Entity source, Entity target);
    /// @brief Removes every R pair of `source` (its targets lose it as a source). @pre as unrelate.
    template <typename R>
    void unrelate_all(Entity source);
    /// @brief True when `source` has the pair (R, target). O(targets of source).
    template <typename R>
    [[nodiscard]] bool related(Entity source, Entity target) const;
    /// @brief Number of R targets of `source` (0 when dead).
    template <typename R>
    [[nodiscard]] size_t target_count(Entity source) const;
    /// @brief The `i`th R target of `source` in the order of relating; INVALID_ENTITY past the end.
    template <typename R>
    [[nodiscard]] Entity target(Entity source, size_t i = 0) const;
    /// @brief Calls `fn(Entity target)` for each R target of `source`, in the order of relating, as
    ///        they were when the call began (fn may change relationships and destroy entities).
    template <typename R, typename Func>
    void each_target(Entity source, Func&& fn) const;
    /// @brief Calls `fn(Entity source)` for each entity having the pair (R, target), as they were when
    ///        the call began, in no particular order. O(sources of target).
    template <typename R, typename Func>
    void each_source(Entity target, Func&& fn) const;


    // -- Names (names.hpp) --------------------------------------------------------------

    /**
     * @brief Names `e` (unique per world); an empty `name` removes its name, renaming frees the old
     *        one, destroy frees it. Allowed during iteration (not a structural change).
     * @pre `e` is alive and no other entity is named `name` (asserted and refused: nothing changes).
     */
    void set_name(Entity e, std::string_view name);
    /// @brief The name of `e`; empty when unnamed or dead. Valid until `e` is renamed or destroyed.
    [[nodiscard]] std::string_view name(Entity e) const noexcept {
        return alive(e) ? names_.name_of(e.index) : std::string_view{};
    }
    /// @brief The entity named `name`, or INVALID_ENTITY. O(1), no allocation.
    [[nodiscard]] Entity lookup(std::string_view name) const noexcept { return names_.find(name); }

    // -- Component access -------------------------------------------------------------------------

    /// @brief True when `e` is alive and has `T`.
    template <typename T>
    [[nodiscard]] bool has(Entity e) const noexcept;
    /// @brief True when `e` is alive and has every one of `T, U, Ts...`.
    template <typename T, typename U, typename... Ts>
    [[nodiscard]] bool has(Entity e) const noexcept;

    /**
     * @brief Reference to `e`'s `T`. Invalidated by any structural change to `e`'s archetype.
     * @pre `e` is alive and has `T` (asserted, naming the type and the entity).
     */
    template <typename T>
    T& get(Entity e);
    template <typename T>
    const T& get(Entity e) const;

    /// @brief Pointer to `e`'s `T`, or nullptr when `e` is not alive or lacks `T`.
    template <typename T>
    [[nodiscard]] T* try_get(Entity e) noexcept;
    template <typename T>
    [[nodiscard]] const T* try_get(Entity e) const noexcept;

    /**
     * @brief Calls `fn(ComponentTypeID, void* data)` for each component of `e`, in id order.
     *        Tags give the address of their one shared object. No-op when `e` is not alive.
     * @pre `fn` makes no structural change to `e` (the walk reads its archetype's type list).
     */
    template <typename Func>
    void each_component(Entity e, Func&& fn);
    /// @brief As each_component, with `fn(ComponentTypeID, const void* data)`.
    template <typename Func>
    void each_component(Entity e, Func&& fn) const;

    // -- Untyped access by component id or name (world/raw.hpp) -----------------------------------

    /**
     * @brief Adds component `id` to `e`, copied from `*value`, or value-initialised when `value` is
     *        nullptr; overwrites it when `e` has it already (on_set fires; a new one also fires
     *        on_add). Works for typed and runtime components alike.
     * @return the component's address, or nullptr when `e` is dead or the call is refused.
     * @pre `id` names a component type used or registered in this process, which can copy (or
     *      default-construct, for nullptr); not a migration during iteration (refused).
     */
    void* add_raw(Entity e, ComponentTypeID id, const void* value);
    /// @brief Removes component `id` from `e` (as remove<T>); no-op when dead or absent. @pre known id
    void remove_raw(Entity e, ComponentTypeID id);
    /// @brief Address of `e`'s component `id`, or nullptr when `e` is dead or lacks it. Counts as a
    ///        change for a tracked type, like a mutable get. @pre known id (refused: nullptr)
    [[nodiscard]] void* get_raw(Entity e, ComponentTypeID id);
    [[nodiscard]] const void* get_raw(Entity e, ComponentTypeID id) const;
    /// @brief get_raw of the component type named `name` (registered name, else type name).
    /// @pre a component type has that name (refused: nullptr)
    [[nodiscard]] void* get_raw(Entity e, const char* name);
    [[nodiscard]] const void* get_raw(Entity e, const char* name) const;
    [[nodiscard]] void* get_raw(Entity e, std::string_view name);
    [[nodiscard]] const void* get_raw(Entity e, std::string_view name) const;
    /// @brief True when `e` is alive and has component `id`. @pre known id (refused: false)
    [[nodiscard]] bool has_raw(Entity e, ComponentTypeID id) const;
    /// @brief has_raw of the component type named `name`. @pre a type has that name (refused: false)
    [[nodiscard]] bool has_raw(Entity e, const char* name) const;
    [[nodiscard]] bool has_raw(Entity e, std::string_view name) const;
    /**
     * @brief Calls `fn(Entity, void* const* components)` for every entity having all `count` ids,
     *        `components[i]` the address of its `ids[i]`; archetype creation order, then row order.
     *        Every id counts as a mutable term (change detection). @pre known, distinct ids; `fn`
     *        makes no structural change (refused, as in each).
     */
    template <typename Func>
    void each_raw(const ComponentTypeID* ids, size_t count, Func&& fn);
    /// @brief on_add / on_remove / on_set by component id, with the component's address. Templates
    ///        with a defaulted parameter: a file that registers no hook compiles no registration.
    template <typename = void> ObserverId on_add_raw(ComponentTypeID id, ErasedHook fn);
    template <typename = void> ObserverId on_remove_raw(ComponentTypeID id, ErasedHook fn);
    template <typename = void> ObserverId on_set_raw(ComponentTypeID id, ErasedHook fn);


    // -- Component mutation -----------------------------------------------------------------------

    /**
     * @brief Adds `value` to `e`. If `e` already has the type, the old value is destroyed and the new
     *        one constructed in its place (no migration, no hook). Otherwise `e` migrates to the
     *        archetype with the type added, and `on_add` fires. No-op when `e` is not alive.
     * @pre A migration is not requested during iteration (refused); overwriting is allowed.
     */
    template <typename T>
    ECS_FORCEINLINE void add(Entity e, T&& value);
    /// @brief Adds a value-initialised `T` (convenient for tags): `world.add<Frozen>(e)`.
    template <typename T>
    void add(Entity e);

    /**
     * @brief Removes `T` from `e`: `on_remove` fires, then `e` migrates to the archetype without `T`
     *        and the value is destroyed. No-op when `e` is not alive or lacks `T`.
     * @pre Not during iteration when it would remove something (refused).
     */
    template <typename T>
    void remove(Entity e);

    // -- Several components at once, emplace, bulk changes (world/structural.hpp states the rules) 

    /**
     * @brief Adds two or more values in ONE migration: types `e` has are overwritten in place, the
     *        others constructed in the destination archetype (no intermediate archetype). Hooks fire
     *        after every value is written, as if added one at a time in argument order: per value
     *        `on_add` (new types only) then `on_set`; `on_leave`/`on_enter` once. No-op when dead.
     * @pre No migration during iteration (refused as a whole); pure overwrites are allowed. Types distinct.
     */
    template <typename T, typename U, typename... Ts>
    void add(Entity e, T&& first, U&& second, Ts&&... rest);
    /**
     * @brief Removes every one of `T, U, Ts...` that `e` has in ONE migration (absent types ignored):
     *        `on_leave` once, then `on_remove` per present type in template order, then the move.
     * @pre Not during iteration when it would remove something (refused).
     */
    template <typename T, typename U, typename... Ts>
    void remove(Entity e);
    /**
     * @brief Constructs `T(args...)` in place on `e`: in the destination row when `e` lacks `T` (one
     *        migration; on_add then on_set), else over the old value (on_set; world/structural.hpp
     *        says how arguments referring into it stay valid). @return `e`'s `T` after the hooks.
     * @pre `e` is alive, no migration during iteration (both asserted: zeroed static storage is returned).
     */
    template <typename T, typename... Args>
    T& emplace(Entity e, Args&&... args);
    /// @brief `e`'s `T` (mutable access), emplacing `T(args...)` first when `e` lacks it. @pre as emplace.
    template <typename T, typename... Args>
    T& get_or_emplace(Entity e, Args&&... args);
    /**
     * @brief Destroys every entity having all `Ts...` and passing `filters` (With / Without);
     *        `destroy_all()` destroys every entity. Whole archetypes at a time when no hook or query
     *        observer can fire (O(rows), no per-row migration); otherwise the matching entities are
     *        collected first and destroyed one by one. @return how many of the matching entities are
     *        gone afterwards (also those a hook or a destroy_sources cascade destroyed first).
     * @pre Not during iteration (refused: 0).
     */
    template <typename... Ts, typename... Filters>
    size_t destroy_all(Filters... filters);
    /// @brief Removes `T` from every entity having it and passing `filters`; whole archetypes moved
    ///        at a time when no hook can fire. @return how many lost `T`. @pre Not during iteration.
    template <typename T, typename... Filters>
    size_t remove_all(Filters... filters);
    /// @brief Adds a copy of `value` to every entity passing `filters` that lacks `T`; whole
    ///        archetypes moved at a time when no hook can fire. @return how many gained `T`.
    /// @pre Not during iteration (refused: 0). `T` is copy-constructible.
    template <typename T, typename... Filters>
    size_t add_all(const T& value, Filters... filters);

    // -- Enable bits (enable.hpp; bodies in world/enable.hpp) -------------------------------------

    /**
     * @brief Disables `e`'s `T`: it stays on `e` (has, get, try_get, hooks work) but queries,
     *        count<Ts...> and single treat it as absent. No migration. Allowed during iteration (a row
     *        the running query has not reached yet may or may not see the change). No-op when `e` is
     *        dead or lacks `T`; a `T` added later starts enabled. on_leave / on_enter observers fire.
     */
    template <typename T>
    void disable(Entity e);
    /// @brief Enables `e`'s `T` again. No-op when `e` is dead, lacks `T` or `T` is enabled.
    template <typename T>
    void enable(Entity e);
    /// @brief True when `e` is alive, has `T` and `T` is enabled. The entity's own state
    ///        (enabled(e)) does not enter into it.
    template <typename T>
    [[nodiscard]] bool enabled(Entity e) const noexcept;
    /**
     * @brief Disables entity `e`: every query, count<Ts...> and single skips it unless the
     *        query has ecs::IncludeDisabled{}; count() and alive() still count it. No migration; the
     *        state survives adding and removing components. No-op when `e` is dead.
     */
    void disable(Entity e);
    /// @brief Enables entity `e` again. No-op when `e` is dead or enabled.
    void enable(Entity e);
    /// @brief True when `e` is alive and not disabled.
    [[nodiscard]] bool enabled(Entity e) const noexcept;

    // -- Queries (query.hpp has the terms, filters and the rules) ---------------------------------

    /// @brief Number of live entities.
    [[nodiscard]] size_t count() const noexcept { return entities_.alive_count(); }

    /// @brief Number of live entities having all of `{T, Ts...}`. O(matching archetypes).
    template <typename T, typename... Ts>
    [[nodiscard]] size_t count() const;

    /// @brief Calls `fn(Entity, Ts&...)` for the one entity having all of `{Ts...}`.
    /// @pre Exactly one entity matches (asserted; otherwise `fn` is not called).
    template <typename... Ts, typename Func>
    void single(Func&& fn);

    /**
     * @brief Calls `fn(Entity, terms...)` (or `fn(terms...)`) for every entity matching the terms and
     *        the filters before `fn`: `world.each<Position, const Velocity>(ecs::Without<Frozen>{}, fn)`.
     *        Archetype creation order, then row order.
     * @pre `fn` makes no structural change (asserted and refused); use deferred().
     */
    template <typename... Terms, typename... Args>
    void each(Args&&... args);
    /// @brief each over a const World: only `const T` and `Optional<const T>` terms.
    template <typename... Terms, typename... Args>
    void each(Args&&... args) const;
    /// @brief As each, calling `fn(terms...)` without the entity.
    template <typename... Terms, typename... Args>
    void each_no_entity(Args&&... args);

    /**
     * @brief A query handle over `Terms...` and `filters`: `q.each(fn)`, `q.each_chunk(fn)`,
     *        `q.count()`, `q.empty()`, `q.first()`. Costs one cache lookup; the handle is four pointers and a tick.
     */
    template <typename... Terms, typename... Filters>
    [[nodiscard]] Query<Terms...> query(Filters... filters);

    /**
     * @brief each, with `fn` running concurrently for different entities through `executor`:
     *        `world.each_par<Position, const Velocity>(pool, ecs::Without<Frozen>{}, fn)`.
     *        Needs ecs/parallel.hpp (ecs/each_par.hpp states the rules). Change filters are refused
     *        at compile time (a handle's progress is per handle: use a query handle's each).
     */
    template <typename... Terms, typename... Args>
    void each_par(Executor& executor, Args&&... args);
    /// @brief The query text `text` parsed against this world (section K); needs ecs/query_expr.hpp.
    [[nodiscard]] DynamicQuery query_expr(std::string_view text);

    /// @brief True while a query callback runs.
    [[nodiscard]] bool iterating() const noexcept { return queries_.iterating(); }

    // -- Deferred commands ------------------------------------------------------------------------

    /// @brief A proxy recording structural changes into this world's queue; see flush_deferred().
    [[nodiscard]] DeferredProxy deferred() noexcept;

    /// @brief Executes every recorded command in recording order (commands recorded meanwhile, by
    ///        hooks for instance, run too), then empties the queue. @pre Not during iteration (refused).
    void flush_deferred();
    /// @brief Number of commands waiting in the world's deferred queue.
    [[nodiscard]] size_t deferred_count() const noexcept { return deferred_ != nullptr ? deferred_->size() : 0; }

    // -- Singleton resources (resources.hpp) ------------------------------------------------------

    /// @brief Inserts the resource of type `T`, or replaces it (the old value is destroyed first).
    template <typename T>
    void set_resource(T&& value);
    /// @brief The resource of type `T`. @pre It exists (asserted).
    template <typename T>
    T& resource();
    /// @brief The resource of type `T`, or nullptr.
    template <typename T>
    [[nodiscard]] T* try_resource() noexcept;
    template <typename T>
    [[nodiscard]] const T* try_resource() const noexcept;
    template <typename T> [[nodiscard]] const T& resource() const; ///< read-only, for run conditions
    /// @brief True when a resource of type `T` exists.
    template <typename T>
    [[nodiscard]] bool has_resource() const noexcept;
    /// @brief Destroys the resource of type `T`; no-op when absent.
    template <typename T>
    void remove_resource() noexcept;

    // -- Events (events.hpp) ------------------------------------------------------------

    /**
     * @brief Sends an event of type `bare_t<E>` (moved in, or copied from an lvalue). It stays
     *        readable by EventReader<E> until the second update_events() after this call. Allowed
     *        during iteration and from inside a reader's callback.
     */
    template <typename E>
    void send(E&& event);
    /**
     * @brief Ends an event frame: destroys the events sent before the previous update_events(), on
     *        every channel. Complexity: O(event types + events destroyed).
     * @pre Not called from inside an EventReader's callback (asserted and refused).
     */
    void update_events();
    friend struct detail::EventAccess;

    // -- Observers (observers.hpp; entity events: entity_events.hpp, rules in world/entity_events.hpp)
    template <typename E, typename F> ObserverId observe(Entity target, F&& fn); ///< fn(World&, Entity, E&, Propagation&) on `target`
    template <typename E, typename F> ObserverId observe(F&& fn); ///< the same for every entity
    template <typename E> void emit(Entity target, E&& event); ///< target's observers, then its ancestors' @pre not iterating

    /**
     * @brief Registers `fn` to run after a `T` is placed on an entity (create_with, add migration,
     *        prefab instantiation, deferred flushes), once the record is updated, so get<T>(e) works.
     *        Not on overwrite. Several hooks fire in registration order.
     * A hook may change OTHER entities, structurally too; changing the observed entity is undefined.
     */
    template <typename T>
    ObserverId on_add(std::function<void(World&, Entity, T&)> fn);
    /// @brief Registers `fn` to run before a `T` is destroyed by remove or destroy (still readable).
    template <typename T>
    ObserverId on_remove(std::function<void(World&, Entity, T&)> fn);

    // -- Value hooks, query observers, change detection (change_detection.hpp) --------------------

    /**
     * @brief Registers `fn` to run after a value of `T` is written by add (new: after on_add; or
     *        overwrite) or patch. Not by mutable get, queries or create_with.
     */
    template <typename T>
    ObserverId on_set(std::function<void(World&, Entity, T&)> fn);

    /**
     * @brief `fn(World&, Entity)` runs once when a change (create, create_with, add, remove, destroy,
     *        instantiate, a deferred flush) makes an entity start matching `Terms...` (T / const T) and
     *        the With/Without filters, after that change's on_add hooks. Entities matching
     *        at registration are not reported: `world.on_enter<Position>(ecs::Without<Frozen>{}, fn)`.
     */
    template <typename... Terms, typename... Args>
    ObserverId on_enter(Args&&... args);
    /// @brief As on_enter, once before a change makes an entity stop matching (destroy included),
    /// before that change's on_remove hooks, while its components are readable.
    template <typename... Terms, typename... Args>
    ObserverId on_leave(Args&&... args);

    /// @brief Unregisters an observer; allowed inside any hook (the hook does not run again, the
    ///        others keep their order). @return false when `id` is unknown or already disconnected.
    template <typename = void> bool disconnect(ObserverId id) { return observers_.disconnect(id) || (entity_events_ != nullptr && entity_events_->disconnect(id)); }

    /**
     * @brief Starts change detection for `T` in this world; idempotent. Entities that have
     *        `T` now count as added (and changed) at this point. Costs two 32-bit ticks per row of `T`.
     */
    template <typename T>
    void track_changes();
    /// @brief True when track_changes<T>() was called on this world.
    template <typename T>
    [[nodiscard]] bool tracks_changes() const noexcept;
    /**
     * @brief Calls `fn(T&)` on `e`'s `T`; then `T` counts as changed and on_set fires.
     * @pre As get: `e` is alive and has `T` (asserted; fn is not called). `fn` makes no structural change.
     */
    template <typename T, typename Func>
    void patch(Entity e, Func&& fn);
    /// @brief `e`'s `T` counts as changed now. No-op when `e` is dead, lacks `T` or `T` is untracked.
    template <typename T>
    void mark_changed(Entity e);


    // -- Sorting ----------------------------------------------------------------------------------

    /**
     * @brief Sorts the rows of every archetype containing `T` by `cmp(const T&, const T&)`, all
     *        columns in lockstep; records are updated. Stable: equal keys keep their order.
     * @pre Not during iteration (asserted and refused).
     * Complexity: O(n log n) per archetype, plus one swap per misplaced row and column.
     */
    template <typename T, typename Compare>
    void sort(Compare&& cmp);

    // -- Introspection ----------------------------------------------------------------

    /// @brief Number of archetypes created so far (the empty one included); never decreases.
    [[nodiscard]] size_t archetype_count() const noexcept { return graph_.size(); }
    /// @brief Bytes held by entity storage: column blocks, entity lists, records, deferred pages, names.
    [[nodiscard]] size_t memory_bytes() const noexcept;
    /// @brief Checks every invariant of SPEC §6 over all archetypes and records. O(entities).
    [[nodiscard]] bool check_invariants() const;

    /**
     * @brief An exact copy: same handles, generations and free list, the same archetypes
     *        in the same order with the same rows in the same order, components copy-constructed,
     *        names and relationship pairs copied. Not copied: resources, hooks, query caches, events, deferred commands.
     * @pre No live entity holds a type that is not copy-constructible (asserted and refused: an
     *      empty world is returned, the source untouched). Complexity: O(slots + archetypes + rows).
     */
    [[nodiscard]] World clone() const;
    /// @brief Makes this world equal to `src`, reusing its memory (rules and @pre: world/copy.hpp).
    void copy_from(const World& src);
    [[nodiscard]] uint32_t change_tick() const noexcept; ///< the change-detection clock (world/copy.hpp)

private:
    friend struct detail::WorldAccess;
    friend struct detail::StructuralOps;
    friend class ecs::DeferredProxy;
    /// destroy()'s body: on_leave and on_remove hooks, then the row, the name and the slot. With
    /// `Related`, the entity's pairs are removed after its hooks (world/relations.hpp).
    template <bool Related>
    void destroy_entity(Entity e);
    /// destroy() in a world holding pairs (world/relations.hpp).
    void relations_destroy(Entity e);
    void stamp_sources(Entity e); ///< structure stamps of the entities `e` is a target of
    bool copy_values_only(const World& src); ///< copy_from's path for equal structures (world/copy.hpp)
    void emit_up(detail::EmitFrame& frame); ///< world/entity_events.hpp
    /// Runs the follow-up work of removed pairs (tags to take off, sources to destroy).
    void drain_relations();
    Entity create_observed();                ///< create() in a world with observers (world/lifecycle.hpp)
    void destroy_observed(Entity e); ///< destroy() of live `e` with observers, pairs, sparse components or names
    /// Takes a slot and appends its row to `arch` (components of the row left uninitialised).
    Entity spawn(Archetype& arch, uint32_t& row);
    /// Makes the reserved slot `slot` live in a new row of `arch` (components uninitialised).
    Entity spawn_reserved(Entity slot, Archetype& arch, uint32_t& row);
    /// create_with, at a new slot (`Reserved` false) or at the reserved handle `slot`.
    template <bool Reserved, typename... Ts>
    Entity create_in(Entity slot, Ts&&... components);
    /// Allocates an entity in `arch` (or places the reserved `slot`) and constructs each component
    /// from `values` (pack order `Ts`).
    template <bool Reserved, typename... Ts, typename... Vs>
    ECS_FORCEINLINE Entity place_new(Archetype& arch, Entity slot, Vs&&... values);

    /**
     * The commit point: every structural change of one entity that observers may see runs through
     * here (world/structural.hpp states the order). `prepare` re-checks after the on_leave observers
     * and runs the hooks that read the old value (false abandons the change); `move` makes the change;
     * `hooks` runs on_add / on_set. With no observer registered only `move` runs.
     */
    template <typename Prepare, typename Move, typename Hooks>
    ECS_FORCEINLINE bool commit(Entity& e, detail::Notice& notice, Prepare&& prepare, Move&& move, Hooks&& hooks);
    using PlainMove = detail::PlainMove;
    /// The fast path of add() (`Adding`) and remove(), a leaf function; defined in
    /// world/structural.hpp, which states when it applies (SPEC §3.3).
    template <bool Adding>
    ECS_FORCEINLINE PlainMove move_plain(Entity e, ComponentTypeID id) noexcept;
    PlainMove add_plain(Entity e, ComponentTypeID id) noexcept;
    /// remove()'s one call: the fast path, else the general one.
    void remove_plain(Entity e, ComponentTypeID id);
    /// add() when add_plain() did not do it: checks, hooks, overwrite, a destination about to grow.
    template <typename C>
    ECS_NOINLINE void add_general(Entity e, C&& value);
    using AddSlot = detail::AddSlot;
    using ConstructFn = detail::ConstructFn;
    /// add()'s type-erased part: checks, edge lookup, and the migration through the commit point.
    AddSlot add_slot(Entity e, ComponentTypeID id, bool value_taken_out, ConstructFn construct, void* value);
    template <typename C>
    static void construct_from(void* at, void* value);
    /// add() of a type `e` has: the old value is destroyed and `value` moved in its place.
    template <typename C>
    void overwrite(Entity e, ComponentTypeID id, void* at, C& value);
    /// remove()'s type-erased part.
    void remove_id(Entity e, ComponentTypeID id);
    void* add_raw_from(Entity e, ComponentTypeID id, const void* value, void* moved); ///< add_raw, world/raw.hpp

    // -- change detection and observer helpers ----------------------------------------------------
    /// Stamps `e`'s `id` as changed now (no-op when dead, absent or untracked).
    void touch(Entity e, ComponentTypeID id) noexcept;
    template <typename... Terms, typename... Filters, typename Func>
    ObserverId add_query_observer(bool enter, detail::TypeList<Filters...>, Func& fn);
    /// disable/enable of component `id` (INVALID_COMPONENT_ID: the entity) with query observers.
    void toggle_observed(Entity e, ComponentTypeID id, bool off);
    /// disable/enable of sparse component `id` (a flag in its set).
    void toggle_sparse(Entity e, ComponentTypeID id, bool off);

    // -- sparse storage (sparse.hpp); bodies in world/sparse.hpp ----------------------------------
    template <typename C, typename V>
    void add_sparse(Entity e, V&& value);
    template <typename C>
    void remove_sparse(Entity e);
    void* add_sparse_raw(Entity e, ComponentTypeID id, const void* value); ///< add_raw of a sparse type
    void remove_sparse_id(Entity e, ComponentTypeID id); ///< remove_sparse with hooks, by id
    detail::SparseSet* sparse_member(Entity e, ComponentTypeID id) const noexcept; ///< set of a sparse `id` holding live `e`
    template <typename T>
    T* find_sparse(Entity e) const noexcept; ///< no change stamp, no access check
    template <typename T>
    T* try_get_sparse(Entity e) noexcept;
    template <typename T>
    T& get_sparse(Entity e);
    template <bool Reserved, typename... Ts>
    Entity create_with_sparse(Entity slot, Ts&&... values); ///< create_in for a pack naming sparse types
    template <typename C, typename V>
    void construct_mixed(Archetype& arch, uint32_t row, Entity e, V&& value);
    template <typename C>
    static void fill_rows(Archetype& arch, uint32_t base, size_t n, const C& value); ///< create_n's copies
    /// The set of sparse type `id`, created (and shown to the observers) when missing.
    detail::SparseSet& sparse_set_of(ComponentTypeID id);
    /// The archetype a live record points at.
    [[nodiscard]] ECS_FORCEINLINE Archetype& arch_of(const EntityRecord& r) const noexcept { return *r.archetype; }
    /// The records with the archetype table (observers and relationships check handles through it).
    [[nodiscard]] EntityLookup lookup() const noexcept { return EntityLookup{&entities_}; }
    /// The archetype of live `e`.
    [[nodiscard]] ECS_FORCEINLINE Archetype& arch_of(Entity e) const noexcept { return *entities_[e.index].archetype; }
    /// Moves live `e` from `src` to `dst` (archetype.hpp does the rows) and updates both records.
    uint32_t migrate(EntityRecord& rec, Entity e, Archetype& src, Archetype& dst);
    template <typename C, typename V>
    static void construct_at(Archetype& arch, uint32_t row, V&& value);
    /// Typed base pointer of `T`'s column in `arch` (cv-qualification kept). @pre arch.has(T)
    template <typename T>
    static T* column_data(Archetype& arch) noexcept;
    template <typename TermList, typename FilterList>
    detail::QueryCache& cache_of() const;
    /// each / each_no_entity: `NoEntity` forces the `fn(terms...)` form.
    template <int NoEntity, typename... Terms, typename... Filters, typename Func, typename... Args>
    void each_impl(detail::TypeList<Filters...>, Func& fn, const Args&... args);

    // -- the rooms --------------------------------------------------------------------------------

    EntityIndex entities_;
    ArchetypeGraph graph_;
    detail::QueryEngine queries_;
    detail::Observers observers_;
    detail::LazyBox<detail::Resources> resources_; ///< room: resources.hpp; made by the first set_resource
    detail::LazyBox<detail::CommandQueue> deferred_; ///< room: command_queue.hpp; made by the first deferred() command
    detail::EventRegistry events_; ///< room: events.hpp; a null pointer until the first send
    detail::NameIndex names_;      ///< room: names.hpp
    detail::Relations relations_;  ///< room: relation.hpp
    detail::LazyBox<detail::EntityEvents> entity_events_; ///< room: entity_events.hpp; made by the first observe()
};

} // namespace ecs

