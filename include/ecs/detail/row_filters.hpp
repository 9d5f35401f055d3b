/**
 * @file ecs/detail/row_filters.hpp
 * @brief The query cache (QueryCache) and the row tests of enable bits and sparse storage: which runs
 *        of an archetype's rows a query visits.
 *
 * Internal to the query engine (query_engine.hpp includes it). A query run visits, per matching archetype,
 * either every row (nothing disabled there, no sparse type in the query) or the runs of rows that
 * pass: EnableRowTest tests the archetype's disabled bits word by word (enable.hpp), SparseRowTest
 * tests each row's sparse components (sparse.hpp), ChangeFilter / changed_runs the tick columns of
 * Changed / Added (change_detection.hpp). for_each_run / for_each_match hand the runs to a visitor
 * in creation order, then row order.
 *
 * Thread-safety: the tests only read; runs on one world must not overlap with changes to it.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#if !(defined(__GNUC__) || defined(__clang__)) && (defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2))
#  include <emmintrin.h> // the tick scan of Changed / Added (GCC and Clang use vector extensions: no header)
#endif

#include "../archetype.hpp"
#include "../archetype_graph.hpp"
#include "../change_detection.hpp"
#include "../component.hpp"
#include "../config.hpp"
#include "../enable.hpp"
#include "../entity.hpp"
#include "../sparse.hpp"
#include "atomic_slot.hpp"
#include "pod_array.hpp"

namespace ecs::detail {

/// A cached query: its masks and the archetypes that match, extended as archetypes are created.
struct QueryCache {
    ComponentMask include;
    ComponentMask exclude;
    PodArray<Archetype*> archetypes;
    /// Archetypes that have every required type and some excluded one, in creation order:
    /// their rows match where every excluded type they hold is disabled. Next to `archetypes`: every
    /// run tests it (one cache line with `scanned`).
    PodArray<Archetype*> candidates;
    size_t scanned = 0;      ///< archetypes of the graph already tested (the generation seen)
    bool has_sparse = false; ///< a sparse type is required or excluded: rows are tested one by one
    /// Every required type is sparse (and one is): runs walk the smallest required set instead of the
    /// archetypes (detail/sparse_drive.hpp). `archetypes` still lists every archetype then.
    bool sparse_driven = false;
    bool impossible = false; ///< a required type can never be a component (id beyond the bitset)
    bool change_filtered = false;        ///< Changed/Added filters present (handles only)
    PodArray<ComponentTypeID> changed;   ///< the types of Changed<...>
    PodArray<ComponentTypeID> added;     ///< the types of Added<...>
    // what the row-filtered path tests (enable bits, enable.hpp)
    bool include_disabled = false;       ///< IncludeDisabled: disabled entities are visited
    PodArray<ComponentTypeID> required_ids; ///< required terms, With, Changed, Added: must be enabled
    PodArray<ComponentTypeID> excluded_ids; ///< Without: must be absent or disabled
    PodArray<ComponentTypeID> optional_ids; ///< per term position: an Optional term's type, else INVALID_COMPONENT_ID
    // the sparse types, tested per row (table types are in the masks and the lists above)
    PodArray<ComponentTypeID> sparse_required; ///< required terms, With, Changed, Added
    PodArray<ComponentTypeID> sparse_excluded; ///< Without
    PodArray<ComponentTypeID> sparse_changed;  ///< Changed<...> (also in sparse_required)
    PodArray<ComponentTypeID> sparse_added;    ///< Added<...> (also in sparse_required)
    // AnyOf<...> groups: group g is any_ids[any_ends[g - 1] .. any_ends[g]) (from 0 for g = 0);
    // any_sparse[i] is 1 when any_ids[i] is stored sparse. An archetype matches a group holding one
    // of its table types; a group naming a sparse type matches every archetype and is decided per row.
    PodArray<ComponentTypeID> any_ids;
    PodArray<uint32_t> any_ends;
    PodArray<uint8_t> any_sparse;

    /// Adds an AnyOf group of `count` types (`sparse[i]`: type i is stored sparse).
    void add_any_group(const ComponentTypeID* ids, const uint8_t* sparse, size_t count) {
        for (size_t i = 0; i < count; ++i) {
            any_ids.push_back(ids[i]);
            any_sparse.push_back(sparse[i] != 0 ? 1 : 0);
        }
        any_ends.push_back(static_cast<uint32_t>(any_ids.size()));
    }
    /// True when group `g` names a sparse type.
    [[nodiscard]] bool any_group_sparse(size_t g) const noexcept {
        for (uint32_t i = g == 0 ? 0 : any_ends.data()[g - 1]; i < any_ends.data()[g]; ++i)
            if (any_sparse.data()[i] != 0) return true;
        return false;
    }
    /// True when `a` can hold rows passing every AnyOf group (its type set, enable bits aside).
    [[nodiscard]] bool any_groups_match(const Archetype& a) const noexcept {
        uint32_t i = 0;
        for (const uint32_t end : any_ends) {
            bool any = false;
            for (; i < end; ++i)
                any = any || any_sparse.data()[i] != 0 || (any_ids.data()[i] < ECS_MAX_COMPONENTS && a.mask.test(any_ids.data()[i]));
            if (!any) return false;
        }
        return true;
    }

    /// Appends the archetypes created since the last refresh that match.
    ECS_FORCEINLINE void refresh(const ArchetypeGraph& graph) {
        if (ECS_UNLIKELY(scanned != graph.size())) refresh_slow(graph);
    }
    ECS_NOINLINE void refresh_slow(const ArchetypeGraph& graph) {
        for (size_t i = scanned; i < graph.size(); ++i) {
            Archetype* a = graph[i];
            if (impossible || !a->mask.contains(include)) continue;
            if (!any_ends.empty() && !any_groups_match(*a)) continue;
            if (!a->mask.intersects(exclude)) archetypes.push_back(a);
            else candidates.push_back(a);
        }
        scanned = graph.size();
    }
    /// True when some candidate holds disabled rows (then runs merge the candidates in).
    [[nodiscard]] ECS_FORCEINLINE bool candidates_active() const noexcept {
        if (ECS_LIKELY(candidates.empty())) return false;
        for (const Archetype* a : candidates)
            if (a->enable.any()) return true;
        return false;
    }
};

// -- the row-filtered path of enable bits (enable.hpp) ---------------------------------------------------

/**
 * @brief Splits rows of one archetype into maximal runs that pass a query's enable rules: the entity
 *        is enabled (unless IncludeDisabled), every required type is enabled, every excluded type the
 *        archetype holds is disabled. A run also keeps one state for each Optional term (its bit
 *        `absent` is set when the term's type is disabled on the run's rows).
 */
