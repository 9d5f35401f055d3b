// Structural power (ROADMAP-1.0 section C, first half): multi-type add and remove in one
// migration, has<A, B...>, emplace and get_or_emplace, bulk destroy_all / remove_all / add_all, and
// the deferred forms: multi add/remove, emplace, instantiate, call, and handles reserved at record
// time. Refusals (iteration, dead entities) are in tests/assert/test_assert_structural.cpp.
#include "catch.hpp"
#include "counting.hpp"
#include "lifetime.hpp"

#include <ecs/command_buffer.hpp>
#include <ecs/prefab.hpp>
#include <ecs/serialization.hpp>
#include <ecs/world.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using ecs::Entity;
using ecs::World;
using ecs_test::Counted;
using ecs_test::CountedEmpty;
using ecs_test::CountedName;
using ecs_test::CountedWide;

struct A {
    int v = 0;
};
struct B {
    float f = 0;
};
struct C {
    double d = 0;
};
struct D {
    int v = 0;
};
struct Tag {};
/// Large rows: its archetypes start at 16 rows, so the 17th row moves the block.
struct Big {
    int v = 0;
    std::array<unsigned char, 1500> bytes{};
};
/// Not default-constructible, built from two arguments.
struct Pair {
    int a;
    std::string b;
    Pair(int x, std::string y) : a(x), b(std::move(y)) {}
};

struct MoveTag {};
using Moved = lifetime::Counted<MoveTag>;

bool aligned64(const void* p) { return reinterpret_cast<uintptr_t>(p) % 64 == 0; }

/// A string that fits the small-string buffer (relocation with memcpy would break it).
std::string short_str(int i) { return "s" + std::to_string(i); }

} // namespace

// -------------------------------------------------------------------------------------------------
// has<A, B, ...>
// -------------------------------------------------------------------------------------------------

TEST_CASE("structural: has<A, B, ...> is true when the entity has all of them", "[structural]") {
    World w;
    const Entity e = w.create_with(A{1}, B{2}, Tag{});
    CHECK(w.has<A, B>(e));
    CHECK(w.has<A, B, Tag>(e));
    CHECK(w.has<Tag, A>(e));
    CHECK_FALSE(w.has<A, C>(e));
    CHECK_FALSE(w.has<C, A, B>(e));
    CHECK(w.has<A>(e)); // the one-type form is the spec's
    w.destroy(e);
    CHECK_FALSE(w.has<A, B>(e));
    CHECK_FALSE(w.has<A, B>(ecs::INVALID_ENTITY));
}

// -------------------------------------------------------------------------------------------------
// add(e, a, b, ...)
// -------------------------------------------------------------------------------------------------

TEST_CASE("structural: add of several values is one migration with no intermediate archetype", "[structural]") {
    World w;
    const Entity e = w.create();
    const size_t before = w.archetype_count();
    w.add(e, A{1}, B{2.5f}, C{3.0});
    CHECK(w.archetype_count() == before + 1); // only {A, B, C}: no {A} nor {A, B}
    CHECK(w.get<A>(e).v == 1);
    CHECK(w.get<B>(e).f == 2.5f);
    CHECK(w.get<C>(e).d == 3.0);

    // The same pack from the same archetype: the cached destination, nothing new.
    const Entity f = w.create();
    w.add(f, A{4}, B{5}, C{6});
    CHECK(w.archetype_count() == before + 1);
    CHECK(w.get<A>(f).v == 4);

    // Another order of the same types lands in the same archetype.
    const Entity g = w.create();
    w.add(g, C{7}, A{8}, B{9});
    CHECK(w.archetype_count() == before + 1);
    CHECK(w.count<A, B, C>() == 3);

    // Some types present: they are overwritten in place, the others added, one new archetype.
    const Entity h = w.create_with(A{10});
    const size_t with_a = w.archetype_count();
    w.add(h, A{11}, D{12}, Tag{});
    CHECK(w.archetype_count() == with_a + 1); // {A, D, Tag} only
    CHECK(w.get<A>(h).v == 11);
    CHECK(w.get<D>(h).v == 12);
    CHECK(w.has<Tag>(h));
    CHECK(w.check_invariants());
}

TEST_CASE("structural: add of values the entity all has overwrites in place", "[structural]") {
    World w;
    const Entity e = w.create_with(A{1}, B{2});
    const A* a_before = &w.get<A>(e);
    const size_t archetypes = w.archetype_count();
    w.add(e, B{20}, A{10});
    CHECK(w.archetype_count() == archetypes);
    CHECK(&w.get<A>(e) == a_before); // no migration
    CHECK(w.get<A>(e).v == 10);
    CHECK(w.get<B>(e).f == 20);
    // Allowed during iteration (no structural change).
    w.each<A>([&](Entity x, A&) { w.add(x, A{30}, B{40}); });
    CHECK(w.get<A>(e).v == 30);
    CHECK(w.get<B>(e).f == 40);
}

TEST_CASE("structural: add of several values on a dead entity is a no-op", "[structural]") {
    ecs_test::reset_life();
    {
        World w;
        const Entity e = w.create();
        w.destroy(e);
        const size_t archetypes = w.archetype_count();
        w.add(e, Counted{1}, A{2});
        CHECK(w.archetype_count() == archetypes);
        CHECK(w.count() == 0);
    }
    CHECK(ecs_test::life().alive() == 0);
    CHECK(ecs_test::life().bad_destroys == 0);
}

