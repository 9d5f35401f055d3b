// Observers (SPEC §3.8): when on_add / on_remove fire, what they see, and hooks that change the
// world under the operation that fired them (PITFALLS #5), checked entity by entity and counted.
#include <ecs/command_buffer.hpp>
#include <ecs/world.hpp>

#include <array>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "catch.hpp"
#include "lifetime.hpp"

using ecs::CommandBuffer;
using ecs::Entity;
using ecs::World;

namespace {

struct BodyTag {};
using Life = lifetime::Counted<BodyTag>;

/// About 1 KiB per row: the archetype {Body, Mark} starts with room for exactly 16 rows.
struct Body {
    explicit Body(int v) : id(v) {}
    Life id;
    std::array<char, 1016> pad{};
};
struct Mark {
    int value = 0;
};
struct Extra {
    int value = 0;
};
struct Frozen {};
struct Hp {
    int value = 0;
};
struct Vel {
    int dx = 0;
};
struct Link {
    Entity next;
};
struct A {
    int v = 0;
};
struct B {
    int v = 0;
};
struct C {
    int v = 0;
};

/// What the test believes about one entity; every modelled entity has a Body.
struct Expected {
    int body = 0;
    bool has_mark = false;
    int mark = 0;
    bool has_extra = false;
    int extra = 0;
};
using Model = std::map<Entity, Expected>;

Entity spawn(World& w, Model& m, int id) {
    const Entity e = w.create_with(Body{id}, Mark{id * 10});
    m[e] = Expected{id, true, id * 10, false, 0};
    return e;
}

std::vector<Entity> spawn_many(World& w, Model& m, int first, int n) {
    std::vector<Entity> out;
    for (int i = 0; i < n; ++i) out.push_back(spawn(w, m, first + i));
    return out;
}

/// Capacity of the archetype of exactly {Body, Mark} (0 when it does not exist).
size_t body_mark_capacity(const World& w) {
    for (const auto& a : ecs::detail::WorldAccess::archetypes(w))
        if (a->types.size() == 2 && a->has(ecs::component_id<Body>()) && a->has(ecs::component_id<Mark>()))
            return a->capacity();
    return 0;
}

/// Checks every modelled entity through get, that each() visits each of them exactly once, the
/// world's invariants, and that exactly one Body instance lives per modelled entity.
void verify(World& w, const Model& m) {
    CHECK(w.check_invariants());
    CHECK(w.count() == m.size());
    CHECK(w.count<Body>() == m.size());
    for (const auto& [e, x] : m) {
        REQUIRE(w.alive(e));
        CHECK(w.get<Body>(e).id.value() == x.body);
        REQUIRE(w.has<Mark>(e) == x.has_mark);
        if (x.has_mark) CHECK(w.get<Mark>(e).value == x.mark);
        REQUIRE(w.has<Extra>(e) == x.has_extra);
        if (x.has_extra) CHECK(w.get<Extra>(e).value == x.extra);
    }
    std::map<Entity, int> visits;
    w.each<Body>([&](Entity e, Body& b) {
        ++visits[e];
        const auto it = m.find(e);
        REQUIRE(it != m.end());
        CHECK(b.id.value() == it->second.body);
    });
    CHECK(visits.size() == m.size());
    for (const auto& [e, n] : visits) CHECK(n == 1);
    CHECK(Life::tally().alive() == long(m.size()));
    CHECK(Life::tally().bad_destroys == 0);
    CHECK(Life::tally().bad_reads == 0);
}

} // namespace

// ------------------------------------------------------------------------------------------------
// When hooks fire and what they see
// ------------------------------------------------------------------------------------------------

