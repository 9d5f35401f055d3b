// ODR check, second translation unit: the same library code, instantiated here too.
#include "odr_shared.hpp"

#include <sstream>

namespace odr_b {

// Velocity's id is requested here first, Position's in odr_a.cpp first: both must still agree.
ecs::ComponentTypeID velocity_id() { return ecs::component_id<OdrVelocity>(); }
ecs::ComponentTypeID position_id() { return ecs::component_id<const OdrPosition&>(); }

ecs::Entity spawn(ecs::World& world, float x) { return world.create_with(OdrPosition{x, 0.0f}, OdrVelocity{1.0f, 0.0f}); }

void tag(ecs::World& world, ecs::Entity e) { world.add(e, OdrTag{}); }

std::size_t count_tagged(ecs::World& world) {
    std::size_t n = 0;
    world.each<const OdrPosition, OdrTag>([&n](ecs::Entity, const OdrPosition&, OdrTag&) { ++n; });
    return n;
}

ecs::Prefab make_prefab() { return ecs::Prefab::create(OdrPosition{7.0f, 8.0f}, OdrVelocity{0.5f, 0.5f}); }

void add_systems(ecs::SystemRegistry& systems) {
    systems.add("move", [](ecs::World& world) {
        world.each_no_entity<OdrPosition, const OdrVelocity>([](OdrPosition& p, const OdrVelocity& v) {
            p.x += v.dx;
            p.y += v.dy;
        });
    });
}

std::string snapshot(const ecs::World& world) {
    std::ostringstream out;
    ecs::serialize(world, out);
    return out.str();
}

bool restore(ecs::World& world, const std::string& bytes) {
    std::istringstream in(bytes);
    return static_cast<bool>(ecs::deserialize(world, in));
}

} // namespace odr_b