class EnableRowTest {
public:
    static constexpr size_t MAX = 64; // QueryCheck caps terms and required + excluded types at 64

    /// Gathers the bit columns of `arch` that can fail a row. @return false when no row can pass.
    bool prepare(const QueryCache& q, const Archetype& arch) noexcept {
        set_count_ = clear_count_ = optional_count_ = any_count_ = any_groups_ = 0;
        const RowEnable& en = arch.enable;
        // AnyOf groups of table types: a row fails when every alternative the archetype holds is
        // disabled on it; a group with an alternative enabled on every row passes whole. Groups
        // naming a sparse type are SparseRowTest's.
        uint32_t first = 0;
        for (size_t g = 0; g < q.any_ends.size(); ++g) {
            const uint32_t end = q.any_ends.data()[g];
            const size_t mark = any_count_;
            bool whole = q.any_group_sparse(g);
            for (uint32_t i = first; i < end && !whole; ++i) {
                const ComponentTypeID id = q.any_ids.data()[i];
                if (!arch.has(id)) continue;
                const DisabledBits* b = en.column(arch.column_index[id]);
                if (b == nullptr || b->count == 0) whole = true;
                else if (any_count_ < MAX) any_bits_[any_count_++] = b;
            }
            first = end;
            if (whole || any_count_ == mark) {
                any_count_ = mark;
                continue;
            }
            if (any_groups_ < MAX) any_group_end_[any_groups_++] = static_cast<uint32_t>(any_count_);
        }
        if (!q.include_disabled && en.entities().count != 0) fail_if_set_[set_count_++] = &en.entities();
        for (const ComponentTypeID id : q.required_ids) {
            if (!arch.has(id)) continue; // never for a match
            const DisabledBits* b = en.column(arch.column_index[id]);
            if (b != nullptr && b->count != 0 && set_count_ < MAX) fail_if_set_[set_count_++] = b;
        }
        for (const ComponentTypeID id : q.excluded_ids) {
            if (!arch.has(id)) continue;
            const DisabledBits* b = en.column(arch.column_index[id]);
            if (b == nullptr || b->count == 0) return false; // held and enabled on every row
            if (clear_count_ < MAX) fail_if_clear_[clear_count_++] = b;
        }
        for (size_t t = 0; t < q.optional_ids.size() && t < MAX; ++t) {
            const ComponentTypeID id = q.optional_ids.data()[t];
            if (id == INVALID_COMPONENT_ID || !arch.has(id)) continue;
            const DisabledBits* b = en.column(arch.column_index[id]);
            if (b == nullptr || b->count == 0) continue;
            optional_[optional_count_] = b;
            optional_term_[optional_count_++] = static_cast<uint32_t>(t);
        }
        return true;
    }

