// Expected to fail: Cascade<R> over a relationship that is not exclusive.
#include <ecs/world.hpp>
struct Position { float x, y; };
struct Likes {}; // relation_traits<Likes>::exclusive is false

int main() {
    ecs::World w;
    w.each<Position>(ecs::Cascade<Likes>{}, [](Position&) {});
}