TEST_CASE("structural: multi add keeps every object's lifetime exact", "[structural]") {
    ecs_test::reset_life();
    {
        World w;
        std::vector<Entity> es;
        for (int i = 0; i < 40; ++i) {
            const Entity e = w.create_with(Counted{i});
            w.add(e, CountedName(short_str(i)), CountedWide(float(i)), CountedEmpty{}, std::string(short_str(i)));
            es.push_back(e);
        }
        // Overwrite some (the existing Counted too), with a migration adding A.
        for (int i = 0; i < 40; i += 3) w.add(es[size_t(i)], Counted{100 + i}, A{i}, CountedName(short_str(200 + i)));
        for (int i = 0; i < 40; ++i) {
            const Entity e = es[size_t(i)];
            const bool over = i % 3 == 0;
            CHECK(w.get<Counted>(e).value == (over ? 100 + i : i));
            CHECK(w.get<CountedName>(e).name == short_str(over ? 200 + i : i));
            CHECK(w.get<std::string>(e) == short_str(i));
            CHECK(w.get<CountedWide>(e).lanes[7] == float(i));
            CHECK(aligned64(&w.get<CountedWide>(e)));
            CHECK(w.has<A>(e) == over);
        }
        // Destroy every other one: swap-removes move the SSO strings and aligned values around.
        for (size_t i = 0; i < es.size(); i += 2) w.destroy(es[i]);
        for (size_t i = 1; i < es.size(); i += 2) CHECK(w.get<std::string>(es[i]) == short_str(int(i)));
        CHECK(w.check_invariants());
        CHECK(ecs_test::life().bad_destroys == 0);
    }
    CHECK(ecs_test::life().alive() == 0);
    CHECK(ecs_test::life().live.empty());
    CHECK(ecs_test::life().bad_destroys == 0);
}

TEST_CASE("structural: multi add copies lvalues and leaves them intact", "[structural]") {
    World w;
    const Entity e = w.create();
    const std::string s = short_str(5);
    A a{6};
    w.add(e, s, a, B{7});
    CHECK(w.get<std::string>(e) == s);
    CHECK(w.get<A>(e).v == 6);
    CHECK(s == short_str(5));
    CHECK(a.v == 6);
    // Lvalues naming the entity's own values.
    w.add(e, w.get<A>(e), w.get<std::string>(e), C{1});
    CHECK(w.get<A>(e).v == 6);
    CHECK(w.get<std::string>(e) == short_str(5));
}

TEST_CASE("structural: multi add with rvalues that live in the world", "[structural]") {
    World w;
    std::vector<Entity> full;
    for (int i = 0; i < 16; ++i) {
        Big big;
        big.v = i;
        full.push_back(w.create_with(A{i}, big, std::string(40, 'x') + std::to_string(i)));
    }
    // {A, Big, string} holds 16 rows: the next one moves the block. The values come from it.
    const Entity e = w.create_with(A{99});
    w.add(e, std::move(w.get<Big>(full[3])), std::move(w.get<std::string>(full[4])));
    CHECK(w.get<Big>(e).v == 3);
    CHECK(w.get<std::string>(e) == std::string(40, 'x') + "4");
    // Overwrite with the entity's own value (moved onto itself) plus a new type.
    w.add(e, std::move(w.get<std::string>(e)), C{2});
    CHECK(w.get<std::string>(e) == std::string(40, 'x') + "4");
    // A value from the last row of the source archetype (which the migration moves into the hole).
    const Entity p = w.create_with(A{1}, D{1});
    const Entity q = w.create_with(A{2}, D{2});
    w.add(p, std::move(w.get<A>(q)), Tag{});
    CHECK(w.get<A>(p).v == 2);
    CHECK(w.get<D>(q).v == 2);
    CHECK(w.check_invariants());
}

TEST_CASE("structural: multi add hooks fire as if one value at a time, in argument order", "[structural]") {
    World w;
    std::vector<std::string> log;
    w.on_add<A>([&](World& world, Entity e, A& a) {
        log.push_back("add A" + std::to_string(a.v));
        // Every value is written and the record updated before the first hook.
        CHECK(world.has<A, B, C>(e));
        CHECK(world.get<C>(e).d == 3.0);
    });
    w.on_add<B>([&](World&, Entity, B&) { log.push_back("add B"); });
    w.on_add<C>([&](World&, Entity, C&) { log.push_back("add C"); });
    w.on_set<A>([&](World&, Entity, A& a) { log.push_back("set A" + std::to_string(a.v)); });
    w.on_set<B>([&](World&, Entity, B&) { log.push_back("set B"); });
    w.on_set<C>([&](World&, Entity, C&) { log.push_back("set C"); });
    w.on_enter<A, C>([&](World&, Entity) { log.push_back("enter A,C"); });
    w.on_leave<B>(ecs::Without<C>{}, [&](World&, Entity) { log.push_back("leave B\\C"); });

    const Entity e = w.create_with(B{1});
    log.clear();
    w.add(e, C{3.0}, A{1}, B{2}); // B exists: overwritten, no on_add
    const std::vector<std::string> expected = {"leave B\\C", "add C", "set C", "add A1", "set A1", "set B", "enter A,C"};
    CHECK(log == expected);

    log.clear();
    w.add(e, B{5}, A{2}); // all present: on_set only, in argument order
    CHECK(log == std::vector<std::string>{"set B", "set A2"});
}

