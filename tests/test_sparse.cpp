// Sparse storage (ROADMAP 1.0 C): component_traits<T>::storage = Storage::sparse. Adding or removing a
// sparse component never moves the entity; the value's address is stable until it is removed or the
// entity destroyed; sparse components work everywhere a component does (has/get/try_get/add/remove,
// query terms and filters, hooks, deferred commands, prefabs, snapshots, change tracking, enable bits,
// clone, each_component). Every object constructed is destroyed exactly once.
#include <ecs/command_buffer.hpp>
#include <ecs/parallel.hpp>
#include <ecs/prefab.hpp>
#include <ecs/serialization.hpp>
#include <ecs/world.hpp>

#include <algorithm>
#include <cstdint>
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
/// Sparse kinds: plain, short string, over-aligned, a tag, counted.
struct Poisoned {
    int damage = 0;
};
struct Nick {
    std::string text; // short strings live in the object: PITFALLS 2
};
struct alignas(64) Shield {
    float lanes[16] = {};
    int id = 0;
};
struct Marked {};
struct SparseCounted {
    Counted c;
    explicit SparseCounted(int v = 0) : c(v) {}
};
} // namespace

template <>
struct ecs::component_traits<Poisoned> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};
template <>
struct ecs::component_traits<Nick> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};
template <>
struct ecs::component_traits<Shield> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};
template <>
struct ecs::component_traits<Marked> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};
template <>
struct ecs::component_traits<SparseCounted> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};

static_assert(ecs::detail::is_sparse_v<Poisoned> && ecs::detail::is_sparse_v<const Nick&>, "traits");
static_assert(!ecs::detail::is_sparse_v<Position>, "table by default");

namespace {

std::vector<Entity> sorted(std::vector<Entity> v) {
    std::sort(v.begin(), v.end(), [](Entity a, Entity b) { return a.index < b.index; });
    return v;
}

template <typename Q>
std::vector<Entity> visit_handle(const Q& q) {
    std::vector<Entity> out;
    q.each([&](Entity e, auto&&...) { out.push_back(e); });
    return out;
}

template <typename... Terms, typename... Filters>
std::vector<Entity> visit(World& w, Filters... filters) {
    std::vector<Entity> out;
    w.each<Terms...>(filters..., [&](Entity e, auto&&...) { out.push_back(e); });
    return out;
}

} // namespace

TEST_CASE("sparse: add and remove never move the entity", "[sparse]") {
    World w;
    const Entity a = w.create_with(Position{1, 2}, Velocity{3, 4});
    const Entity b = w.create_with(Position{5, 6}, Velocity{7, 8});
    const size_t archetypes = w.archetype_count();
    const Position* pa = &w.get<Position>(a);
    const Velocity* vb = &w.get<Velocity>(b);
    CHECK_FALSE(w.has<Poisoned>(a));
    CHECK(w.try_get<Poisoned>(a) == nullptr);
    w.add(a, Poisoned{7});
    CHECK(w.has<Poisoned>(a));
    CHECK(w.get<Poisoned>(a).damage == 7);
    CHECK(w.archetype_count() == archetypes);
    CHECK(&w.get<Position>(a) == pa);
    CHECK(&w.get<Velocity>(b) == vb);
    const Poisoned* pp = &w.get<Poisoned>(a);
    w.add(a, Poisoned{9}); // overwrite in place
    CHECK(&w.get<Poisoned>(a) == pp);
    CHECK(w.get<Poisoned>(a).damage == 9);
    w.add<Marked>(b);
    CHECK(w.has<Marked>(b));
    CHECK_FALSE(w.has<Marked>(a));
    w.remove<Poisoned>(a);
    CHECK_FALSE(w.has<Poisoned>(a));
    CHECK(&w.get<Position>(a) == pa);
    w.remove<Poisoned>(a); // absent: no-op
    CHECK(w.archetype_count() == archetypes);
    CHECK(w.check_invariants());
    const World& cw = w;
    CHECK(cw.try_get<Marked>(b) != nullptr);
    CHECK(cw.get<Position>(b).x == 5);
}

TEST_CASE("sparse: values keep their address across other adds, migrations and removals", "[sparse]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 50; ++i) es.push_back(w.create_with(Position{float(i), 0}));
    w.add(es[0], Nick{"a"});
    w.add(es[0], Shield{{}, 1});
    const Nick* nick = &w.get<Nick>(es[0]);
    const Shield* shield = &w.get<Shield>(es[0]);
    CHECK(reinterpret_cast<uintptr_t>(shield) % 64 == 0);
    // Other components of the same entity: migrations.
    w.add(es[0], Velocity{});
    w.add(es[0], Health{3});
    w.remove<Position>(es[0]);
    // Many other entities' sparse components: new pages.
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < 5000; ++i) {
            const Entity e = w.create_with(Health{i});
            w.add(e, Nick{std::to_string(i)});
            w.add(e, Shield{{}, i});
            if (i % 3 == 0) w.remove<Nick>(e);
            if (i % 5 == 0) w.destroy(e);
        }
        for (int i = 1; i < 50; ++i) {
            w.add(es[size_t(i)], Nick{"n" + std::to_string(i)});
            if (i % 2 == 0) w.remove<Nick>(es[size_t(i)]);
        }
    }
    CHECK(&w.get<Nick>(es[0]) == nick);
    CHECK(&w.get<Shield>(es[0]) == shield);
    CHECK(nick->text == "a");
    CHECK(shield->id == 1);
    size_t aligned = 0;
    w.each<const Shield>([&](const Shield& s) { aligned += reinterpret_cast<uintptr_t>(&s) % 64 == 0 ? 1 : 0; });
    CHECK(aligned == w.count<Shield>());
    for (int i = 1; i < 50; ++i)
        if (i % 2 == 1) CHECK(w.get<Nick>(es[size_t(i)]).text == "n" + std::to_string(i));
    CHECK(w.check_invariants());
}

