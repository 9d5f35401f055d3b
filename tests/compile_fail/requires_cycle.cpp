// Expected to fail: required components that require each other (A -> B -> A).
#include <ecs/world.hpp>
struct A { int v = 0; };
struct B { int v = 0; };
template <> struct ecs::component_traits<A> { using required = ecs::Requires<B>; };
template <> struct ecs::component_traits<B> { using required = ecs::Requires<A>; };

int main() {
    ecs::World w;
    w.add(w.create(), A{});
}
