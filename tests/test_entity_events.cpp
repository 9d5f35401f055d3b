// Entity events: observe<E>(entity, fn), observe<E>(fn), emit(entity, E) climbing by Parent,
// Propagation::stop, CommandBuffer::emit, observers dropped with their entity, payload lifetimes.
#include <ecs/ecs.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "catch.hpp"
#include "counting.hpp"
#include "game_loop_types.hpp"

namespace {

struct Clicked {
    int x = 0;
};
struct Damage {
    int amount = 0;
};
using EvPos = gl_test::Pos;

} // namespace

TEST_CASE("entity events: the target's observers run, then each ancestor's, until stopped", "[entity_events]") {
    ecs::World w;
    const ecs::Entity root = w.create();
    const ecs::Entity panel = w.create();
    const ecs::Entity button = w.create();
    ecs::set_parent(w, panel, root);
    ecs::set_parent(w, button, panel);
    std::vector<std::string> log;
    auto record = [&](const char* who) {
        return [&log, who](ecs::World&, ecs::Entity, Clicked& ev, ecs::Propagation& p) {
            log.push_back(std::string(who) + ":" + std::to_string(ev.x) + "@" + std::to_string(p.depth()));
        };
    };
    w.observe<Clicked>(button, record("button"));
    w.observe<Clicked>(panel, record("panel"));
    w.observe<Clicked>(root, record("root"));
    w.observe<Damage>(panel, [&](ecs::World&, ecs::Entity, Damage&, ecs::Propagation&) { log.push_back("damage"); });
    w.emit(button, Clicked{3});
    CHECK(log == std::vector<std::string>{"button:3@0", "panel:3@1", "root:3@2"});

    log.clear();
    w.observe<Clicked>(panel, [&](ecs::World&, ecs::Entity target, Clicked&, ecs::Propagation& p) {
        CHECK(target == panel);
        CHECK(p.origin() == button);
        p.stop();
    });
    w.emit(button, Clicked{4});
    // Stopping ends the climb after the panel's observers; the panel's first observer still ran.
    CHECK(log == std::vector<std::string>{"button:4@0", "panel:4@1"});

    log.clear();
    w.emit(root, Clicked{5}); // no parent: just the root
    CHECK(log == std::vector<std::string>{"root:5@0"});
}

TEST_CASE("entity events: observers of any entity run at every level with that level's entity", "[entity_events]") {
    ecs::World w;
    const ecs::Entity parent = w.create();
    const ecs::Entity child = w.create_with(EvPos{1, 0});
    ecs::set_parent(w, child, parent);
    std::vector<ecs::Entity> seen;
    std::vector<std::string> order;
    w.observe<Clicked>(child, [&](ecs::World&, ecs::Entity, Clicked&, ecs::Propagation&) { order.push_back("own"); });
    w.observe<Clicked>([&](ecs::World&, ecs::Entity target, Clicked&, ecs::Propagation&) {
        seen.push_back(target);
        order.push_back("any");
    });
    w.emit(child, Clicked{});
    CHECK(seen == std::vector<ecs::Entity>{child, parent});
    CHECK(order == std::vector<std::string>{"own", "any", "any"});
}

TEST_CASE("entity events: observers change the event for those after them", "[entity_events]") {
    ecs::World w;
    const ecs::Entity parent = w.create();
    const ecs::Entity child = w.create();
    ecs::set_parent(w, child, parent);
    int seen_by_parent = 0;
    w.observe<Damage>(child, [](ecs::World&, ecs::Entity, Damage& d, ecs::Propagation&) { d.amount /= 2; }); // armour
    w.observe<Damage>(parent, [&](ecs::World&, ecs::Entity, Damage& d, ecs::Propagation&) { seen_by_parent = d.amount; });
    w.emit(child, Damage{10});
    CHECK(seen_by_parent == 5);
}

TEST_CASE("entity events: propagation climbs at most 64 levels", "[entity_events]") {
    ecs::World w;
    std::vector<ecs::Entity> chain{w.create()};
    for (int i = 0; i < 100; ++i) {
        chain.push_back(w.create());
        ecs::set_parent(w, chain.back(), chain[chain.size() - 2]);
    }
    int calls = 0;
    uint32_t deepest = 0;
    w.observe<Clicked>([&](ecs::World&, ecs::Entity, Clicked&, ecs::Propagation& p) {
        ++calls;
        deepest = p.depth();
    });
    w.emit(chain.back(), Clicked{});
    CHECK(calls == 65); // the target and 64 ancestors
    CHECK(deepest == ecs::MAX_PROPAGATION);
}

