// Deferred commands and the standalone CommandBuffer (SPEC §3.6), with instance counting, paging,
// over-aligned, oversized, move-only and short-string (SSO) payloads.
#include <ecs/command_buffer.hpp>
#include <ecs/world.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "lifetime.hpp"

using ecs::CommandBuffer;
using ecs::Entity;
using ecs::World;

namespace {

struct Pos {
    int x = 0, y = 0;
};
struct Vel {
    int dx = 0, dy = 0;
};
struct Hp {
    int value = 0;
};
struct Frozen {};

struct ItemTag {};
using Item = lifetime::Counted<ItemTag>;

/// 40 KiB: larger than one 16 KiB page of the command queue.
struct Huge {
    static constexpr size_t WORDS = 10 * 1024;
    explicit Huge(int seed) : item(seed) {
        for (size_t i = 0; i < WORDS; ++i) words[i] = pattern(seed, i);
    }
    static uint32_t pattern(int seed, size_t i) {
        return static_cast<uint32_t>(seed) * 2654435761u + static_cast<uint32_t>(i) * 40503u;
    }
    [[nodiscard]] bool intact(int seed) const {
        if (item.value() != seed) return false;
        for (size_t i = 0; i < WORDS; ++i)
            if (words[i] != pattern(seed, i)) return false;
        return true;
    }
    Item item;
    std::array<uint32_t, WORDS> words{};
};

/// Over-aligned payload that reports every constructor, move source and destructor touching an
/// address that is not 64-aligned.
struct alignas(64) Wide {
    explicit Wide(int v) : item(v) { check(this); }
    Wide(const Wide& other) : item(other.item) {
        check(this);
        check(&other);
    }
    Wide(Wide&& other) noexcept : item(std::move(other.item)) {
        check(this);
        check(&other);
    }
    Wide& operator=(const Wide&) = default;
    Wide& operator=(Wide&&) = default;
    ~Wide() { check(this); }
    static void check(const void* p) {
        if (reinterpret_cast<uintptr_t>(p) % 64 != 0) ++misaligned();
    }
    static int& misaligned() {
        static int n = 0;
        return n;
    }
    Item item;
    float lanes[8] = {};
};

/// Odd-sized payload used to shift record offsets between over-aligned records.
struct Odd {
    char bytes[3] = {'a', 'b', 'c'};
};

struct Name {
    std::string text;
};

/// A short string: libstdc++ and libc++ both keep it inside the object (SSO).
std::string short_text(int i) { return "n" + std::to_string(i); }

/// Number of positions where `a` and `b` differ (sizes included), compared character by character.
size_t mismatches(const std::string& a, const std::string& b) {
    size_t bad = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
    for (size_t i = 0; i < a.size() && i < b.size(); ++i)
        if (a[i] != b[i]) ++bad;
    return bad;
}

std::vector<Entity> make_entities(World& w, int n) {
    std::vector<Entity> out;
    for (int i = 0; i < n; ++i) out.push_back(w.create_with(Pos{i, -i}));
    return out;
}

} // namespace

// ------------------------------------------------------------------------------------------------
// World::deferred()
// ------------------------------------------------------------------------------------------------

// 1.0 (roadmap C): the deferred form returns the reserved handle; a CommandBuffer is not bound to a
// world, so its create_with stays void.
static_assert(std::is_same_v<decltype(std::declval<World::DeferredProxy&>().create_with(Pos{}, Hp{})), Entity>,
              "DeferredProxy::create_with returns the reserved handle");
static_assert(std::is_void_v<decltype(std::declval<CommandBuffer&>().create_with(Pos{}, Hp{}))>,
              "CommandBuffer::create_with returns void");

TEST_CASE("deferred: the members that are templates with a defaulted parameter bind to member pointers", "[deferred]") {
    // destroy, create, add_raw and remove_raw (and World::disconnect, on_add_raw) are compiled only
    // where called; they are still ordinary members to call and to point at.
    void (ecs::DeferredProxy::*proxy_destroy)(Entity) = &ecs::DeferredProxy::destroy<>;
    Entity (ecs::DeferredProxy::*proxy_create)() = &ecs::DeferredProxy::create<>;
    void (CommandBuffer::*buffer_destroy)(Entity) = &CommandBuffer::destroy<>;
    void (CommandBuffer::*buffer_add_raw)(Entity, ecs::ComponentTypeID, const void*) = &CommandBuffer::add_raw<>;
    bool (World::*world_disconnect)(ecs::ObserverId) = &World::disconnect<>;
    World w;
    (void)w.create_with(Pos{}); // gives Pos its column factory (add_raw needs one)
    int added = 0;
    const ecs::ObserverId hook =
        w.on_add_raw(ecs::component_id<Pos>(), [&](World&, Entity, void*) { ++added; });
    const Entity a = w.create();
    const Entity b = w.create();
    ecs::DeferredProxy proxy = w.deferred();
    (proxy.*proxy_destroy)(a);
    const Entity c = (proxy.*proxy_create)();
    w.flush_deferred();
    CHECK_FALSE(w.alive(a));
    CHECK(w.alive(c));
    CommandBuffer buffer;
    const Pos p{1, 2};
    (buffer.*buffer_add_raw)(b, ecs::component_id<Pos>(), &p);
    (buffer.*buffer_destroy)(c);
    buffer.flush(w);
    CHECK(w.has<Pos>(b));
    CHECK(added == 1);
    CHECK_FALSE(w.alive(c));
    CHECK((w.*world_disconnect)(hook));
    CHECK_FALSE(w.disconnect(hook));
    CHECK(w.check_invariants());
}

