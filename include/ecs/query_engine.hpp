/**
 * @file ecs/query_engine.hpp
 * @brief The query engine: process-wide signature slots, run-time (id list) queries, the iteration
 *        scope, the access checks of Schedule systems, and QueryEngine, the per-world room of
 *        caches (one per slot) and the iteration depth.
 *
 * The cache itself (QueryCache) and the row tests live in detail/row_filters.hpp; the loops that
 * run a query over the cached archetypes in detail/query_loops.hpp. See query.hpp for the rules.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "archetype.hpp"
#include "archetype_graph.hpp"
#include "component.hpp"
#include "config.hpp"
#include "detail/atomic_slot.hpp"
#include "detail/message.hpp"
#include "detail/pod_array.hpp"
#include "detail/row_filters.hpp"
#include "query_terms.hpp"

namespace ecs {

namespace detail {

// -- the cache ---------------------------------------------------------------------------------------

/// Process-wide dense slot number per query signature.
inline AtomicSlot<uint32_t> next_query_slot{0};

template <typename TermList, typename FilterList>
uint32_t query_slot() noexcept {
    static const uint32_t slot = next_query_slot.fetch_add(1, detail::order_relaxed);
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

// ---- queries built at run time from a list of ids (World::each_raw, for scripting) ----------------

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

// ---- end of the run-time queries -------------------------------------------------------------------

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
inline AtomicSlot<bool> shared_cache_lock{false};

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

    // ---- run-time queries (World::each_raw) -----------------------------------------------------------
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
    // ---- end of the run-time queries ------------------------------------------------------------------

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
        for (RawQuery* r : raw_) r->cache.refresh(graph); // the run-time queries too
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
        return n + raw_.size(); // run-time queries too
    }
    [[nodiscard]] const OwnedArray<QueryCache>& caches() const noexcept { return caches_; }

private:
    /// cache() inside a shared section: the graph does not change, so an existing cache is already
    /// up to date; the lookup itself is locked because another thread may be creating a cache.
    template <typename TermList, typename FilterList>
    ECS_NOINLINE QueryCache& shared_cache(uint32_t slot, const ArchetypeGraph& graph) const {
        while (shared_cache_lock.exchange(true, detail::order_acquire)) {
        }
        if (slot >= caches_.size() || caches_[slot] == nullptr) {
            create<TermList, FilterList>(slot);
            caches_[slot]->refresh(graph);
        }
        QueryCache& q = *caches_[slot];
        shared_cache_lock.store(false, detail::order_release);
        return q;
    }

    template <typename TermList, typename FilterList>
    ECS_NOINLINE void create(uint32_t slot) const {
        using Check = QueryCheck<TermList, FilterList>;
        if (slot >= caches_.size()) caches_.resize(size_t(slot) + 1);
        auto* entry = new QueryCache();
        caches_.set(slot, entry);
        bool ignored = false;
        // sparse types are in no archetype: the masks and the enable lists hold table types only
        set_bits(entry->include, entry->impossible, table_only_t<typename Check::required>{});
        set_bits(entry->exclude, ignored, table_only_t<typename Check::excluded>{}); // a type beyond the bitset is on no entity
        entry->change_filtered = Check::change_filtered;
        push_ids(entry->changed, table_only_t<typename Check::changed>{});
        push_ids(entry->added, table_only_t<typename Check::added>{});
        entry->include_disabled = Check::include_disabled; // the enable rules
        push_ids(entry->required_ids, table_only_t<typename Check::required>{});
        push_ids(entry->excluded_ids, table_only_t<typename Check::excluded>{});
        push_optional_ids(entry->optional_ids, TermList{});
        entry->has_sparse = Check::has_sparse; // rows tested one by one
        entry->sparse_driven = Check::all_sparse; // or the smallest required set walked
        push_ids(entry->sparse_required, sparse_only_t<typename Check::required>{});
        push_ids(entry->sparse_excluded, sparse_only_t<typename Check::excluded>{});
        push_ids(entry->sparse_changed, sparse_only_t<typename Check::changed>{});
        push_ids(entry->sparse_added, sparse_only_t<typename Check::added>{});
        push_any_groups(*entry, typename Check::any_groups{});
    }

    template <typename... Groups>
    static void push_any_groups(QueryCache& q, TypeList<Groups...>) {
        (push_any_group(q, Groups{}), ...);
    }
    template <typename... Ts>
    static void push_any_group(QueryCache& q, TypeList<Ts...>) {
        const ComponentTypeID ids[] = {component_id<Ts>()...};
        const uint8_t sparse[] = {static_cast<uint8_t>(is_sparse_v<Ts> ? 1 : 0)...};
        q.add_any_group(ids, sparse, sizeof...(Ts));
    }

    template <typename... Terms>
    static void push_optional_ids(PodArray<ComponentTypeID>& ids, TypeList<Terms...>) {
        // Optional table terms only: a sparse Optional term and an Up term are fetched per row.
        (ids.push_back(TermTraits<Terms>::optional && !term_per_row_v<Terms> ? component_id<term_component_t<Terms>>()
                                                                                             : INVALID_COMPONENT_ID),
         ...);
    }

    template <typename... Ts>
    static void push_ids(PodArray<ComponentTypeID>& ids, TypeList<Ts...>) {
        (ids.push_back(component_id<Ts>()), ...);
    }

    mutable OwnedArray<QueryCache> caches_;
    mutable OwnedArray<RawQuery> raw_; ///< run-time queries (World::each_raw), creation order
    mutable uint32_t depth_ = 0;
    mutable bool shared_ = false; ///< written only by the thread that opened the section, between parallel runs
};

} // namespace detail

} // namespace ecs
