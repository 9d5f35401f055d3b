/**
 * @file ecs/query.hpp
 * @brief The query engine: terms, filters, compile-time checks, the per-world cache of matching
 *        archetypes, chunks, query handles and the row loops every iteration runs.
 *
 * A query is a list of terms (what the callback receives) and filters (what the entity must or must
 * not have, without fetching it):
 *
 * | term               | the entity must | the callback receives       | Chunk::get<T>() gives   |
 * |--------------------|-----------------|-----------------------------|-------------------------|
 * | `T`                | have `T`        | `T&`                        | `T*`                    |
 * | `const T`          | have `T`        | `const T&`                  | `const T*`              |
 * | `Optional<T>`      | nothing         | `T*`, nullptr when absent   | `T*` or nullptr         |
 * | `Optional<const T>`| nothing         | `const T*`                  | `const T*` or nullptr   |
 *
 * Filters: `With<Ts...>{}` (must have every Ts), `Without<Ts...>{}` (must have none; `Exclude` is the
 * same type). Handles (`world.query`) also take `Changed<Ts...>{}` and `Added<Ts...>{}`
 * (change_detection.hpp): must have every Ts, changed / added since the handle's previous run.
 * [relations] `Related<R>{target}`, `Related<R>{}` and `Cascade<R>{}` (relation.hpp) are value filters:
 * objects whose values reach the run through detail::FilterValues (world.each passes its filter
 * objects; a handle stores the values).
 *
 * Change detection: a run stamps "changed now" on the rows it visits for each non-const term whose
 * type is tracked, decided once per archetype (one branch on `Archetype::ticks.active()`).
 *
 * Enable bits (enable.hpp): a disabled component is absent to queries (a term or With skips the row,
 * Without accepts it, Optional gives nullptr) and a disabled entity is skipped unless the query has
 * `IncludeDisabled{}`. Per archetype one branch on `Archetype::enable.any()` decides: while nothing in
 * it is disabled its rows run as one block; otherwise they are split into runs of rows that pass
 * (each_chunk: one chunk per run). Archetypes holding a type of `Without<...>` are kept aside as
 * candidates and visited, in creation order among the others, only while they hold disabled rows.
 *
 * Each distinct (terms, filters) signature gets a process-wide slot number from a function-local
 * static; each world keeps one cache per slot: the masks and the matching archetypes, extended
 * incrementally as archetypes are created (PITFALLS 9, 10). A stable world iterates with no matching,
 * hashing or allocation. Order: archetypes in creation order, rows in row order.
 *
 * Thread-safety: a query run reads the cache and may extend it with archetypes created since its
 * last run; runs on one world must not overlap with structural changes. The iteration depth counter
 * is per world and not atomic: concurrent runs need the parallel room (each_par.hpp, schedule.hpp),
 * which opens a *shared section* on the calling thread (QueryEngine::begin_shared): every cache is
 * brought up to date and the depth is held once for the whole section; inside it, query runs on any
 * thread leave the depth alone, and a cache looked up for the first time is created under a lock.
 *
 * Access checks (debug builds only): while a Schedule system runs, its thread carries the system's
 * declared access (detail::current_access); query and World entry points refuse terms it lacks.
 */
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "archetype.hpp"
#include "archetype_graph.hpp"
#include "change_detection.hpp"
#include "component.hpp"
#include "detail/message.hpp"
#include "detail/pod_array.hpp"
#include "detail/row_filters.hpp"
#include "enable.hpp"
#include "entity.hpp"
#include "sparse.hpp"