TEST_CASE("deferred: recorded commands change nothing until flush_deferred", "[deferred]") {
    World w;
    const Entity a = w.create_with(Pos{1, 2});
    const Entity b = w.create_with(Pos{3, 4}, Hp{10});
    auto d = w.deferred();
    d.destroy(a);
    d.add(b, Vel{5, 6});
    d.remove<Hp>(b);
    d.create_with(Pos{7, 8}, Hp{9});
    d.add<Frozen>(b);
    CHECK(w.deferred_count() == 5);

    CHECK(w.alive(a));
    CHECK(w.count() == 2);
    CHECK_FALSE(w.has<Vel>(b));
    CHECK_FALSE(w.has<Frozen>(b));
    REQUIRE(w.has<Hp>(b));
    CHECK(w.get<Hp>(b).value == 10);
    CHECK(w.count<Hp>() == 1);
    CHECK(w.count<Pos>() == 2);
    CHECK(w.check_invariants());

    w.flush_deferred();
    CHECK(w.deferred_count() == 0);
    CHECK_FALSE(w.alive(a));
    REQUIRE(w.alive(b));
    REQUIRE(w.has<Vel>(b));
    CHECK(w.get<Vel>(b).dx == 5);
    CHECK(w.get<Vel>(b).dy == 6);
    CHECK_FALSE(w.has<Hp>(b));
    CHECK(w.has<Frozen>(b));
    CHECK(w.get<Pos>(b).x == 3);
    CHECK(w.get<Pos>(b).y == 4);
    CHECK(w.count() == 2);

    std::vector<Entity> created;
    w.each<Pos, Hp>([&](Entity e, Pos& p, Hp& h) {
        created.push_back(e);
        CHECK(p.x == 7);
        CHECK(p.y == 8);
        CHECK(h.value == 9);
    });
    REQUIRE(created.size() == 1);
    CHECK(created[0] != a);
    CHECK(w.check_invariants());

    // A second flush has nothing left to run.
    w.flush_deferred();
    CHECK(w.count() == 2);
    CHECK(w.count<Pos, Hp>() == 1);
}

TEST_CASE("deferred: commands run in recording order", "[deferred]") {
    World w;
    const Entity e = w.create_with(Pos{});

    SECTION("a later add overwrites an earlier one") {
        w.deferred().add(e, Hp{1});
        w.deferred().add(e, Hp{2});
        w.flush_deferred();
        CHECK(w.get<Hp>(e).value == 2);
    }
    SECTION("remove then add leaves the component") {
        w.deferred().remove<Pos>(e);
        w.deferred().add(e, Pos{5, 5});
        w.flush_deferred();
        REQUIRE(w.has<Pos>(e));
        CHECK(w.get<Pos>(e).x == 5);
    }
    SECTION("add then remove leaves no component") {
        w.deferred().add(e, Hp{3});
        w.deferred().remove<Hp>(e);
        w.flush_deferred();
        CHECK_FALSE(w.has<Hp>(e));
        CHECK(w.alive(e));
    }
    SECTION("creations happen in order: rows and values line up") {
        for (int i = 0; i < 100; ++i) w.deferred().create_with(Hp{i});
        w.flush_deferred();
        std::vector<int> seen;
        uint32_t last_index = 0;
        w.each<Hp>([&](Entity x, Hp& h) {
            seen.push_back(h.value);
            CHECK(x.index > last_index); // created one after another from an empty free list
            last_index = x.index;
        });
        REQUIRE(seen.size() == 100);
        for (int i = 0; i < 100; ++i) CHECK(seen[size_t(i)] == i);
    }
    SECTION("destroy before create_with: the creation gets the handle reserved when recording") {
        // 1.0 (roadmap C): the deferred create_with returns its handle at once, so its slot is taken
        // when recording (e's slot is still live then) and e's slot is freed at the flush.
        w.deferred().destroy(e);
        const Entity reserved = w.deferred().create_with(Hp{42});
        CHECK(reserved.index != e.index);
        w.flush_deferred();
        CHECK_FALSE(w.alive(e));
        Entity made = ecs::INVALID_ENTITY;
        w.each<Hp>([&](Entity x, Hp&) { made = x; });
        CHECK(made == reserved);
        CHECK(w.create().index == e.index); // the freed slot is reused next
    }
    CHECK(w.check_invariants());
}

TEST_CASE("deferred: destroy recorded before add makes the add a no-op, without leak", "[deferred]") {
    Item::reset();
    {
        World w;
        const Entity e = w.create_with(Pos{1, 1});
        const Entity other = w.create_with(Pos{2, 2});
        w.deferred().destroy(e);
        w.deferred().add(e, Item{7});
        w.deferred().remove<Pos>(e);
        w.deferred().destroy(e); // twice: the second is a no-op too
        CHECK(Item::tally().alive() == 1); // the payload waiting in the queue
        w.flush_deferred();
        CHECK_FALSE(w.alive(e));
        CHECK(w.alive(other));
        CHECK(w.count() == 1);
        CHECK(w.count<Item>() == 0);
        CHECK(Item::tally().alive() == 0); // the dropped add destroyed its payload
        CHECK(w.get<Pos>(other).x == 2);
        CHECK(w.check_invariants());
    }
    CHECK(Item::tally().clean());
}

