// Expected to fail: a reference term.
#include <ecs/world.hpp>
struct Position { float x, y; };
struct Health { int hp; };

int main() {
    ecs::World w;
    auto q = w.query<Position&>();
    (void)q;
}
