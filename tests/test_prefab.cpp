// Tests for ecs/prefab.hpp: Prefab (creation, copy, move, assignment, lifetimes, alignment) and
// instantiate() (defaults, overrides, extensions, hooks, archetypes, queries).

#include <ecs/prefab.hpp>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "catch.hpp"

namespace {

// ---------------------------------------------------------------------------------------------------
// Instance counting: every constructor registers `this`, every destructor unregisters it, so leaks,
// double destruction and destruction of never-constructed storage are all caught.
// ---------------------------------------------------------------------------------------------------

struct Life {
    long constructed = 0;
    long destroyed = 0;
    long copies = 0;
    long moves = 0;
    long bad_destroys = 0;
    std::set<std::uintptr_t> live;
    long alive() const { return constructed - destroyed; }
};

Life& life() {
    static Life s;
    return s;
}
void reset_life() { life() = Life{}; }
// Addresses are passed as integers: a pointer to a not-yet-initialised object handed to a function
// taking `const void*` makes g++ -O2 warn (-Wmaybe-uninitialized) although nothing is read.
void born_at(std::uintptr_t p) {
    ++life().constructed;
    life().live.insert(p);
}
void died_at(std::uintptr_t p) {
    ++life().destroyed;
    if (life().live.erase(p) == 0) ++life().bad_destroys;
}
#define TRACK_BORN(p) born_at(reinterpret_cast<std::uintptr_t>(p))
#define TRACK_DIED(p) died_at(reinterpret_cast<std::uintptr_t>(p))

/// Counted value; `Tag` makes distinct component types sharing the counters.
template <int Tag>
struct Tracked {
    int value = 0;
    explicit Tracked(int v = 0) : value(v) { TRACK_BORN(this); }
    Tracked(const Tracked& o) : value(o.value) {
        TRACK_BORN(this);
        ++life().copies;
    }
    Tracked(Tracked&& o) noexcept : value(o.value) {
        o.value = -1;
        TRACK_BORN(this);
        ++life().moves;
    }
    Tracked& operator=(const Tracked& o) {
        value = o.value;
        return *this;
    }
    Tracked& operator=(Tracked&& o) noexcept {
        value = o.value;
        o.value = -1;
        return *this;
    }
    ~Tracked() { TRACK_DIED(this); }
};
using TA = Tracked<0>;
using TB = Tracked<1>;
using TC = Tracked<2>;

struct Pos {
    float x = 0, y = 0;
};
struct Vel {
    float dx = 0, dy = 0;
};
struct Health {
    int hp = 0;
};
struct EnemyTag {};
struct Frozen {};
struct Name {
    std::string text;
};

struct alignas(64) Wide {
    float lanes[16] = {};
};
struct Byte {
    uint8_t b = 0;
};

/// Empty, but with user-written special members: stored with one byte per row, not as a tag.
struct EmptyCounted {
    EmptyCounted() { TRACK_BORN(this); }
    EmptyCounted(const EmptyCounted&) {
        TRACK_BORN(this);
        ++life().copies;
    }
    EmptyCounted(EmptyCounted&&) noexcept {
        TRACK_BORN(this);
        ++life().moves;
    }
    ~EmptyCounted() { TRACK_DIED(this); }
};

bool aligned_to(const void* p, uintptr_t a) { return reinterpret_cast<uintptr_t>(p) % a == 0; }

const std::string kShort = "sso";                                              // fits the SSO buffer
const std::string kLong = "a string much longer than any small-string buffer holds inline";

void check_life_clean() {
    CHECK(life().alive() == 0);
    CHECK(life().live.empty());
    CHECK(life().bad_destroys == 0);
}

} // namespace

// ---------------------------------------------------------------------------------------------------
// Prefab creation and queries
// ---------------------------------------------------------------------------------------------------

TEST_CASE("prefab: create stores defaults and answers has/component_count/try_get/types", "[prefab]") {
    const ecs::Prefab p = ecs::Prefab::create(Pos{1, 2}, Vel{3, 4}, Health{100});
    CHECK(p.component_count() == 3);
    CHECK_FALSE(p.empty());
    CHECK(p.has<Pos>());
    CHECK(p.has<const Vel&>());
    CHECK(p.has<Health>());
    CHECK_FALSE(p.has<EnemyTag>());
    REQUIRE(p.try_get<Pos>() != nullptr);
    CHECK(p.get<Pos>().x == 1.0f);
    CHECK(p.get<Pos>().y == 2.0f);
    CHECK(p.get<Vel>().dy == 4.0f);
    CHECK(p.get<Health>().hp == 100);
    CHECK(p.try_get<Frozen>() == nullptr);

    const ecs::TypeSet& types = p.types();
    REQUIRE(types.size() == 3);
    CHECK(std::is_sorted(types.begin(), types.end()));
    CHECK(std::adjacent_find(types.begin(), types.end()) == types.end());
    CHECK(std::find(types.begin(), types.end(), ecs::component_id<Pos>()) != types.end());
    CHECK(std::find(types.begin(), types.end(), ecs::component_id<Vel>()) != types.end());
    CHECK(std::find(types.begin(), types.end(), ecs::component_id<Health>()) != types.end());
}