TEST_CASE("sparse: counted lifetimes, and destroy destroys sparse components once, on_remove first", "[sparse]") {
    reset_life();
    {
        World w;
        std::vector<std::string> log;
        w.on_remove<SparseCounted>([&](World& world, Entity e, SparseCounted& c) {
            CHECK(world.has<SparseCounted>(e));
            log.push_back("remove " + std::to_string(c.c.value));
        });
        std::vector<Entity> es;
        for (int i = 0; i < 100; ++i) {
            es.push_back(w.create_with(Position{}));
            w.add(es.back(), SparseCounted{i});
        }
        CHECK(life().alive() == 100);
        w.add(es[3], SparseCounted{300}); // overwrite: old destroyed, new constructed
        CHECK(life().alive() == 100);
        w.destroy(es[0]);
        CHECK(log == std::vector<std::string>{"remove 0"});
        CHECK(life().alive() == 99);
        w.remove<SparseCounted>(es[1]);
        CHECK(life().alive() == 98);
        w.destroy(es[1]); // nothing sparse left: no hook
        CHECK(log.size() == 2);
        {
            World copy = w.clone();
            CHECK(life().alive() == 2 * 98);
            CHECK(copy.get<SparseCounted>(es[3]).c.value == 300);
            CHECK(copy.check_invariants());
        }
        CHECK(life().alive() == 98);
        World moved = std::move(w);
        CHECK(moved.get<SparseCounted>(es[5]).c.value == 5);
        moved.destroy(es[5]);
        CHECK(log.back() == "remove 5"); // hooks still reach sparse values after the move
    }
    CHECK(life().alive() == 0);
    CHECK(life().bad_destroys == 0);
}

TEST_CASE("sparse: hooks fire in order and may create and destroy other entities", "[sparse]") {
    World w;
    std::vector<std::string> log;
    std::vector<Entity> victims;
    w.on_add<Nick>([&](World& world, Entity e, Nick& n) {
        log.push_back("add " + n.text);
        CHECK(&world.get<Nick>(e) == &n);
        if (!victims.empty()) {
            const Entity victim = victims.back(); // popped first: destroying it runs hooks that come back here
            victims.pop_back();
            world.destroy(victim);
        }
        const Entity spawned = world.create_with(Position{});
        world.add(spawned, Poisoned{1});
    });
    w.on_set<Nick>([&](World&, Entity, Nick& n) { log.push_back("set " + n.text); });
    w.on_remove<Nick>([&](World& world, Entity, Nick& n) {
        log.push_back("remove " + n.text);
        (void)world.create_with(Position{}, Nick{"from remove"});
    });
    for (int i = 0; i < 20; ++i) {
        const Entity v = w.create_with(Position{float(i), 0});
        w.add(v, Nick{"v"});
        victims.push_back(v);
    }
    CHECK(victims.size() < 20); // hooks destroyed victims (their on_remove hooks add Nicks, whose on_add destroy more)
    CHECK(w.check_invariants());
    victims.clear();
    log.clear();
    const Entity e = w.create_with(Velocity{});
    w.add(e, Nick{"x"});
    CHECK(log == std::vector<std::string>{"add x", "set x"});
    log.clear();
    w.add(e, Nick{"y"});
    CHECK(log == std::vector<std::string>{"set y"});
    log.clear();
    w.remove<Nick>(e);
    CHECK(log == std::vector<std::string>{"remove y", "add from remove"}); // create_with: no on_set
    CHECK(w.check_invariants());
    std::set<uint32_t> seen;
    w.each<const Nick>([&](Entity x, const Nick&) { CHECK(seen.insert(x.index).second); });
    CHECK(seen.size() == w.count<Nick>());
}

TEST_CASE("sparse: queries test sparse terms and filters row by row", "[sparse]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 30; ++i) {
        es.push_back(i % 2 == 0 ? w.create_with(Position{float(i), 0}) : w.create_with(Position{float(i), 0}, Velocity{}));
        if (i % 3 == 0) w.add(es.back(), Poisoned{i});
        if (i % 5 == 0) w.add(es.back(), Marked{});
    }
    std::vector<Entity> poisoned, poisoned_vel, not_poisoned, marked_poisoned;
    for (int i = 0; i < 30; ++i) {
        if (i % 3 == 0) poisoned.push_back(es[size_t(i)]);
        if (i % 3 == 0 && i % 2 == 1) poisoned_vel.push_back(es[size_t(i)]);
        if (i % 3 != 0) not_poisoned.push_back(es[size_t(i)]);
        if (i % 3 == 0 && i % 5 == 0) marked_poisoned.push_back(es[size_t(i)]);
    }
    CHECK(sorted(visit<Poisoned>(w)) == sorted(poisoned));
    CHECK(sorted(visit<const Position, Poisoned>(w)) == sorted(poisoned));
    CHECK(sorted(visit<Position, const Velocity, Poisoned>(w)) == sorted(poisoned_vel));
    CHECK(sorted(visit<Position>(w, ecs::With<Poisoned>{})) == sorted(poisoned));
    CHECK(sorted(visit<Position>(w, ecs::Without<Poisoned>{})) == sorted(not_poisoned));
    CHECK(sorted(visit<Poisoned>(w, ecs::With<Marked>{})) == sorted(marked_poisoned));
    CHECK(sorted(visit<Marked, const Poisoned>(w)) == sorted(marked_poisoned));
    w.each<const Position, Poisoned>([&](const Position& p, Poisoned& x) { CHECK(float(x.damage) == p.x); });
    size_t with = 0;
    w.each<const Position, ecs::Optional<const Poisoned>>([&](Entity e, const Position& p, const Poisoned* x) {
        CHECK((x != nullptr) == w.has<Poisoned>(e));
        if (x) {
            CHECK(float(x->damage) == p.x);
            ++with;
        }
    });
    CHECK(with == poisoned.size());
    CHECK(w.count<Poisoned>() == poisoned.size());
    CHECK(w.count<Position, Poisoned>() == poisoned.size());
    CHECK(w.count<Velocity, Poisoned>() == poisoned_vel.size());
    auto q = w.query<Position>(ecs::Without<Poisoned>{}, ecs::With<Velocity>{});
    size_t n = 0;
    q.each([&](Entity e, Position&) {
        CHECK_FALSE(w.has<Poisoned>(e));
        ++n;
    });
    CHECK(q.count() == n);
    CHECK(n == 10);
    size_t no_entity = 0;
    w.each_no_entity<Poisoned>([&](Poisoned&) { ++no_entity; });
    CHECK(no_entity == poisoned.size());
    // Chunks hold only rows that pass; sparse values are not columns (get gives nullptr).
    std::vector<Entity> chunked;
    w.query<const Position, Poisoned>().each_chunk([&](ecs::Chunk& c) {
        CHECK(c.get<Poisoned>() == nullptr);
        CHECK(c.get<const Position>() != nullptr);
        for (size_t i = 0; i < c.size(); ++i) chunked.push_back(c.entities()[i]);
    });
    CHECK(chunked == visit<const Position, Poisoned>(w));
    CHECK(w.query<Poisoned>().first() == visit<Poisoned>(w).front());
    CHECK_FALSE(w.query<Poisoned>().empty());
    // single
    const Entity lone = w.create_with(Health{1});
    w.add(lone, Nick{"only"});
    std::string got;
    w.single<Nick>([&](Entity e, Nick& nick) {
        CHECK(e == lone);
        got = nick.text;
    });
    CHECK(got == "only");
    w.single<const Health, Nick>([&](Entity e, const Health& h, Nick&) {
        CHECK(e == lone);
        CHECK(h.hp == 1);
    });
}

