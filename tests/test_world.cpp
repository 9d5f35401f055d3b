// World lifecycle, component access and mutation (SPEC §3.1-§3.4), with lifetime counting.
#include <ecs/world.hpp>

#include <memory>
#include <string>
#include <vector>

#include "catch.hpp"
#include "counting.hpp"

using ecs::Entity;
using ecs::World;
using namespace ecs_test;

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
struct Frozen {};
struct NoDefault {
    explicit NoDefault(int v) : value(v) {}
    int value;
};
struct alignas(64) Wide {
    float lanes[16];
};
} // namespace

TEST_CASE("world: create makes an alive entity with no components", "[world]") {
    World w;
    CHECK(w.count() == 0);
    const Entity e = w.create();
    CHECK(w.alive(e));
    CHECK(w.count() == 1);
    CHECK_FALSE(w.has<Position>(e));
    CHECK(w.try_get<Position>(e) == nullptr);
    w.destroy(e);
    CHECK_FALSE(w.alive(e));
    CHECK(w.count() == 0);
    w.destroy(e); // double destroy is a no-op
    CHECK(w.count() == 0);
}

TEST_CASE("world: create_with places all components directly, no migration", "[world]") {
    World w;
    const size_t archetypes_before = w.archetype_count();
    const Entity e = w.create_with(Position{1, 2}, Velocity{3, 4}, Health{5});
    CHECK(w.archetype_count() == archetypes_before + 1); // exactly the target archetype, no intermediates
    CHECK(w.get<Position>(e).x == 1);
    CHECK(w.get<Position>(e).y == 2);
    CHECK(w.get<Velocity>(e).y == 4);
    CHECK(w.get<Health>(e).hp == 5);
    // Explicit template arguments with braced values, and the same set in another order: same archetype.
    const Entity f = w.create_with<Health, Velocity, Position>({7}, {0, 1}, {2, 3});
    CHECK(w.archetype_count() == archetypes_before + 1);
    CHECK(w.get<Health>(f).hp == 7);
    CHECK(w.count<Position, Velocity, Health>() == 2);
    // Lvalues are copied, the originals untouched.
    const Position p{9, 9};
    const Entity g = w.create_with(p);
    CHECK(w.get<Position>(g).x == 9);
    CHECK(p.x == 9);
    CHECK(w.check_invariants());
}

TEST_CASE("world: create_with<> with no types equals create", "[world]") {
    World w;
    const Entity e = w.create_with();
    CHECK(w.alive(e));
    CHECK(w.count() == 1);
}

TEST_CASE("world: get / try_get / has", "[world]") {
    World w;
    const Entity e = w.create_with(Position{1, 2});
    CHECK(w.has<Position>(e));
    CHECK(w.has<const Position>(e)); // cv-qualifiers do not make another type
    CHECK_FALSE(w.has<Velocity>(e));
    w.get<Position>(e).x = 10;
    CHECK(w.try_get<Position>(e)->x == 10);
    CHECK(w.try_get<Velocity>(e) == nullptr);
    const World& cw = w;
    CHECK(cw.get<Position>(e).x == 10);
    CHECK(cw.try_get<Position>(e)->y == 2);
    CHECK(cw.try_get<Velocity>(e) == nullptr);
    CHECK(&w.get<const Position>(e) == &w.get<Position>(e));
}

TEST_CASE("world: add migrates, add of a present type overwrites in place", "[world]") {
    World w;
    const Entity e = w.create_with(Position{1, 2});
    w.add(e, Velocity{3, 4});
    CHECK(w.has<Velocity>(e));
    CHECK(w.get<Position>(e).x == 1); // moved along
    CHECK(w.get<Velocity>(e).x == 3);
    const size_t archetypes = w.archetype_count();
    Velocity* before = &w.get<Velocity>(e);
    w.add(e, Velocity{5, 6}); // overwrite: same slot, no migration
    CHECK(&w.get<Velocity>(e) == before);
    CHECK(w.get<Velocity>(e).x == 5);
    CHECK(w.archetype_count() == archetypes);
    w.add<Health>(e, {42});
    CHECK(w.get<Health>(e).hp == 42);
    w.add<Frozen>(e); // default-constructing overload (addition)
    CHECK(w.has<Frozen>(e));
    CHECK(w.check_invariants());
}