TEST_CASE("prefab: an empty prefab instantiates an entity without components", "[prefab]") {
    ecs::World w;
    const ecs::Prefab a;
    const ecs::Prefab b = ecs::Prefab::create();
    CHECK(a.empty());
    CHECK(b.component_count() == 0);
    CHECK(a.types().empty());
    const ecs::Entity e = ecs::instantiate(w, a);
    const ecs::Entity f = ecs::instantiate(w, b, Pos{5, 6});
    CHECK(w.alive(e));
    CHECK(w.alive(f));
    CHECK(w.count() == 2);
    CHECK(w.count<Pos>() == 1);
    CHECK(w.get<Pos>(f).y == 6.0f);
    CHECK(w.check_invariants());
}

TEST_CASE("prefab: create copies lvalues and moves rvalues, each exactly once", "[prefab]") {
    reset_life();
    {
        TA lvalue(7);
        SECTION("lvalue") {
            const ecs::Prefab p = ecs::Prefab::create(lvalue);
            CHECK(life().copies == 1);
            CHECK(life().moves == 0);
            CHECK(lvalue.value == 7);
            CHECK(p.get<TA>().value == 7);
        }
        SECTION("const lvalue") {
            const TA& cref = lvalue;
            const ecs::Prefab p = ecs::Prefab::create(cref);
            CHECK(life().copies == 1);
            CHECK(life().moves == 0);
            CHECK(p.get<TA>().value == 7);
        }
        SECTION("rvalue") {
            const ecs::Prefab p = ecs::Prefab::create(std::move(lvalue));
            CHECK(life().copies == 0);
            CHECK(life().moves == 1);
            CHECK(lvalue.value == -1); // moved from
            CHECK(p.get<TA>().value == 7);
        }
        SECTION("prvalue") {
            const ecs::Prefab p = ecs::Prefab::create(TB(9));
            CHECK(life().copies == 0);
            CHECK(life().moves == 1);
            CHECK(p.get<TB>().value == 9);
        }
    }
    check_life_clean();
}

TEST_CASE("prefab: creating prefabs does not touch any world", "[prefab]") {
    ecs::World w;
    (void)w.create_with(Pos{}, Vel{});
    const size_t entities = w.count();
    const size_t archetypes = w.archetype_count();
    const ecs::Prefab p = ecs::Prefab::create(Pos{1, 1}, Vel{2, 2}, Health{3}, EnemyTag{});
    const ecs::Prefab copy = p;
    CHECK(w.count() == entities);
    CHECK(w.count<Pos>() == 1);
    CHECK(w.count<EnemyTag>() == 0);
    CHECK(w.archetype_count() == archetypes);
    size_t visited = 0;
    w.each<Health>([&](ecs::Entity, Health&) { ++visited; });
    CHECK(visited == 0);
}

// ---------------------------------------------------------------------------------------------------
// Copy, move, assignment, destruction
// ---------------------------------------------------------------------------------------------------

TEST_CASE("prefab: copy, move and assignment balance constructions and destructions", "[prefab]") {
    reset_life();
    {
        ecs::Prefab p = ecs::Prefab::create(TA(1), TB(2), Name{kShort});

        SECTION("copy-construct copies every default once") {
            const long before = life().copies;
            const ecs::Prefab q = p;
            CHECK(life().copies - before == 2);
            CHECK(q.get<TA>().value == 1);
            CHECK(q.get<TB>().value == 2);
            CHECK(q.get<Name>().text == kShort);
            CHECK(q.try_get<TA>() != p.try_get<TA>());
            CHECK(life().alive() == 4);
        }
        SECTION("move-construct steals the buffer without touching the defaults") {
            const TA* stored = p.try_get<TA>();
            const long constructed = life().constructed;
            const long destroyed = life().destroyed;
            const ecs::Prefab q = std::move(p);
            CHECK(life().constructed == constructed);
            CHECK(life().destroyed == destroyed);
            CHECK(q.try_get<TA>() == stored);
            CHECK(q.get<Name>().text == kShort);
            CHECK(p.empty());              // NOLINT(bugprone-use-after-move): moved-from is empty
            CHECK(p.component_count() == 0);
            CHECK_FALSE(p.has<TA>());
        }
        SECTION("copy-assign destroys the target's old defaults") {
            ecs::Prefab q = ecs::Prefab::create(TC(30), TA(31));
            CHECK(life().alive() == 4);
            q = p;
            CHECK(life().alive() == 4); // TC and old TA gone, copies of TA and TB in
            CHECK(q.has<TB>());
            CHECK_FALSE(q.has<TC>());
            CHECK(q.get<TA>().value == 1);
            CHECK(q.get<Name>().text == kShort);
            CHECK(q.component_count() == 3);
        }
        SECTION("move-assign destroys the target's old defaults") {
            ecs::Prefab q = ecs::Prefab::create(TC(30), TA(31));
            const long constructed = life().constructed;
            q = std::move(p);
            CHECK(life().constructed == constructed);
            CHECK(life().alive() == 2);
            CHECK(q.get<TA>().value == 1);
            CHECK(q.get<Name>().text == kShort);
            CHECK(p.empty()); // NOLINT(bugprone-use-after-move)
            p = q;            // a moved-from prefab is usable again
            CHECK(p.get<TB>().value == 2);
            CHECK(life().alive() == 4);
        }
        SECTION("self-assignment keeps the defaults") {
            ecs::Prefab& self = p;
            p = self;
            CHECK(life().alive() == 2);
            CHECK(p.get<TA>().value == 1);
            p = std::move(self);
            CHECK(life().alive() == 2);
            CHECK(p.get<TB>().value == 2);
            CHECK(p.get<Name>().text == kShort);
        }
        SECTION("assigning an empty prefab destroys every default") {
            p = ecs::Prefab{};
            CHECK(life().alive() == 0);
            CHECK(p.empty());
        }
        SECTION("swap exchanges without touching defaults") {
            ecs::Prefab q = ecs::Prefab::create(TC(5));
            const long constructed = life().constructed;
            swap(p, q);
            CHECK(life().constructed == constructed);
            CHECK(p.get<TC>().value == 5);
            CHECK(q.get<TA>().value == 1);
        }
        SECTION("a vector of prefabs that reallocates") {
            std::vector<ecs::Prefab> many;
            for (int i = 0; i < 20; ++i) many.push_back(ecs::Prefab::create(TA(i), Name{kShort}));
            for (int i = 0; i < 20; ++i) {
                CHECK(many[size_t(i)].get<TA>().value == i);
                CHECK(many[size_t(i)].get<Name>().text == kShort);
            }
        }
    }
    check_life_clean();
}

