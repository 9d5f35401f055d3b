// Must not compile: Up along a relationship that is not exclusive (an entity may have several targets).
#include <ecs/ecs.hpp>

struct Likes {};
struct Transform {
    float x;
};

int main() {
    ecs::World w;
    w.each<ecs::Up<Likes, const Transform>>([](const Transform*) {});
    return 0;
}
