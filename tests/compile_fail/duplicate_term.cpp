// Expected to fail: a type listed twice.
#include <ecs/world.hpp>
struct Position { float x, y; };
struct Health { int hp; };

int main() {
    ecs::World w;
    w.each<Position, const Position>([](Position&, const Position&) {});
}
