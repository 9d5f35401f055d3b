// AnyOf<Ts...> (ROADMAP-2.0 K): "has at least one (enabled) of them", accepted wherever With and
// Without are. Archetypes are matched on their type sets; enable bits and sparse alternatives are
// decided row by row. Checked against a brute-force answer on random worlds, through every form.
#include <ecs/ecs.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"

namespace {

struct AoPos {
    float x = 0;
};
struct AoPlayer {
    int id = 0;
};
struct AoEnemy {
    std::string kind; // a short string: kept in the object (PITFALLS: short strings)
};
struct AoTag {};
struct alignas(64) AoWide {
    double v[4] = {};
};
struct AoPoison {
    float dps = 0;
};

} // namespace

template <>
struct ecs::component_traits<AoPoison> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};

namespace {

/// True when `e` has `T`, enabled.
template <typename T>
bool on(const ecs::World& w, ecs::Entity e) {
    return w.has<T>(e) && w.enabled<T>(e);
}

std::vector<ecs::Entity> visited(ecs::World& w) {
    std::vector<ecs::Entity> out;
    w.each<const AoPos>(ecs::AnyOf<AoPlayer, AoEnemy>{}, [&](ecs::Entity e, const AoPos&) { out.push_back(e); });
    std::sort(out.begin(), out.end(), [](ecs::Entity a, ecs::Entity b) { return a.index < b.index; });
    return out;
}

} // namespace

TEST_CASE("any_of: entities with at least one of the types, in every query form", "[query][any_of]") {
    ecs::World w;
    const ecs::Entity player = w.create_with(AoPos{1}, AoPlayer{1});
    const ecs::Entity enemy = w.create_with(AoPos{2}, AoEnemy{"orc"});
    const ecs::Entity both = w.create_with(AoPos{3}, AoPlayer{2}, AoEnemy{"traitor"});
    const ecs::Entity neither = w.create_with(AoPos{4});
    (void)w.create_with(AoPlayer{9}); // no position: not a match
    (void)neither;

    CHECK(visited(w) == std::vector<ecs::Entity>{player, enemy, both});

    auto q = w.query<AoPos>(ecs::AnyOf<AoPlayer, AoEnemy>{});
    CHECK(q.count() == 3);
    CHECK(!q.empty());
    float sum = 0;
    q.each([&](AoPos& p) { sum += p.x; });
    CHECK(sum == 6.f);
    size_t chunk_rows = 0;
    q.each_chunk([&](ecs::Chunk& c) { chunk_rows += c.size(); });
    CHECK(chunk_rows == 3);

    size_t n = 0;
    w.each_no_entity<const AoPos>(ecs::AnyOf<AoEnemy>{}, [&](const AoPos&) { ++n; });
    CHECK(n == 2);
    // With a Without and a With beside it; two AnyOf filters are both required.
    n = 0;
    w.each<const AoPos>(ecs::AnyOf<AoPlayer, AoEnemy>{}, ecs::Without<AoEnemy>{}, [&](const AoPos&) { ++n; });
    CHECK(n == 1);
    n = 0;
    w.each<const AoPos>(ecs::AnyOf<AoPlayer, AoTag>{}, ecs::AnyOf<AoEnemy, AoWide>{}, [&](const AoPos&) { ++n; });
    CHECK(n == 1);
    // A const World, and a type no entity ever had.
    const ecs::World& cw = w;
    n = 0;
    cw.each<const AoPos>(ecs::AnyOf<AoWide, AoPlayer>{}, [&](const AoPos&) { ++n; });
    CHECK(n == 2);
    n = 0;
    w.each<const AoPos>(ecs::AnyOf<AoWide>{}, [&](const AoPos&) { ++n; });
    CHECK(n == 0);

    // Archetypes created after the cache: matched on refresh.
    const ecs::Entity late = w.create_with(AoPos{5}, AoWide{}, AoTag{});
    CHECK(w.query<AoPos>(ecs::AnyOf<AoTag>{}).count() == 1);
    CHECK(q.count() == 3);
    w.add(late, AoEnemy{"late"});
    CHECK(q.count() == 4);
}