    /// Calls `visit(arch, begin, count, absent)` for each run in rows [begin, end).
    template <typename Visit>
    void runs(Archetype& arch, size_t begin, size_t end, Visit& visit) const {
        if (set_count_ == 0 && clear_count_ == 0 && optional_count_ == 0 && any_groups_ == 0) {
            if (end > begin) visit(arch, begin, end - begin, uint64_t(0));
            return;
        }
        size_t run_begin = 0;
        size_t run_size = 0;
        uint64_t run_absent = 0;
        for (size_t row = begin; row < end;) {
            const size_t w = row >> 6;
            uint64_t pass = ~uint64_t(0);
            for (size_t i = 0; i < set_count_; ++i) pass &= ~fail_if_set_[i]->word(w);
            for (size_t i = 0; i < clear_count_; ++i) pass &= fail_if_clear_[i]->word(w);
            for (size_t g = 0, i = 0; g < any_groups_; ++g) { // AnyOf: some alternative enabled
                uint64_t all_disabled = ~uint64_t(0);
                for (; i < any_group_end_[g]; ++i) all_disabled &= any_bits_[i]->word(w);
                pass &= ~all_disabled;
            }
            const size_t word_end = (w + 1) * 64 < end ? (w + 1) * 64 : end;
            if (optional_count_ == 0) { // runs of ones and zeros, a count of trailing zeros each
                const size_t limit = word_end - w * 64;
                for (size_t pos = row & 63; pos < limit;) {
                    const uint64_t bits = pass >> pos;
                    if (bits & 1u) {
                        size_t ones = ~bits == 0 ? 64 - pos : trailing_zeros(~bits);
                        if (ones > limit - pos) ones = limit - pos;
                        if (run_size == 0) run_begin = w * 64 + pos;
                        run_size += ones;
                        pos += ones;
                    } else {
                        if (run_size != 0) visit(arch, run_begin, run_size, run_absent);
                        run_size = 0;
                        pos += bits == 0 ? limit - pos : trailing_zeros(bits);
                    }
                }
                row = word_end;
                continue;
            }
            for (; row < word_end; ++row) {
                if (!((pass >> (row & 63)) & 1u)) {
                    if (run_size != 0) visit(arch, run_begin, run_size, run_absent);
                    run_size = 0;
                    continue;
                }
                uint64_t absent = 0;
                for (size_t i = 0; i < optional_count_; ++i)
                    if ((optional_[i]->word(w) >> (row & 63)) & 1u) absent |= uint64_t(1) << optional_term_[i];
                if (run_size != 0 && absent != run_absent) {
                    visit(arch, run_begin, run_size, run_absent);
                    run_size = 0;
                }
                if (run_size == 0) {
                    run_begin = row;
                    run_absent = absent;
                }
                ++run_size;
            }
        }
        if (run_size != 0) visit(arch, run_begin, run_size, run_absent);
    }

    /// Index of the lowest set bit. @pre v != 0
    static size_t trailing_zeros(uint64_t v) noexcept {
#if defined(__GNUC__) || defined(__clang__)
        return static_cast<size_t>(__builtin_ctzll(v));
#else
        size_t n = 0;
        while (!((v >> n) & 1u)) ++n;
        return n;
#endif
    }

private:
    const DisabledBits* fail_if_set_[MAX];   ///< a set bit fails the row
    const DisabledBits* fail_if_clear_[MAX]; ///< a clear bit fails the row
    const DisabledBits* optional_[MAX];      ///< Optional terms with disabled rows here
    uint32_t optional_term_[MAX];            ///< their term positions
    size_t set_count_ = 0;
    size_t clear_count_ = 0;
    size_t optional_count_ = 0;
    const DisabledBits* any_bits_[MAX];      ///< AnyOf alternatives held with disabled rows, by group
    uint32_t any_group_end_[MAX];            ///< group g's bits end at any_group_end_[g]
    size_t any_count_ = 0;
    size_t any_groups_ = 0;
};

