/**
 * @file ecs/detail/query_loops.hpp
 * @brief The row loops every query run goes through: fetching a term's column or value, calling the
 *        callback per row (with or without the entity), the cached-column loop, and the drivers
 *        that walk a cache's archetypes (run_query, for_each_match, the change-filtered and
 *        value-filtered runs) inside an iteration scope, and the sparse-driven runs of queries whose
 *        required types are all sparse (run_query_driven, for_each_driven: detail/sparse_drive.hpp).
 *
 * Internal: world.each, the query handle (query_handle.hpp) and each_par run through these.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "../archetype.hpp"
#include "../archetype_graph.hpp"
#include "../change_detection.hpp"
#include "../component.hpp"
#include "../config.hpp"
#include "../enable.hpp"
#include "../entity.hpp"
#include "../entity_index.hpp"
#include "../query_engine.hpp"
#include "../query_terms.hpp"
#include "../sparse.hpp"
#include "pod_array.hpp"
#include "row_filters.hpp"
#include "sparse_drive.hpp"
#include "value_pack.hpp"

namespace ecs {

class World;

namespace detail {

// -- the row loops -------------------------------------------------------------------------------------

template <typename T>
ECS_FORCEINLINE T& element(T* column, size_t row) noexcept {
    if constexpr (is_tag_v<std::remove_const_t<T>>) {
        (void)row;
        return *column;
    } else {
        return column[row];
    }
}

/// The base of `Term`'s column in `arch` (nullptr for an absent Optional term).
template <typename Term>
ECS_FORCEINLINE term_pointer_t<Term> term_column(Archetype& arch) noexcept {
    using P = term_pointer_t<Term>;
    const ComponentTypeID id = component_id<term_component_t<Term>>();
    if constexpr (TermTraits<Term>::up) { // never a column of the row's own archetype (runs go row by row)
        (void)arch;
        (void)id;
        return nullptr;
    } else if constexpr (TermTraits<Term>::optional) {
        return arch.has(id) ? reinterpret_cast<P>(arch.column(id).data) : nullptr;
    } else {
        return reinterpret_cast<P>(arch.column(id).data);
    }
}

/// What the callback receives for `Term` at `row`.
template <typename Term>
ECS_FORCEINLINE term_param_t<Term> term_element(term_pointer_t<Term> column, size_t row) noexcept {
    if constexpr (TermTraits<Term>::optional) {
        if constexpr (is_tag_v<term_component_t<Term>>) {
            (void)row;
            return column;
        } else {
            return column != nullptr ? column + row : nullptr;
        }
    } else {
        return element(column, row);
    }
}

/// `column` advanced to row `begin` (a tag's one object and an absent Optional stay as they are).
template <typename Term>
ECS_FORCEINLINE term_pointer_t<Term> term_offset(term_pointer_t<Term> column, size_t begin) noexcept {
    if constexpr (is_tag_v<term_component_t<Term>>) {
        (void)begin;
        return column;
    } else {
        return column != nullptr ? column + begin : column;
    }
}

/// Whether a callback wants the entity first; one fitting neither form is a readable compile error.
template <typename Func, typename... Terms>
constexpr bool takes_entity() {
    constexpr bool with = std::is_invocable_v<Func&, Entity, term_param_t<Terms>...>;
    static_assert(with || std::is_invocable_v<Func&, term_param_t<Terms>...>,
                  "ecs query: the callback must be callable as fn(Entity, terms...) or fn(terms...), where a term T "
                  "gives T&, const T gives const T&, Optional<T> gives T*");
    return with;
}

template <bool WithEntity, typename... Terms, typename Func>
ECS_FORCEINLINE void run_rows(Func& fn, size_t n, const Entity* entities, term_pointer_t<Terms>... columns) {
    if constexpr (WithEntity) {
        for (size_t i = 0; i < n; ++i) fn(entities[i], term_element<Terms>(columns, i)...);
    } else {
        (void)entities;
        for (size_t i = 0; i < n; ++i) fn(term_element<Terms>(columns, i)...);
    }
}

/// Stamps "changed now" on rows [begin, begin + count) of `arch` for the non-const term `Term`
/// when its type is tracked there. Called once per archetype (or per row for filtered runs).
template <typename Term>
ECS_FORCEINLINE void touch_term(Archetype& arch, size_t begin, size_t count) noexcept {
    if constexpr (!TermTraits<Term>::read_only) {
        if (TickColumn* c = arch.ticks_of(component_id<term_component_t<Term>>())) arch.ticks.touch_range(*c, begin, count);
    } else {
        (void)arch;
        (void)begin;
        (void)count;
    }
}
/// touch_term for every term; the caller has checked `arch.ticks.active()`.
template <typename... Terms>
ECS_NOINLINE void touch_terms(Archetype& arch, size_t begin, size_t count) noexcept {
    (touch_term<Terms>(arch, begin, count), ...);
}

/// touch_term, skipped for an Optional term absent from the run.
template <typename... Terms, size_t... Is>
void touch_terms_present(Archetype& arch, size_t begin, size_t count, uint64_t absent, std::index_sequence<Is...>) noexcept {
    ((((absent >> Is) & 1u) ? void() : touch_term<Terms>(arch, begin, count)), ...);
}

template <bool WithEntity, typename... Terms, typename Func, size_t... Is>
ECS_FORCEINLINE void run_rows_absent(Func& fn, Archetype& a, size_t begin, size_t count, uint64_t absent,
                                     std::index_sequence<Is...>) {
    run_rows<WithEntity, Terms...>(fn, count, a.entities.data() + begin,
                                   (((absent >> Is) & 1u) ? term_pointer_t<Terms>(nullptr)
                                                          : term_offset<Terms>(term_column<Terms>(a), begin))...);
}

/// run_rows_absent for the many short runs of a change-filtered run: the term columns are looked up
/// once per archetype, not once per run.
template <bool WithEntity, typename... Terms>
class CachedColumns {
public:
    template <typename Func>
    ECS_FORCEINLINE void run(Func& fn, Archetype& a, size_t begin, size_t count, uint64_t absent) {
        run_impl(fn, a, begin, count, absent, std::index_sequence_for<Terms...>{});
    }

private:
    template <typename Func, size_t... Is>
    ECS_FORCEINLINE void run_impl(Func& fn, Archetype& a, size_t begin, size_t count, uint64_t absent, std::index_sequence<Is...> seq) {
        if (ECS_UNLIKELY(absent != 0)) { // an Optional term disabled on the run (enable bits)
            run_rows_absent<WithEntity, Terms...>(fn, a, begin, count, absent, seq);
            return;
        }
        if (&a != arch_) {
            arch_ = &a;
            columns_ = ValuesOf<term_pointer_t<Terms>...>(term_column<Terms>(a)...);
        }
        run_rows<WithEntity, Terms...>(fn, count, a.entities.data() + begin, term_offset<Terms>(columns_.template get<Is>(), begin)...);
    }

    Archetype* arch_ = nullptr;
    ValuesOf<term_pointer_t<Terms>...> columns_{};
};

/// Runs `fn` over one run of rows (stamping the mutable terms first).
template <bool WithEntity, typename... Terms, typename Func>
void run_run(Func& fn, Archetype& a, size_t begin, size_t count, uint64_t absent) {
    if constexpr (!(TermTraits<Terms>::read_only && ...))
        if (a.ticks.active()) touch_terms_present<Terms...>(a, begin, count, absent, std::index_sequence_for<Terms...>{});
    run_rows_absent<WithEntity, Terms...>(fn, a, begin, count, absent, std::index_sequence_for<Terms...>{});
}

/// The query's part of the enable-aware walk (EnabledWalk in row_filters.hpp): the callback over each
/// run of a batch, the mutable terms stamped first. `fn` points at a pointer to the callback. The
/// term columns are looked up once per archetype, not once per run; one row loop (CachedColumns
/// would compile two per query).
template <bool WithEntity, typename Func, typename... Terms, size_t... Is>
ECS_FORCEINLINE void run_batch_impl(Func& fn, const EnabledRun* runs, size_t n, std::index_sequence<Is...> seq) {
    const Archetype* arch = nullptr;
    ValuesOf<term_pointer_t<Terms>...> columns{};
    for (size_t i = 0; i < n; ++i) {
        const EnabledRun r = runs[i];
        if (r.arch != arch) {
            arch = r.arch;
            columns = ValuesOf<term_pointer_t<Terms>...>(term_column<Terms>(*r.arch)...);
        }
        if constexpr (!(TermTraits<Terms>::read_only && ...))
            if (r.arch->ticks.active()) touch_terms_present<Terms...>(*r.arch, r.begin, r.count, r.absent, seq);
        run_rows<WithEntity, Terms...>(fn, r.count, r.arch->entities.data() + r.begin,
                                       (((r.absent >> Is) & 1u) ? term_pointer_t<Terms>(nullptr)
                                                                : term_offset<Terms>(columns.template get<Is>(), r.begin))...);
    }
}
template <bool WithEntity, typename Func, typename... Terms>
void run_batch(void* fn, const EnabledRun* runs, size_t n) {
    run_batch_impl<WithEntity, Func, Terms...>(**static_cast<Func**>(fn), runs, n, std::index_sequence_for<Terms...>{});
}

/**
 * An Up / SelfUp term's state on one run: the world to walk, the run's rows, and the answer for the
 * previous row's parent (rows sharing a parent share it: one walk per parent change, not per row).
 * detail/ancestors.hpp reads it (AncestorLookup).
 */