TEST_CASE("sparse: a query over sparse types only visits every entity that has them", "[sparse]") {
    World w;
    std::vector<Entity> expected;
    for (int i = 0; i < 100; ++i) {
        const Entity e = i % 4 == 0 ? w.create() : i % 4 == 1 ? w.create_with(Position{}) : w.create_with(Health{i});
        if (i % 7 < 3) {
            w.add(e, Nick{std::to_string(i)});
            w.add(e, Poisoned{i});
            expected.push_back(e);
        } else if (i % 7 == 3) {
            w.add(e, Nick{"lonely"});
        }
    }
    std::vector<Entity> got;
    w.each<const Nick, Poisoned>([&](Entity e, const Nick& n, Poisoned& p) {
        CHECK(n.text == std::to_string(p.damage));
        got.push_back(e);
    });
    CHECK(sorted(got) == sorted(expected));
    CHECK(w.query<Nick, Poisoned>().count() == expected.size());
}

TEST_CASE("sparse: enable bits work on sparse components", "[sparse][enable]") {
    World w;
    const Entity a = w.create_with(Position{});
    const Entity b = w.create_with(Position{});
    w.add(a, Poisoned{1});
    w.add(b, Poisoned{2});
    CHECK(w.enabled<Poisoned>(a));
    w.disable<Poisoned>(a);
    CHECK_FALSE(w.enabled<Poisoned>(a));
    CHECK(w.has<Poisoned>(a));
    CHECK(w.get<Poisoned>(a).damage == 1);
    CHECK(visit<Poisoned>(w) == std::vector<Entity>{b});
    CHECK(visit<Position>(w, ecs::Without<Poisoned>{}) == std::vector<Entity>{a});
    w.each<Position, ecs::Optional<Poisoned>>([&](Entity e, Position&, Poisoned* p) { CHECK((p != nullptr) == (e == b)); });
    CHECK(w.count<Poisoned>() == 1);
    w.disable(b);
    CHECK(visit<Poisoned>(w).empty());
    CHECK(visit<Poisoned>(w, ecs::IncludeDisabled{}) == std::vector<Entity>{b});
    w.enable<Poisoned>(a);
    CHECK(visit<Poisoned>(w) == std::vector<Entity>{a});
    CHECK_FALSE(w.enabled<Nick>(a));
    w.disable<Poisoned>(b);
    w.remove<Poisoned>(b);
    w.add(b, Poisoned{3});
    CHECK(w.enabled<Poisoned>(b)); // added back: enabled
    CHECK(w.check_invariants());
}

TEST_CASE("sparse: change tracking", "[sparse][change]") {
    World w;
    w.track_changes<Poisoned>();
    auto changed = w.query<const Poisoned>(ecs::Changed<Poisoned>{});
    auto added = w.query<const Position>(ecs::Added<Poisoned>{});
    const Entity a = w.create_with(Position{});
    const Entity b = w.create_with(Position{});
    w.add(a, Poisoned{1});
    w.add(b, Poisoned{2});
    CHECK(sorted(visit_handle(changed)) == sorted({a, b}));
    CHECK(sorted(visit_handle(added)) == sorted({a, b}));
    CHECK(visit_handle(changed).empty());
    CHECK(visit_handle(added).empty());
    w.get<Poisoned>(b).damage = 5; // mutable get
    CHECK(visit_handle(changed) == std::vector<Entity>{b});
    (void)w.get<const Poisoned>(a); // const access: not a change
    CHECK(visit_handle(changed).empty());
    w.patch<Poisoned>(a, [](Poisoned& p) { ++p.damage; });
    w.mark_changed<Poisoned>(b);
    CHECK(sorted(visit_handle(changed)) == sorted({a, b}));
    w.each<Poisoned>([](Poisoned&) {}); // a mutable term
    CHECK(changed.count() == 2);
    CHECK(visit_handle(added).empty());
    w.remove<Poisoned>(a);
    w.add(a, Poisoned{9});
    CHECK(visit_handle(added) == std::vector<Entity>{a});
}

