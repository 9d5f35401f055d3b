// Enable bits (ROADMAP 1.0 C): world.disable<T>(e) / enable<T>(e) / enabled<T>(e) and the entity forms,
// the IncludeDisabled filter, and every rule: a disabled component stays on the entity but is absent to
// queries (terms, With, Without, Optional), count<Ts...> and single; a disabled entity is skipped unless
// IncludeDisabled; nothing migrates; the state moves with rows (migration, swap-remove, sort, clone) and
// survives snapshots. A randomized part checks every query form against a brute-force answer.
#include <ecs/parallel.hpp>
#include <ecs/serialization.hpp>
#include <ecs/world.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <sstream>
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
struct Label {
    std::string text; // short strings: PITFALLS 2
};
struct alignas(64) Wide {
    float v[16] = {};
};

std::vector<Entity> sorted(std::vector<Entity> v) {
    std::sort(v.begin(), v.end(), [](Entity a, Entity b) { return a.index < b.index; });
    return v;
}

template <typename... Terms, typename... Filters>
std::vector<Entity> visit(World& w, Filters... filters) {
    std::vector<Entity> out;
    w.each<Terms...>(filters..., [&](Entity e, auto&&...) { out.push_back(e); });
    return out;
}

} // namespace

TEST_CASE("enable: a disabled component stays on the entity", "[enable]") {
    World w;
    const Entity e = w.create_with(Position{1, 2}, Velocity{3, 4});
    const size_t archetypes = w.archetype_count();
    const Position* before = &w.get<Position>(e);
    CHECK(w.enabled<Position>(e));
    w.disable<Position>(e);
    CHECK_FALSE(w.enabled<Position>(e));
    CHECK(w.enabled<Velocity>(e));
    CHECK(w.has<Position>(e));
    CHECK(w.get<Position>(e).x == 1);
    CHECK(w.try_get<Position>(e) == before); // no migration: same address
    CHECK(w.archetype_count() == archetypes);
    CHECK(w.try_get<Velocity>(e) != nullptr);
    w.disable<Position>(e); // idempotent
    CHECK_FALSE(w.enabled<Position>(e));
    w.enable<Position>(e);
    CHECK(w.enabled<Position>(e));
    w.enable<Position>(e);
    CHECK(w.enabled<Position>(e));
    CHECK(w.check_invariants());
}

TEST_CASE("enable: enabled<T> is false when the entity lacks T or is dead; toggles on them are no-ops", "[enable]") {
    World w;
    const Entity e = w.create_with(Position{});
    CHECK_FALSE(w.enabled<Velocity>(e));
    w.disable<Velocity>(e);
    CHECK_FALSE(w.has<Velocity>(e));
    w.add(e, Velocity{});
    CHECK(w.enabled<Velocity>(e)); // added later: enabled
    w.destroy(e);
    CHECK_FALSE(w.enabled<Position>(e));
    CHECK_FALSE(w.enabled(e));
    w.disable<Position>(e);
    w.disable(e);
    w.enable(e);
    CHECK_FALSE(w.alive(e));
    CHECK_FALSE(w.enabled(ecs::INVALID_ENTITY));
    CHECK(w.check_invariants());
}

TEST_CASE("enable: queries treat a disabled component as absent", "[enable]") {
    World w;
    const Entity a = w.create_with(Position{1, 0}, Velocity{1, 0});
    const Entity b = w.create_with(Position{2, 0}, Velocity{2, 0});
    const Entity c = w.create_with(Position{3, 0}, Velocity{3, 0});
    w.disable<Velocity>(b);

    CHECK(sorted(visit<Position, Velocity>(w)) == sorted({a, c}));
    CHECK(sorted(visit<Position>(w)) == sorted({a, b, c}));
    CHECK(sorted(visit<Position>(w, ecs::With<Velocity>{})) == sorted({a, c}));
    CHECK(visit<Position>(w, ecs::Without<Velocity>{}) == std::vector<Entity>{b});
    CHECK(w.count<Position, Velocity>() == 2);
    CHECK(w.count<Velocity>() == 2);
    CHECK(w.count<Position>() == 3);
    CHECK(w.count() == 3);

    std::map<uint32_t, bool> optional_seen;
    w.each<const Position, ecs::Optional<Velocity>>([&](Entity e, const Position&, Velocity* v) {
        optional_seen[e.index] = v != nullptr;
        if (v != nullptr) CHECK(v->x == w.get<Position>(e).x);
    });
    CHECK(optional_seen.size() == 3);
    CHECK(optional_seen[a.index]);
    CHECK_FALSE(optional_seen[b.index]);
    CHECK(optional_seen[c.index]);

    auto q = w.query<Position, const Velocity>();
    CHECK(q.count() == 2);
    CHECK_FALSE(q.empty());
    CHECK(q.first() == a);
    w.disable<Velocity>(a);
    CHECK(q.first() == c);
    w.disable<Velocity>(c);
    CHECK(q.empty());
    CHECK(q.first() == ecs::INVALID_ENTITY);
    CHECK(q.count() == 0);
    w.enable<Velocity>(b);
    CHECK(q.first() == b);

    size_t no_entity = 0;
    w.each_no_entity<Velocity>([&](Velocity&) { ++no_entity; });
    CHECK(no_entity == 1);
    const World& cw = w;
    size_t const_visits = 0;
    cw.each<const Velocity>([&](Entity e, const Velocity&) {
        CHECK(e == b);
        ++const_visits;
    });
    CHECK(const_visits == 1);
}