namespace ecs {

class World;

/// Query term: the component may be absent; the callback receives a pointer, nullptr when absent.
template <typename T>
struct Optional {
    static_assert(!std::is_pointer_v<T> && !std::is_reference_v<T>,
                  "ecs::Optional<T>: T must be a component type, not a pointer or reference");
};

/// Query filter: the entity must have every one of `Ts` (not fetched).
template <typename... Ts>
struct With {};

/// Query filter: the entity must have none of `Ts`.
template <typename... Ts>
struct Without {};

/// The spec's name for Without: `world.each<A>(Exclude<B, C>{}, fn)`.
template <typename... Ts>
using Exclude = Without<Ts...>;

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

template <typename... Lists>
struct concat {
    using type = TypeList<>;
};
template <typename... A>
struct concat<TypeList<A...>> {
    using type = TypeList<A...>;
};
template <typename... A, typename... B, typename... Rest>
struct concat<TypeList<A...>, TypeList<B...>, Rest...> : concat<TypeList<A..., B...>, Rest...> {};

template <typename List>
struct list_distinct;
template <typename... Ts>
struct list_distinct<TypeList<Ts...>> : distinct<Ts...> {};

template <typename T, typename List>
struct list_contains;
template <typename T, typename... Ts>
struct list_contains<T, TypeList<Ts...>> : std::bool_constant<contains_v<T, Ts...>> {};

template <typename List>
struct list_size;
template <typename... Ts>
struct list_size<TypeList<Ts...>> : std::integral_constant<size_t, sizeof...(Ts)> {};

/// [sparse] The types of a list stored in tables (`Sparse` false) or sparse (`Sparse` true).
template <bool Sparse, typename List>
struct storage_filter;
template <bool Sparse, typename... Ts>
struct storage_filter<Sparse, TypeList<Ts...>> {
    using type = typename concat<std::conditional_t<is_sparse_v<Ts> == Sparse, TypeList<Ts>, TypeList<>>...>::type;
};
template <typename List>
using table_only_t = typename storage_filter<false, List>::type;
template <typename List>
using sparse_only_t = typename storage_filter<true, List>::type;

template <typename A, typename B>
struct lists_disjoint;
template <typename... As, typename B>
struct lists_disjoint<TypeList<As...>, B> : std::bool_constant<!(list_contains<As, B>::value || ...)> {};

// -- terms -------------------------------------------------------------------------------------------

/// What a term asks for: a required `T` / `const T`.
template <typename Term>
struct TermTraits {
    using component = bare_t<Term>;
    using pointer = std::remove_reference_t<Term>*; ///< column base, and Chunk::get's result
    using param = std::remove_reference_t<Term>&;   ///< what the callback receives
    static constexpr bool optional = false;
    static constexpr bool read_only = std::is_const_v<Term>;
    static constexpr bool valid = !std::is_pointer_v<Term> && !std::is_reference_v<Term> && !std::is_array_v<Term>;
};
template <typename T>
struct TermTraits<Optional<T>> {
    using component = std::remove_cv_t<T>;
    using pointer = T*;
    using param = T*;
    static constexpr bool optional = true;
    static constexpr bool read_only = std::is_const_v<T>;
    static constexpr bool valid = !std::is_pointer_v<T> && !std::is_reference_v<T> && !std::is_array_v<T>;
};

template <typename Term>
using term_component_t = typename TermTraits<Term>::component;
template <typename Term>
using term_pointer_t = typename TermTraits<Term>::pointer;
template <typename Term>
using term_param_t = typename TermTraits<Term>::param;

/// The components a term list requires (Optional terms require nothing).
template <typename... Terms>
using required_of_terms_t =
    typename concat<std::conditional_t<TermTraits<Terms>::optional, TypeList<>, TypeList<term_component_t<Terms>>>...>::type;

// -- filters -----------------------------------------------------------------------------------------

template <typename F>
struct FilterTraits {
    static constexpr bool is_filter = false;
    using required = TypeList<>;
    using excluded = TypeList<>;
    using changed = TypeList<>; ///< Changed<Ts...>
    using added = TypeList<>;   ///< Added<Ts...>
    static constexpr unsigned tests = 0;  ///< [relations] row tests its value adds (Related<R>{target})
    static constexpr unsigned orders = 0; ///< [relations] 1 when it orders the rows (Cascade<R>)
    static constexpr bool include_disabled = false; ///< IncludeDisabled (enable.hpp)
};
template <typename... Ts>
struct FilterTraits<With<Ts...>> : FilterTraits<void> {
    static constexpr bool is_filter = true;
    using required = TypeList<bare_t<Ts>...>;
};
template <typename... Ts>
struct FilterTraits<Without<Ts...>> : FilterTraits<void> {
    static constexpr bool is_filter = true;
    using excluded = TypeList<bare_t<Ts>...>;
};
template <typename... Ts>
struct FilterTraits<Changed<Ts...>> : FilterTraits<void> {
    static constexpr bool is_filter = true;
    using required = TypeList<bare_t<Ts>...>;
    using changed = TypeList<bare_t<Ts>...>;
};
template <typename... Ts>
struct FilterTraits<Added<Ts...>> : FilterTraits<void> {
    static constexpr bool is_filter = true;
    using required = TypeList<bare_t<Ts>...>;
    using added = TypeList<bare_t<Ts>...>;
};

template <>
struct FilterTraits<IncludeDisabled> : FilterTraits<void> {
    static constexpr bool is_filter = true;
    static constexpr bool include_disabled = true;
};

template <typename F>
inline constexpr bool is_filter_v = FilterTraits<std::remove_cv_t<std::remove_reference_t<F>>>::is_filter;

/// All but the last type of a pack (the filters before a callback), as a TypeList.
template <typename Acc, typename... Ts>
struct init_impl;
template <typename... Acc, typename T>
struct init_impl<TypeList<Acc...>, T> {
    using type = TypeList<Acc...>;
};
template <typename... Acc, typename T, typename U, typename... Rest>
struct init_impl<TypeList<Acc...>, T, U, Rest...> : init_impl<TypeList<Acc..., std::remove_cv_t<std::remove_reference_t<T>>>, U, Rest...> {};
template <typename... Ts>
using init_t = typename init_impl<TypeList<>, Ts...>::type;

/// The last argument of a pack (the callback after the filters).
template <typename A>
ECS_FORCEINLINE A& last_arg(A& a) noexcept {
    return a;
}
template <typename A, typename B, typename... Rest>
ECS_FORCEINLINE decltype(auto) last_arg(A&, B& b, Rest&... rest) noexcept {
    return last_arg(b, rest...);
}

// -- [relations] value filters: Related<R>{target}, Cascade<R> (relation.hpp) ------------------------

struct QueryCache;

/// Rows [begin, begin + count) of one archetype, in the order a query visits them.
struct RowRun {
    Archetype* archetype;
    size_t begin;
    size_t count;
};

/**
 * @brief The values a query's value filters carry, type-erased so that a `Query<Terms...>` handle
 *        has one type whatever its filters (relation.hpp fills it):
 *        - row tests: `tests[k](world, row_entity, values[k])` must hold for a row to be visited
 *          (`Related<R>{target}`: the row's entity has the pair (R, target));
 *        - an order: `order(world, cache, may_reorder, runs, count)` gives the cache's rows as runs in
 *          the order to visit them (`Cascade<R>`), valid until the next structural or relationship
 *          change. `may_reorder`: no run is in progress around this one, so the order may sort the
 *          rows of the matching archetypes (as World::sort does) to make its runs contiguous.
 * Every other filter is a type only. A run whose values are inactive takes the plain path.
 */
struct FilterValues {
    static constexpr size_t MAX_TESTS = 2;
    using RowTest = bool (*)(const World& world, Entity row, Entity value);
    using Order = void (*)(World& world, const QueryCache& q, bool may_reorder, const RowRun*& runs, size_t& count);

