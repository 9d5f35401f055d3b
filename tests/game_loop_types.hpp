// Component types shared by the game-loop tests (schedule loop, entity events, prefab trees,
// required components, their model test), so that together they use few of the process-wide
// component ids (ECS_MAX_COMPONENTS). The requirement graph used by test_requires.cpp:
//   RigidBody -> Pos, Vel;  Vel -> Mass, Pos;  Collider -> RigidBody, Tag;  Lifed -> Counted, CountedWide
#pragma once

#include <ecs/component.hpp>

#include "counting.hpp"

namespace gl_test {

struct Pos {
    float x = 0, y = 0;
};
struct Vel {
    float dx = 0, dy = 0;
};
struct RigidBody {
    float mass = 1;
};
struct Mass {
    float kg = 0;
};
struct Collider {
    int shape = 0;
};
struct Tag {};
struct Lifed {
    int v = 0;
};
struct Health {
    int hp = 0;
};
struct Turret {
    int barrels = 1;
};
struct Paused {
    bool on = false;
};

} // namespace gl_test

template <>
struct ecs::component_traits<gl_test::RigidBody> {
    using requires = ecs::Requires<gl_test::Pos, gl_test::Vel>;
};
template <>
struct ecs::component_traits<gl_test::Vel> {
    using requires = ecs::Requires<gl_test::Mass, gl_test::Pos>; // transitive, and a diamond on Pos
};
template <>
struct ecs::component_traits<gl_test::Collider> {
    using required = ecs::Requires<gl_test::RigidBody, gl_test::Tag>; // the spelling that also works in C++20
};
template <>
struct ecs::component_traits<gl_test::Lifed> {
    using requires = ecs::Requires<ecs_test::Counted, ecs_test::CountedWide>;
};