TEST_CASE("enable: each_chunk gives one chunk per run of passing rows", "[enable]") {
    World w;
    std::vector<Entity> all;
    for (int i = 0; i < 200; ++i) all.push_back(w.create_with(Position{float(i), 0}, Velocity{float(i), 0}));
    for (int i : {0, 5, 6, 7, 63, 64, 65, 130, 199}) w.disable<Velocity>(all[size_t(i)]);
    w.disable(all[100]);

    std::vector<std::pair<size_t, size_t>> chunks; // first value, size
    size_t rows = 0;
    w.query<Position, const Velocity>().each_chunk([&](ecs::Chunk& c) {
        const Position* p = c.get<Position>();
        const Velocity* v = c.get<const Velocity>();
        REQUIRE(p != nullptr);
        REQUIRE(v != nullptr);
        for (size_t i = 0; i < c.size(); ++i) {
            CHECK(p[i].x == v[i].x);
            CHECK(w.enabled<Velocity>(c.entities()[i]));
            CHECK(w.enabled(c.entities()[i]));
        }
        chunks.emplace_back(size_t(p[0].x), c.size());
        rows += c.size();
    });
    CHECK(rows == 200 - 10);
    const std::vector<std::pair<size_t, size_t>> expected = {{1, 4},   {8, 55},   {66, 34},
                                                              {101, 29}, {131, 68}};
    CHECK(chunks == expected);

    // Optional terms: a chunk's rows agree on each Optional term; get<T>() is nullptr where disabled.
    size_t with = 0;
    size_t without = 0;
    w.query<Position, ecs::Optional<Velocity>>().each_chunk([&](ecs::Chunk& c) {
        Velocity* v = c.get<Velocity>();
        CHECK(c.has<Velocity>() == (v != nullptr));
        for (size_t i = 0; i < c.size(); ++i) CHECK(w.enabled<Velocity>(c.entities()[i]) == (v != nullptr));
        (v != nullptr ? with : without) += c.size();
    });
    CHECK(with == 190);
    CHECK(without == 9);
}

TEST_CASE("enable: a disabled entity is skipped unless IncludeDisabled", "[enable]") {
    World w;
    const Entity a = w.create_with(Position{}, Health{1});
    const Entity b = w.create_with(Position{}, Health{2});
    const Entity bare = w.create();
    w.disable(b);
    w.disable(bare);
    CHECK_FALSE(w.enabled(b));
    CHECK(w.enabled(a));
    CHECK(w.alive(b));
    CHECK(w.count() == 3);
    CHECK(w.has<Health>(b));
    CHECK(w.enabled<Health>(b)); // the component itself is enabled
    CHECK(w.get<Health>(b).hp == 2);

    CHECK(visit<Position>(w) == std::vector<Entity>{a});
    CHECK(sorted(visit<Position>(w, ecs::IncludeDisabled{})) == sorted({a, b}));
    CHECK(visit<>(w).size() == 1); // no terms: every enabled entity
    CHECK(visit<>(w, ecs::IncludeDisabled{}).size() == 3);
    CHECK(w.count<Position>() == 1);
    CHECK(w.query<Position>().count() == 1);
    CHECK(w.query<Position>(ecs::IncludeDisabled{}).count() == 2);
    size_t n = 0;
    w.each_no_entity<Health>(ecs::IncludeDisabled{}, [&](Health&) { ++n; });
    CHECK(n == 2);
    int single_hp = 0;
    w.single<Health>([&](Entity e, Health& h) {
        CHECK(e == a);
        single_hp = h.hp;
    });
    CHECK(single_hp == 1);
    // IncludeDisabled does not bring disabled components back.
    w.disable<Health>(b);
    CHECK(w.query<Health>(ecs::IncludeDisabled{}).count() == 1);
    CHECK(w.query<Position>(ecs::IncludeDisabled{}, ecs::Without<Health>{}).first() == b);
    w.enable(b);
    CHECK(w.enabled(b));
    CHECK(sorted(visit<Position>(w)) == sorted({a, b}));
    CHECK(w.check_invariants());
}

