// ODR check, first translation unit (main): ecs.hpp is included by two translation units linked into
// one program. Inline variables (id counters, registries) must exist once, so component ids, cached
// archetypes and registered names agree across translation units.
#include "odr_shared.hpp"

#include <cstdio>

namespace {

int failures = 0;

void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "ODR check failed: %s\n", what);
        ++failures;
    }
}

} // namespace

int main() {
    const ecs::ComponentTypeID position = ecs::component_id<OdrPosition>(); // first request: here
    check(odr_b::position_id() == position, "component_id<OdrPosition> differs between translation units");
    check(odr_b::velocity_id() == ecs::component_id<OdrVelocity>(), "component_id<OdrVelocity> differs");
    check(odr_b::velocity_id() != position, "two types share an id");

    ecs::World world;
    const ecs::Entity a = world.create_with(OdrPosition{1.0f, 0.0f}, OdrVelocity{1.0f, 0.0f});
    const ecs::Entity b = odr_b::spawn(world, 2.0f);
    check(world.archetype_count() == 2, "create_with in two translation units built two archetypes");
    check(world.count<OdrPosition, OdrVelocity>() == 2, "count across translation units");

    odr_b::tag(world, b);
    check(world.has<OdrTag>(b) && !world.has<OdrTag>(a), "a tag added in odr_b.cpp is not seen here");
    check(odr_b::count_tagged(world) == 1, "query in odr_b.cpp");

    const ecs::Prefab prefab = odr_b::make_prefab();
    check(prefab.has<OdrPosition>() && prefab.has<OdrVelocity>() && prefab.component_count() == 2,
          "prefab built in odr_b.cpp");
    const ecs::Entity c = ecs::instantiate(world, prefab, OdrTag{});
    check(world.get<OdrPosition>(c).x == 7.0f && world.has<OdrTag>(c), "prefab instantiated here");

    ecs::SystemRegistry systems;
    odr_b::add_systems(systems);
    systems.run_all(world);
    check(world.get<OdrPosition>(a).x == 2.0f && world.get<OdrPosition>(b).x == 3.0f,
          "system defined in odr_b.cpp");

    // Names registered here are found by serialization code instantiated in odr_b.cpp.
    ecs::register_component<OdrPosition>("OdrPosition");
    ecs::register_component<OdrVelocity>("OdrVelocity");
    ecs::register_component<OdrTag>("OdrTag");
    check(ecs::component_id_by_name("OdrPosition") == position, "component_id_by_name");
    ecs::World copy;
    check(odr_b::restore(copy, odr_b::snapshot(world)), "snapshot round trip across translation units");
    check(copy.count() == 3 && copy.get<OdrPosition>(b).x == 3.0f && copy.has<OdrTag>(c),
          "restored world content");

    if (failures == 0) std::printf("ODR check: ok\n");
    return failures == 0 ? 0 : 1;
}
