// Expected to fail: each_par without <ecs/parallel.hpp>.
#include <ecs/world.hpp>
struct Position { float x, y; };
struct Health { int hp; };

#include <ecs/executor.hpp>
int main() {
    ecs::World w;
    ecs::InlineExecutor ex;
    w.each_par<Position>(ex, [](Position&) {});
}
