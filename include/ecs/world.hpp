/**
 * @file ecs/world.hpp
 * @brief The World: entities, archetype migration, cached queries, deferred commands, resources,
 *        observers and sorting.
 *
 * The World is the single point of contact for entity and component operations. It owns every
 * archetype (never freed before the world), the entity records (one per slot: archetype, row and
 * generation in 16 bytes, so resolving a handle costs one cache line) and the free list of slots.
 *
 * Structural changes (create, destroy, adding a new component type, removing one) are forbidden
 * while a query runs: they assert in debug builds and are refused (the world is left as it was) in
 * every build. Queue them with deferred() instead.
 */
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "archetype.hpp"
#include "component.hpp"
#include "detail/algorithms.hpp"
#include "detail/command_queue.hpp"
#include "detail/pod_array.hpp"
#include "detail/std_function.hpp"
#include "entity.hpp"
#include "events.hpp"

namespace ecs {

/// Tag type listing components a query must NOT have: `world.each<A>(Exclude<B, C>{}, fn)`.
template <typename... Ts>
struct Exclude {};

/**
 * @brief Where an entity lives: its archetype and row, plus the slot's current generation.
 *
 * Addition to the spec's `{archetype, row}`: the generation sits in the same 16 bytes, so checking a
 * handle and finding its data touch one cache line. `archetype == nullptr` marks a free slot.
 */
struct EntityRecord {
    Archetype* archetype = nullptr;
    uint32_t row = 0;
    uint32_t generation = 1;
};

class World;

namespace detail {

template <typename... Ts>
struct TypeList {};

template <typename T, typename... Ts>
inline constexpr bool contains_v = (std::is_same_v<T, Ts> || ...);

template <typename... Ts>
struct distinct;
template <>
struct distinct<> : std::true_type {};
template <typename T, typename... Ts>
struct distinct<T, Ts...> : std::bool_constant<!contains_v<T, Ts...> && distinct<Ts...>::value> {};
/// True when no type appears twice in the pack (cv and references ignored).
template <typename... Ts>
inline constexpr bool distinct_v = distinct<bare_t<Ts>...>::value;

/// Process-wide dense slot numbers: one per query signature and one per create_with pack, so each
/// World finds its cache entry by indexing a vector (no hashing, no allocation on the hot path).
inline std::atomic<uint32_t> next_query_slot{0};
inline std::atomic<uint32_t> next_pack_slot{0};

template <typename Include, typename Exclude>
uint32_t query_slot() noexcept {
    static const uint32_t slot = next_query_slot.fetch_add(1, std::memory_order_relaxed);
    return slot;
}
template <typename... Ts>
uint32_t pack_slot() noexcept {
    static const uint32_t slot = next_pack_slot.fetch_add(1, std::memory_order_relaxed);
    return slot;
}

/// A cached query: its masks and the archetypes that match, extended as archetypes are created.
struct QueryCache {
    ComponentMask include;
    ComponentMask exclude;
    PodArray<Archetype*> archetypes;
    size_t scanned = 0;     ///< archetypes of the world already tested (the archetype generation seen)
    bool impossible = false; ///< an included type can never be a component (id beyond the bitset)
};

/// Storage a failed assertion can hand back as a reference when the library is built with a
/// recording ECS_ASSERT (tests). Never reached while preconditions hold.
template <typename T>
T& fallback_object() noexcept {
    alignas(T) static unsigned char bytes[sizeof(T)] = {};
    return *reinterpret_cast<T*>(bytes);
}

struct WorldAccess;

/// Sorts a short id list (a component pack) without instantiating std::sort in every user TU.
inline void insertion_sort(std::vector<ComponentTypeID>& v) noexcept {
    for (size_t i = 1; i < v.size(); ++i) {
        const ComponentTypeID x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; --j) v[j] = v[j - 1];
        v[j] = x;
    }
}

/// Counts nested iteration; a depth, not a bool, so a nested query does not clear the outer guard.
struct IterationScope {
    explicit IterationScope(uint32_t& depth) noexcept : depth_(depth) { ++depth_; }
    ~IterationScope() { --depth_; }
    IterationScope(const IterationScope&) = delete;
    IterationScope& operator=(const IterationScope&) = delete;
    uint32_t& depth_;
};

template <typename T>
ECS_FORCEINLINE T& element(T* column, size_t row) noexcept {
    if constexpr (is_tag_v<std::remove_const_t<T>>) {
        (void)row;
        return *column;
    } else {
        return column[row];
    }
}

} // namespace detail

/**
 * @brief Owns entities, their components and everything attached to them.
 *
 * Not thread-safe: one thread at a time. Movable, not copyable.
 */
class World {
public:
    class DeferredProxy;
    /// Type-erased observer: receives the world, the entity and the component's address.
    using ErasedHook = std::function<void(World&, Entity, void*)>;
    /// `World::Exclude<Ts...>` names the same tag as `ecs::Exclude<Ts...>` (both spellings work).
    template <typename... Ts>
    using Exclude = ecs::Exclude<Ts...>;

    ECS_NOINLINE World() {
        records_.push_back(EntityRecord{}); // slot 0 is reserved: INVALID_ENTITY never names an entity
        archetypes_.reserve_one();
        archetypes_.push_back(new Archetype(TypeSet{}, 0));
        index_insert(archetypes_.back());
    }
    World(const World&) = delete;
    World& operator=(const World&) = delete;
    World(World&&) noexcept = default;
    World& operator=(World&&) noexcept = default;
    ECS_NOINLINE ~World() { deferred_.clear(); } // pending payloads go before the components they may name

    // ----------------------------------------------------------------------------------------------
    // Entity lifecycle
    // ----------------------------------------------------------------------------------------------

    /**
     * @brief Creates an entity with no components.
     * @pre Not called during iteration (refused: returns INVALID_ENTITY).
     */
    Entity create() {
        if (!ECS_CHECK(iterating_ == 0, "World::create: structural change during iteration (use deferred())"))
            return INVALID_ENTITY;
        uint32_t row = 0;
        return allocate_entity(archetypes_[0], row);
    }