struct UpState {
    const World* world = nullptr;
    const Archetype* archetype = nullptr;
    size_t begin = 0;
    Entity last_parent = INVALID_ENTITY;
    const void* last_value = nullptr;
    bool remembered = false;
    bool resolved = false;           ///< the two below are set (first row of the run)
    const void* parents = nullptr;   ///< ecs::Parent: the run's Parent column (nullptr: read per row)
    const void* relation = nullptr;  ///< a relationship: its index (RelationIndex)
    size_t chain_length = 0;
    Entity chain[64]; ///< the ancestors the last walk passed (64 levels at most)
};

/// The fetch of an Up / SelfUp term: `static const void* fetch(UpState&, size_t i)` (detail/ancestors.hpp).
template <typename Term>
struct AncestorLookup;

/// Where a term's values come from on one run: a table column (from the run's first row) or a set.
template <typename Term, bool Up = TermTraits<Term>::up>
struct TermSource {
    term_pointer_t<Term> column = nullptr;
    SparseSet* set = nullptr;
};
/// An Up / SelfUp term: its walk state.
template <typename Term>
struct TermSource<Term, true> {
    mutable UpState up;
};

template <typename Term>
ECS_FORCEINLINE TermSource<Term> term_source(Archetype& a, size_t begin, bool absent, const SparseRoom* room,
                                             const World* world) noexcept {
    TermSource<Term> source;
    if constexpr (TermTraits<Term>::up) {
        (void)absent;
        (void)room;
        source.up.world = world;
        source.up.archetype = &a;
        source.up.begin = begin;
    } else if constexpr (is_sparse_v<term_component_t<Term>>) {
        (void)world;
        (void)a;
        (void)begin;
        (void)absent;
        source.set = room != nullptr ? room->set(component_id<term_component_t<Term>>()) : nullptr;
    } else {
        (void)room;
        (void)world;
        source.column = absent ? nullptr : term_offset<Term>(term_column<Term>(a), begin);
    }
    return source;
}

