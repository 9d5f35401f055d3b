/**
 * @file ecs/world/structural.hpp
 * @brief The commit point of structural changes, and the changes themselves: add and remove (the
 *        fast path and the general one), multi-type add and remove in one migration, emplace, and
 *        bulk destroy / remove / add over whole archetypes.
 *
 * The floors are the usual ones: the archetype graph computes a multi-type destination once per
 * (source archetype, pack) and caches it (ArchetypeGraph::pack_target, no intermediate archetype);
 * the archetype moves rows (push_entity + move_row_into for one row, append_rows_to for all of
 * them); the entity index takes the records. This room orders those steps and the hooks.
 *
 * Rules (SPEC addition, see notes/structural.md):
 * - `add(e, a, b, ...)`: every value is written before any hook runs. New types are constructed in
 *   the destination row and existing ones overwritten in place while the source rows have not moved
 *   yet, so an argument that refers into the world is read while still valid (when the destination
 *   block must grow, the values are moved out first). Then, per value in argument order: `on_add`
 *   (new types) and `on_set`. `on_leave` fires once before, `on_enter` once after.
 * - `remove<A, B, ...>(e)`: `on_leave` once, `on_remove` per present type in template order, then
 *   one migration, `on_enter` once.
 * - `emplace<T>(e, args...)`: T is constructed from `args` directly in its final place. Replacing an
 *   existing T destroys it and constructs the new one in the same slot; as an argument may refer into
 *   the old value (or memory it owns), arithmetic and enum arguments are copied before the destruction, and any
 *   other argument list builds the new value first and moves it in (one move).
 * - Bulk operations take whole archetypes at a time when no hook or query observer can fire for
 *   what they do; otherwise they collect the matching entities first (archetype order, row order)
 *   and apply the single-entity operation to each that still qualifies, so hooks fire exactly as if
 *   the user had written the loop. Entities created by those hooks are not included.
 *
 * Thread-safety: as World (one writer at a time).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "../detail/required.hpp"
#include "../detail/value_pack.hpp"
#include "../detail/world_access.hpp"
#include "world_class.hpp"

namespace ecs {

// -- the commit point -----------------------------------------------------------------------------

/**
 * Every structural change of one entity that observers may see (create, destroy, add, remove,
 * emplace of a new type, multi-type add and remove, raw add and remove, sparse inserts and erases,
 * enable-bit flips) runs through this one function, in this order:
 *   1. on_leave observers, told the mask the entity will have (`notice.after`);
 *   2. `prepare()`: re-checks what those observers may have changed (the entity destroyed or moved)
 *      and runs the hooks that must read the old value (on_remove); false abandons the change;
 *   3. `move()`: the change itself (rows, sparse set, enable bit);
 *   4. `hooks()`: on_add and on_set of the values now in place;
 *   5. on_enter observers, told the mask the entity had (`notice.before`).
 * With no observer of any kind registered, nothing can intervene: only `move()` runs (one test).
 * The single-type add/remove fast path below, and the plain paths of create() and destroy()
 * (world/lifecycle.hpp), are the leaf form of step 3 for a world with no observer at all; they
 * notify nobody, so they need none of the other steps.
 */
template <typename Prepare, typename Move, typename Hooks>
ECS_FORCEINLINE bool World::commit(Entity& e, detail::Notice& notice, Prepare&& prepare, Move&& move, Hooks&& hooks) {
    if (ECS_LIKELY(!observers_.any())) {
        move();
        entities_.stamp(e.index); // enable flips and sparse changes move no row (slot 0 when refused: harmless)
        return true;
    }
    if (notice.leave && observers_.any_query()) observers_.fire_leave(*this, lookup(), e, notice.after, notice.exact);
    if (!prepare()) return false;
    move();
    entities_.stamp(e.index);
    hooks();
    if (notice.enter && observers_.any_query()) observers_.fire_enter(*this, lookup(), e, notice.before, notice.exact);
    return true;
}

template <typename T>
ECS_FORCEINLINE void World::add(Entity e, T&& value) {
    using C = detail::component_t<T>;
    if constexpr (std::is_lvalue_reference_v<T>) {
        add(e, detail::owned_t<T>(value)); // copy first: `value` may live in a column this call moves
    } else if constexpr (detail::is_sparse_v<C>) {
        // No migration (world/sparse.hpp). The set may grow under a construct's arguments: own them.
        add_sparse<C>(e, detail::owned_t<T>(std::move(value)));
    } else {
        // A cached edge means the destination exists, so C's column factory is registered: the
        // fast path needs only the id (ensure_column_factory runs on the general path).
        const PlainMove plain = add_plain(e, component_id<C>());
        if (ECS_LIKELY(plain.done)) { // migrated as plain bytes, no hook to run
            if constexpr (!detail::is_tag_v<C>) detail::place<C>(plain.at, std::move(value));
            return;
        }
        if constexpr (detail::is_construct_v<T>) { // built in its destination row (or over the old value)
            if (!alive(e)) return; // no-op, as for a value
            if (ECS_UNLIKELY(iterating()) && !arch_of(e).has(component_id<C>())) { // refused with add's message
                (void)ECS_CHECK(false, detail::detailed_message("World::add: structural change during iteration (use deferred())",
                                                                component_info(component_id<C>()).name, e));
                return;
            }
            detail::with_arguments(std::move(value), [&](auto&&... args) { (void)emplace<C>(e, std::forward<decltype(args)>(args)...); });
        } else {
            add_general<C>(e, std::move(value));
        }
    }
}

template <typename T>
inline void World::add(Entity e) {
    static_assert(std::is_default_constructible_v<T>, "World::add<T>(e): T must be default-constructible");
    add(e, construct<T>()); // built in place, value-initialised
}