    RowTest tests[MAX_TESTS] = {};
    Entity values[MAX_TESTS] = {};
    uint32_t test_count = 0;
    bool active = false; ///< a test or an order is present
    Order order = nullptr;

    void add_test(RowTest test, Entity value) noexcept {
        tests[test_count] = test;
        values[test_count] = value;
        ++test_count;
        active = true;
    }
    void set_order(Order o) noexcept {
        order = o;
        active = true;
    }
    /// True when `e` passes every row test.
    [[nodiscard]] bool passes(const World& world, Entity e) const {
        for (uint32_t k = 0; k < test_count; ++k)
            if (!tests[k](world, e, values[k])) return false;
        return true;
    }
};

/// Records the value of filter `f` (nothing for filters without one, and for the callback).
template <typename F>
ECS_FORCEINLINE void bind_filter_value(FilterValues& values, const F& f) {
    using Traits = FilterTraits<std::remove_cv_t<std::remove_reference_t<F>>>;
    if constexpr (Traits::tests + Traits::orders != 0) {
        Traits::bind(f, values);
    } else {
        (void)values;
        (void)f;
    }
}
/// The values of the filters among `args` (the callback, when present, is ignored).
template <typename... Args>
FilterValues filter_values(const Args&... args) {
    FilterValues values;
    (bind_filter_value(values, args), ...);
    return values;
}

// -- the compile-time checks ---------------------------------------------------------------------------

template <typename TermList, typename FilterList>
struct QueryCheck;
template <typename... Terms, typename... Filters>
struct QueryCheck<TypeList<Terms...>, TypeList<Filters...>> {
    using required = typename concat<required_of_terms_t<Terms...>, typename FilterTraits<Filters>::required...>::type;
    using excluded = typename concat<typename FilterTraits<Filters>::excluded...>::type;