    /**
     * @brief Creates an entity directly in the archetype of `{Ts...}`, moving (or copying lvalues of)
     *        the given values into place. No migration; `on_add` fires per component in pack order.
     * @pre Not called during iteration. The types are distinct (checked at compile time).
     * @return the new entity, or INVALID_ENTITY when refused.
     */
    template <typename... Ts>
    Entity create_with(Ts&&... components) {
        static_assert(detail::distinct_v<Ts...>, "create_with: component types must be distinct");
        if constexpr ((std::is_lvalue_reference_v<Ts> || ...)) {
            // Copy first: an argument may refer into a column this call is about to grow.
            return create_with(detail::bare_t<Ts>(std::forward<Ts>(components))...);
        } else {
            if (!ECS_CHECK(iterating_ == 0, "World::create_with: structural change during iteration (use deferred())"))
                return INVALID_ENTITY;
            Archetype* arch = pack_archetype<detail::bare_t<Ts>...>();
            if (arch == nullptr) return INVALID_ENTITY;
            if (ECS_UNLIKELY(arch->full())) {
                // The block is about to move, and an argument may live in it (an rvalue taken from
                // the world): move the values out first.
                return place_new<Ts...>(*arch, detail::bare_t<Ts>(std::move(components))...);
            }
            return place_new<Ts...>(*arch, std::forward<Ts>(components)...);
        }
    }

    /**
     * @brief Destroys an entity: `on_remove` fires for each of its components, then its row is
     *        swap-removed, its slot's generation bumped and the slot pushed to the free list.
     *        No-op for dead, stale or invalid handles.
     * @pre Not called during iteration (refused).
     */
    void destroy(Entity e) {
        if (!alive(e)) return;
        if (!ECS_CHECK(iterating_ == 0, "World::destroy: structural change during iteration (use deferred())")) return;
        Archetype* arch = records_[e.index].archetype;
        if (ECS_UNLIKELY(any_remove_hooks_) && (arch->mask & remove_hook_mask_).any()) {
            // A hook may destroy other entities whose hooks destroy `e` again: that nested call is a
            // no-op, this one finishes the job.
            if (detail::find_value(dying_.begin(), dying_.end(), e.index) != dying_.end()) return;
            dying_.push_back(e.index);
            struct Unmark { // also when a hook throws
                detail::PodArray<uint32_t>& dying;
                uint32_t index;
                ~Unmark() {
                    uint32_t* at = detail::find_value(dying.begin(), dying.end(), index);
                    for (uint32_t* next = at + 1; next != dying.end(); ++next) next[-1] = *next;
                    dying.pop_back();
                }
            };
            {
                Unmark unmark{dying_, e.index};
                for (size_t i = 0; i < arch->types.size(); ++i) {
                    if (!remove_hook_mask_.test(arch->types[i])) continue;
                    fire_on_remove(e, arch->types[i]);
                    if (!alive(e)) break;
                }
            }
            if (!alive(e)) return;
            arch = records_[e.index].archetype; // a hook broke the rules and moved it: follow it
        }
        const uint32_t row = records_[e.index].row;
        const Entity moved = arch->erase_row(row);
        if (moved != INVALID_ENTITY) records_[moved.index].row = row;
        release_slot(e.index);
    }

    /// @brief True when `e` names a live entity of this world (index in range, generation current,
    ///        archetype assigned).
    [[nodiscard]] bool alive(Entity e) const noexcept {
        return e.index < records_.size() && records_[e.index].generation == e.generation &&
               records_[e.index].archetype != nullptr;
    }

    // ----------------------------------------------------------------------------------------------
    // Component access
    // ----------------------------------------------------------------------------------------------

    /// @brief True when `e` is alive and has `T`.
    template <typename T>
    [[nodiscard]] bool has(Entity e) const noexcept {
        return alive(e) && records_[e.index].archetype->has(component_id<T>());
    }

    /**
     * @brief Reference to `e`'s `T`.
     * @pre `e` is alive and has `T` (asserted).
     * Invalidated by any structural change to `e`'s archetype.
     */
    template <typename T>
    T& get(Entity e) {
#if ECS_ASSERT_ENABLED
        if (!ECS_CHECK(alive(e), "World::get: entity is not alive")) return detail::fallback_object<T>();
        if (!ECS_CHECK(records_[e.index].archetype->has(component_id<T>()), "World::get: entity does not have the component"))
            return detail::fallback_object<T>();
#endif
        const EntityRecord& r = records_[e.index];
        return detail::element(column_data<T>(*r.archetype), r.row);
    }
    template <typename T>
    const T& get(Entity e) const {
        return const_cast<World*>(this)->get<const T>(e);
    }

    /// @brief Pointer to `e`'s `T`, or nullptr when `e` is not alive or lacks `T`.
    template <typename T>
    [[nodiscard]] T* try_get(Entity e) noexcept {
        if (!alive(e)) return nullptr;
        const EntityRecord& r = records_[e.index];
        if (!r.archetype->has(component_id<T>())) return nullptr;
        return &detail::element(column_data<T>(*r.archetype), r.row);
    }
    template <typename T>
    [[nodiscard]] const T* try_get(Entity e) const noexcept {
        return const_cast<World*>(this)->try_get<const T>(e);
    }

    // ----------------------------------------------------------------------------------------------
    // Component mutation
    // ----------------------------------------------------------------------------------------------

    /**
     * @brief Adds `value` to `e`. If `e` already has the type, the old value is destroyed and the new
     *        one constructed in its place (no migration, no hook). Otherwise `e` migrates to the
     *        archetype with the type added, and `on_add` fires. No-op when `e` is not alive.
     * @pre A migration is not requested during iteration (refused); overwriting is allowed.
     */
    template <typename T>
    void add(Entity e, T&& value) {
        using C = detail::bare_t<T>;
        if constexpr (std::is_lvalue_reference_v<T>) {
            add(e, C(value)); // copy first: `value` may live in a column this call moves
        } else {
            const ComponentTypeID id = ensure_column_factory<C>();
            const AddSlot slot = add_slot(e, id, false);
            if (ECS_UNLIKELY(slot.kind == AddSlot::DESTINATION_FULL)) add_to_full<C>(e, id, std::move(value));
            else finish_add<C>(e, id, slot, value);
        }
    }
    /// @brief Adds a value-initialised `T` (convenient for tags): `world.add<Frozen>(e)`.
    template <typename T>
    void add(Entity e) {
        static_assert(std::is_default_constructible_v<T>, "World::add<T>(e): T must be default-constructible");
        add(e, T{});
    }

