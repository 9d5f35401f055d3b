// Change detection (track_changes, patch, mark_changed, Changed/Added filters), value hooks with ids
// (on_set, disconnect) and query observers (on_enter, on_leave): ROADMAP-1.0 section B.
#include <ecs/ecs.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "catch.hpp"
#include "counting.hpp"

namespace {

struct Pos {
    float x = 0;
    float y = 0;
};
struct Vel {
    float x = 0;
};
struct Hp {
    int v = 0;
};
struct Frozen {};

std::vector<ecs::Entity> visited(ecs::Query<const Pos>& q) {
    std::vector<ecs::Entity> out;
    q.each([&](ecs::Entity e, const Pos&) { out.push_back(e); });
    std::sort(out.begin(), out.end(), [](ecs::Entity a, ecs::Entity b) { return a.index < b.index; });
    return out;
}
template <typename... Es>
std::vector<ecs::Entity> list(Es... es) {
    std::vector<ecs::Entity> out{es...};
    std::sort(out.begin(), out.end(), [](ecs::Entity a, ecs::Entity b) { return a.index < b.index; });
    return out;
}

} // namespace

TEST_CASE("change: tracking is opt-in, per world and type, and idempotent", "[change]") {
    ecs::World w;
    CHECK_FALSE(w.tracks_changes<Pos>());
    w.track_changes<Pos>();
    w.track_changes<Pos>();
    CHECK(w.tracks_changes<Pos>());
    CHECK_FALSE(w.tracks_changes<Vel>());
    ecs::World other;
    CHECK_FALSE(other.tracks_changes<Pos>());
}

TEST_CASE("change: a clone tracks the same types; its values count as added in the copy", "[change]") {
    ecs::World w;
    w.track_changes<Pos>();
    const ecs::Entity a = w.create_with(Pos{1, 1}, Vel{});
    const ecs::Entity b = w.create_with(Pos{2, 2});
    auto seen = w.query<const Pos>(ecs::Changed<Pos>{});
    CHECK(visited(seen) == list(a, b));
    ecs::World copy = w.clone();
    CHECK(copy.tracks_changes<Pos>());
    CHECK_FALSE(copy.tracks_changes<Vel>());
    auto in_copy = copy.query<const Pos>(ecs::Added<Pos>{});
    CHECK(visited(in_copy) == list(a, b)); // a new world: everything it holds was added to it
    copy.get<Pos>(b).x = 5;
    auto changed_copy = copy.query<const Pos>(ecs::Changed<Pos>{});
    CHECK(visited(changed_copy) == list(a, b));
    CHECK(visited(changed_copy).empty());
    copy.get<Pos>(b).x = 6;
    CHECK(visited(changed_copy) == list(b));
    CHECK(visited(seen).empty()); // the original saw none of the copy's writes
    CHECK(copy.check_invariants());
}

TEST_CASE("change: first run sees everything since tracking began, including earlier entities", "[change]") {
    ecs::World w;
    const ecs::Entity a = w.create_with(Pos{1, 1});
    w.track_changes<Pos>();
    const ecs::Entity b = w.create_with(Pos{2, 2}, Vel{});
    auto changed = w.query<const Pos>(ecs::Changed<Pos>{});
    auto added = w.query<const Pos>(ecs::Added<Pos>{});
    CHECK(visited(changed) == list(a, b));
    CHECK(visited(added) == list(a, b));
    CHECK(visited(changed).empty());
    CHECK(visited(added).empty());
}