/// What the callback receives for `Term` at row `i` of the run (entity slot `index`). A mutable sparse
/// value is stamped changed here when its type is tracked.
template <typename Term>
ECS_FORCEINLINE term_param_t<Term> term_fetch(const TermSource<Term>& source, size_t i, uint32_t index) noexcept {
    using P = term_pointer_t<Term>;
    if constexpr (TermTraits<Term>::up) {
        (void)index;
        return static_cast<P>(AncestorLookup<Term>::fetch(source.up, i));
    } else if constexpr (is_sparse_v<term_component_t<Term>>) {
        (void)i;
        if constexpr (TermTraits<Term>::optional) {
            void* p = source.set != nullptr ? source.set->find(index) : nullptr;
            if (p != nullptr && source.set->disabled(index)) p = nullptr;
            if constexpr (!TermTraits<Term>::read_only)
                if (p != nullptr && source.set->ticks_active()) source.set->touch(index);
            return static_cast<P>(p);
        } else { // passed the row test: the set exists and holds `index`
            void* p = source.set->value_of(index);
            if constexpr (!TermTraits<Term>::read_only)
                if (source.set->ticks_active()) source.set->touch(index);
            return *static_cast<P>(p);
        }
    } else {
        (void)index;
        return term_element<Term>(source.column, i);
    }
}