template <typename T>
inline void World::remove(Entity e) {
    if constexpr (detail::is_sparse_v<T>) remove_sparse<detail::bare_t<T>>(e); // no migration
    else remove_plain(e, component_id<T>());
}

template <typename C>
ECS_NOINLINE void World::add_general(Entity e, C&& value) {
    const ComponentTypeID id = ensure_column_factory<C>();
    AddSlot slot = add_slot(e, id, false, &construct_from<C>, &value);
    if (ECS_UNLIKELY(slot.kind == AddSlot::DESTINATION_FULL)) {
        // The destination block moves on the next row and `value` may live in it: take it out.
        C local(std::move(value));
        slot = add_slot(e, id, true, &construct_from<C>, &local);
        if (slot.kind == AddSlot::EXISTING) overwrite<C>(e, id, slot.at, local);
        return;
    }
    if (slot.kind == AddSlot::EXISTING) overwrite<C>(e, id, slot.at, value);
}

template <typename C>
inline void World::construct_from(void* at, void* value) {
    if constexpr (!detail::is_tag_v<C>) ::new (at) C(std::move(*static_cast<C*>(value)));
    else (void)at, (void)value;
}

template <typename C>
inline void World::overwrite(Entity e, ComponentTypeID id, void* at, C& value) {
    if constexpr (!detail::is_tag_v<C>) {
        C* existing = static_cast<C*>(at);
        if (existing != &value) { // add(e, std::move(get<C>(e))): already in place
            existing->~C();
            ::new (static_cast<void*>(existing)) C(std::move(value));
        }
    }
    if (ECS_UNLIKELY(graph_.any_tracked())) touch(e, id); // an overwrite is a change
    if (ECS_UNLIKELY(observers_.any_set())) observers_.fire_on_set(*this, lookup(), e, id);
}

ECS_NOINLINE inline World::AddSlot World::add_slot(Entity e, ComponentTypeID id, bool value_taken_out, ConstructFn construct,
                                                   void* value) {
    if (!alive(e)) return {nullptr, AddSlot::NOTHING};
    EntityRecord& rec = entities_[e.index];
    Archetype& src = arch_of(rec);
    if (src.has(id)) return {src.column(id).at(rec.row), AddSlot::EXISTING};
    if (!ECS_CHECK(!iterating(), detail::detailed_message("World::add: structural change during iteration (use deferred())",
                                                         component_info(id).name, e)))
        return {nullptr, AddSlot::NOTHING};
    Archetype* dst = graph_.add_target(src, id);
    if (dst == nullptr) return {nullptr, AddSlot::NOTHING};
    if (ECS_UNLIKELY(dst->full()) && !value_taken_out) return {nullptr, AddSlot::DESTINATION_FULL};
    AddSlot slot{nullptr, AddSlot::FRESH};
    detail::Notice notice{&dst->mask, &src.mask};
    commit(
        e, notice,
        [&] {
            if (!alive(e) || entities_[e.index].archetype != &src) slot.kind = AddSlot::NOTHING;
            else if (ECS_UNLIKELY(dst->full()) && !value_taken_out) slot.kind = AddSlot::DESTINATION_FULL;
            return slot.kind == AddSlot::FRESH;
        },
        [&] {
            const uint32_t row = migrate(entities_[e.index], e, src, *dst); // re-read: records may have grown
            slot.at = dst->column(id).at(row);
            construct(slot.at, value);
            if (ECS_UNLIKELY(dst->columns.size() != src.columns.size() + 1)) detail::construct_required(src, *dst, row, &id, 1);
        },
        [&] {
            if (observers_.any_add()) observers_.fire_on_add(*this, lookup(), e, id);
            if (observers_.any_set()) observers_.fire_on_set(*this, lookup(), e, id);
            if (ECS_UNLIKELY(dst->columns.size() != src.columns.size() + 1) && observers_.any_add())
                detail::for_each_required(src, *dst, &id, 1, [&](ComponentTypeID r) { observers_.fire_on_add(*this, lookup(), e, r); });
        });
    return slot;
}

ECS_NOINLINE inline void World::remove_id(Entity e, ComponentTypeID id) {
    if (!alive(e)) return;
    if (!arch_of(e).has(id)) return;
    if (!ECS_CHECK(!iterating(), detail::detailed_message("World::remove: structural change during iteration (use deferred())",
                                                         component_info(id).name, e)))
        return;
    ComponentMask before; // what queries saw before the move: a disabled `id` was absent already
    detail::Notice notice{nullptr, &before};
    if (ECS_UNLIKELY(observers_.any_query())) notice.after = &graph_.remove_target(arch_of(e), id)->mask;
    commit(
        e, notice,
        [&] {
            if (!alive(e) || !arch_of(e).has(id)) return false;
            if (observers_.any_remove() && observers_.has_remove(id)) {
                observers_.fire_on_remove(*this, lookup(), e, id);
                if (!alive(e) || !arch_of(e).has(id)) return false;
            }
            return true;
        },
        [&] {
            EntityRecord& rec = entities_[e.index]; // re-read: a hook may have grown the records
            Archetype& src = arch_of(rec);
            if (ECS_UNLIKELY(observers_.any_query())) {
                before = src.mask;
                if (src.enable.any() && src.disabled(id, rec.row)) before.reset(id);
            }
            migrate(rec, e, src, *graph_.remove_target(src, id));
        },
        [] {});
}

ECS_FORCEINLINE uint32_t World::migrate(EntityRecord& rec, Entity e, Archetype& src, Archetype& dst) {
    const Archetype::RowMove m = src.move_row_to(rec.row, dst, e);
    if (m.filled_by != INVALID_ENTITY) entities_[m.filled_by.index].row = rec.row;
    rec.archetype = &dst; // the records did not reallocate: no entity was created
    rec.row = m.dst_row;
    entities_.stamp(e.index);
    return m.dst_row;
}