TEST_CASE("sparse: deferred commands and command buffers", "[sparse]") {
    World w;
    const Entity a = w.create_with(Position{});
    w.deferred().add(a, Nick{"deferred"});
    w.deferred().add<Marked>(a);
    w.deferred().create_with(Position{3, 0}, Nick{"created"}, Poisoned{3});
    CHECK_FALSE(w.has<Nick>(a));
    w.flush_deferred();
    CHECK(w.get<Nick>(a).text == "deferred");
    CHECK(w.has<Marked>(a));
    CHECK(w.count<Nick, Poisoned>() == 1);
    ecs::CommandBuffer cb;
    cb.remove<Nick>(a);
    cb.add(a, Poisoned{4});
    w.each<const Nick>([&](Entity e, const Nick&) {
        if (e != a) cb.destroy(e);
    });
    cb.flush(w);
    CHECK_FALSE(w.has<Nick>(a));
    CHECK(w.get<Poisoned>(a).damage == 4);
    CHECK(w.count<Nick>() == 0);
    CHECK(w.count() == 1);
    CHECK(w.check_invariants());
}

TEST_CASE("sparse: deferred create_with a sparse value first returns a handle alive with both after the flush", "[sparse]") {
    World w;
    const Entity e = w.deferred().create_with(Nick{"reserved"}, Position{1, 2});
    CHECK(e != ecs::INVALID_ENTITY);
    CHECK_FALSE(w.alive(e));
    w.flush_deferred();
    REQUIRE(w.alive(e));
    REQUIRE(w.has<Nick>(e));
    REQUIRE(w.has<Position>(e));
    CHECK(w.get<Nick>(e).text == "reserved");
    CHECK(w.get<Position>(e).x == 1);
    CHECK(w.get<Position>(e).y == 2);
    CHECK(w.count<Nick, Position>() == 1);
    CHECK(w.check_invariants());
}

TEST_CASE("sparse: create_with mixes table and sparse values, on_add in pack order", "[sparse]") {
    World w;
    std::vector<std::string> log;
    w.on_add<Nick>([&](World&, Entity, Nick&) { log.push_back("Nick"); });
    w.on_add<Position>([&](World&, Entity, Position&) { log.push_back("Position"); });
    w.on_add<Poisoned>([&](World&, Entity, Poisoned&) { log.push_back("Poisoned"); });
    const Nick lvalue{"copied"};
    const Entity e = w.create_with(Nick{"n"}, Position{1, 2}, Poisoned{3});
    CHECK(log == std::vector<std::string>{"Nick", "Position", "Poisoned"});
    CHECK(w.get<Nick>(e).text == "n");
    CHECK(w.get<Position>(e).y == 2);
    CHECK(w.get<Poisoned>(e).damage == 3);
    const Entity f = w.create_with(lvalue);
    CHECK(w.get<Nick>(f).text == "copied");
    CHECK(w.count<Nick>() == 2);
    // Many at once: the table archetype's block grows while the values come from the caller.
    for (int i = 0; i < 200; ++i) (void)w.create_with(Position{float(i), 0}, Shield{{}, i});
    CHECK(w.count<Position, Shield>() == 200);
    CHECK(w.check_invariants());
}

TEST_CASE("sparse: each_component visits sparse components in id order", "[sparse]") {
    World w;
    const Entity e = w.create_with(Position{1, 0}, Health{2});
    w.add(e, Poisoned{3});
    w.add(e, Nick{"n"});
    std::vector<ecs::ComponentTypeID> ids;
    w.each_component(e, [&](ecs::ComponentTypeID id, void* p) {
        ids.push_back(id);
        if (id == ecs::component_id<Poisoned>()) CHECK(static_cast<Poisoned*>(p)->damage == 3);
        if (id == ecs::component_id<Nick>()) CHECK(static_cast<Nick*>(p)->text == "n");
    });
    CHECK(ids.size() == 4);
    CHECK(std::is_sorted(ids.begin(), ids.end()));
    CHECK(ecs::component_info(ecs::component_id<Poisoned>()).sparse);
    CHECK_FALSE(ecs::component_info(ecs::component_id<Position>()).sparse);
}

TEST_CASE("sparse: query observers see sparse adds, removes and toggles", "[sparse]") {
    World w;
    std::vector<std::string> log;
    w.on_enter<Position, Poisoned>([&](World&, Entity) { log.push_back("enter PP"); });
    w.on_leave<Position, Poisoned>([&](World&, Entity) { log.push_back("leave PP"); });
    w.on_enter<Position>(ecs::Without<Poisoned>{}, [&](World&, Entity) { log.push_back("enter P!P"); });
    w.on_leave<Position>(ecs::Without<Poisoned>{}, [&](World&, Entity) { log.push_back("leave P!P"); });
    const Entity e = w.create_with(Position{});
    CHECK(log == std::vector<std::string>{"enter P!P"});
    log.clear();
    w.add(e, Poisoned{});
    CHECK(log == std::vector<std::string>{"leave P!P", "enter PP"});
    log.clear();
    w.add(e, Velocity{}); // table migration: sparse state unchanged, nothing fires
    CHECK(log.empty());
    w.disable<Poisoned>(e);
    CHECK(log == std::vector<std::string>{"leave PP", "enter P!P"});
    log.clear();
    w.enable<Poisoned>(e);
    CHECK(log == std::vector<std::string>{"leave P!P", "enter PP"});
    log.clear();
    w.remove<Poisoned>(e);
    CHECK(log == std::vector<std::string>{"leave PP", "enter P!P"});
    log.clear();
    w.add(e, Poisoned{});
    log.clear();
    w.destroy(e);
    CHECK(log == std::vector<std::string>{"leave PP"});
}