    static constexpr bool check() {
        static_assert((TermTraits<Terms>::valid && ...),
                      "ecs query: a term must be a component type, not a pointer or reference "
                      "(use ecs::Optional<T> for a component that may be absent)");
        static_assert((FilterTraits<Filters>::is_filter && ...),
                      "ecs query: the arguments before the callback must be filters (ecs::With<...>{}, ecs::Without<...>{}, "
                      "ecs::IncludeDisabled{}, and for world.query only ecs::Changed<...>{}, ecs::Added<...>{})");
        static_assert(sizeof...(Terms) <= 64 && list_size<required>::value + list_size<excluded>::value <= 64,
                      "ecs query: at most 64 terms and 64 required or excluded types");
        static_assert(distinct<term_component_t<Terms>...>::value, "ecs query: a component type is listed twice among the terms");
        static_assert(list_distinct<excluded>::value, "ecs query: a component type is listed twice in Without/Exclude");
        static_assert(lists_disjoint<required, excluded>::value,
                      "ecs query: a component type is both required (term or With) and excluded (Without/Exclude)");
        static_assert(value_tests <= FilterValues::MAX_TESTS, "ecs query: at most 2 Related<R>{target} filters per query");
        static_assert(value_orders <= 1, "ecs query: at most one Cascade<R> filter per query");
        static_assert(value_orders == 0 || !change_filtered, "ecs query: Cascade<R> cannot be combined with Changed/Added");
        return true;
    }
    static constexpr bool read_only = (TermTraits<Terms>::read_only && ...);
    using changed = typename concat<typename FilterTraits<Filters>::changed...>::type;
    using added = typename concat<typename FilterTraits<Filters>::added...>::type;
    /// True when a Changed/Added filter is present (only query handles keep the progress they need).
    static constexpr bool change_filtered = !std::is_same_v<changed, TypeList<>> || !std::is_same_v<added, TypeList<>>;
    /// [relations] Filters carrying a value (Related<R>{target}, Cascade<R>): runs look at FilterValues.
    static constexpr unsigned value_tests = (0u + ... + FilterTraits<Filters>::tests);
    static constexpr unsigned value_orders = (0u + ... + FilterTraits<Filters>::orders);
    static constexpr bool valued = value_tests + value_orders != 0;
    /// True when IncludeDisabled is among the filters.
    static constexpr bool include_disabled = (FilterTraits<Filters>::include_disabled || ...);
    /// [sparse] True when a term or a filter names a sparse type (rows are then tested one by one).
    static constexpr bool has_sparse = list_size<sparse_only_t<required>>::value + list_size<sparse_only_t<excluded>>::value +
                                           (is_sparse_v<term_component_t<Terms>> + ... + 0) != 0;
    /// [sparse] True when a term is a sparse type (its value is fetched per row).
    static constexpr bool sparse_terms = (is_sparse_v<term_component_t<Terms>> || ...);
};

// -- the cache ---------------------------------------------------------------------------------------

/// Process-wide dense slot number per query signature.
inline std::atomic<uint32_t> next_query_slot{0};

template <typename TermList, typename FilterList>
uint32_t query_slot() noexcept {
    static const uint32_t slot = next_query_slot.fetch_add(1, std::memory_order_relaxed);
    return slot;
}

// QueryCache (the cached query): detail/row_filters.hpp, with the enable and sparse row tests.

template <typename... Ts>
void set_bits(ComponentMask& mask, bool& overflow, TypeList<Ts...>) {
    const ComponentTypeID ids[] = {component_id<Ts>()..., 0};
    for (size_t i = 0; i < sizeof...(Ts); ++i) {
        if (ids[i] < ECS_MAX_COMPONENTS) mask.set(ids[i]);
        else overflow = true;
    }
}

// ---- [scripting] begin: queries built at run time from a list of ids (World::each_raw) ----------

/// A query over component ids known only at run time: its id list (the key, in the caller's order)
/// and the cache of the archetypes having every one of them.
struct RawQuery {
    uint64_t key = 0; ///< hash of `ids`
    PodArray<ComponentTypeID> ids;
    QueryCache cache;
};

/// Hash of an id list (FNV-1a over the ids, order included).
inline uint64_t raw_query_key(const ComponentTypeID* ids, size_t count) noexcept {
    uint64_t h = 1469598103934665603ull ^ count;
    for (size_t i = 0; i < count; ++i) {
        h ^= ids[i];
        h *= 1099511628211ull;
    }
    return h;
}

// ---- [scripting] end -------------------------------------------------------------------------------

/// Counts nested iteration; a depth, not a bool, so a nested query does not clear the outer guard.
/// A null depth (inside a shared section, whose opener holds the depth) counts nothing.
struct IterationScope {
    explicit IterationScope(uint32_t* depth) noexcept : depth_(depth) {
        if (depth_ != nullptr) ++*depth_;
    }
    ~IterationScope() {
        if (depth_ != nullptr) --*depth_;
    }
    IterationScope(const IterationScope&) = delete;
    IterationScope& operator=(const IterationScope&) = delete;
    uint32_t* depth_;
};

/// Serialises cache creation inside shared sections (process-wide: contention is rare, and a
/// per-world lock would make World immovable).
inline std::atomic_flag shared_cache_lock = ATOMIC_FLAG_INIT;

// -- access checks (Schedule systems, debug builds) ------------------------------------------------

/// The components a running Schedule system declared (schedule.hpp installs it on its thread).
struct SystemAccess {
    const char* system = "";
    ComponentMask reads;  ///< readable (writes are readable too)
    ComponentMask writes; ///< writable
};

#if ECS_ASSERT_ENABLED
/// The access of the Schedule system running on this thread, or nullptr (no check).
inline thread_local const SystemAccess* current_access = nullptr;

ECS_NOINLINE inline bool access_refused(ComponentTypeID id, bool write, std::string_view type) {
    const SystemAccess& a = *current_access;
    const bool ok = id < ECS_MAX_COMPONENTS && (write ? a.writes.test(id) : (a.reads.test(id) || a.writes.test(id)));
    return !ECS_CHECK(ok, format_message("Schedule: system \"%s\" %s undeclared component [%.*s] (declare it in Reads/Writes)",
                                         a.system, write ? "writes" : "reads", static_cast<int>(type.size()), type.data()));
}
#endif

/// True when the running Schedule system (if any) declared access to `T` (`const T`: read, else
/// write). Always true in release builds and outside Schedule systems.
template <typename T>
ECS_FORCEINLINE bool access_ok() {
#if ECS_ASSERT_ENABLED
    if (ECS_UNLIKELY(current_access != nullptr))
        return !access_refused(component_id<bare_t<T>>(), !std::is_const_v<T>, type_name<bare_t<T>>());
#endif
    return true;
}
/// access_ok for every term of a query (Optional<T> checks T).
template <typename... Terms>
ECS_FORCEINLINE bool terms_access_ok() {
#if ECS_ASSERT_ENABLED
    if (ECS_UNLIKELY(current_access != nullptr))
        return (access_ok<std::conditional_t<TermTraits<Terms>::read_only, const term_component_t<Terms>, term_component_t<Terms>>>() && ...);
#endif
    return true;
}

/**
 * @brief The query room of one world: a cache per signature slot, and the iteration depth that makes
 *        structural changes during a run refusable.
 */
class QueryEngine {
public:
    /// The cache of signature (TermList, FilterList), created on first use and brought up to date.
    template <typename TermList, typename FilterList>
    QueryCache& cache(const ArchetypeGraph& graph) const {
        const uint32_t slot = query_slot<TermList, FilterList>();
        if (ECS_UNLIKELY(shared_)) return shared_cache<TermList, FilterList>(slot, graph);
        if (ECS_UNLIKELY(slot >= caches_.size() || caches_[slot] == nullptr)) create<TermList, FilterList>(slot);
        QueryCache& q = *caches_[slot];
        q.refresh(graph);
        return q;
    }