// -- the single-type add / remove fast path ----------------------------------------------------

/**
 * Migrates `e` across the cached edge of `id` (add edge when `Adding`, else remove edge) with inline
 * code only, when every condition of the fast path holds: a live entity, a cached edge with a
 * plain-byte plan (an add edge exists only from an archetype lacking `id`, a remove edge only from one
 * having it, so no `has` test), room in the destination's entity list (no block grows: an argument
 * living in it stays valid), no ticks or disabled bits on the source or ticks on the destination, no
 * observer, no iteration. Any other case returns "not done" having changed nothing, and the general
 * path (add_slot, remove_id) runs every check again. For an add, `at` is the new value's storage.
 */
template <bool Adding>
ECS_FORCEINLINE World::PlainMove World::move_plain(Entity e, ComponentTypeID id) noexcept {
    if (ECS_UNLIKELY(e.index >= entities_.size())) return {nullptr, false};
    EntityRecord& rec = entities_[e.index];
    Archetype* const src = rec.archetype;
    if (rec.generation != e.generation || src == nullptr || id >= src->edges.size()) return {nullptr, false};
    const ArchetypeEdge& edge = src->edges[id];
    Archetype* const dst = Adding ? edge.add : edge.remove;
    const ArchetypeEdge::Plan plan = Adding ? edge.add_plan : edge.remove_plan;
    if (plan.first == 0 || !dst->has_plain_room() || src->has_side_rows() || observers_.any() || iterating())
        return {nullptr, false};
    const uint32_t src_row = rec.row;
    const Archetype::RowMove m = src->move_plain_row(plan, src_row, *dst, e);
    if (m.filled_by != INVALID_ENTITY) entities_[m.filled_by.index].row = src_row;
    rec.archetype = dst;
    rec.row = m.dst_row;
    entities_.stamp(e.index);
    if constexpr (Adding) {
        const ComponentColumn& c = dst->columns.data()[dst->column_index[id]];
        return {c.data + size_t(m.dst_row) * c.elem_size, true};
    } else {
        return {nullptr, true};
    }
}

ECS_NOINLINE inline World::PlainMove World::add_plain(Entity e, ComponentTypeID id) noexcept {
    return move_plain<true>(e, id);
}

ECS_NOINLINE inline void World::remove_plain(Entity e, ComponentTypeID id) {
    if (!move_plain<false>(e, id).done) remove_id(e, id);
}
namespace detail {

/// The structural room: World's multi-type, emplace and bulk operations (friend of World).
struct StructuralOps {
    // -- multi-type add -------------------------------------------------------------------------------

    /// add(e, values...) with bare `Ts` and values the call may move from.
    template <typename... Ts>
    static void add_many(World& w, Entity e, Ts&... values) {
        if (!w.alive(e)) return;
        Archetype* src = &w.arch_of(e);
        if (ECS_UNLIKELY(w.iterating())) { // only a pure overwrite is allowed; a refusal creates nothing
            if ((src->has(component_id<component_t<Ts>>()) && ...)) overwrite_many(w, e, values...);
            else (void)ECS_CHECK(false, detailed_message("World::add: structural change during iteration (use deferred())",
                                                   type_name<component_t<first_t<Ts...>>>(), e));
            return;
        }
        Archetype* dst = w.graph_.template pack_target<AddPack, component_t<Ts>...>(*src);
        if (dst == nullptr) return;
        if (dst == src) {
            overwrite_many(w, e, values...);
            return;
        }
        uint32_t fresh = 0; // bit i: the i-th value's type is new
        detail::Notice notice{&dst->mask, &src->mask};
        w.commit(
            e, notice, [&] { return w.alive(e) && &w.arch_of(e) == src; },
            [&] {
                // When the destination block moves on the next row a value may live in it: take them out.
                if (ECS_UNLIKELY(dst->full())) fresh = place_taken<owned_t<Ts>...>(w, e, *src, *dst, owned_t<Ts>(std::move(values))...);
                else fresh = place_many(w, e, *src, *dst, values...);
            },
            [&] {
                added_hooks<Ts...>(w, e, fresh);
                required_hooks<Ts...>(w, e, *src, *dst);
            });
    }

    /// on_add for the required components an add brought along (after the added ones' hooks).
    template <typename... Ts>
    static void required_hooks(World& w, Entity e, const Archetype& src, const Archetype& dst) {
        if (!w.observers_.any_add() || dst.columns.size() <= src.columns.size() + sizeof...(Ts)) return;
        const ComponentTypeID ids[] = {component_id<component_t<Ts>>()...};
        for_each_required(src, dst, ids, sizeof...(Ts), [&](ComponentTypeID r) { w.observers_.fire_on_add(w, w.lookup(), e, r); });
    }

    /// The table part of add(e, values...) for a pack naming sparse types: the table values, in
    /// argument order, collected into `table_values`, then added in one migration.
    template <typename Pack, typename T, typename... Rest>
    static void add_split(World& w, Entity e, Pack table_values, T& value, Rest&... rest) {
        if constexpr (is_sparse_v<component_t<T>>) {
            add_split(w, e, table_values, rest...);
        } else {
            add_split(w, e, table_values.apply([&](auto*... v) { return ValuesOf<decltype(v)..., T*>{v..., &value}; }), rest...);
        }
    }
    template <typename Pack>
    static void add_split(World& w, Entity e, Pack table_values) {
        if constexpr (Pack::size == 1) {
            w.add(e, std::move(*table_values.template get<0>()));
        } else if constexpr (Pack::size > 1) {
            table_values.apply([&](auto*... v) { add_many<std::remove_pointer_t<decltype(v)>...>(w, e, *v...); });
        } else {
            (void)w, (void)e, (void)table_values;
        }
    }
    /// The sparse part: add(e, value) when `T` is sparse.
    template <typename T>
    static void add_if_sparse(World& w, Entity e, T& value) {
        if constexpr (is_sparse_v<component_t<T>>) w.add(e, std::move(value));
        else (void)w, (void)e, (void)value;
    }

