// Assertion tests for the component-type limit (ECS_MAX_COMPONENTS, 256 by default; PITFALLS #11):
// the 257th type must assert and be refused -- no exception, no crash, no leak.
#include "recording_assert.hpp" // first: defines ECS_ASSERT before any ecs header

#include "catch.hpp"

#include <ecs/command_buffer.hpp>
#include <ecs/world.hpp>

#include <utility>

namespace {

long& many_live() {
    static long n = 0;
    return n;
}

/// One distinct component type per N, all counting their live instances in one place.
template <int N>
struct Many {
    int v = N;
    Many() { ++many_live(); }
    explicit Many(int value) : v(value) { ++many_live(); }
    Many(const Many& o) : v(o.v) { ++many_live(); }
    Many(Many&& o) noexcept : v(o.v) { ++many_live(); }
    Many& operator=(const Many&) = default;
    Many& operator=(Many&&) noexcept = default;
    ~Many() { --many_live(); }
};

struct Anchor {
    int v;
};

const bool anchor_registered = [] { return ecs::ensure_column_factory<Anchor>() < ECS_MAX_COMPONENTS; }();

constexpr int TYPE_COUNT = ECS_MAX_COMPONENTS + 44; // well past the limit, whatever ids exist already
constexpr int LAST = TYPE_COUNT - 1;

/// Gives every Many<N> an id (a braced list, not a fold: clang limits fold nesting to 256).
/// @return how many of them got an id at or past the limit.
template <int... Is>
int use_every_type(std::integer_sequence<int, Is...>) {
    const ecs::ComponentTypeID ids[] = {ecs::ensure_column_factory<Many<Is>>()...};
    int past_limit = 0;
    for (ecs::ComponentTypeID id : ids) past_limit += id >= ECS_MAX_COMPONENTS ? 1 : 0;
    return past_limit;
}

} // namespace

TEST_CASE("assert: the 257th component type fires, is refused and throws nothing", "[assert]") {
    REQUIRE(anchor_registered);
    int past_limit = 0;
    REQUIRE_NOTHROW(past_limit = use_every_type(std::make_integer_sequence<int, TYPE_COUNT>{}));
    CHECK(past_limit >= TYPE_COUNT - ECS_MAX_COMPONENTS);
    REQUIRE(ecs::component_id<Many<LAST>>() >= ECS_MAX_COMPONENTS);
    REQUIRE(ecs::component_id<Many<LAST - 1>>() >= ECS_MAX_COMPONENTS);
    CHECK(ecs::column_factory(ecs::component_id<Many<LAST>>()) == nullptr);

    {
        ecs::World w;
        const ecs::Entity e = w.create_with(Anchor{1});
        const size_t archetypes = w.archetype_count();
        ecs_assert_test::reset();

        SECTION("create_with") {
            ecs::Entity made{1, 1};
            REQUIRE_NOTHROW(made = w.create_with(Many<LAST>{}));
            CHECK(made == ecs::INVALID_ENTITY);
            CHECK(ecs_assert_test::fired_once_with("ECS_MAX_COMPONENTS"));
            ecs_assert_test::reset();
            // A pack mixing a valid type with one past the limit: refused as a whole.
            REQUIRE_NOTHROW(made = w.create_with(Many<0>{}, Anchor{2}, Many<LAST - 1>{}));
            CHECK(made == ecs::INVALID_ENTITY);
            CHECK(ecs_assert_test::fired_once_with("ECS_MAX_COMPONENTS"));
            CHECK(w.count() == 1);
        }
        SECTION("add") {
            REQUIRE_NOTHROW(w.add(e, Many<LAST>{5}));
            CHECK(ecs_assert_test::fired_once_with("ECS_MAX_COMPONENTS"));
            CHECK(!w.has<Many<LAST>>(e));
            CHECK(w.try_get<Many<LAST>>(e) == nullptr);
            CHECK(w.get<Anchor>(e).v == 1);
            ecs_assert_test::reset();
            (void)w.get<Many<LAST>>(e);
            CHECK(ecs_assert_test::fired_once_with("does not have the component"));
            CHECK(ecs_assert_test::last_message().find("World::get<") == 0);
        }
        SECTION("queries, remove and sort over a type past the limit are empty no-ops") {
            int visits = 0;
            REQUIRE_NOTHROW(w.each<Many<LAST>>([&](ecs::Entity, Many<LAST>&) { ++visits; }));
            REQUIRE_NOTHROW(w.each<Anchor>(ecs::Exclude<Many<LAST>>{}, [&](ecs::Entity, Anchor&) { ++visits; }));
            CHECK(visits == 1); // the exclusion of a type no entity can have filters nothing
            CHECK(w.count<Many<LAST>>() == 0);
            CHECK(w.count<Anchor, Many<LAST>>() == 0);
            REQUIRE_NOTHROW(w.remove<Many<LAST>>(e));
            REQUIRE_NOTHROW(w.sort<Many<LAST>>([](const Many<LAST>& l, const Many<LAST>& r) { return l.v < r.v; }));
            CHECK(ecs_assert_test::fired() == 0);
        }
        SECTION("observers") {
            REQUIRE_NOTHROW(w.on_add<Many<LAST>>([](ecs::World&, ecs::Entity, Many<LAST>&) {}));
            CHECK(ecs_assert_test::fired_once_with("World::on_add: too many component types"));
            ecs_assert_test::reset();
            REQUIRE_NOTHROW(w.on_remove<Many<LAST>>([](ecs::World&, ecs::Entity, Many<LAST>&) {}));
            CHECK(ecs_assert_test::fired_once_with("World::on_remove: too many component types"));
            // No hook was installed: ordinary operations still work and fire nothing.
            ecs_assert_test::reset();
            w.add(e, Anchor{4});
            CHECK(w.get<Anchor>(e).v == 4);
            CHECK(ecs_assert_test::fired() == 0);
        }
        SECTION("deferred and command-buffer commands are refused at the flush") {
            w.deferred().create_with(Many<LAST - 1>{}, Anchor{3});
            w.deferred().add(e, Many<LAST>{});
            ecs::CommandBuffer cb;
            cb.add(e, Many<LAST - 2>{});
            CHECK(ecs_assert_test::fired() == 0); // recording checks nothing
            REQUIRE_NOTHROW(w.flush_deferred());
            CHECK(ecs_assert_test::fired() == 2);
            REQUIRE_NOTHROW(cb.flush(w));
            CHECK(ecs_assert_test::fired() == 3);
            CHECK(w.count() == 1);
            CHECK(w.deferred_count() == 0);
            CHECK(cb.empty());
        }
        SECTION("resources have no such limit") {
            w.set_resource(Many<LAST>{9});
            CHECK(w.resource<Many<LAST>>().v == 9);
            w.remove_resource<Many<LAST>>();
            CHECK(!w.has_resource<Many<LAST>>());
            CHECK(ecs_assert_test::fired() == 0);
        }

        // Whatever was refused left the world as it was.
        CHECK(w.archetype_count() == archetypes);
        CHECK(w.check_invariants());
    }
    CHECK(many_live() == 0);
}