TEST_CASE("change: what counts as a change", "[change]") {
    ecs::World w;
    w.track_changes<Pos>();
    const ecs::Entity a = w.create_with(Pos{}, Vel{});
    const ecs::Entity b = w.create_with(Pos{});
    const ecs::Entity c = w.create_with(Pos{}, Hp{});
    auto changed = w.query<const Pos>(ecs::Changed<Pos>{});
    auto added = w.query<const Pos>(ecs::Added<Pos>{});
    (void)visited(changed);
    (void)visited(added);

    SECTION("mutable get and try_get") {
        w.get<Pos>(a).x = 1;
        (void)w.try_get<Pos>(c);
        CHECK(visited(changed) == list(a, c));
        CHECK(visited(added).empty());
    }
    SECTION("add over an existing value, patch, mark_changed") {
        w.add(a, Pos{5, 5});
        w.patch<Pos>(b, [](Pos& p) { p.x = 3; });
        w.mark_changed<Pos>(c);
        CHECK(visited(changed) == list(a, b, c));
        CHECK(w.get<const Pos>(b).x == 3);
        CHECK(visited(added).empty());
    }
    SECTION("a query run with a mutable term") {
        w.each<Pos, const Hp>([](Pos&, const Hp&) {});
        CHECK(visited(changed) == list(c));
    }
    SECTION("add of a new T, remove and re-add, deferred create at flush: added and changed") {
        const ecs::Entity d = w.create_with(Vel{});
        w.add(d, Pos{});
        w.remove<Pos>(b);
        w.add(b, Pos{});
        w.deferred().create_with(Pos{}, Hp{});
        CHECK(visited(changed) == list(b, d));
        w.flush_deferred();
        const auto seen = visited(added);
        CHECK(seen.size() == 3);
        CHECK(std::find(seen.begin(), seen.end(), d) != seen.end());
    }
    SECTION("never: const access, has, migration, sort, swap-remove") {
        (void)w.get<const Pos>(a);
        (void)w.try_get<const Pos>(b);
        const ecs::World& cw = w;
        (void)cw.get<Pos>(c);
        (void)w.has<Pos>(a);
        w.each<const Pos>([](const Pos&) {});
        w.add(a, Hp{});            // migration of a's Pos
        w.remove<Vel>(a);          // and back
        w.destroy(b);              // swap-remove moves c? (different archetypes; also a row fill below)
        const ecs::Entity e1 = w.create_with(Pos{9, 9});
        const ecs::Entity e2 = w.create_with(Pos{1, 1});
        (void)visited(changed);
        (void)visited(added);
        w.sort<Pos>([](const Pos& l, const Pos& r) { return l.x < r.x; });
        w.destroy(e1); // e2 fills the hole
        CHECK(visited(changed).empty());
        CHECK(visited(added).empty());
        CHECK(w.get<const Pos>(e2).x == 1);
    }
}

TEST_CASE("change: a handle never sees its own writes; other handles do", "[change]") {
    ecs::World w;
    w.track_changes<Pos>();
    const ecs::Entity a = w.create_with(Pos{});
    const ecs::Entity b = w.create_with(Pos{});
    auto writer = w.query<Pos>(ecs::Changed<Pos>{});
    auto reader = w.query<const Pos>(ecs::Changed<Pos>{});
    int n = 0;
    writer.each([&](Pos& p) {
        p.x += 1;
        ++n;
    });
    CHECK(n == 2);
    n = 0;
    writer.each([&](Pos&) { ++n; });
    CHECK(n == 0); // its own writes are not news to it
    CHECK(visited(reader) == list(a, b));
    w.get<Pos>(b).x = 7; // written after the writer's run
    n = 0;
    writer.each([&](ecs::Entity e, Pos&) {
        CHECK(e == b);
        ++n;
    });
    CHECK(n == 1);
    CHECK(visited(reader) == list(b));
}

TEST_CASE("change: two handles on the same signature keep separate progress; copies go their own way", "[change]") {
    ecs::World w;
    w.track_changes<Pos>();
    const ecs::Entity a = w.create_with(Pos{});
    auto q1 = w.query<const Pos>(ecs::Changed<Pos>{});
    auto q2 = w.query<const Pos>(ecs::Changed<Pos>{});
    CHECK(visited(q1) == list(a));
    auto q3 = q1; // copies q1's progress
    CHECK(visited(q2) == list(a));
    CHECK(visited(q1).empty());
    CHECK(visited(q3).empty());
    w.mark_changed<Pos>(a);
    CHECK(q1.count() == 1); // count does not advance
    CHECK(q1.first() == a);
    CHECK(visited(q1) == list(a));
    CHECK(q1.count() == 0);
    CHECK(q1.empty());
    CHECK(visited(q2) == list(a));
    CHECK(visited(q3) == list(a));
}