TEST_CASE("any_of: enable bits decide per row; an entity with every alternative disabled is skipped", "[query][any_of][enable]") {
    ecs::World w;
    const ecs::Entity a = w.create_with(AoPos{1}, AoPlayer{1});
    const ecs::Entity b = w.create_with(AoPos{2}, AoPlayer{2}, AoEnemy{"x"});
    const ecs::Entity c = w.create_with(AoPos{3}, AoPlayer{3}, AoEnemy{"y"});
    w.disable<AoPlayer>(a);
    CHECK(visited(w) == std::vector<ecs::Entity>{b, c});
    w.disable<AoPlayer>(b); // AoEnemy still enabled: b stays
    CHECK(visited(w) == std::vector<ecs::Entity>{b, c});
    w.disable<AoEnemy>(b); // both disabled
    CHECK(visited(w) == std::vector<ecs::Entity>{c});
    CHECK(w.query<AoPos>(ecs::AnyOf<AoPlayer, AoEnemy>{}).count() == 1);
    size_t n = 0;
    w.each<const AoPos>(ecs::AnyOf<AoPlayer, AoEnemy>{}, ecs::IncludeDisabled{}, [&](const AoPos&) { ++n; });
    CHECK(n == 1); // IncludeDisabled is about disabled entities, not disabled components
    w.enable<AoEnemy>(b);
    w.disable(c); // a disabled entity is not visited
    CHECK(visited(w) == std::vector<ecs::Entity>{b});
}

TEST_CASE("any_of: a sparse alternative is tested per row, enable bit included", "[query][any_of][sparse]") {
    ecs::World w;
    const ecs::Entity poisoned = w.create_with(AoPos{1});
    w.add(poisoned, AoPoison{2.5f});
    const ecs::Entity player = w.create_with(AoPos{2}, AoPlayer{1});
    const ecs::Entity plain = w.create_with(AoPos{3});
    (void)plain;
    auto ids = [&](auto&& run) {
        std::vector<ecs::Entity> out;
        run([&](ecs::Entity e) { out.push_back(e); });
        std::sort(out.begin(), out.end(), [](ecs::Entity x, ecs::Entity y) { return x.index < y.index; });
        return out;
    };
    auto each_any = [&](auto&& push) {
        w.each<const AoPos>(ecs::AnyOf<AoPoison, AoPlayer>{}, [&](ecs::Entity e, const AoPos&) { push(e); });
    };
    CHECK(ids(each_any) == std::vector<ecs::Entity>{poisoned, player});
    auto q = w.query<const AoPos>(ecs::AnyOf<AoPoison, AoPlayer>{});
    CHECK(q.count() == 2);
    size_t chunk_rows = 0;
    q.each_chunk([&](ecs::Chunk& c) { chunk_rows += c.size(); });
    CHECK(chunk_rows == 2);
    w.disable<AoPoison>(poisoned);
    CHECK(ids(each_any) == std::vector<ecs::Entity>{player});
    w.enable<AoPoison>(poisoned);
    w.disable<AoPlayer>(player);
    CHECK(ids(each_any) == std::vector<ecs::Entity>{poisoned});
    // Only a sparse alternative, and no set for it yet in a fresh world.
    ecs::World fresh;
    (void)fresh.create_with(AoPos{1});
    CHECK(fresh.query<const AoPos>(ecs::AnyOf<AoPoison>{}).count() == 0);
}

