/**
 * @file ecs/each_par.hpp
 * @brief Parallel iteration: `q.each_par(executor, fn)` and `world.each_par<Terms...>(executor,
 *        Filters..., fn)` (ROADMAP 1.0 E). Included by ecs/parallel.hpp; includes no thread library.
 *
 * `fn` has the forms of each, `fn(Entity, terms...)` or `fn(terms...)`, or either with a
 * `CommandBuffer&` first. It runs concurrently for different entities and may write its non-const
 * terms (each entity's row is visited by exactly one call).
 *
 * How the work is split: the rows of the matching archetypes are cut into batches of
 * `max(kMinBatchRows, total / (concurrency * 4))` rows; a batch never spans two archetypes. When the
 * executor's concurrency is 1 or the query has no more rows than one batch, each_par is a plain
 * sequential each on the calling thread (same code path, same cost).
 *
 * Rules:
 * - Structural changes inside `fn` are refused (asserted): the calling thread holds the world's
 *   iteration guard for the whole run (a *shared section*, see query.hpp); workers never touch it.
 * - Inside `fn`, besides its own terms, it is safe to read components through get/try_get/each/query
 *   (the caches are up to date and locked on first use) as long as no call writes what another reads.
 *   Deferred commands go through the CommandBuffer form, not world.deferred() (not thread-safe).
 * - `fn(CommandBuffer&, ...)`: every batch records into its own buffer; after the loop the buffers
 *   are flushed into the world in batch order (archetype order, then row order), which is the order
 *   a sequential each would have recorded them: the world ends as after a sequential each whose
 *   commands were deferred and flushed. @pre for this form: the world is not iterating (a flush
 *   during iteration is refused, and the commands are then dropped with the buffers).
 * - The result equals a sequential each.
 */
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>
#include <vector>

#include "command_buffer.hpp"
#include "executor.hpp"
#include "query.hpp"
#include "world.hpp"

namespace ecs {

namespace detail {

/// Smallest batch each_par hands to a worker: below this, a batch costs more to schedule than it saves.
inline constexpr size_t kMinBatchRows = 1024;

/// The rows of one archetype a batch covers.
struct RowBatch {
    Archetype* archetype;
    size_t begin;
    size_t count;
    uint64_t absent; ///< Optional terms disabled on these rows (see for_each_run)
};

/// Whether `fn` takes the entity: for the CommandBuffer forms, whether the Entity follows the buffer.
template <bool Buffer, typename Func, typename... Terms>
constexpr bool parallel_takes_entity() {
    if constexpr (Buffer) return std::is_invocable_v<Func&, CommandBuffer&, Entity, term_param_t<Terms>...>;
    else return takes_entity<Func, Terms...>(); // a readable error for a callback of no known form
}

/// How `fn` wants to be called: with a CommandBuffer& first or not, with the Entity or not.
template <typename Func, typename... Terms>
struct ParallelCallback {
    static constexpr bool buffer = std::is_invocable_v<Func&, CommandBuffer&, Entity, term_param_t<Terms>...> ||
                                   std::is_invocable_v<Func&, CommandBuffer&, term_param_t<Terms>...>;
    static constexpr bool entity = parallel_takes_entity<buffer, Func, Terms...>();
};

/// The column of `Term` from row `begin` on (tags and absent Optional terms stay as they are).
template <typename Term>
ECS_FORCEINLINE term_pointer_t<Term> offset_column(term_pointer_t<Term> column, size_t begin) noexcept {
    if constexpr (is_tag_v<term_component_t<Term>>) {
        (void)begin;
        return column;
    } else {
        return column == nullptr ? nullptr : column + begin;
    }
}

/// Calls `fn` for `n` rows starting at `begin`, handing `cb` first when the callback wants it.
template <bool Buffer, bool WithEntity, typename... Terms, typename Func>
ECS_FORCEINLINE void run_batch(Func& fn, CommandBuffer* cb, Archetype& arch, size_t begin, size_t n, uint64_t absent) {
    constexpr auto positions = std::index_sequence_for<Terms...>{};
    if constexpr (Buffer) {
        if constexpr (WithEntity) {
            auto call = [&](Entity e, term_param_t<Terms>... terms) { fn(*cb, e, terms...); };
            run_rows_absent<true, Terms...>(call, arch, begin, n, absent, positions);
        } else {
            auto call = [&](term_param_t<Terms>... terms) { fn(*cb, terms...); };
            run_rows_absent<false, Terms...>(call, arch, begin, n, absent, positions);
        }
    } else {
        (void)cb;
        run_rows_absent<WithEntity, Terms...>(fn, arch, begin, n, absent, positions);
    }
}

/// A sequential run of `q` on the calling thread: with value filters (Related<R>{target},
/// Cascade<R>) in their order, else the plain run.
template <bool WithEntity, typename... Terms, typename Func>
void run_inline(World* world, const ArchetypeGraph& graph, QueryCache& q, const FilterValues& values, uint32_t* depth, Func& fn) {
    if (ECS_UNLIKELY(values.active)) {
        if (world != nullptr) run_valued<WithEntity, Terms...>(*world, graph, q, values, depth, fn);
        return;
    }
    run_query<WithEntity, Terms...>(graph, q, depth, world, fn);
}

/// The state a parallel run shares with its tasks.
template <bool Buffer, bool WithEntity, typename Func, typename... Terms>
struct ParallelRun {
    Func* fn;
    const RowBatch* batches;
    CommandBuffer* buffers;

