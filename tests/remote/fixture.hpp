// The world the remote inspector tests serve: reflected components, one not reflected, a tag,
// a hierarchy, names, a tracked type and an on_set hook.
#pragma once

#include <string>

#include <ecs/builtin/hierarchy_ops.hpp>
#include <ecs/detail/remote_router.hpp>
#include <ecs/serialization.hpp>

namespace remote_test {

struct Position {
    float x = 0;
    float y = 0;
};
struct Velocity {
    float dx = 0;
    float dy = 0;
};
struct Health {
    int hp = 100;
    std::string label = "ok";
};
struct Opaque { // not reflected
    int secret = 7;
};
struct Frozen {};

} // namespace remote_test

ECS_REFLECT(remote_test::Position, x, y);
ECS_REFLECT(remote_test::Velocity, dx, dy);
ECS_REFLECT(remote_test::Health, hp, label);

namespace remote_test {

inline void register_names() {
    ecs::register_component<Position>("Position");
    ecs::register_component<Velocity>("Velocity");
    ecs::register_component<Health>(
        "Health", [](std::ostream& out, const void* h) { out << static_cast<const Health*>(h)->hp << ' '; },
        [](std::istream& in, void* storage) {
            int hp = 0;
            in >> hp;
            in.get();
            new (storage) Health{hp, "ok"};
        });
    ecs::register_component<Opaque>("Opaque");
    ecs::register_component<Frozen>("Frozen");
    ecs::register_component<ecs::Parent>("Parent");
    ecs::register_component<ecs::Children>("Children", &ecs::write_children, &ecs::read_children);
}

/// hero (Position, Velocity, Health), rock (Position, Frozen), ghost (Opaque), 10 movers, a child of hero.
struct Scene {
    ecs::World world;
    ecs::Entity hero, rock, ghost, child;
    int on_set_calls = 0;

    Scene() {
        register_names();
        world.track_changes<Position>();
        hero = world.create_with(Position{1, 2}, Velocity{3, 4}, Health{});
        world.set_name(hero, "hero");
        rock = world.create_with(Position{5, 6}, Frozen{});
        world.set_name(rock, "rock");
        ghost = world.create_with(Opaque{});
        for (int i = 0; i < 10; ++i) world.create_with(Position{float(i), 0}, Velocity{1, 0});
        child = world.create_with(Position{0, 0});
        ecs::set_parent(world, child, hero);
        world.on_set<Health>([this](ecs::World&, ecs::Entity, Health&) { ++on_set_calls; });
    }
};

inline ecs::detail::RemoteResponse call(ecs::detail::RemoteRouter& r, std::string method, std::string path, std::string body = "",
                                        std::string authorization = "") {
    ecs::detail::RemoteRequest q;
    q.method = std::move(method);
    q.path = std::move(path);
    q.body = std::move(body);
    q.authorization = std::move(authorization);
    return r.handle(q);
}

inline std::string id_of(ecs::Entity e) { return std::to_string(e.index) + "." + std::to_string(e.generation); }

} // namespace remote_test
