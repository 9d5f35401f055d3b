/**
 * @file bench/bench_runtime.cpp
 * @brief Untyped access (runtime.hpp) against typed access on the same world: get_raw by id and by
 *        name against get<T>, each_raw over two ids against each<T, const U>, add_raw / remove_raw
 *        against add / remove, and a runtime component (ComponentOps) against a typed one.
 *
 * Targets (issue 18): get_raw by id <= 1.5x get<T>; each_raw over two ids <= 2x each; get_raw by name
 * <= 30 ns per call. BM_Raw_GetRandom (bench_access.cpp) is the physical floor of random reads.
 */
#include <cstdint>
#include <cstring>
#include <vector>

#include <ecs/runtime.hpp>
#include <ecs/serialization.hpp>

#include "common.hpp"

namespace bench {
namespace {

/// `p->x`, or 0 when get_raw found nothing (never here; the test keeps -Wnull-dereference quiet).
inline float x_of(const void* p) { return p != nullptr ? static_cast<const Position*>(p)->x : 0.0f; }

/// Names the bench components once (get_raw by name looks registered names up).
ecs::ComponentTypeID position_id() {
    static const ecs::ComponentTypeID id = [] {
        ecs::register_component<Position>("bench::Position"); // the name bench_serialization.cpp gives it too
        ecs::register_component<Velocity>("bench::Velocity");
        return ecs::component_id<Position>();
    }();
    return id;
}

/// A plain runtime component with the layout of Position: "BenchRtPosition".
ecs::ComponentTypeID runtime_position_id() {
    static const ecs::ComponentTypeID id = [] {
        ecs::ComponentOps ops;
        ops.size = sizeof(Position);
        ops.align = alignof(Position);
        ops.default_construct = [](void* p) { std::memset(p, 0, sizeof(Position)); };
        ops.copy_construct = [](void* dst, const void* src) { std::memcpy(dst, src, sizeof(Position)); };
        return ecs::register_runtime_component("BenchRtPosition", ops);
    }();
    return id;
}

// ---- random access by handle ------------------------------------------------------------------------

void BM_Runtime_GetTyped(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    std::vector<ecs::Entity> handles = populate_pv(world, n);
    shuffle_fixed(handles);
    for (auto _ : state) {
        float s0 = 0, s1 = 0;
        for (size_t i = 0; i + 2 <= n; i += 2) {
            s0 += world.get<Position>(handles[i]).x;
            s1 += world.get<Position>(handles[i + 1]).x;
        }
        float sum = s0 + s1;
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Runtime_GetTyped);

void BM_Runtime_GetRawById(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    std::vector<ecs::Entity> handles = populate_pv(world, n);
    shuffle_fixed(handles);
    const ecs::ComponentTypeID id = position_id();
    for (auto _ : state) {
        float s0 = 0, s1 = 0;
        for (size_t i = 0; i + 2 <= n; i += 2) {
            s0 += x_of(world.get_raw(handles[i], id));
            s1 += x_of(world.get_raw(handles[i + 1], id));
        }
        float sum = s0 + s1;
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Runtime_GetRawById);

void BM_Runtime_GetRawByName(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    std::vector<ecs::Entity> handles = populate_pv(world, n);
    shuffle_fixed(handles);
    (void)position_id();
    for (auto _ : state) {
        float s0 = 0, s1 = 0;
        for (size_t i = 0; i + 2 <= n; i += 2) {
            s0 += x_of(world.get_raw(handles[i], "bench::Position"));
            s1 += x_of(world.get_raw(handles[i + 1], "bench::Position"));
        }
        float sum = s0 + s1;
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Runtime_GetRawByName);

/// The name lookup alone (the part get_raw by name adds to get_raw by id), on one hot entity.
void BM_Runtime_NameLookup(benchmark::State& state) {
    (void)position_id();
    const char* names[] = {"bench::Position", "bench::Velocity"};
    size_t i = 0;
    for (auto _ : state) {
        ecs::ComponentTypeID id = ecs::find_component(names[i++ & 1]);
        benchmark::DoNotOptimize(id);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Runtime_NameLookup);

// ---- iteration ---------------------------------------------------------------------------------------

void BM_Runtime_EachTyped(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    populate_pv(world, n);
    for (auto _ : state) {
        world.each<Position, const Velocity>([](ecs::Entity, Position& p, const Velocity& v) {
            p.x += v.x;
            p.y += v.y;
        });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Runtime_EachTyped);

void BM_Runtime_EachRaw(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    populate_pv(world, n);
    const ecs::ComponentTypeID ids[] = {position_id(), ecs::component_id<Velocity>()};
    for (auto _ : state) {
        world.each_raw(ids, 2, [](ecs::Entity, void* const* c) {
            Position& p = *static_cast<Position*>(c[0]);
            const Velocity& v = *static_cast<const Velocity*>(c[1]);
            p.x += v.x;
            p.y += v.y;
        });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Runtime_EachRaw);

/// each_raw over a runtime component (ComponentOps) and a typed one.
void BM_Runtime_EachRawRuntimeType(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    const ecs::ComponentTypeID rt = runtime_position_id();
    for (size_t i = 0; i < n; ++i) {
        const ecs::Entity e = world.create_with(velocity_of(i));
        const Position p = position_of(i);
        world.add_raw(e, rt, &p);
    }
    const ecs::ComponentTypeID ids[] = {rt, ecs::component_id<Velocity>()};
    for (auto _ : state) {
        world.each_raw(ids, 2, [](ecs::Entity, void* const* c) {
            Position& p = *static_cast<Position*>(c[0]);
            const Velocity& v = *static_cast<const Velocity*>(c[1]);
            p.x += v.x;
            p.y += v.y;
        });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Runtime_EachRawRuntimeType);

// ---- structural changes ----------------------------------------------------------------------------

void BM_Runtime_AddRemoveTyped(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    std::vector<ecs::Entity> handles = populate_pv(world, n);
    for (auto _ : state) {
        for (const ecs::Entity e : handles) world.add(e, Health{1, 2});
        for (const ecs::Entity e : handles) world.remove<Health>(e);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0) * 2);
}
ECS_BENCH_RANGE(BM_Runtime_AddRemoveTyped);

void BM_Runtime_AddRemoveRaw(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    std::vector<ecs::Entity> handles = populate_pv(world, n);
    const ecs::ComponentTypeID id = ecs::ensure_column_factory<Health>();
    const Health value{1, 2};
    for (auto _ : state) {
        for (const ecs::Entity e : handles) world.add_raw(e, id, &value);
        for (const ecs::Entity e : handles) world.remove_raw(e, id);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0) * 2);
}
ECS_BENCH_RANGE(BM_Runtime_AddRemoveRaw);

void BM_Runtime_AddRemoveRuntimeType(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    std::vector<ecs::Entity> handles = populate_pv(world, n);
    const ecs::ComponentTypeID id = runtime_position_id();
    const Position value{1, 2};
    for (auto _ : state) {
        for (const ecs::Entity e : handles) world.add_raw(e, id, &value);
        for (const ecs::Entity e : handles) world.remove_raw(e, id);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0) * 2);
}
ECS_BENCH_RANGE(BM_Runtime_AddRemoveRuntimeType);

} // namespace
} // namespace bench
