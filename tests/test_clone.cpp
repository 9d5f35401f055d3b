// World::clone (detail/clone.hpp, Archetype::copy_rows_from): same handles, generations and free
// list; components copy-constructed exactly once and destroyed exactly once; independent worlds
// afterwards; refusal for a type that cannot be copied; random worlds compared entity by entity.
#include <ecs/world.hpp>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "catch.hpp"
#include "lifetime.hpp"

using ecs::Entity;
using ecs::World;

namespace {
struct Position {
    float x = 0, y = 0;
};
struct Velocity {
    float x = 0, y = 0;
};
struct Frozen {};
struct alignas(64) Wide {
    float lanes[16] = {};
};
struct Text {
    std::string s; // short strings live inside the object (SSO): a memcpy copy would dangle
};
/// Empty, with user-written special members: stored with one byte per row, not as a tag.
struct EmptyWithMembers {
    EmptyWithMembers() = default;
    EmptyWithMembers(const EmptyWithMembers&) { ++copies(); }
    EmptyWithMembers(EmptyWithMembers&&) noexcept {}
    EmptyWithMembers& operator=(const EmptyWithMembers&) = default;
    ~EmptyWithMembers() {}
    static int& copies() {
        static int n = 0;
        return n;
    }
};
struct MoveOnly {
    std::unique_ptr<int> p;
};
struct CloneTag {};
using Counted = lifetime::Counted<CloneTag>;

/// The observable state of one entity, for entity-by-entity comparison.
std::string describe_entity(const World& w, Entity e) {
    std::string out = std::to_string(e.index) + "v" + std::to_string(e.generation) + (w.alive(e) ? " alive" : " dead");
    if (const Position* p = w.try_get<Position>(e)) out += " P(" + std::to_string(p->x) + "," + std::to_string(p->y) + ")";
    if (const Velocity* v = w.try_get<Velocity>(e)) out += " V(" + std::to_string(v->x) + ")";
    if (const Text* t = w.try_get<Text>(e)) out += " T(" + t->s + ")";
    if (const Counted* c = w.try_get<Counted>(e)) out += " C(" + std::to_string(c->value()) + ")";
    if (const Wide* wd = w.try_get<Wide>(e)) out += " W(" + std::to_string(wd->lanes[15]) + ")";
    if (w.has<Frozen>(e)) out += " F";
    if (!w.name(e).empty()) out += " name=" + std::string(w.name(e));
    return out;
}

/// Every entity in iteration order (archetype creation order, then rows).
std::vector<Entity> iteration_order(World& w) {
    std::vector<Entity> order;
    w.each<>([&](Entity e) { order.push_back(e); });
    return order;
}
} // namespace

TEST_CASE("clone: same handles, generations and free list", "[clone]") {
    World w;
    std::vector<Entity> handles;
    for (int i = 0; i < 20; ++i) handles.push_back(w.create_with(Position{float(i), 0}));
    for (int i : {3, 7, 11, 0, 19}) w.destroy(handles[size_t(i)]);
    handles[7] = w.create_with(Position{70, 0}); // reuses a slot: generation 2
    w.destroy(handles[7]);                        // generation 3 in the free list
    World c = w.clone();
    CHECK(c.check_invariants());
    CHECK(c.count() == w.count());
    CHECK(c.archetype_count() == w.archetype_count());
    CHECK(ecs::detail::WorldAccess::free_list(c) == ecs::detail::WorldAccess::free_list(w));
    for (Entity e : handles) CHECK(describe_entity(c, e) == describe_entity(w, e));
    // Both worlds hand out the same next handles, slot reuse included.
    for (int i = 0; i < 8; ++i) {
        const Entity a = w.create();
        const Entity b = c.create();
        CHECK(a == b);
    }
    CHECK(iteration_order(w) == iteration_order(c));
}

TEST_CASE("clone: an empty world and a fresh world", "[clone]") {
    World w;
    World c = w.clone();
    CHECK(c.count() == 0);
    CHECK(c.check_invariants());
    CHECK(c.create() == w.create());
}