template <bool WithEntity, bool StampTables, typename... Terms, typename Func, size_t... Is>
void run_rows_sparse_impl(Func& fn, Archetype& a, size_t begin, size_t count, uint64_t absent, const SparseRowTest& test,
                          const SparseRoom* room, const World* world, std::index_sequence<Is...>) {
    (void)room; // no term
    (void)world;
    const Entity* entities = a.entities.data() + begin;
    [&](auto... sources) {
        for (size_t i = 0; i < count; ++i) {
            const Entity e = entities[i];
            if (!test.passes(a, begin + i)) continue;
            if constexpr (StampTables && !(TermTraits<Terms>::read_only && ...))
                if (a.ticks.active()) touch_terms_present<Terms...>(a, begin + i, 1, absent, std::index_sequence_for<Terms...>{});
            if constexpr (WithEntity) fn(e, term_fetch<Terms>(sources, i, e.index)...);
            else fn(term_fetch<Terms>(sources, i, e.index)...);
        }
    }(term_source<Terms>(a, begin, ((absent >> Is) & 1u) != 0, room, world)...);
}

/// Runs `fn` over the rows of one run that pass the sparse test, fetching sparse values (and the
/// ancestors' values of Up terms, from `world`) per row. `StampTables` false: the mutable table terms
/// of tracked types are not stamped here (each_par's workers: the calling thread stamped them).
template <bool WithEntity, typename... Terms, typename Func, bool StampTables = true>
void run_rows_sparse(Func& fn, Archetype& a, size_t begin, size_t count, uint64_t absent, const SparseRowTest& test,
                     const SparseRoom* room, const World* world, std::bool_constant<StampTables> = {}) {
    run_rows_sparse_impl<WithEntity, StampTables, Terms...>(fn, a, begin, count, absent, test, room, world,
                                                            std::index_sequence_for<Terms...>{});
}

// -- the sparse-driven runs (detail/sparse_drive.hpp) -----------------------------------------------------

/// The records of `world`'s entities (defined in detail/world_access.hpp, where World is complete).
inline const PodArray<EntityRecord>& world_records(const World& world) noexcept;

/// True when terms `Terms` allow a sparse-driven run: no required table term (Optional table terms
/// are fetched through the member's record) and no Up term (its walk follows an archetype run).
template <typename... Terms>
inline constexpr bool driven_terms_v =
    !((TermTraits<Terms>::up || (!TermTraits<Terms>::optional && !is_sparse_v<term_component_t<Terms>>)) || ...);

/// Where a term's values come from on a sparse-driven run: its set (a sparse type; nullptr for an
/// Optional one nobody has), and whether that is the driving set (values then found by slot).
template <typename Term>
struct DrivenSource {
    SparseSet* set = nullptr;
    bool driver = false;
};

template <typename Term>
ECS_FORCEINLINE DrivenSource<Term> driven_source(const SparseDrive& drive, const SparseRoom* room) noexcept {
    DrivenSource<Term> source;
    if constexpr (is_sparse_v<term_component_t<Term>>) {
        source.set = room != nullptr ? room->set(component_id<term_component_t<Term>>()) : nullptr;
        source.driver = source.set == &drive.driver();
    } else {
        (void)drive;
        (void)room;
    }
    return source;
}

/// What the callback receives for `Term` on a sparse-driven run, for the member `index` in slot
/// `slot` of the driving set, whose value is at `driver_value` (`record`: its record when the drive
/// read it; `absent`: the term is an Optional table term disabled on the member's row). A mutable
/// value is stamped changed here when its type is tracked (a table one only when `StampTables`).
template <typename Term, bool StampTables>
ECS_FORCEINLINE term_param_t<Term> driven_fetch(const DrivenSource<Term>& source, uint32_t slot, uint32_t index,
                                                const EntityRecord* record, bool absent, void* driver_value) noexcept {
    using P = term_pointer_t<Term>;
    using C = term_component_t<Term>;
    if constexpr (is_sparse_v<C>) {
        (void)record;
        (void)absent;
        if constexpr (TermTraits<Term>::optional) {
            (void)driver_value;
            void* p = source.set != nullptr ? source.set->find(index) : nullptr;
            if (p != nullptr && source.set->disabled(index)) p = nullptr;
            if constexpr (!TermTraits<Term>::read_only)
                if (p != nullptr && source.set->ticks_active()) source.set->touch(index);
            return static_cast<P>(p);
        } else { // passed the drive's test: the set exists and holds `index`
            SparseSet& set = *source.set;
            const uint32_t s = source.driver ? slot : set.slot_of(index) - 1;
            if constexpr (!TermTraits<Term>::read_only)
                if (set.ticks_active()) set.touch_slot(s);
            return *static_cast<P>(source.driver ? driver_value : set.at(s));
        }
    } else { // an Optional table term (driven_terms_v: no other table term gets here)
        (void)source;
        (void)slot;
        (void)index;
        (void)driver_value;
        if (record == nullptr || absent) return nullptr; // the drive reads the record when such a term exists
        Archetype& a = *record->archetype;
        const ComponentTypeID id = component_id<C>();
        if (!a.has(id)) return nullptr;
        if constexpr (StampTables)
            if (a.ticks.active()) touch_term<Term>(a, record->row, 1);
        P column = reinterpret_cast<P>(a.column(id).data);
        if constexpr (is_tag_v<C>) return column;
        else return column + record->row;
    }
}