/// Calls `fn(arch, candidate)` for every archetype `q` visits, in creation order: its matches, and,
/// while some of them hold disabled rows, its candidates (archetypes holding an excluded type).
template <typename Func>
void for_each_archetype(const QueryCache& q, Func&& fn) {
    if (ECS_LIKELY(!q.candidates_active())) {
        for (Archetype* a : q.archetypes) fn(*a, false);
        return;
    }
    size_t i = 0;
    size_t j = 0;
    const size_t matches = q.archetypes.size();
    const size_t candidates = q.candidates.size();
    while (i < matches || j < candidates) {
        if (j == candidates || (i < matches && q.archetypes.data()[i]->id < q.candidates.data()[j]->id)) {
            fn(*q.archetypes.data()[i++], false);
        } else {
            Archetype* c = q.candidates.data()[j++];
            if (c->enable.any()) fn(*c, true);
        }
    }
}

/// Calls `visit(arch, begin, count, absent)` for every run of rows `q` visits (creation order, then row
/// order). `absent` has bit t set when Optional term t is disabled on the run (0 on the plain path).
template <typename Visit>
void for_each_run(const QueryCache& q, Visit&& visit) {
    for_each_archetype(q, [&](Archetype& a, bool candidate) {
        const size_t n = a.size();
        if (n == 0) return;
        if (ECS_LIKELY(!candidate && !a.enable.any())) {
            visit(a, size_t(0), n, uint64_t(0));
            return;
        }
        EnableRowTest test;
        if (test.prepare(q, a)) test.runs(a, 0, n, visit);
    });
}

/// One run of rows a query visits: `count` rows of `arch` from row `begin`; bit t of `absent` is set
/// when Optional term t is disabled on them.
struct EnabledRun {
    Archetype* arch;
    size_t begin;
    size_t count;
    uint64_t absent;
};

/// Runs a query's callback (`fn`, its type erased) over `n` runs, in order: the one part of the walk
/// below that is compiled per query.
using RunBatch = void (*)(void* fn, const EnabledRun* runs, size_t n);

/**
 * @brief The runs of a query in a world where some enable bit may be set, compiled once for every
 *        query and reached through a stored function.
 *
 * The world's first `ArchetypeGraph::note_disabled()` calls `arm()`, before any bit is set; query runs
 * call `walk()` only while `may_have_disabled()`, so the function is stored whenever it is called.
 * A program that never disables anything never compiles `run` or the row test: every file that
 * includes the library is cheaper to compile. Archetypes with disabled rows go run by run
 * (EnableRowTest), the others whole; the runs reach the query's RunBatch 8 at a time (measured: 64
 * or 256 were slower on runs of one row, 2 or 4 no faster on long runs). Whether a run sees a toggle
 * its own callbacks make to rows it has not reached is unspecified, as for every enable-aware run.
 */
struct EnabledWalk {
    using Fn = void (*)(const QueryCache& q, RunBatch batch, void* fn);

    static void arm() noexcept {
        if (stored.load(detail::order_relaxed) == nullptr) stored.store(&run, detail::order_release);
    }
    /// @pre arm() ran: the world's may_have_disabled().
    static void walk(const QueryCache& q, RunBatch batch, void* fn) { stored.load(detail::order_acquire)(q, batch, fn); }

private:
    static inline AtomicSlot<Fn> stored{nullptr};

    struct Batcher {
        static constexpr size_t CAPACITY = 8;
        Batcher(RunBatch b, void* f) noexcept : batch(b), fn(f) {}
        RunBatch batch;
        void* fn;
        size_t n = 0;
        EnabledRun runs[CAPACITY]; // written before read: not initialised
        void operator()(Archetype& a, size_t begin, size_t count, uint64_t absent) {
            if (n == CAPACITY) flush();
            runs[n++] = EnabledRun{&a, begin, count, absent};
        }
        void flush() {
            if (n != 0) batch(fn, runs, n);
            n = 0;
        }
    };

    static void run(const QueryCache& q, RunBatch batch, void* fn) {
        Batcher b(batch, fn);
        for_each_run(q, b);
        b.flush();
    }
};

// -- the row-by-row path of sparse types (sparse.hpp) ---------------------------------------------------

/**
 * The sparse conditions of one entity slot: in every `required` set (enabled there, and changed or
 * added since `since` where its term asks) and in no `excluded` set (or disabled there). `Required`
 * has `set`, `changed` and `added`. Shared by the row test below and the sparse-driven walk
 * (sparse_drive.hpp).
 */