TEST_CASE("prefab: short and long string defaults survive copy, move and instantiate", "[prefab]") {
    // Short strings live inside the std::string object: any memcpy relocation would leave them
    // pointing into freed storage (ASan reports it).
    for (const std::string& text : {kShort, kLong}) {
        ecs::World w;
        ecs::Prefab p = ecs::Prefab::create(Name{text}, Health{1});
        ecs::Prefab copy = p;
        ecs::Prefab moved = std::move(copy);
        ecs::Prefab assigned;
        assigned = moved;
        ecs::Prefab move_assigned = ecs::Prefab::create(Name{kLong});
        move_assigned = std::move(assigned);
        std::vector<ecs::Entity> es;
        for (int i = 0; i < 100; ++i) es.push_back(ecs::instantiate(w, (i % 2) ? p : move_assigned));
        p = ecs::Prefab{}; // the entities hold their own copies
        move_assigned = ecs::Prefab{};
        for (ecs::Entity e : es) CHECK(w.get<Name>(e).text == text);
        CHECK(moved.get<Name>().text == text);
        CHECK(w.check_invariants());
    }
}

// ---------------------------------------------------------------------------------------------------
// Alignment
// ---------------------------------------------------------------------------------------------------

TEST_CASE("prefab: over-aligned defaults are stored and instantiated aligned", "[prefab]") {
    Wide wide;
    for (int i = 0; i < 16; ++i) wide.lanes[i] = float(i);
    // A one-byte component first forces padding before the 64-byte-aligned one.
    ecs::Prefab p = ecs::Prefab::create(Byte{7}, wide, Name{kShort}, Health{3});
    REQUIRE(p.try_get<Wide>() != nullptr);
    CHECK(aligned_to(p.try_get<Wide>(), 64));
    CHECK(aligned_to(p.try_get<Name>(), alignof(Name)));
    CHECK(p.get<Wide>().lanes[15] == 15.0f);
    CHECK(p.get<Byte>().b == 7);

    const ecs::Prefab copy = p;
    CHECK(aligned_to(copy.try_get<Wide>(), 64));
    CHECK(copy.get<Wide>().lanes[3] == 3.0f);

    ecs::World w;
    std::vector<ecs::Entity> es;
    for (int i = 0; i < 50; ++i) es.push_back(ecs::instantiate(w, copy));
    es.push_back(ecs::instantiate(w, copy, Frozen{})); // another archetype
    for (ecs::Entity e : es) {
        CHECK(aligned_to(&w.get<Wide>(e), 64));
        CHECK(w.get<Wide>(e).lanes[7] == 7.0f);
        CHECK(w.get<Byte>(e).b == 7);
        CHECK(w.get<Name>(e).text == kShort);
    }
    CHECK(w.check_invariants());
}

// ---------------------------------------------------------------------------------------------------
// instantiate: defaults, overrides, extensions
// ---------------------------------------------------------------------------------------------------

TEST_CASE("prefab: instantiate copies every default", "[prefab]") {
    ecs::World w;
    const ecs::Prefab enemy = ecs::Prefab::create(Pos{1, 2}, Vel{3, 4}, Health{100}, EnemyTag{});
    const ecs::Entity e = ecs::instantiate(w, enemy);
    REQUIRE(w.alive(e));
    CHECK(w.get<Pos>(e).x == 1.0f);
    CHECK(w.get<Vel>(e).dy == 4.0f);
    CHECK(w.get<Health>(e).hp == 100);
    CHECK(w.has<EnemyTag>(e));
    CHECK_FALSE(w.has<Frozen>(e));
    // Entities are independent copies.
    const ecs::Entity f = ecs::instantiate(w, enemy);
    w.get<Health>(e).hp = 5;
    CHECK(w.get<Health>(f).hp == 100);
    CHECK(enemy.get<Health>().hp == 100);
    CHECK(w.check_invariants());
}

