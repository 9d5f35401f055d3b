/**
 * @file ecs/query_handle.hpp
 * @brief ecs::Chunk (a run of matching rows) and ecs::Query<Terms...> (the handle world.query
 *        returns): each, each_chunk, each_par, count, empty, first. They drive the engine
 *        (query_engine.hpp) through the row loops (detail/query_loops.hpp); users include
 *        <ecs/query.hpp> or <ecs/world.hpp>.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "archetype.hpp"
#include "archetype_graph.hpp"
#include "change_detection.hpp"
#include "component.hpp"
#include "config.hpp"
#include "detail/query_loops.hpp"
#include "detail/row_filters.hpp"
#include "entity.hpp"
#include "query_engine.hpp"
#include "query_terms.hpp"

namespace ecs {

class Executor;

namespace detail {
/// The body of each_par, defined in ecs/each_par.hpp. "Incomplete type EachParRunner" at a call of
/// each_par means: #include <ecs/parallel.hpp> (each_par needs the thread pool's header).
template <typename... Terms>
struct EachParRunner;
} // namespace detail
class World;

/**
 * @brief A run of rows of one archetype that a query matched: the entities and the columns.
 *
 * Valid during the each_chunk callback that received it. For a tag type `get<T>()` returns the one
 * shared object of the type (do not index it).
 *
 * Enable bits: a chunk holds only rows that pass the query's enable rules, and `get<T>()` of an
 * Optional term whose type is disabled on the chunk's rows gives nullptr (the rows are split so that
 * each Optional term is either enabled or disabled on all of a chunk's rows).
 */
class Chunk {
public:
    Chunk(Archetype& arch, size_t begin, size_t count) noexcept : arch_(&arch), begin_(begin), size_(count) {}
    /// A run with Optional terms disabled: bit t of `absent` names term t, whose type is `term_ids[t]`.
    Chunk(Archetype& arch, size_t begin, size_t count, uint64_t absent, const ComponentTypeID* term_ids) noexcept
        : arch_(&arch), begin_(begin), size_(count), absent_(absent), term_ids_(term_ids) {}

    /// Number of rows.
    [[nodiscard]] size_t size() const noexcept { return size_; }
    /// The entities of the rows, `size()` of them.
    [[nodiscard]] const Entity* entities() const noexcept { return arch_->entities.data() + begin_; }
    /// The column of `T` (`const T` gives a read-only pointer), or nullptr when the rows lack `T`.
    template <typename T>
    [[nodiscard]] T* get() const noexcept {
        static_assert(!std::is_pointer_v<T> && !std::is_reference_v<T>, "Chunk::get<T>: T must be a component type");
        const ComponentTypeID id = component_id<T>();
        if (!arch_->has(id) || ECS_UNLIKELY(absent(id))) return nullptr;
        const ComponentColumn& c = arch_->column(id);
        return reinterpret_cast<T*>(c.data + begin_ * c.elem_size);
    }
    /// True when the rows have `T` (and it is not an Optional term disabled on them).
    template <typename T>
    [[nodiscard]] bool has() const noexcept {
        const ComponentTypeID id = component_id<T>();
        return arch_->has(id) && !absent(id);
    }

private:
    [[nodiscard]] bool absent(ComponentTypeID id) const noexcept {
        if (absent_ == 0) return false;
        for (uint64_t bits = absent_; bits != 0; bits &= bits - 1) {
            size_t t = 0;
            while (!((bits >> t) & 1u)) ++t;
            if (term_ids_[t] == id) return true;
        }
        return false;
    }

    Archetype* arch_;
    size_t begin_;
    size_t size_;
    uint64_t absent_ = 0;                      ///< Optional terms disabled on these rows (enable bits)
    const ComponentTypeID* term_ids_ = nullptr; ///< the query's Optional term ids, by term position
};

