// Up<R, const T> and SelfUp<R, const T> terms (ROADMAP-2.0 K): T of the nearest ancestor along an
// exclusive relationship or ecs::Parent, nullptr when none; never a filter. Checked in every query
// form, across runs (re-parenting, value changes, an ancestor losing T or destroyed), on cycles and
// the 64-level limit, and against a hand-written walk on random forests.
#include <ecs/builtin/hierarchy_ops.hpp>
#include <ecs/ecs.hpp>
#include <ecs/parallel.hpp>
#include <ecs/schedule.hpp>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"

namespace {

struct UpChildOf {};
struct UpPos {
    float x = 0;
};
struct UpXf {
    float v = 0;
};
struct alignas(64) UpWide {
    double d = 0;
};
struct UpName {
    std::string s; // short strings stay in the object
};
struct UpSparse {
    int v = 0;
};

} // namespace

template <>
struct ecs::relation_traits<UpChildOf> {
    static constexpr bool exclusive = true;
};
template <>
struct ecs::component_traits<UpSparse> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};

namespace {

/// Entity -> the value its Up<UpChildOf, const UpXf> term gave (-1: nullptr), by world.each.
std::map<uint32_t, float> up_values(ecs::World& w) {
    std::map<uint32_t, float> out;
    w.each<const UpPos, ecs::Up<UpChildOf, const UpXf>>(
        [&](ecs::Entity e, const UpPos&, const UpXf* t) { out[e.index] = t != nullptr ? t->v : -1.f; });
    return out;
}

} // namespace

TEST_CASE("up: the nearest ancestor's value, self excluded; SelfUp looks at the entity first", "[query][up]") {
    ecs::World w;
    const ecs::Entity root = w.create_with(UpPos{0}, UpXf{10});
    const ecs::Entity mid = w.create_with(UpPos{1});
    const ecs::Entity leaf = w.create_with(UpPos{2}, UpXf{30});
    const ecs::Entity lone = w.create_with(UpPos{3}, UpXf{40});
    w.relate<UpChildOf>(mid, root);
    w.relate<UpChildOf>(leaf, mid);

    std::map<uint32_t, float> got = up_values(w);
    CHECK(got.size() == 4); // never a filter
    CHECK(got[root.index] == -1.f);
    CHECK(got[mid.index] == 10.f);
    CHECK(got[leaf.index] == 10.f); // its own UpXf is not an ancestor's
    CHECK(got[lone.index] == -1.f);

    std::map<uint32_t, float> self;
    w.each<const UpPos, ecs::SelfUp<UpChildOf, const UpXf>>(
        [&](ecs::Entity e, const UpPos&, const UpXf* t) { self[e.index] = t != nullptr ? t->v : -1.f; });
    CHECK(self[root.index] == 10.f);
    CHECK(self[mid.index] == 10.f);
    CHECK(self[leaf.index] == 30.f);
    CHECK(self[lone.index] == 40.f);

    // The pointer is the ancestor's own object.
    w.each<const UpPos, ecs::Up<UpChildOf, const UpXf>>([&](ecs::Entity e, const UpPos&, const UpXf* t) {
        if (e == leaf) CHECK(t == &w.get<UpXf>(root));
    });

    // A term may read the entity's T and its ancestor's (transform propagation).
    w.each<UpXf, ecs::Up<UpChildOf, const UpXf>>([](UpXf& mine, const UpXf* parent) {
        if (parent != nullptr) mine.v += 1000;
    });
    CHECK(w.get<UpXf>(leaf).v == 1030.f);
    CHECK(w.get<UpXf>(root).v == 10.f);
}