TEST_CASE("observers: on_add runs after placement, with the record updated", "[observers]") {
    World w;
    std::vector<int> seen;
    w.on_add<Hp>([&](World& world, Entity e, Hp& h) {
        REQUIRE(world.alive(e));
        REQUIRE(world.has<Hp>(e));
        CHECK(&world.get<Hp>(e) == &h); // the hook gets the placed value itself
        CHECK(world.get<Hp>(e).value == h.value);
        if (world.has<Vel>(e)) CHECK(world.get<Vel>(e).dx == h.value); // carried components are in place too
        seen.push_back(h.value);
    });
    const Entity a = w.create_with(Hp{1}, Vel{1});
    const Entity b = w.create_with(Vel{2});
    w.add(b, Hp{2});
    const Entity c = w.create_with(Vel{3});
    w.deferred().add(c, Hp{3});
    w.deferred().create_with(Vel{4}, Hp{4});
    w.flush_deferred();
    CommandBuffer buf;
    const Entity d = w.create_with(Vel{5});
    buf.add(d, Hp{5});
    buf.create_with(Hp{6}, Vel{6});
    buf.flush(w);
    CHECK(seen == std::vector<int>{1, 2, 3, 4, 5, 6});
    CHECK(w.get<Hp>(a).value == 1);
    CHECK(w.check_invariants());
}

TEST_CASE("observers: on_remove runs before destruction and the value is readable", "[observers]") {
    Life::reset();
    {
        World w;
        std::vector<int> seen;
        long destroyed_at_op = 0;
        w.on_remove<Body>([&](World& world, Entity e, Body& b) {
            REQUIRE(world.alive(e));
            REQUIRE(world.has<Body>(e));
            CHECK(&world.get<Body>(e) == &b);
            CHECK(Life::tally().destroyed == destroyed_at_op); // nothing destroyed yet
            seen.push_back(b.id.value());                      // a read of a live object
            CHECK(world.get<Mark>(e).value == b.id.value() * 10);
        });
        Model m;
        const std::vector<Entity> es = spawn_many(w, m, 1, 4);

        destroyed_at_op = Life::tally().destroyed;
        w.remove<Body>(es[0]);
        CHECK_FALSE(w.has<Body>(es[0]));
        CHECK(w.alive(es[0]));

        destroyed_at_op = Life::tally().destroyed;
        w.destroy(es[1]);

        destroyed_at_op = Life::tally().destroyed;
        w.deferred().remove<Body>(es[2]);
        w.flush_deferred();

        destroyed_at_op = Life::tally().destroyed;
        CommandBuffer buf;
        buf.destroy(es[3]);
        buf.flush(w);

        CHECK(seen == std::vector<int>{1, 2, 3, 4});
        CHECK(Life::tally().alive() == 0);
        CHECK(Life::tally().bad_reads == 0);
    }
    CHECK(Life::tally().clean());
}

TEST_CASE("observers: overwriting a component fires no hook", "[observers]") {
    World w;
    int adds = 0;
    int removes = 0;
    w.on_add<Hp>([&](World&, Entity, Hp&) { ++adds; });
    w.on_remove<Hp>([&](World&, Entity, Hp&) { ++removes; });
    const Entity e = w.create_with(Hp{1});
    CHECK(adds == 1);
    w.add(e, Hp{2});
    w.add(e, Hp{3});
    w.deferred().add(e, Hp{4});
    w.flush_deferred();
    CommandBuffer buf;
    buf.add(e, Hp{5});
    buf.flush(w);
    CHECK(adds == 1);
    CHECK(removes == 0);
    CHECK(w.get<Hp>(e).value == 5);
}

TEST_CASE("observers: several hooks per type fire in registration order", "[observers]") {
    World w;
    std::vector<std::string> log;
    w.on_add<Hp>([&](World&, Entity, Hp&) { log.push_back("add1"); });
    w.on_remove<Hp>([&](World&, Entity, Hp&) { log.push_back("rem1"); });
    w.on_add<Hp>([&](World&, Entity, Hp&) { log.push_back("add2"); });
    w.on_remove<Hp>([&](World&, Entity, Hp&) { log.push_back("rem2"); });
    w.on_add<Hp>([&](World&, Entity, Hp&) { log.push_back("add3"); });
    const Entity e = w.create_with(Hp{});
    w.remove<Hp>(e);
    w.add(e, Hp{});
    w.destroy(e);
    CHECK(log == std::vector<std::string>{"add1", "add2", "add3", "rem1", "rem2", "add1", "add2", "add3", "rem1", "rem2"});
}