/**
 * @brief A query handle: `auto q = world.query<Position, const Velocity>(ecs::Without<Frozen>{});`.
 *
 * Cheap to copy (four pointers, a tick and the filter values). Valid while the world it came from lives at the same
 * address (moving the World invalidates its handles). Its runs see archetypes created after the handle
 * was made. Runs are iteration: structural changes inside are refused (use deferred()).
 *
 * Change filters (`Changed<Ts...>{}`, `Added<Ts...>{}`): the handle keeps its progress, the tick of
 * the end of its previous run, in itself. A run (each / each_chunk) visits the rows whose listed types
 * were changed (added) after that, then advances it. A copy starts with the progress of the original
 * at the time of the copy and then goes its own way; two handles from two world.query() calls never
 * share progress. count(), empty() and first() apply the filter without advancing.
 *
 * Value filters (`Related<R>{target}`, `Cascade<R>{}`, relation.hpp): the handle keeps
 * their values (the target entity, the order) in itself; every run, count(), empty() and first()
 * apply them. With Cascade<R> rows are visited in the relationship's order (roots first) instead of
 * archetype order; each_chunk then gets one chunk per run of rows that are adjacent in that order.
 */
template <typename... Terms>
class Query {
public:
    /// A null handle (runs nothing, counts 0). Handles come from World::query.
    Query() noexcept = default;
    Query(detail::QueryEngine& engine, const ArchetypeGraph& graph, detail::QueryCache& cache, World* world = nullptr,
          const detail::FilterValues& values = {}) noexcept
        : engine_(&engine), graph_(&graph), cache_(&cache), world_(world), values_(values) {}

