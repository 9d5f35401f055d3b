// The game loop: a schedule with a run condition, an interval and states, ecs::Time, a fixed step
// for physics, entity events that bubble up a ship's hierarchy, a prefab tree, required components.
#include <ecs/ecs.hpp>
#include <ecs/schedule.hpp>

#include <cstdio>

struct Position {
    float x = 0, y = 0;
};
struct Velocity {
    float dx = 0, dy = 0;
};
struct RigidBody {
    float mass = 1;
};
struct Health {
    int hp = 0;
};
struct Turret {};
struct Paused {
    bool on = false;
};
struct Hit {
    int damage = 0;
};
enum class Game { Menu, Playing, Over };

// Adding a RigidBody adds a Position and a Velocity (value-initialised) in the same migration.
template <>
struct ecs::component_traits<RigidBody> {
    using requires = ecs::Requires<Position, Velocity>;
};

int main() {
    ecs::World world;
    world.set_resource(Paused{});
    world.set_resource(ecs::State<Game>{Game::Menu});

    // A ship with two turrets, one of which carries a sensor: a prefab tree.
    ecs::Prefab sensor = ecs::Prefab::create(Position{0, 2});
    ecs::Prefab ship = ecs::Prefab::create(RigidBody{10}, Health{100});
    ship.child(ecs::Prefab::create(Position{1, 0}, Turret{}).child(sensor));
    ship.child(ecs::Prefab::create(Position{-1, 0}, Turret{}));

    // Hits bubble from the part that was hit up to the ship, whose Health takes them; a shield on the
    // first turret halves them, and a sensor stops them (it is too far from the hull to matter).
    world.observe<Hit>([](ecs::World& w, ecs::Entity target, Hit& hit, ecs::Propagation& p) {
        if (Health* h = w.try_get<Health>(target)) {
            h->hp -= hit.damage;
            std::printf("  ship takes %d, health %d (after %u levels)\n", hit.damage, h->hp, p.depth());
        }
    });

    ecs::Schedule frame;
    frame.on_enter(Game::Playing, "spawn", [&](ecs::World& w) {
        const ecs::Entity root = ecs::instantiate(w, ship);
        const ecs::Entity first = w.get<ecs::Children>(root).entities[0];
        w.observe<Hit>(first, [](ecs::World&, ecs::Entity, Hit& hit, ecs::Propagation&) { hit.damage /= 2; });
        const ecs::Entity probe = w.get<ecs::Children>(first).entities[0];
        w.observe<Hit>(probe, [](ecs::World&, ecs::Entity, Hit&, ecs::Propagation& p) { p.stop(); });
        std::printf("enter Playing: ship of %zu entities, velocity? %s\n", w.count(), w.has<Velocity>(root) ? "yes" : "no");
    });
    frame.on_exit(Game::Playing, "report", [](ecs::World& w) { std::printf("exit Playing at frame %llu\n", static_cast<unsigned long long>(w.resource<ecs::Time>().frame)); });
    frame.add("menu", [](ecs::World& w) {
        std::printf("frame %llu: menu, starting\n", static_cast<unsigned long long>(w.resource<ecs::Time>().frame));
        w.resource<ecs::State<Game>>().set_next(Game::Playing);
    }).run_if(ecs::in_state(Game::Menu));
    frame.add("radar", [](ecs::World& w) {
        std::printf("frame %llu: radar sweep at t=%.2f\n", static_cast<unsigned long long>(w.resource<ecs::Time>().frame),
                    w.resource<ecs::Time>().elapsed);
    }).interval(0.25).run_if(ecs::in_state(Game::Playing));
    frame.add("combat", [](ecs::World& w) {
        const ecs::Time& t = w.resource<ecs::Time>();
        if (t.frame == 4) {
            std::printf("frame 4: the hull is hit\n");
            w.each<const Health>([&](ecs::Entity e, const Health&) { w.deferred().call([e](ecs::World& ww) { ww.emit(e, Hit{10}); }); });
        }
        if (t.frame == 5) {
            std::printf("frame 5: each turret is hit\n");
            w.each<const Turret>([&](ecs::Entity e, const Turret&) { w.deferred().call([e](ecs::World& ww) { ww.emit(e, Hit{10}); }); });
            w.each<const ecs::Parent>(ecs::Without<Turret>{}, [&](ecs::Entity e, const ecs::Parent&) {
                w.deferred().call([e](ecs::World& ww) { ww.emit(e, Hit{50}); }); // the sensor: stopped
            });
        }
        if (t.frame == 8) w.resource<ecs::State<Game>>().set_next(Game::Over);
    }).run_if(ecs::in_state(Game::Playing)).run_if([](const ecs::World& w) { return !w.resource<Paused>().on; });
    frame.add("flush", [](ecs::World& w) { w.flush_deferred(); });

    // Physics at a fixed 1/20 s, whatever the frame rate: the ship drifts.
    ecs::Schedule physics;
    physics.add<Position, const Velocity, const RigidBody>("integrate", [](Position& p, const Velocity& v, const RigidBody&) {
        p.x += v.dx / 20;
    });
    ecs::FixedStep step(1.0 / 20);

    for (int f = 0; f < 10; ++f) {
        if (f == 2) world.each<Velocity>([](Velocity& v) { v.dx = 2; });
        world.resource<Paused>().on = f == 6; // frame 7 (1-based) is paused: combat is skipped
        frame.run(world, 0.125);
        const size_t steps = step.advance(world, physics, 0.125);
        if (f == 3) std::printf("physics: %zu steps this frame, alpha %.2f\n", steps, step.alpha());
    }
    world.each<const Position, const RigidBody>([](const Position& p, const RigidBody& b) { std::printf("ship at x=%.2f, mass %.0f\n", p.x, b.mass); });
    for (const auto& s : frame.stats()) std::printf("%-7s runs %llu skipped %llu\n", s.name.c_str(), static_cast<unsigned long long>(s.runs), static_cast<unsigned long long>(s.skipped));
    return 0;
}

// Output:
// frame 1: menu, starting
// enter Playing: ship of 4 entities, velocity? yes
// frame 2: radar sweep at t=0.25
// frame 4: radar sweep at t=0.50
// frame 4: the hull is hit
//   ship takes 10, health 90 (after 0 levels)
// physics: 3 steps this frame, alpha 0.00
// frame 5: each turret is hit
//   ship takes 10, health 80 (after 1 levels)
//   ship takes 5, health 75 (after 1 levels)
// frame 6: radar sweep at t=0.75
// frame 8: radar sweep at t=1.00
// exit Playing at frame 9
// ship at x=2.00, mass 10
// menu    runs 1 skipped 9
// radar   runs 4 skipped 6
// combat  runs 6 skipped 4
// flush   runs 10 skipped 0
// spawn   runs 1 skipped 0
// report  runs 1 skipped 0