TEST_CASE("sparse: adding and removing during iteration is allowed", "[sparse]") {
    World w;
    for (int i = 0; i < 100; ++i) (void)w.create_with(Health{i});
    w.each<const Health>([&](Entity e, const Health& h) {
        if (h.hp % 2 == 0) w.add(e, Poisoned{h.hp});
    });
    CHECK(w.count<Poisoned>() == 50);
    w.each<const Health, Poisoned>([&](Entity e, const Health&, Poisoned& p) {
        if (p.damage % 4 == 0) w.remove<Poisoned>(e);
    });
    CHECK(w.count<Poisoned>() == 25);
    CHECK(w.check_invariants());
}

TEST_CASE("sparse: each_par over sparse terms equals a sequential each", "[sparse]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 5000; ++i) {
        es.push_back(w.create_with(Position{float(i), 0}));
        if (i % 2 == 0) w.add(es.back(), Poisoned{i});
    }
    ecs::ThreadPool pool(2);
    w.each_par<Position, const Poisoned>(pool, [](Position& p, const Poisoned& x) { p.y = float(x.damage); });
    for (int i = 0; i < 5000; ++i) CHECK(w.get<Position>(es[size_t(i)]).y == (i % 2 == 0 ? float(i) : 0.f));
}

// -------------------------------------------------------------------------------------------------
// Snapshots
// -------------------------------------------------------------------------------------------------

namespace {

void nick_write(std::ostream& out, const void* p) {
    const std::string& s = static_cast<const Nick*>(p)->text;
    const uint32_t n = static_cast<uint32_t>(s.size());
    out.write(reinterpret_cast<const char*>(&n), 4);
    out.write(s.data(), static_cast<std::streamsize>(n));
}
void nick_read(std::istream& in, void* storage) {
    uint32_t n = 0;
    if (!in.read(reinterpret_cast<char*>(&n), 4) || n > 4096) {
        in.setstate(std::ios_base::failbit);
        return;
    }
    std::string s(n, '\0');
    if (!in.read(&s[0], static_cast<std::streamsize>(n))) return;
    ::new (storage) Nick{s};
}

void register_sparse_types() {
    static const bool once = [] {
        ecs::register_component<Position>("sparse.Position");
        ecs::register_component<Health>("sparse.Health");
        ecs::register_component<Poisoned>("sparse.Poisoned");
        ecs::register_component<Nick>("sparse.Nick", &nick_write, &nick_read);
        ecs::register_component<Shield>("sparse.Shield");
        ecs::register_component<Marked>("sparse.Marked");
        return true;
    }();
    (void)once;
}

std::string snapshot_of(const World& w) {
    std::ostringstream out;
    ecs::serialize(w, out);
    return out.str();
}

} // namespace

TEST_CASE("sparse: snapshots round-trip sparse components and their enable state", "[sparse][serialization]") {
    register_sparse_types();
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 300; ++i) {
        es.push_back(i % 3 == 0 ? w.create() : w.create_with(Position{float(i), 0}, Health{i}));
        if (i % 2 == 0) w.add(es.back(), Poisoned{i});
        if (i % 5 == 0) w.add(es.back(), Nick{std::to_string(i)});
        if (i % 7 == 0) w.add(es.back(), Shield{{}, i});
        if (i % 11 == 0) w.add<Marked>(es.back());
    }
    for (int i = 0; i < 300; i += 13) w.destroy(es[size_t(i)]);
    for (int i = 2; i < 300; i += 8) w.disable<Poisoned>(es[size_t(i)]);
    w.disable<Nick>(es[5]);
    w.disable(es[10]);
    const std::string bytes = snapshot_of(w);
    REQUIRE_FALSE(bytes.empty());
    World loaded;
    std::istringstream in(bytes);
    const ecs::DeserializeResult r = ecs::deserialize(loaded, in);
    INFO(r.message);
    REQUIRE(r);
    CHECK(loaded.check_invariants());
    for (int i = 0; i < 300; ++i) {
        const Entity e = es[size_t(i)];
        CHECK(loaded.alive(e) == w.alive(e));
        if (!w.alive(e)) continue;
        CHECK(loaded.has<Poisoned>(e) == w.has<Poisoned>(e));
        CHECK(loaded.has<Nick>(e) == w.has<Nick>(e));
        CHECK(loaded.has<Shield>(e) == w.has<Shield>(e));
        CHECK(loaded.has<Marked>(e) == w.has<Marked>(e));
        CHECK(loaded.enabled<Poisoned>(e) == w.enabled<Poisoned>(e));
        CHECK(loaded.enabled<Nick>(e) == w.enabled<Nick>(e));
        CHECK(loaded.enabled(e) == w.enabled(e));
        if (w.has<Poisoned>(e)) CHECK(loaded.get<Poisoned>(e).damage == i);
        if (w.has<Nick>(e)) CHECK(loaded.get<Nick>(e).text == std::to_string(i));
        if (w.has<Shield>(e)) {
            CHECK(loaded.get<Shield>(e).id == i);
            CHECK(reinterpret_cast<uintptr_t>(&loaded.get<Shield>(e)) % 64 == 0);
        }
    }
    CHECK(loaded.count<Poisoned>() == w.count<Poisoned>());
    CHECK(loaded.count<Nick, Poisoned>() == w.count<Nick, Poisoned>());
    CHECK(snapshot_of(loaded) == bytes);
}