TEST_CASE("observers: create_with fires on_add per component in template pack order", "[observers]") {
    World w;
    std::string log;
    w.on_add<A>([&](World& world, Entity e, A&) {
        log += 'A';
        CHECK(world.has<B>(e)); // every component is placed before the first hook runs
        CHECK(world.has<C>(e));
    });
    w.on_add<B>([&](World&, Entity, B&) { log += 'B'; });
    w.on_add<C>([&](World&, Entity, C&) { log += 'C'; });
    (void)w.create_with(C{}, A{}, B{});
    log += '|';
    (void)w.create_with(A{}, B{}, C{}); // same archetype, other order
    log += '|';
    (void)w.create_with(B{}, C{}, A{});
    log += '|';
    w.deferred().create_with(C{}, B{}, A{});
    w.flush_deferred();
    log += '|';
    CommandBuffer buf;
    buf.create_with(B{}, A{}, C{});
    buf.flush(w);
    CHECK(log == "CAB|ABC|BCA|CBA|BAC");
    CHECK(w.count<A, B, C>() == 5);
}

TEST_CASE("observers: add, remove and destroy fire exactly the hooks of the components concerned", "[observers]") {
    World w;
    std::map<std::string, int> calls;
    w.on_add<A>([&](World&, Entity, A&) { ++calls["+A"]; });
    w.on_add<B>([&](World&, Entity, B&) { ++calls["+B"]; });
    w.on_add<Frozen>([&](World&, Entity, Frozen&) { ++calls["+F"]; });
    w.on_remove<A>([&](World&, Entity, A&) { ++calls["-A"]; });
    w.on_remove<B>([&](World&, Entity, B&) { ++calls["-B"]; });
    w.on_remove<Frozen>([&](World&, Entity, Frozen&) { ++calls["-F"]; });

    const Entity e = w.create_with(A{1});
    CHECK(calls == std::map<std::string, int>{{"+A", 1}});
    w.add(e, B{2}); // migration carries A: only B's hook
    CHECK(calls == std::map<std::string, int>{{"+A", 1}, {"+B", 1}});
    w.add<Frozen>(e); // a tag
    CHECK(calls["+F"] == 1);
    w.remove<C>(e); // absent: nothing
    w.remove<A>(e);
    CHECK(calls["-A"] == 1);
    CHECK(calls["-B"] == 0);
    w.remove<A>(e); // already gone: nothing
    CHECK(calls["-A"] == 1);
    w.add(e, A{3});
    CHECK(calls["+A"] == 2);
    calls.clear();
    w.destroy(e); // once per component, no on_add
    CHECK(calls == std::map<std::string, int>{{"-A", 1}, {"-B", 1}, {"-F", 1}});
    w.destroy(e); // dead: nothing
    CHECK(calls == std::map<std::string, int>{{"-A", 1}, {"-B", 1}, {"-F", 1}});
}

TEST_CASE("observers: deferred and command buffer flushes fire the hooks of every command", "[observers]") {
    World w;
    int adds = 0;
    int removes = 0;
    w.on_add<Hp>([&](World&, Entity, Hp&) { ++adds; });
    w.on_remove<Hp>([&](World&, Entity, Hp&) { ++removes; });
    const Entity a = w.create_with(Vel{});
    const Entity b = w.create_with(Vel{});

    const auto record = [&](auto& r) {
        r.add(a, Hp{1});        // +1
        r.create_with(Hp{2});   // +1
        r.add(b, Hp{3});        // +1
        r.template remove<Hp>(b); // -1
        r.destroy(a);           // -1 (a has Hp by then)
    };
    SECTION("deferred") {
        auto d = w.deferred();
        record(d);
        CHECK(adds == 0);
        w.flush_deferred();
    }
    SECTION("command buffer") {
        CommandBuffer buf;
        record(buf);
        CHECK(adds == 0);
        buf.flush(w);
    }
    CHECK(adds == 3);
    CHECK(removes == 2);
    CHECK(w.count<Hp>() == 1);
}

