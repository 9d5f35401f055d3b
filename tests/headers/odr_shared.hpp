// Declarations shared by the two translation units of the ODR check (odr_a.cpp, odr_b.cpp).
#pragma once

#include <ecs/ecs.hpp>

#include <cstddef>
#include <string>

struct OdrPosition {
    float x = 0.0f;
    float y = 0.0f;
};
struct OdrVelocity {
    float dx = 0.0f;
    float dy = 0.0f;
};
struct OdrTag {};

// Defined in odr_b.cpp; odr_a.cpp (main) checks that both translation units agree.
namespace odr_b {
ecs::ComponentTypeID velocity_id();
ecs::ComponentTypeID position_id();
ecs::Entity spawn(ecs::World& world, float x);
void tag(ecs::World& world, ecs::Entity e);
std::size_t count_tagged(ecs::World& world);
ecs::Prefab make_prefab();
void add_systems(ecs::SystemRegistry& systems);
std::string snapshot(const ecs::World& world);
bool restore(ecs::World& world, const std::string& bytes);
} // namespace odr_b
