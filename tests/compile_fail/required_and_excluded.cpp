// Expected to fail: a type both required and excluded (a query that can never match).
#include <ecs/world.hpp>
struct Position { float x, y; };
struct Health { int hp; };

int main() {
    ecs::World w;
    w.each<Position>(ecs::Exclude<Position>{}, [](Position&) {});
}