TEST_CASE("deferred and command buffer: stale handles never touch the slot's new occupant", "[deferred][command_buffer]") {
    Item::reset();
    {
        World w;
        const Entity old = w.create_with(Hp{1});
        w.destroy(old);
        const Entity fresh = w.create_with(Hp{2});
        REQUIRE(fresh.index == old.index); // the slot was recycled
        REQUIRE(fresh.generation != old.generation);

        const auto record = [&](auto& r) {
            r.add(old, Vel{9, 9});
            r.add(old, Hp{99}); // would be an overwrite on the new occupant
            r.add(old, Item{5});
            r.template remove<Hp>(old);
            r.destroy(old);
        };
        SECTION("deferred") {
            auto d = w.deferred();
            record(d);
            w.flush_deferred();
        }
        SECTION("command buffer") {
            CommandBuffer buf;
            record(buf);
            CHECK(buf.size() == 5);
            buf.flush(w);
            CHECK(buf.empty());
        }
        REQUIRE(w.alive(fresh));
        CHECK(w.get<Hp>(fresh).value == 2);
        CHECK_FALSE(w.has<Vel>(fresh));
        CHECK_FALSE(w.has<Item>(fresh));
        CHECK(w.count() == 1);
        CHECK(Item::tally().alive() == 0);
        CHECK(w.check_invariants());
    }
    CHECK(Item::tally().clean());
}

TEST_CASE("deferred: create_with copies lvalues and moves rvalues into the queue", "[deferred]") {
    Item::reset();
    {
        World w;
        Item kept{11};
        auto owned = std::make_unique<int>(12);
        w.deferred().create_with(kept, std::move(owned), Hp{13});
        CHECK(kept.value() == 11); // copied, not moved from
        CHECK(owned == nullptr);
        CHECK(Item::tally().copies == 1);
        CHECK(w.count() == 0);
        w.flush_deferred();
        CHECK(w.count() == 1);
        int visits = 0;
        w.each<Item, std::unique_ptr<int>, Hp>([&](Entity, Item& it, std::unique_ptr<int>& p, Hp& h) {
            ++visits;
            CHECK(it.value() == 11);
            REQUIRE(p != nullptr);
            CHECK(*p == 12);
            CHECK(h.value == 13);
        });
        CHECK(visits == 1);
        CHECK(Item::tally().copies == 1); // no further copy on the way into the world
        CHECK(Item::tally().alive() == 2); // `kept` and the component
    }
    CHECK(Item::tally().clean());
}

TEST_CASE("deferred: commands recorded during each() run at the flush after it", "[deferred]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 99; ++i) es.push_back(w.create_with(Hp{i}));

    int visits = 0;
    w.each<Hp>([&](Entity e, Hp& h) {
        ++visits;
        auto d = w.deferred();
        switch (h.value % 3) {
        case 0: d.destroy(e); break;
        case 1: d.add(e, Vel{h.value, 0}); break;
        default:
            d.remove<Hp>(e);
            d.create_with(Hp{1000 + h.value}, Frozen{});
            break;
        }
        CHECK(w.count() == 99); // nothing ran yet
    });
    CHECK(visits == 99);
    CHECK(w.deferred_count() == 33 + 33 + 66);
    CHECK(w.count() == 99);

    w.flush_deferred();
    CHECK(w.deferred_count() == 0);
    for (int i = 0; i < 99; ++i) {
        const Entity e = es[size_t(i)];
        switch (i % 3) {
        case 0: CHECK_FALSE(w.alive(e)); break;
        case 1:
            REQUIRE(w.has<Vel>(e));
            CHECK(w.get<Vel>(e).dx == i);
            CHECK(w.get<Hp>(e).value == i);
            break;
        default:
            CHECK(w.alive(e));
            CHECK_FALSE(w.has<Hp>(e));
            break;
        }
    }
    std::vector<int> created;
    w.each<Hp, Frozen>([&](Entity, Hp& h, Frozen&) { created.push_back(h.value); });
    REQUIRE(created.size() == 33);
    for (size_t k = 0; k < created.size(); ++k) CHECK(created[k] == 1000 + 2 + 3 * int(k));
    CHECK(w.count() == 33 + 33 + 33);
    CHECK(w.check_invariants());
}