template <typename Required>
ECS_FORCEINLINE bool passes_sparse_sets(uint32_t index, const Required* required, size_t required_count,
                                        const SparseSet* const* excluded, size_t excluded_count, Tick since) noexcept {
    for (size_t i = 0; i < required_count; ++i) {
        const Required& r = required[i];
        const uint32_t s = r.set->slot_of(index);
        if (s == 0 || r.set->disabled_slot(s - 1)) return false;
        if (r.changed && r.set->changed_tick(s - 1) <= since) return false;
        if (r.added && r.set->added_tick(s - 1) <= since) return false;
    }
    for (size_t i = 0; i < excluded_count; ++i) {
        const uint32_t s = excluded[i]->slot_of(index);
        if (s != 0 && !excluded[i]->disabled_slot(s - 1)) return false;
    }
    return true;
}

/// One alternative of an AnyOf group: a table type (`id`) or a sparse one (`set`, nullptr while no
/// value of it exists).
struct AnyAlternative {
    ComponentTypeID id;
    const SparseSet* set;
    bool sparse;
};

/**
 * The AnyOf groups of one entity: in each group, some alternative present and enabled (a table one
 * in `a` at `row`, `a` null when the entity's record was not read; a sparse one in its set at slot
 * `index`). Group g's alternatives end at `group_end[g]`. Shared by the row test below and the
 * sparse-driven walk (sparse_drive.hpp).
 */
inline bool passes_any_groups(uint32_t index, const Archetype* a, size_t row, const AnyAlternative* any,
                              const uint32_t* group_end, size_t groups) noexcept {
    const bool bits = a != nullptr && a->enable.any();
    for (size_t g = 0, i = 0; g < groups; ++g) {
        bool found = false;
        for (; i < group_end[g]; ++i) {
            if (found) continue;
            const AnyAlternative& alt = any[i];
            if (alt.sparse) {
                const uint32_t s = alt.set != nullptr ? alt.set->slot_of(index) : 0;
                found = s != 0 && !alt.set->disabled_slot(s - 1);
            } else {
                found = a != nullptr && a->has(alt.id) && !(bits && a->enable.disabled(a->column_index[alt.id], row));
            }
        }
        if (!found) return false;
    }
    return true;
}

/**
 * @brief The per-row test of a query's sparse types: every required one present and enabled (and,
 *        under Changed / Added, stamped after `since`), no excluded one present and enabled.
 */
class SparseRowTest {
public:
    static constexpr size_t MAX = 64;

    /// Resolves the sets. @return false when no row can pass (a required type has no set).
    bool prepare(const QueryCache& q, const SparseRoom* room, Tick since) noexcept {
        since_ = since;
        required_count_ = excluded_count_ = any_count_ = any_groups_ = 0;
        // AnyOf groups naming a sparse type: every alternative tested per row (sets resolved here).
        uint32_t first = 0;
        for (size_t g = 0; g < q.any_ends.size(); ++g) {
            const uint32_t end = q.any_ends.data()[g];
            if (q.any_group_sparse(g)) {
                for (uint32_t i = first; i < end && any_count_ < MAX; ++i) {
                    const ComponentTypeID id = q.any_ids.data()[i];
                    any_[any_count_++] = Alternative{id, q.any_sparse.data()[i] != 0 && room != nullptr ? room->set(id) : nullptr,
                                                     q.any_sparse.data()[i] != 0};
                }
                if (any_groups_ < MAX) any_group_end_[any_groups_++] = static_cast<uint32_t>(any_count_);
            }
            first = end;
        }
        for (const ComponentTypeID id : q.sparse_required) {
            const SparseSet* set = room != nullptr ? room->set(id) : nullptr;
            if (set == nullptr) return false;
            if (required_count_ < MAX) required_[required_count_++] = Required{set, in(q.sparse_changed, id), in(q.sparse_added, id)};
        }
        for (const ComponentTypeID id : q.sparse_excluded) {
            const SparseSet* set = room != nullptr ? room->set(id) : nullptr;
            if (set != nullptr && excluded_count_ < MAX) excluded_[excluded_count_++] = set;
        }
        return true;
    }

    [[nodiscard]] ECS_FORCEINLINE bool passes(uint32_t index) const noexcept {
        return passes_sparse_sets(index, required_, required_count_, excluded_, excluded_count_, since_);
    }

    /// passes() for row `row` of `a`, and the AnyOf groups naming sparse types: some alternative
    /// present and enabled (a table one in `a` on this row, a sparse one in its set).
    [[nodiscard]] ECS_FORCEINLINE bool passes(const Archetype& a, size_t row) const noexcept {
        if (!passes(a.entities.data()[row].index)) return false;
        return any_groups_ == 0 || passes_any(a, row);
    }

