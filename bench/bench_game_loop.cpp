/**
 * @file bench/bench_game_loop.cpp
 * @brief The game loop's costs, each beside its twin: a skipped system against one that runs
 *        (empty); emit to one observer against a call through std::function; emit through 8
 *        levels against emit to the top (the difference / 8 is one level); a 10-node prefab tree
 *        against create_with + set_parent by hand. N = operations per iteration.
 */
#include <ecs/ecs.hpp>
#include <ecs/schedule.hpp>

#include <functional>
#include <vector>

#include "common.hpp"

namespace bench {
namespace {

struct Hit {
    int damage;
};
struct Turret {
    int barrels;
};

/// `systems` world systems behind a condition that is `on`, run N / systems times.
void run_conditional(benchmark::State& state, bool on) {
    const size_t n = arg_n(state);
    constexpr size_t systems = 100;
    ecs::World world;
    ecs::Schedule s;
    for (size_t i = 0; i < systems; ++i)
        s.add("s", ecs::Reads<Position>{}, [](ecs::World& w) { benchmark::DoNotOptimize(&w); }).run_if([on](const ecs::World&) { return on; });
    for (auto _ : state) {
        for (size_t r = 0; r < n / systems; ++r) s.run(world);
        benchmark::DoNotOptimize(world.count());
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
}
void BM_Loop_SkippedSystem(benchmark::State& state) { run_conditional(state, false); }
void BM_Loop_RunSystem(benchmark::State& state) { run_conditional(state, true); }
ECS_BENCH_RANGE(BM_Loop_SkippedSystem);
ECS_BENCH_RANGE(BM_Loop_RunSystem);

/// Emit to an entity with `levels` ancestors; the one observer sits on the topmost.
void emit_through(benchmark::State& state, size_t levels) {
    const size_t n = arg_n(state);
    ecs::World world;
    std::vector<ecs::Entity> chain{world.create_with(Position{0, 0})};
    for (size_t i = 0; i < levels; ++i) {
        chain.push_back(world.create_with(Position{0, 0}));
        ecs::set_parent(world, chain.back(), chain[chain.size() - 2]);
    }
    int sum = 0;
    world.observe<Hit>(chain.front(), [&sum](ecs::World&, ecs::Entity, Hit& h, ecs::Propagation&) { sum += h.damage; });
    const ecs::Entity target = chain.back();
    for (auto _ : state) {
        for (size_t i = 0; i < n; ++i) world.emit(target, Hit{1});
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
}
void BM_Loop_Emit(benchmark::State& state) { emit_through(state, 0); }
void BM_Loop_EmitDepth8(benchmark::State& state) { emit_through(state, 8); }
ECS_BENCH_RANGE(BM_Loop_Emit);
ECS_BENCH_RANGE(BM_Loop_EmitDepth8);

/// The twin of BM_Loop_Emit: the same observer called directly through std::function.
void BM_Raw_StdFunctionCall(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    const ecs::Entity e = world.create();
    int sum = 0;
    std::function<void(ecs::World&, ecs::Entity, Hit&, ecs::Propagation&)> fn =
        [&sum](ecs::World&, ecs::Entity, Hit& h, ecs::Propagation&) { sum += h.damage; };
    benchmark::DoNotOptimize(fn);
    for (auto _ : state) {
        for (size_t i = 0; i < n; ++i) {
            Hit h{1};
            ecs::Propagation p(e);
            fn(world, e, h, p);
        }
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
}
ECS_BENCH_RANGE(BM_Raw_StdFunctionCall);

/// root -> 3 turrets -> 2 sensors each: 10 entities.
ecs::Prefab make_tree() {
    ecs::Prefab root = ecs::Prefab::create(Position{0, 0}, Health{100, 100});
    for (int t = 0; t < 3; ++t) {
        ecs::Prefab turret = ecs::Prefab::create(Position{1, 0}, Turret{2});
        turret.child(ecs::Prefab::create(Position{0, 1})).child(ecs::Prefab::create(Position{0, 2}));
        root.child(std::move(turret));
    }
    return root;
}

void BM_Loop_PrefabTree10(benchmark::State& state) {
    const size_t n = arg_n(state) / 10; // trees
    const ecs::Prefab tree = make_tree();
    for (auto _ : state) {
        ecs::World world;
        const PhaseTimer timer;
        for (size_t i = 0; i < n; ++i) benchmark::DoNotOptimize(ecs::instantiate(world, tree));
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(world.count());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
/// The twin: the same tree by hand, create_with and set_parent.
void BM_Raw_TreeByHand10(benchmark::State& state) {
    const size_t n = arg_n(state) / 10;
    for (auto _ : state) {
        ecs::World world;
        const PhaseTimer timer;
        for (size_t i = 0; i < n; ++i) {
            const ecs::Entity root = world.create_with(Position{0, 0}, Health{100, 100});
            for (int t = 0; t < 3; ++t) {
                const ecs::Entity turret = world.create_with(Position{1, 0}, Turret{2});
                ecs::set_parent(world, turret, root);
                ecs::set_parent(world, world.create_with(Position{0, 1}), turret);
                ecs::set_parent(world, world.create_with(Position{0, 2}), turret);
            }
            benchmark::DoNotOptimize(root);
        }
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(world.count());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE_MANUAL(BM_Loop_PrefabTree10);
ECS_BENCH_RANGE_MANUAL(BM_Raw_TreeByHand10);

} // namespace
} // namespace bench