TEST_CASE("observers: a hook for a type never used elsewhere changes nothing", "[observers]") {
    World w;
    struct NeverUsed {
        int x = 0;
    };
    struct NeverUsedEither {};
    int calls = 0;
    w.on_add<NeverUsed>([&](World&, Entity, NeverUsed&) { ++calls; });
    w.on_remove<NeverUsedEither>([&](World&, Entity, NeverUsedEither&) { ++calls; });
    std::vector<Entity> es;
    for (int i = 0; i < 50; ++i) es.push_back(w.create_with(Hp{i}, Vel{i}));
    for (int i = 0; i < 50; i += 2) w.remove<Vel>(es[size_t(i)]);
    for (int i = 0; i < 50; i += 3) w.destroy(es[size_t(i)]);
    w.deferred().create_with(Hp{100});
    w.flush_deferred();
    CHECK(calls == 0);
    int sum = 0;
    w.each<Hp>([&](Entity, Hp& h) { sum += h.value; });
    int expected = 100;
    for (int i = 0; i < 50; ++i)
        if (i % 3 != 0) expected += i;
    CHECK(sum == expected);
    CHECK(w.check_invariants());
    // Once the type is used, its hook does fire.
    (void)w.create_with(NeverUsed{});
    CHECK(calls == 1);
}

TEST_CASE("observers: hooks belong to their world", "[observers]") {
    World w1;
    World w2;
    int calls1 = 0;
    w1.on_add<Hp>([&](World& world, Entity, Hp&) {
        CHECK(&world == &w1);
        ++calls1;
    });
    (void)w2.create_with(Hp{});
    CHECK(calls1 == 0);
    (void)w1.create_with(Hp{});
    CHECK(calls1 == 1);
}

// ------------------------------------------------------------------------------------------------
// Hooks that change the world under the operation that fired them (PITFALLS #5)
// ------------------------------------------------------------------------------------------------

TEST_CASE("observers: a hook adds and removes components of other entities in the observed archetype", "[observers]") {
    Life::reset();
    {
        World w;
        Model m;
        const std::vector<Entity> es = spawn_many(w, m, 0, 8);
        bool armed = true;

        SECTION("while create_with fires") {
            int body_seen = -1;
            std::map<Entity, int> mark_seen;
            w.on_add<Body>([&](World& world, Entity e, Body&) {
                if (!armed) return;
                armed = false;
                world.add(es[0], Extra{1}); // row 0 leaves: the new entity (last row) moves into it
                world.remove<Mark>(es[1]);
                world.add(es[2], Extra{2});
                body_seen = world.get<Body>(e).id.value();
            });
            w.on_add<Mark>([&](World& world, Entity e, Mark& mk) {
                mark_seen[e] = mk.value;
                CHECK(world.get<Body>(e).id.value() * 10 == mk.value);
            });
            const Entity n = w.create_with(Body{100}, Mark{1000});
            m[n] = Expected{100, true, 1000, false, 0};
            m[es[0]].has_extra = true;
            m[es[0]].extra = 1;
            m[es[1]].has_mark = false;
            m[es[2]].has_extra = true;
            m[es[2]].extra = 2;
            CHECK(body_seen == 100);
            CHECK(mark_seen == std::map<Entity, int>{{n, 1000}});
        }
        SECTION("while add fires") {
            w.add(es[6], Extra{60}); // row 0 of {Body, Mark, Extra}
            m[es[6]].has_extra = true;
            m[es[6]].extra = 60;
            std::map<Entity, int> extra_seen;
            w.on_add<Extra>([&](World& world, Entity, Extra&) {
                if (!armed) return;
                armed = false;
                world.remove<Extra>(es[6]); // the observed entity (last row) moves into row 0
                world.add(es[4], Extra{40}); // joins the observed entity's archetype
                world.remove<Mark>(es[5]);
            });
            w.on_add<Extra>([&](World&, Entity e, Extra& x) { extra_seen[e] = x.value; });
            w.add(es[3], Extra{30});
            m[es[3]].has_extra = true;
            m[es[3]].extra = 30;
            m[es[6]].has_extra = false;
            m[es[4]].has_extra = true;
            m[es[4]].extra = 40;
            m[es[5]].has_mark = false;
            CHECK(extra_seen == std::map<Entity, int>{{es[3], 30}, {es[4], 40}});
        }
        SECTION("while remove fires") {
            w.add(es[6], Extra{60}); // row 0 of {Body, Mark, Extra}
            w.add(es[7], Extra{70});
            w.add(es[3], Extra{30}); // the last row
            w.on_remove<Extra>([&](World& world, Entity e, Extra&) {
                if (!armed) return;
                armed = false;
                world.remove<Extra>(es[6]);  // row 0: the last row moves into it
                world.add(es[4], Extra{40}); // joins the observed entity's archetype
                CHECK(world.get<Extra>(e).value == 30);
            });
            w.remove<Extra>(es[3]);
            m[es[4]].has_extra = true;
            m[es[4]].extra = 40;
            m[es[7]].has_extra = true;
            m[es[7]].extra = 70;
        }
        verify(w, m);
    }
    CHECK(Life::tally().clean());
}