TEST_CASE("change: Changed of several types needs all; Added vs Changed; each_chunk runs", "[change]") {
    ecs::World w;
    w.track_changes<Pos>();
    w.track_changes<Vel>();
    std::vector<ecs::Entity> es;
    for (int i = 0; i < 10; ++i) es.push_back(w.create_with(Pos{float(i), 0}, Vel{}));
    auto both = w.query<const Pos, const Vel>(ecs::Changed<Pos, Vel>{});
    auto chunks = w.query<const Pos>(ecs::Changed<Pos>{});
    size_t n = 0;
    both.each([&](const Pos&, const Vel&) { ++n; });
    CHECK(n == 10);
    chunks.each_chunk([](ecs::Chunk&) {});
    w.get<Pos>(es[2]);
    w.get<Pos>(es[3]);
    w.get<Pos>(es[7]);
    w.get<Vel>(es[3]);
    n = 0;
    both.each([&](ecs::Entity e, const Pos&, const Vel&) {
        CHECK(e == es[3]);
        ++n;
    });
    CHECK(n == 1);
    std::vector<std::pair<float, size_t>> runs;
    chunks.each_chunk([&](ecs::Chunk& c) { runs.emplace_back(c.get<const Pos>()[0].x, c.size()); });
    REQUIRE(runs.size() == 2);
    CHECK(runs[0] == std::make_pair(2.0f, size_t(2)));
    CHECK(runs[1] == std::make_pair(7.0f, size_t(1)));
}

TEST_CASE("change: skipping untouched archetypes, prefabs and snapshots count as added", "[change]") {
    ecs::World w;
    w.track_changes<Hp>();
    const ecs::Prefab p = ecs::Prefab::create(Hp{3});
    const ecs::Entity a = ecs::instantiate(w, p);
    const ecs::Entity b = w.create_with(Hp{1}, Frozen{});
    auto added = w.query<const Hp>(ecs::Added<Hp>{});
    std::vector<ecs::Entity> seen;
    added.each([&](ecs::Entity e, const Hp&) { seen.push_back(e); });
    CHECK(seen.size() == 2);
    CHECK(std::find(seen.begin(), seen.end(), a) != seen.end());
    CHECK(std::find(seen.begin(), seen.end(), b) != seen.end());
}

TEST_CASE("change: on_set fires for add (after on_add), overwrite and patch, not for get or queries", "[change]") {
    ecs::World w;
    std::vector<std::string> log;
    w.on_add<Hp>([&](ecs::World&, ecs::Entity, Hp& h) { log.push_back("add " + std::to_string(h.v)); });
    const ecs::ObserverId id = w.on_set<Hp>([&](ecs::World&, ecs::Entity, Hp& h) { log.push_back("set " + std::to_string(h.v)); });
    CHECK(id.valid());
    const ecs::Entity e = w.create();
    w.add(e, Hp{1});
    w.add(e, Hp{2});
    w.patch<Hp>(e, [](Hp& h) { h.v = 3; });
    w.get<Hp>(e).v = 4;
    w.each<Hp>([](Hp& h) { h.v = 5; });
    w.deferred().add(e, Hp{6});
    w.flush_deferred();
    CHECK(log == std::vector<std::string>{"add 1", "set 1", "set 2", "set 3", "set 6"});
    CHECK(w.disconnect(id));
    CHECK_FALSE(w.disconnect(id));
    CHECK_FALSE(w.disconnect(ecs::ObserverId{}));
    CHECK_FALSE(w.disconnect(ecs::ObserverId{12345}));
    w.add(e, Hp{7});
    CHECK(log.size() == 5);
}

