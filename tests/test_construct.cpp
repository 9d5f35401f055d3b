/**
 * @file tests/test_construct.cpp
 * @brief Construction in place (`ecs::construct<T>(args...)`, `add<T>(e)`) and bulk creation
 *        (`create_n`): a component built from arguments is built once, at its final address, in
 *        every form that takes a value.
 */
#include <ecs/ecs.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "catch.hpp"
#include "lifetime.hpp"

namespace {

/// Records its own address when built; its move constructor is deleted, so a move cannot even
/// compile. Relocations (a later migration, a block growing) copy it, and the copy re-records.
struct Pinned {
    static inline long built = 0;  ///< value constructions
    static inline long copies = 0; ///< copy constructions (relocations)
    static inline long destroyed = 0;
    const Pinned* self;
    int number;
    std::string label; // long enough to live on the heap

    Pinned(int n, std::string l) : self(this), number(n), label(std::move(l)) { ++built; }
    Pinned() : Pinned(0, "default label that does not fit in a short string") {}
    Pinned(Pinned&&) = delete;
    Pinned(const Pinned& o) : self(this), number(o.number), label(o.label) { ++copies; }
    Pinned& operator=(const Pinned&) = delete;
    Pinned& operator=(Pinned&&) = delete;
    ~Pinned() { ++destroyed; }

    [[nodiscard]] bool home() const { return self == this; }
    static void reset() { built = copies = destroyed = 0; }
};

/// The same, stored in a sparse set.
struct SparsePinned : Pinned {
    using Pinned::Pinned;
};

struct Position {
    float x, y;
};
struct Health {
    int hp;
};
struct alignas(64) Wide {
    double v[3];
};
using Probe = lifetime::Counted<struct ConstructProbeTag>;

/// A movable type that counts moves, built from a string it may read from another entity.
struct Named {
    std::string text;
    explicit Named(const std::string& t) : text(t) {}
};

} // namespace

template <>
struct ecs::component_traits<SparsePinned> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};

TEST_CASE("construct: create_with builds the value in its final row, no temporary, no move", "[construct]") {
    Pinned::reset();
    {
        ecs::World w;
        const ecs::Entity e = w.create_with(Position{1, 2}, ecs::construct<Pinned>(7, std::string(40, 'p')));
        REQUIRE(w.alive(e));
        const Pinned& p = w.get<Pinned>(e);
        CHECK(p.home());
        CHECK(p.number == 7);
        CHECK(p.label == std::string(40, 'p'));
        CHECK(w.get<Position>(e).x == 1);
        CHECK(Pinned::built == 1);
        CHECK(Pinned::copies == 0);
        // An aggregate is brace-initialised; an over-aligned one lands aligned.
        const ecs::Entity a = w.create_with(ecs::construct<Position>(3.f, 4.f), ecs::construct<Wide>());
        CHECK(w.get<Position>(a).y == 4);
        CHECK(reinterpret_cast<uintptr_t>(&w.get<Wide>(a)) % 64 == 0);
    }
    CHECK(Pinned::built + Pinned::copies == Pinned::destroyed);
}

TEST_CASE("construct: many entities, blocks growing, arguments read from the world", "[construct]") {
    Pinned::reset();
    {
        ecs::World w;
        const ecs::Entity first = w.create_with(Named(std::string(50, 'n')), Health{1});
        std::vector<ecs::Entity> made;
        for (int i = 0; i < 5000; ++i) {
            // The argument refers into a column this call may grow: it must still read right.
            made.push_back(w.create_with(ecs::construct<Named>(w.get<Named>(first).text), Health{i}));
            const long before = Pinned::copies;
            const ecs::Entity p = w.create_with(ecs::construct<Pinned>(i, "pinned value, long enough for the heap"));
            CHECK(w.get<Pinned>(p).home());
            CHECK(w.get<Pinned>(p).number == i);
            CHECK(Pinned::copies >= before); // growth relocates the older rows by copy, never this one
        }
        for (const ecs::Entity e : made) CHECK(w.get<Named>(e).text == std::string(50, 'n'));
        size_t homes = 0;
        w.each<const Pinned>([&](const Pinned& p) { homes += p.home() ? 1u : 0u; });
        CHECK(homes == 5000); // relocated copies re-record their address
    }
    CHECK(Pinned::built + Pinned::copies == Pinned::destroyed);
}