/// The walk: page by page, the driving set's handles, flags and values read in slot order (a value
/// address advanced by the stride, not looked up per slot). Handles and flags are read through the set
/// at every slot: a callback may add a value, which can move those arrays (never the pages).
template <bool WithEntity, bool StampTables, typename... Terms, typename Func, size_t... Is>
ECS_FORCEINLINE void run_driven_impl(const SparseDrive& drive, const SparseRoom* room, size_t begin, size_t end, Func& fn,
                                     std::index_sequence<Is...>) {
    (void)room; // no term
    const SparseSet& d = drive.driver();
    const size_t page = d.page_slots();
    const size_t stride = d.stride();
    // Two loops: one where membership alone decides (no test, no record), one testing the rest.
    auto walk = [&](auto simple, auto... sources) {
        for (size_t first = begin; first < end;) {
            const size_t page_end = (first / page + 1) * page;
            const size_t last = page_end < end ? page_end : end;
            uint8_t* value = static_cast<uint8_t*>(d.at(static_cast<uint32_t>(first))); // a tag: its one object, stride 0
            for (size_t slot = first; slot < last; ++slot, value += stride) {
                const uint32_t s = static_cast<uint32_t>(slot);
                const Entity e = d.owner(s);
                if (e.index == 0 || d.disabled_slot(s)) continue;
                const EntityRecord* record = nullptr;
                uint64_t absent = 0;
                if constexpr (!decltype(simple)::value)
                    if (!drive.passes_rest(s, e, record, absent)) continue;
                if constexpr (WithEntity)
                    fn(e, driven_fetch<Terms, StampTables>(sources, s, e.index, record, ((absent >> Is) & 1u) != 0, value)...);
                else
                    fn(driven_fetch<Terms, StampTables>(sources, s, e.index, record, ((absent >> Is) & 1u) != 0, value)...);
            }
            first = last;
        }
    };
    if (drive.simple()) walk(std::true_type{}, driven_source<Terms>(drive, room)...);
    else walk(std::false_type{}, driven_source<Terms>(drive, room)...);
}

/// Runs `fn` over the members in slots [begin, end) of `drive`'s driving set that pass. `StampTables`
/// false: Optional table terms are not stamped (each_par runs such a query inline when it would).
template <bool WithEntity, typename... Terms, typename Func, bool StampTables = true>
void run_driven(const SparseDrive& drive, const SparseRoom* room, size_t begin, size_t end, Func& fn,
                std::bool_constant<StampTables> = {}) {
    run_driven_impl<WithEntity, StampTables, Terms...>(drive, room, begin, end, fn, std::index_sequence_for<Terms...>{});
}

/**
 * @brief The sparse-driven run of `q` (@pre q.sparse_driven, driven_terms_v<Terms...>): walks the
 *        smallest required set of `world`, calling `fn` for every member that passes (values
 *        stamped after `since` under Changed / Added). The caller holds the iteration scope.
 * @param pin pin the driving set for the walk (false inside a parallel section, where nobody inserts)
 */
