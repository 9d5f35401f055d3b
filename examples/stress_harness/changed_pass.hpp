// --changed: what change detection saves a system that re-uploads (mirrors) positions when only a
// fraction of the entities moves each frame.
//
// A world of N bodies (Position, Velocity, GpuSlot), all in one archetype; `pct` percent of them,
// scattered (every (100/pct)-th row), are awake: a physics step writes them back each frame through
// a mutable get<Position>, which stamps them changed (world.track_changes<Position>()). Two systems then keep a mirror of every Position
// (what a renderer uploads to the GPU):
//   - changed: a query handle with Changed<Position> copies only what moved since its previous run;
//   - full:    a plain query copies every position, every frame.
// Both run every frame in the same process, so their times compare; at the end the two mirrors
// must be equal (the Changed pass missed nothing).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include <ecs/ecs.hpp>

#include "scenes.hpp"

namespace harness {

struct GpuSlot {
    uint32_t index; ///< where the body's position lives in the mirror
};

struct ChangedPassReport {
    size_t entities = 0;
    size_t frames = 0;
    double pct = 0;
    double changed_rows_per_frame = 0; ///< entities the Changed pass processed, mean per measured frame
    std::vector<double> move_ms, changed_ms, full_ms;
    bool mirrors_equal = false;
};

/// Builds the world, runs 2 warm-up frames and `frames` measured ones; `clock_ms` is the harness's clock.
inline ChangedPassReport run_changed_pass(size_t entities, size_t frames, double pct, uint64_t seed, double (*clock_ms)()) {
    ChangedPassReport r;
    r.entities = entities;
    r.frames = frames;
    r.pct = pct;
    ecs::World world;
    world.track_changes<Position>();
    Rng rng(seed);
    const size_t stride = pct > 0 ? std::max<size_t>(1, static_cast<size_t>(100.0 / pct + 0.5)) : entities + 1;
    std::vector<ecs::Entity> awake; // the bodies the physics step moves
    for (size_t i = 0; i < entities; ++i) {
        const Position p{rng.uniform(-100, 100), rng.uniform(-100, 100), 0};
        const Velocity v{rng.uniform(-1, 1), rng.uniform(-1, 1), 0};
        const ecs::Entity e = world.create_with(p, v, GpuSlot{static_cast<uint32_t>(i)});
        if (i % stride == 0) awake.push_back(e);
    }
    std::vector<Position> mirror_changed(entities, Position{0, 0, 0});
    std::vector<Position> mirror_full(entities, Position{0, 0, 0});
    auto changed = world.query<const GpuSlot, const Position>(ecs::Changed<Position>{});
    auto full = world.query<const GpuSlot, const Position>();

    constexpr size_t WARMUP = 2; // the Changed handle's first run copies everything
    size_t changed_rows = 0;
    for (size_t f = 0; f < WARMUP + frames; ++f) {
        const bool measured = f >= WARMUP;
        double t0 = clock_ms();
        for (const ecs::Entity e : awake) { // a mutable get counts as a change
            Position& p = world.get<Position>(e);
            const Velocity& v = std::as_const(world).get<Velocity>(e);
            p.x += v.x * DT;
            p.y += v.y * DT;
        }
        double t1 = clock_ms();
        if (measured) r.move_ms.push_back(t1 - t0);

        size_t rows = 0;
        t0 = clock_ms();
        changed.each([&](const GpuSlot& s, const Position& p) {
            mirror_changed[s.index] = p;
            ++rows;
        });
        t1 = clock_ms();
        if (measured) {
            r.changed_ms.push_back(t1 - t0);
            changed_rows += rows;
        }

        t0 = clock_ms();
        full.each([&](const GpuSlot& s, const Position& p) { mirror_full[s.index] = p; });
        t1 = clock_ms();
        if (measured) r.full_ms.push_back(t1 - t0);
    }
    r.changed_rows_per_frame = frames != 0 ? static_cast<double>(changed_rows) / static_cast<double>(frames) : 0.0;
    r.mirrors_equal = std::memcmp(mirror_changed.data(), mirror_full.data(), entities * sizeof(Position)) == 0;
    return r;
}

} // namespace harness
