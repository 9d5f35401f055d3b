// Assertion tests for the game loop: emit during iteration, run_if / interval without a system or
// with a bad period, a negative delta, observe on a dead entity, and a bad FixedStep are refused and
// leave the world as it was.
#include "recording_assert.hpp" // first: defines ECS_ASSERT before any ecs header

#include "catch.hpp"

#include <ecs/ecs.hpp>
#include <ecs/schedule.hpp>

namespace {
struct AsPing {
    int v = 0;
};
struct AsPos {
    float x = 0;
};
} // namespace

TEST_CASE("assert: emit during iteration is refused; the buffered emit runs at the flush", "[assert][entity_events]") {
    ecs::World w;
    const ecs::Entity e = w.create_with(AsPos{});
    int calls = 0;
    w.observe<AsPing>(e, [&](ecs::World&, ecs::Entity, AsPing&, ecs::Propagation&) { ++calls; });
    ecs_assert_test::reset();
    w.each<const AsPos>([&](ecs::Entity self, const AsPos&) { w.emit(self, AsPing{}); });
    CHECK(ecs_assert_test::fired() == 1);
    CHECK(calls == 0);
    ecs_assert_test::reset();
    CHECK(w.observe<AsPing>(w.create(), [](ecs::World&, ecs::Entity, AsPing&, ecs::Propagation&) {}).valid());
    const ecs::Entity dead = w.create();
    w.destroy(dead);
    CHECK(!w.observe<AsPing>(dead, [](ecs::World&, ecs::Entity, AsPing&, ecs::Propagation&) {}).valid());
    CHECK(ecs_assert_test::fired() == 1);
}

TEST_CASE("assert: run_if and interval need a system; interval and delta must be sane", "[assert][schedule][loop]") {
    ecs::World w;
    ecs::Schedule s;
    ecs_assert_test::reset();
    s.run_if([](const ecs::World&) { return true; });
    CHECK(ecs_assert_test::fired() == 1);
    s.interval(1.0);
    CHECK(ecs_assert_test::fired() == 2);
    int n = 0;
    s.add("x", [&](ecs::World&) { ++n; }).interval(-1.0);
    CHECK(ecs_assert_test::fired() == 3);
    s.run(w, -0.5);
    CHECK(ecs_assert_test::fired() == 4);
    CHECK(n == 0);
    CHECK(!w.has_resource<ecs::Time>());
    s.run(w, 0.5);
    CHECK(n == 1); // the refused interval left the system unlimited
    ecs::FixedStep step(0.1);
    CHECK(step.advance(w, s, -1.0) == 0);
    CHECK(ecs_assert_test::fired() == 5);
}

TEST_CASE("assert: multi_threaded needs a per-entity system without a CommandBuffer", "[assert][schedule]") {
    ecs::World w;
    const ecs::Entity e = w.create_with(AsPos{1});
    ecs::Schedule s;
    ecs_assert_test::reset();
    s.multi_threaded(); // no system yet
    CHECK(ecs_assert_test::fired() == 1);
    ecs_assert_test::reset();
    s.add("world", [](ecs::World&) {}).multi_threaded(); // an exclusive system
    CHECK(ecs_assert_test::fired() == 1);
    ecs_assert_test::reset();
    s.add<AsPos>("buffered", [](ecs::CommandBuffer&, AsPos& p) { p.x += 1; }).multi_threaded();
    CHECK(ecs_assert_test::fired() == 1);
    ecs_assert_test::reset();
    s.add<AsPos>("plain", [](AsPos& p) { p.x += 1; }).multi_threaded();
    CHECK(ecs_assert_test::fired() == 0);
    s.run(w); // the refusals left the systems as they were: all three run
    CHECK(w.get<AsPos>(e).x == 3.0f);
}
