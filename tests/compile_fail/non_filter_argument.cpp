// Expected to fail: an argument before the callback that is not a filter.
#include <ecs/world.hpp>
struct Position { float x, y; };
struct Health { int hp; };

int main() {
    ecs::World w;
    w.each<Position>(42, [](Position&) {});
}