TEST_CASE("enable: single sees only enabled rows", "[enable]") {
    World w;
    const Entity a = w.create_with(Health{1});
    const Entity b = w.create_with(Health{2});
    w.disable<Health>(a);
    Entity got = ecs::INVALID_ENTITY;
    w.single<Health>([&](Entity e, Health& h) {
        got = e;
        h.hp = 20;
    });
    CHECK(got == b);
    CHECK(w.get<Health>(b).hp == 20);
    CHECK(w.get<Health>(a).hp == 1);
}

TEST_CASE("enable: state moves with the row on migration and swap-remove", "[enable]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 10; ++i) es.push_back(w.create_with(Position{float(i), 0}, Velocity{}, Label{std::to_string(i)}));
    w.disable<Velocity>(es[9]);
    w.disable(es[8]);
    w.disable<Label>(es[3]);
    w.destroy(es[0]); // the last row (es[9]) moves into row 0: its disabled Velocity goes with it
    CHECK_FALSE(w.enabled<Velocity>(es[9]));
    CHECK(w.enabled<Velocity>(es[1]));
    w.destroy(es[1]); // es[8] fills that hole
    CHECK_FALSE(w.enabled(es[8]));
    CHECK(w.check_invariants());

    // Migration: adding keeps the state of the types that stay, the new type starts enabled.
    w.add(es[9], Health{9});
    CHECK_FALSE(w.enabled<Velocity>(es[9]));
    CHECK(w.enabled<Health>(es[9]));
    CHECK(w.get<Label>(es[9]).text == "9");
    w.add(es[8], Health{8});
    CHECK_FALSE(w.enabled(es[8]));
    w.remove<Position>(es[3]);
    CHECK_FALSE(w.enabled<Label>(es[3]));
    // Removing the disabled type drops its state; adding it back starts enabled.
    w.remove<Velocity>(es[9]);
    w.add(es[9], Velocity{});
    CHECK(w.enabled<Velocity>(es[9]));
    // Overwriting in place keeps the state.
    w.disable<Label>(es[4]);
    w.add(es[4], Label{"four"});
    CHECK_FALSE(w.enabled<Label>(es[4]));
    CHECK(w.get<Label>(es[4]).text == "four");
    for (size_t i = 0; i < es.size(); ++i)
        if (w.alive(es[i])) CHECK(w.get<Label>(es[i]).text == (i == 4 ? "four" : std::to_string(i)));
    CHECK(w.check_invariants());
}

TEST_CASE("enable: sort carries the state", "[enable]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 100; ++i) es.push_back(w.create_with(Health{(i * 37) % 100}));
    for (int i = 0; i < 100; i += 3) w.disable<Health>(es[size_t(i)]);
    for (int i = 1; i < 100; i += 7) w.disable(es[size_t(i)]);
    w.sort<Health>([](const Health& l, const Health& r) { return l.hp < r.hp; });
    for (int i = 0; i < 100; ++i) {
        CHECK(w.enabled<Health>(es[size_t(i)]) == (i % 3 != 0));
        CHECK(w.enabled(es[size_t(i)]) == (i % 7 != 1));
        CHECK(w.get<Health>(es[size_t(i)]).hp == (i * 37) % 100);
    }
    int last = -1;
    w.each<const Health>([&](const Health& h) {
        CHECK(h.hp > last);
        last = h.hp;
    });
    CHECK(w.check_invariants());
}

TEST_CASE("enable: clone copies the state", "[enable]") {
    World w;
    const Entity a = w.create_with(Position{}, Velocity{});
    const Entity b = w.create_with(Position{}, Velocity{});
    const Entity c = w.create();
    w.disable<Velocity>(a);
    w.disable(b);
    w.disable(c);
    World copy = w.clone();
    CHECK_FALSE(copy.enabled<Velocity>(a));
    CHECK(copy.enabled<Position>(a));
    CHECK_FALSE(copy.enabled(b));
    CHECK_FALSE(copy.enabled(c));
    CHECK(copy.count<Velocity>() == 0);
    CHECK(copy.count<Position>() == 1);
    CHECK(copy.check_invariants());
    copy.enable(b);
    CHECK_FALSE(w.enabled(b)); // independent
}

