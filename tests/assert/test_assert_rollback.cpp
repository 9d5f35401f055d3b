// World::copy_from and Rollback::save refuse a world holding a type that cannot be copied: the
// assertion names the function and the type, and the destination is left unchanged.
#include "recording_assert.hpp" // first: defines ECS_ASSERT before any ecs header
#include "catch.hpp"
#include <ecs/rollback.hpp>
#include <ecs/world.hpp>
#include <memory>
#include <string>

namespace {
struct RbUnique {
    std::unique_ptr<int> p;
};
struct RbPos {
    float x = 0;
};
// Component ids are process-wide: register the types up front, before the limits test uses them up.
const bool registered = [] {
    (void)ecs::ensure_column_factory<RbUnique>();
    (void)ecs::ensure_column_factory<RbPos>();
    return true;
}();
} // namespace

TEST_CASE("assert: copy_from refuses a type that cannot be copied, leaving the world unchanged", "[assert][rollback]") {
    ecs::World src;
    (void)src.create_with(RbPos{1});
    (void)src.create_with(RbUnique{std::make_unique<int>(3)});
    ecs::World dst;
    const ecs::Entity mine = dst.create_with(RbPos{42});
    dst.set_name(mine, "mine");
    ecs_assert_test::reset();
    dst.copy_from(src);
    CHECK(ecs_assert_test::fired_once_with("World::copy_from: component type"));
    CHECK(ecs_assert_test::last_message().find("RbUnique") != std::string::npos);
    CHECK(dst.count() == 1);
    CHECK(dst.get<RbPos>(mine).x == 42);
    CHECK(dst.lookup("mine") == mine);
    CHECK(dst.check_invariants());

    // Rollback::save refuses too: the frame is not held, and loading it fails.
    ecs::Rollback rb(src, 2);
    ecs_assert_test::reset();
    rb.save(1);
    CHECK(ecs_assert_test::fired_once_with("Rollback::save: component type"));
    CHECK_FALSE(rb.holds(1));
    CHECK_FALSE(rb.load(1));
    CHECK(src.count() == 2);

    // During iteration: refused as well.
    ecs::World other;
    (void)other.create_with(RbPos{7});
    ecs_assert_test::reset();
    dst.each<RbPos>([&](RbPos&) { dst.copy_from(other); });
    CHECK(ecs_assert_test::fired_once_with("World::copy_from: called during iteration"));
    CHECK(dst.get<RbPos>(mine).x == 42);
}