    /// on_add (new types) and on_set per value, in argument order.
    template <typename... Ts>
    static void added_hooks(World& w, Entity e, uint32_t fresh) {
        constexpr size_t N = sizeof...(Ts);
        const ComponentTypeID ids[N] = {component_id<component_t<Ts>>()...};
        if (w.observers_.any_add() || w.observers_.any_set())
            for (size_t i = 0; i < N; ++i) {
                if (((fresh >> i) & 1u) && w.observers_.any_add()) w.observers_.fire_on_add(w, w.lookup(), e, ids[i]);
                if (w.observers_.any_set()) w.observers_.fire_on_set(w, w.lookup(), e, ids[i]);
            }
    }

    template <typename T, typename...>
    struct First {
        using type = T;
    };
    template <typename... Ts>
    using first_t = typename First<Ts...>::type;

    template <typename... Ts>
    ECS_NOINLINE static uint32_t place_taken(World& w, Entity e, Archetype& src, Archetype& dst, Ts... values) {
        return place_many(w, e, src, dst, values...);
    }

    /// One migration of `e` from `src` to `dst`, writing every value before the source rows move.
    /// Returns which values were of new types (bit i for the i-th).
    template <typename... Ts>
    static uint32_t place_many(World& w, Entity e, Archetype& src, Archetype& dst, Ts&... values) {
        constexpr size_t N = sizeof...(Ts);
        static_assert(N < 32, "World::add(e, values...): at most 31 values in one call");
        const ComponentTypeID ids[N] = {component_id<component_t<Ts>>()...};
        // Usually every type is new: `dst` then has exactly N columns more (one compare, no lookups).
        // (A pack with requirements takes the general branch: extra columns could fake the count.)
        const bool all_fresh = dst.columns.size() == src.columns.size() + N && !(has_requires_v<component_t<Ts>> || ...);
        const uint32_t src_row = w.entities_[e.index].row;
        const uint32_t dst_row = dst.push_entity(e);
        uint32_t fresh = (1u << N) - 1; // bit i: the i-th value's type is new
        if (ECS_LIKELY(all_fresh)) {
            (construct_fresh<Ts>(dst, dst_row, values), ...);
        } else {
            fresh = 0;
            for (size_t i = 0; i < N; ++i) fresh |= src.has(ids[i]) ? 0u : 1u << i;
            size_t k = 0;
            (put<Ts>(src, src_row, dst, dst_row, (fresh >> k++) & 1u, values), ...);
            construct_required(src, dst, dst_row, ids, N); // what the added types require (if anything)
        }
        const Entity filled = src.move_row_into(src_row, dst, dst_row);
        if (filled != INVALID_ENTITY) w.entities_[filled.index].row = src_row;
        EntityRecord& rec = w.entities_[e.index]; // no entity was created: the records did not move
        rec.archetype = &dst;
        rec.row = dst_row;
        w.entities_.stamp(e.index);
        if (ECS_UNLIKELY(dst.ticks.active()))
            for (size_t i = 0; i < N; ++i)
                if (!((fresh >> i) & 1u)) dst.touch(ids[i], dst_row); // an overwrite is a change
        return fresh;
    }

    /// Constructs a value of a type the entity did not have at the destination row.
    template <typename V>
    ECS_FORCEINLINE static void construct_fresh(Archetype& dst, uint32_t dst_row, V& value) {
        using T = component_t<V>;
        if constexpr (!is_tag_v<T>) {
            place<T>(static_cast<void*>(reinterpret_cast<T*>(dst.column(component_id<T>()).data) + dst_row), std::move(value));
        } else {
            (void)dst;
            (void)dst_row;
            (void)value;
        }
    }

    /// Writes one value: constructed at the destination row (new type) or over the old value at the
    /// source row (which the migration then carries along).
    template <typename V>
    static void put(Archetype& src, uint32_t src_row, Archetype& dst, uint32_t dst_row, bool fresh, V& value) {
        using T = component_t<V>;
        if constexpr (!is_tag_v<T>) {
            const ComponentTypeID id = component_id<T>();
            if (fresh) {
                place<T>(dst.column(id).at(dst_row), std::move(value));
            } else {
                replace_value(static_cast<T*>(src.column(id).at(src_row)), value);
            }
        } else {
            (void)src;
            (void)src_row;
            (void)dst;
            (void)dst_row;
            (void)fresh;
            (void)value;
        }
    }

    template <typename T, typename V>
    static void replace_value(T* old, V& value) {
        replace_at(old, std::move(value)); // add(e, std::move(get<T>(e)), ...) leaves it in place
    }

    /// add(e, values...) where `e` has every type: overwrites in place (allowed during iteration).
    template <typename... Ts>
    static void overwrite_many(World& w, Entity e, Ts&... values) {
        const EntityRecord& r = w.entities_[e.index];
        Archetype& a = w.arch_of(r);
        const uint32_t row = r.row;
        (overwrite_one<Ts>(a, row, values), ...);
        if (ECS_UNLIKELY(w.graph_.any_tracked())) (w.touch(e, component_id<component_t<Ts>>()), ...);
        if (ECS_UNLIKELY(w.observers_.any_set())) (w.observers_.fire_on_set(w, w.lookup(), e, component_id<component_t<Ts>>()), ...);
    }
    template <typename V>
    static void overwrite_one(Archetype& a, uint32_t row, V& value) {
        using T = component_t<V>;
        if constexpr (!is_tag_v<T>) {
            replace_value(static_cast<T*>(a.column(component_id<T>()).at(row)), value);
        } else {
            (void)a;
            (void)row;
            (void)value;
        }
    }

