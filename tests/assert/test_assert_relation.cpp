// Assertion tests for relationships: each refusal must fire once with a message naming the function
// (and the type and entity where it can), and leave the world exactly as it was.
#include "recording_assert.hpp" // first: defines ECS_ASSERT before any ecs header

#include "catch.hpp"

#include <ecs/command_buffer.hpp>
#include <ecs/schedule.hpp>
#include <ecs/serialization.hpp>
#include <ecs/world.hpp>

#include <sstream>
#include <string>

namespace {

struct ArPos {
    float x = 0;
};
struct ArLikes {};
struct ArParent {};
struct ArUnnamed {};

// Ids are handed out before any test runs, so the 257-types test (another file) cannot starve these
// types whatever the test order.
const bool types_registered = [] {
    (void)ecs::ensure_column_factory<ArPos>();
    (void)ecs::detail::relation_info<ArLikes>();
    (void)ecs::detail::relation_info<ArParent>();
    (void)ecs::detail::relation_info<ArUnnamed>();
    ecs::register_component<ArPos>("ar.Pos");
    ecs::register_relation<ArLikes>("ar.Likes");
    ecs::register_relation<ArParent>("ar.Parent");
    return true;
}();

} // namespace

template <>
struct ecs::relation_traits<ArParent> {
    static constexpr bool exclusive = true;
};

namespace {

/// Everything observable about the pairs among `e`, to compare before and after a refusal.
std::string pairs_state(const ecs::World& w, const ecs::Entity (&e)[3]) {
    std::ostringstream out;
    out << "count=" << w.count() << " archetypes=" << w.archetype_count() << " invariants=" << w.check_invariants() << "\n";
    for (const ecs::Entity s : e)
        for (const ecs::Entity t : e)
            out << w.related<ArLikes>(s, t) << w.related<ArParent>(s, t) << w.related<ArUnnamed>(s, t);
    return out.str();
}

} // namespace

TEST_CASE("assert relation: relating a dead or invalid entity is refused", "[assert][relation]") {
    REQUIRE(types_registered);
    ecs::World w;
    const ecs::Entity e[3] = {w.create_with(ArPos{}), w.create_with(ArPos{}), w.create_with(ArPos{})};
    w.relate<ArLikes>(e[0], e[1]);
    const ecs::Entity dead = w.create_with(ArPos{});
    w.destroy(dead);
    const std::string before = pairs_state(w, e);

    ecs_assert_test::reset();
    w.relate<ArLikes>(dead, e[0]);
    CHECK(ecs_assert_test::fired_once_with("World::relate<"));
    CHECK(ecs_assert_test::fired_once_with("is not alive (source)"));
    INFO(ecs_assert_test::last_message());
    ecs_assert_test::reset();
    w.relate<ArLikes>(e[0], dead);
    CHECK(ecs_assert_test::fired_once_with("is not alive (target)"));
    ecs_assert_test::reset();
    w.relate<ArParent>(e[2], ecs::INVALID_ENTITY);
    CHECK(ecs_assert_test::fired_once_with("World::relate<"));
    ecs_assert_test::reset();
    w.deferred().relate<ArLikes>(e[1], dead); // deferred: dead at flush is a no-op, not a refusal
    w.flush_deferred();
    CHECK(ecs_assert_test::fired() == 0);
    CHECK(pairs_state(w, e) == before);
}

TEST_CASE("assert relation: relating and unrelating during iteration are refused", "[assert][relation]") {
    ecs::World w;
    const ecs::Entity e[3] = {w.create_with(ArPos{}), w.create_with(ArPos{}), w.create_with(ArPos{})};
    w.relate<ArLikes>(e[0], e[1]);
    w.relate<ArParent>(e[0], e[1]);
    const std::string before = pairs_state(w, e);
    int refusals = 0;
    bool once = false;
    w.each<ArPos>([&](ecs::Entity, ArPos&) {
        if (once) return;
        once = true;
        ecs_assert_test::reset();
        w.relate<ArLikes>(e[2], e[1]);
        refusals += ecs_assert_test::fired_once_with("World::relate: relationship change during iteration") ? 1 : 0;
        ecs_assert_test::reset();
        w.relate<ArParent>(e[0], e[2]); // even a replacement that keeps the archetype
        refusals += ecs_assert_test::fired_once_with("during iteration") ? 1 : 0;
        ecs_assert_test::reset();
        w.unrelate<ArLikes>(e[0], e[1]);
        refusals += ecs_assert_test::fired_once_with("World::unrelate: relationship change during iteration") ? 1 : 0;
        ecs_assert_test::reset();
        w.unrelate_all<ArParent>(e[0]);
        refusals += ecs_assert_test::fired_once_with("World::unrelate_all") ? 1 : 0;
        ecs_assert_test::reset();
        w.unrelate<ArLikes>(e[2], e[1]); // not related: a no-op, nothing to refuse
        refusals += ecs_assert_test::fired() == 0 ? 1 : 0;
        // Reading is fine.
        refusals += w.related<ArLikes>(e[0], e[1]) && w.target<ArParent>(e[0]) == e[1] ? 1 : 0;
        w.deferred().relate<ArLikes>(e[2], e[1]);
    });
    CHECK(refusals == 6);
    CHECK(pairs_state(w, e) == before);
    w.flush_deferred();
    CHECK(w.related<ArLikes>(e[2], e[1]));
}