    /**
     * @brief Removes `T` from `e`: `on_remove` fires, then `e` migrates to the archetype without `T`
     *        and the value is destroyed. No-op when `e` is not alive or lacks `T`.
     * @pre Not called during iteration when it would remove something (refused).
     */
    template <typename T>
    void remove(Entity e) {
        remove_id(e, component_id<T>());
    }

    // ----------------------------------------------------------------------------------------------
    // Utility queries
    // ----------------------------------------------------------------------------------------------

    /// @brief Number of live entities.
    [[nodiscard]] size_t count() const noexcept { return alive_count_; }

    /// @brief Number of live entities having all of `{T, Ts...}`. O(matching archetypes).
    template <typename T, typename... Ts>
    [[nodiscard]] size_t count() const {
        const detail::QueryCache& q = query<detail::TypeList<T, Ts...>, detail::TypeList<>>();
        size_t n = 0;
        for (const Archetype* a : q.archetypes) n += a->size();
        return n;
    }

    /**
     * @brief Calls `fn(Entity, Ts&...)` for the one entity having all of `{Ts...}`.
     * @pre Exactly one entity matches (asserted; otherwise `fn` is not called).
     */
    template <typename... Ts, typename Func>
    void single(Func&& fn) {
        detail::QueryCache& q = query<detail::TypeList<Ts...>, detail::TypeList<>>();
        size_t n = 0;
        Archetype* found = nullptr;
        for (Archetype* a : q.archetypes) {
            n += a->size();
            if (a->size() != 0 && found == nullptr) found = a;
        }
        if (!ECS_CHECK(n == 1, "World::single: expected exactly one matching entity")) return;
        detail::IterationScope scope(iterating_);
        fn(found->entities[0], detail::element(column_data<Ts>(*found), 0)...);
    }

    // ----------------------------------------------------------------------------------------------
    // Query iteration
    // ----------------------------------------------------------------------------------------------

    /**
     * @brief Calls `fn(Entity, Ts&...)` for every entity having all of `{Ts...}`. `const T` gives
     *        read-only access. Archetype order, then row order. **Addition:** a callback taking only
     *        `(Ts&...)` is accepted too (as each_no_entity).
     * @pre `fn` makes no structural change (asserted and refused); use deferred().
     * Matching archetypes come from a per-world cache slot for this signature: a stable world does no
     * archetype matching, hashing or allocation here.
     */
    template <typename... Ts, typename Func>
    void each(Func&& fn) {
        run_query<takes_entity<Func, Ts...>(), Ts...>(query<detail::TypeList<Ts...>, detail::TypeList<>>(), fn);
    }
    /// @brief As each(fn), skipping archetypes that have any of `{Ex...}`.
    template <typename... Ts, typename... Ex, typename Func>
    void each(Exclude<Ex...>, Func&& fn) {
        run_query<takes_entity<Func, Ts...>(), Ts...>(query<detail::TypeList<Ts...>, detail::TypeList<Ex...>>(), fn);
    }
    /// @brief As each(fn), calling `fn(Ts&...)` without the entity.
    template <typename... Ts, typename Func>
    void each_no_entity(Func&& fn) {
        run_query<false, Ts...>(query<detail::TypeList<Ts...>, detail::TypeList<>>(), fn);
    }
    /// @brief As each(Exclude, fn), calling `fn(Ts&...)` without the entity.
    template <typename... Ts, typename... Ex, typename Func>
    void each_no_entity(Exclude<Ex...>, Func&& fn) {
        run_query<false, Ts...>(query<detail::TypeList<Ts...>, detail::TypeList<Ex...>>(), fn);
    }

    /// @brief True while a query callback runs (addition).
    [[nodiscard]] bool iterating() const noexcept { return iterating_ != 0; }

    // ----------------------------------------------------------------------------------------------
    // Deferred commands
    // ----------------------------------------------------------------------------------------------

    /// @brief A proxy recording structural changes into this world's queue; see flush_deferred().
    [[nodiscard]] DeferredProxy deferred() noexcept;

    /**
     * @brief Executes every recorded command in recording order (commands recorded meanwhile, by
     *        hooks for instance, run too), then empties the queue.
     * @pre Not called during iteration (asserted and refused).
     */
    void flush_deferred() {
        if (!ECS_CHECK(iterating_ == 0, "World::flush_deferred: called during iteration")) return;
        deferred_.run_all(this);
    }
    /// @brief Number of commands waiting in the world's deferred queue (addition).
    [[nodiscard]] size_t deferred_count() const noexcept { return deferred_.size(); }

    // ----------------------------------------------------------------------------------------------
    // Singleton resources
    // ----------------------------------------------------------------------------------------------

    /// @brief Inserts the resource of type `T`, or replaces it (the old value is destroyed first).
    template <typename T>
    void set_resource(T&& value) {
        using R = detail::bare_t<T>;
        if constexpr (std::is_lvalue_reference_v<T>) {
            set_resource(R(value)); // copy first: `value` may be the resource being replaced
        } else {
            detail::ResourceRecord& slot = resource_slot(component_id<R>());
            if (slot.object) {
                R* old = static_cast<R*>(slot.object);
                if (old == &value) return; // set_resource(std::move(resource<R>())): already in place
                old->~R(); // the old value is destroyed; the new one takes its storage
                ::new (static_cast<void*>(old)) R(std::move(value));
            } else {
                void* storage = ::operator new(sizeof(R), std::align_val_t(alignof(R)));
                ::new (storage) R(std::move(value));
                slot.object = storage;
                slot.destroy = [](void* p) noexcept {
                    static_cast<R*>(p)->~R();
                    ::operator delete(p, std::align_val_t(alignof(R)));
                };
            }
        }
    }
    /// @brief The resource of type `T`. @pre It exists (asserted).
    template <typename T>
    T& resource() {
        T* p = try_resource<T>();
        if (!ECS_CHECK(p != nullptr, "World::resource: resource does not exist")) return detail::fallback_object<T>();
        return *p;
    }
    /// @brief The resource of type `T`, or nullptr.
    template <typename T>
    [[nodiscard]] T* try_resource() noexcept {
        const ComponentTypeID id = component_id<T>();
        return id < resources_.size() ? static_cast<T*>(resources_[id].object) : nullptr;
    }
    template <typename T>
    [[nodiscard]] const T* try_resource() const noexcept {
        return const_cast<World*>(this)->try_resource<const T>();
    }
    /// @brief True when a resource of type `T` exists.
    template <typename T>
    [[nodiscard]] bool has_resource() const noexcept {
        return try_resource<T>() != nullptr;
    }
    /// @brief Destroys the resource of type `T`; no-op when absent.
    template <typename T>
    void remove_resource() noexcept {
        const ComponentTypeID id = component_id<T>();
        if (id < resources_.size()) resources_.reset(id);
    }

