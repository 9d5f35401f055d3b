// The built-in component types of the Python module: the components of the stress harness
// (examples/stress_harness/scenes.hpp), with the same layouts, reflected field by field, and
// registered (ecs_module.cpp) under the names the harness gives them for its snapshots, so that
// Python reads, edits and writes the harness's snapshots. Keep in step with scenes.hpp and
// snapshot_check.hpp: a layout that drifts is caught by the snapshot's element sizes, and by the
// edit_snapshot ctest.
#pragma once

#include <cstdint>

#include <ecs/builtin/hierarchy.hpp>
#include <ecs/builtin/transform.hpp>
#include <ecs/component.hpp>
#include <ecs/reflect.hpp>

namespace demo {

struct Position {
    float x, y, z;
};
struct Velocity {
    float x, y, z;
};
struct Acceleration {
    float x, y, z;
};
struct Mass {
    float value;
};
struct Color {
    uint8_t r, g, b, a;
};
struct Rotation {
    float angle;
};
struct Spin {
    float speed;
};
struct Scale {
    float value;
};
struct Lifetime {
    float remaining;
    float total;
};
struct Orbit {
    float radius, angle, speed;
};
struct Leader {};
struct Dying {};
/// Not a component of the stress harness: the module's sparse component (component_traits below),
/// stored in a sparse set rather than in archetypes, reached from Python like any other.
struct Poisoned {
    float dps;
    int32_t ticks;
};

} // namespace demo

template <>
struct ecs::component_traits<demo::Poisoned> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};

ECS_REFLECT(demo::Position, x, y, z)
ECS_REFLECT(demo::Velocity, x, y, z)
ECS_REFLECT(demo::Acceleration, x, y, z)
ECS_REFLECT(demo::Mass, value)
ECS_REFLECT(demo::Color, r, g, b, a)
ECS_REFLECT(demo::Rotation, angle)
ECS_REFLECT(demo::Spin, speed)
ECS_REFLECT(demo::Scale, value)
ECS_REFLECT(demo::Lifetime, remaining, total)
ECS_REFLECT(demo::Orbit, radius, angle, speed)
ECS_REFLECT(demo::Leader)
ECS_REFLECT(demo::Dying)
ECS_REFLECT(demo::Poisoned, dps, ticks)
ECS_REFLECT(ecs::Mat4, m)
ECS_REFLECT(ecs::LocalTransform, matrix)
ECS_REFLECT(ecs::WorldTransform, matrix)
ECS_REFLECT(ecs::Parent, entity)