TEST_CASE("prefab: overrides replace defaults without copying them", "[prefab]") {
    reset_life();
    {
        ecs::World w;
        const ecs::Prefab p = ecs::Prefab::create(TA(1), TB(2), Health{10});
        // Count from here on: creating the prefab moved its two defaults in.
        const long copies = life().copies;
        const long moves = life().moves;

        SECTION("no override: one copy per default") {
            const ecs::Entity e = ecs::instantiate(w, p);
            CHECK(life().copies - copies == 2);
            CHECK(life().moves - moves == 0);
            CHECK(w.get<TA>(e).value == 1);
        }
        SECTION("rvalue override: moved in, its default not copied") {
            const ecs::Entity e = ecs::instantiate(w, p, TA(50));
            CHECK(life().copies - copies == 1); // TB's default only
            CHECK(life().moves - moves == 1);   // the override
            CHECK(w.get<TA>(e).value == 50);
            CHECK(w.get<TB>(e).value == 2);
            CHECK(w.get<Health>(e).hp == 10);
        }
        SECTION("lvalue override: copied, its default not copied") {
            TA over(60);
            const ecs::Entity e = ecs::instantiate(w, p, over);
            // One copy of the lvalue (it is copied before the world changes, then moved into
            // place) and one copy of TB's default: TA's default is never copied.
            CHECK(life().copies - copies == 2);
            CHECK(over.value == 60);
            CHECK(w.get<TA>(e).value == 60);
            CHECK(w.get<TB>(e).value == 2);
        }
        SECTION("const rvalue override: copied (it cannot be moved from)") {
            const TA over(61);
            const ecs::Entity e = ecs::instantiate(w, p, std::move(over), Health{3});
            CHECK(life().copies - copies == 2); // the override and TB's default
            CHECK(life().moves - moves == 0);
            CHECK(over.value == 61);
            CHECK(w.get<TA>(e).value == 61);
            CHECK(w.get<Health>(e).hp == 3);
        }
        SECTION("every default overridden: no copies at all") {
            const ecs::Entity e = ecs::instantiate(w, p, TB(7), Health{8}, TA(6));
            CHECK(life().copies - copies == 0);
            CHECK(life().moves - moves == 2);
            CHECK(w.get<TA>(e).value == 6);
            CHECK(w.get<TB>(e).value == 7);
            CHECK(w.get<Health>(e).hp == 8);
        }
        CHECK(p.get<TA>().value == 1); // the prefab is never modified
        CHECK(w.check_invariants());
    }
    check_life_clean();
}

TEST_CASE("prefab: overrides of other types extend the entity", "[prefab]") {
    ecs::World w;
    const ecs::Prefab p = ecs::Prefab::create(Pos{1, 1}, Health{5});
    const ecs::Entity e = ecs::instantiate(w, p, Vel{5, 0}, EnemyTag{});
    CHECK(w.get<Pos>(e).x == 1.0f);
    CHECK(w.get<Health>(e).hp == 5);
    CHECK(w.get<Vel>(e).dx == 5.0f);
    CHECK(w.has<EnemyTag>(e));
    CHECK_FALSE(p.has<Vel>()); // the prefab is unchanged
    CHECK(p.component_count() == 2);

    // Mixed: override one default and extend with another type, in any argument order.
    const ecs::Entity f = ecs::instantiate(w, p, Name{kShort}, Pos{9, 8});
    CHECK(w.get<Pos>(f).y == 8.0f);
    CHECK(w.get<Health>(f).hp == 5);
    CHECK(w.get<Name>(f).text == kShort);
    CHECK(w.count<Pos, Health>() == 2);
    CHECK(w.count<Vel>() == 1);
    CHECK(w.count<Name>() == 1);
    CHECK(w.check_invariants());
}

TEST_CASE("prefab: tags in prefabs and as overrides", "[prefab]") {
    ecs::World w;
    const ecs::Prefab p = ecs::Prefab::create(EnemyTag{}, Health{3});
    CHECK(p.has<EnemyTag>());
    CHECK(p.try_get<EnemyTag>() != nullptr);
    const ecs::Entity a = ecs::instantiate(w, p);
    const ecs::Entity b = ecs::instantiate(w, p, EnemyTag{}); // overriding a tag
    const ecs::Entity c = ecs::instantiate(w, p, Frozen{});   // extending with a tag
    for (ecs::Entity e : {a, b, c}) {
        CHECK(w.has<EnemyTag>(e));
        CHECK(w.get<Health>(e).hp == 3);
    }
    CHECK(w.has<Frozen>(c));
    CHECK_FALSE(w.has<Frozen>(a));
    CHECK(w.count<EnemyTag>() == 3);
    CHECK(w.count<Frozen>() == 1);

    // A tag-only prefab.
    const ecs::Prefab tags = ecs::Prefab::create(Frozen{});
    const ecs::Entity d = ecs::instantiate(w, tags);
    CHECK(w.has<Frozen>(d));
    CHECK(w.count<Frozen>() == 2);
    CHECK(w.check_invariants());
}