TEST_CASE("clone: component values, iteration order and names are equal", "[clone]") {
    World w;
    const Entity a = w.create_with(Position{1, 2}, Velocity{3, 4});
    const Entity b = w.create_with(Position{5, 6}, Text{"short"}, Frozen{});
    const Entity c = w.create_with(Text{std::string(100, 'L')}, Wide{});
    w.get<Wide>(c).lanes[15] = 42.0f;
    const Entity d = w.create();
    w.set_name(a, "a");
    w.set_name(c, "c");
    w.sort<Position>([](const Position& l, const Position& r) { return l.x > r.x; });
    World k = w.clone();
    REQUIRE(k.check_invariants());
    for (Entity e : {a, b, c, d}) CHECK(describe_entity(k, e) == describe_entity(w, e));
    CHECK(reinterpret_cast<uintptr_t>(&k.get<Wide>(c)) % 64 == 0);
    CHECK(k.lookup("a") == a);
    CHECK(k.lookup("c") == c);
    CHECK(k.name(c).data() != w.name(c).data()); // the clone owns its names
    CHECK(iteration_order(k) == iteration_order(w));
    std::vector<float> xs_w, xs_k;
    w.each<const Position>([&](const Position& p) { xs_w.push_back(p.x); });
    k.each<const Position>([&](const Position& p) { xs_k.push_back(p.x); });
    CHECK(xs_w == xs_k);
    // Short strings were copy-constructed, not memcpy'd: they point into their own objects.
    CHECK(k.get<Text>(b).s == "short");
    k.get<Text>(b).s = "changed in the clone";
    CHECK(w.get<Text>(b).s == "short");
}

TEST_CASE("clone: every copy is destroyed exactly once; the worlds are independent", "[clone]") {
    Counted::reset();
    {
        World w;
        std::vector<Entity> handles;
        for (int i = 0; i < 100; ++i) handles.push_back(w.create_with(Counted{i}, Position{float(i), 0}));
        for (int i = 0; i < 100; i += 5) w.destroy(handles[size_t(i)]);
        const long alive_before = Counted::tally().alive();
        const long copies_before = Counted::tally().copies;
        {
            World c = w.clone();
            CHECK(Counted::tally().copies - copies_before == 80);
            CHECK(Counted::tally().alive() == 2 * alive_before);
            // Changes in one world do not reach the other.
            c.get<Counted>(handles[1]) = Counted{-1};
            c.destroy(handles[2]);
            c.remove<Counted>(handles[3]);
            w.add(handles[4], Velocity{9, 9});
            CHECK(w.get<Counted>(handles[1]).value() == 1);
            CHECK(w.alive(handles[2]));
            CHECK(w.has<Counted>(handles[3]));
            CHECK(!c.has<Velocity>(handles[4]));
            CHECK(c.check_invariants());
            CHECK(w.check_invariants());
        }
        CHECK(Counted::tally().alive() == alive_before);
        CHECK(Counted::tally().bad_destroys == 0);
        CHECK(Counted::tally().bad_reads == 0);
    }
    CHECK(Counted::tally().clean());
}

TEST_CASE("clone: tags and empty types with members", "[clone]") {
    World w;
    EmptyWithMembers::copies() = 0;
    const Entity a = w.create_with(Frozen{}, EmptyWithMembers{});
    const Entity b = w.create_with(Frozen{});
    World c = w.clone();
    CHECK(EmptyWithMembers::copies() == 1);
    CHECK(c.has<Frozen>(a));
    CHECK(c.has<EmptyWithMembers>(a));
    CHECK(c.has<Frozen>(b));
    CHECK(!c.has<EmptyWithMembers>(b));
    CHECK(c.check_invariants());
}

TEST_CASE("clone: a move-only type without live values does not block the copy", "[clone]") {
    World w;
    const Entity a = w.create_with(MoveOnly{std::make_unique<int>(1)});
    const Entity b = w.create_with(Position{1, 1});
    w.destroy(a); // the archetype of MoveOnly exists, empty
    World c = w.clone();
    CHECK(c.count() == 1);
    CHECK(c.archetype_count() == w.archetype_count());
    CHECK(c.get<Position>(b).x == 1);
    CHECK(c.check_invariants());
}