    // -- events (room: events.hpp) --
    /**
     * @brief Sends an event of type `bare_t<E>` (moved in, or copied from an lvalue). It stays
     *        readable by EventReader<E> until the second update_events() after this call. Allowed
     *        during iteration and from inside a reader's callback.
     */
    template <typename E>
    void send(E&& event) {
        using T = detail::bare_t<E>;
        static_assert(std::is_move_constructible_v<T> && std::is_destructible_v<T>, "World::send: event must be move-constructible");
        events_.send<T>(std::forward<E>(event));
    }
    /**
     * @brief Ends an event frame: destroys the events sent before the previous update_events(), on
     *        every channel. Complexity: O(event types + events destroyed).
     * @pre Not called from inside an EventReader's callback (asserted and refused).
     */
    void update_events() {
        const bool done = events_.update();
        ECS_ASSERT(done, "World::update_events: called while an EventReader reads this world");
        (void)done;
    }
    friend struct detail::EventAccess;
    // -- end events --

    // ----------------------------------------------------------------------------------------------
    // Observers
    // ----------------------------------------------------------------------------------------------

    /**
     * @brief Registers `fn` to run after a `T` is placed on an entity (create_with, add migration,
     *        prefab instantiation, deferred flushes), once the record is updated, so get<T>(e) works.
     *        Not on overwrite. Several hooks fire in registration order.
     * A hook may change OTHER entities, structurally too; changing the observed entity is undefined.
     */
    template <typename T>
    void on_add(std::function<void(World&, Entity, T&)> fn) {
        const ComponentTypeID id = ensure_column_factory<detail::bare_t<T>>();
        if (!ECS_CHECK(id < ECS_MAX_COMPONENTS, "World::on_add: too many component types (raise ECS_MAX_COMPONENTS)")) return;
        register_hook(add_hooks_, add_hook_mask_, id, erase_hook<T>(std::move(fn)));
        any_add_hooks_ = true;
    }
    /**
     * @brief Registers `fn` to run before a `T` is destroyed by remove or destroy; the value is still
     *        readable. Several hooks fire in registration order.
     */
    template <typename T>
    void on_remove(std::function<void(World&, Entity, T&)> fn) {
        const ComponentTypeID id = ensure_column_factory<detail::bare_t<T>>();
        if (!ECS_CHECK(id < ECS_MAX_COMPONENTS, "World::on_remove: too many component types (raise ECS_MAX_COMPONENTS)")) return;
        register_hook(remove_hooks_, remove_hook_mask_, id, erase_hook<T>(std::move(fn)));
        any_remove_hooks_ = true;
    }

    // ----------------------------------------------------------------------------------------------
    // Sorting
    // ----------------------------------------------------------------------------------------------

    /**
     * @brief Sorts the rows of every archetype containing `T` by `cmp(const T&, const T&)`, all
     *        columns in lockstep; records are updated. Stable: equal keys keep their order.
     * @pre Not called during iteration (asserted and refused).
     * Complexity: O(n log n) per archetype, plus one swap per misplaced row and column.
     */
    template <typename T, typename Compare>
    void sort(Compare&& cmp) {
        using C = detail::bare_t<T>;
        if (!ECS_CHECK(iterating_ == 0, "World::sort: called during iteration")) return;
        if constexpr (!detail::is_tag_v<C>) {
            detail::QueryCache& q = query<detail::TypeList<C>, detail::TypeList<>>();
            std::vector<uint32_t> order;
            std::vector<uint32_t> scratch; // the merge buffer
            std::vector<uint8_t> placed;
            for (Archetype* arch : q.archetypes) {
                const size_t n = arch->size();
                if (n < 2) continue;
                const C* values = column_data<const C>(*arch);
                order.resize(n);
                scratch.resize(n);
                for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32_t>(i);
                auto less = [&](uint32_t a, uint32_t b) { return cmp(values[a], values[b]); };
                detail::stable_sort_with_buffer(order.data(), n, scratch.data(), less);
                apply_permutation(*arch, order, placed);
            }
        } else {
            (void)cmp;
        }
    }

    // ----------------------------------------------------------------------------------------------
    // Introspection (additions)
    // ----------------------------------------------------------------------------------------------

    /// @brief Number of archetypes created so far (the empty one included); never decreases.
    [[nodiscard]] size_t archetype_count() const noexcept { return archetypes_.size(); }
    /// @brief Bytes held by entity storage: column blocks, entity lists and records.
    [[nodiscard]] size_t memory_bytes() const noexcept {
        size_t bytes = records_.capacity() * sizeof(EntityRecord);
        for (const auto& a : archetypes_)
            bytes += sizeof(Archetype) + a->block_bytes() + a->entities.capacity() * sizeof(Entity);
        return bytes + deferred_.capacity_bytes();
    }
    /// @brief Checks every invariant of SPEC §6 over all archetypes and records. O(entities).
    [[nodiscard]] bool check_invariants() const;

private:
    friend struct detail::WorldAccess;
    friend class DeferredProxy;

    // -- entity slots ------------------------------------------------------------------------------

