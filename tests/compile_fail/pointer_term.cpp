// Expected to fail: a pointer term used to compile and silently match nothing.
#include <ecs/world.hpp>
struct Position { float x, y; };
struct Health { int hp; };

int main() {
    ecs::World w;
    w.each<Position*>([](ecs::Entity, Position*&) {});
}