TEST_CASE("deferred: commands recorded while flushing run in the same flush", "[deferred]") {
    World w;
    SECTION("a chain of creations recorded by an on_add hook") {
        int hook_calls = 0;
        w.on_add<Hp>([&](World& world, Entity, Hp& h) {
            ++hook_calls;
            if (h.value < 5) world.deferred().create_with(Hp{h.value + 1});
        });
        w.deferred().create_with(Hp{0});
        w.flush_deferred();
        CHECK(w.deferred_count() == 0);
        CHECK(hook_calls == 6);
        std::vector<int> seen;
        w.each<Hp>([&](Entity, Hp& h) { seen.push_back(h.value); });
        CHECK(seen == std::vector<int>{0, 1, 2, 3, 4, 5});
    }
    SECTION("a hook that records and flushes again does not run anything twice") {
        int hook_calls = 0;
        w.on_add<Hp>([&](World& world, Entity, Hp& h) {
            ++hook_calls;
            if (h.value < 20) world.deferred().create_with(Hp{h.value + 1});
            world.flush_deferred();
        });
        w.deferred().create_with(Hp{0});
        w.flush_deferred();
        CHECK(w.deferred_count() == 0);
        CHECK(hook_calls == 21);
        CHECK(w.count<Hp>() == 21);
    }
    SECTION("appended records spill over several pages while the queue runs") {
        struct Blob {
            int id = 0;
            std::array<uint8_t, 4000> bytes{};
        };
        w.on_add<Blob>([](World& world, Entity, Blob& b) {
            if (b.id >= 40) return;
            Blob next;
            next.id = b.id + 1;
            next.bytes.fill(static_cast<uint8_t>(next.id));
            world.deferred().create_with(std::move(next));
            // 4 KiB each: 40 of them fill ten pages, all appended during this one flush.
        });
        Blob first;
        first.bytes.fill(0);
        w.deferred().create_with(first);
        w.flush_deferred();
        CHECK(w.deferred_count() == 0);
        std::vector<int> ids;
        size_t bad_bytes = 0;
        w.each<Blob>([&](Entity, Blob& b) {
            ids.push_back(b.id);
            for (uint8_t byte : b.bytes)
                if (byte != static_cast<uint8_t>(b.id)) ++bad_bytes;
        });
        REQUIRE(ids.size() == 41);
        for (int i = 0; i <= 40; ++i) CHECK(ids[size_t(i)] == i);
        CHECK(bad_bytes == 0);
    }
    CHECK(w.check_invariants());
}

TEST_CASE("deferred: deferred_count counts recorded commands", "[deferred]") {
    World w;
    const Entity e = w.create_with(Pos{});
    CHECK(w.deferred_count() == 0);
    w.deferred().add(e, Hp{1});
    CHECK(w.deferred_count() == 1);
    w.deferred().remove<Hp>(e);
    w.deferred().create_with(Pos{});
    w.deferred().destroy(e);
    CHECK(w.deferred_count() == 4);

    // While the queue runs, a hook sees the commands still waiting.
    std::vector<size_t> waiting;
    w.on_add<Vel>([&](World& world, Entity, Vel&) { waiting.push_back(world.deferred_count()); });
    w.flush_deferred();
    CHECK(w.deferred_count() == 0);
    const Entity f = w.create_with(Pos{});
    w.deferred().add(f, Vel{});
    w.deferred().create_with(Vel{});
    w.deferred().create_with(Pos{});
    w.flush_deferred();
    CHECK(waiting == std::vector<size_t>{2, 1});
    CHECK(w.deferred_count() == 0);
}

TEST_CASE("deferred: a world destroyed or moved with pending commands handles their payloads", "[deferred]") {
    Item::reset();
    SECTION("destroyed unflushed") {
        {
            World w;
            const Entity e = w.create_with(Pos{});
            for (int i = 0; i < 500; ++i) w.deferred().create_with(Item{i});
            w.deferred().add(e, Item{-1});
            CHECK(Item::tally().alive() == 501);
        }
        CHECK(Item::tally().clean());
    }
    SECTION("move-constructed, then flushed") {
        {
            World a;
            for (int i = 0; i < 300; ++i) a.deferred().create_with(Item{i});
            const long moves = Item::tally().moves;
            World b(std::move(a));
            CHECK(Item::tally().moves == moves); // payloads stay where they are
            CHECK(b.deferred_count() == 300);
            b.flush_deferred();
            CHECK(b.count<Item>() == 300);
            int expected = 0;
            b.each<Item>([&](Entity, Item& it) { CHECK(it.value() == expected++); });
            CHECK(Item::tally().alive() == 300);
        }
        CHECK(Item::tally().clean());
    }
    SECTION("move-assigned over a world with its own pending commands") {
        {
            World a;
            World b;
            for (int i = 0; i < 10; ++i) a.deferred().create_with(Item{i});
            for (int i = 0; i < 7; ++i) b.deferred().create_with(Item{100 + i});
            const long destroyed = Item::tally().destroyed;
            b = std::move(a);
            CHECK(Item::tally().destroyed - destroyed == 7); // b's payloads, exactly once
            CHECK(Item::tally().alive() == 10);
            b.flush_deferred();
            int expected = 0;
            b.each<Item>([&](Entity, Item& it) { CHECK(it.value() == expected++); });
            CHECK(expected == 10);
        }
        CHECK(Item::tally().clean());
    }
}

TEST_CASE("deferred: the queue keeps its pages, so steady-state recording does not grow memory", "[deferred]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 2000; ++i) es.push_back(w.create_with(Hp{0}));
    const size_t empty_queue = w.memory_bytes();
    size_t peak = 0;
    for (int round = 1; round <= 5; ++round) {
        for (const Entity e : es) w.deferred().add(e, Hp{round}); // overwrites: no structural change
        const size_t recorded = w.memory_bytes();
        if (round == 1) {
            // ~2000 records of a few dozen bytes: several 16 KiB pages were allocated.
            CHECK(recorded >= empty_queue + 3 * 16384);
            peak = recorded;
        } else {
            CHECK(recorded == peak);
        }
        w.flush_deferred();
        CHECK(w.memory_bytes() == peak);
        for (const Entity e : es) REQUIRE(w.get<Hp>(e).value == round);
    }
}