TEST_CASE("enable: counted lifetimes stay balanced", "[enable]") {
    reset_life();
    {
        World w;
        std::vector<Entity> es;
        for (int i = 0; i < 300; ++i) es.push_back(w.create_with(Counted{i}, CountedWide{float(i)}));
        for (int i = 0; i < 300; i += 2) w.disable<Counted>(es[size_t(i)]);
        for (int i = 0; i < 300; i += 5) w.disable(es[size_t(i)]);
        for (int i = 0; i < 300; i += 3) w.add(es[size_t(i)], CountedEmpty{});
        for (int i = 0; i < 300; i += 7) w.destroy(es[size_t(i)]);
        for (int i = 1; i < 300; i += 11) w.remove<CountedWide>(es[size_t(i)]);
        size_t visited = 0;
        w.each<const Counted>([&](Entity e, const Counted& c) {
            CHECK(c.value == int(std::find(es.begin(), es.end(), e) - es.begin()));
            ++visited;
        });
        size_t expected = 0;
        for (int i = 0; i < 300; ++i)
            if (i % 7 != 0 && i % 2 != 0 && i % 5 != 0) ++expected;
        CHECK(visited == expected);
        CHECK(w.check_invariants());
        World copy = w.clone();
        CHECK(copy.check_invariants());
    }
    CHECK(life().alive() == 0);
    CHECK(life().bad_destroys == 0);
}

TEST_CASE("enable: query observers see enable and disable", "[enable]") {
    World w;
    std::vector<std::string> log;
    w.on_enter<Position, Velocity>([&](World&, Entity e) { log.push_back("enter PV " + std::to_string(e.index)); });
    w.on_leave<Position, Velocity>([&](World&, Entity e) { log.push_back("leave PV " + std::to_string(e.index)); });
    w.on_enter<Position>(ecs::Without<Frozen>{}, [&](World&, Entity e) { log.push_back("enter P!F " + std::to_string(e.index)); });
    w.on_leave<Position>(ecs::Without<Frozen>{}, [&](World&, Entity e) { log.push_back("leave P!F " + std::to_string(e.index)); });
    const Entity e = w.create_with(Position{}, Velocity{});
    CHECK(log == std::vector<std::string>{"enter PV 1", "enter P!F 1"});
    log.clear();
    w.disable<Velocity>(e);
    CHECK(log == std::vector<std::string>{"leave PV 1"});
    log.clear();
    w.disable<Velocity>(e); // no change, no event
    CHECK(log.empty());
    w.enable<Velocity>(e);
    CHECK(log == std::vector<std::string>{"enter PV 1"});
    log.clear();
    w.add<Frozen>(e);
    CHECK(log == std::vector<std::string>{"leave P!F 1"});
    log.clear();
    w.disable<Frozen>(e); // Without<Frozen> accepts a disabled Frozen
    CHECK(log == std::vector<std::string>{"enter P!F 1"});
    log.clear();
    w.remove<Frozen>(e); // it matched already: nothing new
    CHECK(log.empty());
    w.disable(e);
    CHECK(log == std::vector<std::string>{"leave PV 1", "leave P!F 1"});
    log.clear();
    w.add(e, Health{}); // a disabled entity matches nothing: no events
    w.add<Frozen>(e);
    w.remove<Frozen>(e);
    CHECK(log.empty());
    w.enable(e);
    CHECK(log == std::vector<std::string>{"enter PV 1", "enter P!F 1"});
    log.clear();
    w.disable<Position>(e);
    CHECK(log == std::vector<std::string>{"leave PV 1", "leave P!F 1"});
    log.clear();
    w.destroy(e); // matches nothing now: no leave
    CHECK(log.empty());
}

TEST_CASE("enable: hooks that create and destroy other entities keep every state", "[enable]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 40; ++i) es.push_back(w.create_with(Health{i}, Label{std::to_string(i)}));
    for (int i = 0; i < 40; i += 4) w.disable<Label>(es[size_t(i)]);
    for (int i = 1; i < 40; i += 4) w.disable(es[size_t(i)]);
    size_t next = 20;
    w.on_add<Frozen>([&](World& world, Entity, Frozen&) {
        if (next < es.size()) world.destroy(es[next++]); // swap-removes rows of the shared archetype
        (void)world.create_with(Health{-1}, Label{"new"});
    });
    w.on_remove<Frozen>([&](World& world, Entity, Frozen&) { (void)world.create_with(Health{-2}, Label{"x"}); });
    for (int i = 0; i < 10; ++i) w.add<Frozen>(es[size_t(i)]);
    for (int i = 0; i < 10; i += 2) w.remove<Frozen>(es[size_t(i)]);
    for (int i = 0; i < 40; ++i) {
        const Entity e = es[size_t(i)];
        if (!w.alive(e)) continue;
        CHECK(w.get<Health>(e).hp == i);
        CHECK(w.get<Label>(e).text == std::to_string(i));
        CHECK(w.enabled<Label>(e) == (i % 4 != 0));
        CHECK(w.enabled(e) == (i % 4 != 1));
    }
    std::set<uint32_t> seen;
    w.each<const Health>([&](Entity e, const Health&) { CHECK(seen.insert(e.index).second); });
    CHECK(w.check_invariants());
}