TEST_CASE("structural: multi add hooks may create and destroy entities of the same archetype", "[structural]") {
    World w;
    std::vector<Entity> spawned;
    w.on_add<A>([&](World& world, Entity, A& a) {
        if (a.v < 0) return;
        for (int i = 0; i < 20; ++i) spawned.push_back(world.create_with(A{-1}, B{float(i)}, C{double(i)}));
    });
    w.on_add<B>([&](World& world, Entity e, B& b) {
        // Runs after A's hook filled the archetype: the value is re-read, not cached.
        CHECK(&world.get<B>(e) == &b);
        if (spawned.size() > 5) world.destroy(spawned[2]);
    });
    const Entity e = w.create();
    w.add(e, A{7}, B{8}, C{9});
    CHECK(w.get<A>(e).v == 7);
    CHECK(w.get<B>(e).f == 8);
    CHECK(w.get<C>(e).d == 9);
    size_t visits = 0;
    w.each<A, B, C>([&](Entity, A&, B&, C&) { ++visits; });
    CHECK(visits == w.count<A, B, C>());
    CHECK(visits == 20); // e + 20 spawned - 1 destroyed
    CHECK(w.check_invariants());
}

TEST_CASE("structural: multi add marks fresh types added and overwritten ones changed", "[structural]") {
    World w;
    w.track_changes<A>();
    w.track_changes<B>();
    const Entity e = w.create_with(A{1});
    auto added_b = w.query<const B>(ecs::Added<B>{});
    auto changed_a = w.query<const A>(ecs::Changed<A>{});
    added_b.each([](const B&) {});
    changed_a.each([](const A&) {});
    w.add(e, A{2}, B{3});
    size_t n_b = 0, n_a = 0;
    added_b.each([&](const B&) { ++n_b; });
    changed_a.each([&](const A&) { ++n_a; });
    CHECK(n_b == 1);
    CHECK(n_a == 1);
}

// -------------------------------------------------------------------------------------------------
// remove<A, B, ...>
// -------------------------------------------------------------------------------------------------

TEST_CASE("structural: remove of several types is one migration; absent types are ignored", "[structural]") {
    World w;
    const Entity e = w.create_with(A{1}, B{2}, C{3}, D{4});
    const size_t before = w.archetype_count();
    w.remove<A, C>(e);
    CHECK(w.archetype_count() == before + 1); // {B, D} only
    CHECK(w.has<B, D>(e));
    CHECK_FALSE(w.has<A>(e));
    CHECK_FALSE(w.has<C>(e));
    CHECK(w.get<B>(e).f == 2);
    CHECK(w.get<D>(e).v == 4);

    w.remove<A, Tag, C>(e); // none present: nothing happens, no archetype
    CHECK(w.archetype_count() == before + 1);
    CHECK(w.has<B, D>(e));

    w.remove<Tag, D, A>(e); // D present only
    CHECK(w.has<B>(e));
    CHECK_FALSE(w.has<D>(e));
    w.remove<B, D>(ecs::INVALID_ENTITY); // dead: no-op
    CHECK(w.check_invariants());
}

TEST_CASE("structural: multi remove hooks: on_leave once, on_remove per present type in template order",
          "[structural]") {
    World w;
    std::vector<std::string> log;
    w.on_remove<A>([&](World& world, Entity e, A& a) {
        log.push_back("remove A" + std::to_string(a.v));
        CHECK(world.has<A, C>(e)); // nothing migrated yet: every value is readable
    });
    w.on_remove<C>([&](World&, Entity, C&) { log.push_back("remove C"); });
    w.on_remove<D>([&](World&, Entity, D&) { log.push_back("remove D"); });
    w.on_leave<A>([&](World&, Entity) { log.push_back("leave A"); });
    w.on_enter<B>(ecs::Without<A>{}, [&](World&, Entity) { log.push_back("enter B\\A"); });
    const Entity e = w.create_with(A{5}, B{1}, C{2});
    log.clear();
    w.remove<C, D, A>(e);
    const std::vector<std::string> expected = {"leave A", "remove C", "remove A5", "enter B\\A"};
    CHECK(log == expected);
    CHECK(w.has<B>(e));
    CHECK_FALSE(w.has<A>(e));
}

TEST_CASE("structural: multi remove destroys exactly the removed objects", "[structural]") {
    ecs_test::reset_life();
    {
        World w;
        std::vector<Entity> es;
        for (int i = 0; i < 30; ++i)
            es.push_back(w.create_with(Counted{i}, CountedName(short_str(i)), CountedWide(float(i)), std::string(short_str(i))));
        const long alive = ecs_test::life().alive();
        for (size_t i = 0; i < es.size(); i += 2) w.remove<Counted, CountedWide>(es[i]);
        CHECK(ecs_test::life().alive() == alive - 2 * 15);
        for (size_t i = 0; i < es.size(); ++i) {
            CHECK(w.get<CountedName>(es[i]).name == short_str(int(i)));
            CHECK(w.get<std::string>(es[i]) == short_str(int(i)));
            CHECK(w.has<Counted>(es[i]) == (i % 2 == 1));
            if (i % 2 == 1) CHECK(aligned64(&w.get<CountedWide>(es[i])));
        }
        CHECK(w.check_invariants());
    }
    CHECK(ecs_test::life().alive() == 0);
    CHECK(ecs_test::life().bad_destroys == 0);
}

// -------------------------------------------------------------------------------------------------
// emplace / get_or_emplace
// -------------------------------------------------------------------------------------------------