    // ---- [scripting] begin ----------------------------------------------------------------------------
    /// The cache of the run-time query requiring every id of `ids` (World::each_raw), found by its id
    /// list (a hash and a comparison; no allocation once created) and brought up to date.
    /// @pre the ids are distinct and below ECS_MAX_COMPONENTS; not inside a shared section.
    QueryCache& raw_cache(const ComponentTypeID* ids, size_t count, const ArchetypeGraph& graph) const {
        const uint64_t key = raw_query_key(ids, count);
        for (RawQuery* r : raw_) {
            if (r->key != key || r->ids.size() != count) continue;
            bool same = true;
            for (size_t i = 0; i < count && same; ++i) same = r->ids[i] == ids[i];
            if (!same) continue;
            r->cache.refresh(graph);
            return r->cache;
        }
        raw_.reserve_one();
        auto* r = new RawQuery();
        r->key = key;
        r->ids.assign(ids, count);
        for (size_t i = 0; i < count; ++i) r->cache.include.set(ids[i]);
        raw_.push_back(r);
        r->cache.refresh(graph);
        return r->cache;
    }
    // ---- [scripting] end ------------------------------------------------------------------------------

    [[nodiscard]] uint32_t& depth() const noexcept { return depth_; }
    /// What a query run's IterationScope counts: the depth, or nullptr inside a shared section.
    [[nodiscard]] uint32_t* scope_depth() const noexcept { return shared_ ? nullptr : &depth_; }
    [[nodiscard]] bool iterating() const noexcept { return depth_ != 0; }

