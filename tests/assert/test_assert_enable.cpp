// Assertion tests for enable bits and sparse storage: get of a missing sparse component names the type
// and the entity and is refused; Changed over an untracked sparse type is refused; a disabled
// component is still there for get (no assertion).
#include "recording_assert.hpp" // first: defines ECS_ASSERT before any ecs header

#include "catch.hpp"

#include <ecs/world.hpp>

#include <string>

namespace {
struct EnPos {
    float x = 0;
};
struct EnSparse {
    int v = 0;
};
} // namespace

template <>
struct ecs::component_traits<EnSparse> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};

namespace {
// Component ids are process-wide: register the types up front, before the limits test uses them up.
const bool registered = [] {
    (void)ecs::ensure_column_factory<EnPos>();
    (void)ecs::ensure_column_factory<EnSparse>();
    return true;
}();
} // namespace

TEST_CASE("assert: get of a missing sparse component names the type and the entity", "[assert][sparse]") {
    (void)registered;
    ecs::World w;
    const ecs::Entity e = w.create_with(EnPos{});
    ecs_assert_test::reset();
    (void)w.get<EnSparse>(e);
    REQUIRE(ecs_assert_test::fired() == 1);
    INFO(ecs_assert_test::last_message());
    CHECK(ecs_assert_test::last_message().find("World::get<") == 0);
    CHECK(ecs_assert_test::last_message().find("EnSparse") != std::string::npos);
    CHECK(ecs_assert_test::last_message().find("does not have the component") != std::string::npos);
    w.destroy(e);
    ecs_assert_test::reset();
    (void)w.get<EnSparse>(e);
    REQUIRE(ecs_assert_test::fired() == 1);
    CHECK(ecs_assert_test::last_message().find("is not alive") != std::string::npos);
    CHECK(w.check_invariants());
}

TEST_CASE("assert: Changed over an untracked sparse type is refused and visits nothing", "[assert][sparse]") {
    ecs::World w;
    const ecs::Entity e = w.create_with(EnPos{});
    w.add(e, EnSparse{1});
    auto q = w.query<const EnPos>(ecs::Changed<EnSparse>{});
    int n = 0;
    ecs_assert_test::reset();
    q.each([&](const EnPos&) { ++n; });
    CHECK(ecs_assert_test::fired() == 1);
    CHECK(n == 0);
    w.track_changes<EnSparse>();
    ecs_assert_test::reset();
    q.each([&](const EnPos&) { ++n; });
    CHECK(ecs_assert_test::fired() == 0);
    CHECK(n == 1);
}

TEST_CASE("assert: disabled components and entities stay readable without assertions", "[assert][enable]") {
    ecs::World w;
    const ecs::Entity e = w.create_with(EnPos{2});
    w.add(e, EnSparse{3});
    w.disable<EnPos>(e);
    w.disable<EnSparse>(e);
    w.disable(e);
    ecs_assert_test::reset();
    CHECK(w.get<EnPos>(e).x == 2);
    CHECK(w.get<EnSparse>(e).v == 3);
    CHECK(ecs_assert_test::fired() == 0);
    w.single<EnPos>([](ecs::Entity, EnPos&) {}); // no match: refused
    CHECK(ecs_assert_test::fired() == 1);
}