TEST_CASE("assert relation: observers refuse Related<R>{target} and Cascade<R>", "[assert][relation]") {
    ecs::World w;
    const ecs::Entity t = w.create();
    ecs_assert_test::reset();
    const ecs::ObserverId id = w.on_enter<ArPos>(ecs::Related<ArLikes>{t}, [](ecs::World&, ecs::Entity) {});
    CHECK_FALSE(id.valid());
    CHECK(ecs_assert_test::fired_once_with("World::on_enter: Related<R>{target}"));
    ecs_assert_test::reset();
    const ecs::ObserverId id2 = w.on_leave<ArPos>(ecs::Cascade<ArParent>{}, [](ecs::World&, ecs::Entity) {});
    CHECK_FALSE(id2.valid());
    CHECK(ecs_assert_test::fired_once_with("World::on_leave"));
    ecs_assert_test::reset();
    CHECK(w.on_enter<ArPos>(ecs::Related<ArLikes>{}, [](ecs::World&, ecs::Entity) {}).valid());
    CHECK(ecs_assert_test::fired() == 0);
}

TEST_CASE("assert relation: serializing pairs of an unnamed type, or in format 1, is refused", "[assert][relation]") {
    ecs::World w;
    const ecs::Entity e[3] = {w.create_with(ArPos{}), w.create_with(ArPos{}), w.create_with(ArPos{})};
    w.relate<ArLikes>(e[0], e[1]);
    {
        std::ostringstream out;
        ecs_assert_test::reset();
        ecs::detail::write_snapshot(w, out, 1);
        CHECK(ecs_assert_test::fired_once_with("serialize: format 1 cannot hold relationship pairs"));
        CHECK(out.fail());
        CHECK(out.str().empty());
    }
    w.relate<ArUnnamed>(e[2], e[1]);
    std::ostringstream out;
    ecs_assert_test::reset();
    ecs::serialize(w, out);
    CHECK(ecs_assert_test::fired_once_with("relationship type"));
    CHECK(ecs_assert_test::fired_once_with("has no name (call ecs::register_relation<R>(name) first)"));
    INFO(ecs_assert_test::last_message());
    CHECK(out.fail());
    CHECK(out.str().empty());
    // Once the pairs of the unnamed type are gone, the world saves.
    w.unrelate<ArUnnamed>(e[2], e[1]);
    std::ostringstream again;
    ecs_assert_test::reset();
    ecs::serialize(w, again);
    CHECK(ecs_assert_test::fired() == 0);
    CHECK_FALSE(again.str().empty());
}

TEST_CASE("assert relation: a scheduled per-entity system refuses Related<R>{target}", "[assert][relation]") {
    ecs::World w;
    const ecs::Entity t = w.create();
    ecs::Schedule s;
    ecs_assert_test::reset();
    s.add<ArPos>("aimed", ecs::Related<ArLikes>{t}, [](ArPos&) {});
    CHECK(ecs_assert_test::fired_once_with("Schedule::add: Related<R>{target} is not accepted"));
    CHECK(s.plan().empty());
    ecs_assert_test::reset();
    s.add<ArPos>("any", ecs::Related<ArLikes>{}, [](ArPos&) {});
    s.add<ArPos>("ordered", ecs::Cascade<ArParent>{}, [](ArPos&) {});
    CHECK(ecs_assert_test::fired() == 0);
    size_t systems = 0;
    for (const auto& wave : s.plan()) systems += wave.systems.size();
    CHECK(systems == 2);
}
