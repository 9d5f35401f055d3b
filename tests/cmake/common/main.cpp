// Consumer program shared by the packaging tests (add_subdirectory, FetchContent, find_package,
// pkg-config). Built by the consumer with -Wall -Wextra -Wpedantic -Werror -fno-exceptions -fno-rtti;
// exits 0 only when the world behaves.
#include <ecs/ecs.hpp>

#include <cstdio>

// The version the consumer found (find_package's ecs_VERSION, pkg-config --modversion) must be the
// one the headers say.
#if defined(ECS_EXPECT_VERSION_MAJOR)
static_assert(ECS_VERSION_MAJOR == ECS_EXPECT_VERSION_MAJOR && ECS_VERSION_MINOR == ECS_EXPECT_VERSION_MINOR &&
                  ECS_VERSION_PATCH == ECS_EXPECT_VERSION_PATCH,
              "ECS_VERSION_MAJOR/MINOR/PATCH differ from the version of the package found");
#endif

namespace {

struct Position {
    float x = 0.0f;
    float y = 0.0f;
};
struct Velocity {
    float dx = 0.0f;
    float dy = 0.0f;
};
struct Frozen {};

} // namespace

int main() {
    ecs::World world;
    ecs::Entity moving = world.create_with(Position{0.0f, 0.0f}, Velocity{1.0f, 2.0f});
    ecs::Entity frozen = world.create_with(Position{5.0f, 5.0f}, Velocity{1.0f, 1.0f}, Frozen{});

    world.each<Position, const Velocity>(ecs::Exclude<Frozen>{}, [](ecs::Entity, Position& p, const Velocity& v) {
        p.x += v.dx;
        p.y += v.dy;
    });
    world.each<Position>([&world](ecs::Entity e, Position&) {
        if (world.has<Frozen>(e)) world.deferred().destroy(e);
    });
    world.flush_deferred();

    const Position& p = world.get<Position>(moving);
    const bool ok = p.x == 1.0f && p.y == 2.0f && !world.alive(frozen) && world.count() == 1 &&
                    world.count<Position, Velocity>() == 1;
    std::printf("ecs %d.%d.%d consumer: %s\n", ECS_VERSION_MAJOR, ECS_VERSION_MINOR, ECS_VERSION_PATCH,
                ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
