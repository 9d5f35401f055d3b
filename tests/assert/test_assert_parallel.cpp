// Assertion tests for the parallel room (ROADMAP 1.0 E): a structural change inside each_par is
// refused, and so is a Schedule system touching a component it did not declare. The executor here
// runs every batch on the calling thread (the recording ECS_ASSERT is not thread-safe), while
// reporting a concurrency of 4 so that each_par takes its batched path.
#include "recording_assert.hpp" // first: defines ECS_ASSERT before any ecs header

#include "catch.hpp"

#include <ecs/each_par.hpp>
#include <ecs/world.hpp>

#include <cstddef>

namespace {

struct ParPos {
    float x;
};
struct ParVel {
    float dx;
};

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