    /**
     * @brief Opens a shared section on the calling thread: brings every cache up to date and holds
     *        the iteration depth once, so that query runs on other threads only read. Structural
     *        changes are refused until end_shared(). @pre Not already shared; called by one thread.
     */
    void begin_shared(const ArchetypeGraph& graph) const {
        for (QueryCache* q : caches_)
            if (q != nullptr) q->refresh(graph);
        for (RawQuery* r : raw_) r->cache.refresh(graph); // [scripting]
        ++depth_;
        shared_ = true;
    }
    /// @brief Closes the section begin_shared opened (same thread, after every worker finished).
    void end_shared() const noexcept {
        shared_ = false;
        --depth_;
    }
    /// @brief True inside a shared section.
    [[nodiscard]] bool shared() const noexcept { return shared_; }
    /// Number of signatures this world has a cache for.
    [[nodiscard]] size_t cached_count() const noexcept {
        size_t n = 0;
        for (const QueryCache* q : caches_) n += q != nullptr ? 1 : 0;
        return n + raw_.size(); // [scripting] run-time queries too
    }
    [[nodiscard]] const OwnedArray<QueryCache>& caches() const noexcept { return caches_; }

private:
    /// cache() inside a shared section: the graph does not change, so an existing cache is already
    /// up to date; the lookup itself is locked because another thread may be creating a cache.
    template <typename TermList, typename FilterList>
    ECS_NOINLINE QueryCache& shared_cache(uint32_t slot, const ArchetypeGraph& graph) const {
        while (shared_cache_lock.test_and_set(std::memory_order_acquire)) {
        }
        if (slot >= caches_.size() || caches_[slot] == nullptr) {
            create<TermList, FilterList>(slot);
            caches_[slot]->refresh(graph);
        }
        QueryCache& q = *caches_[slot];
        shared_cache_lock.clear(std::memory_order_release);
        return q;
    }

    template <typename TermList, typename FilterList>
    ECS_NOINLINE void create(uint32_t slot) const {
        using Check = QueryCheck<TermList, FilterList>;
        if (slot >= caches_.size()) caches_.resize(size_t(slot) + 1);
        auto* entry = new QueryCache();
        caches_.set(slot, entry);
        bool ignored = false;
        // [sparse] sparse types are in no archetype: the masks and the enable lists hold table types only
        set_bits(entry->include, entry->impossible, table_only_t<typename Check::required>{});
        set_bits(entry->exclude, ignored, table_only_t<typename Check::excluded>{}); // a type beyond the bitset is on no entity
        entry->change_filtered = Check::change_filtered;
        push_ids(entry->changed, table_only_t<typename Check::changed>{});
        push_ids(entry->added, table_only_t<typename Check::added>{});
        entry->include_disabled = Check::include_disabled; // [enable]
        push_ids(entry->required_ids, table_only_t<typename Check::required>{});
        push_ids(entry->excluded_ids, table_only_t<typename Check::excluded>{});
        push_optional_ids(entry->optional_ids, TermList{});
        entry->has_sparse = Check::has_sparse; // [sparse]
        push_ids(entry->sparse_required, sparse_only_t<typename Check::required>{});
        push_ids(entry->sparse_excluded, sparse_only_t<typename Check::excluded>{});
        push_ids(entry->sparse_changed, sparse_only_t<typename Check::changed>{});
        push_ids(entry->sparse_added, sparse_only_t<typename Check::added>{});
    }

    template <typename... Terms>
    static void push_optional_ids(PodArray<ComponentTypeID>& ids, TypeList<Terms...>) {
        // Optional table terms only: a sparse Optional term is fetched per row (and checked there).
        (ids.push_back(TermTraits<Terms>::optional && !is_sparse_v<term_component_t<Terms>> ? component_id<term_component_t<Terms>>()
                                                                                             : INVALID_COMPONENT_ID),
         ...);
    }

    template <typename... Ts>
    static void push_ids(PodArray<ComponentTypeID>& ids, TypeList<Ts...>) {
        (ids.push_back(component_id<Ts>()), ...);
    }