TEST_CASE("world: remove migrates and is a no-op when absent", "[world]") {
    World w;
    const Entity e = w.create_with(Position{1, 2}, Velocity{3, 4});
    w.remove<Velocity>(e);
    CHECK_FALSE(w.has<Velocity>(e));
    CHECK(w.get<Position>(e).y == 2);
    w.remove<Velocity>(e); // absent: no-op
    w.remove<Health>(e);   // never present: no-op
    CHECK(w.has<Position>(e));
    w.remove<Position>(e);
    CHECK(w.alive(e)); // an entity with no components is still alive
    CHECK(w.count() == 1);
    CHECK(w.check_invariants());
}

TEST_CASE("world: destroy swap-removes and fixes the moved entity's record", "[world]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 10; ++i) es.push_back(w.create_with(Health{i}));
    w.destroy(es[2]); // the last row moves into row 2
    w.destroy(es[0]);
    w.destroy(es[9]); // last row: nothing moves
    for (int i = 0; i < 10; ++i) {
        if (i == 0 || i == 2 || i == 9) {
            CHECK_FALSE(w.alive(es[size_t(i)]));
        } else {
            REQUIRE(w.alive(es[size_t(i)]));
            CHECK(w.get<Health>(es[size_t(i)]).hp == i);
        }
    }
    CHECK(w.count<Health>() == 7);
    CHECK(w.check_invariants());
}

TEST_CASE("world: migration keeps every other entity of both archetypes intact", "[world]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 100; ++i) es.push_back(w.create_with(Position{float(i), 0}, Health{i}));
    for (int i = 0; i < 100; i += 3) w.add(es[size_t(i)], Velocity{float(i), 1});
    for (int i = 0; i < 100; i += 6) w.remove<Health>(es[size_t(i)]);
    for (int i = 0; i < 100; ++i) {
        const Entity e = es[size_t(i)];
        CHECK(w.get<Position>(e).x == float(i));
        CHECK(w.has<Velocity>(e) == (i % 3 == 0));
        CHECK(w.has<Health>(e) == (i % 6 != 0));
        if (w.has<Health>(e)) CHECK(w.get<Health>(e).hp == i);
        if (w.has<Velocity>(e)) CHECK(w.get<Velocity>(e).x == float(i));
    }
    CHECK(w.check_invariants());
}

TEST_CASE("world: count and count<Ts...>", "[world]") {
    World w;
    for (int i = 0; i < 5; ++i) (void)w.create_with(Position{}, Velocity{});
    for (int i = 0; i < 3; ++i) (void)w.create_with(Position{});
    for (int i = 0; i < 2; ++i) (void)w.create();
    CHECK(w.count() == 10);
    CHECK(w.count<Position>() == 8);
    CHECK(w.count<Velocity>() == 5);
    CHECK(w.count<Position, Velocity>() == 5);
    CHECK(w.count<Health>() == 0);
    CHECK(w.count<const Position>() == 8);
}

TEST_CASE("world: single calls back for the one matching entity", "[world]") {
    World w;
    (void)w.create_with(Position{});
    const Entity player = w.create_with(Position{1, 1}, Health{100});
    int calls = 0;
    w.single<Health>([&](Entity e, Health& h) {
        ++calls;
        CHECK(e == player);
        h.hp -= 10;
    });
    CHECK(calls == 1);
    CHECK(w.get<Health>(player).hp == 90);
    w.single<Position, Health>([&](Entity e, Position& p, Health&) {
        CHECK(e == player);
        p.x = 5;
    });
    CHECK(w.get<Position>(player).x == 5);
}

TEST_CASE("world: every component kind works", "[world]") {
    World w;
    const Entity e = w.create_with(std::make_unique<int>(7), NoDefault{3}, std::string("a string long enough to live on the heap"));
    w.add(e, std::vector<int>{1, 2, 3});
    w.add(e, Wide{});
    w.add(e, Frozen{});
    CHECK(*w.get<std::unique_ptr<int>>(e) == 7);
    CHECK(w.get<NoDefault>(e).value == 3);
    CHECK(w.get<std::string>(e).size() > 20);
    CHECK(w.get<std::vector<int>>(e).size() == 3);
    CHECK(reinterpret_cast<uintptr_t>(&w.get<Wide>(e)) % 64 == 0);
    CHECK(w.has<Frozen>(e));
    (void)w.get<Frozen>(e); // a valid reference even though tags take no bytes
    w.remove<NoDefault>(e);
    CHECK(*w.get<std::unique_ptr<int>>(e) == 7);
    CHECK(w.get<std::vector<int>>(e)[2] == 3);
    CHECK(w.check_invariants());
}