TEST_CASE("structural: emplace constructs in place, once, from the arguments", "[structural]") {
    Moved::reset();
    {
        World w;
        const Entity e = w.create_with(A{1});
        Moved& m = w.emplace<Moved>(e, 42);
        CHECK(m.value() == 42);
        CHECK(&m == &w.get<Moved>(e));
        CHECK(Moved::tally().constructed == 1); // no temporary, no move
        CHECK(Moved::tally().moves == 0);

        Pair& p = w.emplace<Pair>(e, 7, short_str(3)); // not default-constructible
        CHECK(p.a == 7);
        CHECK(p.b == short_str(3));
        CHECK(w.get<Moved>(e).value() == 42); // carried along by the migration

        CountedName& n = w.emplace<CountedName>(e, short_str(9)); // move-only
        CHECK(n.name == short_str(9));
        CountedWide& wide = w.emplace<CountedWide>(e, 2.f);
        CHECK(aligned64(&wide));
        w.emplace<Tag>(e);
        CHECK(w.has<Tag>(e));
        CHECK(w.check_invariants());
    }
    CHECK(Moved::tally().clean());
    CHECK(ecs_test::life().bad_destroys == 0);
}

TEST_CASE("structural: emplace over an existing value destroys it and constructs in the same slot", "[structural]") {
    Moved::reset();
    World w;
    int sets = 0, adds = 0;
    w.on_set<Moved>([&](World&, Entity, Moved&) { ++sets; });
    w.on_add<Moved>([&](World&, Entity, Moved&) { ++adds; });
    const Entity e = w.create_with(Moved{1}, A{2});
    Moved::reset();
    adds = 0;
    const Moved* before = &w.get<Moved>(e);
    const size_t archetypes = w.archetype_count();
    Moved& m = w.emplace<Moved>(e, 5);
    CHECK(&m == before);
    CHECK(m.value() == 5);
    CHECK(w.archetype_count() == archetypes);
    CHECK(Moved::tally().constructed == 1);
    CHECK(Moved::tally().destroyed == 1);
    CHECK(Moved::tally().moves == 0);
    CHECK(sets == 1);
    CHECK(adds == 0);
    // Allowed during iteration (no structural change).
    w.each<A>([&](Entity x, A&) { w.emplace<Moved>(x, 6); });
    CHECK(w.get<Moved>(e).value() == 6);
}

TEST_CASE("structural: emplace reads arguments that refer into the value it replaces", "[structural]") {
    World w;
    const std::string long_text(50, 'q');
    const Entity e = w.create_with(std::string(long_text), Pair(1, short_str(1)));
    w.emplace<std::string>(e, w.get<std::string>(e)); // a reference to the old value
    CHECK(w.get<std::string>(e) == long_text);
    w.emplace<std::string>(e, w.get<std::string>(e).c_str()); // a pointer into it
    CHECK(w.get<std::string>(e) == long_text);
    w.emplace<Pair>(e, w.get<Pair>(e).a + 1, w.get<Pair>(e).b); // members of the old value
    CHECK(w.get<Pair>(e).a == 2);
    CHECK(w.get<Pair>(e).b == short_str(1));
    const Entity f = w.create_with(std::vector<int>{7, 8, 9});
    w.emplace<std::vector<int>>(f, size_t(4), w.get<std::vector<int>>(f)[1]); // a scalar owned by the old value
    CHECK(w.get<std::vector<int>>(f) == std::vector<int>{8, 8, 8, 8});
    Moved::reset();
    const Entity g = w.create_with(Moved{1});
    w.emplace<Moved>(g, w.get<Moved>(g).value() + 1); // scalar arguments: rebuilt in place, no move
    CHECK(w.get<Moved>(g).value() == 2);
    CHECK(Moved::tally().moves == 1); // the one of create_with
}

TEST_CASE("structural: emplace with arguments that live in a destination block that grows", "[structural]") {
    World w;
    std::vector<Entity> full;
    for (int i = 0; i < 16; ++i) {
        Big big;
        big.v = i;
        full.push_back(w.create_with(A{i}, big));
    }
    const Entity e = w.create_with(A{100});
    w.emplace<Big>(e, w.get<Big>(full[5])); // {A, Big} is full: the block moves
    CHECK(w.get<Big>(e).v == 5);
    const Entity f = w.create_with(A{1});
    w.emplace<Big>(f, std::move(w.get<Big>(full[6])));
    CHECK(w.get<Big>(f).v == 6);
    CHECK(w.check_invariants());
}

TEST_CASE("structural: emplace hooks: on_add then on_set, once, after construction", "[structural]") {
    World w;
    std::vector<std::string> log;
    w.on_add<Pair>([&](World& world, Entity e, Pair& p) {
        log.push_back("add " + std::to_string(p.a));
        CHECK(&world.get<Pair>(e) == &p);
    });
    w.on_set<Pair>([&](World&, Entity, Pair& p) { log.push_back("set " + std::to_string(p.a)); });
    w.on_enter<Pair>([&](World&, Entity) { log.push_back("enter"); });
    const Entity e = w.create_with(A{1});
    w.emplace<Pair>(e, 3, "x");
    w.emplace<Pair>(e, 4, "y");
    CHECK(log == std::vector<std::string>{"add 3", "set 3", "enter", "set 4"});
}

TEST_CASE("structural: get_or_emplace returns the existing value or emplaces one", "[structural]") {
    Moved::reset();
    {
        World w;
        const Entity e = w.create_with(A{1});
        Moved& m = w.get_or_emplace<Moved>(e, 3);
        CHECK(m.value() == 3);
        CHECK(Moved::tally().constructed == 1);
        Moved& again = w.get_or_emplace<Moved>(e, 9);
        CHECK(&again == &w.get<Moved>(e));
        CHECK(again.value() == 3); // existing value kept, no construction
        CHECK(Moved::tally().constructed == 1);
        Pair& p = w.get_or_emplace<Pair>(e, 1, "one");
        CHECK(p.b == "one");
    }
    CHECK(Moved::tally().clean());
}

// -------------------------------------------------------------------------------------------------
// destroy_all / remove_all / add_all
// -------------------------------------------------------------------------------------------------

