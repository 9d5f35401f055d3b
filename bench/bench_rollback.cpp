/**
 * @file bench/bench_rollback.cpp
 * @brief World::copy_from and Rollback save + load of N entities of {Position, Velocity, Health},
 *        each against its physical limit: a memcpy of the same component bytes (BM_Raw_* twins).
 *        Read as ratios: copy_from <= 1.3x BM_Raw_CopyFrom; save + load <= 1 ms at 100k.
 *        Change streams: serialize_changes with 1% of the rows changed against a full serialize of
 *        the same world after the same writes (BM_Serialize_Full, the twin): <= 0.05x; and the cost
 *        of applying that stream to a replica.
 */
#include <cstdint>
#include <cstring>
#include <vector>

#include <sstream>
#include <string>

#include <ecs/rollback.hpp>
#include <ecs/serialization.hpp>

#include "common.hpp"

namespace bench {
namespace {

/// A world of `n` entities of {Position, Velocity, Health}.
void fill(ecs::World& world, size_t n) {
    for (size_t i = 0; i < n; ++i)
        (void)world.create_with(position_of(i), velocity_of(i), Health{static_cast<int>(i), 100});
}

/// The same component bytes as three SoA vectors.
struct RawFrame {
    std::vector<Position> positions;
    std::vector<Velocity> velocities;
    std::vector<Health> healths;
    explicit RawFrame(size_t n) : positions(n), velocities(n), healths(n) {
        for (size_t i = 0; i < n; ++i) {
            positions[i] = position_of(i);
            velocities[i] = velocity_of(i);
            healths[i] = Health{static_cast<int>(i), 100};
        }
    }
    void copy_from(const RawFrame& o) {
        std::memcpy(positions.data(), o.positions.data(), positions.size() * sizeof(Position));
        std::memcpy(velocities.data(), o.velocities.data(), velocities.size() * sizeof(Velocity));
        std::memcpy(healths.data(), o.healths.data(), healths.size() * sizeof(Health));
    }
};

// --- copy_from with matching shapes (the destination already holds a copy) -----------------------

void BM_CopyFrom(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World src, dst;
    fill(src, n);
    dst.copy_from(src); // the shapes match from now on: no allocation in the loop
    for (auto _ : state) {
        dst.copy_from(src);
        benchmark::DoNotOptimize(dst.count());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_CopyFrom);

/// copy_from after a structural change in the source (one entity destroyed and one created per
/// copy): the records, handles and rows are copied too (the full path).
void BM_CopyFrom_Restructured(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World src, dst;
    fill(src, n);
    dst.copy_from(src);
    ecs::Entity victim{1, 1};
    for (auto _ : state) {
        src.destroy(victim);
        victim = src.create_with(position_of(1), velocity_of(1), Health{1, 100});
        dst.copy_from(src);
        benchmark::DoNotOptimize(dst.count());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_CopyFrom_Restructured);

/// Baseline: memcpy of the component bytes (no handles, no records).
void BM_Raw_CopyFrom(benchmark::State& state) {
    const size_t n = arg_n(state);
    RawFrame src(n), dst(n);
    for (auto _ : state) {
        dst.copy_from(src);
        benchmark::DoNotOptimize(dst.positions.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Raw_CopyFrom);

// --- Rollback: save the frame, then load it back (a rollback netcode's restore) -------------------

void BM_Rollback_SaveLoad(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    fill(world, n);
    ecs::Rollback rb(world, 8);
    for (int frame = 0; frame < 8; ++frame) rb.save(frame); // every slot holds the shapes
    int frame = 8;
    for (auto _ : state) {
        rb.save(frame);
        const bool ok = rb.load(frame);
        benchmark::DoNotOptimize(ok);
        ++frame;
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Rollback_SaveLoad);

/// Baseline: two memcpys of the component bytes (into a slot and back).
void BM_Raw_Rollback_SaveLoad(benchmark::State& state) {
    const size_t n = arg_n(state);
    RawFrame world(n), slot(n);
    for (auto _ : state) {
        slot.copy_from(world);
        world.copy_from(slot);
        benchmark::DoNotOptimize(world.positions.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Raw_Rollback_SaveLoad);

// --- change streams: 1% of the rows written, against a full snapshot --------------------------------

void register_rollback_components() {
    (void)ecs::register_component<Position>("bench::Position");
    (void)ecs::register_component<Velocity>("bench::Velocity");
    (void)ecs::register_component<Health>("bench::Health");
}

/// A tracked world of `n` entities and the handles of every 100th.
struct TrackedWorld {
    ecs::World world;
    std::vector<ecs::Entity> written;
    explicit TrackedWorld(size_t n) {
        register_rollback_components();
        world.track_changes<Position>();
        world.track_changes<Health>();
        fill(world, n);
        world.each<>([&](ecs::Entity e) {
            if (e.index % 100 == 0) written.push_back(e);
        });
        std::ostringstream first; // the creations, sent once: the runs below send value changes only
        ecs::serialize_changes(world, 0, first);
    }
    /// Writes 1% of the rows (Position of every 100th entity).
    void write_one_percent() {
        for (const ecs::Entity e : written) world.get<Position>(e).x += 1.0f;
    }
};

void BM_SerializeChanges_1pct(benchmark::State& state) {
    TrackedWorld t(arg_n(state));
    std::ostringstream out;
    size_t bytes = 0;
    for (auto _ : state) { // timed: the stream alone (the writes are the same in the twin, untimed)
        const uint32_t since = t.world.change_tick();
        t.write_one_percent();
        out.str(std::string());
        PhaseTimer timer;
        ecs::serialize_changes(t.world, since, out);
        state.SetIterationTime(timer.seconds());
        bytes = static_cast<size_t>(out.tellp());
        benchmark::DoNotOptimize(bytes);
    }
    state.counters["bytes"] = static_cast<double>(bytes);
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE_MANUAL(BM_SerializeChanges_1pct);

/// The twin: the same writes, then a full snapshot of the world.
void BM_Serialize_Full(benchmark::State& state) {
    TrackedWorld t(arg_n(state));
    std::ostringstream out;
    size_t bytes = 0;
    for (auto _ : state) {
        t.write_one_percent();
        out.str(std::string());
        PhaseTimer timer;
        ecs::serialize(t.world, out);
        state.SetIterationTime(timer.seconds());
        bytes = static_cast<size_t>(out.tellp());
        benchmark::DoNotOptimize(bytes);
    }
    state.counters["bytes"] = static_cast<double>(bytes);
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE_MANUAL(BM_Serialize_Full);

/// Applying the 1% stream to a replica (values only: the same stream applies again each time).
void BM_ApplyChanges_1pct(benchmark::State& state) {
    TrackedWorld t(arg_n(state));
    ecs::World replica;
    replica.copy_from(t.world);
    const uint32_t since = replica.change_tick();
    t.write_one_percent();
    std::ostringstream out;
    ecs::serialize_changes(t.world, since, out);
    const std::string bytes = out.str();
    for (auto _ : state) {
        std::istringstream in(bytes);
        const ecs::DeserializeResult r = ecs::apply_changes(replica, in);
        benchmark::DoNotOptimize(r.tick);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_ApplyChanges_1pct);

} // namespace
} // namespace bench