TEST_CASE("change: hooks that disconnect themselves or others", "[change]") {
    ecs::World w;
    std::vector<int> log;
    std::vector<bool> results;
    ecs::ObserverId first{};
    ecs::ObserverId second{};
    ecs::ObserverId third{};
    first = w.on_add<Hp>([&](ecs::World& world, ecs::Entity, Hp&) {
        log.push_back(1);
        CHECK(world.disconnect(first)); // itself
    });
    second = w.on_add<Hp>([&](ecs::World& world, ecs::Entity, Hp&) {
        log.push_back(2);
        results.push_back(world.disconnect(third)); // a later one: it does not run this time
    });
    third = w.on_add<Hp>([&](ecs::World&, ecs::Entity, Hp&) { log.push_back(3); });
    const ecs::ObserverId fourth = w.on_add<Hp>([&](ecs::World&, ecs::Entity, Hp&) { log.push_back(4); });
    (void)w.create_with(Hp{});
    CHECK(log == std::vector<int>{1, 2, 4});
    log.clear();
    (void)w.create_with(Hp{});
    CHECK(log == std::vector<int>{2, 4});
    CHECK(results == std::vector<bool>{true, false});
    CHECK(w.disconnect(second));
    CHECK(w.disconnect(fourth));
    log.clear();
    (void)w.create_with(Hp{});
    CHECK(log.empty());
    CHECK(w.check_invariants());
}

TEST_CASE("change: on_remove and on_set hooks keep counted lifetimes intact", "[change]") {
    ecs_test::reset_life();
    {
        ecs::World w;
        w.track_changes<ecs_test::Counted>();
        int sets = 0;
        w.on_set<ecs_test::Counted>([&](ecs::World&, ecs::Entity, ecs_test::Counted&) { ++sets; });
        std::vector<ecs::Entity> es;
        for (int i = 0; i < 40; ++i) es.push_back(w.create_with(ecs_test::Counted{i}, Pos{}));
        for (int i = 0; i < 40; i += 3) w.add(es[size_t(i)], ecs_test::Counted{-i});
        for (int i = 0; i < 40; i += 2) w.add(es[size_t(i)], Hp{});
        for (int i = 0; i < 40; i += 5) w.destroy(es[size_t(i)]);
        w.sort<ecs_test::Counted>([](const ecs_test::Counted& a, const ecs_test::Counted& b) { return a.value < b.value; });
        auto q = w.query<ecs_test::Counted>(ecs::Changed<ecs_test::Counted>{});
        size_t n = 0;
        q.each([&](ecs_test::Counted&) { ++n; });
        CHECK(n == w.count<ecs_test::Counted>());
        CHECK(sets == 14);
        CHECK(w.check_invariants());
    }
    CHECK(ecs_test::life().alive() == 0);
    CHECK(ecs_test::life().bad_destroys == 0);
}

