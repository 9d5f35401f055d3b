// Built on its own for now (g++ tests/main.cpp tests/rollback/test_rollback.cpp -Iinclude -Itests): inside
// ecs_tests its new component types push the process-wide id count past ECS_MAX_COMPONENTS.
// World::copy_from, ecs::Rollback and World::change_tick (world/copy.hpp, rollback.hpp): a world made
// equal to another in place (every storage kind, names, pairs, enable bits, ticks, free list,
// resources), counted lifetimes, zero heap allocations once the shapes match, a random model run
// side by side, and the rollback ring.
#include <ecs/ecs.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "counting.hpp"

// Heap allocations are counted by interposing glibc's malloc family (PodArray grows with realloc,
// so counting operator new alone would miss it). Not under sanitizers, which own malloc.
#if defined(__has_feature)
#  if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#    define ECS_ROLLBACK_NO_COUNT 1
#  endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__GLIBC__)
#  define ECS_ROLLBACK_NO_COUNT 1
#endif

namespace {
bool counting_heap = false;
unsigned long heap_allocations = 0;
} // namespace

#if !defined(ECS_ROLLBACK_NO_COUNT)
extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);
void* malloc(size_t n) {
    if (counting_heap) ++heap_allocations;
    return __libc_malloc(n);
}
void* calloc(size_t n, size_t s) {
    if (counting_heap) ++heap_allocations;
    return __libc_calloc(n, s);
}
void* realloc(void* p, size_t n) {
    if (counting_heap) ++heap_allocations;
    return __libc_realloc(p, n);
}
void* aligned_alloc(size_t a, size_t n) {
    if (counting_heap) ++heap_allocations;
    return __libc_memalign(a, n);
}
void* memalign(size_t a, size_t n) {
    if (counting_heap) ++heap_allocations;
    return __libc_memalign(a, n);
}
int posix_memalign(void** out, size_t a, size_t n) {
    if (counting_heap) ++heap_allocations;
    void* p = __libc_memalign(a, n);
    if (p == nullptr) return 12; // ENOMEM
    *out = p;
    return 0;
}
void free(void* p) { __libc_free(p); }
}
#endif

using ecs::Entity;
using ecs::World;

namespace {
struct Position {
    float x = 0, y = 0, z = 0;
};
struct Velocity {
    float x = 0, y = 0, z = 0;
};
struct Health {
    int hp = 100;
};
struct Frozen {};
struct alignas(64) Wide {
    float lanes[16] = {};
};
struct Text {
    std::string s; // short strings live inside the object: a memcpy copy would dangle
};
struct Poison { // sparse
    int turns = 0;
};
struct Likes {};
struct Score {
    int points = 0;
};
struct Hit {
    int value = 0;
};
using ecs_test::Counted; // shared with other tests: component ids are process-wide and limited
struct Unique {
    std::unique_ptr<int> p;
};
} // namespace

template <>
struct ecs::component_traits<Poison> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};