TEST_CASE("entity events: observers registered on an entity are dropped with it", "[entity_events]") {
    ecs::World w;
    const ecs::Entity a = w.create();
    auto token = std::make_shared<int>(0);
    int calls = 0;
    w.observe<Clicked>(a, [token, &calls](ecs::World&, ecs::Entity, Clicked&, ecs::Propagation&) { ++calls; });
    CHECK(token.use_count() == 2);
    w.emit(a, Clicked{});
    CHECK(calls == 1);
    w.destroy(a);
    CHECK(token.use_count() == 1); // the observer and what it captured are gone
    const ecs::Entity b = w.create(); // reuses the slot
    CHECK(b.index == a.index);
    w.emit(b, Clicked{});
    w.emit(a, Clicked{}); // dead: a no-op
    CHECK(calls == 1);

    // Bulk destruction drops them too.
    const ecs::Entity c = w.create_with(EvPos{1, 0});
    w.observe<Clicked>(c, [token](ecs::World&, ecs::Entity, Clicked&, ecs::Propagation&) {});
    CHECK(token.use_count() == 2);
    w.destroy_all<EvPos>();
    CHECK(!w.alive(c));
    CHECK(token.use_count() == 1);
}

TEST_CASE("entity events: an observer may destroy entities, observe and disconnect while it runs", "[entity_events]") {
    ecs::World w;
    const ecs::Entity parent = w.create();
    const ecs::Entity child = w.create();
    ecs::set_parent(w, child, parent);
    int parent_calls = 0, later = 0;
    ecs::ObserverId second;
    w.observe<Clicked>(child, [&](ecs::World& world, ecs::Entity self, Clicked&, ecs::Propagation&) {
        world.observe<Clicked>(self, [&](ecs::World&, ecs::Entity, Clicked&, ecs::Propagation&) { ++later; });
        for (int i = 0; i < 50; ++i) world.observe<Clicked>(world.create(), [](ecs::World&, ecs::Entity, Clicked&, ecs::Propagation&) {});
        world.disconnect(second);
        world.destroy(self);
    });
    second = w.observe<Clicked>(child, [&](ecs::World&, ecs::Entity, Clicked&, ecs::Propagation&) { FAIL("disconnected"); });
    w.observe<Clicked>(parent, [&](ecs::World&, ecs::Entity, Clicked&, ecs::Propagation&) { ++parent_calls; });
    w.emit(child, Clicked{});
    CHECK(!w.alive(child));
    CHECK(later == 0);        // added during the emit: not run by it
    CHECK(parent_calls == 0); // the target died: the climb stops there
    CHECK(w.check_invariants());
    // disconnect of an entity-event observer
    int n = 0;
    const ecs::ObserverId id = w.observe<Clicked>(parent, [&](ecs::World&, ecs::Entity, Clicked&, ecs::Propagation&) { ++n; });
    CHECK(w.disconnect(id));
    CHECK(!w.disconnect(id));
    w.emit(parent, Clicked{});
    CHECK(n == 0);
    CHECK(parent_calls == 1);
}

