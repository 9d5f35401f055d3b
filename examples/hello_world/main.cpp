// hello_world: the smallest tour of the ecs library.
//
// Components are plain structs. Entities are handles. A World stores every entity's components in
// archetypes (one table per set of component types) and runs queries over them.
#include <cstdio>

#include <ecs/ecs.hpp>

// Components: no base class, no registration, no macros.
struct Position {
    float x = 0.0f;
    float y = 0.0f;
};
struct Velocity {
    float dx = 0.0f;
    float dy = 0.0f;
};
struct Name {
    const char* text = "";
};
struct Frozen {}; // an empty "tag" component: stored without bytes

int main() {
    ecs::World world;

    // create_with puts an entity straight into the archetype {Position, Velocity, Name}.
    const ecs::Entity ship = world.create_with(Position{0.0f, 0.0f}, Velocity{1.0f, 0.5f}, Name{"ship"});
    const ecs::Entity rock = world.create_with(Position{5.0f, 5.0f}, Name{"rock"});
    const ecs::Entity comet = world.create_with(Position{-3.0f, 1.0f}, Velocity{0.0f, -2.0f}, Name{"comet"});
    std::printf("%zu entities\n", world.count());

    // A query visits every entity having all the listed components. `const` marks read-only access;
    // each_no_entity passes only the components, each passes the entity handle first.
    // The rock has no Velocity, so it does not move.
    for (int step = 1; step <= 3; ++step) {
        world.each_no_entity<Position, const Velocity>([](Position& p, const Velocity& v) {
            p.x += v.dx;
            p.y += v.dy;
        });
    }
    world.each<const Name, const Position>([](ecs::Entity, const Name& n, const Position& p) {
        std::printf("%-5s at (%.1f, %.1f)\n", n.text, static_cast<double>(p.x), static_cast<double>(p.y));
    });

    // Direct access by handle: get asserts the component is there, try_get returns nullptr if not.
    world.get<Position>(rock).x = 6.0f;
    std::printf("rock has Velocity? %s\n", world.try_get<Velocity>(rock) != nullptr ? "yes" : "no");

    // Adding or removing a component moves the entity to another archetype.
    world.add(comet, Frozen{});
    std::printf("movers not frozen: %zu\n", [&] {
        size_t n = 0;
        world.each<const Velocity>(ecs::Exclude<Frozen>{}, [&](ecs::Entity, const Velocity&) { ++n; });
        return n;
    }());
    world.remove<Velocity>(comet);
    std::printf("entities with Velocity: %zu\n", world.count<Velocity>());

    // Destroyed handles go stale: the slot is recycled with a new generation.
    world.destroy(ship);
    const ecs::Entity newcomer = world.create_with(Name{"newcomer"});
    std::printf("ship alive? %s, newcomer reuses slot %u (generation %u -> %u)\n", world.alive(ship) ? "yes" : "no",
                newcomer.index, ship.generation, newcomer.generation);
    std::printf("%zu entities in %zu archetypes\n", world.count(), world.archetype_count());
    return 0;
}

// Output:
// 3 entities
// ship  at (3.0, 1.5)
// comet at (-3.0, -5.0)
// rock  at (5.0, 5.0)
// rock has Velocity? no
// movers not frozen: 1
// entities with Velocity: 1
// ship alive? no, newcomer reuses slot 1 (generation 1 -> 2)
// 3 entities in 6 archetypes
