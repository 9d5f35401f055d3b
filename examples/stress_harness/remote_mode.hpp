// stress_harness --remote [PORT]: runs a demo scene frame after frame and serves its world to the
// remote inspector (ecs/remote.hpp) on 127.0.0.1, writes allowed; open the printed URL in a browser.
// Built only when the ecs::remote target exists (cpp-httplib found).
#pragma once

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include <ecs/remote.hpp>

#include "scenes.hpp"
#include "snapshot_check.hpp"

// The demo's components get field descriptions, so the inspector can show and edit them.
ECS_REFLECT(harness::Position, x, y, z);
ECS_REFLECT(harness::Velocity, x, y, z);
ECS_REFLECT(harness::Acceleration, x, y, z);
ECS_REFLECT(harness::Mass, value);
ECS_REFLECT(harness::Color, r, g, b, a);
ECS_REFLECT(harness::Rotation, angle);
ECS_REFLECT(harness::Spin, speed);
ECS_REFLECT(harness::Scale, value);
ECS_REFLECT(harness::Lifetime, remaining, total);
ECS_REFLECT(harness::Orbit, radius, angle, speed);
ECS_REFLECT(ecs::Mat4, m);
ECS_REFLECT(ecs::LocalTransform, matrix);
ECS_REFLECT(ecs::WorldTransform, matrix);

namespace harness {

/**
 * Serves a world holding the `flat` scene (entities - entities / 4) and the `trees` scene (a quarter,
 * for a hierarchy to browse) on `port` (0: a free one), running their systems at about 60 frames per
 * second; stops after `frames` frames (0: runs until the process is killed).
 */
inline int run_remote(uint16_t port, size_t entities, size_t frames, uint64_t seed) {
    register_snapshot_components();
    ecs::World world;
    std::vector<std::unique_ptr<Scene>> scenes;
    for (const SceneInfo& info : harness::scenes()) {
        const std::string name = info.name;
        if (name != "flat" && name != "trees") continue;
        scenes.push_back(info.make(seed));
        scenes.back()->populate(world, name == "flat" ? entities - entities / 4 : entities / 4);
    }
    SystemList systems;
    ecs::Schedule plan; // shown under /api/systems; the systems are run and timed one by one below
    for (auto& scene : scenes)
        for (auto& system : scene->systems()) {
            plan.add(system.first, [](ecs::World&) {});
            systems.push_back(std::move(system));
        }
    ecs::RemoteOptions options;
    options.port = port;
    options.allow_writes = true; // loopback only (options.bind)
    ecs::RemoteServer server(world, options);
    if (!server.start()) {
        std::fprintf(stderr, "stress_harness --remote: %s\n", server.error().c_str());
        return 1;
    }
    server.attach(plan);
    std::printf("remote inspector: http://127.0.0.1:%u/ (%zu entities; writes allowed)\n", unsigned(server.port()), world.count());
    std::fflush(stdout);
    const auto step = std::chrono::microseconds(16667);
    auto next = std::chrono::steady_clock::now();
    for (size_t frame = 0; frames == 0 || frame < frames; ++frame) {
        for (auto& system : systems) {
            const auto t0 = std::chrono::steady_clock::now();
            system.second(world);
            const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
            server.record_system(system.first, static_cast<uint64_t>(ns));
        }
        server.poll();
        next += step;
        const auto now = std::chrono::steady_clock::now();
        if (next > now) std::this_thread::sleep_until(next);
        else next = now;
    }
    server.stop();
    return 0;
}

} // namespace harness