TEST_CASE("structural: destroy_all destroys the matching entities, whole archetypes at a time", "[structural]") {
    ecs_test::reset_life();
    {
        World w;
        std::vector<Entity> ab, a_only, b_only, abc;
        for (int i = 0; i < 50; ++i) {
            ab.push_back(w.create_with(A{i}, B{1}, Counted{i}, std::string(short_str(i))));
            a_only.push_back(w.create_with(A{i}, CountedWide(1.f)));
            b_only.push_back(w.create_with(B{2}, Counted{i}));
            abc.push_back(w.create_with(A{i}, B{3}, C{4}, CountedName(short_str(i))));
        }
        w.set_name(ab[3], "ab3");
        w.set_name(b_only[3], "b3");
        const size_t archetypes = w.archetype_count();
        CHECK(w.destroy_all<A>(ecs::Without<C>{}) == 100);
        for (Entity e : ab) CHECK_FALSE(w.alive(e));
        for (Entity e : a_only) CHECK_FALSE(w.alive(e));
        for (Entity e : b_only) CHECK(w.alive(e));
        for (Entity e : abc) CHECK(w.alive(e));
        CHECK(w.lookup("ab3") == ecs::INVALID_ENTITY); // names of destroyed entities are freed
        CHECK(w.lookup("b3") == b_only[3]);
        CHECK(w.archetype_count() == archetypes);
        CHECK(w.count() == 100);
        CHECK(w.check_invariants());

        CHECK(w.destroy_all<A, B>(ecs::With<C>{}) == 50);
        CHECK(w.destroy_all<A>() == 0);
        CHECK(w.count() == 50);
        // Freed slots are reused with bumped generations.
        const Entity reused = w.create();
        bool was_issued = false;
        for (const auto* list : {&ab, &a_only, &abc})
            for (Entity e : *list)
                if (e.index == reused.index) {
                    was_issued = true;
                    CHECK(reused.generation == e.generation + 1);
                }
        CHECK(was_issued);
        CHECK(w.destroy_all() == 51); // everything
        CHECK(w.count() == 0);
        CHECK(w.check_invariants());
        CHECK(ecs_test::life().alive() == 0);
    }
    CHECK(ecs_test::life().alive() == 0);
    CHECK(ecs_test::life().bad_destroys == 0);
}

TEST_CASE("structural: destroy_all with hooks destroys one by one and fires every hook", "[structural]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 10; ++i) es.push_back(w.create_with(A{i}, B{float(i)}));
    const Entity keep = w.create_with(B{100});
    int removes_a = 0, removes_b = 0, leaves = 0;
    w.on_remove<A>([&](World& world, Entity e, A& a) {
        ++removes_a;
        CHECK(world.get<A>(e).v == a.v);
        if (a.v == 2) world.destroy(es[7]); // a hook destroys another matching entity first
    });
    w.on_remove<B>([&](World&, Entity, B&) { ++removes_b; });
    w.on_leave<A>([&](World&, Entity) { ++leaves; });
    CHECK(w.destroy_all<A>() == 10); // all ten matched and are gone; es[7] went through the hook's destroy
    CHECK(removes_a == 10);
    CHECK(removes_b == 10);
    CHECK(leaves == 10);
    CHECK(w.alive(keep));
    CHECK(w.count() == 1);
    CHECK(w.check_invariants());
}

TEST_CASE("structural: remove_all removes T from every matching entity", "[structural]") {
    ecs_test::reset_life();
    {
        World w;
        std::vector<Entity> es;
        for (int i = 0; i < 40; ++i) {
            if (i % 2 == 0) es.push_back(w.create_with(Counted{i}, std::string(short_str(i)), CountedWide(float(i))));
            else es.push_back(w.create_with(Counted{i}, std::string(short_str(i)), Tag{}));
        }
        const Entity spare = w.create_with(std::string("spare"));
        CHECK(w.remove_all<Counted>(ecs::Without<Tag>{}) == 20);
        for (size_t i = 0; i < es.size(); ++i) {
            CHECK(w.has<Counted>(es[i]) == (i % 2 == 1));
            CHECK(w.get<std::string>(es[i]) == short_str(int(i)));
            if (i % 2 == 0) {
                CHECK(w.get<CountedWide>(es[i]).lanes[3] == float(i));
                CHECK(aligned64(&w.get<CountedWide>(es[i])));
            }
        }
        CHECK(ecs_test::life().alive() == 20 + 20); // 20 Counted left, 20 CountedWide
        CHECK(w.remove_all<Counted>() == 20);
        CHECK(w.remove_all<Counted>() == 0);
        CHECK(w.remove_all<std::string>() == 41);
        CHECK(w.has<CountedWide>(es[0]));
        CHECK_FALSE(w.has<std::string>(spare));
        size_t visits = 0;
        w.each<const CountedWide>([&](Entity, const CountedWide&) { ++visits; });
        CHECK(visits == 20);
        CHECK(w.check_invariants());
    }
    CHECK(ecs_test::life().alive() == 0);
    CHECK(ecs_test::life().bad_destroys == 0);
}

TEST_CASE("structural: remove_all into an archetype that already has rows", "[structural]") {
    World w;
    std::vector<Entity> plain, with_c;
    for (int i = 0; i < 30; ++i) plain.push_back(w.create_with(A{i}, B{float(i)}));
    for (int i = 0; i < 30; ++i) with_c.push_back(w.create_with(A{100 + i}, B{float(100 + i)}, C{double(i)}));
    CHECK(w.remove_all<C>() == 30);
    CHECK(w.count<A, B>() == 60);
    for (int i = 0; i < 30; ++i) {
        CHECK(w.get<A>(plain[size_t(i)]).v == i);
        CHECK(w.get<A>(with_c[size_t(i)]).v == 100 + i);
        CHECK(w.get<B>(with_c[size_t(i)]).f == float(100 + i));
    }
    // Row order: the moved rows come after the rows already there.
    std::vector<Entity> order;
    w.each<A>([&](Entity e, A&) { order.push_back(e); });
    REQUIRE(order.size() == 60);
    for (size_t i = 0; i < 30; ++i) CHECK(order[30 + i] == with_c[i]);
    CHECK(w.check_invariants());
}