TEST_CASE("change: on_enter and on_leave fire once per transition", "[change]") {
    ecs::World w;
    std::vector<std::string> log;
    w.on_add<Vel>([&](ecs::World&, ecs::Entity, Vel&) { log.push_back("add Vel"); });
    w.on_remove<Vel>([&](ecs::World&, ecs::Entity, Vel&) { log.push_back("remove Vel"); });
    w.on_enter<Pos, const Vel>(ecs::Without<Frozen>{}, [&](ecs::World&, ecs::Entity) { log.push_back("enter"); });
    w.on_leave<Pos, const Vel>(ecs::Without<Frozen>{}, [&](ecs::World& world, ecs::Entity e) {
        log.push_back("leave " + std::to_string(int(world.get<const Pos>(e).x))); // still readable
    });

    const ecs::Entity e = w.create_with(Pos{4, 0});
    CHECK(log.empty());
    w.add(e, Vel{});
    CHECK(log == std::vector<std::string>{"add Vel", "enter"});
    log.clear();
    w.add(e, Vel{}); // overwrite: no transition
    w.add(e, Hp{});  // still matching
    CHECK(log.empty());
    w.add<Frozen>(e);
    CHECK(log == std::vector<std::string>{"leave 4"});
    log.clear();
    w.remove<Frozen>(e);
    CHECK(log == std::vector<std::string>{"enter"});
    log.clear();
    w.remove<Vel>(e);
    CHECK(log == std::vector<std::string>{"leave 4", "remove Vel"});
    log.clear();
    const ecs::Entity f = w.create_with(Pos{7, 0}, Vel{});
    CHECK(log == std::vector<std::string>{"add Vel", "enter"});
    log.clear();
    w.destroy(f);
    CHECK(log == std::vector<std::string>{"leave 7", "remove Vel"});
    log.clear();

    SECTION("add then remove in one deferred flush") {
        const ecs::Entity g = w.create_with(Pos{2, 0});
        w.deferred().add(g, Vel{});
        w.deferred().remove<Vel>(g);
        w.flush_deferred();
        CHECK(log == std::vector<std::string>{"add Vel", "enter", "leave 2", "remove Vel"});
    }
    SECTION("prefab instantiation") {
        const ecs::Prefab p = ecs::Prefab::create(Pos{3, 0}, Vel{});
        (void)ecs::instantiate(w, p);
        CHECK(log == std::vector<std::string>{"add Vel", "enter"});
    }
    SECTION("registering does not report entities already matching; disconnect stops it") {
        const ecs::Entity h = w.create_with(Pos{}, Vel{});
        log.clear();
        int late = 0;
        const ecs::ObserverId id = w.on_enter<const Pos>([&](ecs::World&, ecs::Entity) { ++late; });
        CHECK(late == 0);
        (void)w.create_with(Pos{});
        CHECK(late == 1);
        CHECK(w.disconnect(id));
        (void)w.create_with(Pos{});
        CHECK(late == 1);
        (void)h;
    }
}

TEST_CASE("change: a randomized model of Changed/Added (smaller than test_model)", "[change]") {
    std::mt19937 rng(1234);
    ecs::World w;
    w.track_changes<Pos>();
    w.track_changes<Hp>();
    struct Ticks {
        long added = -1;   // model step when Hp was added
        long changed = -1; // model step when Hp last changed
    };
    std::map<uint32_t, std::pair<ecs::Entity, Ticks>> model; // entities with Hp
    std::vector<ecs::Entity> all;
    auto qa = w.query<const Hp>(ecs::Added<Hp>{});
    auto qc = w.query<Hp>(ecs::Changed<Hp>{}); // writes during its own runs
    long last_a = -1;
    long last_c = -1;
    for (long step = 0; step < 3000; ++step) {
        const auto op = rng() % 9;
        ecs::Entity e = all.empty() ? ecs::INVALID_ENTITY : all[rng() % all.size()];
        const bool live = w.alive(e);
        const bool has = live && w.has<Hp>(e);
        switch (op) {
        case 0: {
            const ecs::Entity n = (rng() % 2) ? w.create_with(Hp{1}, Pos{}) : w.create_with(Hp{2});
            all.push_back(n);
            model[n.index] = {n, Ticks{step, step}};
            break;
        }
        case 1:
            if (live) {
                if (has) model[e.index].second.changed = step;
                else model[e.index] = {e, Ticks{step, step}};
                w.add(e, Hp{3});
            }
            break;
        case 2:
            if (live) {
                w.remove<Hp>(e);
                model.erase(e.index);
            }
            break;
        case 3:
            if (live) {
                w.destroy(e);
                model.erase(e.index);
            }
            break;
        case 4:
            if (has) {
                w.get<Hp>(e).v++;
                model[e.index].second.changed = step;
            } else if (live && w.has<Pos>(e)) {
                (void)w.get<Pos>(e); // no effect on Hp
            }
            break;
        case 5:
            if (live) {
                if (w.has<Pos>(e)) w.remove<Pos>(e);
                else w.add(e, Pos{}); // migration: not a change of Hp
            }
            break;
        case 6: {
            std::set<uint32_t> seen;
            qa.each([&](ecs::Entity x, const Hp&) { seen.insert(x.index); });
            std::set<uint32_t> expected;
            for (auto& kv : model)
                if (kv.second.second.added > last_a) expected.insert(kv.first);
            CHECK(seen == expected);
            last_a = step;
            break;
        }
        case 7: {
            std::set<uint32_t> seen;
            qc.each([&](ecs::Entity x, Hp&) { seen.insert(x.index); });
            std::set<uint32_t> expected;
            for (auto& kv : model)
                if (kv.second.second.changed > last_c) {
                    expected.insert(kv.first);
                    kv.second.second.changed = step; // the run's own write
                }
            CHECK(seen == expected);
            last_c = step;
            break;
        }
        default:
            if (rng() % 4 == 0) w.sort<Hp>([](const Hp& l, const Hp& r) { return l.v < r.v; });
            break;
        }
    }
    CHECK(w.check_invariants());
}