    /// Splits the run [begin, begin + count) of `a` into the runs of rows that pass.
    template <typename Visit>
    void split(Archetype& a, size_t begin, size_t count, uint64_t absent, Visit& visit) const {
        size_t run_begin = begin;
        size_t run_size = 0;
        for (size_t row = begin; row < begin + count; ++row) {
            if (passes(a, row)) {
                if (run_size == 0) run_begin = row;
                ++run_size;
            } else if (run_size != 0) {
                visit(a, run_begin, run_size, absent);
                run_size = 0;
            }
        }
        if (run_size != 0) visit(a, run_begin, run_size, absent);
    }

private:
    static bool in(const PodArray<ComponentTypeID>& ids, ComponentTypeID id) noexcept {
        for (const ComponentTypeID x : ids)
            if (x == id) return true;
        return false;
    }
    struct Required {
        const SparseSet* set;
        bool changed;
        bool added;
    };
    ECS_NOINLINE bool passes_any(const Archetype& a, size_t row) const noexcept {
        return passes_any_groups(a.entities.data()[row].index, &a, row, any_, any_group_end_, any_groups_);
    }

    using Alternative = AnyAlternative;
    Required required_[MAX] = {};
    const SparseSet* excluded_[MAX] = {};
    size_t required_count_ = 0;
    size_t excluded_count_ = 0;
    Alternative any_[MAX] = {};
    uint32_t any_group_end_[MAX] = {};
    size_t any_count_ = 0;
    size_t any_groups_ = 0;
    Tick since_ = 0;
};

/// Calls `visit(arch, begin, count, absent)` for every run of rows `q` visits: enable rules applied
/// (for_each_run) and, for a query naming sparse types, split by the sparse test.
template <typename Visit>
void for_each_match(const ArchetypeGraph& graph, const QueryCache& q, Visit&& visit) {
    if (ECS_LIKELY(!q.has_sparse)) {
        for_each_run(q, visit);
        return;
    }
    SparseRowTest test;
    if (!test.prepare(q, graph.sparse(), 0)) return;
    for_each_run(q, [&](Archetype& a, size_t begin, size_t count, uint64_t absent) { test.split(a, begin, count, absent, visit); });
}

// -- the rows passing Changed / Added (change_detection.hpp) -------------------------------------------

/// Bit i set when `ticks[i] > since`, for the `count` <= 16 ticks from `ticks` (higher bits clear).
/// A full group with SSE2 where available: 4 compares, no branch per row.
ECS_FORCEINLINE unsigned ticks_after(const Tick* ticks, size_t count, Tick since) noexcept {
#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
    // Vector extensions rather than <emmintrin.h>: the same instructions, and no intrinsics header
    // parsed by every translation unit.
    if (count == 16) {
        typedef uint32_t U4 __attribute__((vector_size(16)));
        typedef int32_t I4 __attribute__((vector_size(16)));
        typedef float F4 __attribute__((vector_size(16)));
        static_assert(sizeof(Tick) == 4, "ticks_after: four ticks per 16 bytes");
        const U4 bound = {since, since, since, since};
        unsigned mask = 0;
        for (unsigned i = 0; i < 4; ++i) {
            U4 v;
            std::memcpy(&v, ticks + 4 * i, sizeof v);
            const I4 after = v > bound; // -1 where the tick is after `since` (unsigned order)
            F4 bits;
            std::memcpy(&bits, &after, sizeof bits);
            mask |= static_cast<unsigned>(__builtin_ia32_movmskps(bits)) << (4 * i);
        }
        return mask;
    }
#elif defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
    if (count == 16) {
        const __m128i bias = _mm_set1_epi32(INT32_MIN); // unsigned order via signed compare
        const __m128i bound = _mm_xor_si128(_mm_set1_epi32(static_cast<int32_t>(since)), bias);
        unsigned mask = 0;
        for (unsigned i = 0; i < 4; ++i) {
            const __m128i v = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(ticks + 4 * i)), bias);
            mask |= static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(v, bound)))) << (4 * i);
        }
        return mask;
    }
#endif
    unsigned mask = 0;
    for (size_t i = 0; i < count; ++i) mask |= static_cast<unsigned>(ticks[i] > since) << i;
    return mask;
}

/**
 * @brief The rows of one archetype that pass a Changed/Added filter with progress `since`.
 *
 * `prepare` fetches the tick columns and says whether the archetype can hold a passing row at all
 * (its per-column bounds); `block(b, ...)` says whether block `b` can (its bounds) and which tick
 * arrays its rows must be tested on (none when every row passes: the block's floors, see TickColumn).
 */
