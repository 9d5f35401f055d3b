// command_buffer: structural changes while iterating, with deferred commands.
//
// Inside a query callback the world's tables must not change shape (create, destroy, add or remove a
// component type), since the loop is walking them. Record the changes instead:
//  - world.deferred() queues them in the world; flush_deferred() (or SystemRegistry, after each
//    system) applies them in recording order;
//  - a standalone ecs::CommandBuffer holds them until you flush it into a world of your choice.
#include <cstdio>

#include <ecs/ecs.hpp>

struct Health {
    int hp = 0;
};
struct Poisoned {
    int damage_per_tick = 0;
};
struct Corpse {};

int main() {
    ecs::World world;
    for (int i = 0; i < 6; ++i) world.create_with(Health{10 * (i + 1)});

    // 1. world.deferred() during iteration, flushed by hand.
    world.each<const Health>([&](ecs::Entity e, const Health& h) {
        if (h.hp <= 20) world.deferred().add(e, Poisoned{15}); // would move e to another archetype
    });
    std::printf("queued %zu commands, poisoned so far: %zu\n", world.deferred_count(), world.count<Poisoned>());
    world.flush_deferred();
    std::printf("after flush_deferred, poisoned: %zu\n", world.count<Poisoned>());

    // 2. SystemRegistry flushes the deferred queue after every system, so each system sees what the
    //    previous one queued.
    ecs::SystemRegistry systems;
    systems.add("poison", [](ecs::World& w) {
        w.each_no_entity<Health, const Poisoned>([](Health& h, const Poisoned& p) { h.hp -= p.damage_per_tick; });
    });
    systems.add("reap", [](ecs::World& w) {
        w.each<const Health>(ecs::Exclude<Corpse>{}, [&w](ecs::Entity e, const Health& h) {
            if (h.hp <= 0) {
                w.deferred().remove<Poisoned>(e);
                w.deferred().add(e, Corpse{});
            }
        });
    });
    systems.add("report", [](ecs::World& w) {
        std::printf("  alive %zu, corpses %zu\n", w.count<Health>() - w.count<Corpse>(), w.count<Corpse>());
    });
    for (int tick = 1; tick <= 2; ++tick) {
        std::printf("tick %d\n", tick);
        systems.run_all(world);
    }

    // 3. A CommandBuffer collects work over several frames and is flushed when you decide.
    ecs::CommandBuffer buffer;
    for (int frame = 0; frame < 3; ++frame) {
        world.each<const Corpse>([&](ecs::Entity e, const Corpse&) {
            if (frame == 2) buffer.destroy(e); // bury them on the third frame
        });
        buffer.create_with(Health{100}); // one reinforcement per frame
    }
    std::printf("buffer holds %zu commands; world still has %zu entities\n", buffer.size(), world.count());
    buffer.flush(world);
    std::printf("after flush: %zu entities, buffer empty? %s\n", world.count(), buffer.empty() ? "yes" : "no");

    // 4. Commands run in recording order: an add recorded after a destroy finds the entity dead and
    //    does nothing.
    const ecs::Entity doomed = world.create_with(Health{1});
    buffer.destroy(doomed);
    buffer.add(doomed, Poisoned{1});
    buffer.flush(world);
    std::printf("doomed alive? %s, poisoned entities: %zu\n", world.alive(doomed) ? "yes" : "no",
                world.count<Poisoned>());
    return 0;
}

// Output:
// queued 2 commands, poisoned so far: 0
// after flush_deferred, poisoned: 2
// tick 1
//   alive 5, corpses 1
// tick 2
//   alive 4, corpses 2
// buffer holds 5 commands; world still has 6 entities
// after flush: 7 entities, buffer empty? yes
// doomed alive? no, poisoned entities: 0