TEST_CASE("enable: toggling during iteration is allowed", "[enable]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 10; ++i) es.push_back(w.create_with(Health{i}));
    w.each<Health>([&](Entity e, Health& h) {
        if (h.hp % 2 == 0) w.disable<Health>(e);
    });
    CHECK(w.count<Health>() == 5);
    w.each<Health>(ecs::IncludeDisabled{}, [&](Entity e, Health&) { w.disable(e); });
    CHECK(w.count<Health>() == 0);
    CHECK(w.query<Health>(ecs::IncludeDisabled{}).count() == 5);
    CHECK(w.check_invariants());
}

TEST_CASE("enable: Changed filters skip disabled rows", "[enable]") {
    World w;
    w.track_changes<Health>();
    auto q = w.query<const Health>(ecs::Changed<Health>{});
    std::vector<Entity> es;
    for (int i = 0; i < 6; ++i) es.push_back(w.create_with(Health{i}));
    w.disable<Health>(es[1]);
    w.disable(es[2]);
    std::vector<Entity> seen;
    q.each([&](Entity e, const Health&) { seen.push_back(e); });
    CHECK(sorted(seen) == sorted({es[0], es[3], es[4], es[5]}));
    seen.clear();
    q.each([&](Entity e, const Health&) { seen.push_back(e); });
    CHECK(seen.empty());
    w.get<Health>(es[1]).hp = 10; // changed while disabled
    w.get<Health>(es[3]).hp = 30;
    CHECK(q.count() == 1);
    w.enable<Health>(es[1]);
    CHECK(q.count() == 2);
}

TEST_CASE("enable: each_par equals a sequential each", "[enable]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 20000; ++i) es.push_back(w.create_with(Position{float(i), 0}, Velocity{1, 0}));
    for (int i = 0; i < 20000; i += 3) w.disable<Velocity>(es[size_t(i)]);
    for (int i = 0; i < 20000; i += 1001) w.disable(es[size_t(i)]);
    ecs::ThreadPool pool(4);
    w.each_par<Position, const Velocity>(pool, [](Position& p, const Velocity& v) { p.y += v.x; });
    w.each_par<Position, ecs::Optional<const Velocity>>(pool, [](Position& p, const Velocity* v) { p.y += v ? 10.f : 100.f; });
    for (int i = 0; i < 20000; ++i) {
        const float y = w.get<Position>(es[size_t(i)]).y;
        if (i % 1001 == 0) CHECK(y == 0.f);
        else if (i % 3 == 0) CHECK(y == 100.f);
        else CHECK(y == 11.f);
    }
}

// -------------------------------------------------------------------------------------------------
// Randomized: every query form against a brute-force answer computed from has/enabled
// -------------------------------------------------------------------------------------------------