TEST_CASE("sparse: a damaged sparse section leaves the target world empty", "[sparse][serialization]") {
    register_sparse_types();
    reset_life();
    World w;
    const Entity a = w.create_with(Position{});
    w.add(a, Nick{"short"});
    w.add(a, Poisoned{1});
    const std::string good = snapshot_of(w);
    const size_t tag_at = good.find("SPRS");
    REQUIRE(tag_at != std::string::npos);
    for (size_t at = tag_at; at < good.size() - 4; ++at) {
        std::string bad = good;
        bad[at] = char(bad[at] ^ 0x01);
        World target;
        std::istringstream in(bad);
        const ecs::DeserializeResult r = ecs::deserialize(target, in);
        CHECK_FALSE(r); // every flipped bit: the checksum
        CHECK(target.count() == 0);
        CHECK(target.check_invariants());
    }
    // A snapshot whose sparse section names a slot without a live entity.
    std::string dead = good;
    const size_t slot_at = good.find("sparse.Nick") + std::string("sparse.Nick").size() + 8; // size, count, slot
    ecs::detail::put_u32(reinterpret_cast<unsigned char*>(&dead[slot_at]), 42);
    const uint32_t crc = ecs::detail::Crc32c::of(dead.data() + 20, dead.size() - 24);
    ecs::detail::put_u32(reinterpret_cast<unsigned char*>(&dead[dead.size() - 4]), crc);
    World target;
    std::istringstream in(dead);
    CHECK(ecs::deserialize(target, in).error == ecs::DeserializeError::entity_out_of_range);
    CHECK(target.count() == 0);
    CHECK(target.count<Poisoned>() == 0);
    CHECK(target.check_invariants());
}

TEST_CASE("sparse: prefabs carry sparse defaults and take sparse overrides", "[sparse][prefab]") {
    reset_life();
    {
        World w;
        std::vector<std::string> log;
        w.on_add<Nick>([&](World& world, Entity e, Nick& n) {
            CHECK(&world.get<Nick>(e) == &n);
            log.push_back("Nick " + n.text);
        });
        w.on_add<Position>([&](World&, Entity, Position&) { log.push_back("Position"); });
        w.on_add<SparseCounted>([&](World&, Entity, SparseCounted& c) { log.push_back("Counted " + std::to_string(c.c.value)); });
        const ecs::Prefab prefab = ecs::Prefab::create(Nick{"default"}, Position{1, 2}, SparseCounted{7}, Marked{});
        CHECK(prefab.types().size() == 1); // only Position is in the archetype
        CHECK(prefab.has<Nick>());
        const size_t archetypes = w.archetype_count();
        const Entity a = ecs::instantiate(w, prefab);
        CHECK(log == std::vector<std::string>{"Nick default", "Position", "Counted 7"});
        CHECK(w.get<Nick>(a).text == "default");
        CHECK(w.get<SparseCounted>(a).c.value == 7);
        CHECK(w.has<Marked>(a));
        CHECK(w.get<Position>(a).y == 2);
        log.clear();
        const Entity b = ecs::instantiate(w, prefab, Nick{"override"}, Poisoned{3}, Health{4});
        CHECK(log == std::vector<std::string>{"Nick override", "Position", "Counted 7"});
        CHECK(w.get<Nick>(b).text == "override");
        CHECK(w.get<Poisoned>(b).damage == 3);
        CHECK(w.get<Health>(b).hp == 4);
        CHECK(w.archetype_count() <= archetypes + 2); // {Position} and {Position, Health}
        CHECK(w.get<Nick>(a).text == "default");
        CHECK(prefab.get<Nick>().text == "default");
        CHECK(w.count<Nick, Position>() == 2);
        CHECK(w.check_invariants());
        w.destroy(a);
    }
    CHECK(life().alive() == 0);
    CHECK(life().bad_destroys == 0);
}

// -------------------------------------------------------------------------------------------------
// Queries whose required types are all sparse: the smallest required set drives the run
// -------------------------------------------------------------------------------------------------

namespace {

/// True when `e` holds `T` enabled: what a required type needs, and what an excluded type must not be.
template <typename T>
bool holds(const World& w, Entity e) {
    return w.has<T>(e) && w.enabled<T>(e);
}

/// A seeded world of table and sparse types, with destroyed and re-created entities (stale slots),
/// disabled entities and components, and removed sparse values; `live` gets its live entities.
void build_mixed(World& w, std::vector<Entity>& live, uint32_t seed) {
    std::mt19937 rng(seed);
    auto chance = [&](unsigned pct) { return rng() % 100u < pct; };
    for (int i = 0; i < 600; ++i) {
        const Entity e = chance(30) ? w.create()
                         : chance(50) ? w.create_with(Position{float(i), 0})
                                      : w.create_with(Position{float(i), 0}, Velocity{1, 0});
        if (chance(20)) w.add(e, Health{i});
        if (chance(40)) w.add(e, Poisoned{i});
        if (chance(25)) w.add(e, Nick{std::to_string(i)}); // short strings
        if (chance(10)) w.add(e, Shield{{}, i});
        if (chance(30)) w.add<Marked>(e);
        live.push_back(e);
    }
    for (int i = 0; i < 150; ++i) { // slots freed, then reused by new entities with a new generation
        const size_t k = rng() % live.size();
        w.destroy(live[k]);
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
    }
    for (int i = 0; i < 100; ++i) {
        const Entity e = w.create_with(Health{1000 + i});
        if (chance(60)) w.add(e, Poisoned{1000 + i});
        if (chance(50)) w.add(e, Nick{"r" + std::to_string(i)});
        if (chance(30)) w.add<Marked>(e);
        live.push_back(e);
    }
    for (const Entity e : live) {
        if (chance(5)) w.disable(e);
        if (chance(10) && w.has<Poisoned>(e)) w.disable<Poisoned>(e);
        if (chance(10) && w.has<Velocity>(e)) w.disable<Velocity>(e);
        if (chance(10) && w.has<Nick>(e)) w.disable<Nick>(e);
        if (chance(8)) w.remove<Poisoned>(e);
    }
}

/// Compares world.each, a handle's each / count / first and each_no_entity of a query with the
/// entities of `live` passing `expected`; every entity visited once.
template <typename... Terms, typename Pred, typename... Filters>
void check_against(World& w, const std::vector<Entity>& live, Pred expected, Filters... filters) {
    std::vector<Entity> want;
    for (const Entity e : live)
        if (expected(e)) want.push_back(e);
    const std::vector<Entity> got = visit<Terms...>(w, filters...);
    const std::vector<Entity> by_slot = sorted(got);
    CHECK(std::adjacent_find(by_slot.begin(), by_slot.end()) == by_slot.end()); // once each
    CHECK(by_slot == sorted(want));
    for (const Entity e : got) CHECK(w.alive(e)); // current handles, not stale ones
    auto q = w.query<Terms...>(filters...);
    CHECK(visit_handle(q) == got); // the handle's order is world.each's
    CHECK(q.count() == want.size());
    CHECK(q.first() == (got.empty() ? ecs::INVALID_ENTITY : got.front()));
    size_t no_entity = 0;
    w.each_no_entity<Terms...>(filters..., [&](auto&&...) { ++no_entity; });
    CHECK(no_entity == want.size());
}

} // namespace