TEST_CASE("deferred: over-aligned payloads arrive aligned", "[deferred]") {
    Item::reset();
    Wide::misaligned() = 0;
    {
        World w;
        const std::vector<Entity> es = make_entities(w, 200);
        size_t misaligned_in_world = 0;
        w.on_add<Wide>([&](World&, Entity, Wide& v) {
            if (reinterpret_cast<uintptr_t>(&v) % 64 != 0) ++misaligned_in_world;
        });
        for (size_t i = 0; i < es.size(); ++i) {
            w.deferred().add(es[i], Odd{});
            w.deferred().add(es[i], Wide{int(i)});
            w.deferred().create_with(Odd{}, Wide{1000 + int(i)});
        }
        w.flush_deferred();
        CHECK(misaligned_in_world == 0);
        CHECK(Wide::misaligned() == 0);
        for (size_t i = 0; i < es.size(); ++i) {
            REQUIRE(w.has<Wide>(es[i]));
            CHECK(reinterpret_cast<uintptr_t>(&w.get<Wide>(es[i])) % 64 == 0);
            CHECK(w.get<Wide>(es[i]).item.value() == int(i));
        }
        CHECK(w.count<Wide>() == 400);
    }
    CHECK(Wide::misaligned() == 0);
    CHECK(Item::tally().clean());
}

// ------------------------------------------------------------------------------------------------
// CommandBuffer
// ------------------------------------------------------------------------------------------------

TEST_CASE("command_buffer: records destroy/add/remove/create_with and runs them at flush", "[command_buffer]") {
    World w;
    const Entity a = w.create_with(Pos{1, 2});
    const Entity b = w.create_with(Pos{3, 4}, Hp{10});
    CommandBuffer buf;
    CHECK(buf.empty());
    CHECK(buf.size() == 0);

    buf.destroy(a);
    buf.add(b, Vel{5, 6});
    buf.add<Frozen>(b);
    buf.remove<Hp>(b);
    buf.create_with(Pos{7, 8}, Hp{9});
    CHECK_FALSE(buf.empty());
    CHECK(buf.size() == 5);
    CHECK(w.deferred_count() == 0); // the buffer is not the world's queue

    CHECK(w.alive(a));
    CHECK(w.count() == 2);
    CHECK_FALSE(w.has<Vel>(b));
    CHECK(w.has<Hp>(b));

    buf.flush(w);
    CHECK(buf.empty());
    CHECK(buf.size() == 0);
    CHECK_FALSE(w.alive(a));
    REQUIRE(w.has<Vel>(b));
    CHECK(w.get<Vel>(b).dx == 5);
    CHECK(w.has<Frozen>(b));
    CHECK_FALSE(w.has<Hp>(b));
    CHECK(w.count<Pos, Hp>() == 1);
    w.each<Pos, Hp>([&](Entity, Pos& p, Hp& h) {
        CHECK(p.x == 7);
        CHECK(h.value == 9);
    });
    CHECK(w.count() == 2);
    CHECK(w.check_invariants());

    // Flushing an empty buffer does nothing.
    buf.flush(w);
    CHECK(w.count() == 2);
}

TEST_CASE("command_buffer: clear drops every command without running it", "[command_buffer]") {
    Item::reset();
    {
        World w;
        const Entity e = w.create_with(Pos{});
        CommandBuffer buf;
        buf.destroy(e);
        buf.add(e, Item{1});
        buf.create_with(Item{2}, Hp{2});
        CHECK(buf.size() == 3);
        CHECK(Item::tally().alive() == 2);
        buf.clear();
        CHECK(buf.empty());
        CHECK(buf.size() == 0);
        CHECK(Item::tally().alive() == 0);
        buf.flush(w);
        CHECK(w.alive(e));
        CHECK(w.count() == 1);
        CHECK_FALSE(w.has<Item>(e));

        // Still usable after clear.
        buf.add(e, Hp{3});
        buf.flush(w);
        CHECK(w.get<Hp>(e).value == 3);
    }
    CHECK(Item::tally().clean());
}

TEST_CASE("command_buffer: one buffer flushed into two worlds in turn", "[command_buffer]") {
    World w1;
    World w2;
    const Entity in2 = w2.create_with(Pos{5, 5});
    CommandBuffer buf;

    buf.create_with(Hp{1});
    buf.flush(w1);
    CHECK(buf.empty());
    CHECK(w1.count() == 1);
    CHECK(w2.count() == 1);

    buf.create_with(Hp{2});
    buf.create_with(Hp{3});
    buf.add(in2, Vel{1, 1});
    buf.flush(w2);
    CHECK(w1.count() == 1);
    CHECK(w2.count() == 3);
    CHECK(w2.has<Vel>(in2));

    std::vector<int> v1;
    std::vector<int> v2;
    w1.each<Hp>([&](Entity, Hp& h) { v1.push_back(h.value); });
    w2.each<Hp>([&](Entity, Hp& h) { v2.push_back(h.value); });
    CHECK(v1 == std::vector<int>{1});
    CHECK(v2 == std::vector<int>{2, 3});

    buf.create_with(Hp{4});
    buf.flush(w1);
    CHECK(w1.count<Hp>() == 2);
    CHECK(w2.count<Hp>() == 2);
    CHECK(w1.check_invariants());
    CHECK(w2.check_invariants());
}