TEST_CASE("observers: a hook creating entities in the observed archetype grows its block", "[observers]") {
    Life::reset();
    {
        World w;
        Model m;
        const std::vector<Entity> es = spawn_many(w, m, 0, 8);
        REQUIRE(body_mark_capacity(w) == 16);
        bool armed = true;
        std::vector<Entity> made;
        const auto create_100 = [&](World& world) {
            for (int k = 0; k < 100; ++k) made.push_back(world.create_with(Body{1000 + k}, Mark{10 * (1000 + k)}));
        };

        SECTION("while create_with fires") {
            std::map<Entity, int> mark_seen;
            w.on_add<Body>([&](World& world, Entity, Body&) {
                if (!armed) return;
                armed = false;
                create_100(world);
            });
            w.on_add<Mark>([&](World& world, Entity e, Mark& mk) {
                mark_seen[e] = mk.value;
                CHECK(world.get<Body>(e).id.value() * 10 == mk.value);
            });
            const Entity n = w.create_with(Body{100}, Mark{1000});
            m[n] = Expected{100, true, 1000, false, 0};
            CHECK(mark_seen.size() == 101);
            CHECK(mark_seen[n] == 1000);
        }
        SECTION("while add fires") {
            const Entity x = w.create_with(Body{77});
            m[x] = Expected{77, false, 0, false, 0};
            int mark_seen = -1;
            w.on_add<Mark>([&](World& world, Entity, Mark&) {
                if (!armed) return;
                armed = false;
                create_100(world);
            });
            w.on_add<Mark>([&](World&, Entity e, Mark& mk) {
                if (e == x) mark_seen = mk.value;
            });
            w.add(x, Mark{770});
            m[x].has_mark = true;
            m[x].mark = 770;
            CHECK(mark_seen == 770);
        }
        SECTION("while remove fires") {
            w.on_remove<Mark>([&](World& world, Entity e, Mark& mk) {
                if (!armed) return;
                armed = false;
                CHECK(mk.value == 20);
                create_100(world);
                CHECK(world.get<Mark>(e).value == 20);
            });
            w.remove<Mark>(es[2]);
            m[es[2]].has_mark = false;
        }
        SECTION("while destroy fires") {
            int mark_seen = -1;
            w.on_remove<Body>([&](World& world, Entity, Body&) {
                if (!armed) return;
                armed = false;
                create_100(world);
            });
            w.on_remove<Mark>([&](World&, Entity e, Mark& mk) {
                if (e == es[2]) mark_seen = mk.value;
            });
            w.destroy(es[2]);
            m.erase(es[2]);
            CHECK(mark_seen == 20);
        }
        REQUIRE(made.size() == 100);
        for (size_t k = 0; k < made.size(); ++k) m[made[k]] = Expected{1000 + int(k), true, 10 * (1000 + int(k)), false, 0};
        CHECK(body_mark_capacity(w) >= 108);
        verify(w, m);
    }
    CHECK(Life::tally().clean());
}