TEST_CASE("prefab: empty types with special members are constructed and destroyed once", "[prefab]") {
    reset_life();
    {
        ecs::World w;
        const ecs::Prefab p = ecs::Prefab::create(EmptyCounted{}, TA(1));
        CHECK(life().alive() == 2);
        for (int i = 0; i < 10; ++i) (void)ecs::instantiate(w, p);
        (void)ecs::instantiate(w, p, EmptyCounted{});
        CHECK(life().alive() == 2 + 11 * 2);
        CHECK(w.count<EmptyCounted, TA>() == 11);
    }
    check_life_clean();
}

// ---------------------------------------------------------------------------------------------------
// Lifetimes across worlds
// ---------------------------------------------------------------------------------------------------

TEST_CASE("prefab: instance counts balance across instantiate, destroy and world destruction", "[prefab]") {
    reset_life();
    {
        ecs::Prefab p = ecs::Prefab::create(TA(1), TB(2), Name{kShort});
        {
            ecs::World w;
            std::vector<ecs::Entity> es;
            for (int i = 0; i < 300; ++i) { // several block growths
                switch (i % 4) {
                case 0: es.push_back(ecs::instantiate(w, p)); break;
                case 1: es.push_back(ecs::instantiate(w, p, TA(i))); break;
                case 2: es.push_back(ecs::instantiate(w, p, TC(i), Name{kLong})); break;
                default: {
                    TB lvalue(i);
                    es.push_back(ecs::instantiate(w, p, lvalue, Frozen{}));
                }
                }
            }
            CHECK(life().alive() == 2 + 300 * 2 + 300 / 4);
            for (size_t i = 0; i < es.size(); i += 3) w.destroy(es[i]);
            for (size_t i = 0; i < es.size(); ++i) {
                if (i % 3 == 0) continue;
                const int expected_a = (i % 4 == 1) ? int(i) : 1;
                const int expected_b = (i % 4 == 3) ? int(i) : 2;
                CHECK(w.get<TA>(es[i]).value == expected_a);
                CHECK(w.get<TB>(es[i]).value == expected_b);
                CHECK(w.get<Name>(es[i]).text == ((i % 4 == 2) ? kLong : kShort));
            }
            CHECK(w.check_invariants());
            // Instantiating the same prefab into a second world at the same time.
            ecs::World other;
            const ecs::Entity o = ecs::instantiate(other, p, TA(77));
            CHECK(other.get<TA>(o).value == 77);
            CHECK(other.count() == 1);
        }
        CHECK(life().alive() == 2); // only the prefab's defaults are left
        CHECK(p.get<TB>().value == 2);
    }
    check_life_clean();
}

TEST_CASE("prefab: lvalue overrides referring into the growing archetype stay valid", "[prefab]") {
    ecs::World w;
    const ecs::Prefab p = ecs::Prefab::create(Name{kShort}, Health{1});
    std::vector<ecs::Entity> es;
    es.push_back(ecs::instantiate(w, p, Name{"first"}));
    const ecs::Archetype* arch = nullptr;
    for (const auto& a : ecs::detail::WorldAccess::archetypes(w))
        if (a->size() == 1) arch = &*a;
    REQUIRE(arch != nullptr);
    // Fill the archetype to capacity so the next instantiation reallocates its block.
    while (arch->size() < arch->capacity()) es.push_back(ecs::instantiate(w, p));
    const size_t capacity = arch->capacity();
    const ecs::Entity e = ecs::instantiate(w, p, w.get<Name>(es[0]), w.get<Health>(es[1]));
    CHECK(arch->capacity() > capacity);
    CHECK(w.get<Name>(e).text == "first");
    CHECK(w.get<Name>(es[0]).text == "first");
    CHECK(w.get<Health>(e).hp == 1);
    CHECK(w.check_invariants());
}

// ---------------------------------------------------------------------------------------------------
// Archetypes: the entity is created directly in its final archetype
// ---------------------------------------------------------------------------------------------------

