// Must not compile: an Up term with a mutable T (ancestors' values are read-only).
#include <ecs/ecs.hpp>

struct Transform {
    float x;
};

int main() {
    ecs::World w;
    w.each<ecs::Up<ecs::Parent, Transform>>([](Transform*) {});
    return 0;
}