namespace {
// A runtime component: a plain 8-byte value with a copy function.
struct RtMass {
    double kg = 0;
};
void rt_mass_default(void* p) { ::new (p) RtMass{}; }
void rt_mass_copy(void* d, const void* s) { ::new (d) RtMass(*static_cast<const RtMass*>(s)); }
ecs::ComponentTypeID rt_mass() {
    static const ecs::ComponentTypeID id = [] {
        ecs::ComponentOps ops;
        ops.size = sizeof(RtMass);
        ops.align = alignof(RtMass);
        ops.default_construct = &rt_mass_default;
        ops.copy_construct = &rt_mass_copy;
        return ecs::register_runtime_component("RbRtMass", ops);
    }();
    return id;
}

/// The observable state of one slot, for slot-by-slot comparison.
std::string describe(const World& w, Entity e) {
    std::string out = std::to_string(e.index) + "v" + std::to_string(e.generation) + (w.alive(e) ? " alive" : " dead");
    if (!w.alive(e)) return out;
    if (!w.enabled(e)) out += " off";
    if (const Position* p = w.try_get<Position>(e)) out += " P" + std::to_string(p->x) + "," + std::to_string(p->y);
    if (!w.enabled<Position>(e) && w.has<Position>(e)) out += "(off)";
    if (const Velocity* v = w.try_get<Velocity>(e)) out += " V" + std::to_string(v->x);
    if (const Health* h = w.try_get<Health>(e)) out += " H" + std::to_string(h->hp);
    if (const Text* t = w.try_get<Text>(e)) out += " T(" + t->s + ")";
    if (const Counted* c = w.try_get<Counted>(e)) out += " C" + std::to_string(c->value);
    if (const Wide* wd = w.try_get<Wide>(e)) out += " W" + std::to_string(wd->lanes[15]);
    if (const Poison* p = w.try_get<Poison>(e)) out += " Poison" + std::to_string(p->turns);
    if (w.has<Frozen>(e)) out += " F";
    if (w.has_raw(e, rt_mass())) out += " M" + std::to_string(static_cast<const RtMass*>(w.get_raw(e, rt_mass()))->kg);
    out += " likes" + std::to_string(w.target_count<Likes>(e));
    if (!w.name(e).empty()) out += " name=" + std::string(w.name(e));
    return out;
}

/// Every slot of both worlds (live or not) compared, the free list and iteration order too.
void check_equal(const World& a, const World& b) {
    REQUIRE(a.count() == b.count());
    const auto& ra = ecs::detail::WorldAccess::records(a);
    const auto& rb = ecs::detail::WorldAccess::records(b);
    REQUIRE(ra.size() == rb.size());
    for (uint32_t i = 1; i < ra.size(); ++i) {
        const Entity e{i, ra[i].generation};
        CHECK(rb[i].generation == ra[i].generation);
        CHECK(describe(a, e) == describe(b, e));
    }
    CHECK(ecs::detail::WorldAccess::free_list(a) == ecs::detail::WorldAccess::free_list(b));
}

std::vector<Entity> order(World& w) {
    std::vector<Entity> out;
    w.each<>([&](Entity e) { out.push_back(e); });
    return out;
}

/// A world with every storage kind, names, pairs, enable bits and holes in its free list.
void populate(World& w, int n, int salt) {
    std::vector<Entity> es;
    for (int i = 0; i < n; ++i) {
        const float f = float(i + salt);
        switch (i % 6) {
        case 0: es.push_back(w.create_with(Position{f, 1, 0}, Velocity{f, 0, 0})); break;
        case 1: es.push_back(w.create_with(Position{f, 2, 0}, Text{"s" + std::to_string(i)}, Frozen{})); break;
        case 2: es.push_back(w.create_with(Counted(i + salt), Health{i})); break;
        case 3: es.push_back(w.create_with(Wide{}, Text{std::string(60, 'L')})); break;
        case 4: es.push_back(w.create_with(Health{i * 2})); break;
        default: es.push_back(w.create()); break;
        }
    }
    for (size_t i = 0; i < es.size(); i += 7) w.add(es[i], Poison{int(i)});
    for (size_t i = 3; i < es.size(); i += 5) {
        const RtMass m{double(i) + 0.5};
        (void)w.add_raw(es[i], rt_mass(), &m);
    }
    for (size_t i = 1; i + 1 < es.size(); i += 4) w.relate<Likes>(es[i], es[i + 1]);
    for (size_t i = 0; i < es.size(); i += 9) w.set_name(es[i], "e" + std::to_string(i + size_t(salt)));
    for (size_t i = 2; i < es.size(); i += 11) w.disable(es[i]);
    for (size_t i = 0; i < es.size(); i += 6) w.disable<Position>(es[i]);
    for (size_t i = 4; i < es.size(); i += 13) w.destroy(es[i]);
}
} // namespace