TEST_CASE("prefab: instantiate creates no intermediate archetypes", "[prefab]") {
    const ecs::Prefab p = ecs::Prefab::create(Pos{}, Vel{}, Health{});

    SECTION("without overrides: exactly the prefab's archetype") {
        ecs::World w;
        const size_t base = w.archetype_count();
        (void)ecs::instantiate(w, p);
        CHECK(w.archetype_count() == base + 1);
        (void)w.create_with(Health{}, Pos{}, Vel{}); // same set: no new archetype
        CHECK(w.archetype_count() == base + 1);
        (void)ecs::instantiate(w, p, Vel{1, 1}); // overriding keeps the set
        CHECK(w.archetype_count() == base + 1);
    }
    SECTION("with extensions: exactly the union archetype, same count as create_with") {
        ecs::World a;
        (void)ecs::instantiate(a, p, Frozen{}, Name{kShort}, Pos{2, 2});
        ecs::World b;
        (void)b.create_with(Pos{}, Vel{}, Health{}, Frozen{}, Name{});
        CHECK(a.archetype_count() == b.archetype_count());
        CHECK(a.archetype_count() == 2); // the empty archetype and the union
        (void)a.create_with(Name{}, Frozen{}, Health{}, Vel{}, Pos{});
        CHECK(a.archetype_count() == 2);
        CHECK(a.count<Pos, Vel, Health, Frozen, Name>() == 2);
    }
    SECTION("the entity shares its archetype with create_with of the same set") {
        ecs::World w;
        const ecs::Entity made = w.create_with(Pos{}, Vel{}, Health{}, EnemyTag{});
        const ecs::Entity inst = ecs::instantiate(w, p, EnemyTag{});
        const auto& records = ecs::detail::WorldAccess::records(w);
        CHECK(records[made.index].archetype == records[inst.index].archetype);
        CHECK(w.check_invariants());
    }
}

// ---------------------------------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------------------------------

TEST_CASE("prefab: instantiated entities show up in each and count, prefabs do not", "[prefab]") {
    ecs::World w;
    const ecs::Prefab p = ecs::Prefab::create(Pos{1, 0}, Health{2});
    (void)w.create_with(Pos{100, 0});
    std::set<ecs::Entity> made;
    for (int i = 0; i < 40; ++i) made.insert(ecs::instantiate(w, p, Pos{float(i), 0}));
    for (int i = 0; i < 10; ++i) made.insert(ecs::instantiate(w, p, Vel{}));
    CHECK(w.count() == 51);
    CHECK(w.count<Pos>() == 51);
    CHECK(w.count<Health>() == 50);
    CHECK(w.count<Health, Vel>() == 10);
    std::set<ecs::Entity> seen;
    float sum = 0;
    w.each<Pos, const Health>([&](ecs::Entity e, Pos& pos, const Health& h) {
        CHECK(h.hp == 2);
        sum += pos.x;
        CHECK(seen.insert(e).second);
    });
    CHECK(seen == made);
    CHECK(sum == float(39 * 40 / 2 + 10));
    size_t excluded = 0;
    w.each<Health>(ecs::Exclude<Vel>{}, [&](ecs::Entity, Health&) { ++excluded; });
    CHECK(excluded == 40);
}

// ---------------------------------------------------------------------------------------------------
// Observers
// ---------------------------------------------------------------------------------------------------

TEST_CASE("prefab: on_add fires for every component, defaults, overrides and extensions", "[prefab]") {
    ecs::World w;
    std::vector<std::string> order;
    w.on_add<Pos>([&](ecs::World& world, ecs::Entity e, Pos& p) {
        CHECK(&world.get<Pos>(e) == &p); // the record is up to date inside the hook
        order.push_back("Pos" + std::to_string(int(p.x)));
    });
    w.on_add<Health>([&](ecs::World& world, ecs::Entity e, Health& h) {
        CHECK(world.get<Health>(e).hp == h.hp);
        CHECK(world.has<Pos>(e)); // every component is in place before any hook fires
        order.push_back("Health" + std::to_string(h.hp));
    });
    w.on_add<EnemyTag>([&](ecs::World& world, ecs::Entity e, EnemyTag&) {
        CHECK(world.has<EnemyTag>(e));
        order.push_back("EnemyTag");
    });
    w.on_add<Vel>([&](ecs::World& world, ecs::Entity e, Vel& v) {
        CHECK(world.get<Vel>(e).dx == v.dx);
        order.push_back("Vel" + std::to_string(int(v.dx)));
    });
    w.on_add<Name>([&](ecs::World& world, ecs::Entity e, Name& n) {
        CHECK(&world.get<Name>(e) == &n);
        order.push_back("Name:" + n.text);
    });

    const ecs::Prefab p = ecs::Prefab::create(Health{7}, EnemyTag{}, Pos{1, 0});
    SECTION("defaults fire in create() order") {
        (void)ecs::instantiate(w, p);
        CHECK(order == std::vector<std::string>{"Health7", "EnemyTag", "Pos1"});
    }
    SECTION("overrides fire at their prefab position, extensions after, in argument order") {
        (void)ecs::instantiate(w, p, Name{kShort}, Pos{9, 0}, Vel{3, 0});
        CHECK(order == std::vector<std::string>{"Health7", "EnemyTag", "Pos9", "Name:sso", "Vel3"});
    }
    SECTION("hooks also fire for copies of the prefab") {
        const ecs::Prefab copy = p;
        (void)ecs::instantiate(w, copy, Vel{4, 0});
        CHECK(order == std::vector<std::string>{"Health7", "EnemyTag", "Pos1", "Vel4"});
    }
}

