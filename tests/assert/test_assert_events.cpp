// Assertion tests for events: update_events() from inside a reader's callback fires and is refused
// (the frame is not ended, the events being read stay alive).
#include "recording_assert.hpp" // first: defines ECS_ASSERT before any ecs header

#include "catch.hpp"

#include <ecs/world.hpp>

#include <vector>

namespace {
struct Ping {
    int value;
};
} // namespace

TEST_CASE("assert events: update_events from inside a read is refused", "[assert][events]") {
    ecs::World world;
    world.send(Ping{1});
    world.send(Ping{2});
    world.update_events(); // both now in the older frame: one more update would drop them
    ecs::EventReader<Ping> reader;
    std::vector<int> got;
    ecs_assert_test::reset();
    const size_t n = reader.read(world, [&](const Ping& p) {
        world.update_events();
        got.push_back(p.value); // still alive: the update was refused
    });
    CHECK(n == 2);
    CHECK(got == std::vector<int>{1, 2});
    INFO(ecs_assert_test::last_message());
    CHECK(ecs_assert_test::fired() == 2);
    CHECK(ecs_assert_test::failures()[0].message.find("World::update_events") != std::string::npos);
    // Outside the read the frame ends as usual.
    ecs_assert_test::reset();
    world.update_events();
    CHECK(ecs_assert_test::fired() == 0);
    ecs::EventReader<Ping> late;
    CHECK(late.read(world, [](const Ping&) {}) == 0);
    CHECK(late.missed() == 2);
}