TEST_CASE("change: block bounds over thousands of rows survive swap-remove and sort", "[change]") {
    ecs::World w;
    w.track_changes<Hp>();
    std::vector<ecs::Entity> es;
    for (int i = 0; i < 3000; ++i) es.push_back(w.create_with(Hp{i}));
    auto q = w.query<const Hp>(ecs::Changed<Hp>{});
    CHECK(q.count() == 3000);
    q.each([](const Hp&) {});
    CHECK(q.count() == 0);
    w.get<Hp>(es[5]);
    w.get<Hp>(es[1500]);
    w.get<Hp>(es[2999]);
    CHECK(q.count() == 3);
    for (int i = 0; i < 1000; ++i) w.destroy(es[size_t(1000 + i)]); // rows from the end fill the holes
    CHECK(q.count() == 2);
    w.sort<Hp>([](const Hp& l, const Hp& r) { return l.v > r.v; });
    std::set<int> values;
    q.each([&](const Hp& h) { values.insert(h.v); });
    CHECK(values == std::set<int>{5, 2999});
    CHECK(q.count() == 0);
    CHECK(w.check_invariants());
}

TEST_CASE("change: a row moved into a block stamped whole keeps its own tick", "[change]") {
    ecs::World w;
    w.track_changes<Pos>();
    std::vector<ecs::Entity> plain, frozen;
    for (int i = 0; i < 10; ++i) plain.push_back(w.create_with(Pos{}, Vel{}));
    for (int i = 0; i < 10; ++i) frozen.push_back(w.create_with(Pos{}, Vel{}, Frozen{}));
    auto q = w.query<const Pos>(ecs::Changed<Pos>{});
    q.each([](const Pos&) {});
    w.each<Pos>(ecs::With<Frozen>{}, [](Pos& p) { p.x = 1; }); // the Frozen block, whole: its floor
    w.add<Frozen>(plain[0]); // moves in with its older tick
    w.destroy(frozen[3]);    // the last row fills the hole
    std::set<uint32_t> seen;
    q.each([&](ecs::Entity e, const Pos&) { seen.insert(e.index); });
    CHECK(seen.size() == 9);
    CHECK(seen.count(plain[0].index) == 0);
    w.sort<Pos>([](const Pos& l, const Pos& r) { return l.x < r.x; }); // folds floors: still nothing new
    CHECK(q.count() == 0);
}