    Entity allocate_entity(Archetype* arch, uint32_t& row) {
        uint32_t index;
        if (free_head_ != 0) {
            index = free_head_;
            free_head_ = records_[index].row; // a free slot's row links to the next free slot
        } else {
            ECS_ASSERT(records_.size() < 0xFFFFFFFFull, "World::create: entity index space exhausted");
            index = static_cast<uint32_t>(records_.size());
            records_.push_back(EntityRecord{});
        }
        const Entity e{index, records_[index].generation};
        row = arch->push_entity(e);
        records_[index].archetype = arch;
        records_[index].row = row;
        ++alive_count_;
        return e;
    }

    void release_slot(uint32_t index) {
        EntityRecord& r = records_[index];
        r.archetype = nullptr;
        r.row = free_head_;
        if (++r.generation == 0) r.generation = 1; // wrapped: 0 stays the never-issued generation
        free_head_ = index;
        --alive_count_;
    }

    // -- archetypes --------------------------------------------------------------------------------

    /// The archetype of exactly `types` (sorted, distinct), created when missing; nullptr when an id is
    /// beyond ECS_MAX_COMPONENTS.
    ECS_NOINLINE Archetype* find_or_create_archetype(const TypeSet& types) {
        for (ComponentTypeID t : types) {
            if (!ECS_CHECK(t < ECS_MAX_COMPONENTS,
                           "World: more than ECS_MAX_COMPONENTS component types in use (raise ECS_MAX_COMPONENTS)"))
                return nullptr;
            if (!ECS_CHECK(column_factory(t) != nullptr, "World: component type has no column factory"))
                return nullptr;
        }
        const size_t hash = TypeSetHash{}(types);
        for (size_t i = hash & (index_.size() - 1);; i = (i + 1) & (index_.size() - 1)) {
            Archetype* a = index_[i];
            if (a == nullptr) break;
            if (a->type_hash == hash && a->types == types) return a;
        }
        archetypes_.reserve_one();
        Archetype* arch = new Archetype(types, static_cast<uint32_t>(archetypes_.size()));
        archetypes_.push_back(arch);
        index_insert(arch);
        return arch;
    }

    /// Open-addressing index from type set to archetype (linear probing, at most half full). A
    /// purpose-built table: std::unordered_map keyed by vectors costs every user TU its instantiation.
    ECS_NOINLINE void index_insert(Archetype* arch) {
        if ((archetypes_.size()) * 2 > index_.size()) {
            detail::PodArray<Archetype*> old(static_cast<detail::PodArray<Archetype*>&&>(index_));
            index_.resize(detail::max_of<size_t>(16, old.size() * 2), nullptr);
            for (Archetype* a : old)
                if (a != nullptr) index_place(a);
        }
        index_place(arch);
    }
    void index_place(Archetype* arch) noexcept {
        size_t i = arch->type_hash & (index_.size() - 1);
        while (index_[i] != nullptr) i = (i + 1) & (index_.size() - 1);
        index_[i] = arch;
    }

    /// Allocates an entity in `arch` and constructs each component from `values` (pack order `Ts`).
    template <typename... Ts, typename... Vs>
    ECS_FORCEINLINE Entity place_new(Archetype& arch, Vs&&... values) {
        uint32_t row = 0;
        const Entity e = allocate_entity(&arch, row);
        (construct_at<detail::bare_t<Ts>>(arch, row, std::forward<Vs>(values)), ...);
        if (ECS_UNLIKELY(any_add_hooks_)) (fire_on_add(e, component_id<Ts>()), ...);
        return e;
    }

    template <typename... Ts>
    ECS_FORCEINLINE Archetype* pack_archetype() {
        const uint32_t slot = detail::pack_slot<Ts...>();
        if (ECS_LIKELY(slot < pack_cache_.size() && pack_cache_[slot] != nullptr)) return pack_cache_[slot];
        return pack_archetype_slow<Ts...>(slot);
    }

    template <typename... Ts>
    ECS_NOINLINE Archetype* pack_archetype_slow(uint32_t slot) {
        TypeSet types{ensure_column_factory<Ts>()...};
        detail::insertion_sort(types);
        Archetype* arch = find_or_create_archetype(types);
        if (arch != nullptr) {
            if (slot >= pack_cache_.size()) pack_cache_.resize(size_t(slot) + 1, nullptr);
            pack_cache_[slot] = arch;
        }
        return arch;
    }

    /// Where add() puts its value. EXISTING: `e` already has the type, `at` is its value (overwrite
    /// in place). FRESH: `e` has migrated, `at` is raw storage for the new value. DESTINATION_FULL:
    /// nothing done yet, the destination block moves on the next row. NOTHING: `e` is not alive or
    /// the change was refused.
    struct AddSlot {
        enum Kind : uint8_t { NOTHING, EXISTING, FRESH, DESTINATION_FULL };
        void* at;
        Kind kind;
    };

    /// add()'s type-erased part: checks, edge lookup and migration, one call per add.
    ECS_NOINLINE AddSlot add_slot(Entity e, ComponentTypeID id, bool value_taken_out) {
        if (!alive(e)) return {nullptr, AddSlot::NOTHING};
        EntityRecord& rec = records_[e.index];
        Archetype& src = *rec.archetype;
        if (src.has(id)) return {src.column(id).at(rec.row), AddSlot::EXISTING};
        if (!ECS_CHECK(iterating_ == 0, "World::add: structural change during iteration (use deferred())"))
            return {nullptr, AddSlot::NOTHING};
        Archetype* dst = add_target(src, id);
        if (dst == nullptr) return {nullptr, AddSlot::NOTHING};
        if (ECS_UNLIKELY(dst->full()) && !value_taken_out) return {nullptr, AddSlot::DESTINATION_FULL};
        const uint32_t row = migrate(rec, e, src, *dst);
        return {dst->column(id).at(row), AddSlot::FRESH};
    }

    /// add() when the destination block moves on the next row: `value` may live in it, so it is
    /// taken out first.
    template <typename C>
    ECS_NOINLINE void add_to_full(Entity e, ComponentTypeID id, C&& value) {
        C local(std::move(value));
        finish_add<C>(e, id, add_slot(e, id, true), local);
    }

