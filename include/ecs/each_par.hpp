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
 * `max(kMinBatchRows, total / (concurrency * 4))` rows; a batch never spans two archetypes. A query
 * whose required types are all sparse cuts the slots of its smallest required set the same way
 * (detail/sparse_drive.hpp). When the executor's concurrency is 1 or the query has no more rows (slots)
 * than one batch, each_par is a plain sequential each on the calling thread (same code path, same cost).
 *
 * Rules:
 * - Structural changes inside `fn` are refused (asserted): the calling thread holds the world's
 *   iteration guard for the whole run (a *shared section*, see query.hpp); workers never touch it.
 * - Inside `fn`, besides its own terms, it is safe to read components through get/try_get/each/query
 *   (the caches are up to date and locked on first use) as long as no call writes what another reads.
 *   Deferred commands go through the CommandBuffer form, not world.deferred() (not thread-safe).
 * - `fn(CommandBuffer&, ...)`: every batch records into its own buffer; after the loop the buffers
 *   are flushed into the world in batch order (archetype order, then row order; slot order for a
 *   sparse-driven query), which is the order a sequential each would have recorded them: the world
 *   ends as after a sequential each whose commands were deferred and flushed. @pre for this form:
 *   the world is not iterating (a flush during iteration is refused, and the commands are then
 *   dropped with the buffers).
 * - The result equals a sequential each.
 */
#pragma once

#include <cstddef>
#include <memory>
#include <new>
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

/// The rows of one archetype a batch covers (or, for a sparse-driven run, the slots of the driving
/// set: `archetype` is then nullptr).
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

/// How the batches of a parallel run are run.
enum class BatchKind {
    table,       ///< whole runs of table rows: the columns from the batch's first row
    sparse_rows, ///< rows of archetypes tested on the sparse types and fetched one by one
    driven,      ///< slots of the driving set of a query whose required types are all sparse
};

/// The state a parallel run shares with its tasks (every worker only reads it).
template <bool Buffer, bool WithEntity, BatchKind Kind, typename Func, typename... Terms>
struct ParallelRun {
    Func* fn;
    const RowBatch* batches;
    CommandBuffer* buffers;
    const SparseRowTest* test;  ///< BatchKind::sparse_rows
    const SparseDrive* drive;   ///< BatchKind::driven
    const SparseRoom* room;     ///< the world's sparse sets
    const World* world;

    /// Runs batch `b` with `call` (fn itself, or fn with the batch's CommandBuffer first). The sparse
    /// test (or drive), read at every row, is first copied into the task's frame: the original lies in
    /// the calling thread's frame, next to the frames that thread writes while it runs batches itself
    /// (false sharing: BM_Parallel_MixedEachPar2 took 24.3 ms at 1M instead of 21.0).
    template <typename Call>
    ECS_FORCEINLINE void run(Call& call, const RowBatch& b) const {
        if constexpr (Kind == BatchKind::table) {
            run_rows_absent<WithEntity, Terms...>(call, *b.archetype, b.begin, b.count, b.absent, std::index_sequence_for<Terms...>{});
        } else if constexpr (Kind == BatchKind::sparse_rows) { // the table terms were stamped before the workers ran
            const SparseRowTest local = *test;
            run_rows_sparse<WithEntity, Terms...>(call, *b.archetype, b.begin, b.count, b.absent, local, room, world, std::false_type{});
        } else {
            const SparseDrive local = *drive;
            run_driven<WithEntity, Terms...>(local, room, b.begin, b.begin + b.count, call, std::false_type{});
        }
    }

    static void task(void* context, size_t index) {
        auto& self = *static_cast<ParallelRun*>(context);
        const RowBatch& b = self.batches[index];
        Func& fn = *self.fn;
        if constexpr (Buffer) {
            CommandBuffer& cb = self.buffers[index];
            if constexpr (WithEntity) {
                auto call = [&](Entity e, term_param_t<Terms>... terms) { fn(cb, e, terms...); };
                self.run(call, b);
            } else {
                auto call = [&](term_param_t<Terms>... terms) { fn(cb, terms...); };
                self.run(call, b);
            }
        } else {
            self.run(fn, b);
        }
    }
};

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