TEST_CASE("observers: a hook destroying entities of the observed archetype, the last row included", "[observers]") {
    Life::reset();
    {
        World w;
        Model m;
        const std::vector<Entity> es = spawn_many(w, m, 0, 8);
        bool armed = true;
        const auto kill = [&](World& world, Entity victim) {
            world.destroy(victim);
            m.erase(victim);
        };

        SECTION("while create_with fires") {
            std::map<Entity, int> mark_seen;
            w.on_add<Body>([&](World& world, Entity e, Body&) {
                if (!armed) return;
                armed = false;
                kill(world, es[0]); // row 0: the new entity, last row, moves into it
                kill(world, es[7]); // now the last row
                kill(world, es[4]);
                CHECK(world.get<Body>(e).id.value() == 100);
            });
            w.on_add<Mark>([&](World&, Entity e, Mark& mk) { mark_seen[e] = mk.value; });
            const Entity n = w.create_with(Body{100}, Mark{1000});
            m[n] = Expected{100, true, 1000, false, 0};
            CHECK(mark_seen == std::map<Entity, int>{{n, 1000}});
        }
        SECTION("while add fires") {
            w.add(es[6], Extra{60}); // row 0 of {Body, Mark, Extra}; es[3] will be row 1, the last
            m[es[6]].has_extra = true;
            m[es[6]].extra = 60;
            int extra_seen = -1;
            w.on_add<Extra>([&](World& world, Entity, Extra&) {
                if (!armed) return;
                armed = false;
                kill(world, es[6]);
                kill(world, es[0]);
                kill(world, es[7]);
            });
            w.on_add<Extra>([&](World&, Entity e, Extra& x) {
                if (e == es[3]) extra_seen = x.value;
            });
            w.add(es[3], Extra{30});
            m[es[3]].has_extra = true;
            m[es[3]].extra = 30;
            CHECK(extra_seen == 30);
        }
        SECTION("while remove fires") {
            w.on_remove<Mark>([&](World& world, Entity e, Mark&) {
                if (!armed) return;
                armed = false;
                kill(world, es[0]); // row 0: the observed es[7], last row, moves into it
                kill(world, es[6]); // the last row at that point
                kill(world, es[2]);
                CHECK(world.get<Mark>(e).value == 70);
                CHECK(world.get<Body>(e).id.value() == 7);
            });
            w.remove<Mark>(es[7]);
            m[es[7]].has_mark = false;
        }
        SECTION("while destroy fires") {
            std::vector<int> seen;
            w.on_remove<Body>([&](World& world, Entity e, Body& b) {
                seen.push_back(b.id.value());
                if (!armed) return;
                armed = false;
                kill(world, es[0]); // row 0: the observed es[7], last row, moves into it
                kill(world, es[6]); // the last row at that point
                kill(world, es[2]);
                CHECK(world.get<Body>(e).id.value() == 7);
            });
            int mark_seen = -1;
            w.on_remove<Mark>([&](World&, Entity e, Mark& mk) {
                if (e == es[7]) mark_seen = mk.value;
            });
            w.destroy(es[7]);
            m.erase(es[7]);
            CHECK(seen == std::vector<int>{7, 0, 6, 2});
            CHECK(mark_seen == 70);
            CHECK_FALSE(w.alive(es[7]));
        }
        verify(w, m);
    }
    CHECK(Life::tally().clean());
}

TEST_CASE("observers: on_remove hooks that destroy other entities cascade through destroy", "[observers]") {
    Life::reset();
    {
        World w;
        Model m;
        // A chain: each entity's Link points at the one created before it.
        std::vector<Entity> chain;
        Entity prev = ecs::INVALID_ENTITY;
        for (int i = 0; i < 20; ++i) {
            prev = w.create_with(Body{i}, Mark{i * 10}, Link{prev});
            chain.push_back(prev);
            m[prev] = Expected{i, true, i * 10, false, 0};
        }
        const std::vector<Entity> bystanders = spawn_many(w, m, 100, 5); // another archetype
        int calls = 0;
        w.on_remove<Link>([&](World& world, Entity, Link& l) {
            ++calls;
            const Entity next = l.next; // read before the world changes
            if (world.alive(next)) world.destroy(next);
        });
        w.destroy(chain[10]); // destroys chain[10], [9], ..., [0]
        CHECK(calls == 11);
        for (int i = 0; i <= 10; ++i) {
            CHECK_FALSE(w.alive(chain[size_t(i)]));
            m.erase(chain[size_t(i)]);
        }
        for (int i = 11; i < 20; ++i) {
            REQUIRE(w.alive(chain[size_t(i)]));
            CHECK(w.get<Link>(chain[size_t(i)]).next == chain[size_t(i) - 1]);
        }
        verify(w, m);
    }
    CHECK(Life::tally().clean());
}