    template <typename C>
    ECS_FORCEINLINE void finish_add(Entity e, ComponentTypeID id, AddSlot slot, C& value) {
        if (slot.kind == AddSlot::FRESH) {
            if constexpr (!detail::is_tag_v<C>) ::new (slot.at) C(std::move(value));
            if (ECS_UNLIKELY(any_add_hooks_)) fire_on_add(e, id);
        } else if (slot.kind == AddSlot::EXISTING) {
            if constexpr (!detail::is_tag_v<C>) {
                C* existing = static_cast<C*>(slot.at);
                if (existing == &value) return; // add(e, std::move(get<C>(e))): already in place
                existing->~C();
                ::new (static_cast<void*>(existing)) C(std::move(value));
            }
        }
    }

    /// remove()'s type-erased part.
    ECS_NOINLINE void remove_id(Entity e, ComponentTypeID id) {
        if (!alive(e)) return;
        if (!records_[e.index].archetype->has(id)) return;
        if (!ECS_CHECK(iterating_ == 0, "World::remove: structural change during iteration (use deferred())")) return;
        if (ECS_UNLIKELY(any_remove_hooks_) && remove_hook_mask_.test(id)) {
            fire_on_remove(e, id);
            if (!alive(e) || !records_[e.index].archetype->has(id)) return;
        }
        EntityRecord& rec = records_[e.index]; // re-read: a hook may have grown records_
        Archetype& src = *rec.archetype;
        migrate(rec, e, src, *remove_target(src, id));
    }

    /// The cached neighbour of `src` in direction `dir` (&ArchetypeEdge::add or ::remove) for `id`, or nullptr.
    static ECS_FORCEINLINE Archetype* cached_edge(const Archetype& src, ComponentTypeID id,
                                                  Archetype* ArchetypeEdge::*dir) noexcept {
        return ECS_LIKELY(id < src.edges.size()) ? src.edges[id].*dir : nullptr;
    }

    ECS_FORCEINLINE Archetype* add_target(Archetype& src, ComponentTypeID id) {
        Archetype* cached = cached_edge(src, id, &ArchetypeEdge::add);
        return ECS_LIKELY(cached != nullptr) ? cached : add_target_slow(src, id);
    }

    ECS_NOINLINE Archetype* add_target_slow(Archetype& src, ComponentTypeID id) {
        if (!ECS_CHECK(id < ECS_MAX_COMPONENTS, "World::add: more than ECS_MAX_COMPONENTS component types in use"))
            return nullptr;
        TypeSet types = src.types;
        types.insert(detail::upper_bound_value(types.begin(), types.end(), id), id);
        Archetype* dst = find_or_create_archetype(types); // may push to archetypes_, never moves `src`
        if (dst != nullptr) {
            src.edge(id).add = dst;
            dst->edge(id).remove = &src;
        }
        return dst;
    }

    ECS_FORCEINLINE Archetype* remove_target(Archetype& src, ComponentTypeID id) {
        Archetype* cached = cached_edge(src, id, &ArchetypeEdge::remove);
        return ECS_LIKELY(cached != nullptr) ? cached : remove_target_slow(src, id);
    }

    ECS_NOINLINE Archetype* remove_target_slow(Archetype& src, ComponentTypeID id) {
        TypeSet types = src.types;
        types.erase(detail::find_value(types.begin(), types.end(), id));
        Archetype* dst = find_or_create_archetype(types);
        src.edge(id).remove = dst;
        dst->edge(id).add = &src;
        return dst;
    }

    /**
     * Moves live entity `e` (record `rec`, archetype `src`) to `dst`: components both archetypes
     * share are relocated, the others destroyed; the hole left behind is closed and both records are
     * updated. Columns of `dst` that `e` did not have are left uninitialised at the returned row.
     */
    ECS_FORCEINLINE uint32_t migrate(EntityRecord& rec, Entity e, Archetype& src, Archetype& dst) {
        const uint32_t src_row = rec.row;
        const uint32_t dst_row = dst.push_entity(e);
        const size_t last = src.size() - 1;
        if (ECS_LIKELY(src.all_trivial)) {
            // Every column is plain bytes: per column one copy out (when `dst` keeps the type) and one
            // copy from the last row into the hole, nothing to destroy. Tags have stride 0.
            const uint16_t* const to_column = dst.column_index.data();
            ComponentColumn* const dst_columns = dst.columns.data();
            ComponentColumn* const first = src.columns.data();
            ComponentColumn* const end = first + src.columns.size();
            if (src_row != last) {
                for (ComponentColumn* c = first; c != end; ++c) {
                    const size_t size = c->elem_size;
                    uint8_t* const base = c->data;
                    uint8_t* const from = base + src_row * size;
                    const uint16_t to = to_column[c->type_id];
                    if (to != Archetype::NO_COLUMN)
                        ComponentColumn::copy_bytes(dst_columns[to].data + size_t(dst_row) * size, from, size);
                    ComponentColumn::copy_bytes(from, base + last * size, size);
                }
            } else {
                for (ComponentColumn* c = first; c != end; ++c) {
                    const size_t size = c->elem_size;
                    const uint16_t to = to_column[c->type_id];
                    if (to != Archetype::NO_COLUMN)
                        ComponentColumn::copy_bytes(dst_columns[to].data + size_t(dst_row) * size, c->data + src_row * size, size);
                }
            }
        } else {
            migrate_columns(src, src_row, last, dst, dst_row);
        }
        const Entity moved = src.pop_into(src_row);
        if (moved != INVALID_ENTITY) records_[moved.index].row = src_row;
        rec.archetype = &dst; // records_ did not reallocate: no entity was created
        rec.row = dst_row;
        return dst_row;
    }

    /// The general column pass of migrate: move each value out (or destroy it), then fill the hole
    /// from the last row.
    ECS_NOINLINE static void migrate_columns(Archetype& src, uint32_t src_row, size_t last, Archetype& dst, uint32_t dst_row) {
        for (ComponentColumn& c : src.columns) {
            if (c.elem_size == 0) continue; // tags: nothing stored
            uint8_t* from = c.data + src_row * c.elem_size;
            const uint16_t to = dst.column_index[c.type_id];
            if (to != Archetype::NO_COLUMN) {
                c.relocate(dst.columns[to].data + size_t(dst_row) * c.elem_size, from);
            } else {
                c.destroy_at(from);
            }
            if (src_row != last) c.relocate(from, c.data + last * c.elem_size);
        }
    }