    mutable OwnedArray<QueryCache> caches_;
    mutable OwnedArray<RawQuery> raw_; ///< [scripting] run-time queries (World::each_raw), creation order
    mutable uint32_t depth_ = 0;
    mutable bool shared_ = false; ///< written only by the thread that opened the section, between parallel runs
};

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
    if constexpr (TermTraits<Term>::optional) {
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
        if (TickColumn* c = arch.ticks_of(component_id<term_component_t<Term>>())) c->touch_range(begin, count, arch.ticks.now());
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
        if (ECS_UNLIKELY(absent != 0)) { // [enable] an Optional term disabled on the run
            run_rows_absent<WithEntity, Terms...>(fn, a, begin, count, absent, seq);
            return;
        }
        if (&a != arch_) {
            arch_ = &a;
            columns_ = std::tuple<term_pointer_t<Terms>...>(term_column<Terms>(a)...);
        }
        run_rows<WithEntity, Terms...>(fn, count, a.entities.data() + begin, term_offset<Terms>(std::get<Is>(columns_), begin)...);
    }

    Archetype* arch_ = nullptr;
    std::tuple<term_pointer_t<Terms>...> columns_{};
};

/// Runs `fn` over one run of rows (stamping the mutable terms first).
template <bool WithEntity, typename... Terms, typename Func>
void run_run(Func& fn, Archetype& a, size_t begin, size_t count, uint64_t absent) {
    if constexpr (!(TermTraits<Terms>::read_only && ...))
        if (a.ticks.active()) touch_terms_present<Terms...>(a, begin, count, absent, std::index_sequence_for<Terms...>{});
    run_rows_absent<WithEntity, Terms...>(fn, a, begin, count, absent, std::index_sequence_for<Terms...>{});
}

/// The rows of one archetype with disabled rows, run by run.
template <bool WithEntity, typename... Terms, typename Func>
ECS_NOINLINE void run_archetype_filtered(const QueryCache& q, Archetype& arch, Func& fn) {
    EnableRowTest test;
    if (!test.prepare(q, arch)) return;
    auto visit = [&](Archetype& a, size_t begin, size_t count, uint64_t absent) {
        run_run<WithEntity, Terms...>(fn, a, begin, count, absent);
    };
    test.runs(arch, 0, arch.size(), visit);
}

/// run_query in a world where some bit may be set: archetypes with disabled rows run by run, and
/// candidates (archetypes holding a Without type) join in while they hold disabled rows.
template <bool WithEntity, typename... Terms, typename Func>
ECS_NOINLINE void run_query_enabled(const QueryCache& q, Func& fn) {
    if (q.candidates_active()) { // a Without type is disabled somewhere
        for_each_run(q, [&](Archetype& a, size_t begin, size_t count, uint64_t absent) {
            run_run<WithEntity, Terms...>(fn, a, begin, count, absent);
        });
        return;
    }
    for (Archetype* a : q.archetypes) {
        Archetype& arch = *a;
        const size_t n = arch.size();
        if (n == 0) continue;
        if (arch.enable.any()) { // disabled rows here: run by run
            run_archetype_filtered<WithEntity, Terms...>(q, arch, fn);
            continue;
        }
        if constexpr (!(TermTraits<Terms>::read_only && ...))
            if (ECS_UNLIKELY(arch.ticks.active())) touch_terms<Terms...>(arch, 0, n);
        run_rows<WithEntity, Terms...>(fn, n, arch.entities.data(), term_column<Terms>(arch)...);
    }
}

/// Where a term's values come from on one run: a table column (from the run's first row) or a set.
template <typename Term>
struct TermSource {
    term_pointer_t<Term> column = nullptr;
    SparseSet* set = nullptr;
};

template <typename Term>
ECS_FORCEINLINE TermSource<Term> term_source(Archetype& a, size_t begin, bool absent, const SparseRoom* room) noexcept {
    TermSource<Term> source;
    if constexpr (is_sparse_v<term_component_t<Term>>) {
        (void)a;
        (void)begin;
        (void)absent;
        source.set = room != nullptr ? room->set(component_id<term_component_t<Term>>()) : nullptr;
    } else {
        (void)room;
        source.column = absent ? nullptr : term_offset<Term>(term_column<Term>(a), begin);
    }
    return source;
}