TEST_CASE("structural: remove_all with an on_remove hook removes one by one", "[structural]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 8; ++i) es.push_back(w.create_with(A{i}, B{float(i)}));
    std::vector<int> seen;
    w.on_remove<A>([&](World& world, Entity e, A& a) {
        seen.push_back(a.v);
        CHECK(world.has<A>(e));
    });
    CHECK(w.remove_all<A>(ecs::With<B>{}) == 8);
    CHECK(seen == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}); // archetype order, row order
    CHECK(w.count<A>() == 0);
    CHECK(w.count<B>() == 8);
}

TEST_CASE("structural: add_all adds a copy to every matching entity that lacks T", "[structural]") {
    ecs_test::reset_life();
    {
        World w;
        std::vector<Entity> none, some, has;
        for (int i = 0; i < 20; ++i) none.push_back(w.create());
        for (int i = 0; i < 20; ++i) some.push_back(w.create_with(A{i}, std::string(short_str(i))));
        for (int i = 0; i < 20; ++i) has.push_back(w.create_with(A{i}, Counted{-i}));
        const Counted value{7};
        CHECK(w.add_all(value, ecs::With<A>{}) == 20);
        for (Entity e : none) CHECK_FALSE(w.has<Counted>(e));
        for (size_t i = 0; i < 20; ++i) {
            CHECK(w.get<Counted>(some[i]).value == 7);
            CHECK(w.get<std::string>(some[i]) == short_str(int(i)));
            CHECK(w.get<Counted>(has[i]).value == -int(i)); // had it: untouched
        }
        CHECK(w.add_all(Counted{8}) == 20); // the entities with no component
        for (Entity e : none) CHECK(w.get<Counted>(e).value == 8);
        CHECK(w.add_all(Counted{9}) == 0);
        CHECK(w.add_all(Tag{}, ecs::Without<std::string>{}) == 40);
        CHECK(w.count<Tag>() == 40);
        CHECK(w.add_all(CountedWide(3.f)) == 60);
        w.each<const CountedWide>([&](Entity, const CountedWide& c) { CHECK(aligned64(&c)); });
        CHECK(w.check_invariants());
    }
    CHECK(ecs_test::life().alive() == 0);
    CHECK(ecs_test::life().bad_destroys == 0);
}

TEST_CASE("structural: add_all of a value that lives in the world", "[structural]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 16; ++i) {
        Big big;
        big.v = i;
        es.push_back(w.create_with(A{i}, big));
    }
    std::vector<Entity> others;
    for (int i = 0; i < 40; ++i) others.push_back(w.create_with(A{i}));
    // {A, Big} is full: appending 40 rows moves the block the value lives in.
    CHECK(w.add_all(w.get<Big>(es[4])) == 40);
    for (Entity e : others) CHECK(w.get<Big>(e).v == 4);
    CHECK(w.check_invariants());
}

TEST_CASE("structural: add_all with hooks adds one by one and fires them", "[structural]") {
    World w;
    for (int i = 0; i < 5; ++i) (void)w.create_with(A{i});
    int adds = 0, sets = 0, enters = 0;
    w.on_add<B>([&](World& world, Entity e, B&) {
        ++adds;
        CHECK(world.has<A, B>(e));
    });
    w.on_set<B>([&](World&, Entity, B&) { ++sets; });
    w.on_enter<A, B>([&](World&, Entity) { ++enters; });
    CHECK(w.add_all(B{1}) == 5);
    CHECK(adds == 5);
    CHECK(sets == 5);
    CHECK(enters == 5);
}

TEST_CASE("structural: bulk operations keep change ticks", "[structural]") {
    World w;
    w.track_changes<A>();
    w.track_changes<B>();
    for (int i = 0; i < 10; ++i) (void)w.create_with(A{i});
    auto added_b = w.query<const B>(ecs::Added<B>{});
    auto changed_a = w.query<const A>(ecs::Changed<A>{});
    added_b.each([](const B&) {});
    changed_a.each([](const A&) {});
    CHECK(w.add_all(B{1}) == 10);
    size_t n = 0;
    added_b.each([&](const B&) { ++n; });
    CHECK(n == 10);
    n = 0;
    changed_a.each([&](const A&) { ++n; });
    CHECK(n == 0); // moved, not changed
    CHECK(w.remove_all<B>() == 10);
    CHECK(w.check_invariants());
}

// -------------------------------------------------------------------------------------------------
// Deferred: reserved handles
// -------------------------------------------------------------------------------------------------