TEST_CASE("enable: randomized queries agree with a brute-force answer", "[enable]") {
    std::mt19937 rng(20260511);
    World w;
    std::vector<Entity> live;
    auto pick = [&]() { return live[std::uniform_int_distribution<size_t>(0, live.size() - 1)(rng)]; };
    auto visible = [&](Entity e, bool include_disabled) { return include_disabled || w.enabled(e); };
    for (int step = 0; step < 4000; ++step) {
        const int op = std::uniform_int_distribution<int>(0, 13)(rng);
        if (live.empty() || op == 0) {
            const int shape = std::uniform_int_distribution<int>(0, 3)(rng);
            Entity e = shape == 0   ? w.create_with(Position{}, Velocity{})
                       : shape == 1 ? w.create_with(Position{}, Health{step})
                       : shape == 2 ? w.create_with(Position{}, Velocity{}, Frozen{})
                                    : w.create_with(Velocity{}, Label{"v"});
            live.push_back(e);
            continue;
        }
        const Entity e = pick();
        switch (op) {
        case 1: w.disable<Position>(e); break;
        case 2: w.disable<Velocity>(e); break;
        case 3: w.disable<Frozen>(e); break;
        case 4: w.enable<Position>(e); break;
        case 5: w.enable<Velocity>(e); break;
        case 6: w.enable<Frozen>(e); break;
        case 7: w.disable(e); break;
        case 8: w.enable(e); break;
        case 9: w.add<Frozen>(e); break;
        case 10: w.remove<Frozen>(e); break;
        case 11: w.add(e, Health{step}); break;
        case 12:
            w.destroy(e);
            live.erase(std::find(live.begin(), live.end(), e));
            break;
        default: w.remove<Position>(e); break;
        }
        if (step % 97 == 0) w.sort<Health>([](const Health& l, const Health& r) { return l.hp > r.hp; });
        if (step % 20 != 0) continue;
        REQUIRE(w.check_invariants());
        auto en = [&](Entity x, auto tag) {
            using T = typename decltype(tag)::type;
            return w.has<T>(x) && w.enabled<T>(x);
        };
        struct P { using type = Position; };
        struct V { using type = Velocity; };
        struct F { using type = Frozen; };
        for (int inc = 0; inc < 2; ++inc) {
            const bool include = inc == 1;
            std::vector<Entity> pv, p_not_f, v_opt_p, with_f;
            for (Entity x : live) {
                if (!visible(x, include)) continue;
                if (en(x, P{}) && en(x, V{})) pv.push_back(x);
                if (en(x, P{}) && !en(x, F{})) p_not_f.push_back(x);
                if (en(x, V{})) v_opt_p.push_back(x);
                if (en(x, V{}) && en(x, F{})) with_f.push_back(x);
            }
            std::vector<Entity> got_pv, got_pnf, got_vop, got_wf;
            std::vector<Entity> chunked;
            if (include) {
                got_pv = visit<Position, Velocity>(w, ecs::IncludeDisabled{});
                got_pnf = visit<Position>(w, ecs::IncludeDisabled{}, ecs::Without<Frozen>{});
                w.each<const Velocity, ecs::Optional<Position>>(ecs::IncludeDisabled{}, [&](Entity x, const Velocity&, Position* p) {
                    CHECK((p != nullptr) == en(x, P{}));
                    got_vop.push_back(x);
                });
                got_wf = visit<Velocity>(w, ecs::IncludeDisabled{}, ecs::With<Frozen>{});
                w.query<Position>(ecs::Without<Frozen>{}, ecs::IncludeDisabled{}).each_chunk([&](ecs::Chunk& c) {
                    for (size_t i = 0; i < c.size(); ++i) chunked.push_back(c.entities()[i]);
                });
                CHECK(w.query<Position, Velocity>(ecs::IncludeDisabled{}).count() == pv.size());
            } else {
                got_pv = visit<Position, Velocity>(w);
                got_pnf = visit<Position>(w, ecs::Without<Frozen>{});
                w.each<const Velocity, ecs::Optional<Position>>([&](Entity x, const Velocity&, Position* p) {
                    CHECK((p != nullptr) == en(x, P{}));
                    got_vop.push_back(x);
                });
                got_wf = visit<Velocity>(w, ecs::With<Frozen>{});
                w.query<Position>(ecs::Without<Frozen>{}).each_chunk([&](ecs::Chunk& c) {
                    for (size_t i = 0; i < c.size(); ++i) chunked.push_back(c.entities()[i]);
                });
                CHECK(w.count<Position, Velocity>() == pv.size());
                CHECK(w.query<Position, Velocity>().count() == pv.size());
                CHECK(w.query<Velocity>(ecs::With<Frozen>{}).count() == with_f.size());
            }
            CHECK(sorted(got_pv) == sorted(pv));
            CHECK(sorted(got_pnf) == sorted(p_not_f));
            CHECK(chunked == got_pnf); // same order as each
            CHECK(sorted(got_vop) == sorted(v_opt_p));
            CHECK(sorted(got_wf) == sorted(with_f));
        }
    }
}

// -------------------------------------------------------------------------------------------------
// Snapshots keep both states
// -------------------------------------------------------------------------------------------------