class ChangeFilter {
public:
    static constexpr size_t MAX_LISTED = 16;

    /// `prefetch_rows`: prefetch() asks for the rows of the required columns (else it does nothing).
    ChangeFilter(const QueryCache& q, Tick since, bool prefetch_rows = false) noexcept
        : q_(q), since_(since), prefetch_rows_(prefetch_rows) {}

    bool prepare(const Archetype& arch) noexcept {
        count_ = 0;
        for (size_t i = 0; i < q_.changed.size(); ++i)
            if (!take(arch.ticks_of(q_.changed.data()[i]), true)) return false;
        for (size_t i = 0; i < q_.added.size(); ++i)
            if (!take(arch.ticks_of(q_.added.data()[i]), false)) return false;
        prefetched_ = 0; // the columns of the required types (terms among them), for prefetch()
        if (!prefetch_rows_) return true;
        for (const ComponentTypeID id : q_.required_ids) {
            if (prefetched_ == MAX_PREFETCHED || !arch.has(id)) continue;
            const ComponentColumn& c = arch.column(id);
            if (c.elem_size == 0) continue;
            column_data_[prefetched_] = c.data;
            column_size_[prefetched_++] = c.elem_size;
        }
        return true;
    }
    /// Asks for the first row of a run in every required column (a run about to be visited).
    ECS_FORCEINLINE void prefetch(size_t row) const noexcept {
#if defined(__GNUC__) || defined(__clang__)
        for (size_t i = 0; i < prefetched_; ++i) __builtin_prefetch(column_data_[i] + row * column_size_[i]);
#else
        (void)row;
#endif
    }
    /// @return false when no row of block `b` passes; else `tests` gets the tick columns whose rows
    ///         must be tested (`tested` of them; 0: every row passes).
    bool block(size_t b, const TickColumn** tests, bool* added, size_t& tested) const noexcept {
        tested = 0;
        for (size_t i = 0; i < count_; ++i) {
            if (bounds_[i][b] <= since_) return false;
            if (!added_[i] && columns_[i]->block_floor.data()[b] > since_) continue; // every row changed after since_
            added[tested] = added_[i];
            tests[tested++] = columns_[i];
        }
        return true;
    }
    [[nodiscard]] Tick since() const noexcept { return since_; }
    [[nodiscard]] bool prefetches() const noexcept { return prefetched_ != 0; }

private:
    bool take(const TickColumn* c, bool changed) noexcept {
        if (c == nullptr || (changed ? c->max_changed : c->max_added) <= since_) return false;
        if (count_ < MAX_LISTED) {
            columns_[count_] = c;
            added_[count_] = !changed;
            bounds_[count_] = changed ? c->block_changed.data() : c->block_added.data();
            ++count_;
        }
        return true;
    }

    const QueryCache& q_;
    Tick since_;
    bool prefetch_rows_;
    const TickColumn* columns_[MAX_LISTED] = {};
    bool added_[MAX_LISTED] = {};
    const Tick* bounds_[MAX_LISTED] = {};
    size_t count_ = 0;
    static constexpr size_t MAX_PREFETCHED = 4;
    const uint8_t* column_data_[MAX_PREFETCHED] = {};
    size_t column_size_[MAX_PREFETCHED] = {};
    size_t prefetched_ = 0;
};