// Thousands of rows per archetype: whole-block stamps (floors), partial stamps (a filtered run with a
// mutable term), single stamps, swap-remove into stamped blocks, migration, sort; three handles
// checked after every step (count) and at random runs against a per-entity model of epochs.
TEST_CASE("change: floors and group summaries over thousands of rows match a per-entity model", "[change][scale]") {
    std::mt19937 rng(77);
    ecs::World w;
    w.track_changes<Pos>();
    w.track_changes<Vel>();
    struct Stamps {
        ecs::Entity e;
        uint32_t pos = 0; // epoch of the last change of Pos
        uint32_t vel = 0;
        bool frozen = false;
    };
    std::map<uint32_t, Stamps> model;
    uint32_t epoch = 1;
    auto create = [&] {
        const ecs::Entity e = w.create_with(Pos{}, Vel{});
        model[e.index] = Stamps{e, epoch, epoch, false};
    };
    for (int i = 0; i < 5000; ++i) create();
    auto pick = [&]() -> Stamps& {
        auto it = model.begin();
        std::advance(it, static_cast<long>(rng() % model.size()));
        return it->second;
    };
    auto q_pos = w.query<const Pos>(ecs::Changed<Pos>{});
    auto q_both = w.query<const Pos, const Vel>(ecs::Changed<Pos, Vel>{});
    auto q_vel_writes_pos = w.query<Pos>(ecs::Changed<Vel>{}, ecs::Without<Frozen>{}); // partial stamps of Pos
    uint32_t last[3] = {0, 0, 0};
    auto expected = [&](int h) {
        std::set<uint32_t> out;
        for (const auto& kv : model) {
            const Stamps& s = kv.second;
            const bool pass = h == 0 ? s.pos > last[0] : h == 1 ? (s.pos > last[1] && s.vel > last[1]) : (s.vel > last[2] && !s.frozen);
            if (pass) out.insert(kv.first);
        }
        return out;
    };
    for (int step = 0; step < 400; ++step) {
        switch (rng() % 10) {
        case 0: // a whole pass: every block stamped through its floor
            w.each<Pos>([](Pos& p) { p.x += 1; });
            for (auto& kv : model) kv.second.pos = epoch;
            break;
        case 1: // scattered single stamps
            for (int i = 0; i < 40; ++i) {
                Stamps& s = pick();
                if (rng() % 2) {
                    w.mark_changed<Vel>(s.e);
                    s.vel = epoch;
                } else {
                    (void)w.get<Pos>(s.e);
                    s.pos = epoch;
                }
            }
            break;
        case 2: // swap-remove: the last rows move into (maybe floored) blocks
            for (int i = 0; i < 30 && model.size() > 100; ++i) {
                const ecs::Entity e = pick().e;
                w.destroy(e);
                model.erase(e.index);
            }
            break;
        case 3: // migration both ways: not a change
            for (int i = 0; i < 30; ++i) {
                Stamps& s = pick();
                if (s.frozen) w.remove<Frozen>(s.e);
                else w.add<Frozen>(s.e);
                s.frozen = !s.frozen;
            }
            break;
        case 4:
            for (int i = 0; i < 30; ++i) create();
            break;
        case 5: // sort: not a change
            w.sort<Pos>([](const Pos& l, const Pos& r) { return l.x < r.x; });
            break;
        default: { // a run of one handle
            const int h = static_cast<int>(rng() % 3);
            const std::set<uint32_t> want = expected(h);
            std::set<uint32_t> got;
            if (h == 0) q_pos.each([&](ecs::Entity e, const Pos&) { got.insert(e.index); });
            if (h == 1) q_both.each([&](ecs::Entity e, const Pos&, const Vel&) { got.insert(e.index); });
            if (h == 2) {
                q_vel_writes_pos.each([&](ecs::Entity e, Pos&) { got.insert(e.index); });
                for (uint32_t index : got) model[index].pos = epoch; // its mutable term
            }
            CHECK(got == want);
            last[h] = epoch;
            ++epoch;
            break;
        }
        }
        CHECK(q_pos.count() == expected(0).size());
        CHECK(q_both.count() == expected(1).size());
        CHECK(q_vel_writes_pos.count() == expected(2).size());
    }
    CHECK(w.check_invariants());
}

TEST_CASE("change: an ObserverId from another world disconnects nothing", "[change][observers]") {
    ecs::World a;
    ecs::World b;
    int a_calls = 0, b_calls = 0;
    const ecs::ObserverId ida = a.on_add<int>([&](ecs::World&, ecs::Entity, int&) { ++a_calls; });
    const ecs::ObserverId idb = b.on_add<int>([&](ecs::World&, ecs::Entity, int&) { ++b_calls; });
    CHECK(ida.value == idb.value); // both worlds' first observer...
    CHECK(ida != idb);             // ...but ids of different worlds never compare equal
    CHECK_FALSE(b.disconnect(ida));
    (void)b.create_with(1);
    CHECK(b_calls == 1);
    // A moved world keeps its observers and their ids.
    ecs::World moved(std::move(a));
    CHECK(moved.disconnect(ida));
    (void)moved.create_with(2);
    CHECK(a_calls == 0);
}