TEST_CASE("copy_from: equal in every storage kind, names, pairs, enable bits and free list", "[rollback]") {
    ecs_test::reset_life();
    {
        World src;
        populate(src, 200, 0);
        World dst;
        populate(dst, 90, 1000); // different values, same archetype order: the fast path
        dst.copy_from(src);
        REQUIRE(dst.check_invariants());
        check_equal(src, dst);
        CHECK(order(src) == order(dst));
        CHECK(dst.archetype_count() == src.archetype_count());
        CHECK(dst.lookup("e9") == src.lookup("e9"));
        // Over-aligned copies are aligned; short strings were copy-constructed, not memcpy'd.
        src.each<const Wide>([&](Entity e, const Wide&) {
            CHECK(reinterpret_cast<uintptr_t>(&dst.get<Wide>(e)) % 64 == 0);
        });
        src.each<const Text>([&](Entity e, const Text& t) {
            CHECK(dst.get<Text>(e).s == t.s);
            CHECK(dst.get<Text>(e).s.data() != t.s.data());
        });
        // The next creates give the same handles (free list reuse order).
        for (int i = 0; i < 20; ++i) CHECK(src.create() == dst.create());
        // The worlds are independent afterwards.
        const Entity e = src.lookup("e0");
        src.get<Position>(e).x = -5;
        CHECK(dst.get<Position>(e).x != -5);
    }
    CHECK((ecs_test::life().alive() == 0 && ecs_test::life().bad_destroys == 0)); // every copy destroyed once, the destination's old values included
}

TEST_CASE("copy_from: a destination with other archetype ids takes the slow path, still equal", "[rollback]") {
    ecs_test::reset_life();
    {
        World src;
        populate(src, 120, 0);
        World dst;
        (void)dst.create_with(Score{1}, Counted(7)); // archetypes src lacks, then src's in another order
        (void)dst.create_with(Health{3});
        (void)dst.create_with(Text{"x"}, Wide{});
        auto q = dst.query<const Health>();
        dst.copy_from(src);
        REQUIRE(dst.check_invariants());
        check_equal(src, dst);
        CHECK(dst.count<Score>() == 0);
        size_t n = 0;
        q.each([&](Entity, const Health&) { ++n; }); // a handle made before the copy stays valid
        CHECK(n == src.count<Health>());
        World back; // and a world with fewer archetypes than src: prefix, fast
        back.copy_from(dst);
        check_equal(dst, back);
        dst.copy_from(back);
        check_equal(back, dst);
    }
    CHECK((ecs_test::life().alive() == 0 && ecs_test::life().bad_destroys == 0));
}

TEST_CASE("copy_from: ticks and the change clock are copied", "[rollback]") {
    World src;
    src.track_changes<Position>();
    const Entity a = src.create_with(Position{1, 0, 0});
    const Entity b = src.create_with(Position{2, 0, 0}, Velocity{});
    auto seen = src.query<const Position>(ecs::Changed<Position>{});
    size_t n = 0;
    seen.each([&](Entity, const Position&) { ++n; });
    CHECK(n == 2);
    src.get<Position>(b).x = 3; // changed after the run
    CHECK(src.change_tick() >= 1);
    World dst;
    dst.copy_from(src);
    CHECK(dst.tracks_changes<Position>());
    CHECK(dst.change_tick() == src.change_tick());
    std::vector<Entity> in_src, in_dst;
    auto q_src = src.query<const Position>(ecs::Changed<Position>{});
    auto q_dst = dst.query<const Position>(ecs::Changed<Position>{});
    (void)a;
    // Each new handle sees every row once; after the copy both see the same rows with the same ticks.
    q_src.each([&](Entity e, const Position&) { in_src.push_back(e); });
    q_dst.each([&](Entity e, const Position&) { in_dst.push_back(e); });
    CHECK(in_src == in_dst);
    src.get<Position>(b).x = 4;
    dst.get<Position>(b).x = 4;
    in_src.clear();
    in_dst.clear();
    q_src.each([&](Entity e, const Position&) { in_src.push_back(e); });
    q_dst.each([&](Entity e, const Position&) { in_dst.push_back(e); });
    CHECK(in_src == std::vector<Entity>{b});
    CHECK(in_dst == in_src);
    CHECK(dst.change_tick() == src.change_tick());
    CHECK(World{}.change_tick() == 0);
}