/// The sequential each of each_par (the forms with a CommandBuffer record into one, flushed after).
template <typename... Terms, typename Func>
void run_query_inline(QueryEngine& engine, const ArchetypeGraph& graph, QueryCache& q, World* world, Func& fn,
                      const FilterValues& values) {
    using Callback = ParallelCallback<Func, Terms...>;
    if constexpr (Callback::buffer) {
        CommandBuffer cb;
        if constexpr (Callback::entity) {
            auto call = [&](Entity e, term_param_t<Terms>... terms) { fn(cb, e, terms...); };
            run_inline<true, Terms...>(world, graph, q, values, engine.scope_depth(), call);
        } else {
            auto call = [&](term_param_t<Terms>... terms) { fn(cb, terms...); };
            run_inline<false, Terms...>(world, graph, q, values, engine.scope_depth(), call);
        }
        if (world != nullptr && !cb.empty()) cb.flush(*world);
    } else {
        run_inline<Callback::entity, Terms...>(world, graph, q, values, engine.scope_depth(), fn);
    }
}

/// Runs `batches` on `executor` inside a shared section, then flushes the batches' buffers in batch
/// order (the order a sequential each would have recorded the commands in).
template <BatchKind Kind, typename... Terms, typename Func>
void run_batches(QueryEngine& engine, const ArchetypeGraph& graph, World* world, Executor& executor, Func& fn,
                 const std::vector<RowBatch>& batches, const SparseRowTest* test, const SparseDrive* drive) {
    using Callback = ParallelCallback<Func, Terms...>;
    std::unique_ptr<CommandBuffer[]> buffers;
    if constexpr (Callback::buffer) buffers.reset(new CommandBuffer[batches.size()]);
    using Run = ParallelRun<Callback::buffer, Callback::entity, Kind, Func, Terms...>;
    Run run{&fn, batches.data(), buffers.get(), test, drive, graph.sparse(), world};
    engine.begin_shared(graph);
    executor.parallel_for(batches.size(), &Run::task, &run);
    engine.end_shared();
    if constexpr (Callback::buffer) {
        if (world != nullptr)
            for (size_t i = 0; i < batches.size(); ++i)
                if (!buffers[i].empty()) buffers[i].flush(*world);
    }
}

/// Batch size: `max(kMinBatchRows, total / (concurrency * 4))`.
inline size_t batch_rows_for(size_t total, size_t concurrency) noexcept {
    const size_t rows = concurrency == 0 ? total : total / (concurrency * 4);
    return rows < kMinBatchRows ? kMinBatchRows : rows;
}

/**
 * @brief How a parallel run of a query is cut into batches, on the calling thread (each_par, and a
 *        Schedule wave's multi_threaded systems through SplitRows).
 *
 * - Rows (cut_rows): the runs of enabled rows of the matched archetypes, in batches of
 *   batch_rows_for(). A query naming sparse types tests them (and fetches their values) row by row
 *   in the workers. Its table terms are stamped here, on the rows that pass; those of a query
 *   without sparse terms are stamped here too. Stamping updates per-archetype bounds that batches of
 *   one archetype share, so it happens before any worker runs.
 * - Slots (cut_driven): a query whose required types are all sparse cuts the driving set's slots
 *   (detail/sparse_drive.hpp). A mutable Optional table term is stamped per member when its type is
 *   tracked, which updates bounds that the rows of its archetype share: such a run stays whole.
 */
/// Room for a T made only when needed: the sparse test and drive are kilobytes each, and a plan uses
/// at most one of them. T is trivially copyable and destructible (asserted).
template <typename T>
struct LazySlot {
    static_assert(std::is_trivially_destructible_v<T> && std::is_trivially_copyable_v<T>, "LazySlot: a plain T");
    LazySlot() noexcept {}
    T& make() { return *::new (static_cast<void*>(&value)) T(); }
    union {
        T value; ///< valid after make()
    };
};

template <typename... Terms>
struct BatchPlan {
    /// whole: run the sequential each instead; nothing: no row passes; batches: run `batches`.
    enum class Cut { whole, nothing, batches };

    std::vector<RowBatch> batches;
    LazySlot<SparseRowTest> test;  ///< made for BatchKind::sparse_rows
    LazySlot<SparseDrive> drive;   ///< made for BatchKind::driven
    BatchKind kind = BatchKind::table;

    /// Whether the query's run is cut by the driving set's slots rather than by rows.
    static bool driven(const QueryCache& q, const World* world) noexcept {
        if constexpr (driven_terms_v<Terms...>) return q.sparse_driven && world != nullptr;
        else return (void)q, (void)world, false;
    }

    /// Rows in the matched archetypes (the rows cut's total, checked before a plan is made).
    static size_t row_total(const QueryCache& q) noexcept {
        size_t total = 0;
        for (const Archetype* a : q.archetypes) total += a->size();
        return total;
    }