namespace {

void label_write(std::ostream& out, const void* p) {
    const std::string& s = static_cast<const Label*>(p)->text;
    const uint32_t n = static_cast<uint32_t>(s.size());
    out.write(reinterpret_cast<const char*>(&n), 4);
    out.write(s.data(), static_cast<std::streamsize>(n));
}
void label_read(std::istream& in, void* storage) {
    uint32_t n = 0;
    if (!in.read(reinterpret_cast<char*>(&n), 4) || n > 1024) {
        in.setstate(std::ios_base::failbit);
        return;
    }
    std::string s(n, '\0');
    if (!in.read(&s[0], static_cast<std::streamsize>(n))) return;
    ::new (storage) Label{s};
}

void register_enable_types() {
    static const bool once = [] {
        ecs::register_component<Position>("enable.Position");
        ecs::register_component<Velocity>("enable.Velocity");
        ecs::register_component<Health>("enable.Health");
        ecs::register_component<Frozen>("enable.Frozen");
        ecs::register_component<Label>("enable.Label", &label_write, &label_read);
        return true;
    }();
    (void)once;
}

std::string snapshot_of(const World& w, uint32_t version = ecs::SNAPSHOT_FORMAT_VERSION) {
    std::ostringstream out;
    ecs::detail::write_snapshot(w, out, version);
    return out.str();
}

/// Rewrites the body checksum of a format 2 snapshot after a deliberate edit of its body.
void reseal(std::string& bytes) {
    const size_t body = bytes.size() - 20 - 4;
    const uint32_t crc = ecs::detail::Crc32c::of(bytes.data() + 20, body);
    ecs::detail::put_u32(reinterpret_cast<unsigned char*>(&bytes[bytes.size() - 4]), crc);
}

} // namespace

TEST_CASE("enable: snapshots keep disabled components and entities", "[enable][serialization]") {
    register_enable_types();
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 130; ++i) es.push_back(w.create_with(Position{float(i), 0}, Velocity{}, Label{std::to_string(i)}));
    const Entity tagged = w.create_with(Health{5}, Frozen{});
    const Entity bare = w.create();
    w.destroy(es[7]);
    for (int i = 0; i < 130; i += 3) w.disable<Velocity>(es[size_t(i)]);
    for (int i = 1; i < 130; i += 10) w.disable<Label>(es[size_t(i)]);
    for (int i = 2; i < 130; i += 9) w.disable(es[size_t(i)]);
    w.disable<Frozen>(tagged);
    w.disable(bare);

    const std::string bytes = snapshot_of(w);
    World loaded;
    std::istringstream in(bytes);
    const ecs::DeserializeResult r = ecs::deserialize(loaded, in);
    INFO(r.message);
    REQUIRE(r);
    CHECK(loaded.check_invariants());
    for (int i = 0; i < 130; ++i) {
        const Entity e = es[size_t(i)];
        if (i == 7) {
            CHECK_FALSE(loaded.alive(e));
            continue;
        }
        CHECK(loaded.enabled<Velocity>(e) == w.enabled<Velocity>(e));
        CHECK(loaded.enabled<Label>(e) == w.enabled<Label>(e));
        CHECK(loaded.enabled<Position>(e));
        CHECK(loaded.enabled(e) == w.enabled(e));
        CHECK(loaded.get<Label>(e).text == std::to_string(i));
    }
    CHECK_FALSE(loaded.enabled<Frozen>(tagged));
    CHECK(loaded.enabled<Health>(tagged));
    CHECK_FALSE(loaded.enabled(bare));
    CHECK(loaded.count<Position, Velocity>() == w.count<Position, Velocity>());
    CHECK(loaded.query<Position>(ecs::IncludeDisabled{}).count() == 129);
    CHECK(snapshot_of(loaded) == bytes); // and it writes back the same bytes
}

TEST_CASE("enable: a world with nothing disabled writes the snapshot it always wrote", "[enable][serialization]") {
    register_enable_types();
    World w;
    const Entity a = w.create_with(Position{1, 2}, Velocity{});
    (void)w.create_with(Health{3});
    const std::string plain = snapshot_of(w);
    w.disable<Velocity>(a);
    w.disable(a);
    const std::string with_section = snapshot_of(w);
    CHECK(with_section.size() > plain.size());
    w.enable<Velocity>(a);
    w.enable(a);
    CHECK(snapshot_of(w) == plain); // no section once everything is enabled again
}

TEST_CASE("enable: version 1 snapshots and version 2 snapshots without sections still load", "[enable][serialization]") {
    register_enable_types();
    World w;
    const Entity a = w.create_with(Position{1, 2}, Velocity{3, 4});
    w.disable<Velocity>(a);
    w.disable(a);
    for (uint32_t version : {1u, 2u}) {
        World src;
        const Entity b = src.create_with(Position{1, 2}, Velocity{3, 4});
        const std::string bytes = snapshot_of(src, version);
        World loaded;
        std::istringstream in(bytes);
        REQUIRE(ecs::deserialize(loaded, in));
        CHECK(loaded.enabled<Velocity>(b));
        CHECK(loaded.enabled(b));
    }
    // A version 1 snapshot has no room for sections: the state is not written.
    World loaded;
    std::istringstream in(snapshot_of(w, 1));
    REQUIRE(ecs::deserialize(loaded, in));
    CHECK(loaded.enabled<Velocity>(a));
}