TEST_CASE("structural: deferred create returns a handle that is alive only after the flush", "[structural][deferred]") {
    World w;
    const Entity a = w.deferred().create();
    const Entity b = w.deferred().create_with(A{1}, std::string(short_str(2)));
    CHECK(a != ecs::INVALID_ENTITY);
    CHECK(b != ecs::INVALID_ENTITY);
    CHECK(a != b);
    CHECK_FALSE(w.alive(a));
    CHECK_FALSE(w.alive(b));
    CHECK_FALSE(w.has<A>(b));
    CHECK(w.try_get<A>(b) == nullptr);
    CHECK(w.count() == 0);
    CHECK(w.check_invariants()); // reserved slots are neither live nor free
    const Entity c = w.create();  // a direct create does not take a reserved slot
    CHECK(c.index != a.index);
    CHECK(c.index != b.index);
    w.destroy(a); // not alive yet: no-op
    w.add(b, C{}); // likewise
    w.flush_deferred();
    CHECK(w.alive(a));
    CHECK(w.alive(b));
    CHECK(w.get<A>(b).v == 1);
    CHECK(w.get<std::string>(b) == short_str(2));
    CHECK_FALSE(w.has<C>(b));
    CHECK(w.count() == 3);
    CHECK(w.check_invariants());
}

TEST_CASE("structural: commands recorded for a reserved handle apply after it exists, in order",
          "[structural][deferred]") {
    World w;
    auto d = w.deferred();
    const Entity e = d.create_with(A{1});
    d.add(e, B{2}, C{3});
    d.emplace<Pair>(e, 4, short_str(5));
    d.remove<A, C>(e);
    d.add(e, D{6});
    std::vector<std::string> order;
    d.call([&](World& world) {
        order.push_back("call");
        CHECK(world.has<B, Pair, D>(e)); // everything recorded before the call has applied
    });
    const Entity f = d.create();
    d.add(f, A{7});
    d.destroy(f);
    CHECK_FALSE(w.alive(e));
    w.flush_deferred();
    REQUIRE(w.alive(e));
    CHECK(w.has<B, Pair, D>(e));
    CHECK_FALSE(w.has<A>(e));
    CHECK_FALSE(w.has<C>(e));
    CHECK(w.get<Pair>(e).b == short_str(5));
    CHECK(order == std::vector<std::string>{"call"});
    CHECK_FALSE(w.alive(f)); // created, given A, then destroyed, in order
    CHECK(w.count() == 1);
    CHECK(w.check_invariants());
}

TEST_CASE("structural: call(fn) runs in recording order at the flush", "[structural][deferred]") {
    World w;
    std::vector<int> order;
    const Entity e = w.create();
    w.deferred().call([&](World&) { order.push_back(1); });
    w.deferred().add(e, A{2});
    w.deferred().call([&](World& world) { order.push_back(world.get<A>(e).v); });
    w.deferred().call([&](World& world) {
        order.push_back(3);
        world.deferred().call([&](World&) { order.push_back(5); }); // recorded during the flush: runs in it
    });
    w.deferred().call([&](World&) { order.push_back(4); });
    CHECK(order.empty());
    w.flush_deferred();
    CHECK(order == std::vector<int>{1, 2, 3, 4, 5});
    CHECK(w.deferred_count() == 0);

    ecs::CommandBuffer buffer;
    order.clear();
    buffer.call([&](World&) { order.push_back(1); });
    buffer.add(e, B{1}, C{2});
    buffer.call([&](World& world) { order.push_back(world.has<B, C>(e) ? 2 : -2); });
    buffer.flush(w);
    CHECK(order == std::vector<int>{1, 2});
}

TEST_CASE("structural: deferred instantiate returns a handle; the prefab may die before the flush",
          "[structural][deferred]") {
    World w;
    Entity e, f;
    {
        const ecs::Prefab prefab = ecs::Prefab::create(A{1}, std::string(short_str(1)));
        e = w.deferred().instantiate(prefab);
        f = w.deferred().instantiate(prefab, A{5}, B{6});
    } // the prefab is gone: the queue holds a copy
    w.deferred().add(f, C{7});
    CHECK_FALSE(w.alive(e));
    w.flush_deferred();
    REQUIRE(w.alive(e));
    REQUIRE(w.alive(f));
    CHECK(w.get<A>(e).v == 1);
    CHECK(w.get<std::string>(e) == short_str(1));
    CHECK(w.get<A>(f).v == 5);
    CHECK(w.get<B>(f).f == 6);
    CHECK(w.get<C>(f).d == 7);
    CHECK(w.get<std::string>(f) == short_str(1));

    ecs::CommandBuffer buffer;
    const ecs::Prefab p2 = ecs::Prefab::create(D{3});
    buffer.instantiate(p2, A{4});
    buffer.flush(w);
    CHECK(w.count<A, D>() == 1);
    CHECK(w.check_invariants());
}

TEST_CASE("structural: deferred multi add, multi remove and emplace keep lifetimes exact", "[structural][deferred]") {
    ecs_test::reset_life();
    Moved::reset();
    {
        World w;
        const Entity e = w.create_with(A{1});
        ecs::CommandBuffer buffer;
        w.deferred().add(e, Counted{1}, CountedName(short_str(1)), CountedWide(1.f));
        w.deferred().emplace<Moved>(e, 5);
        w.deferred().emplace<Pair>(e, 1, std::string(short_str(2)));
        buffer.add(e, Counted{2}, std::string(short_str(3)));
        buffer.remove<Counted, A>(e);
        buffer.emplace<CountedName>(e, short_str(4));
        w.flush_deferred();
        CHECK(w.get<Counted>(e).value == 1);
        CHECK(aligned64(&w.get<CountedWide>(e)));
        CHECK(w.get<Moved>(e).value() == 5);
        CHECK(w.get<Pair>(e).b == short_str(2));
        buffer.flush(w);
        CHECK_FALSE(w.has<Counted>(e));
        CHECK_FALSE(w.has<A>(e));
        CHECK(w.get<std::string>(e) == short_str(3));
        CHECK(w.get<CountedName>(e).name == short_str(4));
        // Commands on a dead entity: payloads destroyed, nothing applied.
        const Entity dead = w.create();
        w.destroy(dead);
        w.deferred().emplace<Moved>(dead, 1);
        w.deferred().add(dead, Counted{1}, CountedWide(1.f));
        w.deferred().remove<Counted, CountedWide>(dead);
        w.flush_deferred();
        // Unflushed commands in a buffer and in the world's queue are destroyed with them.
        buffer.add(e, Counted{9}, CountedWide(9.f));
        buffer.emplace<Moved>(e, 9);
        w.deferred().add(e, Counted{10}, CountedWide(10.f));
        (void)w.deferred().create_with(Counted{11}, CountedName(short_str(11)));
        CHECK(w.check_invariants());
    }
    CHECK(ecs_test::life().alive() == 0);
    CHECK(ecs_test::life().bad_destroys == 0);
    CHECK(Moved::tally().clean());
}

