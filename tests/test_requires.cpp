// Required components (component_traits<T>::requires = Requires<...>): added value-initialised in the
// same migration, transitive, present values kept, on every path that adds; lifetimes in pairs.
#include <ecs/ecs.hpp>

#include <cstdint>
#include <vector>

#include "catch.hpp"
#include "counting.hpp"
#include "game_loop_types.hpp"

using namespace gl_test;
using RqPos = Pos;
using RqVel = Vel;
using RqMass = Mass;
using RqTag = Tag;

TEST_CASE("requires: adding the requirer adds the required types in one migration", "[requires]") {
    ecs::World w;
    const ecs::Entity e = w.create();
    const size_t before = w.archetype_count();
    w.add(e, RigidBody{2});
    CHECK(w.has<RqPos>(e));
    CHECK(w.has<RqVel>(e));
    CHECK(w.has<RqMass>(e)); // through RqVel
    CHECK(w.get<RqPos>(e).x == 0.f);
    CHECK(w.get<RqVel>(e).dx == 0.f);
    CHECK(w.get<RigidBody>(e).mass == 2.f);
    CHECK(w.archetype_count() == before + 1); // no intermediate archetype
    CHECK(w.check_invariants());
}

TEST_CASE("requires: present values are kept; removing a required type leaves the requirer", "[requires]") {
    ecs::World w;
    const ecs::Entity e = w.create_with(RqPos{5, 6});
    w.add<RigidBody>(e);
    CHECK(w.get<RqPos>(e).x == 5.f);
    w.remove<RqPos>(e);
    CHECK(w.has<RigidBody>(e));
    CHECK(!w.has<RqPos>(e));
    w.remove<RigidBody>(e);
    CHECK(w.has<RqVel>(e)); // removing the requirer keeps what it brought
    // Adding it again brings RqPos back (the edge is not the reverse of the remove edge).
    w.add(e, RigidBody{});
    CHECK(w.has<RqPos>(e));
    CHECK(w.check_invariants());
}

TEST_CASE("requires: every path that adds applies the requirements", "[requires]") {
    ecs::World w;
    SECTION("create_with") {
        const ecs::Entity e = w.create_with(RigidBody{}, RqPos{1, 1});
        CHECK(w.get<RqPos>(e).x == 1.f);
        CHECK(w.has<RqVel>(e));
        CHECK(w.has<RqMass>(e));
    }
    SECTION("multi-type add") {
        const ecs::Entity e = w.create();
        w.add(e, Collider{3}, RqPos{2, 2});
        CHECK(w.has<RigidBody>(e));
        CHECK(w.has<RqTag>(e));
        CHECK(w.has<RqMass>(e));
        CHECK(w.get<RqPos>(e).x == 2.f);
    }
    SECTION("emplace") {
        const ecs::Entity e = w.create();
        w.emplace<Collider>(e, Collider{1});
        CHECK(w.has<RigidBody>(e));
        CHECK(w.has<RqVel>(e));
    }
    SECTION("deferred and command buffer") {
        const ecs::Entity e = w.create();
        ecs::CommandBuffer cb;
        cb.add(e, RigidBody{});
        cb.create_with(Collider{});
        cb.flush(w);
        CHECK(w.has<RqVel>(e));
        CHECK(w.count<RigidBody>() == 2);
        CHECK(w.count<RqMass>() == 2);
    }
    SECTION("prefab") {
        const ecs::Prefab p = ecs::Prefab::create(RigidBody{3});
        CHECK(p.has<RqPos>());
        const ecs::Entity e = ecs::instantiate(w, p);
        CHECK(w.has<RqMass>(e));
        CHECK(w.get<RigidBody>(e).mass == 3.f);
    }
    SECTION("add_all") {
        for (int i = 0; i < 10; ++i) w.create_with(RqMass{float(i)});
        CHECK(w.add_all(RigidBody{}, ecs::With<RqMass>{}) == 10);
        CHECK(w.count<RqVel>() == 10);
        size_t kept = 0;
        w.each<const RqMass, const RqPos>([&](const RqMass& m, const RqPos&) { kept += m.kg >= 0 ? 1u : 0u; });
        CHECK(kept == 10);
    }
    CHECK(w.check_invariants());
}

TEST_CASE("requires: on_add fires for the required components too, after the added one", "[requires]") {
    ecs::World w;
    std::vector<const char*> log;
    w.on_add<RigidBody>([&](ecs::World&, ecs::Entity, RigidBody&) { log.push_back("body"); });
    w.on_add<RqPos>([&](ecs::World& world, ecs::Entity e, RqPos&) {
        CHECK(world.has<RigidBody>(e)); // one migration: everything is in place
        log.push_back("pos");
    });
    w.on_add<RqVel>([&](ecs::World&, ecs::Entity, RqVel&) { log.push_back("vel"); });
    const ecs::Entity e = w.create();
    w.add(e, RigidBody{});
    REQUIRE(log.size() == 3);
    CHECK(log[0] == std::string("body"));
    w.create_with(RigidBody{});
    CHECK(log.size() == 6);
}

TEST_CASE("requires: required values are constructed and destroyed in pairs (over-aligned too)", "[requires]") {
    ecs_test::reset_life();
    {
        ecs::World w;
        std::vector<ecs::Entity> es;
        for (int i = 0; i < 20; ++i) {
            es.push_back(w.create());
            w.add(es.back(), Lifed{i});
        }
        for (int i = 0; i < 5; ++i) w.create_with(Lifed{i});
        CHECK(w.count<ecs_test::CountedWide>() == 25);
        w.each<const ecs_test::CountedWide>([](const ecs_test::CountedWide& v) {
            CHECK(reinterpret_cast<std::uintptr_t>(&v) % 64 == 0);
        });
        for (int i = 0; i < 10; ++i) w.destroy(es[size_t(i)]);
        w.remove<ecs_test::Counted>(es[15]);
    }
    CHECK(ecs_test::life().alive() == 0);
    CHECK(ecs_test::life().bad_destroys == 0);
}

TEST_CASE("requires: a multi-type add naming a present type and a requirer keeps the present value", "[requires]") {
    ecs_test::reset_life();
    {
        ecs::World w;
        const ecs::Entity e = w.create_with(ecs_test::Counted{7});
        w.add(e, Lifed{1}, ecs_test::Counted{8}); // Counted present (overwritten), CountedWide required
        CHECK(w.get<ecs_test::Counted>(e).value == 8);
        CHECK(w.has<ecs_test::CountedWide>(e));
        CHECK(w.check_invariants());
    }
    CHECK(ecs_test::life().alive() == 0);
    CHECK(ecs_test::life().bad_destroys == 0);
}