    static void task(void* context, size_t index) {
        auto& run = *static_cast<ParallelRun*>(context);
        const RowBatch& b = run.batches[index];
        run_batch<Buffer, WithEntity, Terms...>(*run.fn, Buffer ? run.buffers + index : nullptr, *b.archetype, b.begin,
                                                b.count, b.absent);
    }
};

/**
 * @brief The body of every each_par: splits `q`'s rows into batches and runs them on `executor`,
 *        or runs inline when that cannot pay.
 * @param world where buffers are flushed (nullptr only for a null handle, which runs nothing)
 */
template <typename... Terms, typename Func>
void run_query_par(QueryEngine& engine, const ArchetypeGraph& graph, QueryCache& q, World* world, Executor& executor,
                   Func& fn, const FilterValues& values = FilterValues{}) {
    using Callback = ParallelCallback<Func, Terms...>;
    constexpr bool buffer = Callback::buffer;
    constexpr bool with_entity = Callback::entity;
    if (!terms_access_ok<Terms...>()) return;
    if (!engine.shared()) q.refresh(graph); // inside a shared section the cache is already up to date

    size_t total = 0;
    for (const Archetype* a : q.archetypes) total += a->size();
    const size_t concurrency = executor.concurrency();
    size_t batch_rows = concurrency == 0 ? total : total / (concurrency * 4);
    if (batch_rows < kMinBatchRows) batch_rows = kMinBatchRows;

    // Inline: the sequential each, exactly (a nested each_par inside a shared section runs here too;
    // so does a run with value filters, which orders or tests rows through the world's relationships,
    // and a query naming sparse types, whose values are fetched row by row).
    if (concurrency <= 1 || total <= batch_rows || engine.shared() || values.active || q.has_sparse) {
        if constexpr (buffer) {
            CommandBuffer cb;
            if constexpr (with_entity) {
                auto call = [&](Entity e, term_param_t<Terms>... terms) { fn(cb, e, terms...); };
                run_inline<true, Terms...>(world, graph, q, values, engine.scope_depth(), call);
            } else {
                auto call = [&](term_param_t<Terms>... terms) { fn(cb, terms...); };
                run_inline<false, Terms...>(world, graph, q, values, engine.scope_depth(), call);
            }
            if (world != nullptr && !cb.empty()) cb.flush(*world);
        } else {
            run_inline<with_entity, Terms...>(world, graph, q, values, engine.scope_depth(), fn);
        }
        return;
    }

    std::vector<RowBatch> batches;
    batches.reserve(total / batch_rows + q.archetypes.size());
    for_each_run(q, [&](Archetype& a, size_t run_begin, size_t n, uint64_t absent) { // runs of enabled rows
        for (size_t begin = 0; begin < n; begin += batch_rows)
            batches.push_back(RowBatch{&a, run_begin + begin, n - begin < batch_rows ? n - begin : batch_rows, absent});
    });
    std::unique_ptr<CommandBuffer[]> buffers;
    if constexpr (buffer) buffers.reset(new CommandBuffer[batches.size()]);

    // Change detection: the batches' mutable terms are stamped here, on the calling thread, before
    // any worker runs (stamping updates per-archetype bounds that batches of one archetype share).
    if constexpr (!(TermTraits<Terms>::read_only && ...))
        for (const RowBatch& b : batches)
            if (b.archetype->ticks.active())
                touch_terms_present<Terms...>(*b.archetype, b.begin, b.count, b.absent, std::index_sequence_for<Terms...>{});
    ParallelRun<buffer, with_entity, Func, Terms...> run{&fn, batches.data(), buffers.get()};
    engine.begin_shared(graph);
    executor.parallel_for(batches.size(), &ParallelRun<buffer, with_entity, Func, Terms...>::task, &run);
    engine.end_shared();

    if constexpr (buffer) {
        if (world != nullptr)
            for (size_t i = 0; i < batches.size(); ++i)
                if (!buffers[i].empty()) buffers[i].flush(*world);
    }
}

/// each_par's bodies for Query<Terms...>::each_par and World::each_par (declared in query.hpp).
template <typename... Terms>
struct EachParRunner {
    template <typename Func, typename Values>
    static void run(QueryEngine& engine, const ArchetypeGraph& graph, QueryCache& q, World* world, Executor& executor,
                    Func& fn, const Values& values) {
        run_query_par<Terms...>(engine, graph, q, world, executor, fn, values);
    }
    /// World::each_par: the query handle of the signature (with the values of the filters among
    /// `args`: Related<R>{target}, Cascade<R>), then its each_par.
    template <typename... Filters, typename Func, typename... Args>
    static void run_world(World& world, Executor& executor, TypeList<Filters...>, Func& fn, const Args&... args) {
        QueryEngine& engine = WorldAccess::queries(world);
        const ArchetypeGraph& graph = WorldAccess::graph(world);
        Query<Terms...>(engine, graph, engine.cache<TypeList<Terms...>, TypeList<Filters...>>(graph), &world,
                        filter_values(args...))
            .each_par(executor, fn);
    }
};

} // namespace detail

} // namespace ecs