TEST_CASE("prefab: hooks that instantiate more entities into the same archetype", "[prefab]") {
    // A hook may change OTHER entities; here it grows the archetype the new entity lives in, so the
    // library must re-find the entity's row for each following hook.
    ecs::World w;
    const ecs::Prefab p = ecs::Prefab::create(Name{kShort}, Health{1});
    int spawned_by_hook = 0;
    std::vector<ecs::Entity> outer;
    w.on_add<Name>([&](ecs::World& world, ecs::Entity, Name& n) {
        if (n.text == "spawner" && spawned_by_hook < 40) {
            for (int i = 0; i < 20; ++i, ++spawned_by_hook) (void)ecs::instantiate(world, p, Health{100 + i});
        }
    });
    int health_hooks = 0;
    w.on_add<Health>([&](ecs::World& world, ecs::Entity e, Health& h) {
        ++health_hooks;
        CHECK(&world.get<Health>(e) == &h);
    });
    for (int i = 0; i < 2; ++i) outer.push_back(ecs::instantiate(w, p, Name{"spawner"}, Health{-i}));
    CHECK(spawned_by_hook == 40);
    CHECK(health_hooks == 42);
    CHECK(w.count() == 42);
    for (int i = 0; i < 2; ++i) {
        CHECK(w.get<Name>(outer[size_t(i)]).text == "spawner");
        CHECK(w.get<Health>(outer[size_t(i)]).hp == -i);
    }
    size_t visits = 0;
    w.each<Name, Health>([&](ecs::Entity, Name&, Health&) { ++visits; });
    CHECK(visits == 42);
    CHECK(w.check_invariants());
}

// ---------------------------------------------------------------------------------------------------
// Deferred use
// ---------------------------------------------------------------------------------------------------

TEST_CASE("prefab: spawning from a query by collecting, then instantiating after it", "[prefab]") {
    // instantiate() is a structural change and is refused inside each(); the supported pattern is
    // to collect what to spawn and instantiate once the loop has returned.
    ecs::World w;
    const ecs::Prefab bullet = ecs::Prefab::create(Pos{}, Vel{0, 1}, Health{1});
    for (int i = 0; i < 5; ++i) (void)w.create_with(Pos{float(i), 0}, EnemyTag{});
    std::vector<Pos> spawn_at;
    w.each<const Pos, EnemyTag>([&](ecs::Entity, const Pos& p, EnemyTag&) {
        CHECK(w.iterating());
        spawn_at.push_back(p);
    });
    CHECK_FALSE(w.iterating());
    for (const Pos& p : spawn_at) REQUIRE(ecs::instantiate(w, bullet, p) != ecs::INVALID_ENTITY);
    CHECK(w.count<Vel>() == 5);
    CHECK(w.count<Pos>() == 10);
    CHECK(w.check_invariants());
}

// ---------------------------------------------------------------------------------------------------
// Archetype lookup hints (instantiate remembers where it found the archetype last time)
// ---------------------------------------------------------------------------------------------------

namespace {

ecs::TypeSet sorted_ids(std::initializer_list<ecs::ComponentTypeID> ids) {
    ecs::TypeSet set(ids);
    std::sort(set.begin(), set.end());
    return set;
}

const ecs::TypeSet& archetype_types(ecs::World& w, ecs::Entity e) {
    return ecs::detail::WorldAccess::records(w)[e.index].archetype->types;
}

} // namespace

TEST_CASE("prefab: archetype hints never pick a wrong archetype across worlds and prefabs", "[prefab]") {
    const ecs::Prefab p = ecs::Prefab::create(Pos{1, 0}, Health{1});
    const ecs::Prefab q = ecs::Prefab::create(Vel{2, 0}, Health{2});
    const ecs::TypeSet p_set = sorted_ids({ecs::component_id<Pos>(), ecs::component_id<Health>()});
    const ecs::TypeSet q_set = sorted_ids({ecs::component_id<Vel>(), ecs::component_id<Health>()});
    const ecs::TypeSet p_ext = sorted_ids({ecs::component_id<Pos>(), ecs::component_id<Health>(), ecs::component_id<Frozen>()});
    const ecs::TypeSet q_ext = sorted_ids({ecs::component_id<Vel>(), ecs::component_id<Health>(), ecs::component_id<Frozen>()});

    for (int round = 0; round < 4; ++round) {
        // Fresh worlds each round (often at the same addresses as the last ones), whose archetype
        // lists are ordered differently, so a hint from one world names another set in the next.
        ecs::World a;
        ecs::World b;
        if (round % 2) (void)a.create_with(Vel{}, Health{}, Frozen{});
        (void)b.create_with(Name{}, Health{});
        (void)b.create_with(Vel{}, Health{});
        for (int i = 0; i < 3; ++i) {
            const ecs::Entity e1 = ecs::instantiate(a, p);
            const ecs::Entity e2 = ecs::instantiate(b, p);
            const ecs::Entity e3 = ecs::instantiate(b, q);
            const ecs::Entity e4 = ecs::instantiate(a, q);
            // The same extension pack with two prefabs and two worlds.
            const ecs::Entity e5 = ecs::instantiate(a, p, Frozen{});
            const ecs::Entity e6 = ecs::instantiate(b, q, Frozen{});
            const ecs::Entity e7 = ecs::instantiate(b, p, Frozen{});
            const ecs::Entity e8 = ecs::instantiate(a, q, Frozen{});
            CHECK(archetype_types(a, e1) == p_set);
            CHECK(archetype_types(b, e2) == p_set);
            CHECK(archetype_types(b, e3) == q_set);
            CHECK(archetype_types(a, e4) == q_set);
            CHECK(archetype_types(a, e5) == p_ext);
            CHECK(archetype_types(b, e6) == q_ext);
            CHECK(archetype_types(b, e7) == p_ext);
            CHECK(archetype_types(a, e8) == q_ext);
            CHECK(a.get<Pos>(e5).x == 1.0f);
            CHECK(b.get<Vel>(e6).dx == 2.0f);
        }
        // A superset archetype at the hinted position must not be taken for the prefab's own.
        (void)ecs::instantiate(a, p, Frozen{});
        CHECK(archetype_types(a, ecs::instantiate(a, p)) == p_set);
        CHECK(a.check_invariants());
        CHECK(b.check_invariants());
        CHECK(a.count<Pos, Health>() == 3 * 2 + 2);
    }
    // Copies and moved-to prefabs carry the hint; it stays only a hint.
    ecs::World c;
    (void)c.create_with(Pos{}, Health{}, Name{});
    ecs::Prefab copy = p;
    ecs::Prefab moved = std::move(copy);
    CHECK(archetype_types(c, ecs::instantiate(c, moved)) == p_set);
}