TEST_CASE("copy_from: copyable resources follow; non-copyable ones stay", "[rollback]") {
    World src, dst;
    src.set_resource(Score{5});
    dst.set_resource(Health{9});                       // copyable, src lacks it: removed
    dst.set_resource(Unique{std::make_unique<int>(1)}); // not copyable: kept
    dst.copy_from(src);
    CHECK(dst.resource<Score>().points == 5);
    CHECK_FALSE(dst.has_resource<Health>());
    REQUIRE(dst.has_resource<Unique>());
    CHECK(*dst.resource<Unique>().p == 1);
    src.resource<Score>().points = 6;
    const Score* before = &dst.resource<Score>();
    dst.copy_from(src);
    CHECK(dst.resource<Score>().points == 6);
    CHECK(&dst.resource<Score>() == before); // copy-assigned in place
}

TEST_CASE("copy_from: no heap allocation once the shapes match", "[rollback]") {
    World src;
    src.track_changes<Position>();
    for (int i = 0; i < 5000; ++i) {
        const Entity e = src.create_with(Position{float(i), 0, 0}, Velocity{}, Health{i});
        if (i % 3 == 0) (void)src.create_with(Wide{}, Text{"short"}, Frozen{});
        if (i % 10 == 0) src.destroy(e);
        if (i % 17 == 0) src.disable(e);
    }
    src.set_resource(Score{1});
    World dst;
    counting_heap = true;
    dst.copy_from(src); // first copy: dst grows (and the counter is seen to count)
    counting_heap = false;
#if !defined(ECS_ROLLBACK_NO_COUNT)
    CHECK(heap_allocations > 0);
#endif
    src.each<Position>([](Position& p) { p.x += 1; });
    counting_heap = true;
    heap_allocations = 0;
    dst.copy_from(src);
    counting_heap = false;
#if !defined(ECS_ROLLBACK_NO_COUNT)
    CHECK(heap_allocations == 0);
#endif
    check_equal(src, dst);
}

TEST_CASE("copy_from: the model: a world and its copy driven side by side", "[rollback]") {
    ecs_test::reset_life();
    {
        std::mt19937 rng(1234);
        World w, copy, mirror;
        std::vector<Entity> live;
        for (int step = 0; step < 400; ++step) {
            const auto op = rng() % 10;
            if (op < 3 || live.empty()) {
                live.push_back(w.create_with(Position{float(step), 0, 0}, Counted(step)));
            } else if (op < 5) {
                const size_t i = rng() % live.size();
                w.destroy(live[i]);
                live.erase(live.begin() + std::ptrdiff_t(i));
            } else if (op < 6) {
                w.add(live[rng() % live.size()], Text{"t" + std::to_string(step)});
            } else if (op < 7) {
                w.add(live[rng() % live.size()], Poison{step});
            } else if (op < 8) {
                w.relate<Likes>(live[rng() % live.size()], live[rng() % live.size()]);
            } else if (op < 9) {
                w.disable(live[rng() % live.size()]);
            } else {
                (void)w.remove<Position>(live[rng() % live.size()]);
            }
            if (step % 7 == 0) {
                copy.copy_from(w);
                REQUIRE(copy.check_invariants());
                check_equal(w, copy);
                CHECK(order(w) == order(copy));
                mirror.copy_from(copy); // a copy of a copy, then the same operation on both
                const Entity a = w.create_with(Health{step});
                const Entity b = mirror.create_with(Health{step});
                CHECK(a == b);
                w.destroy(a);
                mirror.destroy(b);
                check_equal(w, mirror);
            }
        }
    }
    CHECK((ecs_test::life().alive() == 0 && ecs_test::life().bad_destroys == 0));
}

