// Assertion tests for the parallel room (ROADMAP 1.0 E): a structural change inside each_par is
// refused, and so is a Schedule system touching a component it did not declare. The executor here
// runs every batch on the calling thread (the recording ECS_ASSERT is not thread-safe), while
// reporting a concurrency of 4 so that each_par takes its batched path.
#include "recording_assert.hpp" // first: defines ECS_ASSERT before any ecs header

#include "catch.hpp"

#include <ecs/each_par.hpp>
#include <ecs/schedule.hpp>
#include <ecs/world.hpp>

#include <cstddef>

namespace {

struct ParPos {
    float x;
};
struct ParVel {
    float dx;
};

// Ids are handed out before any test runs, so the 257-types test (another file) cannot starve these
// types whatever the test order.
const bool types_registered = [] {
    (void)ecs::ensure_column_factory<ParPos>();
    (void)ecs::ensure_column_factory<ParVel>();
    return true;
}();

class SerialBatches final : public ecs::Executor {
public:
    size_t concurrency() const override { return 4; }
    void parallel_for(size_t count, void (*task)(void*, size_t), void* context) override {
        for (size_t i = 0; i < count; ++i) task(context, i);
    }
};

} // namespace

TEST_CASE("assert: a structural change inside each_par is refused", "[assert][parallel]") {
    ecs::World w;
    for (int i = 0; i < 10000; ++i) w.create_with(ParPos{static_cast<float>(i)});
    SerialBatches executor;
    ecs_assert_test::reset();
    size_t tries = 0;
    bool iterating = true;
    w.each_par<ParPos>(executor, [&](ecs::Entity e, ParPos&) {
        iterating = iterating && w.iterating();
        if (e.index % 2500 == 1) {
            ++tries;
            w.add(e, ParVel{1});
            w.destroy(e);
            (void)w.create();
        }
    });
    CHECK(iterating);
    CHECK(tries == 4);
    CHECK(ecs_assert_test::fired() == tries * 3);
    INFO(ecs_assert_test::last_message());
    CHECK(ecs_assert_test::last_message().find("structural change during iteration") != std::string::npos);
    CHECK(w.count() == 10000);
    CHECK(w.count<ParVel>() == 0);
    CHECK(w.check_invariants());
    CHECK(!w.iterating());
}

TEST_CASE("assert: a Schedule system touching an undeclared component is refused", "[assert][parallel]") {
    ecs::World w;
    const ecs::Entity e = w.create_with(ParPos{1}, ParVel{2});
    ecs::Schedule s;
    size_t visits = 0;
    const ParVel* seen = &w.get<ParVel>(e);
    s.add("mover", ecs::Reads<ParPos>{}, [&](ecs::World& world) {
        (void)world.get<const ParPos>(e); // declared read: fine
        ecs_assert_test::reset();
        seen = world.try_get<const ParVel>(e); // undeclared read
    });
    s.run(w);
    INFO(ecs_assert_test::last_message());
    CHECK(ecs_assert_test::fired_once_with("\"mover\""));
    CHECK(ecs_assert_test::last_message().find("ParVel") != std::string::npos);
    CHECK(seen == nullptr);

    ecs::Schedule t;
    t.add("writer", ecs::Reads<ParPos>{}, [&](ecs::World& world) {
        ecs_assert_test::reset();
        world.each<ParPos>([&](ParPos&) { ++visits; }); // written, but only read is declared
    });
    t.run(w);
    CHECK(ecs_assert_test::fired_once_with("\"writer\" writes undeclared component"));
    CHECK(ecs_assert_test::last_message().find("ParPos") != std::string::npos);
    CHECK(visits == 0);

    // Per-entity systems get their terms; exclusive systems are unchecked.
    ecs::Schedule u;
    u.add<ParPos>("terms", [&](ParPos& p) { p.x += 1; });
    u.add("exclusive", [&](ecs::World& world) { world.get<ParVel>(e).dx += 1; });
    ecs_assert_test::reset();
    u.run(w);
    CHECK(ecs_assert_test::fired() == 0);
    CHECK(w.get<ParPos>(e).x == 2);
    CHECK(w.get<ParVel>(e).dx == 3);
}
