// Expected to fail: a mutable term on a const World.
#include <ecs/world.hpp>
struct Position { float x, y; };
struct Health { int hp; };

int main() {
    ecs::World w;
    const ecs::World& cw = w;
    cw.each<Position>([](Position&) {});
}