    // -- multi-type remove ----------------------------------------------------------------------------

    template <typename... Ts>
    static void remove_many(World& w, Entity e) {
        if (!w.alive(e)) return;
        Archetype* src = &w.arch_of(e);
        if (ECS_UNLIKELY(w.iterating())) { // removing nothing is allowed; a refusal creates nothing
            if ((src->has(component_id<Ts>()) || ...))
                (void)ECS_CHECK(false, detailed_message("World::remove: structural change during iteration (use deferred())",
                                                  type_name<first_t<Ts...>>(), e));
            return;
        }
        Archetype* dst = w.graph_.template pack_target<RemovePack, Ts...>(*src);
        if (dst == src || dst == nullptr) return; // none of them present
        detail::Notice notice{&dst->mask, nullptr};
        w.commit(
            e, notice,
            [&] {
                if (!remove_hooks(w, e, {component_id<Ts>()...})) return false;
                src = &w.arch_of(e); // a hook may have moved `e`: start from where it is
                dst = w.graph_.template pack_target<RemovePack, Ts...>(*src);
                return dst != src && dst != nullptr;
            },
            [&] {
                notice.before = &src->mask;
                w.migrate(w.entities_[e.index], e, *src, *dst);
            },
            [] {});
    }

    /// The table part of remove<Ts...>(e) for a pack naming sparse types: one migration.
    template <typename List>
    struct RemoveTables;
    template <typename... Tables>
    struct RemoveTables<TypeList<Tables...>> {
        static void run(World& w, Entity e) {
            if constexpr (sizeof...(Tables) == 1) w.remove<Tables...>(e);
            else if constexpr (sizeof...(Tables) > 1) remove_many<Tables...>(w, e);
            else (void)w, (void)e;
        }
    };
    /// The sparse part: remove<T>(e) when `T` is sparse.
    template <typename T>
    static void remove_if_sparse(World& w, Entity e) {
        if constexpr (is_sparse_v<T>) w.remove<T>(e);
        else (void)w, (void)e;
    }

    /// on_remove per type `e` still has, in `ids` order. False when `e` died.
    template <size_t N>
    ECS_NOINLINE static bool remove_hooks(World& w, Entity e, const ComponentTypeID (&ids)[N]) {
        if (!w.alive(e)) return false;
        if (w.observers_.any_remove())
            for (size_t i = 0; i < N; ++i) {
                if (!w.observers_.has_remove(ids[i]) || !w.arch_of(e).has(ids[i])) continue;
                w.observers_.fire_on_remove(w, w.lookup(), e, ids[i]);
                if (!w.alive(e)) return false;
            }
        return true;
    }

    // -- emplace --------------------------------------------------------------------------------------

    template <typename T, typename... Args>
    static T& emplace(World& w, Entity e, Args&&... args) {
        if (!ECS_CHECK(w.alive(e), entity_message("World::emplace", type_name<T>(), e, "is not alive")))
            return fallback_object<T>();
        const ComponentTypeID id = ensure_column_factory<T>();
        Archetype* src = &w.arch_of(e);
        if (src->has(id)) return replace<T>(w, e, id, std::forward<Args>(args)...);
        if (!ECS_CHECK(!w.iterating(), detailed_message("World::emplace: structural change during iteration (use deferred())",
                                                       type_name<T>(), e)))
            return fallback_object<T>();
        Archetype* dst = w.graph_.add_target(*src, id);
        if (dst == nullptr) return fallback_object<T>();
        enum Outcome { PLACED, GONE, REPLACE } outcome = PLACED;
        detail::Notice notice{&dst->mask, nullptr};
        w.commit(
            e, notice,
            [&] {
                if (!w.alive(e)) return (outcome = GONE), false;
                Archetype* now = &w.arch_of(e);
                if (now != src) { // a hook moved `e`: continue from where it is (on_leave does not fire again)
                    if (now->has(id)) return (outcome = REPLACE), false;
                    src = now;
                    dst = w.graph_.add_target(*src, id);
                    if (dst == nullptr) return (outcome = GONE), false;
                }
                return true;
            },
            [&] {
                notice.before = &src->mask;
                if (ECS_UNLIKELY(dst->full())) {
                    // The destination block moves on the next row and an argument may live in it:
                    // build the value first, or (T cannot move) copy the arguments first.
                    if constexpr (std::is_move_constructible_v<T>) {
                        insert<T>(w, e, *src, *dst, id, make_value<T>(std::forward<Args>(args)...));
                    } else {
                        ValuesOf<std::decay_t<Args>...> copies{std::forward<Args>(args)...};
                        copies.apply([&](auto&&... c) { insert<T>(w, e, *src, *dst, id, std::move(c)...); });
                    }
                } else {
                    insert<T>(w, e, *src, *dst, id, std::forward<Args>(args)...);
                }
            },
            [&] {
                if (w.observers_.any_add()) w.observers_.fire_on_add(w, w.lookup(), e, id);
                if (w.observers_.any_set()) w.observers_.fire_on_set(w, w.lookup(), e, id);
                required_hooks<T>(w, e, *src, *dst);
            });
        if (outcome == REPLACE) return replace<T>(w, e, id, std::forward<Args>(args)...);
        if (outcome == GONE) return fallback_object<T>();
        return reread<T>(w, e, id);
    }