TEST_CASE("sparse-driven: queries over sparse types only match a brute-force check", "[sparse][driven]") {
    for (uint32_t seed = 1; seed <= 6; ++seed) {
        INFO("seed " << seed);
        World w;
        std::vector<Entity> live;
        build_mixed(w, live, seed);
        REQUIRE(w.check_invariants());
        auto on = [&](Entity e) { return w.enabled(e); };
        check_against<Poisoned>(w, live, [&](Entity e) { return on(e) && holds<Poisoned>(w, e); });
        check_against<const Poisoned, Nick>(w, live, [&](Entity e) { return on(e) && holds<Poisoned>(w, e) && holds<Nick>(w, e); });
        check_against<Poisoned>(w, live, [&](Entity e) { return on(e) && holds<Poisoned>(w, e) && !holds<Velocity>(w, e); },
                                ecs::Without<Velocity>{}); // a table type excluded
        check_against<Poisoned>(w, live, [&](Entity e) { return on(e) && holds<Poisoned>(w, e) && !holds<Nick>(w, e); },
                                ecs::Without<Nick>{}); // a sparse type excluded
        check_against<Poisoned>(w, live, [&](Entity e) { return on(e) && holds<Poisoned>(w, e) && holds<Marked>(w, e); },
                                ecs::With<Marked>{}); // a sparse tag
        check_against<Marked>(w, live, [&](Entity e) { return on(e) && holds<Marked>(w, e); });
        check_against<const Shield>(w, live,
                                    [&](Entity e) { return on(e) && holds<Shield>(w, e) && !holds<Health>(w, e) && !holds<Marked>(w, e); },
                                    ecs::Without<Health, Marked>{});
        check_against<Poisoned>(w, live,
                                [&](Entity e) { return on(e) && holds<Poisoned>(w, e) && (holds<Velocity>(w, e) || holds<Nick>(w, e)); },
                                ecs::AnyOf<Velocity, Nick>{});
        check_against<Poisoned>(w, live, [&](Entity e) { return holds<Poisoned>(w, e); }, ecs::IncludeDisabled{});
        CHECK(w.count<Poisoned, Nick>() == visit<Poisoned, Nick>(w).size());

        // Values: the entity's own objects; Optional terms (table and sparse) as try_get with enable bits.
        size_t visits = 0;
        w.each<const Poisoned, ecs::Optional<Position>, ecs::Optional<const Nick>, ecs::Optional<const Shield>>(
            [&](Entity e, const Poisoned& p, Position* pos, const Nick* nick, const Shield* shield) {
                ++visits;
                CHECK(&p == w.try_get<const Poisoned>(e));
                CHECK(pos == (holds<Position>(w, e) ? w.try_get<Position>(e) : nullptr));
                CHECK(nick == (holds<Nick>(w, e) ? w.try_get<const Nick>(e) : nullptr));
                CHECK(shield == (holds<Shield>(w, e) ? w.try_get<const Shield>(e) : nullptr));
                if (pos != nullptr) CHECK(int(pos->x) == p.damage); // created together, same i
                if (nick != nullptr && p.damage < 600) CHECK(nick->text == std::to_string(p.damage));
            });
        CHECK(visits == visit<Poisoned>(w).size());

        // each_raw over sparse ids only: the same members, the same objects.
        const ecs::ComponentTypeID ids[2] = {ecs::component_id<Nick>(), ecs::component_id<Poisoned>()};
        std::vector<Entity> raw;
        w.each_raw(ids, 2, [&](Entity e, void* const* c) {
            raw.push_back(e);
            CHECK(c[0] == w.try_get<const Nick>(e));
            CHECK(c[1] == w.try_get<const Poisoned>(e));
        });
        CHECK(sorted(raw) == sorted(visit<Poisoned, Nick>(w)));

        // A clone walks its own sets: current handles of the clone.
        World copy = w.clone();
        CHECK(copy.check_invariants());
        CHECK(sorted(visit<Poisoned, Nick>(copy)) == sorted(visit<Poisoned, Nick>(w)));
    }
}

TEST_CASE("sparse-driven: the smallest set drives, in its slot order", "[sparse][driven]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 6; ++i) es.push_back(w.create_with(Position{float(i), 0}));
    const Entity a = es[0], b = es[1], c = es[2], d = es[3];
    w.add(c, Poisoned{2});
    w.add(a, Poisoned{0});
    w.add(b, Poisoned{1});
    CHECK(visit<Poisoned>(w) == std::vector<Entity>{c, a, b}); // the order the values were added in
    w.remove<Poisoned>(a);
    w.add(d, Poisoned{3}); // takes the slot a freed
    CHECK(visit<Poisoned>(w) == std::vector<Entity>{c, d, b});
    for (const Entity e : {b, c, d, a}) w.add(e, Nick{"n"});
    // Poisoned has 3 members, Nick 4: Poisoned drives.
    CHECK(visit<Poisoned, const Nick>(w) == std::vector<Entity>{c, d, b});
    w.add(a, Poisoned{0});
    w.remove<Nick>(a);
    w.remove<Nick>(d);
    // Now Nick (b, c) is the smaller set: its order.
    CHECK(visit<Poisoned, const Nick>(w) == std::vector<Entity>{b, c});
    CHECK(visit<const Nick, Poisoned>(w) == std::vector<Entity>{b, c});
    CHECK(w.query<Poisoned, Nick>().first() == b);
    w.remove<Nick>(c);
    w.single<Nick, const Poisoned>([&](Entity e, Nick&, const Poisoned& p) { // exactly one match
        CHECK(e == b);
        CHECK(p.damage == 1);
    });
}