TEST_CASE("command_buffer: payload lifetimes through flush, clear, destruction and moves", "[command_buffer]") {
    Item::reset();
    {
        World w;
        const std::vector<Entity> es = make_entities(w, 10);
        const auto record = [&](CommandBuffer& buf, int base) {
            for (size_t i = 0; i < es.size(); ++i) buf.add(es[i], Item{base + int(i)});
        };

        SECTION("flushed") {
            CommandBuffer buf;
            record(buf, 0);
            for (int i = 0; i < 10; ++i) buf.create_with(Item{100 + i});
            CHECK(Item::tally().alive() == 20);
            buf.flush(w);
            CHECK(Item::tally().alive() == 20); // now all in the world, the payloads gone
            CHECK(w.count<Item>() == 20);
            for (size_t i = 0; i < es.size(); ++i) CHECK(w.get<Item>(es[i]).value() == int(i));
        }
        SECTION("cleared") {
            CommandBuffer buf;
            record(buf, 0);
            buf.clear();
            CHECK(Item::tally().alive() == 0);
            CHECK(w.count<Item>() == 0);
        }
        SECTION("destroyed unflushed") {
            {
                CommandBuffer buf;
                record(buf, 0);
                CHECK(Item::tally().alive() == 10);
            }
            CHECK(Item::tally().alive() == 0);
        }
        SECTION("move-constructed: payloads stay put, the source is empty and reusable") {
            CommandBuffer source;
            record(source, 0);
            const long moves = Item::tally().moves;
            CommandBuffer target(std::move(source));
            CHECK(Item::tally().moves == moves);
            CHECK(Item::tally().alive() == 10);
            CHECK(source.empty()); // NOLINT(bugprone-use-after-move): moved-from state is specified
            CHECK(target.size() == 10);
            target.flush(w);
            CHECK(w.get<Item>(es[3]).value() == 3);

            source.add(es[0], Item{-5});
            CHECK(source.size() == 1);
            source.flush(w);
            CHECK(w.get<Item>(es[0]).value() == -5);
            CHECK(Item::tally().alive() == 10);
        }
        SECTION("move-assigned over a non-empty buffer: the target's payloads die exactly once") {
            CommandBuffer source;
            CommandBuffer target;
            record(source, 0);
            for (int i = 0; i < 5; ++i) target.create_with(Item{500 + i});
            CHECK(Item::tally().alive() == 15);
            const long destroyed = Item::tally().destroyed;
            target = std::move(source);
            CHECK(Item::tally().destroyed - destroyed == 5);
            CHECK(Item::tally().alive() == 10);
            CHECK(Item::tally().bad_destroys == 0);
            CHECK(source.empty()); // NOLINT(bugprone-use-after-move)
            CHECK(target.size() == 10);
            target.flush(w);
            CHECK(w.count<Item>() == 10); // the 5 creations were dropped, not run
            for (size_t i = 0; i < es.size(); ++i) CHECK(w.get<Item>(es[i]).value() == int(i));
        }
        SECTION("move-assigned: empty over full and full over empty") {
            CommandBuffer full;
            CommandBuffer empty;
            record(full, 0);
            full = std::move(empty);
            CHECK(full.empty());
            CHECK(Item::tally().alive() == 0);
            record(empty, 20); // moved-from, still usable
            full = std::move(empty);
            CHECK(full.size() == 10);
            full.flush(w);
            CHECK(w.get<Item>(es[9]).value() == 29);
        }
        CHECK(Item::tally().bad_destroys == 0);
        CHECK(Item::tally().bad_reads == 0);
    }
    CHECK(Item::tally().clean());
}

TEST_CASE("command_buffer: thousands of commands span many pages and run in order", "[command_buffer]") {
    Item::reset();
    {
        World w;
        const std::vector<Entity> es = make_entities(w, 5000);
        CommandBuffer buf;
        for (size_t i = 0; i < es.size(); ++i) {
            buf.add(es[i], Item{int(i)});
            if (i % 2 == 0) buf.remove<Pos>(es[i]);
            if (i % 7 == 0) buf.create_with(Hp{int(i)});
        }
        const size_t expected = 5000 + 2500 + 715;
        CHECK(buf.size() == expected);
        buf.flush(w);
        CHECK(buf.empty());
        for (size_t i = 0; i < es.size(); ++i) {
            REQUIRE(w.has<Item>(es[i]));
            CHECK(w.get<Item>(es[i]).value() == int(i));
            CHECK(w.has<Pos>(es[i]) == (i % 2 != 0));
        }
        std::vector<int> created;
        w.each<Hp>([&](Entity, Hp& h) { created.push_back(h.value); });
        REQUIRE(created.size() == 715);
        for (size_t k = 0; k < created.size(); ++k) CHECK(created[k] == int(7 * k));
        CHECK(Item::tally().alive() == 5000);

        // Reused after the flush: same results again.
        for (size_t i = 0; i < es.size(); ++i) buf.add(es[i], Item{-int(i)});
        buf.flush(w);
        for (size_t i = 0; i < es.size(); ++i) REQUIRE(w.get<Item>(es[i]).value() == -int(i));
        CHECK(Item::tally().alive() == 5000);
        CHECK(w.check_invariants());
    }
    CHECK(Item::tally().clean());
}