TEST_CASE("observers: two entities whose on_remove hooks destroy each other", "[observers]") {
    // SPEC §3.8 allows a hook to change OTHER entities. Destroying `a` runs a's hook, which destroys
    // `b`, whose hook destroys `a`: an entity whose destruction is already under way. That nested
    // destroy must not run a's hooks again (unbounded recursion).
    World w;
    const Entity a = w.create();
    const Entity b = w.create_with(Link{a});
    w.add(a, Link{b});
    int calls = 0;
    w.on_remove<Link>([&](World& world, Entity, Link& l) {
        if (++calls > 8) return; // stops the runaway recursion so the test can fail instead of crash
        const Entity partner = l.next;
        if (world.alive(partner)) world.destroy(partner);
    });
    w.destroy(a);
    CHECK(calls == 2);
    CHECK_FALSE(w.alive(a));
    CHECK_FALSE(w.alive(b));
    CHECK(w.count() == 0);
    CHECK(w.check_invariants());
}

TEST_CASE("observers: a hook registering hooks while firing", "[observers]") {
    Life::reset();
    {
        World w;
        Model m;
        (void)spawn_many(w, m, 0, 8);
        bool armed = true;
        std::vector<int> log; // hook ids in firing order
        std::vector<int> body_added_calls(100, 0);
        int mark_calls = 0;
        int body_removed_calls = 0;
        w.on_add<Body>([&](World& world, Entity, Body&) {
            log.push_back(-1);
            if (!armed) return;
            armed = false;
            // 100 more hooks of the very type being dispatched: its hook list reallocates under the
            // running dispatch.
            for (int k = 0; k < 100; ++k)
                world.on_add<Body>([&, k](World&, Entity, Body&) {
                    ++body_added_calls[size_t(k)];
                    log.push_back(k);
                });
            world.on_add<Mark>([&](World&, Entity, Mark&) { ++mark_calls; });
            world.on_remove<Body>([&](World&, Entity, Body&) { ++body_removed_calls; });
        });
        const Entity n = w.create_with(Body{100}, Mark{1000});
        m[n] = Expected{100, true, 1000, false, 0};
        // Whether hooks registered during a dispatch join it is not specified; each may run once.
        const int joined = body_added_calls[0];
        CHECK(joined <= 1);
        for (int k = 0; k < 100; ++k) CHECK(body_added_calls[size_t(k)] == joined);
        CHECK(mark_calls <= 1);
        verify(w, m);

        // From the next event on, every hook fires once, in registration order.
        log.clear();
        const int marks_before = mark_calls;
        const Entity n2 = w.create_with(Body{200}, Mark{2000});
        m[n2] = Expected{200, true, 2000, false, 0};
        REQUIRE(log.size() == 101);
        CHECK(log[0] == -1);
        for (int k = 0; k < 100; ++k) CHECK(log[size_t(k) + 1] == k);
        CHECK(mark_calls == marks_before + 1);
        w.destroy(n2);
        m.erase(n2);
        CHECK(body_removed_calls == 1);
        verify(w, m);
    }
    CHECK(Life::tally().clean());
}

TEST_CASE("observers: hooks that change the world during a deferred flush", "[observers]") {
    Life::reset();
    {
        World w;
        Model m;
        const std::vector<Entity> es = spawn_many(w, m, 0, 8);
        std::vector<Entity> made;
        w.on_add<Extra>([&](World& world, Entity, Extra& x) {
            // Each Extra placed creates two entities in {Body, Mark} and destroys the oldest one left.
            for (int k = 0; k < 2; ++k) made.push_back(world.create_with(Body{x.value * 100 + k}, Mark{(x.value * 100 + k) * 10}));
            world.destroy(made.front());
            made.erase(made.begin());
        });
        CommandBuffer buf;
        for (size_t i = 0; i < es.size(); ++i) {
            w.deferred().add(es[i], Extra{int(i) + 1});
            buf.remove<Mark>(es[i]);
        }
        w.flush_deferred();
        buf.flush(w);
        for (size_t i = 0; i < es.size(); ++i) {
            m[es[i]].has_extra = true;
            m[es[i]].extra = int(i) + 1;
            m[es[i]].has_mark = false;
        }
        REQUIRE(made.size() == 8);
        for (const Entity e : made) {
            const int id = w.get<Body>(e).id.value();
            m[e] = Expected{id, true, id * 10, false, 0};
        }
        CHECK(m.size() == 16);
        verify(w, m);
    }
    CHECK(Life::tally().clean());
}