TEST_CASE("up: every query form", "[query][up]") {
    ecs::World w;
    const ecs::Entity root = w.create_with(UpXf{5});
    std::vector<ecs::Entity> kids;
    for (int i = 0; i < 50; ++i) {
        const ecs::Entity k = w.create_with(UpPos{float(i)});
        w.relate<UpChildOf>(k, root);
        kids.push_back(k);
    }
    auto q = w.query<const UpPos, ecs::Up<UpChildOf, const UpXf>>();
    CHECK(q.count() == 50);
    float sum = 0;
    q.each([&](const UpPos&, const UpXf* t) { sum += t != nullptr ? t->v : 0; });
    CHECK(sum == 250.f);
    sum = 0;
    w.each_no_entity<const UpPos, ecs::Up<UpChildOf, const UpXf>>([&](const UpPos&, const UpXf* t) { sum += t->v; });
    CHECK(sum == 250.f);
    const ecs::World& cw = w;
    size_t n = 0;
    cw.each<const UpPos, ecs::Up<UpChildOf, const UpXf>>([&](const UpPos&, const UpXf* t) { n += t != nullptr; });
    CHECK(n == 50);
    // With a filter beside it, and each_par (rows fetched one by one: it runs inline).
    ecs::ThreadPool pool(2);
    std::vector<int> seen(50, 0);
    w.each_par<UpPos, ecs::Up<UpChildOf, const UpXf>>(pool, ecs::Without<UpWide>{}, [&](UpPos& p, const UpXf* t) {
        seen[static_cast<size_t>(p.x)] += t != nullptr && t->v == 5.f;
    });
    CHECK(std::count(seen.begin(), seen.end(), 1) == 50);
    // A Schedule per-entity system (declares a read of UpXf).
    ecs::Schedule s;
    s.add<UpPos, ecs::Up<UpChildOf, const UpXf>>("follow", [](UpPos& p, const UpXf* t) { p.x += t->v; });
    s.run(w);
    CHECK(w.get<UpPos>(kids[3]).x == 8.f);
    // single<>
    ecs::World one;
    const ecs::Entity a = one.create_with(UpXf{1});
    const ecs::Entity b = one.create_with(UpPos{});
    one.relate<UpChildOf>(b, a);
    int calls = 0;
    one.single<const UpPos, ecs::Up<UpChildOf, const UpXf>>([&](ecs::Entity, const UpPos&, const UpXf* t) {
        calls += t != nullptr && t->v == 1.f;
    });
    CHECK(calls == 1);
}

TEST_CASE("up: ecs::Parent as the relationship; a dead parent leads nowhere", "[query][up][hierarchy]") {
    ecs::World w;
    const ecs::Entity top = w.create_with(UpWide{2.5});
    const ecs::Entity a = w.create_with(UpPos{1});
    const ecs::Entity b = w.create_with(UpPos{2});
    ecs::set_parent(w, a, top);
    ecs::set_parent(w, b, a);
    std::map<uint32_t, double> got;
    auto run = [&] {
        got.clear();
        w.each<const UpPos, ecs::Up<ecs::Parent, const UpWide>>(
            [&](ecs::Entity e, const UpPos&, const UpWide* t) { got[e.index] = t != nullptr ? t->d : -1; });
    };
    run();
    CHECK(got[a.index] == 2.5);
    CHECK(got[b.index] == 2.5);
    w.destroy(top); // Parent of a still names it (spec §5.2): the walk stops there
    run();
    CHECK(got[a.index] == -1);
    CHECK(got[b.index] == -1);
}

TEST_CASE("up: runs after re-parenting, value changes, an ancestor losing T or destroyed", "[query][up]") {
    ecs::World w;
    const ecs::Entity g1 = w.create_with(UpXf{1});
    const ecs::Entity g2 = w.create_with(UpXf{2});
    const ecs::Entity p = w.create_with(UpXf{3});
    const ecs::Entity c1 = w.create_with(UpPos{});
    const ecs::Entity c2 = w.create_with(UpPos{});
    w.relate<UpChildOf>(p, g1);
    w.relate<UpChildOf>(c1, p);
    w.relate<UpChildOf>(c2, p);
    auto q = w.query<const UpPos, ecs::Up<UpChildOf, const UpXf>>();
    auto values = [&] {
        std::map<uint32_t, float> out;
        q.each([&](ecs::Entity e, const UpPos&, const UpXf* t) { out[e.index] = t != nullptr ? t->v : -1.f; });
        return out;
    };
    CHECK(values()[c1.index] == 3.f);
    w.get<UpXf>(p).v = 33; // value change
    CHECK(values()[c2.index] == 33.f);
    w.remove<UpXf>(p); // the ancestor loses T: the next one up
    CHECK(values()[c1.index] == 1.f);
    w.relate<UpChildOf>(p, g2); // re-parenting (exclusive: replaces g1)
    CHECK(values()[c1.index] == 2.f);
    w.relate<UpChildOf>(c2, g1);
    std::map<uint32_t, float> v = values();
    CHECK(v[c1.index] == 2.f);
    CHECK(v[c2.index] == 1.f);
    w.destroy(g2); // the ancestor destroyed: the pair goes with it
    v = values();
    CHECK(v[c1.index] == -1.f);
    CHECK(v[c2.index] == 1.f);
    w.disable<UpXf>(g1); // a disabled T is skipped
    CHECK(values()[c2.index] == -1.f);
    w.enable<UpXf>(g1);
    CHECK(values()[c2.index] == 1.f);
}