    template <typename C, typename V>
    static void construct_at(Archetype& arch, uint32_t row, V&& value) {
        if constexpr (!detail::is_tag_v<C>) {
            ::new (static_cast<void*>(reinterpret_cast<C*>(arch.column(component_id<C>()).data) + row))
                C(std::forward<V>(value));
        } else {
            (void)arch;
            (void)row;
            (void)value;
        }
    }

    /// Typed base pointer of `T`'s column in `arch` (cv-qualification kept). @pre arch.has(T)
    template <typename T>
    static T* column_data(Archetype& arch) noexcept {
        return reinterpret_cast<T*>(arch.column(component_id<T>()).data);
    }

    void apply_permutation(Archetype& arch, const std::vector<uint32_t>& order, std::vector<uint8_t>& placed) {
        const size_t n = order.size();
        placed.assign(n, 0);
        for (size_t i = 0; i < n; ++i) {
            if (placed[i]) continue;
            size_t j = i;
            for (;;) {
                placed[j] = 1;
                const size_t k = order[j];
                if (k == i) break;
                for (ComponentColumn& c : arch.columns)
                    if (c.elem_size != 0) c.swap(c.at(j), c.at(k));
                std::swap(arch.entities[j], arch.entities[k]);
                j = k;
            }
        }
        for (size_t row = 0; row < n; ++row) records_[arch.entities[row].index].row = static_cast<uint32_t>(row);
    }

    // -- queries -----------------------------------------------------------------------------------

    template <typename... Ts>
    static void set_bits(ComponentMask& mask, bool& overflow, detail::TypeList<Ts...>) {
        const ComponentTypeID ids[] = {component_id<Ts>()..., 0};
        for (size_t i = 0; i < sizeof...(Ts); ++i) {
            if (ids[i] < ECS_MAX_COMPONENTS) mask.set(ids[i]);
            else overflow = true;
        }
    }

    /// The cache entry of a query signature, brought up to date with archetypes created since.
    template <typename Include, typename ExcludeList>
    detail::QueryCache& query() const {
        const uint32_t slot = detail::query_slot<Include, ExcludeList>();
        if (ECS_UNLIKELY(slot >= queries_.size())) queries_.resize(size_t(slot) + 1);
        detail::QueryCache* entry = queries_[slot];
        if (ECS_UNLIKELY(!entry)) {
            entry = new detail::QueryCache();
            queries_.set(slot, entry);
            bool ignored = false;
            set_bits(entry->include, entry->impossible, Include{});
            set_bits(entry->exclude, ignored, ExcludeList{}); // a type beyond the bitset is on no entity
        }
        detail::QueryCache& q = *entry;
        if (ECS_UNLIKELY(q.scanned != archetypes_.size())) {
            for (size_t i = q.scanned; i < archetypes_.size(); ++i) {
                Archetype* a = archetypes_[i];
                if (!q.impossible && (a->mask & q.include) == q.include && (a->mask & q.exclude).none())
                    q.archetypes.push_back(a);
            }
            q.scanned = archetypes_.size();
        }
        return q;
    }

    /// Whether an `each` callback wants the entity first; a callback fitting neither form is a
    /// compile-time error with a readable message.
    template <typename Func, typename... Ts>
    static constexpr bool takes_entity() {
        constexpr bool with = std::is_invocable_v<Func&, Entity, Ts&...>;
        static_assert(with || std::is_invocable_v<Func&, Ts&...>,
                      "World::each<Ts...>: the callback must be callable as fn(Entity, Ts&...) or fn(Ts&...)");
        return with;
    }

    template <bool WithEntity, typename... Ts, typename Func>
    void run_query(detail::QueryCache& q, Func& fn) {
        detail::IterationScope scope(iterating_);
        Archetype* const* archs = q.archetypes.data();
        const size_t archetype_count = q.archetypes.size();
        for (size_t a = 0; a < archetype_count; ++a) {
            Archetype& arch = *archs[a];
            const size_t n = arch.size();
            if (n == 0) continue;
            run_rows<WithEntity, Ts...>(fn, n, arch.entities.data(), column_data<Ts>(arch)...);
        }
    }

    template <bool WithEntity, typename... Ts, typename Func>
    static ECS_FORCEINLINE void run_rows(Func& fn, size_t n, const Entity* entities, Ts*... columns) {
        if constexpr (WithEntity) {
            for (size_t i = 0; i < n; ++i) fn(entities[i], detail::element(columns, i)...);
        } else {
            (void)entities;
            for (size_t i = 0; i < n; ++i) fn(detail::element(columns, i)...);
        }
    }

    // -- observers ---------------------------------------------------------------------------------

    template <typename T>
    static ErasedHook erase_hook(std::function<void(World&, Entity, T&)> fn) {
        return [f = std::move(fn)](World& w, Entity e, void* p) { f(w, e, *static_cast<T*>(p)); };
    }

    /// The observers of one kind (add or remove), one list per component id, in registration order.
    using HookTable = detail::OwnedBuckets<ErasedHook>;

    static void register_hook(HookTable& hooks, ComponentMask& mask, ComponentTypeID id, ErasedHook&& fn) {
        hooks.push_back(id, static_cast<ErasedHook&&>(fn));
        mask.set(id);
    }

    /// Runs the hooks of `id` in `hooks` on `e`, re-reading the record before each one: a hook may
    /// move rows of this archetype or grow its block. Stops when `e` no longer has the component.
    ECS_NOINLINE void fire(HookTable& hooks, Entity e, ComponentTypeID id) {
        for (size_t i = 0; i < hooks.size(id); ++i) {
            if (!alive(e)) return;
            const EntityRecord& r = records_[e.index];
            if (!r.archetype->has(id)) return;
            void* value = r.archetype->column(id).at(r.row);
            hooks.at(id, i)(*this, e, value);
        }
    }
    void fire_on_add(Entity e, ComponentTypeID id) {
        if (add_hook_mask_.test(id)) fire(add_hooks_, e, id);
    }
    void fire_on_remove(Entity e, ComponentTypeID id) {
        if (remove_hook_mask_.test(id)) fire(remove_hooks_, e, id);
    }

