// Query iteration (SPEC §3.5): each, each_no_entity, Exclude, const access, caching, nesting.
#include <ecs/world.hpp>

#include <map>
#include <set>
#include <type_traits>
#include <vector>

#include "catch.hpp"

using ecs::Entity;
using ecs::Exclude;
using ecs::World;

namespace {
struct Position {
    float x = 0, y = 0;
};
struct Velocity {
    float x = 0, y = 0;
};
struct Health {
    int hp = 0;
};
struct Dead {};
struct Player {};
} // namespace

TEST_CASE("query: each visits exactly the entities having all types, once each", "[query]") {
    World w;
    std::set<uint32_t> expected;
    for (int i = 0; i < 50; ++i) {
        const Entity e = w.create_with(Position{float(i), 0}, Velocity{1, 2});
        expected.insert(e.index);
    }
    for (int i = 0; i < 20; ++i) (void)w.create_with(Position{});
    for (int i = 0; i < 20; ++i) {
        const Entity e = w.create_with(Position{}, Velocity{1, 2}, Health{});
        expected.insert(e.index);
    }
    std::multiset<uint32_t> visited;
    w.each<Position, Velocity>([&](Entity e, Position& p, Velocity& v) {
        visited.insert(e.index);
        p.x += v.x;
        p.y += v.y;
    });
    CHECK(visited.size() == 70);
    CHECK(std::set<uint32_t>(visited.begin(), visited.end()) == expected);
    int moved = 0;
    w.each<Position>([&](Entity, Position& p) { moved += p.y == 2 ? 1 : 0; });
    CHECK(moved == 70);
}

TEST_CASE("query: the callback gets the entity that owns the components", "[query]") {
    World w;
    std::map<uint32_t, int> owner;
    for (int i = 0; i < 100; ++i) {
        const Entity e = w.create_with(Health{i});
        owner[e.index] = i;
        if (i % 3 == 0) w.add(e, Position{});
    }
    w.each<Health>([&](Entity e, Health& h) { CHECK(owner.at(e.index) == h.hp); });
}

TEST_CASE("query: Exclude skips archetypes holding any excluded type", "[query]") {
    World w;
    for (int i = 0; i < 10; ++i) (void)w.create_with(Position{}, Health{});
    for (int i = 0; i < 4; ++i) (void)w.create_with(Position{}, Health{}, Dead{});
    for (int i = 0; i < 3; ++i) (void)w.create_with(Position{}, Health{}, Player{});
    int n = 0;
    w.each<Position, Health>(Exclude<Dead>{}, [&](Entity, Position&, Health&) { ++n; });
    CHECK(n == 13);
    n = 0;
    w.each<Position>(Exclude<Dead, Player>{}, [&](Entity, Position&) { ++n; });
    CHECK(n == 10);
    n = 0;
    w.each_no_entity<Health>(Exclude<Player>{}, [&](Health&) { ++n; });
    CHECK(n == 14);
    // each<Position>(Exclude<Position>{}, ...) is a contradiction: a compile error since 1.0
    // (tests/compile_fail/required_and_excluded.cpp).
}

TEST_CASE("query: each_no_entity passes only the components", "[query]") {
    World w;
    for (int i = 0; i < 30; ++i) (void)w.create_with(Position{1, 1}, Velocity{2, 3});
    float sum = 0;
    w.each_no_entity<Position, Velocity>([&](Position& p, const Velocity& v) {
        p.x += v.x;
        sum += p.x;
    });
    CHECK(sum == 90.f);
}

TEST_CASE("query: const types give read-only access and match the same entities", "[query]") {
    World w;
    for (int i = 0; i < 10; ++i) (void)w.create_with(Position{float(i), 0}, Velocity{});
    float sum = 0;
    int n = 0;
    w.each<const Position, Velocity>([&](Entity, const Position& p, Velocity&) {
        STATIC_REQUIRE(std::is_const_v<std::remove_reference_t<decltype(p)>>);
        sum += p.x;
        ++n;
    });
    CHECK(n == 10);
    CHECK(sum == 45.f);
    CHECK(w.count<const Position, const Velocity>() == 10);
}

TEST_CASE("query: tags in queries", "[query]") {
    World w;
    for (int i = 0; i < 5; ++i) (void)w.create_with(Position{}, Player{});
    for (int i = 0; i < 7; ++i) (void)w.create_with(Position{});
    int n = 0;
    w.each<Player, Position>([&](Entity, Player&, Position&) { ++n; });
    CHECK(n == 5);
    n = 0;
    w.each<Player>([&](Entity, Player&) { ++n; });
    CHECK(n == 5);
}