TEST_CASE("up: cycles end the walk, 64 levels at most; a sparse T", "[query][up]") {
    ecs::World w;
    // a -> b -> a (relating does not refuse cycles); both rows in one archetype share a parent walk.
    const ecs::Entity a = w.create_with(UpPos{}, UpName{"a"});
    const ecs::Entity b = w.create_with(UpPos{}, UpName{"b"});
    w.relate<UpChildOf>(a, b);
    w.relate<UpChildOf>(b, a);
    std::map<uint32_t, std::string> got;
    w.each<const UpPos, ecs::Up<UpChildOf, const UpName>>(
        [&](ecs::Entity e, const UpPos&, const UpName* t) { got[e.index] = t != nullptr ? t->s : "-"; });
    CHECK(got[a.index] == "b");
    CHECK(got[b.index] == "a");
    // e and x share parent p; p's parent is x: e finds x's value, x meets itself (nullptr).
    ecs::World c;
    const ecs::Entity p = c.create();
    const ecs::Entity e = c.create_with(UpPos{}, UpXf{1});
    const ecs::Entity x = c.create_with(UpPos{}, UpXf{2});
    c.relate<UpChildOf>(e, p);
    c.relate<UpChildOf>(x, p);
    c.relate<UpChildOf>(p, x);
    std::map<uint32_t, float> cv;
    c.each<const UpPos, ecs::Up<UpChildOf, const UpXf>>(
        [&](ecs::Entity en, const UpPos&, const UpXf* t) { cv[en.index] = t != nullptr ? t->v : -1.f; });
    CHECK(cv[e.index] == 2.f);
    CHECK(cv[x.index] == -1.f);

    // A chain of 100: T at the top is reached within 64 levels only.
    ecs::World deep;
    std::vector<ecs::Entity> chain{deep.create_with(UpXf{7})};
    for (int i = 1; i < 100; ++i) {
        chain.push_back(deep.create_with(UpPos{float(i)}));
        deep.relate<UpChildOf>(chain.back(), chain[chain.size() - 2]);
    }
    std::map<int, bool> reached;
    deep.each<const UpPos, ecs::Up<UpChildOf, const UpXf>>(
        [&](const UpPos& pos, const UpXf* t) { reached[static_cast<int>(pos.x)] = t != nullptr; });
    CHECK(reached[1]);
    CHECK(reached[64]);
    CHECK(!reached[65]);
    CHECK(!reached[99]);

    // A sparse T on the ancestor, and an enable bit on it.
    ecs::World sp;
    const ecs::Entity top = sp.create();
    sp.add(top, UpSparse{9});
    const ecs::Entity kid = sp.create_with(UpPos{});
    sp.relate<UpChildOf>(kid, top);
    int found = 0;
    sp.each<const UpPos, ecs::Up<UpChildOf, const UpSparse>>([&](const UpPos&, const UpSparse* t) { found = t ? t->v : -1; });
    CHECK(found == 9);
    sp.disable<UpSparse>(top);
    sp.each<const UpPos, ecs::Up<UpChildOf, const UpSparse>>([&](const UpPos&, const UpSparse* t) { found = t ? t->v : -1; });
    CHECK(found == -1);
}

TEST_CASE("up: random forests agree with a hand-written walk through get", "[query][up]") {
    std::mt19937 rng(20261128);
    for (int round = 0; round < 10; ++round) {
        ecs::World w;
        std::vector<ecs::Entity> all;
        const int n = 100 + static_cast<int>(rng() % 300);
        for (int i = 0; i < n; ++i) {
            const ecs::Entity e = w.create_with(UpPos{float(i)});
            if (rng() % 3 == 0) w.add(e, UpXf{float(i)});
            if (rng() % 5 == 0) w.add(e, UpWide{double(i)}); // another archetype
            if (!all.empty() && rng() % 4 != 0) w.relate<UpChildOf>(e, all[rng() % all.size()]);
            all.push_back(e);
        }
        for (const ecs::Entity e : all)
            if (rng() % 7 == 0 && w.has<UpXf>(e)) w.disable<UpXf>(e);
        for (int k = 0; k < 5; ++k) w.destroy(all[rng() % all.size()]);
        auto by_hand = [&](ecs::Entity e) -> const UpXf* {
            ecs::Entity at = w.target<UpChildOf>(e);
            for (int level = 0; level < 64 && at != ecs::INVALID_ENTITY; ++level) {
                if (w.has<UpXf>(at) && w.enabled<UpXf>(at)) return &w.get<UpXf>(at);
                at = w.target<UpChildOf>(at);
            }
            return nullptr;
        };
        size_t checked = 0;
        bool all_ok = true;
        w.each<const UpPos, ecs::Up<UpChildOf, const UpXf>>([&](ecs::Entity e, const UpPos&, const UpXf* t) {
            ++checked;
            all_ok = all_ok && t == by_hand(e);
        });
        CHECK(all_ok);
        CHECK(checked == w.count<UpPos>());
    }
}