    /// Pushes `e`'s row to `dst`, constructs `T(args...)` there while the source rows are still in
    /// place, then moves the rest of the row.
    template <typename T, typename... Args>
    static void insert(World& w, Entity e, Archetype& src, Archetype& dst, ComponentTypeID id, Args&&... args) {
        const uint32_t src_row = w.entities_[e.index].row;
        const uint32_t dst_row = dst.push_entity(e);
        if constexpr (!is_tag_v<T>) {
            make_at<T>(dst.column(id).at(dst_row), std::forward<Args>(args)...);
        } else {
            (void)id;
            (void)make_value<T>(std::forward<Args>(args)...); // a tag stores nothing; its constructor still runs
        }
        if (ECS_UNLIKELY(dst.columns.size() != src.columns.size() + 1)) construct_required(src, dst, dst_row, &id, 1);
        const Entity filled = src.move_row_into(src_row, dst, dst_row);
        if (filled != INVALID_ENTITY) w.entities_[filled.index].row = src_row;
        EntityRecord& rec = w.entities_[e.index];
        rec.archetype = &dst;
        rec.row = dst_row;
        w.entities_.stamp(e.index);
    }

    /// emplace over an existing `T`: destroy, then construct in the same slot. An argument may refer
    /// into the old value or into memory it owns (`get<std::string>(e).c_str()`), so none may be read
    /// after the destruction: arithmetic and enum arguments are copied first and `T` is built
    /// from the copies in place; any other argument list builds the new `T` first and moves it in.
    template <typename T, typename... Args>
    static T& replace(World& w, Entity e, ComponentTypeID id, Args&&... args) {
        if constexpr (!is_tag_v<T>) {
            const EntityRecord& r = w.entities_[e.index];
            T* slot = static_cast<T*>(w.arch_of(r).column(id).at(r.row));
            if constexpr ((is_plain_number_v<std::decay_t<Args>> && ...) || !std::is_move_constructible_v<T>) {
                // (A type that cannot move is built from copies of the arguments.)
                rebuild_from_copies<T>(slot, std::decay_t<Args>(args)...);
            } else {
                T local = make_value<T>(std::forward<Args>(args)...);
                slot->~T();
                ::new (static_cast<void*>(slot)) T(std::move(local));
            }
        } else {
            (void)make_value<T>(std::forward<Args>(args)...);
        }
        if (ECS_UNLIKELY(w.graph_.any_tracked())) w.touch(e, id);
        if (ECS_UNLIKELY(w.observers_.any_set())) w.observers_.fire_on_set(w, w.lookup(), e, id);
        return reread<T>(w, e, id);
    }

    /// Arithmetic and enum values: copying one reads all there is to it (a pointer's target is not).
    template <typename V>
    static constexpr bool is_plain_number_v = std::is_arithmetic_v<V> || std::is_enum_v<V>;

    /// Destroys `*slot` and constructs a `T` there from `values` (copied before the destruction).
    template <typename T, typename... Vs>
    static void rebuild_from_copies(T* slot, Vs... values) {
        slot->~T();
        if constexpr (buildable_v<T, Vs&&...>) make_at<T>(static_cast<void*>(slot), std::move(values)...);
        else make_at<T>(static_cast<void*>(slot), values...);
    }

    /// `e`'s `T` after hooks ran (they may have moved its row); zeroed static storage when gone.
    template <typename T>
    static T& reread(World& w, Entity e, ComponentTypeID id) noexcept {
        if (!w.alive(e)) return fallback_object<T>();
        const EntityRecord& r = w.entities_[e.index];
        if (!w.arch_of(r).has(id)) return fallback_object<T>();
        return *static_cast<T*>(w.arch_of(r).column(id).at(r.row));
    }

    // -- bulk operations ------------------------------------------------------------------------------

    /// True when a bulk operation must go entity by entity: the world holds sparse sets (the
    /// entities' sparse values are not in the archetypes), or the query or the type is sparse.
    static bool sparse_involved(const World& w, const QueryCache& q, ComponentTypeID id = INVALID_COMPONENT_ID) noexcept {
        return w.graph_.sparse() != nullptr || q.has_sparse || (id != INVALID_COMPONENT_ID && is_sparse_id(id));
    }

    /// True when `e` (alive) has component `id`, table or sparse.
    static bool has_id(const World& w, Entity e, ComponentTypeID id) noexcept {
        if (is_sparse_id(id)) {
            const SparseRoom* room = w.graph_.sparse();
            const SparseSet* set = room != nullptr ? room->set(id) : nullptr;
            return set != nullptr && set->contains(e.index);
        }
        return w.arch_of(e).has(id);
    }

    /// The entities of `q`'s archetypes, archetype order then row order (a query naming sparse
    /// types keeps the rows passing its sparse tests; enable bits are not looked at, like table types).
    template <typename = void> // compiled only where a bulk operation is used
    static std::vector<Entity> collect(const QueryCache& q, const World& w) {
        if (ECS_UNLIKELY(q.has_sparse)) {
            std::vector<Entity> out;
            SparseRowTest test;
            if (!test.prepare(q, w.graph_.sparse(), 0)) return out;
            for (const Archetype* a : q.archetypes)
                for (size_t row = 0; row < a->size(); ++row)
                    if (test.passes(*a, row)) out.push_back(a->entities[row]);
            return out;
        }
        size_t n = 0;
        for (const Archetype* a : q.archetypes) n += a->size();
        std::vector<Entity> out;
        out.reserve(n);
        for (const Archetype* a : q.archetypes) out.insert(out.end(), a->entities.begin(), a->entities.end());
        return out;
    }

    /// Moves every row of `src` to `dst` and updates their records. @return the rows moved.
    template <typename = void> // compiled only where a bulk operation is used
    static size_t move_all(World& w, Archetype& src, Archetype& dst) {
        const size_t rows = src.size();
        const uint32_t base = src.append_rows_to(dst);
        EntityRecord* records = w.entities_.records().data();
        const Entity* moved = dst.entities.data() + base;
        for (size_t r = 0; r < rows; ++r) {
            EntityRecord& rec = records[moved[r].index];
            rec.archetype = &dst;
            rec.row = base + static_cast<uint32_t>(r);
        }
        if (ECS_UNLIKELY(w.entities_.stamping()))
            for (size_t r = 0; r < rows; ++r) w.entities_.stamp(moved[r].index);
        return rows;
    }