    /// Slots when driven(), else rows.
    Cut cut(const ArchetypeGraph& graph, QueryCache& q, const World* world, size_t concurrency) {
        if (driven(q, world)) return cut_driven(graph, q, *world, concurrency);
        const size_t total = row_total(q);
        const size_t batch_rows = batch_rows_for(total, concurrency);
        return total <= batch_rows ? Cut::whole : cut_rows(graph, q, total, batch_rows);
    }

    /// @pre total = row_total(q) > batch_rows.
    Cut cut_rows(const ArchetypeGraph& graph, QueryCache& q, size_t total, size_t batch_rows) {
        constexpr bool per_row = (term_per_row_v<Terms> || ...);
        constexpr auto positions = std::index_sequence_for<Terms...>{};
        batches.reserve(total / batch_rows + q.archetypes.size());
        for_each_run(q, [&](Archetype& a, size_t run_begin, size_t n, uint64_t absent) { // runs of enabled rows
            for (size_t begin = 0; begin < n; begin += batch_rows)
                batches.push_back(RowBatch{&a, run_begin + begin, n - begin < batch_rows ? n - begin : batch_rows, absent});
        });
        if (per_row || q.has_sparse) {
            kind = BatchKind::sparse_rows;
            SparseRowTest& row_test = test.make();
            if (!row_test.prepare(q, graph.sparse(), 0)) return Cut::nothing; // a required sparse type has no set
            if constexpr (!(TermTraits<Terms>::read_only && ...)) {
                auto stamp = [&](Archetype& a, size_t begin, size_t count, uint64_t absent) {
                    touch_terms_present<Terms...>(a, begin, count, absent, positions);
                };
                for (const RowBatch& b : batches)
                    if (b.archetype->ticks.active()) row_test.split(*b.archetype, b.begin, b.count, b.absent, stamp);
            }
            return Cut::batches;
        }
        kind = BatchKind::table;
        if constexpr (!per_row && !(TermTraits<Terms>::read_only && ...))
            for (const RowBatch& b : batches)
                if (b.archetype->ticks.active()) touch_terms_present<Terms...>(*b.archetype, b.begin, b.count, b.absent, positions);
        return Cut::batches;
    }

    /// @pre driven(q, &world).
    Cut cut_driven(const ArchetypeGraph& graph, QueryCache& q, const World& world, size_t concurrency) {
        constexpr bool stamps_tables =
            ((TermTraits<Terms>::optional && !TermTraits<Terms>::read_only && !is_sparse_v<term_component_t<Terms>>) || ...);
        kind = BatchKind::driven;
        SparseDrive& slots = drive.make();
        if (!slots.prepare(q, graph.sparse(), world_records(world), graph.may_have_disabled(), 0)) return Cut::nothing;
        const size_t total = slots.end();
        const size_t batch_rows = batch_rows_for(total, concurrency);
        if (total <= batch_rows || (stamps_tables && graph.any_tracked())) return Cut::whole;
        batches.reserve(total / batch_rows + 1);
        for (size_t begin = 0; begin < total; begin += batch_rows)
            batches.push_back(RowBatch{nullptr, begin, total - begin < batch_rows ? total - begin : batch_rows, 0});
        return Cut::batches;
    }
};

/// Runs the batches of `plan` (Cut::batches) on `executor`: run_batches with the plan's kind.
template <typename... Terms, typename Func>
void run_plan(QueryEngine& engine, const ArchetypeGraph& graph, World* world, Executor& executor, Func& fn,
              const BatchPlan<Terms...>& plan) {
    if (plan.kind == BatchKind::table) {
        run_batches<BatchKind::table, Terms...>(engine, graph, world, executor, fn, plan.batches, nullptr, nullptr);
    } else if (plan.kind == BatchKind::sparse_rows) {
        run_batches<BatchKind::sparse_rows, Terms...>(engine, graph, world, executor, fn, plan.batches, &plan.test.value, nullptr);
    } else {
        if constexpr (driven_terms_v<Terms...>)
            run_batches<BatchKind::driven, Terms...>(engine, graph, world, executor, fn, plan.batches, nullptr, &plan.drive.value);
    }
}

/**
 * @brief each_par's batches for a caller that runs them among other tasks (a Schedule wave that
 *        holds a multi_threaded system beside others): prepare() cuts the rows (BatchPlan), on the
 *        calling thread, inside the caller's shared section; run(i) runs batch i on any thread.
 *
 * prepare() answers false when the run should stay whole (one task, the sequential each): a query
 * with an Up term, or one BatchPlan keeps whole. The callback takes no CommandBuffer.
 */