TEST_CASE("command_buffer: payloads larger than a page", "[command_buffer]") {
    Item::reset();
    {
        World w;
        const std::vector<Entity> es = make_entities(w, 8);
        CommandBuffer buf;
        SECTION("alone") {
            buf.add(es[0], Huge(1));
            buf.flush(w);
            REQUIRE(w.has<Huge>(es[0]));
            CHECK(w.get<Huge>(es[0]).intact(1));
        }
        SECTION("between small records, added and created") {
            buf.add(es[0], Hp{1});
            buf.add(es[1], Huge(2));
            buf.add(es[2], Hp{3});
            buf.create_with(Huge(4), Hp{4});
            buf.add(es[3], Hp{5});
            buf.add(es[4], Huge(6));
            CHECK(buf.size() == 6);
            buf.flush(w);
            CHECK(w.get<Hp>(es[0]).value == 1);
            CHECK(w.get<Huge>(es[1]).intact(2));
            CHECK(w.get<Hp>(es[2]).value == 3);
            CHECK(w.get<Hp>(es[3]).value == 5);
            CHECK(w.get<Huge>(es[4]).intact(6));
            int created = 0;
            w.each<Huge, Hp>([&](Entity, Huge& h, Hp& hp) {
                ++created;
                CHECK(h.intact(4));
                CHECK(hp.value == 4);
            });
            CHECK(created == 1);
        }
        SECTION("after small pages were kept, a huge record replaces a page too small for it") {
            // The number of small records varies per round, so a huge record lands where an
            // earlier round left a 16 KiB page.
            for (int round = 0; round < 4; ++round) {
                const int smalls = 1500 + round * 700;
                for (int i = 0; i < smalls; ++i) buf.add(es[size_t(i) % es.size()], Hp{round * 10000 + i});
                buf.add(es[5], Huge(100 + round));
                for (int i = 0; i < smalls; ++i) buf.add(es[size_t(i) % es.size()], Pos{round, i});
                buf.add(es[6], Huge(200 + round));
                CHECK(buf.size() == size_t(2 * smalls + 2));
                buf.flush(w);
                const int last7 = (smalls - 1) / 8 * 8 + 7 < smalls ? (smalls - 1) / 8 * 8 + 7 : (smalls - 1) / 8 * 8 - 1;
                CHECK(w.get<Huge>(es[5]).intact(100 + round));
                CHECK(w.get<Huge>(es[6]).intact(200 + round));
                CHECK(w.get<Hp>(es[7]).value == round * 10000 + last7);
                CHECK(w.get<Pos>(es[7]).x == round);
                CHECK(w.get<Pos>(es[7]).y == last7);
            }
        }
        SECTION("unflushed") {
            buf.add(es[0], Huge(1));
            buf.create_with(Huge(2));
            CHECK(Item::tally().alive() == 2);
            buf.clear();
            CHECK(Item::tally().alive() == 0);
            buf.add(es[0], Huge(3));
            // destroyed with the buffer at the end of the scope
        }
        CHECK(w.check_invariants());
    }
    CHECK(Item::tally().clean());
}

TEST_CASE("command_buffer: move-only payloads", "[command_buffer]") {
    Item::reset();
    {
        struct Owner {
            std::unique_ptr<Item> item;
        };
        World w;
        const std::vector<Entity> es = make_entities(w, 3);
        CommandBuffer buf;
        buf.add(es[0], std::make_unique<int>(5));
        buf.add(es[1], Owner{std::make_unique<Item>(6)});
        buf.create_with(Owner{std::make_unique<Item>(7)}, std::make_unique<int>(8));
        SECTION("flushed") {
            buf.flush(w);
            REQUIRE(w.has<std::unique_ptr<int>>(es[0]));
            CHECK(*w.get<std::unique_ptr<int>>(es[0]) == 5);
            CHECK(w.get<Owner>(es[1]).item->value() == 6);
            int created = 0;
            w.each<Owner, std::unique_ptr<int>>([&](Entity, Owner& o, std::unique_ptr<int>& p) {
                ++created;
                CHECK(o.item->value() == 7);
                CHECK(*p == 8);
            });
            CHECK(created == 1);
            CHECK(Item::tally().alive() == 2);
        }
        SECTION("left unflushed") {
            CHECK(Item::tally().alive() == 2); // owned by payloads; LSan checks the ints
        }
    }
    CHECK(Item::tally().clean());
}