TEST_CASE("query: a cached query sees archetypes created after its first run", "[query]") {
    World w;
    (void)w.create_with(Position{});
    int n = 0;
    auto count_positions = [&] {
        n = 0;
        w.each<Position>([&](Entity, Position&) { ++n; });
        return n;
    };
    CHECK(count_positions() == 1);
    (void)w.create_with(Position{}, Velocity{}); // new archetype
    CHECK(count_positions() == 2);
    const Entity e = w.create_with(Health{});
    w.add(e, Position{}); // new archetype through migration
    CHECK(count_positions() == 3);
    w.remove<Position>(e); // archetypes are not destroyed; the entity leaves it
    CHECK(count_positions() == 2);
    CHECK(w.count<Position>() == 2);
}

TEST_CASE("query: repeated queries on a stable world are served from the cache", "[query]") {
    World w;
    for (int i = 0; i < 8; ++i) (void)w.create_with(Position{}, Health{i});
    const size_t archetypes = w.archetype_count();
    for (int round = 0; round < 100; ++round) {
        int n = 0;
        w.each<Position, Health>(Exclude<Dead>{}, [&](Entity, Position&, Health&) { ++n; });
        REQUIRE(n == 8);
    }
    CHECK(w.archetype_count() == archetypes); // querying creates no archetypes
}

TEST_CASE("query: a query of a type never used as a component matches nothing", "[query]") {
    struct NeverUsed {};
    World w;
    (void)w.create_with(Position{});
    int n = 0;
    w.each<NeverUsed>([&](Entity, NeverUsed&) { ++n; });
    CHECK(n == 0);
    CHECK(w.count<NeverUsed>() == 0);
}

TEST_CASE("query: nested read-only iteration works and the guard survives it", "[query]") {
    World w;
    for (int i = 0; i < 5; ++i) (void)w.create_with(Position{float(i), 0});
    for (int i = 0; i < 3; ++i) (void)w.create_with(Health{i});
    int pairs = 0;
    w.each<Position>([&](Entity, Position&) {
        CHECK(w.iterating());
        w.each<Health>([&](Entity, Health&) { ++pairs; });
        CHECK(w.iterating()); // still inside the outer loop after the inner one ends
    });
    CHECK(pairs == 15);
    CHECK_FALSE(w.iterating());
}

TEST_CASE("query: components may be modified and read through get during iteration", "[query]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 10; ++i) es.push_back(w.create_with(Health{i}));
    const Entity boss = w.create_with(Health{1000}, Player{});
    w.each<Health>(Exclude<Player>{}, [&](Entity, Health& h) { h.hp += w.get<Health>(boss).hp; });
    for (int i = 0; i < 10; ++i) CHECK(w.get<Health>(es[size_t(i)]).hp == 1000 + i);
}

TEST_CASE("query: overwriting add during iteration is allowed (no structural change)", "[query]") {
    World w;
    for (int i = 0; i < 10; ++i) (void)w.create_with(Health{i});
    w.each<Health>([&](Entity e, Health& h) { w.add(e, Health{h.hp * 2}); });
    int sum = 0;
    w.each_no_entity<Health>([&](Health& h) { sum += h.hp; });
    CHECK(sum == 90);
}

TEST_CASE("query: each<> with no types visits every live entity", "[query]") {
    World w;
    (void)w.create();
    (void)w.create_with(Position{});
    (void)w.create_with(Health{});
    int n = 0;
    w.each<>([&](Entity) { ++n; });
    CHECK(n == 3);
}

TEST_CASE("query: each also accepts a callback without the entity (addition)", "[query]") {
    World w;
    for (int i = 0; i < 4; ++i) (void)w.create_with(Position{1, 0}, Velocity{2, 0});
    w.each<Position, const Velocity>([](Position& p, const Velocity& v) { p.x += v.x; });
    float sum = 0;
    w.each<Position>(Exclude<Dead>{}, [&](const Position& p) { sum += p.x; });
    CHECK(sum == 12.f);
    int generic = 0;
    w.each<Position, Velocity>([&](auto e, auto& p, auto&) { // generic lambda with the entity
        static_assert(std::is_same_v<decltype(e), Entity>, "entity first");
        generic += int(p.x);
    });
    CHECK(generic == 12);
}

// SPEC §3.5 declares the overload inside World as `each(Exclude<Ex...>, Func&&)`, so code written
// against it spells the tag `World::Exclude<C>{}`; ours is also `ecs::Exclude<C>`: both name one type.
TEST_CASE("query: World::Exclude is the Exclude tag too", "[query]") {
    static_assert(std::is_same_v<World::Exclude<Dead>, ecs::Exclude<Dead>>, "one tag, two spellings");
    World w;
    (void)w.create_with(Health{1});
    (void)w.create_with(Health{2}, Dead{});
    int n = 0;
    w.each<Health>(World::Exclude<Dead>{}, [&](Entity, Health&) { ++n; });
    CHECK(n == 1);
    int m = 0;
    w.each_no_entity<Health>(World::Exclude<Dead>{}, [&](Health&) { ++m; });
    CHECK(m == 1);
}