    /// Calls `fn(Entity, terms...)` or `fn(terms...)` for every matching entity, archetype creation
    /// order then row order (a query whose required types are all sparse: the slot order of its
    /// smallest required set, see detail/sparse_drive.hpp).
    template <typename Func>
    void each(Func&& fn) const {
        if (cache_ == nullptr || !detail::terms_access_ok<Terms...>()) return;
        cache_->refresh(*graph_);
        constexpr bool with_entity = detail::takes_entity<Func, Terms...>();
        if (ECS_UNLIKELY(special())) {
            if constexpr (detail::driven_terms_v<Terms...>) {
                if (driven()) { // a change filter on sparse types only: the smallest set's members
                    run_driven_changed<with_entity>(fn);
                    return;
                }
            }
            if (cache_->has_sparse) { // sparse types: rows tested and fetched one by one
                detail::SparseRowTest test;
                if (!test.prepare(*cache_, graph_->sparse(), cache_->change_filtered ? last_run_ : detail::Tick(0))) {
                    if (cache_->change_filtered) advance_without_run();
                    return;
                }
                run_special([&](Archetype& arch, size_t begin, size_t count, uint64_t absent) {
                    detail::run_rows_sparse<with_entity, Terms...>(fn, arch, begin, count, absent, test, graph_->sparse(), world_);
                });
                return;
            }
            detail::CachedColumns<with_entity, Terms...> columns; // change-filtered runs are many and short
            run_special([&](Archetype& arch, size_t begin, size_t count, uint64_t absent) { columns.run(fn, arch, begin, count, absent); });
            return;
        }
        detail::run_query<with_entity, Terms...>(*graph_, *cache_, engine_->scope_depth(), world_, fn);
    }
    /**
     * @brief each, with `fn` running concurrently for different entities through `executor`
     *        (defined in ecs/each_par.hpp, included by ecs/parallel.hpp). `fn(CommandBuffer&, ...)`
     *        gets a per-batch buffer, flushed afterwards in sequential order. See each_par.hpp.
     *        A handle with a Changed/Added filter is refused (its progress is per handle: use each).
     */
    template <typename Func>
    void each_par(Executor& executor, Func&& fn) const {
        if (cache_ == nullptr) return;
        if (!ECS_CHECK(!cache_->change_filtered,
                       "Query::each_par: a handle with a Changed/Added filter is refused (use each)"))
            return;
        detail::EachParRunner<Terms...>::run(*engine_, *graph_, *cache_, world_, executor, fn, values_);
    }
    /// Calls `fn(Chunk&)` once per non-empty matching archetype, in creation order (with a change
    /// filter: once per maximal run of passing rows).
    template <typename Func>
    void each_chunk(Func&& fn) const {
        static_assert(std::is_invocable_v<Func&, Chunk&>, "Query::each_chunk: the callback must be callable as fn(ecs::Chunk&)");
        if (cache_ == nullptr || !detail::terms_access_ok<Terms...>()) return;
        cache_->refresh(*graph_);
        const ComponentTypeID* term_ids = cache_->optional_ids.data();
        if (ECS_UNLIKELY(special())) {
            detail::SparseRowTest test; // sparse types: chunks hold the rows that pass it
            const bool sparse = cache_->has_sparse;
            if (sparse && !test.prepare(*cache_, graph_->sparse(), cache_->change_filtered ? last_run_ : detail::Tick(0))) {
                if (cache_->change_filtered) advance_without_run();
                return;
            }
            run_special([&](Archetype& arch, size_t begin, size_t count, uint64_t absent) {
                auto chunk_of = [&](Archetype& a, size_t b, size_t c, uint64_t off) {
                    if constexpr (!(detail::TermTraits<Terms>::read_only && ...))
                        if (sparse && a.ticks.active())
                            detail::touch_terms_present<Terms...>(a, b, c, off, std::index_sequence_for<Terms...>{});
                    Chunk chunk(a, b, c, off, term_ids);
                    fn(chunk);
                };
                if (sparse) test.split(arch, begin, count, absent, chunk_of);
                else chunk_of(arch, begin, count, absent);
            });
            return;
        }
        detail::IterationScope scope(engine_->scope_depth());
        detail::for_each_match(*graph_, *cache_, [&](Archetype& a, size_t begin, size_t count, uint64_t absent) {
            if constexpr (!(detail::TermTraits<Terms>::read_only && ...))
                if (ECS_UNLIKELY(a.ticks.active()))
                    detail::touch_terms_present<Terms...>(a, begin, count, absent, std::index_sequence_for<Terms...>{});
            Chunk chunk(a, begin, count, absent, term_ids);
            fn(chunk);
        });
    }
    /// Number of matching entities. O(matching archetypes) (O(matching rows) with a change filter).
    [[nodiscard]] size_t count() const {
        if (cache_ == nullptr) return 0;
        cache_->refresh(*graph_);
        size_t n = 0;
        if (driven()) {
            if (cache_->change_filtered && !detail::change_filter_tracked(*cache_, *graph_)) return 0;
            return detail::count_driven(*graph_, *cache_, *world_, progress());
        }
        if (ECS_UNLIKELY(special())) {
            if (cache_->change_filtered && !detail::change_filter_tracked(*cache_, *graph_)) return 0;
            detail::for_each_special_match(world_, *graph_, *cache_, values_, cache_->change_filtered ? &last_run_ : nullptr,
                                           [&](Archetype&, size_t, size_t k, uint64_t) { n += k; });
            return n;
        }
        detail::for_each_match(*graph_, *cache_, [&](Archetype&, size_t, size_t k, uint64_t) { n += k; });
        return n;
    }
    /// True when no entity matches.
    [[nodiscard]] bool empty() const { return first() == INVALID_ENTITY; }
    /// The first matching entity in iteration order, or INVALID_ENTITY.
    [[nodiscard]] Entity first() const {
        if (cache_ == nullptr) return INVALID_ENTITY;
        cache_->refresh(*graph_);
        if (driven()) {
            Entity found = INVALID_ENTITY;
            if (cache_->change_filtered && !detail::change_filter_tracked(*cache_, *graph_)) return found;
            detail::for_each_driven(*graph_, *cache_, *world_, progress(), [&](Entity e, const EntityRecord*) {
                if (found == INVALID_ENTITY) found = e;
            });
            return found;
        }
        if (ECS_UNLIKELY(special())) {
            Entity found = INVALID_ENTITY;
            if (cache_->change_filtered && !detail::change_filter_tracked(*cache_, *graph_)) return found;
            detail::for_each_special_match(world_, *graph_, *cache_, values_, cache_->change_filtered ? &last_run_ : nullptr,
                                           [&](Archetype& a, size_t begin, size_t, uint64_t) {
                                               if (found == INVALID_ENTITY) found = a.entities[begin];
                                           });
            return found;
        }
        Entity found = INVALID_ENTITY;
        detail::for_each_match(*graph_, *cache_, [&](Archetype& a, size_t begin, size_t, uint64_t) {
            if (found == INVALID_ENTITY) found = a.entities[begin];
        });
        return found;
    }

private:
    /// True when runs must look at rows one by one: a change filter, or value filters (relationships).
    [[nodiscard]] bool special() const noexcept { return cache_->change_filtered || values_.active; }
    /// True when runs walk the smallest required set (every required type sparse; value filters,
    /// which order or test rows through the world's relationships, keep the archetype runs).
    [[nodiscard]] bool driven() const noexcept { return cache_->sparse_driven && world_ != nullptr && !values_.active; }
    /// The `since` of a run: the handle's progress under a change filter, else 0.
    [[nodiscard]] detail::Tick progress() const noexcept { return cache_->change_filtered ? last_run_ : detail::Tick(0); }