TEST_CASE("rollback: save and load frames; the ring evicts the oldest", "[rollback]") {
    ecs_test::reset_life();
    {
        World w;
        const Entity player = w.create_with(Position{}, Velocity{1, 0, 0}, Counted(0));
        ecs::Rollback rb(w, 4);
        CHECK(rb.capacity() == 4);
        std::vector<Entity> spawned;
        for (int frame = 0; frame < 10; ++frame) {
            rb.save(frame);
            w.get<Position>(player).x = float(frame + 1);
            spawned.push_back(w.create_with(Health{frame}, Text{"f"}));
        }
        CHECK_FALSE(rb.load(5)); // evicted: frames 6..9 are held
        CHECK_FALSE(rb.holds(5));
        CHECK(w.get<Position>(player).x == 10);
        REQUIRE(rb.holds(6));
        REQUIRE(rb.load(7));
        CHECK(w.get<Position>(player).x == 7);
        CHECK(w.count<Health>() == 7);
        CHECK_FALSE(w.alive(spawned[7]));
        CHECK(w.create_with(Health{7}, Text{"f"}) == spawned[7]); // the same handle again
        // Re-simulating overwrites the held frames in place.
        rb.save(8);
        World expected;
        expected.copy_from(w);
        w.get<Position>(player).x = 100;
        REQUIRE(rb.load(8));
        check_equal(expected, w);
        CHECK(rb.load(9));
        CHECK_FALSE(rb.load(42));
    }
    CHECK((ecs_test::life().alive() == 0 && ecs_test::life().bad_destroys == 0));
}

TEST_CASE("rollback: a restored frame is bit for bit the saved one; events after it are dropped", "[rollback]") {
    World w;
    populate(w, 150, 0);
    ecs::Rollback rb(w, 2);
    rb.save(1);
    World saved;
    saved.copy_from(w);
    std::vector<unsigned char> bytes;
    w.each<const Position>([&](const Position& p) {
        const auto* b = reinterpret_cast<const unsigned char*>(&p);
        bytes.insert(bytes.end(), b, b + sizeof p);
    });
    ecs::EventReader<Hit> reader;
    w.send(Hit{1});
    w.each<Position>([](Position& p) { p.x *= 2; });
    populate(w, 40, 500);
    REQUIRE(rb.load(1));
    check_equal(saved, w);
    std::vector<unsigned char> again;
    w.each<const Position>([&](const Position& p) {
        const auto* b = reinterpret_cast<const unsigned char*>(&p);
        again.insert(again.end(), b, b + sizeof p);
    });
    CHECK(again == bytes);
    size_t read = reader.read(w, [](const Hit&) {});
    CHECK(read == 0);
}

TEST_CASE("rollback: save and load allocate nothing after the first lap", "[rollback]") {
    World w;
    for (int i = 0; i < 3000; ++i) (void)w.create_with(Position{float(i), 0, 0}, Velocity{}, Health{i});
    ecs::Rollback rb(w, 3);
    for (int frame = 0; frame < 6; ++frame) {
        rb.save(frame);
        w.each<Position>([](Position& p) { p.x += 1; });
    }
    REQUIRE(rb.load(4));
    counting_heap = true;
    heap_allocations = 0;
    for (int frame = 6; frame < 12; ++frame) {
        rb.save(frame);
        w.each<Position>([](Position& p) { p.x += 1; });
        REQUIRE(rb.load(frame));
    }
    counting_heap = false;
#if !defined(ECS_ROLLBACK_NO_COUNT)
    CHECK(heap_allocations == 0);
#endif
}
