// prefabs: reusable entity templates.
//
// A Prefab holds default component values. It is data, not an entity: queries never see it.
// instantiate() copies the defaults into a new entity, replacing those you override and adding any
// extra component you pass.
#include <cstdio>
#include <string>

#include <ecs/ecs.hpp>

struct Position {
    float x = 0.0f;
    float y = 0.0f;
};
struct Health {
    int hp = 0;
};
struct Speed {
    float value = 0.0f;
};
struct Label {
    std::string text; // any copyable type works, not only trivially copyable ones
};
struct Boss {};

int main() {
    ecs::World world;
    int spawned = 0;
    world.on_add<Health>([&spawned](ecs::World&, ecs::Entity, Health&) { ++spawned; }); // hooks fire as usual

    const ecs::Prefab goblin = ecs::Prefab::create(Position{0, 0}, Health{30}, Speed{1.5f}, Label{"goblin"});
    std::printf("goblin prefab: %zu components, has Speed? %s, has Boss? %s\n", goblin.component_count(),
                goblin.has<Speed>() ? "yes" : "no", goblin.has<Boss>() ? "yes" : "no");

    // Plain copies of the defaults...
    for (int i = 0; i < 3; ++i) ecs::instantiate(world, goblin);
    // ...overriding some defaults (Position, Speed)...
    const ecs::Entity scout = ecs::instantiate(world, goblin, Position{4, 2}, Speed{3.0f});
    // ...and extending: Boss is not in the prefab, so this entity gets it in addition.
    const ecs::Entity chief = ecs::instantiate(world, goblin, Health{200}, Label{"goblin chief"}, Boss{});

    std::printf("entities: %zu, on_add<Health> fired %d times\n", world.count(), spawned);
    world.each<const Label, const Health, const Speed, const Position>(
        [&](ecs::Entity e, const Label& l, const Health& h, const Speed& s, const Position& p) {
            std::printf("  %-12s hp %3d speed %.1f at (%.0f, %.0f)%s\n", l.text.c_str(), h.hp,
                        static_cast<double>(s.value), static_cast<double>(p.x), static_cast<double>(p.y),
                        world.has<Boss>(e) ? " [boss]" : "");
        });

    // Every instance owns its values: changing one touches neither the prefab nor the others.
    world.get<Label>(scout).text = "scout";
    std::printf("scout renamed; prefab label still \"%s\", chief is \"%s\"\n", goblin.try_get<Label>()->text.c_str(),
                world.get<Label>(chief).text.c_str());

    // Prefabs are values: copy one and tweak the copy by instantiating with overrides.
    const ecs::Prefab prefab_copy = goblin;
    const ecs::Entity clone = ecs::instantiate(world, prefab_copy, Label{"clone"});
    std::printf("clone hp %d, entities with Boss: %zu\n", world.get<Health>(clone).hp, world.count<Boss>());
    return 0;
}

// Output:
// goblin prefab: 4 components, has Speed? yes, has Boss? no
// entities: 5, on_add<Health> fired 5 times
//   goblin       hp  30 speed 1.5 at (0, 0)
//   goblin       hp  30 speed 1.5 at (0, 0)
//   goblin       hp  30 speed 1.5 at (0, 0)
//   goblin       hp  30 speed 3.0 at (4, 2)
//   goblin chief hp 200 speed 1.5 at (0, 0) [boss]
// scout renamed; prefab label still "goblin", chief is "goblin chief"
// clone hp 30, entities with Boss: 1