TEST_CASE("world: over-aligned components stay aligned through growth and migration", "[world][lifetime]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 300; ++i) {
        es.push_back(w.create_with(Wide{{float(i)}}, Health{i}));
        if (i % 2) w.add(es.back(), Position{});
    }
    for (size_t i = 0; i < es.size(); ++i) {
        const Wide& wide = w.get<Wide>(es[i]);
        REQUIRE(reinterpret_cast<uintptr_t>(&wide) % 64 == 0);
        CHECK(wide.lanes[0] == float(i));
    }
}

TEST_CASE("world: every object constructed is destroyed exactly once", "[world][lifetime]") {
    reset_life();
    {
        World w;
        std::vector<Entity> es;
        for (int i = 0; i < 200; ++i) // enough rows to grow blocks several times
            es.push_back(w.create_with(Counted{i}, CountedName{"n" + std::to_string(i)}));
        for (int i = 0; i < 200; i += 2) w.add(es[size_t(i)], CountedWide{float(i)}); // migration
        for (int i = 0; i < 200; i += 4) w.add(es[size_t(i)], Counted{-i});            // overwrite
        for (int i = 0; i < 200; i += 5) w.remove<CountedName>(es[size_t(i)]);         // migration, destroy
        for (int i = 0; i < 200; i += 7) w.destroy(es[size_t(i)]);                     // swap-remove
        for (int i = 0; i < 200; i += 3) w.add(es[size_t(i)], CountedEmpty{});         // empty, counted
        Counted lvalue{77};
        (void)w.create_with(lvalue); // copied
        CHECK(life().bad_destroys == 0);
        for (int i = 1; i < 200; ++i) {
            const Entity e = es[size_t(i)];
            if (i % 7 == 0) continue;
            CHECK(w.get<Counted>(e).value == (i % 4 == 0 ? -i : i));
            if (i % 5 != 0) CHECK(w.get<CountedName>(e).name == "n" + std::to_string(i));
            if (i % 2 == 0) CHECK(w.get<CountedWide>(e).lanes[3] == float(i));
        }
        CHECK(w.check_invariants());
    } // world destruction destroys the rest
    CHECK(life().bad_destroys == 0);
    CHECK(life().alive() == 0);
    CHECK(life().live.empty());
}

TEMPLATE_TEST_CASE("world: lifecycle per component kind", "[world][lifetime]", Counted, CountedWide, CountedEmpty) {
    reset_life();
    {
        World w;
        std::vector<Entity> es;
        for (int i = 0; i < 64; ++i) es.push_back(w.create_with(TestType{}, Health{i}));
        for (int i = 0; i < 64; i += 2) w.remove<Health>(es[size_t(i)]);
        for (int i = 0; i < 64; i += 3) w.add(es[size_t(i)], TestType{});
        for (int i = 0; i < 64; i += 5) w.remove<TestType>(es[size_t(i)]);
        for (int i = 0; i < 64; i += 4) w.destroy(es[size_t(i)]);
        CHECK(w.count<TestType>() == 64 - 13 - 16 + 4); // removed 13 (i%5), destroyed 16, 4 overlap
        CHECK(w.check_invariants());
    }
    CHECK(life().bad_destroys == 0);
    CHECK(life().alive() == 0);
}

TEST_CASE("world: adding a reference into the world's own storage is safe", "[world][lifetime]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 16; ++i) es.push_back(w.create_with(Position{float(i), 0}, Velocity{}));
    const Entity target = w.create_with(Velocity{});
    // The target archetype {Position, Velocity} is full (capacity 16 for 16-byte rows would be larger,
    // so force growth by adding many): the argument refers into a column that may reallocate.
    for (int i = 0; i < 2000; ++i) (void)w.create_with(Position{}, Velocity{});
    w.add(target, w.get<Position>(es[5]));
    CHECK(w.get<Position>(target).x == 5);
    const Entity copy = w.create_with(w.get<Position>(es[7]), w.get<Velocity>(es[7]));
    CHECK(w.get<Position>(copy).x == 7);
}