    /// each with a change filter on a query whose required types are all sparse: the sparse-driven
    /// run since the handle's progress, which then advances (as run_special).
    template <bool WithEntity, typename Func>
    ECS_NOINLINE void run_driven_changed(Func& fn) const {
        if (!detail::change_filter_tracked(*cache_, *graph_)) return;
        {
            detail::IterationScope scope(engine_->scope_depth());
            detail::run_query_driven<WithEntity, Terms...>(*graph_, *cache_, *world_, last_run_, engine_->scope_depth() != nullptr, fn);
        }
        detail::ChangeClock& clock = *graph_->clock(); // tracked types exist, so the clock does
        last_run_ = clock.now;
        ++clock.now;
    }

    /// A run with a change filter and/or value filters. With a change filter: refused (asserted,
    /// nothing visited, progress kept) when a listed type is not tracked; otherwise visits the passing
    /// runs of rows, stamping the mutable terms, then records the end of the run as this handle's
    /// progress and advances the world's clock.
    template <typename Visit>
    ECS_NOINLINE void run_special(Visit&& visit) const {
        const bool changed = cache_->change_filtered;
        if (changed && !detail::change_filter_tracked(*cache_, *graph_)) return;
        const bool outermost = !engine_->shared() && !engine_->iterating();
        {
            detail::IterationScope scope(engine_->scope_depth());
            detail::for_each_value_run(world_, *cache_, values_, changed ? &last_run_ : nullptr, outermost,
                                       [&](Archetype& arch, size_t begin, size_t count, uint64_t absent) {
                                           if constexpr (!(detail::TermTraits<Terms>::read_only && ...))
                                               if (arch.ticks.active() && !cache_->has_sparse) // sparse runs stamp the rows they visit
                                                   detail::touch_terms_present<Terms...>(arch, begin, count, absent,
                                                                                         std::index_sequence_for<Terms...>{});
                                           visit(arch, begin, count, absent);
                                       },
                                       true);
        }
        if (!changed) return;
        detail::ChangeClock& clock = *graph_->clock(); // tracked types exist, so the clock does
        last_run_ = clock.now;
        ++clock.now;
    }
    /// A change-filtered run that cannot visit anything (a required sparse type has no set yet) still
    /// ends: its progress advances as after a run that found nothing.
    ECS_NOINLINE void advance_without_run() const {
        if (!detail::change_filter_tracked(*cache_, *graph_)) return;
        detail::ChangeClock& clock = *graph_->clock();
        last_run_ = clock.now;
        ++clock.now;
    }

    detail::QueryEngine* engine_ = nullptr;
    const ArchetypeGraph* graph_ = nullptr;
    detail::QueryCache* cache_ = nullptr;
    mutable detail::Tick last_run_ = 0; ///< end of the previous change-filtered run (0: never ran)
    World* world_ = nullptr; ///< where each_par flushes command buffers
    detail::FilterValues values_; ///< the values of Related<R>{target} / Cascade<R> filters
};

} // namespace ecs