TEST_CASE("structural: a reservation dropped unflushed leaves no trace", "[structural][deferred]") {
    // A command throws during the flush: it stops, and the records after it are dropped unrun.
    {
        World v;
        const Entity ok = v.deferred().create_with(A{1});
        v.deferred().call([](World&) { throw std::runtime_error("stop"); });
        const Entity lost = v.deferred().create_with(A{2});
        const Entity lost_prefab = v.deferred().instantiate(ecs::Prefab::create(B{1}));
        v.deferred().add(lost, B{3});
        CHECK_THROWS_AS(v.flush_deferred(), std::runtime_error);
        CHECK(v.alive(ok));
        CHECK_FALSE(v.alive(lost));
        CHECK_FALSE(v.alive(lost_prefab));
        CHECK(v.deferred_count() == 0);
        CHECK(v.count() == 1);
        CHECK(v.check_invariants()); // the slots are free again, not reserved
        // The slots are reused, with bumped generations: the lost handles stay dead.
        const Entity x = v.create();
        const Entity y = v.create();
        CHECK(((x.index == lost.index && y.index == lost_prefab.index) ||
               (x.index == lost_prefab.index && y.index == lost.index)));
        for (Entity n : {x, y}) {
            const Entity old = n.index == lost.index ? lost : lost_prefab;
            CHECK(n.generation == old.generation + 1);
        }
        CHECK_FALSE(v.alive(lost));
        CHECK_FALSE(v.alive(lost_prefab));
        CHECK(v.check_invariants());
    }
}

TEST_CASE("structural: a world destroyed or replaced with pending reservations leaks nothing",
          "[structural][deferred]") {
    ecs_test::reset_life();
    {
        World w;
        (void)w.deferred().create_with(Counted{1}, CountedWide(2.f));
        (void)w.deferred().create();
        World other;
        const Entity kept = other.deferred().create_with(Counted{3});
        w = std::move(other); // w's pending commands are dropped; other's come along
        CHECK(w.check_invariants());
        CHECK_FALSE(w.alive(kept));
        w.flush_deferred();
        CHECK(w.alive(kept));
        CHECK(w.get<Counted>(kept).value == 3);
        World moved(std::move(w));
        const Entity later = moved.deferred().create_with(Counted{4});
        World target(std::move(moved));
        target.flush_deferred();
        CHECK(target.get<Counted>(later).value == 4);
        (void)target.deferred().create_with(Counted{5}); // dropped with the world
    }
    CHECK(ecs_test::life().alive() == 0);
    CHECK(ecs_test::life().bad_destroys == 0);
}

namespace {
struct StructuralSnapA {
    int v;
};
} // namespace

TEST_CASE("structural: snapshots and clones treat reserved slots as dropped reservations",
          "[structural][deferred]") {
    if (!ecs::component_registered(ecs::component_id<StructuralSnapA>()))
        ecs::register_component<StructuralSnapA>("structural.SnapA");
    World w;
    const Entity live = w.create_with(StructuralSnapA{1});
    const Entity gone = w.create_with(StructuralSnapA{2});
    const Entity gone_too = w.create_with(StructuralSnapA{4});
    w.destroy(gone_too);
    w.destroy(gone); // two free slots; `gone`'s is reused first
    const Entity pending = w.deferred().create_with(StructuralSnapA{3});
    CHECK(pending.index == gone.index); // a reservation takes a slot as create() would
    CHECK(pending.generation == gone.generation + 1);
    std::ostringstream out;
    ecs::serialize(w, out);
    REQUIRE(out);

    World loaded;
    std::istringstream in(out.str());
    REQUIRE(ecs::deserialize(loaded, in));
    CHECK(loaded.check_invariants());
    CHECK(loaded.alive(live));
    CHECK_FALSE(loaded.alive(pending));
    CHECK(loaded.count() == 1);

    World copy = w.clone();
    CHECK(copy.check_invariants());
    CHECK_FALSE(copy.alive(pending));
    CHECK(copy.deferred_count() == 0);

    // In both, the reserved slot is free with its generation bumped, reused after the other free
    // slots (the next create returns what the source's would): the pending handle stays dead.
    for (World* x : {&loaded, &copy}) {
        CHECK(x->create() == Entity{gone_too.index, gone_too.generation + 1});
        std::vector<Entity> made;
        for (int i = 0; i < 4; ++i) made.push_back(x->create());
        bool found = false;
        for (Entity m : made)
            if (m.index == pending.index) {
                found = true;
                CHECK(m.generation == pending.generation + 1);
            }
        CHECK(found);
        CHECK_FALSE(x->alive(pending));
        CHECK(x->check_invariants());
    }

    // The source still creates it at the flush.
    w.flush_deferred();
    CHECK(w.alive(pending));
    CHECK(w.get<StructuralSnapA>(pending).v == 3);
}