    detail::ResourceRecord& resource_slot(ComponentTypeID id) {
        if (id >= resources_.size()) resources_.resize(size_t(id) + 1);
        return resources_[id];
    }

    // -- data --------------------------------------------------------------------------------------

    detail::PodArray<EntityRecord> records_; ///< grown with realloc (no copy into fresh pages)
    /// Most recently freed slot (0: none; slot 0 is never free). The free slots form a LIFO list
    /// threaded through their records' `row` fields, so destroy and create touch no other array.
    uint32_t free_head_ = 0;
    size_t alive_count_ = 0;
    detail::OwnedArray<Archetype> archetypes_; ///< archetypes_.size() is the archetype generation
    detail::PodArray<Archetype*> index_; ///< see index_insert; a power of two in size
    detail::PodArray<Archetype*> pack_cache_;
    mutable detail::OwnedArray<detail::QueryCache> queries_;
    uint32_t iterating_ = 0;

    HookTable add_hooks_;
    HookTable remove_hooks_;
    ComponentMask add_hook_mask_;
    ComponentMask remove_hook_mask_;
    bool any_add_hooks_ = false;
    bool any_remove_hooks_ = false;
    detail::PodArray<uint32_t> dying_; ///< slots whose on_remove hooks are running (nested destroys)

    detail::ResourceTable resources_;
    detail::CommandQueue deferred_;
    detail::EventRegistry events_; ///< room: events.hpp; a null pointer until the first send
};

// ---------------------------------------------------------------------------------------------------
// Commands shared by World::DeferredProxy and CommandBuffer
// ---------------------------------------------------------------------------------------------------

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

private:
    World* world_;
};

inline World::DeferredProxy World::deferred() noexcept { return DeferredProxy(*this); }

namespace detail {

/**
 * @brief Internal door into a World for library code that builds or reads entities wholesale
 *        (serialization.hpp, prefab.hpp). Not part of the public API.
 *
 * Whoever uses the mutating functions must leave every invariant of SPEC §6 holding when it returns
 * control to user code (World::check_invariants() verifies them).
 */
struct WorldAccess {
    static const OwnedArray<Archetype>& archetypes(const World& w) noexcept { return w.archetypes_; }
    static PodArray<EntityRecord>& records(World& w) noexcept { return w.records_; }
    static const PodArray<EntityRecord>& records(const World& w) noexcept { return w.records_; }
    /// The free slots, the next one to be reused last.
    static std::vector<uint32_t> free_list(const World& w) {
        std::vector<uint32_t> list;
        for (uint32_t i = w.free_head_; i != 0 && list.size() < w.records_.size(); i = w.records_[i].row) list.push_back(i);
        return std::vector<uint32_t>(list.rbegin(), list.rend());
    }
    /// Replaces the free list (`slots.back()` is reused first). @pre every slot is in range, dead
    /// and listed once.
    static void set_free_list(World& w, const std::vector<uint32_t>& slots) noexcept {
        w.free_head_ = 0;
        for (uint32_t slot : slots) {
            w.records_[slot].row = w.free_head_;
            w.free_head_ = slot;
        }
    }
    static size_t& alive_count(World& w) noexcept { return w.alive_count_; }
    static bool iterating(const World& w) noexcept { return w.iterating_ != 0; }

    /// The archetype of exactly `sorted_types`, created when missing (nullptr when an id is out of
    /// range or has no column factory: asserts).
    static Archetype* find_or_create_archetype(World& w, const TypeSet& sorted_types) {
        return w.find_or_create_archetype(sorted_types);
    }
    /// Allocates a slot (free list first) and appends a row for it in `arch`. The row's non-tag
    /// columns are UNINITIALISED: construct every one of them before any other world call.
    static Entity spawn(World& w, Archetype& arch, uint32_t& row) { return w.allocate_entity(&arch, row); }
    /// Runs the on_add hooks of component `id` for `e` (no-op when none are registered).
    static void fire_on_add(World& w, Entity e, ComponentTypeID id) {
        if (w.any_add_hooks_) w.fire_on_add(e, id);
    }
    /// Destroys every entity without running hooks and returns the slots to the state of a new
    /// world (slot 0 only, empty free list). Archetypes are kept (they are never freed).
    static void reset_entities(World& w) noexcept {
        for (Archetype* a : w.archetypes_) a->clear();
        w.records_.resize(1);
        w.records_[0] = EntityRecord{};
        w.free_head_ = 0;
        w.alive_count_ = 0;
    }
};

} // namespace detail

inline bool World::check_invariants() const {
    size_t live = 0;
    for (size_t a = 0; a < archetypes_.size(); ++a) {
        const Archetype& arch = *archetypes_[a];
        if (arch.id != a || arch.columns.size() != arch.types.size()) return false;
        for (size_t c = 1; c < arch.types.size(); ++c)
            if (!(arch.types[c - 1] < arch.types[c])) return false; // sorted, no duplicates
        if (arch.mask.count() != arch.types.size()) return false;
        for (size_t c = 0; c < arch.types.size(); ++c) {
            if (arch.columns[c].type_id != arch.types[c] || !arch.mask.test(arch.types[c]) ||
                arch.column_index[arch.types[c]] != c)
                return false;
            const ComponentColumn& col = arch.columns[c];
            if (col.elem_size != 0 && reinterpret_cast<uintptr_t>(col.data) % col.elem_align != 0) return false;
        }
        if (arch.row_size != 0 && arch.size() > arch.capacity()) return false;
        for (size_t row = 0; row < arch.size(); ++row) {
            const Entity e = arch.entities[row];
            if (e.index == 0 || e.index >= records_.size()) return false;
            const EntityRecord& r = records_[e.index];
            if (r.archetype != &arch || r.row != row || r.generation != e.generation) return false;
        }
        live += arch.size();
    }
    if (live != alive_count_ || records_.empty() || records_[0].archetype != nullptr) return false;
    size_t free_slots = 0;
    std::vector<uint8_t> seen(records_.size(), 0);
    for (uint32_t index = free_head_; index != 0; index = records_[index].row) {
        if (index >= records_.size() || seen[index] || records_[index].archetype != nullptr) return false;
        seen[index] = 1;
        ++free_slots;
    }
    return free_slots + live + 1 == records_.size();
}

} // namespace ecs
