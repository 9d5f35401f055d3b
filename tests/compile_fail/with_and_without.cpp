// Expected to fail: With and Without of the same type.
#include <ecs/world.hpp>
struct Position { float x, y; };
struct Health { int hp; };

int main() {
    ecs::World w;
    auto q = w.query<const Position>(ecs::With<Health>{}, ecs::Without<Health>{});
    (void)q;
}