/// The maximal runs of rows of `a` passing the prepared change filter: `visit(arch, begin, count)`.
/// Per block of 1,024 rows: skipped on its bounds, passed whole on its floors, else its groups of 16
/// rows are tested on their tops (one mask for the block), and the groups that may pass give their
/// rows from their summary (TickColumn) or, when it does not decide, from their ticks, read 16 at a
/// time (one mask per group and listed type, ANDed); runs are read off the masks with counts of
/// trailing zeros. No branch per row or per failing group.
/// The runs a block ends are visited together after its scan, their first rows prefetched first
/// (when the filter prefetches): the cache misses of scattered short runs overlap instead of
/// stalling one visit each.
template <typename Visit>
void changed_runs(const ChangeFilter& filter, Archetype* a, Visit& visit) {
    constexpr size_t BLOCK = TickColumn::BLOCK_ROWS;
    constexpr size_t BATCH = 64;
    const size_t n = a->size();
    const Tick since = filter.since();
    size_t run_begin = 0;
    size_t run_size = 0;
    // Ended runs wait one block before their visit: `fresh` (this block's, being found) and
    // `ready` (the previous block's, prefetched when they became ready), in row order.
    size_t runs_begin[2][BATCH];
    size_t runs_size[2][BATCH];
    size_t runs_count[2] = {0, 0};
    size_t fresh = 0;
    auto visit_ready = [&] {
        const size_t ready = fresh ^ 1u;
        for (size_t i = 0; i < runs_count[ready]; ++i) visit(*a, runs_begin[ready][i], runs_size[ready][i]);
        runs_count[ready] = 0;
    };
    auto emit = [&] { // the ready runs are visited; the fresh ones become ready
        visit_ready();
        if (filter.prefetches())
            for (size_t i = 0; i < runs_count[fresh]; ++i) filter.prefetch(runs_begin[fresh][i]);
        fresh ^= 1u;
    };
    auto flush = [&] {
        if (run_size == 0) return;
        if (runs_count[fresh] == BATCH) emit();
        runs_begin[fresh][runs_count[fresh]] = run_begin;
        runs_size[fresh][runs_count[fresh]++] = run_size;
        run_size = 0;
    };
    auto extend = [&](size_t begin, size_t count) { // @pre adjacent to the run when it is not empty
        if (run_size == 0) run_begin = begin;
        run_size += count;
    };
    const TickColumn* tests[ChangeFilter::MAX_LISTED];
    bool added[ChangeFilter::MAX_LISTED];
    size_t tested = 0;
    constexpr size_t GROUP = TickColumn::GROUP_ROWS;
    // Bit i: row `row + i` (of group `g`, `len` rows) passes list entry `t`: from the group's summary
    // when it decides, else from the ticks.
    auto group_after = [&](size_t t, size_t g, size_t row, size_t len) -> unsigned {
        const TickColumn& c = *tests[t];
        if (added[t]) return ticks_after(c.added.data() + row, len, since);
        if (c.group_below.data()[g] <= since) return c.group_rows.data()[g];
        return ticks_after(c.changed.data() + row, len, since);
    };
    for (size_t block_begin = 0; block_begin < n; block_begin += BLOCK) {
        const size_t block_end = block_begin + BLOCK < n ? block_begin + BLOCK : n;
        if (!filter.block(block_begin / BLOCK, tests, added, tested)) {
            flush();
            continue;
        }
        if (tested == 0) {
            extend(block_begin, block_end - block_begin);
            continue;
        }
        // The groups of 16 rows that may hold a passing row (their tops), as a mask, then those
        // groups only: no branch per group that fails.
        const size_t first_group = block_begin / GROUP;
        const size_t group_count = (block_end - block_begin + GROUP - 1) / GROUP; // <= 64
        uint64_t candidates = group_count == 64 ? ~uint64_t(0) : (uint64_t(1) << group_count) - 1;
        for (size_t t = 0; t < tested; ++t) {
            if (added[t]) continue; // Added: no group summaries
            const Tick* tops = tests[t]->group_changed.data() + first_group;
            uint64_t after = 0;
            for (size_t g = 0; g < group_count; g += GROUP)
                after |= static_cast<uint64_t>(ticks_after(tops + g, group_count - g < GROUP ? group_count - g : GROUP, since)) << g;
            candidates &= after;
        }
        size_t next_row = block_begin; // rows before it are decided
        for (; candidates != 0; candidates &= candidates - 1) {
            const size_t g = first_group + EnableRowTest::trailing_zeros(candidates);
            const size_t row = g * GROUP;
            const size_t len = block_end - row < GROUP ? block_end - row : GROUP;
            if (row != next_row) flush(); // groups in between hold no passing row
            next_row = row + len;
            unsigned mask = group_after(0, g, row, len);
            for (size_t i = 1; i < tested && mask != 0; ++i) mask &= group_after(i, g, row, len);
            if (mask == (1u << len) - 1) {
                extend(row, len);
                continue;
            }
            for (size_t pos = 0; pos < len;) {
                const unsigned bits = mask >> pos;
                if (bits & 1u) {
                    size_t ones = EnableRowTest::trailing_zeros(~static_cast<uint64_t>(bits));
                    if (ones > len - pos) ones = len - pos;
                    extend(row + pos, ones);
                    pos += ones;
                } else {
                    flush();
                    if (bits == 0) break;
                    pos += EnableRowTest::trailing_zeros(bits);
                }
            }
        }
        if (next_row != block_end) flush();
        emit(); // the run still open at the block's end (if any) comes after these
    }
    flush();
    emit();
    visit_ready();
}

} // namespace ecs::detail
