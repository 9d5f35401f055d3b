/**
 * @file bench/bench_deferred.cpp
 * @brief Deferred structural changes: during an `each`, every second entity is destroyed / gets Health
 *        / loses Health through world.deferred() or a CommandBuffer, then the queue is flushed; the
 *        "direct" twin collects the handles during the same `each` and applies the change after.
 *
 * Timed: the `each` with its recording plus the flush (or the direct apply). The world is restored
 * untimed between passes without being rebuilt, so the queue's pages and the world's storage are in
 * steady state, as in a game loop. Counters: heap allocations per recorded command while recording
 * (`allocs_per_cmd`, required to be 0) and while flushing (`flush_allocs_per_cmd`).
 */
#include <cstdint>
#include <vector>

#include <ecs/command_buffer.hpp>

#include "common.hpp"

namespace bench {
namespace {

enum class Op { destroy, add, remove };
enum class Via { deferred, command_buffer, direct };

constexpr Health FULL_HEALTH{100, 100};

/// World and handles for one benchmark; `restore` brings it back to the state before a pass.
struct DeferredFixture {
    DeferredFixture(Op operation, size_t count) : op(operation), n(count) {
        if (op == Op::remove) {
            for (size_t i = 0; i < n; ++i) handles.push_back(world.create_with(position_of(i), velocity_of(i), FULL_HEALTH));
        } else {
            handles = populate_pv(world, n);
        }
        victims.reserve(n);
    }

    /// Untimed: undoes a pass.
    void restore() {
        switch (op) {
        case Op::destroy:
            for (size_t i = world.count(); i < n; ++i) (void)world.create_with(position_of(i), velocity_of(i));
            break;
        case Op::add:
            for (ecs::Entity e : handles) world.remove<Health>(e);
            break;
        case Op::remove:
            for (ecs::Entity e : handles) world.add(e, FULL_HEALTH);
            break;
        }
    }

    Op op;
    size_t n;
    ecs::World world;
    std::vector<ecs::Entity> handles;
    std::vector<ecs::Entity> victims; ///< the direct twin's collected handles (capacity kept)
    ecs::CommandBuffer buffer;
};

/// Records `op` on `e` into `sink` (a DeferredProxy or a CommandBuffer).
template <typename Sink>
inline void record(Sink& sink, Op op, ecs::Entity e) {
    switch (op) {
    case Op::destroy: sink.destroy(e); break;
    case Op::add: sink.add(e, FULL_HEALTH); break;
    case Op::remove: sink.template remove<Health>(e); break;
    }
}

/// One timed pass; adds the allocations seen while recording and while applying to the totals.
template <Via via>
void pass(DeferredFixture& f, uint64_t& record_allocs, uint64_t& apply_allocs) {
    ecs::World& world = f.world;
    const Op op = f.op;
    f.victims.clear();
    {
        AllocationScope scope;
        if constexpr (via == Via::deferred) {
            ecs::World::DeferredProxy proxy = world.deferred();
            size_t k = 0;
            world.each<Position>([&](ecs::Entity e, Position&) {
                if ((k++ & 1u) == 0) record(proxy, op, e);
            });
        } else if constexpr (via == Via::command_buffer) {
            size_t k = 0;
            world.each<Position>([&](ecs::Entity e, Position&) {
                if ((k++ & 1u) == 0) record(f.buffer, op, e);
            });
        } else {
            size_t k = 0;
            world.each<Position>([&](ecs::Entity e, Position&) {
                if ((k++ & 1u) == 0) f.victims.push_back(e);
            });
        }
        record_allocs += scope.count();
    }
    {
        AllocationScope scope;
        if constexpr (via == Via::deferred) {
            world.flush_deferred();
        } else if constexpr (via == Via::command_buffer) {
            f.buffer.flush(world);
        } else {
            for (ecs::Entity e : f.victims) record(world, op, e);
        }
        apply_allocs += scope.count();
    }
}

template <Op op, Via via>
void run_deferred(benchmark::State& state) {
    DeferredFixture f(op, arg_n(state));
    const uint64_t commands_per_pass = (f.n + 1) / 2;
    uint64_t record_allocs = 0;
    uint64_t apply_allocs = 0;
    // Warm-up, twice: the first pass grows the queue pages, the free list and creates archetypes;
    // the second lets the query cache pick those archetypes up. Then everything is steady.
    for (int warm = 0; warm < 2; ++warm) {
        pass<via>(f, record_allocs, apply_allocs);
        f.restore();
    }
    // Proof that the counter sees allocations: the cold passes made some (pages, archetypes, ...).
    state.counters["warmup_allocs"] = static_cast<double>(record_allocs + apply_allocs);
    record_allocs = apply_allocs = 0;
    for (auto _ : state) {
        const PhaseTimer timer;
        pass<via>(f, record_allocs, apply_allocs);
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(f.world.count());
        f.restore();
    }
    const auto commands = static_cast<double>(state.iterations()) * static_cast<double>(commands_per_pass);
    state.counters["allocs_per_cmd"] = static_cast<double>(record_allocs) / commands;
    state.counters["flush_allocs_per_cmd"] = static_cast<double>(apply_allocs) / commands;
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(commands_per_pass));
}

void BM_DeferredDestroy(benchmark::State& s) { run_deferred<Op::destroy, Via::deferred>(s); }
void BM_DeferredDestroy_CommandBuffer(benchmark::State& s) { run_deferred<Op::destroy, Via::command_buffer>(s); }
void BM_DeferredDestroy_Direct(benchmark::State& s) { run_deferred<Op::destroy, Via::direct>(s); }
void BM_DeferredAdd(benchmark::State& s) { run_deferred<Op::add, Via::deferred>(s); }
void BM_DeferredAdd_CommandBuffer(benchmark::State& s) { run_deferred<Op::add, Via::command_buffer>(s); }
void BM_DeferredAdd_Direct(benchmark::State& s) { run_deferred<Op::add, Via::direct>(s); }
void BM_DeferredRemove(benchmark::State& s) { run_deferred<Op::remove, Via::deferred>(s); }
void BM_DeferredRemove_CommandBuffer(benchmark::State& s) { run_deferred<Op::remove, Via::command_buffer>(s); }
void BM_DeferredRemove_Direct(benchmark::State& s) { run_deferred<Op::remove, Via::direct>(s); }

ECS_BENCH_RANGE_MANUAL(BM_DeferredDestroy);
ECS_BENCH_RANGE_MANUAL(BM_DeferredDestroy_CommandBuffer);
ECS_BENCH_RANGE_MANUAL(BM_DeferredDestroy_Direct);
ECS_BENCH_RANGE_MANUAL(BM_DeferredAdd);
ECS_BENCH_RANGE_MANUAL(BM_DeferredAdd_CommandBuffer);
ECS_BENCH_RANGE_MANUAL(BM_DeferredAdd_Direct);
ECS_BENCH_RANGE_MANUAL(BM_DeferredRemove);
ECS_BENCH_RANGE_MANUAL(BM_DeferredRemove_CommandBuffer);
ECS_BENCH_RANGE_MANUAL(BM_DeferredRemove_Direct);

} // namespace
} // namespace bench