TEST_CASE("entity events: observers added during an emit wait for the outermost one to end, nested emits included", "[entity_events]") {
    ecs::World w;
    const ecs::Entity parent = w.create();
    const ecs::Entity child = w.create();
    const ecs::Entity other = w.create();
    ecs::set_parent(w, child, parent);
    int on_parent = 0, on_other = 0, any_damage = 0, nested_runs = 0;
    bool added = false;
    w.observe<Clicked>(child, [&](ecs::World& world, ecs::Entity, Clicked&, ecs::Propagation&) {
        if (added) return;
        added = true;
        // One level up, on another entity, and for any entity: none of them joins this emit.
        world.observe<Clicked>(parent, [&](ecs::World&, ecs::Entity, Clicked&, ecs::Propagation&) { ++on_parent; });
        world.observe<Damage>(other, [&](ecs::World&, ecs::Entity, Damage&, ecs::Propagation&) { ++on_other; });
        world.observe<Damage>([&](ecs::World&, ecs::Entity, Damage&, ecs::Propagation&) { ++any_damage; });
        world.emit(other, Damage{1}); // nested: it started after them, but inside the emit that added them
        ++nested_runs;
    });
    w.emit(child, Clicked{});
    CHECK(nested_runs == 1);
    CHECK(on_parent == 0);
    CHECK(on_other == 0);
    CHECK(any_damage == 0);
    CHECK(w.check_invariants());
    // The emit ended: from now on they match.
    w.emit(child, Clicked{});
    CHECK(on_parent == 1);
    w.emit(other, Damage{1});
    CHECK(on_other == 1);
    CHECK(any_damage == 1);
    // Added during an emit and removed before it ended: it never runs, and is freed.
    auto token = std::make_shared<int>(0);
    ecs::ObserverId late;
    w.observe<Damage>(parent, [&, token](ecs::World& world, ecs::Entity, Damage&, ecs::Propagation&) {
        if (late.value != 0) return;
        late = world.observe<Damage>(parent, [token](ecs::World&, ecs::Entity, Damage&, ecs::Propagation&) { FAIL("removed before it could run"); });
        CHECK(world.disconnect(late));
    });
    CHECK(token.use_count() == 2);
    w.emit(parent, Damage{1});
    w.emit(parent, Damage{1});
    CHECK(token.use_count() == 2); // the late one is gone
}

TEST_CASE("entity events: CommandBuffer::emit records the event for the flush, during iteration", "[entity_events]") {
    ecs::World w;
    std::vector<int> got;
    for (int i = 0; i < 3; ++i) {
        const ecs::Entity e = w.create_with(EvPos{float(i), 0});
        w.observe<Clicked>(e, [&](ecs::World&, ecs::Entity, Clicked& c, ecs::Propagation&) { got.push_back(c.x); });
    }
    ecs::CommandBuffer cb;
    w.each<const EvPos>([&](ecs::Entity e, const EvPos& p) { cb.emit(e, Clicked{int(p.x) * 10}); });
    CHECK(got.empty());
    cb.flush(w);
    CHECK(got.size() == 3);
    CHECK(got[0] + got[1] + got[2] == 30);
}

TEST_CASE("entity events: payloads are constructed and destroyed in pairs (move-only, over-aligned)", "[entity_events]") {
    ecs_test::reset_life();
    {
        ecs::World w;
        const ecs::Entity parent = w.create();
        const ecs::Entity e = w.create();
        ecs::set_parent(w, e, parent);
        std::string seen;
        bool aligned = false;
        w.observe<ecs_test::CountedName>(e, [&](ecs::World&, ecs::Entity, ecs_test::CountedName& n, ecs::Propagation&) { seen += n.name; });
        w.observe<ecs_test::CountedName>(parent, [&](ecs::World&, ecs::Entity, ecs_test::CountedName& n, ecs::Propagation&) { seen += n.name; });
        w.observe<ecs_test::CountedWide>([&](ecs::World&, ecs::Entity, ecs_test::CountedWide& v, ecs::Propagation&) {
            aligned = reinterpret_cast<std::uintptr_t>(&v) % 64 == 0 && v.lanes[3] == 2.f;
        });
        w.emit(e, ecs_test::CountedName("ab")); // short string: lives in its small buffer
        ecs_test::CountedName lvalue("c");
        w.emit(e, std::move(lvalue));
        w.emit(e, ecs_test::CountedWide(2.f));
        CHECK(seen == "ababcc");
        CHECK(aligned);
        ecs::CommandBuffer cb;
        cb.emit(e, ecs_test::CountedName("d"));
        cb.emit(e, ecs_test::CountedWide(2.f));
        cb.emit(e, ecs_test::CountedName("never"));
        cb.flush(w);
        CHECK(seen == "ababccddnevernever");
        ecs::CommandBuffer dropped;
        dropped.emit(e, ecs_test::CountedName("x"));
    }
    CHECK(ecs_test::life().alive() == 0);
    CHECK(ecs_test::life().bad_destroys == 0);
}