TEST_CASE("clone: what is not copied", "[clone]") {
    World w;
    int fired = 0;
    w.on_add<Position>([&](World&, Entity, Position&) { ++fired; });
    w.set_resource(Velocity{1, 2});
    const Entity e = w.create_with(Position{});
    w.deferred().destroy(e);
    World c = w.clone();
    CHECK(fired == 1);
    CHECK(!c.has_resource<Velocity>()); // resources are not copied
    CHECK(c.deferred_count() == 0);     // nor pending commands
    (void)c.create_with(Position{});
    CHECK(fired == 1); // nor hooks
    w.flush_deferred();
    CHECK(!w.alive(e));
    CHECK(c.alive(e));
}

namespace {
/// A small deterministic generator (the same sequence with every standard library).
struct Rng {
    uint64_t state;
    uint32_t next(uint32_t n) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<uint32_t>((state >> 33) % n);
    }
};
} // namespace

TEST_CASE("clone: random worlds compared entity by entity", "[clone]") {
    Counted::reset();
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        Rng rng{seed};
        World w;
        std::vector<Entity> handles;
        for (int step = 0; step < 600; ++step) {
            const uint32_t op = rng.next(10);
            const Entity target = handles.empty() ? ecs::INVALID_ENTITY : handles[rng.next(uint32_t(handles.size()))];
            const int v = int(rng.next(1000));
            switch (op) {
            case 0: handles.push_back(w.create()); break;
            case 1: handles.push_back(w.create_with(Position{float(v), 1}, Counted{v})); break;
            case 2: handles.push_back(w.create_with(Text{std::to_string(v)}, Frozen{})); break;
            case 3: w.destroy(target); break;
            case 4: w.add(target, Velocity{float(v), 0}); break;
            case 5: w.add(target, Counted{v}); break;
            case 6: w.remove<Position>(target); break;
            case 7: w.add(target, Wide{}); break;
            case 8:
                if (w.alive(target) && w.lookup("n" + std::to_string(v)) == ecs::INVALID_ENTITY)
                    w.set_name(target, "n" + std::to_string(v));
                break;
            default: w.remove<Frozen>(target); break;
            }
        }
        World c = w.clone();
        REQUIRE(c.check_invariants());
        CHECK(c.count() == w.count());
        CHECK(ecs::detail::WorldAccess::free_list(c) == ecs::detail::WorldAccess::free_list(w));
        bool same = true;
        for (Entity e : handles) same = same && describe_entity(c, e) == describe_entity(w, e);
        CHECK(same);
        CHECK(iteration_order(c) == iteration_order(w));
        for (int i = 0; i < 5; ++i) CHECK(c.create() == w.create());
    }
    CHECK(Counted::tally().clean());
}

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
namespace {
struct ThrowTag {};
/// Copies throw once the budget runs out.
struct ThrowingCopy {
    lifetime::Counted<ThrowTag> c;
    explicit ThrowingCopy(int v) : c(v) {}
    ThrowingCopy(const ThrowingCopy& o) : c(o.c) {
        if (--budget() == 0) throw 42;
    }
    ThrowingCopy(ThrowingCopy&&) noexcept = default;
    static int& budget() {
        static int n = 0;
        return n;
    }
};
} // namespace

TEST_CASE("clone: a throwing copy constructor leaks nothing and leaves the source intact", "[clone]") {
    lifetime::Counted<ThrowTag>::reset();
    Counted::reset();
    {
        World w;
        for (int i = 0; i < 50; ++i) (void)w.create_with(Counted{i}, ThrowingCopy{i}, Text{"t"});
        ThrowingCopy::budget() = 30;
        bool thrown = false;
        try {
            World c = w.clone();
        } catch (int) {
            thrown = true;
        }
        CHECK(thrown);
        CHECK(w.count() == 50);
        CHECK(w.check_invariants());
        CHECK(lifetime::Counted<ThrowTag>::tally().alive() == 50);
        CHECK(Counted::tally().alive() == 50);
    }
    CHECK(lifetime::Counted<ThrowTag>::tally().clean());
    CHECK(Counted::tally().clean());
}
#endif