TEST_CASE("construct: add of one value, fast path and observed path", "[construct]") {
    Pinned::reset();
    ecs::World w;
    const ecs::Entity e = w.create_with(Position{0, 0});
    w.add(e, ecs::construct<Pinned>(3, "three"));
    CHECK(w.get<Pinned>(e).home());
    CHECK(w.get<Pinned>(e).number == 3);
    CHECK(Pinned::copies == 0);

    int added = 0;
    w.on_add<Pinned>([&](ecs::World&, ecs::Entity, Pinned& p) {
        ++added;
        CHECK(p.home());
    });
    const ecs::Entity f = w.create_with(Position{0, 0});
    w.add(f, ecs::construct<Pinned>(4, "four"));
    CHECK(added == 1);
    CHECK(w.get<Pinned>(f).number == 4);
    CHECK(Pinned::copies == 0);

    // Over an existing value: on_set fires, the value is replaced at the same address.
    int set = 0;
    w.on_set<Pinned>([&](ecs::World&, ecs::Entity, Pinned&) { ++set; });
    const Pinned* at = &w.get<Pinned>(f);
    w.add(f, ecs::construct<Pinned>(5, "five"));
    CHECK(&w.get<Pinned>(f) == at);
    CHECK(w.get<Pinned>(f).home());
    CHECK(w.get<Pinned>(f).number == 5);
    CHECK(set == 1);

    // A movable type rebuilt from its own old value.
    w.add(f, Named(std::string(30, 'a')));
    w.add(f, ecs::construct<Named>(w.get<Named>(f).text));
    CHECK(w.get<Named>(f).text == std::string(30, 'a'));
}

TEST_CASE("construct: add<T>(e) builds T in place, value-initialised", "[construct]") {
    Pinned::reset();
    ecs::World w;
    const ecs::Entity e = w.create();
    w.add<Pinned>(e);
    CHECK(w.get<Pinned>(e).home());
    CHECK(w.get<Pinned>(e).number == 0);
    CHECK(Pinned::copies == 0);
    w.add<Health>(e);
    CHECK(w.get<Health>(e).hp == 0);
    w.add<SparsePinned>(e);
    CHECK(w.get<SparsePinned>(e).home());
    Probe::reset();
    w.add<Probe>(e);
    CHECK(Probe::tally().moves == 0);
    CHECK(Probe::tally().copies == 0);
}

TEST_CASE("construct: several values in one migration", "[construct]") {
    Pinned::reset();
    Probe::reset();
    {
        ecs::World w;
        const ecs::Entity e = w.create_with(Health{1});
        w.add(e, ecs::construct<Pinned>(8, "eight"), Position{1, 1}, ecs::construct<Probe>(9));
        CHECK(w.get<Pinned>(e).home());
        CHECK(w.get<Pinned>(e).number == 8);
        CHECK(w.get<Probe>(e).value() == 9);
        CHECK(Probe::tally().moves == 0);
        CHECK(Probe::tally().copies == 0);
        CHECK(Pinned::copies == 0);
        // Overwrite some, add others, during the same call; a sparse one among them.
        w.add(e, ecs::construct<Probe>(10), ecs::construct<SparsePinned>(11, "eleven"), Health{2});
        CHECK(w.get<Probe>(e).value() == 10);
        CHECK(w.get<SparsePinned>(e).home());
        CHECK(w.get<SparsePinned>(e).number == 11);
        CHECK(w.get<Health>(e).hp == 2);
    }
    CHECK(Probe::tally().clean());
    CHECK(Pinned::built + Pinned::copies == Pinned::destroyed);
}

TEST_CASE("construct: deferred and CommandBuffer forms own their arguments until the flush", "[construct]") {
    Pinned::reset();
    Probe::reset();
    {
        ecs::World w;
        for (int i = 0; i < 10; ++i) (void)w.create_with(Health{i});
        ecs::Entity reserved = ecs::INVALID_ENTITY;
        w.each<const Health>([&](ecs::Entity e, const Health& h) {
            std::string label = "deferred label number " + std::to_string(h.hp); // dies before the flush
            w.deferred().add(e, ecs::construct<Pinned>(h.hp, label));
            w.deferred().add(e, ecs::construct<Probe>(h.hp), Position{float(h.hp), 0});
            if (h.hp == 0) {
                reserved = w.deferred().create_with(ecs::construct<Pinned>(100, std::string("reserved")));
                w.deferred().add<SparsePinned>(e);
            }
        });
        w.flush_deferred();
        CHECK(w.alive(reserved));
        CHECK(w.get<Pinned>(reserved).number == 100);
        CHECK(w.get<Pinned>(reserved).home());
        int seen = 0;
        w.each<const Health, const Pinned, const Probe>([&](const Health& h, const Pinned& p, const Probe& probe) {
            ++seen;
            CHECK(p.number == h.hp);
            CHECK(p.label == "deferred label number " + std::to_string(h.hp));
            CHECK(probe.value() == h.hp);
        });
        CHECK(seen == 10);
        CHECK(Probe::tally().moves == 0);
        CHECK(Probe::tally().copies == 0);

        ecs::CommandBuffer cb;
        const ecs::Entity target = w.create();
        {
            std::string temp = "command buffer argument";
            cb.add(target, ecs::construct<Pinned>(1, temp));
            cb.create_with(ecs::construct<Pinned>(2, temp), Health{-1});
            cb.add<Wide>(target);
        }
        cb.flush(w);
        CHECK(w.get<Pinned>(target).label == "command buffer argument");
        CHECK(w.get<Pinned>(target).home());
        CHECK(w.has<Wide>(target));
        CHECK(w.count<Pinned, Health>() == 11);
        // Dropped unflushed: the owned arguments are released.
        ecs::CommandBuffer dropped;
        dropped.add(target, ecs::construct<Probe>(5));
    }
    CHECK(Probe::tally().clean());
    CHECK(Pinned::built + Pinned::copies == Pinned::destroyed);
}