template <bool WithEntity, typename... Terms, typename Func>
ECS_NOINLINE void run_query_driven(const ArchetypeGraph& graph, const QueryCache& q, const World& world, Tick since, bool pin,
                                   Func& fn) {
    SparseDrive drive;
    if (!drive.prepare(q, graph.sparse(), world_records(world), graph.may_have_disabled(), since)) return;
    SparsePin guard(pin ? &drive.driver() : nullptr);
    run_driven<WithEntity, Terms...>(drive, graph.sparse(), 0, drive.end(), fn);
}

/// Calls `visit(Entity, const EntityRecord*)` for every member of `drive`'s driving set that passes,
/// in slot order; the record is nullptr when the drive did not need to read it.
template <typename Visit>
void walk_driven(const SparseDrive& drive, Visit&& visit) {
    const SparseSet& d = drive.driver();
    const bool simple = drive.simple();
    for (size_t slot = 0; slot < drive.end(); ++slot) {
        const uint32_t s = static_cast<uint32_t>(slot);
        const Entity e = d.owner(s);
        if (e.index == 0 || d.disabled_slot(s)) continue;
        const EntityRecord* record = nullptr;
        uint64_t absent = 0;
        if (simple || drive.passes_rest(s, e, record, absent)) visit(e, record);
    }
}

/**
 * @brief Calls `visit(Entity, const EntityRecord*)` for every entity the sparse-driven run of `q`
 *        visits, in its order (first, single). The record is nullptr when the drive did not need to
 *        read it. @pre q.sparse_driven
 */
template <typename Visit>
void for_each_driven(const ArchetypeGraph& graph, const QueryCache& q, const World& world, Tick since, Visit&& visit) {
    SparseDrive drive;
    if (drive.prepare(q, graph.sparse(), world_records(world), graph.may_have_disabled(), since)) walk_driven(drive, visit);
}

/// The number of entities the sparse-driven run of `q` visits: O(1) when membership of the driving
/// set alone decides (its enabled members), else a walk. @pre q.sparse_driven
/// (A template, like every caller of world_records: used only where World is complete.)
template <typename WorldType>
size_t count_driven(const ArchetypeGraph& graph, const QueryCache& q, const WorldType& world, Tick since) {
    SparseDrive drive;
    if (!drive.prepare(q, graph.sparse(), world_records(world), graph.may_have_disabled(), since)) return 0;
    if (drive.simple()) return drive.driver().size() - drive.driver().disabled_count();
    size_t n = 0;
    walk_driven(drive, [&](Entity, const EntityRecord*) { ++n; });
    return n;
}

/// run_query for a query naming sparse types or Up terms: every run (enable rules applied), row by
/// row; a query whose required types are all sparse walks its smallest set instead (run_query_driven).
/// `pin`: not inside a parallel section (see run_query_driven).
template <bool WithEntity, typename... Terms, typename Func>
ECS_NOINLINE void run_query_sparse(const ArchetypeGraph& graph, const QueryCache& q, const World* world, Func& fn, bool pin = true) {
    if constexpr (driven_terms_v<Terms...>) {
        if (q.sparse_driven && world != nullptr) {
            run_query_driven<WithEntity, Terms...>(graph, q, *world, 0, pin, fn);
            return;
        }
    } else {
        (void)pin;
    }
    SparseRowTest test;
    if (!test.prepare(q, graph.sparse(), 0)) return;
    for_each_run(q, [&](Archetype& a, size_t begin, size_t count, uint64_t absent) {
        run_rows_sparse<WithEntity, Terms...>(fn, a, begin, count, absent, test, graph.sparse(), world);
    });
}


