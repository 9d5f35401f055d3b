// Expected to fail: a value filter (Related<R>{target}) in a bulk operation would be ignored.
#include <ecs/ecs.hpp>
struct Position { float x, y; };
struct Targets {};
int main() {
    ecs::World w;
    const ecs::Entity enemy = w.create();
    (void)w.destroy_all<Position>(ecs::Related<Targets>{enemy});
}