TEST_CASE("command_buffer: over-aligned payloads are never touched misaligned", "[command_buffer]") {
    Item::reset();
    Wide::misaligned() = 0;
    {
        World w;
        const std::vector<Entity> es = make_entities(w, 300);
        size_t misaligned_in_world = 0;
        w.on_add<Wide>([&](World&, Entity, Wide& v) {
            if (reinterpret_cast<uintptr_t>(&v) % 64 != 0) ++misaligned_in_world;
        });
        CommandBuffer buf;
        for (size_t i = 0; i < es.size(); ++i) {
            buf.add(es[i], Odd{});
            buf.add(es[i], Wide{int(i)});
            if (i % 3 == 0) buf.remove<Odd>(es[i]);
            buf.create_with(Wide{-int(i)}, Odd{});
        }
        CommandBuffer moved(std::move(buf));
        moved.flush(w);
        CHECK(misaligned_in_world == 0);
        CHECK(Wide::misaligned() == 0);
        for (size_t i = 0; i < es.size(); ++i) {
            REQUIRE(w.has<Wide>(es[i]));
            const Wide& v = w.get<Wide>(es[i]);
            CHECK(reinterpret_cast<uintptr_t>(&v) % 64 == 0);
            CHECK(v.item.value() == int(i));
            CHECK(w.has<Odd>(es[i]) == (i % 3 != 0));
        }
        CHECK(w.count<Wide>() == 600);

        // Unflushed over-aligned payloads are destroyed in place, aligned.
        moved.add(es[0], Wide{1});
        moved.clear();
        CHECK(w.check_invariants());
    }
    CHECK(Wide::misaligned() == 0);
    CHECK(Item::tally().clean());
}

TEST_CASE("command_buffer: short strings (SSO) survive full pages and buffer moves", "[command_buffer]") {
    World w;
    const std::vector<Entity> es = make_entities(w, 3000);
    CommandBuffer buf;
    for (size_t i = 0; i < es.size(); ++i) {
        buf.add(es[i], Name{short_text(int(i))});
        buf.add(es[i], std::string(short_text(int(i) + 1)));
        if (i % 2 == 0) buf.create_with(Name{short_text(-int(i))}, Hp{int(i)});
    }
    CHECK(buf.size() == 3000 * 2 + 1500);
    CommandBuffer moved(std::move(buf)); // the pages change owner; the strings must not move
    CommandBuffer assigned;
    assigned.add(es[0], Hp{0});
    assigned = std::move(moved);
    assigned.flush(w);

    size_t bad = 0;
    for (size_t i = 0; i < es.size(); ++i) {
        bad += mismatches(w.get<Name>(es[i]).text, short_text(int(i)));
        bad += mismatches(w.get<std::string>(es[i]), short_text(int(i) + 1));
    }
    CHECK(bad == 0);
    CHECK_FALSE(w.has<Hp>(es[0])); // dropped with the assigned-over buffer
    size_t created = 0;
    w.each<Name, Hp>([&](Entity, Name& n, Hp& h) {
        bad += mismatches(n.text, short_text(-h.value));
        ++created;
    });
    CHECK(created == 1500);
    CHECK(bad == 0);

    // Same through the world's own queue, recorded during iteration.
    w.each<Name>([&](Entity e, Name& n) { w.deferred().add(e, Name{n.text + "x"}); });
    w.flush_deferred();
    for (size_t i = 0; i < es.size(); ++i) bad += mismatches(w.get<Name>(es[i]).text, short_text(int(i)) + "x");
    CHECK(bad == 0);
}

TEST_CASE("command_buffer: commands recorded into the buffer while it flushes run in that flush", "[command_buffer]") {
    World w;
    CommandBuffer buf;
    int calls = 0;
    w.on_add<Hp>([&](World& world, Entity e, Hp& h) {
        ++calls;
        if (h.value < 3) buf.create_with(Hp{h.value + 1});
        world.deferred().add(e, Frozen{}); // the world's queue: not flushed by buf.flush
        buf.flush(world);                  // nested flush of the running buffer: nothing runs twice
    });
    buf.create_with(Hp{0});
    buf.flush(w);
    CHECK(buf.empty());
    CHECK(calls == 4);
    CHECK(w.count<Hp>() == 4);
    CHECK(w.count<Frozen>() == 0);
    CHECK(w.deferred_count() == 4);
    w.flush_deferred();
    CHECK(w.count<Hp, Frozen>() == 4);
    CHECK(w.check_invariants());
}

TEST_CASE("command_buffer: clear called by a hook while the buffer flushes drops only what has not run", "[command_buffer]") {
    // A hook may cancel the rest of a flush with clear(). The commands already run and the one
    // running must not be destroyed again; what is recorded after the clear still runs.
    Item::reset();
    {
        World w;
        CommandBuffer buf;
        w.on_add<Hp>([&](World&, Entity, Hp& h) {
            if (h.value != 1) return;
            buf.clear();                         // drops the creations of 2 and 3
            buf.create_with(Item{10}, Hp{10});   // recorded after the clear: runs in this flush
        });
        for (int i = 0; i < 4; ++i) buf.create_with(Item{i}, Hp{i});
        buf.flush(w);
        CHECK(buf.empty());
        std::vector<int> made;
        w.each<Item, Hp>([&](Entity, Item& it, Hp& h) {
            CHECK(it.value() == h.value);
            made.push_back(h.value);
        });
        CHECK(made == std::vector<int>{0, 1, 10});
        CHECK(Item::tally().bad_destroys == 0);
        CHECK(Item::tally().alive() == 3);
    }
    CHECK(Item::tally().clean());
}
