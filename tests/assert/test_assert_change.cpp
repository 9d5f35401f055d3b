// Assertion tests for change detection: a Changed/Added run over an untracked type is refused.
#include "recording_assert.hpp" // first: defines ECS_ASSERT before any ecs header

#include "catch.hpp"

#include <ecs/world.hpp>

namespace {
struct ChPos {
    float x = 0;
};
struct ChVel {
    float x = 0;
};
} // namespace

TEST_CASE("assert: Changed/Added over an untracked type is refused and visits nothing", "[assert][change]") {
    ecs::World w;
    w.track_changes<ChPos>();
    (void)w.create_with(ChPos{}, ChVel{});
    auto changed = w.query<const ChPos>(ecs::Changed<ChVel>{});
    auto added = w.query<const ChPos>(ecs::Added<ChVel>{});
    int n = 0;
    ecs_assert_test::reset();
    changed.each([&](const ChPos&) { ++n; });
    CHECK(ecs_assert_test::fired() == 1);
    ecs_assert_test::reset();
    added.each_chunk([&](ecs::Chunk&) { ++n; });
    CHECK(ecs_assert_test::fired() == 1);
    CHECK(n == 0);
    // Once tracked, the refused runs kept no progress: the first real run sees the entity.
    w.track_changes<ChVel>();
    ecs_assert_test::reset();
    changed.each([&](const ChPos&) { ++n; });
    CHECK(ecs_assert_test::fired() == 0);
    CHECK(n == 1);
}

TEST_CASE("assert: patch on an entity without the component is refused", "[assert][change]") {
    ecs::World w;
    const ecs::Entity e = w.create();
    bool called = false;
    ecs_assert_test::reset();
    w.patch<ChPos>(e, [&](ChPos&) { called = true; });
    CHECK(ecs_assert_test::fired_once_with("World::patch<ChPos>: entity"));
    CHECK_FALSE(called);
    // A dead entity: the same refusal, before anything is read.
    w.destroy(e);
    ecs_assert_test::reset();
    w.patch<ChPos>(e, [&](ChPos&) { called = true; });
    CHECK(ecs_assert_test::fired_once_with("is not alive or does not have the component"));
    CHECK_FALSE(called);
}