    template <typename = void> // compiled only where a bulk operation is used
    static size_t destroy_all(World& w, const QueryCache& q) {
        // Relationships: destroying a target may unrelate or destroy sources, so each entity goes
        // through World::destroy, like with hooks.
        bool hooks = w.observers_.any_query() || w.relations_.any() || (w.entity_events_ != nullptr && w.entity_events_->any()) || sparse_involved(w, q); // per entity
        if (!hooks && w.observers_.any_remove())
            for (const Archetype* a : q.archetypes) hooks = hooks || (a->size() != 0 && w.observers_.any_remove_in(a->mask));
        if (ECS_UNLIKELY(hooks)) {
            // Every entity that matched and is gone afterwards counts, whoever destroyed it (this
            // call, one of its hooks, or a destroy_sources cascade).
            const auto matched = collect(q, w);
            for (const Entity e : matched)
                if (w.alive(e)) w.destroy(e);
            size_t n = 0;
            for (const Entity e : matched) n += w.alive(e) ? 0u : 1u;
            return n;
        }
        size_t n = 0;
        for (Archetype* a : q.archetypes) {
            const size_t rows = a->size();
            if (rows == 0) continue;
            if (ECS_UNLIKELY(w.names_.any()))
                for (const Entity e : a->entities) w.names_.erase(e.index);
            w.entities_.release_all(a->entities.data(), rows);
            a->clear(); // one pass per column (none for plain bytes), no migration
            n += rows;
        }
        return n;
    }

    template <typename T>
    static size_t remove_all(World& w, const QueryCache& q, ComponentTypeID id) {
        if (ECS_UNLIKELY(w.observers_.any_query() || (w.observers_.any_remove() && w.observers_.has_remove(id)) ||
                         sparse_involved(w, q, id))) {
            size_t n = 0;
            for (const Entity e : collect(q, w)) {
                if (!w.alive(e) || !has_id(w, e, id)) continue;
                if constexpr (is_sparse_v<T>) w.template remove<T>(e);
                else w.remove_id(e, id);
                n += w.alive(e) && !has_id(w, e, id) ? 1u : 0u;
            }
            return n;
        }
        size_t n = 0;
        const size_t count = q.archetypes.size(); // no refresh below: the list stays as it is
        for (size_t i = 0; i < count; ++i) {
            Archetype& src = *q.archetypes[i];
            if (src.size() == 0) continue;
            Archetype* dst = w.graph_.remove_target(src, id);
            n += move_all(w, src, *dst);
        }
        return n;
    }

    template <typename T>
    static size_t add_all(World& w, const QueryCache& q, ComponentTypeID id, const T& value) {
        if (ECS_UNLIKELY(w.observers_.any_query() || (w.observers_.any_add() && w.observers_.has_add(id)) ||
                         (w.observers_.any_set() && w.observers_.has_set(id)) || sparse_involved(w, q, id))) {
            size_t n = 0;
            for (const Entity e : collect(q, w)) {
                if (!w.alive(e) || has_id(w, e, id)) continue;
                w.add(e, value); // copies
                n += w.alive(e) && has_id(w, e, id) ? 1u : 0u;
            }
            return n;
        }
        size_t n = 0;
        const size_t count = q.archetypes.size(); // no refresh below: the list stays as it is
        for (size_t i = 0; i < count; ++i) {
            Archetype& src = *q.archetypes[i];
            const size_t rows = src.size();
            if (rows == 0) continue;
            Archetype* dst = w.graph_.add_target(src, id);
            if (dst == nullptr) return n;
            const size_t base = dst->size();
            move_all(w, src, *dst);
            if (ECS_UNLIKELY(dst->columns.size() != src.columns.size() + 1))
                for (size_t r = 0; r < rows; ++r) construct_required(src, *dst, static_cast<uint32_t>(base + r), &id, 1);
            if constexpr (std::is_trivially_copyable_v<T> && !is_tag_v<T>) {
                T* column = reinterpret_cast<T*>(dst->column(id).data) + base;
                const T local = value; // a copy the stores below cannot alias: kept in registers
                for (size_t r = 0; r < rows; ++r) ::new (static_cast<void*>(column + r)) T(local);
            } else if constexpr (!is_tag_v<T>) {
                T* column = reinterpret_cast<T*>(dst->column(id).data) + base;
                for (size_t r = 0; r < rows; ++r) ::new (static_cast<void*>(column + r)) T(value);
            }
            n += rows;
        }
        return n;
    }
};

} // namespace detail

// -- the World members ------------------------------------------------------------------------------

template <typename T, typename U, typename... Ts>
inline void World::add(Entity e, T&& first, U&& second, Ts&&... rest) {
    static_assert(detail::distinct_v<T, U, Ts...>, "World::add(e, values...): component types must be distinct");
    if constexpr (!std::is_same_v<T, detail::bare_t<T>> || !std::is_same_v<U, detail::bare_t<U>> ||
                  (!std::is_same_v<Ts, detail::bare_t<Ts>> || ...)) {
        // Lvalues (and const rvalues) are copied first: a value may refer into a column this call moves.
        add(e, detail::owned_t<T>(std::forward<T>(first)), detail::owned_t<U>(std::forward<U>(second)),
            detail::owned_t<Ts>(std::forward<Ts>(rest))...);
    } else if constexpr (detail::is_sparse_v<detail::component_t<T>> || detail::is_sparse_v<detail::component_t<U>> ||
                         (detail::is_sparse_v<detail::component_t<Ts>> || ...)) {
        // A pack naming sparse types: the table values in one migration, then the sparse ones into
        // their sets (no archetype has them), each part as its own call would do it.
        detail::StructuralOps::add_split(*this, e, detail::ValuesOf<>{}, first, second, rest...);
        detail::StructuralOps::add_if_sparse(*this, e, first);
        detail::StructuralOps::add_if_sparse(*this, e, second);
        (detail::StructuralOps::add_if_sparse(*this, e, rest), ...);
    } else {
        detail::StructuralOps::add_many<T, U, Ts...>(*this, e, first, second, rest...);
    }
}