TEST_CASE("construct: prefab instantiate overrides", "[construct]") {
    Pinned::reset();
    ecs::World w;
    const ecs::Prefab p = ecs::Prefab::create(Position{5, 5}, Health{50});
    const ecs::Entity e = ecs::instantiate(w, p, ecs::construct<Pinned>(12, "override"), ecs::construct<Health>(60));
    CHECK(w.get<Pinned>(e).home());
    CHECK(w.get<Pinned>(e).number == 12);
    CHECK(w.get<Health>(e).hp == 60);
    CHECK(w.get<Position>(e).x == 5);
    CHECK(Pinned::copies == 0);
    const ecs::Entity s = ecs::instantiate(w, p, ecs::construct<SparsePinned>(13, "sparse override"));
    CHECK(w.get<SparsePinned>(s).home());
    CHECK(w.get<SparsePinned>(s).number == 13);
}

TEST_CASE("construct: sparse types built in their slot", "[construct]") {
    Pinned::reset();
    {
        ecs::World w;
        std::vector<ecs::Entity> es;
        for (int i = 0; i < 300; ++i) es.push_back(w.create_with(ecs::construct<SparsePinned>(i, "sparse"), Health{i}));
        for (int i = 0; i < 300; ++i) {
            CHECK(w.get<SparsePinned>(es[size_t(i)]).number == i);
            CHECK(w.get<SparsePinned>(es[size_t(i)]).home());
        }
        w.add(es[0], ecs::construct<SparsePinned>(-1, "again"));
        CHECK(w.get<SparsePinned>(es[0]).number == -1);
        for (size_t i = 0; i < es.size(); i += 2) w.destroy(es[i]);
        size_t homes = 0;
        w.each<const SparsePinned>([&](const SparsePinned& p) { homes += p.home() ? 1u : 0u; });
        CHECK(homes == 150);
    }
    CHECK(Pinned::built + Pinned::copies == Pinned::destroyed);
}

TEST_CASE("create_n: n entities with copies of the values, one archetype", "[construct][create_n]") {
    Probe::reset();
    {
        ecs::World w;
        const ecs::Entity gone = w.create();
        const ecs::Entity first = w.create_with(Named(std::string(60, 'q')), Health{7});
        w.destroy(gone); // a free slot: reused first, as create() would
        std::vector<ecs::Entity> es = w.create_n(5000, w.get<Named>(first), Health{3}, Probe(4), Wide{{1, 2, 3}});
        REQUIRE(es.size() == 5000);
        CHECK(es[0].index == gone.index);
        CHECK(es[0].generation != gone.generation);
        CHECK(w.count() == 5001);
        CHECK(w.count<Named, Health, Probe, Wide>() == 5000);
        std::vector<uint32_t> seen;
        for (const ecs::Entity e : es) {
            REQUIRE(w.alive(e));
            seen.push_back(e.index);
            CHECK(w.get<Named>(e).text == std::string(60, 'q')); // read from a block that grew
            CHECK(w.get<Probe>(e).value() == 4);
            CHECK(reinterpret_cast<uintptr_t>(&w.get<Wide>(e)) % 64 == 0);
        }
        std::sort(seen.begin(), seen.end());
        CHECK(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
        CHECK(Probe::tally().copies >= 5000);
        // The entities are ordinary: destroyed, migrated, iterated.
        for (size_t i = 0; i < es.size(); i += 3) w.destroy(es[i]);
        for (size_t i = 1; i < es.size(); i += 3) w.remove<Health>(es[i]);
        CHECK(w.count<Named, Health, Probe, Wide>() == 5000 - 1667 - 1667);
        ecs::Entity span[4];
        w.create_n(span, 4, Health{9});
        for (const ecs::Entity e : span) CHECK(w.get<Health>(e).hp == 9);
        CHECK(w.create_n(0, Health{1}).empty());
        CHECK(w.create_n(3).size() == 3); // empty entities
    }
    CHECK(Probe::tally().clean());
}

TEST_CASE("create_n: observers, sparse types and change tracking see every entity", "[construct][create_n]") {
    ecs::World w;
    int added = 0;
    int entered = 0;
    w.on_add<Health>([&](ecs::World&, ecs::Entity, Health&) { ++added; });
    w.on_enter<const Health, const Position>([&](ecs::World&, ecs::Entity) { ++entered; });
    const auto es = w.create_n(100, Health{1}, Position{2, 3});
    CHECK(added == 100);
    CHECK(entered == 100);
    const auto sparse = w.create_n(50, SparsePinned(1, "sparse copies, long enough for the heap"), Health{2});
    CHECK(sparse.size() == 50);
    CHECK(w.count<SparsePinned, Health>() == 50);
    for (const ecs::Entity e : sparse) CHECK(w.get<SparsePinned>(e).home());

    ecs::World tracked;
    tracked.track_changes<Health>();
    auto q = tracked.query<const Health>(ecs::Added<Health>{});
    (void)q.count(); // the handle's baseline
    (void)tracked.create_n(20, Health{1});
    CHECK(q.count() == 20);
}
