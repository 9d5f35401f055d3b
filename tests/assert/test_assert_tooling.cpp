// Assertion tests for names and clone: each refusal must fire (recorded, see recording_assert.hpp)
// and leave the world exactly as it was.
#include "recording_assert.hpp" // first: defines ECS_ASSERT before any ecs header

#include "catch.hpp"

#include <ecs/world.hpp>

#include <memory>
#include <string>

namespace {

struct Pos {
    float x, y;
};
struct MoveOnly {
    std::unique_ptr<int> p;
};

const bool types_registered = [] {
    (void)ecs::ensure_column_factory<Pos>();
    (void)ecs::ensure_column_factory<MoveOnly>();
    return true;
}();

} // namespace

TEST_CASE("assert: set_name with a name another entity holds is refused", "[assert][names]") {
    (void)types_registered;
    ecs::World w;
    const ecs::Entity a = w.create_with(Pos{1, 2});
    const ecs::Entity b = w.create_with(Pos{3, 4});
    w.set_name(a, "player");
    w.set_name(b, "enemy");
    ecs_assert_test::reset();
    w.set_name(b, "player");
    CHECK(ecs_assert_test::fired_once_with("World::set_name: name \"player\" is taken by entity"));
    INFO(ecs_assert_test::last_message());
    CHECK(w.name(a) == "player");
    CHECK(w.name(b) == "enemy");
    CHECK(w.lookup("player") == a);
    CHECK(w.lookup("enemy") == b);
    CHECK(w.check_invariants());
    // An unnamed entity asking for a taken name stays unnamed.
    const ecs::Entity c = w.create();
    ecs_assert_test::reset();
    w.set_name(c, "enemy");
    CHECK(ecs_assert_test::fired_once_with("is taken"));
    CHECK(w.name(c).empty());
    CHECK(w.lookup("enemy") == b);
}

TEST_CASE("assert: set_name on a dead entity is refused", "[assert][names]") {
    ecs::World w;
    const ecs::Entity a = w.create();
    w.destroy(a);
    ecs_assert_test::reset();
    w.set_name(a, "ghost");
    CHECK(ecs_assert_test::fired_once_with("World::set_name: entity"));
    CHECK(w.lookup("ghost") == ecs::INVALID_ENTITY);
    ecs_assert_test::reset();
    w.set_name(ecs::INVALID_ENTITY, "ghost");
    CHECK(ecs_assert_test::fired() == 1);
    CHECK(w.lookup("ghost") == ecs::INVALID_ENTITY);
    CHECK(w.check_invariants());
}

TEST_CASE("assert: clone of a world holding a move-only component is refused", "[assert][clone]") {
    ecs::World w;
    const ecs::Entity a = w.create_with(Pos{1, 2});
    const ecs::Entity b = w.create_with(MoveOnly{std::make_unique<int>(7)}, Pos{3, 4});
    w.set_name(a, "a");
    ecs_assert_test::reset();
    ecs::World c = w.clone();
    CHECK(ecs_assert_test::fired_once_with("World::clone: component type"));
    CHECK(ecs_assert_test::fired_once_with("MoveOnly"));
    INFO(ecs_assert_test::last_message());
    CHECK(c.count() == 0); // an empty world
    CHECK(c.archetype_count() == 1);
    CHECK(c.lookup("a") == ecs::INVALID_ENTITY);
    CHECK(c.check_invariants());
    // The source is untouched.
    CHECK(w.count() == 2);
    CHECK(w.get<Pos>(a).x == 1);
    CHECK(*w.get<MoveOnly>(b).p == 7);
    CHECK(w.lookup("a") == a);
    CHECK(w.check_invariants());
}

TEST_CASE("assert: set_name with a name longer than MAX_ENTITY_NAME_LENGTH is refused", "[assert][names]") {
    (void)types_registered;
    ecs::World w;
    const ecs::Entity a = w.create();
    w.set_name(a, "short");
    ecs_assert_test::reset();
    w.set_name(a, std::string(ecs::MAX_ENTITY_NAME_LENGTH + 1, 'n'));
    CHECK(ecs_assert_test::fired_once_with("MAX_ENTITY_NAME_LENGTH"));
    CHECK(w.name(a) == "short"); // unchanged
    ecs_assert_test::reset();
    w.set_name(a, std::string(ecs::MAX_ENTITY_NAME_LENGTH, 'n')); // the longest accepted
    CHECK(ecs_assert_test::fired() == 0);
    CHECK(w.name(a).size() == ecs::MAX_ENTITY_NAME_LENGTH);
}
