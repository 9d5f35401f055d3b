// Must not compile: a type listed twice in one AnyOf filter.
#include <ecs/ecs.hpp>

struct A {
    int v;
};
struct B {
    int v;
};

int main() {
    ecs::World w;
    w.each<A>(ecs::AnyOf<B, B>{}, [](A&) {});
    return 0;
}