/// Runs `fn` over every row of every non-empty archetype of `q`, inside an iteration scope.
/// `graph` says whether any enable bit was ever set in the world (else the plain loop).
/// A query naming a sparse type tests and fetches row by row; so does one with an Up term (its
/// values come from `world`).
/// `MaybeSparse` false: the caller knows at compile time that the filters name no sparse type.
template <bool WithEntity, typename... Terms, typename Func, bool MaybeSparse = true>
void run_query(const ArchetypeGraph& graph, const QueryCache& q, uint32_t* depth, const World* world, Func& fn,
               std::bool_constant<MaybeSparse> = {}) {
    IterationScope scope(depth);
    constexpr bool sparse_terms = (term_per_row_v<Terms> || ...);
    if constexpr (sparse_terms || MaybeSparse) { // `if constexpr`: a query that cannot name a sparse
        if (sparse_terms || ECS_UNLIKELY(q.has_sparse)) { // type does not instantiate the sparse runs
            run_query_sparse<WithEntity, Terms...>(graph, q, world, fn, depth != nullptr);
            return;
        }
    }
    if (ECS_UNLIKELY(graph.may_have_disabled())) { // run by run, through a function the first disable stored
        Func* callback = &fn; // Func may be a function type or const: erased as a pointer to this pointer
        EnabledWalk::walk(q, &run_batch<WithEntity, Func, Terms...>, &callback);
        return;
    }
    Archetype* const* archs = q.archetypes.data();
    const size_t archetype_count = q.archetypes.size();
    for (size_t a = 0; a < archetype_count; ++a) {
        Archetype& arch = *archs[a];
        const size_t n = arch.size();
        if (n == 0) continue;
        if constexpr (!(TermTraits<Terms>::read_only && ...))
            if (ECS_UNLIKELY(arch.ticks.active())) touch_terms<Terms...>(arch, 0, n);
        run_rows<WithEntity, Terms...>(fn, n, arch.entities.data(), term_column<Terms>(arch)...);
    }
}

/// True when every type of the cache's Changed/Added lists is tracked; asserts otherwise.
inline bool change_filter_tracked(const QueryCache& q, const ArchetypeGraph& graph) noexcept {
    for (size_t i = 0; i < q.changed.size(); ++i)
        if (!ECS_CHECK(graph.tracks(q.changed.data()[i]),
                       "Query: Changed<T> lists a type whose changes are not tracked (call world.track_changes<T>() first)"))
            return false;
    for (size_t i = 0; i < q.added.size(); ++i)
        if (!ECS_CHECK(graph.tracks(q.added.data()[i]),
                       "Query: Added<T> lists a type whose changes are not tracked (call world.track_changes<T>() first)"))
            return false;
    for (size_t i = 0; i < q.sparse_changed.size(); ++i) // sparse types: their own ticks
        if (!ECS_CHECK(graph.tracks(q.sparse_changed.data()[i]),
                       "Query: Changed<T> lists a type whose changes are not tracked (call world.track_changes<T>() first)"))
            return false;
    for (size_t i = 0; i < q.sparse_added.size(); ++i)
        if (!ECS_CHECK(graph.tracks(q.sparse_added.data()[i]),
                       "Query: Added<T> lists a type whose changes are not tracked (call world.track_changes<T>() first)"))
            return false;
    return true;
}

/// Calls `visit(arch, begin, count, absent)` for each maximal run of rows of `q` passing the change
/// filter and the enable rules (see for_each_run). `prefetch_rows`: the visits read the rows (a run,
/// not count()): the columns of the passing rows are prefetched (see changed_runs).
template <typename Visit>
void for_each_changed_run(const QueryCache& q, Tick since, Visit&& visit, bool prefetch_rows = false) {
    ChangeFilter filter(q, since, prefetch_rows);
    for_each_archetype(q, [&](Archetype& arch, bool candidate) {
        if (arch.size() == 0 || !filter.prepare(arch)) return;
        if (ECS_LIKELY(!candidate && !arch.enable.any())) {
            auto whole = [&](Archetype& a, size_t begin, size_t count) { visit(a, begin, count, uint64_t(0)); };
            changed_runs(filter, &arch, whole);
            return;
        }
        EnableRowTest test; // each changed run is split further
        if (!test.prepare(q, arch)) return;
        auto split = [&](Archetype& a, size_t begin, size_t count) { test.runs(a, begin, begin + count, visit); };
        changed_runs(filter, &arch, split);
    });
}

/// for_each_changed_run, split by the sparse test for a query naming sparse types (see for_each_match).
template <typename Visit>
void for_each_changed_match(const ArchetypeGraph& graph, const QueryCache& q, Tick since, Visit&& visit) {
    if (ECS_LIKELY(!q.has_sparse)) {
        for_each_changed_run(q, since, visit);
        return;
    }
    SparseRowTest test;
    if (!test.prepare(q, graph.sparse(), since)) return;
    for_each_changed_run(q, since, [&](Archetype& a, size_t begin, size_t count, uint64_t absent) {
        test.split(a, begin, count, absent, visit);
    });
}

// -- runs with value filters (relationships) -------------------------------------------------------------

