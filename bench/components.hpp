/**
 * @file bench/components.hpp
 * @brief The components of the benchmarks (`ecs_bench`) and of `ecs_op_cost`: Position, Velocity,
 *        Health, the fragmenting dummies A..D and an empty tag.
 */
#pragma once

namespace bench {

struct Position {
    float x, y;
};
struct Velocity {
    float x, y;
};
struct Health {
    int hp, max_hp;
};
/// Dummies used to fragment the world into many archetypes.
struct A {
    float v;
};
struct B {
    float v;
};
struct C {
    float v;
};
struct D {
    float v;
};
/// An empty tag (stored without bytes).
struct Tag {};

} // namespace bench