TEST_CASE("sparse-driven: changes during the run, and structural changes deferred", "[sparse][driven]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 200; ++i) {
        es.push_back(w.create_with(Health{i}));
        if (i % 2 == 0) w.add(es.back(), Poisoned{i});
    }
    std::vector<Entity> visited;
    w.each<Poisoned>([&](Entity e, Poisoned& p) {
        CHECK(w.iterating());
        visited.push_back(e);
        const int d = p.damage;
        w.remove<Poisoned>(e); // removed and added again: not met a second time
        w.add(e, Poisoned{d});
        if (d + 1 < 200) w.add(es[size_t(d + 1)], Poisoned{d + 1}); // added during the run: not visited by it
        if (d % 10 == 0 && d + 2 < 200) w.remove<Poisoned>(es[size_t(d + 2)]); // removed before its turn: skipped
        if (d % 7 == 0) w.deferred().destroy(e); // structural: deferred to the flush
        size_t nested = 0;
        w.each<const Health>(ecs::With<Poisoned>{}, [&](const Health&) { ++nested; }); // a nested read-only run
        CHECK(nested != 0);
    });
    std::vector<Entity> expected;
    for (int i = 0; i < 200; i += 2)
        if (!(i % 10 == 2)) expected.push_back(es[size_t(i)]);
    CHECK(sorted(visited) == sorted(expected));
    CHECK(w.check_invariants());
    w.flush_deferred();
    for (int i = 0; i < 200; i += 2) CHECK(w.alive(es[size_t(i)]) == !(i % 7 == 0 && i % 10 != 2));
    CHECK(w.count<Poisoned>() == visit<Poisoned>(w).size());
    CHECK(w.check_invariants());
}

TEST_CASE("sparse-driven: Changed and Added on sparse types, stamps of mutable terms", "[sparse][driven][change]") {
    World w;
    w.track_changes<Poisoned>();
    w.track_changes<Nick>();
    w.track_changes<Position>();
    auto added = w.query<const Nick>(ecs::Added<Poisoned>{});
    auto changed = w.query<const Poisoned>(ecs::Changed<Nick>{});
    const Entity a = w.create_with(Position{});
    const Entity b = w.create_with(Position{});
    const Entity c = w.create();
    for (const Entity e : {a, b, c}) w.add(e, Nick{"n"});
    w.add(a, Poisoned{1});
    w.add(b, Poisoned{2});
    CHECK(added.count() == 2); // count and first do not advance the progress
    CHECK(added.first() == a);
    CHECK(visit_handle(added) == std::vector<Entity>{a, b});
    CHECK(visit_handle(added).empty());
    w.add(c, Poisoned{3});
    CHECK(visit_handle(added) == std::vector<Entity>{c});
    CHECK(sorted(visit_handle(changed)) == sorted({a, b, c}));
    CHECK(visit_handle(changed).empty());
    w.get<Nick>(b).text = "x";
    CHECK(visit_handle(changed) == std::vector<Entity>{b});
    // A mutable sparse term stamps the members it visits, and only them.
    w.add<Marked>(a);
    w.each<Nick>(ecs::Without<Marked>{}, [](Nick&) {});
    CHECK(sorted(visit_handle(changed)) == sorted({b, c}));
    // A mutable Optional table term stamps the visited members' rows.
    auto moved = w.query<const Position>(ecs::Changed<Position>{});
    (void)visit_handle(moved);
    w.disable<Poisoned>(b);
    w.each<const Poisoned, ecs::Optional<Position>>([](const Poisoned&, Position*) {});
    CHECK(visit_handle(moved) == std::vector<Entity>{a});
}

TEST_CASE("sparse-driven: counted values, short strings and over-aligned values stay whole", "[sparse][driven]") {
    reset_life();
    {
        World w;
        std::vector<Entity> es;
        for (int i = 0; i < 300; ++i) {
            es.push_back(w.create());
            if (i % 2 == 0) w.add(es.back(), SparseCounted{i});
            if (i % 3 != 0) w.add(es.back(), Nick{"s" + std::to_string(i)});
            if (i % 5 == 0) w.add(es.back(), Shield{{}, i});
        }
        size_t visits = 0;
        w.each<SparseCounted, Nick>([&](Entity e, SparseCounted& sc, Nick& n) {
            ++visits;
            CHECK(n.text == "s" + std::to_string(sc.c.value));
            const int v = sc.c.value;
            w.remove<Nick>(e); // the value is destroyed; a new short string takes a fresh slot
            w.add(e, Nick{"t" + std::to_string(v)});
            if (v % 4 == 0) w.remove<SparseCounted>(e); // destroyed during the run, once
        });
        CHECK(visits == 100);
        w.each<const Nick, const SparseCounted>([&](const Nick& n, const SparseCounted& sc) { CHECK(n.text == "t" + std::to_string(sc.c.value)); });
        size_t shields = 0;
        w.each<Shield>([&](Entity e, Shield& s) {
            ++shields;
            CHECK(reinterpret_cast<uintptr_t>(&s) % alignof(Shield) == 0);
            CHECK(es[size_t(s.id)] == e);
        });
        CHECK(shields == 60);
        CHECK(life().alive() == 150 - 50);
        CHECK(w.check_invariants());
    }
    CHECK(life().alive() == 0);
    CHECK(life().bad_destroys == 0);
}
