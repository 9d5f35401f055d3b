// Expected to fail: Changed<> on world.each (no handle to remember its progress).
#include <ecs/world.hpp>
struct Position { float x, y; };
struct Health { int hp; };

int main() {
    ecs::World w;
    w.each<Position>(ecs::Changed<Position>{}, [](Position&) {});
}