template <typename Func, typename... Terms>
class SplitRows {
public:
    static_assert(!ParallelCallback<Func, Terms...>::buffer, "SplitRows: a callback with a CommandBuffer runs whole");

    bool prepare(const ArchetypeGraph& graph, QueryCache& q, World& world, size_t concurrency) {
        plan_.batches.clear();
        plan_.kind = BatchKind::table;
        room_ = graph.sparse();
        world_ = &world;
        if constexpr ((TermTraits<Terms>::up || ...)) {
            return false;
        } else {
            if (concurrency <= 1 || !terms_access_ok<Terms...>()) return false;
            const auto cut = plan_.cut(graph, q, &world, concurrency);
            if (cut == BatchPlan<Terms...>::Cut::whole) return false;
            if (cut == BatchPlan<Terms...>::Cut::nothing) plan_.batches.clear();
            return true;
        }
    }

    [[nodiscard]] size_t count() const noexcept { return plan_.batches.size(); }

    /// Runs batch `i` with `fn`. @pre prepare() answered true; i < count().
    void run(size_t i, Func& fn) const {
        constexpr bool entity = ParallelCallback<Func, Terms...>::entity;
        if (plan_.kind == BatchKind::table) {
            run_as<ParallelRun<false, entity, BatchKind::table, Func, Terms...>>(i, fn);
        } else if (plan_.kind == BatchKind::sparse_rows) {
            run_as<ParallelRun<false, entity, BatchKind::sparse_rows, Func, Terms...>>(i, fn);
        } else {
            if constexpr (driven_terms_v<Terms...>) run_as<ParallelRun<false, entity, BatchKind::driven, Func, Terms...>>(i, fn);
        }
    }

private:
    template <typename Run>
    void run_as(size_t i, Func& fn) const {
        Run run{&fn, plan_.batches.data(), nullptr, &plan_.test.value, &plan_.drive.value, room_, world_};
        Run::task(&run, i);
    }

    BatchPlan<Terms...> plan_;
    const SparseRoom* room_ = nullptr;
    const World* world_ = nullptr;
};

/**
 * @brief The body of every each_par: splits `q`'s rows into batches and runs them on `executor`,
 *        or runs inline when that cannot pay.
 *
 * Three kinds of batches: runs of table rows (no sparse type in the query); runs of rows tested on
 * the sparse types and fetched row by row (some required table type); ranges of slots of the driving
 * set (every required type sparse, detail/sparse_drive.hpp). The workers only read the world's
 * structure: the table terms of tracked types are stamped on the calling thread before they start
 * (for sparse_rows batches, only the rows that pass the sparse test); a mutable sparse value is
 * stamped by the worker that visits its entity (one tick per member slot, written by that worker
 * alone).
 * @param world where buffers are flushed (nullptr only for a null handle, which runs nothing)
 */
template <typename... Terms, typename Func>
void run_query_par(QueryEngine& engine, const ArchetypeGraph& graph, QueryCache& q, World* world, Executor& executor,
                   Func& fn, const FilterValues& values = FilterValues{}) {
    constexpr bool up_terms = (TermTraits<Terms>::up || ...);
    if (!terms_access_ok<Terms...>()) return;
    if (!engine.shared()) q.refresh(graph); // inside a shared section the cache is already up to date

    const size_t concurrency = executor.concurrency();
    // Inline: the sequential each, exactly (a nested each_par inside a shared section runs here too;
    // so does a run with value filters, which orders or tests rows through the world's relationships,
    // and a query with an Up term, whose walk follows an archetype run).
    if constexpr (!up_terms) {
        if (concurrency > 1 && !engine.shared() && !values.active) {
            using Plan = BatchPlan<Terms...>;
            // A run too small to cut makes no plan (the inline path stays as cheap as each).
            if (Plan::driven(q, world) || Plan::row_total(q) > batch_rows_for(Plan::row_total(q), concurrency)) {
                Plan plan;
                const auto cut = plan.cut(graph, q, world, concurrency);
                if (cut == Plan::Cut::nothing) return;
                if (cut == Plan::Cut::batches) {
                    run_plan<Terms...>(engine, graph, world, executor, fn, plan);
                    return;
                }
            }
        }
    } else {
        (void)concurrency;
    }
    run_query_inline<Terms...>(engine, graph, q, world, fn, values);
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