TEST_CASE("world: tags take no column bytes but behave like components", "[world]") {
    World w;
    const Entity e = w.create_with(Position{1, 1});
    w.add(e, Frozen{});
    CHECK(w.has<Frozen>(e));
    CHECK(w.count<Frozen>() == 1);
    CHECK(w.try_get<Frozen>(e) != nullptr);
    w.remove<Frozen>(e);
    CHECK_FALSE(w.has<Frozen>(e));
    CHECK(w.try_get<Frozen>(e) == nullptr);
    CHECK(w.get<Position>(e).x == 1);
}

TEST_CASE("world: worlds are independent and movable", "[world]") {
    World a;
    World b;
    const Entity ea = a.create_with(Health{1});
    const Entity eb = b.create_with(Position{}, Health{2});
    CHECK(a.count<Position>() == 0);
    CHECK(b.count<Position>() == 1);
    CHECK(a.get<Health>(ea).hp == 1);
    CHECK(b.get<Health>(eb).hp == 2);
    World c(std::move(a));
    CHECK(c.alive(ea));
    CHECK(c.get<Health>(ea).hp == 1);
    World d;
    d = std::move(c);
    CHECK(d.get<Health>(ea).hp == 1);
    CHECK(d.count<Health>() == 1);
    (void)d.create_with(Health{3});
    CHECK(d.count<Health>() == 2);
    CHECK(d.check_invariants());
}

TEST_CASE("world: memory_bytes and archetype_count report storage", "[world]") {
    World w;
    const size_t empty = w.memory_bytes();
    CHECK(w.archetype_count() == 1); // the empty archetype
    for (int i = 0; i < 1000; ++i) (void)w.create_with(Position{}, Velocity{});
    CHECK(w.memory_bytes() >= empty + 1000 * (sizeof(Position) + sizeof(Velocity)));
    CHECK(w.archetype_count() == 2);
}

TEST_CASE("world: the members SPEC §3 declares const answer on a const World", "[world]") {
    World w;
    const Entity e = w.create_with(Position{1, 2}, Health{3});
    const Entity bare = w.create();
    const Entity gone = w.create_with(Health{4});
    w.destroy(gone);
    w.set_resource(Velocity{5, 6});
    const World& cw = w;
    CHECK(cw.alive(e));
    CHECK(cw.alive(bare));
    CHECK_FALSE(cw.alive(gone));
    CHECK_FALSE(cw.alive(ecs::INVALID_ENTITY));
    CHECK(cw.has<Position>(e));
    CHECK_FALSE(cw.has<Position>(bare));
    CHECK_FALSE(cw.has<Health>(gone));
    CHECK(cw.count() == 2);
    CHECK(cw.count<Health>() == 1);
    CHECK((cw.count<Position, Health>() == 1));
    CHECK(cw.count<Velocity>() == 0); // a resource type is not a component
    CHECK(cw.has_resource<Velocity>());
    CHECK_FALSE(cw.has_resource<Position>());
}

TEST_CASE("world: short strings (SSO) survive block growth, migration and swap-remove", "[world][lifetime]") {
    // PITFALLS 2: a short std::string points into itself; relocating it with memcpy leaves it dangling.
    // 2000 rows of one 32-byte column grow the block from 512 rows twice.
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 2000; ++i) es.push_back(w.create_with(std::string("s" + std::to_string(i))));
    for (int i = 0; i < 2000; i += 3) w.add(es[size_t(i)], Health{i});   // migration into a second archetype
    for (int i = 1; i < 2000; i += 7) w.destroy(es[size_t(i)]);          // swap-removes in both archetypes
    for (int i = 2; i < 2000; i += 11) w.remove<Health>(es[size_t(i)]);  // absent or migrating back
    size_t alive = 0;
    for (int i = 0; i < 2000; ++i) {
        const Entity e = es[size_t(i)];
        if (!w.alive(e)) continue;
        ++alive;
        REQUIRE(w.get<std::string>(e) == "s" + std::to_string(i));
    }
    size_t visited = 0;
    w.each<std::string>([&](Entity, std::string& s) {
        ++visited;
        CHECK(s.size() < 16); // still short, and readable
    });
    CHECK(visited == alive);
    CHECK(w.check_invariants());
}
