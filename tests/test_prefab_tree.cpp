// Prefab::child trees: instantiate builds the whole tree linked through Parent / Children as
// set_parent would, deferred instantiation too, copies keep the tree, defaults are copied in pairs.
#include <ecs/ecs.hpp>

#include <cstdint>
#include <vector>

#include "catch.hpp"
#include "counting.hpp"
#include "game_loop_types.hpp"

namespace {

using gl_test::Turret;
using TPos = gl_test::Pos;
using THealth = gl_test::Health;

/// True when `child`'s Parent is `parent` and `parent`'s Children lists it exactly once.
bool linked(ecs::World& w, ecs::Entity child, ecs::Entity parent) {
    const ecs::Parent* p = w.try_get<ecs::Parent>(child);
    const ecs::Children* c = w.try_get<ecs::Children>(parent);
    if (p == nullptr || c == nullptr || p->entity != parent) return false;
    int n = 0;
    for (ecs::Entity e : c->entities) n += e == child ? 1 : 0;
    return n == 1;
}

} // namespace

TEST_CASE("prefab tree: instantiate builds the whole tree, linked through Parent and Children", "[prefab][tree]") {
    ecs::World w;
    ecs::Prefab ship = ecs::Prefab::create(TPos{}, THealth{100});
    ecs::Prefab turret = ecs::Prefab::create(TPos{1, 0}, Turret{2});
    turret.child(ecs::Prefab::create(TPos{1, 1}));
    ship.child(turret).child(ecs::Prefab::create(TPos{-1, 0}, Turret{1}));
    REQUIRE(ship.children().size() == 2);

    const ecs::Entity root = ecs::instantiate(w, ship);
    REQUIRE(w.alive(root));
    CHECK(w.get<THealth>(root).hp == 100);
    CHECK(!w.has<ecs::Parent>(root));
    const auto& kids = w.get<ecs::Children>(root).entities;
    REQUIRE(kids.size() == 2);
    CHECK(linked(w, kids[0], root));
    CHECK(linked(w, kids[1], root));
    CHECK(w.get<Turret>(kids[0]).barrels == 2); // children in the order they were appended
    CHECK(w.get<Turret>(kids[1]).barrels == 1);
    const ecs::Entity grandchild = w.get<ecs::Children>(kids[0]).entities.at(0);
    CHECK(linked(w, grandchild, kids[0]));
    CHECK(w.get<TPos>(grandchild).y == 1.f);
    CHECK(!w.has<ecs::Children>(kids[1]));
    CHECK(w.count<TPos>() == 4);

    // The hierarchy operations treat it like a hand-built tree.
    ecs::destroy_recursive(w, root);
    CHECK(w.count<TPos>() == 0);
    CHECK(w.check_invariants());
}

TEST_CASE("prefab tree: overrides apply to the root; entity events climb the built tree", "[prefab][tree]") {
    ecs::World w;
    ecs::Prefab ship = ecs::Prefab::create(THealth{100});
    ship.child(ecs::Prefab::create(Turret{}));
    const ecs::Entity root = ecs::instantiate(w, ship, THealth{7}, TPos{3, 3});
    CHECK(w.get<THealth>(root).hp == 7);
    CHECK(w.get<TPos>(root).x == 3.f);
    const ecs::Entity t = w.get<ecs::Children>(root).entities.at(0);
    CHECK(!w.has<TPos>(t));
    struct Hit {
        int n;
    };
    int at_root = 0;
    w.observe<Hit>(root, [&](ecs::World&, ecs::Entity, Hit& h, ecs::Propagation&) { at_root += h.n; });
    w.emit(t, Hit{4});
    CHECK(at_root == 4);
}

TEST_CASE("prefab tree: deferred instantiation builds the tree at the flush", "[prefab][tree]") {
    ecs::World w;
    ecs::Prefab ship = ecs::Prefab::create(THealth{1});
    ship.child(ecs::Prefab::create(Turret{3}).child(ecs::Prefab::create(TPos{})));
    ecs::CommandBuffer cb;
    cb.instantiate(ship);
    ecs::Entity reserved = w.deferred().instantiate(ship);
    ship = ecs::Prefab{}; // the recorded copies keep the tree
    CHECK(w.count<Turret>() == 0);
    cb.flush(w);
    w.flush_deferred();
    CHECK(w.count<THealth>() == 2);
    CHECK(w.count<Turret>() == 2);
    CHECK(w.count<TPos>() == 2);
    REQUIRE(w.alive(reserved));
    const ecs::Entity t = w.get<ecs::Children>(reserved).entities.at(0);
    CHECK(linked(w, t, reserved));
    CHECK(linked(w, w.get<ecs::Children>(t).entities.at(0), t));
    CHECK(w.check_invariants());
}

TEST_CASE("prefab tree: copies, moves and assignments keep the tree; defaults in pairs", "[prefab][tree]") {
    ecs_test::reset_life();
    {
        ecs::World w;
        ecs::Prefab root = ecs::Prefab::create(ecs_test::Counted{1});
        root.child(ecs::Prefab::create(ecs_test::Counted{2}, ecs_test::CountedWide{3.f}));
        ecs::Prefab copy = root;
        ecs::Prefab moved = std::move(root);
        ecs::Prefab assigned;
        assigned = copy;
        CHECK(copy.children().size() == 1);
        CHECK(moved.children().size() == 1);
        CHECK(assigned.children().size() == 1);
        const ecs_test::Counted extra{9};
        CHECK(assigned.add_raw(ecs::component_id<ecs_test::Counted>(), &extra)); // rebuilds the buffer
        CHECK(assigned.children().size() == 1);
        for (const ecs::Prefab* p : {&copy, &moved, &assigned}) {
            const ecs::Entity e = ecs::instantiate(w, *p);
            const ecs::Entity c = w.get<ecs::Children>(e).entities.at(0);
            CHECK(w.get<ecs_test::Counted>(c).value == 2);
            CHECK(reinterpret_cast<std::uintptr_t>(&w.get<ecs_test::CountedWide>(c)) % 64 == 0);
        }
    }
    CHECK(ecs_test::life().alive() == 0);
    CHECK(ecs_test::life().bad_destroys == 0);
}