#if defined(__cpp_exceptions)
namespace {

/// Throws from its copy constructor once `throw_countdown` reaches zero.
int throw_countdown = -1;
struct ThrowingCopy {
    int value = 0;
    explicit ThrowingCopy(int v) : value(v) { TRACK_BORN(this); }
    ThrowingCopy(const ThrowingCopy& o) : value(o.value) {
        if (throw_countdown >= 0 && throw_countdown-- == 0) throw 42;
        TRACK_BORN(this);
    }
    ThrowingCopy(ThrowingCopy&& o) noexcept : value(o.value) { TRACK_BORN(this); }
    ~ThrowingCopy() { TRACK_DIED(this); }
};

} // namespace

TEST_CASE("prefab: a throwing copy constructor leaks nothing and leaves the target unchanged", "[prefab]") {
    reset_life();
    {
        const ecs::Prefab p = ecs::Prefab::create(TA(1), ThrowingCopy(2), Name{kLong});
        ecs::Prefab target = ecs::Prefab::create(TB(3));
        const long alive = life().alive();
        throw_countdown = 0; // TA is copied first, then ThrowingCopy throws
        bool thrown = false;
        try {
            const ecs::Prefab copy = p;
        } catch (int) {
            thrown = true;
        }
        CHECK(thrown);
        CHECK(life().alive() == alive); // the TA copy was destroyed again
        throw_countdown = 0;
        thrown = false;
        try {
            target = p;
        } catch (int) {
            thrown = true;
        }
        CHECK(thrown);
        CHECK(life().alive() == alive);
        CHECK(target.component_count() == 1);
        REQUIRE(target.try_get<TB>() != nullptr);
        CHECK(target.get<TB>().value == 3);
        throw_countdown = -1;
        target = p;
        CHECK(target.get<ThrowingCopy>().value == 2);
    }
    check_life_clean();
}
#endif

// ---------------------------------------------------------------------------------------------------
// Audit against SPEC 0.9 §3.11
// ---------------------------------------------------------------------------------------------------

TEST_CASE("prefab: an extending override only needs to be movable (copy-constructible is for defaults)",
          "[prefab]") {
    ecs::World w;
    const ecs::Prefab p = ecs::Prefab::create(Pos{1, 2}, Health{3});
    const ecs::Entity e = ecs::instantiate(w, p, std::make_unique<int>(42), Pos{5, 6});
    REQUIRE(w.alive(e));
    REQUIRE(w.has<std::unique_ptr<int>>(e));
    REQUIRE(w.get<std::unique_ptr<int>>(e) != nullptr);
    CHECK(*w.get<std::unique_ptr<int>>(e) == 42);
    CHECK(w.get<Pos>(e).x == 5);
    CHECK(w.get<Health>(e).hp == 3);
    CHECK_FALSE(p.has<std::unique_ptr<int>>());
    CHECK(p.component_count() == 2);
}

TEST_CASE("prefab: instances are copies, editing one changes neither the prefab nor later instances",
          "[prefab]") {
    ecs::World w;
    const ecs::Prefab p = ecs::Prefab::create(Pos{1, 2}, Name{"ab"});
    const ecs::Entity first = ecs::instantiate(w, p);
    w.get<Pos>(first).x = 100;
    w.get<Name>(first).text = "changed";
    w.add(first, Vel{1, 1});
    CHECK(p.get<Pos>().x == 1);
    CHECK(p.get<Name>().text == "ab");
    CHECK(p.component_count() == 2);
    const ecs::Entity second = ecs::instantiate(w, p);
    CHECK(w.get<Pos>(second).x == 1);
    CHECK(w.get<Name>(second).text == "ab");
    CHECK_FALSE(w.has<Vel>(second));
    CHECK(w.get<Pos>(first).x == 100);
}