template <typename T, typename U, typename... Ts>
inline void World::remove(Entity e) {
    static_assert(detail::distinct_v<T, U, Ts...>, "World::remove<Ts...>(e): component types must be distinct");
    if constexpr (detail::is_sparse_v<detail::bare_t<T>> || detail::is_sparse_v<detail::bare_t<U>> ||
                  (detail::is_sparse_v<detail::bare_t<Ts>> || ...)) {
        // A pack naming sparse types: the table types in one migration, then the sparse ones out of
        // their sets, in template order.
        detail::StructuralOps::RemoveTables<
            detail::table_only_t<detail::TypeList<detail::bare_t<T>, detail::bare_t<U>, detail::bare_t<Ts>...>>>::run(*this, e);
        detail::StructuralOps::remove_if_sparse<detail::bare_t<T>>(*this, e);
        detail::StructuralOps::remove_if_sparse<detail::bare_t<U>>(*this, e);
        (detail::StructuralOps::remove_if_sparse<detail::bare_t<Ts>>(*this, e), ...);
    } else {
        detail::StructuralOps::remove_many<detail::bare_t<T>, detail::bare_t<U>, detail::bare_t<Ts>...>(*this, e);
    }
}

template <typename T, typename... Args>
inline T& World::emplace(Entity e, Args&&... args) {
    static_assert(std::is_same_v<T, detail::bare_t<T>>, "World::emplace<T>: T must be a component type (no cv, no reference)");
    static_assert(detail::buildable_v<T, Args&&...>, "World::emplace<T>(e, args...): T is not constructible from the arguments");
    if constexpr (detail::is_sparse_v<T>) { // built first, then added (never moves the entity)
        if (!ECS_CHECK(alive(e), detail::entity_message("World::emplace", type_name<T>(), e, "is not alive")))
            return detail::fallback_object<T>();
        add(e, construct<T>(std::forward<Args>(args)...)); // built in its slot
        T* p = find_sparse<T>(e);
        if (!ECS_CHECK(p != nullptr, detail::entity_message("World::emplace", type_name<T>(), e, "lost the component in a hook")))
            return detail::fallback_object<T>();
        return *p;
    } else {
        return detail::StructuralOps::emplace<T>(*this, e, std::forward<Args>(args)...);
    }
}

template <typename T, typename... Args>
inline T& World::get_or_emplace(Entity e, Args&&... args) {
    if (has<T>(e)) return get<T>(e);
    return emplace<T>(e, std::forward<Args>(args)...);
}

template <typename... Ts, typename... Filters>
inline size_t World::destroy_all(Filters...) {
    using Check = detail::QueryCheck<detail::TypeList<detail::bare_t<Ts>...>, detail::TypeList<Filters...>>;
    static_assert(Check::check(), "ecs query check");
    static_assert(!Check::change_filtered && !Check::valued, "World::destroy_all: filters are With<...>, Without<...> and AnyOf<...>");
    static_assert((!detail::TermTraits<Ts>::optional && ...), "World::destroy_all<Ts...>: Ts are component types");
    if (!ECS_CHECK(!iterating(), detail::pack_message<Ts...>("World::destroy_all: structural change during iteration (use deferred())")))
        return 0;
    return detail::StructuralOps::destroy_all(*this,
                                              cache_of<detail::TypeList<detail::bare_t<Ts>...>, detail::TypeList<Filters...>>());
}

template <typename T, typename... Filters>
inline size_t World::remove_all(Filters...) {
    using C = detail::bare_t<T>;
    using Check = detail::QueryCheck<detail::TypeList<C>, detail::TypeList<Filters...>>;
    static_assert(Check::check(), "ecs query check");
    static_assert(!Check::change_filtered && !Check::valued, "World::remove_all: filters are With<...>, Without<...> and AnyOf<...>");
    if (!ECS_CHECK(!iterating(), detail::typed_message("World::remove_all: structural change during iteration (use deferred())",
                                                      type_name<C>())))
        return 0;
    return detail::StructuralOps::remove_all<C>(*this, cache_of<detail::TypeList<C>, detail::TypeList<Filters...>>(), component_id<C>());
}

template <typename T, typename... Filters>
inline size_t World::add_all(const T& value, Filters...) {
    using C = detail::bare_t<T>;
    static_assert(std::is_copy_constructible_v<C>, "World::add_all: the component type must be copy-constructible");
    using Check = detail::QueryCheck<detail::TypeList<>, detail::TypeList<Filters..., Without<C>>>;
    static_assert(Check::check(), "ecs query check");
    static_assert(!Check::change_filtered && !Check::valued, "World::add_all: filters are With<...>, Without<...> and AnyOf<...>");
    if (!ECS_CHECK(!iterating(), detail::typed_message("World::add_all: structural change during iteration (use deferred())",
                                                      type_name<C>())))
        return 0;
    const ComponentTypeID id = ensure_column_factory<C>();
    const C local(value); // `value` may live in a column this call moves
    return detail::StructuralOps::add_all<C>(*this, cache_of<detail::TypeList<>, detail::TypeList<Filters..., Without<C>>>(), id,
                                             local);
}

} // namespace ecs