TEST_CASE("enable: damaged or inconsistent sections are rejected and leave the world empty", "[enable][serialization]") {
    register_enable_types();
    World w;
    const Entity a = w.create_with(Position{}, Velocity{});
    (void)w.create_with(Position{});
    w.disable<Velocity>(a);
    const std::string good = snapshot_of(w);
    // The section starts right after the resource table, which is empty: find the tag.
    const size_t tag_at = good.find("ENBL");
    REQUIRE(tag_at != std::string::npos);

    auto load = [](const std::string& bytes) {
        World target;
        std::istringstream in(bytes);
        const ecs::DeserializeResult r = ecs::deserialize(target, in);
        if (!r) CHECK(target.count() == 0);
        CHECK(target.check_invariants());
        return r.error;
    };
    CHECK(load(good) == ecs::DeserializeError::none);

    std::string flipped = good;
    flipped[tag_at + 20] = char(flipped[tag_at + 20] ^ 0x10); // inside the payload, checksum not fixed
    CHECK(load(flipped) == ecs::DeserializeError::checksum_mismatch);

    std::string unknown = good;
    unknown[tag_at] = 'X';
    reseal(unknown);
    CHECK(load(unknown) == ecs::DeserializeError::bad_section);

    // Payload: u32 0 entities, u32 1 type, name, u32 1, slot. Point the slot at a free one.
    std::string dead = good;
    const size_t slot_at = dead.size() - 4 - 4;
    ecs::detail::put_u32(reinterpret_cast<unsigned char*>(&dead[slot_at]), 99);
    reseal(dead);
    CHECK(load(dead) == ecs::DeserializeError::entity_out_of_range);

    // The second entity (slot 2) has no Velocity.
    std::string lacks = good;
    ecs::detail::put_u32(reinterpret_cast<unsigned char*>(&lacks[slot_at]), 2);
    reseal(lacks);
    CHECK(load(lacks) == ecs::DeserializeError::bad_count);
}

TEST_CASE("enable: archetypes with hundreds of short runs visit every passing row once, in order", "[enable]") {
    // Run splitting hands runs to the loop in batches: 1,000 rows whose required type is off on
    // every third row and whose Optional type is off on every other row make more runs than a batch
    // holds, with runs that cross 64-row words and batch ends.
    World w;
    std::vector<Entity> all;
    for (int i = 0; i < 1000; ++i) all.push_back(w.create_with(Position{float(i), 0}, Velocity{float(i), 0}, Label{"r"}));
    for (size_t i = 0; i < all.size(); ++i) {
        if (i % 3 == 2) w.disable<Position>(all[i]);
        if (i % 2 == 1) w.disable<Velocity>(all[i]);
    }
    w.disable(all[500]); // the entity itself, mid-batch
    std::vector<Entity> seen;
    size_t with_velocity = 0;
    w.each<const Position, ecs::Optional<const Velocity>, const Label>([&](Entity e, const Position& p, const Velocity* v, const Label& l) {
        seen.push_back(e);
        CHECK(p.x == float(e.index - all[0].index));
        CHECK(l.text == "r");
        if (v != nullptr) {
            ++with_velocity;
            CHECK(v->x == p.x);
        }
    });
    std::vector<Entity> expected;
    size_t expected_velocity = 0;
    for (size_t i = 0; i < all.size(); ++i) {
        if (i % 3 == 2 || i == 500) continue;
        expected.push_back(all[i]);
        if (i % 2 == 0) ++expected_velocity;
    }
    CHECK(seen == expected);
    CHECK(with_velocity == expected_velocity);
    size_t counted = 0;
    w.each<const Position>([&](const Position&) { ++counted; });
    CHECK(counted == expected.size());
    // Without on a type disabled on half the rows: the rows where it is off join in.
    std::vector<Entity> without;
    w.each<const Position>(ecs::Without<Velocity>{}, [&](Entity e, const Position&) { without.push_back(e); });
    std::vector<Entity> expected_without;
    for (size_t i = 0; i < all.size(); ++i)
        if (i % 3 != 2 && i != 500 && i % 2 == 1) expected_without.push_back(all[i]);
    CHECK(without == expected_without);
}