TEST_CASE("any_of: bulk operations with an AnyOf filter", "[query][any_of]") {
    ecs::World w;
    for (int i = 0; i < 30; ++i) {
        const ecs::Entity e = w.create_with(AoPos{float(i)});
        if (i % 3 == 0) w.add(e, AoPlayer{i});
        if (i % 5 == 0) w.add(e, AoEnemy{"e"});
    }
    // 0..29: multiples of 3 (10) or 5 (6), 15 and 0 and... counted by brute force.
    size_t expected = 0;
    for (int i = 0; i < 30; ++i) expected += (i % 3 == 0 || i % 5 == 0) ? 1 : 0;
    CHECK(w.query<AoPos>(ecs::AnyOf<AoPlayer, AoEnemy>{}).count() == expected);
    CHECK(w.add_all(AoTag{}, ecs::AnyOf<AoPlayer, AoEnemy>{}) == expected);
    CHECK(w.count<AoTag>() == expected);
    CHECK(w.destroy_all<AoPos>(ecs::AnyOf<AoEnemy>{}) == 6);
    CHECK(w.count<AoPos>() == 24);
}

TEST_CASE("any_of: random worlds agree with a brute-force answer", "[query][any_of]") {
    std::mt19937 rng(20261128);
    for (int round = 0; round < 20; ++round) {
        ecs::World w;
        std::vector<ecs::Entity> all;
        const int n = 50 + static_cast<int>(rng() % 400);
        for (int i = 0; i < n; ++i) {
            const ecs::Entity e = w.create();
            all.push_back(e);
            if (rng() % 4 != 0) w.add(e, AoPos{float(i)});
            if (rng() % 3 == 0) w.add(e, AoPlayer{i});
            if (rng() % 3 == 0) w.add(e, AoEnemy{"e"});
            if (rng() % 4 == 0) w.add(e, AoWide{});
            if (rng() % 4 == 0) w.add(e, AoPoison{1});
            if (rng() % 6 == 0) w.add<AoTag>(e);
        }
        for (const ecs::Entity e : all) { // some components and entities disabled
            if (rng() % 5 == 0 && w.has<AoPlayer>(e)) w.disable<AoPlayer>(e);
            if (rng() % 5 == 0 && w.has<AoEnemy>(e)) w.disable<AoEnemy>(e);
            if (rng() % 6 == 0 && w.has<AoPoison>(e)) w.disable<AoPoison>(e);
            if (rng() % 20 == 0) w.disable(e);
        }
        auto brute = [&](auto pred) {
            std::vector<ecs::Entity> out;
            for (const ecs::Entity e : all)
                if (w.enabled(e) && on<AoPos>(w, e) && pred(e)) out.push_back(e);
            return out;
        };
        auto sorted = [](std::vector<ecs::Entity> v) {
            std::sort(v.begin(), v.end(), [](ecs::Entity x, ecs::Entity y) { return x.index < y.index; });
            return v;
        };
        std::vector<ecs::Entity> got;
        w.each<const AoPos>(ecs::AnyOf<AoPlayer, AoEnemy>{}, [&](ecs::Entity e, const AoPos&) { got.push_back(e); });
        CHECK(sorted(got) == brute([&](ecs::Entity e) { return on<AoPlayer>(w, e) || on<AoEnemy>(w, e); }));
        got.clear();
        w.each<const AoPos>(ecs::AnyOf<AoPoison, AoWide>{}, ecs::Without<AoTag>{}, [&](ecs::Entity e, const AoPos&) { got.push_back(e); });
        CHECK(sorted(got) == brute([&](ecs::Entity e) { return (on<AoPoison>(w, e) || on<AoWide>(w, e)) && !on<AoTag>(w, e); }));
        got.clear();
        w.each<const AoPos>(ecs::AnyOf<AoPlayer, AoPoison>{}, ecs::AnyOf<AoEnemy, AoWide>{},
                            [&](ecs::Entity e, const AoPos&) { got.push_back(e); });
        CHECK(sorted(got) == brute([&](ecs::Entity e) {
                  return (on<AoPlayer>(w, e) || on<AoPoison>(w, e)) && (on<AoEnemy>(w, e) || on<AoWide>(w, e));
              }));
        CHECK(w.check_invariants());
    }
}
