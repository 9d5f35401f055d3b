/**
 * @file bench/bench_rollback.cpp
 * @brief World::copy_from and Rollback save + load of N entities of {Position, Velocity, Health},
 *        each against its physical limit: a memcpy of the same component bytes (BM_Raw_* twins).
 *        Read as ratios: copy_from <= 1.3x BM_Raw_CopyFrom; save + load <= 1 ms at 100k.
 */
#include <cstdint>
#include <cstring>
#include <vector>

#include <ecs/rollback.hpp>

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

} // namespace
} // namespace bench
