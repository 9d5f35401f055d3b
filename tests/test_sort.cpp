// Archetype sorting (SPEC §3.9).
#include <ecs/world.hpp>

#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "counting.hpp"

using ecs::Entity;
using ecs::World;
using namespace ecs_test;

namespace {
struct Depth {
    float z = 0;
};
struct Name {
    std::string text;
};
struct Other {
    int v = 0;
};
} // namespace

TEST_CASE("sort: rows of every archetype holding T are ordered, columns in lockstep", "[sort]") {
    World w;
    std::mt19937 rng(42);
    std::vector<Entity> es;
    for (int i = 0; i < 300; ++i) {
        const float z = float(rng() % 1000);
        const Entity e = (i % 3 == 0) ? w.create_with(Depth{z}, Name{"e" + std::to_string(i)})
                                      : w.create_with(Depth{z}, Name{"e" + std::to_string(i)}, Other{i});
        es.push_back(e);
    }
    std::vector<float> depth_before;
    for (Entity e : es) depth_before.push_back(w.get<Depth>(e).z);

    w.sort<Depth>([](const Depth& a, const Depth& b) { return a.z < b.z; });

    // Every handle still resolves to its own values.
    for (size_t i = 0; i < es.size(); ++i) {
        CHECK(w.get<Depth>(es[i]).z == depth_before[i]);
        CHECK(w.get<Name>(es[i]).text == "e" + std::to_string(i));
        if (i % 3 != 0) CHECK(w.get<Other>(es[i]).v == int(i));
    }
    // Iteration order within each archetype is sorted: each visits archetype by archetype.
    float last = -1;
    Entity last_entity = ecs::INVALID_ENTITY;
    bool with_other = false;
    w.each<Depth>(ecs::Exclude<Other>{}, [&](Entity e, Depth& d) {
        CHECK(d.z >= last);
        last = d.z;
        last_entity = e;
    });
    last = -1;
    w.each<Depth, Other>([&](Entity, Depth& d, Other&) {
        with_other = true;
        CHECK(d.z >= last);
        last = d.z;
    });
    CHECK(with_other);
    CHECK(last_entity != ecs::INVALID_ENTITY);
    CHECK(w.check_invariants());
}

TEST_CASE("sort: descending comparator and stability", "[sort]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 50; ++i) es.push_back(w.create_with(Depth{float(i % 5)}, Other{i}));
    w.sort<Depth>([](const Depth& a, const Depth& b) { return a.z > b.z; });
    std::vector<std::pair<float, int>> seen;
    w.each<Depth, Other>([&](Entity, Depth& d, Other& o) { seen.emplace_back(d.z, o.v); });
    REQUIRE(seen.size() == 50);
    for (size_t i = 1; i < seen.size(); ++i) {
        CHECK(seen[i - 1].first >= seen[i].first);
        if (seen[i - 1].first == seen[i].first) CHECK(seen[i - 1].second < seen[i].second); // stable
    }
}

TEST_CASE("sort: sorting by a second component reorders the first in lockstep", "[sort]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 64; ++i) es.push_back(w.create_with(Depth{float(i)}, Other{63 - i}));
    w.sort<Other>([](const Other& a, const Other& b) { return a.v < b.v; });
    int expected = 0;
    w.each<Depth, Other>([&](Entity e, Depth& d, Other& o) {
        CHECK(o.v == expected);
        CHECK(d.z == float(63 - expected));
        CHECK(w.get<Other>(e).v == expected);
        ++expected;
    });
    for (size_t i = 0; i < es.size(); ++i) CHECK(w.get<Depth>(es[i]).z == float(i));
}

TEST_CASE("sort: lifetimes balance and move-only, non-assignable types sort", "[sort][lifetime]") {
    reset_life();
    {
        World w;
        std::vector<Entity> es;
        for (int i = 0; i < 100; ++i)
            es.push_back(w.create_with(Counted{(i * 37) % 100}, CountedName{"n" + std::to_string((i * 37) % 100)}));
        w.sort<Counted>([](const Counted& a, const Counted& b) { return a.value < b.value; });
        int expected = 0;
        w.each<Counted, CountedName>([&](Entity, Counted& c, CountedName& n) {
            CHECK(c.value == expected);
            CHECK(n.name == "n" + std::to_string(expected));
            ++expected;
        });
        CHECK(expected == 100);
        CHECK(life().bad_destroys == 0);
    }
    CHECK(life().alive() == 0);
    CHECK(life().bad_destroys == 0);
}

TEST_CASE("sort: empty worlds, single rows and absent types are fine", "[sort]") {
    World w;
    w.sort<Depth>([](const Depth& a, const Depth& b) { return a.z < b.z; });
    const Entity e = w.create_with(Depth{3});
    w.sort<Depth>([](const Depth& a, const Depth& b) { return a.z < b.z; });
    CHECK(w.get<Depth>(e).z == 3);
    CHECK(w.check_invariants());
}