/// What the callback receives for `Term` at row `i` of the run (entity slot `index`). A mutable sparse
/// value is stamped changed here when its type is tracked.
template <typename Term>
ECS_FORCEINLINE term_param_t<Term> term_fetch(const TermSource<Term>& source, size_t i, uint32_t index) noexcept {
    using P = term_pointer_t<Term>;
    if constexpr (is_sparse_v<term_component_t<Term>>) {
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

template <bool WithEntity, typename... Terms, typename Func, size_t... Is>
void run_rows_sparse_impl(Func& fn, Archetype& a, size_t begin, size_t count, uint64_t absent, const SparseRowTest& test,
                          const SparseRoom* room, std::index_sequence<Is...>) {
    (void)room; // no term
    const Entity* entities = a.entities.data() + begin;
    [&](auto... sources) {
        for (size_t i = 0; i < count; ++i) {
            const Entity e = entities[i];
            if (!test.passes(e.index)) continue;
            if constexpr (!(TermTraits<Terms>::read_only && ...))
                if (a.ticks.active()) touch_terms_present<Terms...>(a, begin + i, 1, absent, std::index_sequence_for<Terms...>{});
            if constexpr (WithEntity) fn(e, term_fetch<Terms>(sources, i, e.index)...);
            else fn(term_fetch<Terms>(sources, i, e.index)...);
        }
    }(term_source<Terms>(a, begin, ((absent >> Is) & 1u) != 0, room)...);
}

/// Runs `fn` over the rows of one run that pass the sparse test, fetching sparse values per row.
template <bool WithEntity, typename... Terms, typename Func>
void run_rows_sparse(Func& fn, Archetype& a, size_t begin, size_t count, uint64_t absent, const SparseRowTest& test,
                     const SparseRoom* room) {
    run_rows_sparse_impl<WithEntity, Terms...>(fn, a, begin, count, absent, test, room, std::index_sequence_for<Terms...>{});
}

/// run_query for a query naming sparse types: every run (enable rules applied), row by row.
template <bool WithEntity, typename... Terms, typename Func>
ECS_NOINLINE void run_query_sparse(const ArchetypeGraph& graph, const QueryCache& q, Func& fn) {
    SparseRowTest test;
    if (!test.prepare(q, graph.sparse(), 0)) return;
    for_each_run(q, [&](Archetype& a, size_t begin, size_t count, uint64_t absent) {
        run_rows_sparse<WithEntity, Terms...>(fn, a, begin, count, absent, test, graph.sparse());
    });
}


/// Runs `fn` over every row of every non-empty archetype of `q`, inside an iteration scope.
/// [enable] `graph` says whether any enable bit was ever set in the world (else the plain loop).
/// [sparse] A query naming a sparse type tests and fetches row by row.
/// `MaybeSparse` false: the caller knows at compile time that the filters name no sparse type.
template <bool WithEntity, typename... Terms, typename Func, bool MaybeSparse = true>
void run_query(const ArchetypeGraph& graph, const QueryCache& q, uint32_t* depth, Func& fn,
               std::bool_constant<MaybeSparse> = {}) {
    IterationScope scope(depth);
    constexpr bool sparse_terms = (is_sparse_v<term_component_t<Terms>> || ...);
    if (sparse_terms || (MaybeSparse && ECS_UNLIKELY(q.has_sparse))) {
        run_query_sparse<WithEntity, Terms...>(graph, q, fn);
        return;
    }
    if (ECS_UNLIKELY(graph.may_have_disabled())) {
        run_query_enabled<WithEntity, Terms...>(q, fn);
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
    for (size_t i = 0; i < q.sparse_changed.size(); ++i) // [sparse]
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
        EnableRowTest test; // [enable] each changed run is split further
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

// -- [relations] runs with value filters ----------------------------------------------------------------

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
        // [enable] the order's runs, split by the enable rules (archetypes matching only through a
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
/// ([enable] enabled rows only; [sparse] rows tested and fetched one by one).
template <bool WithEntity, typename... Terms, typename Func>
ECS_NOINLINE void run_valued(World& world, const ArchetypeGraph& graph, const QueryCache& q, const FilterValues& values,
                             uint32_t* depth, Func& fn) {
    const bool outermost = depth != nullptr && *depth == 0;
    IterationScope scope(depth);
    constexpr bool sparse_terms = (is_sparse_v<term_component_t<Terms>> || ...);
    if (sparse_terms || q.has_sparse) {
        SparseRowTest test;
        if (!test.prepare(q, graph.sparse(), 0)) return;
        for_each_value_run(&world, q, values, nullptr, outermost, [&](Archetype& arch, size_t begin, size_t count, uint64_t absent) {
            run_rows_sparse<WithEntity, Terms...>(fn, arch, begin, count, absent, test, graph.sparse());
        });
        return;
    }
    for_each_value_run(&world, q, values, nullptr, outermost, [&](Archetype& arch, size_t begin, size_t count, uint64_t absent) {
        run_run<WithEntity, Terms...>(fn, arch, begin, count, absent);
    });
}

} // namespace detail

} // namespace ecs

#include "query_handle.hpp" // ecs::Chunk and ecs::Query<Terms...>, the query handle