/**
 * @brief Calls `visit(arch, begin, count, absent)` for each maximal run of rows of `q` that passes the
 *        value filters `values` (and the change filter with progress `*since` when `since` is not null)
 *        and the enable rules, in visiting order: the order's runs when there is one (Cascade<R>), else
 *        archetype then row order. `absent` as in for_each_run. Sparse tests are left to the caller
 *        (for_each_special_match, or a row-by-row run that fetches sparse values).
 * @param world the world of `q` (the tests and the order read its relationships); null only when
 *        `values` is inactive.
 * @param may_reorder no run is in progress around this one (see FilterValues::Order).
 */
template <typename Visit>
void for_each_value_run(World* world, const QueryCache& q, const FilterValues& values, const Tick* since, bool may_reorder,
                        Visit&& visit, bool prefetch_rows = false) {
    auto tested = [&](Archetype& arch, size_t begin, size_t count, uint64_t absent) {
        if (values.test_count == 0) {
            visit(arch, begin, count, absent);
            return;
        }
        size_t run_begin = begin;
        size_t run_size = 0;
        for (size_t row = begin; row < begin + count; ++row) {
            if (values.passes(*world, arch.entities[row])) {
                if (run_size == 0) run_begin = row;
                ++run_size;
            } else if (run_size != 0) {
                visit(arch, run_begin, run_size, absent);
                run_size = 0;
            }
        }
        if (run_size != 0) visit(arch, run_begin, run_size, absent);
    };
    if (values.order != nullptr) {
        const RowRun* runs = nullptr;
        size_t run_count = 0;
        values.order(*world, q, may_reorder, runs, run_count);
        // the order's runs, split by the enable rules (archetypes matching only through a
        // disabled Without type are not in the order: see notes/enable.md)
        for (size_t i = 0; i < run_count; ++i) {
            Archetype& arch = *runs[i].archetype;
            if (ECS_LIKELY(!arch.enable.any())) {
                tested(arch, runs[i].begin, runs[i].count, uint64_t(0));
                continue;
            }
            EnableRowTest test;
            if (test.prepare(q, arch)) test.runs(arch, runs[i].begin, runs[i].begin + runs[i].count, tested);
        }
        return;
    }
    if (since != nullptr) {
        for_each_changed_run(q, *since, tested, prefetch_rows && values.test_count == 0);
        return;
    }
    for_each_run(q, tested);
}

/// for_each_value_run, split by the sparse test for a query naming sparse types (see for_each_match).
template <typename Visit>
void for_each_special_match(World* world, const ArchetypeGraph& graph, const QueryCache& q, const FilterValues& values,
                            const Tick* since, Visit&& visit) {
    if (ECS_LIKELY(!q.has_sparse)) {
        for_each_value_run(world, q, values, since, false, visit);
        return;
    }
    SparseRowTest test;
    if (!test.prepare(q, graph.sparse(), since != nullptr ? *since : Tick(0))) return;
    for_each_value_run(world, q, values, since, false, [&](Archetype& a, size_t begin, size_t count, uint64_t absent) {
        test.split(a, begin, count, absent, visit);
    });
}

/// world.each with active value filters: visits the passing rows, in order, inside an iteration scope
/// (enabled rows only; with sparse types, rows tested and fetched one by one).
template <bool WithEntity, typename... Terms, typename Func>
ECS_NOINLINE void run_valued(World& world, const ArchetypeGraph& graph, const QueryCache& q, const FilterValues& values,
                             uint32_t* depth, Func& fn) {
    const bool outermost = depth != nullptr && *depth == 0;
    IterationScope scope(depth);
    constexpr bool sparse_terms = (term_per_row_v<Terms> || ...);
    if (sparse_terms || q.has_sparse) {
        SparseRowTest test;
        if (!test.prepare(q, graph.sparse(), 0)) return;
        for_each_value_run(&world, q, values, nullptr, outermost, [&](Archetype& arch, size_t begin, size_t count, uint64_t absent) {
            run_rows_sparse<WithEntity, Terms...>(fn, arch, begin, count, absent, test, graph.sparse(), &world);
        });
        return;
    }
    for_each_value_run(&world, q, values, nullptr, outermost, [&](Archetype& arch, size_t begin, size_t count, uint64_t absent) {
        run_run<WithEntity, Terms...>(fn, arch, begin, count, absent);
    });
}


} // namespace detail

} // namespace ecs
