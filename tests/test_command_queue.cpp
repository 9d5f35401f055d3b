// The paged command queue behind DeferredProxy and CommandBuffer (detail/command_queue.hpp):
// record layout with odd payload sizes and alignments, and unwinding when a command throws.
#include <ecs/command_buffer.hpp>
#include <ecs/world.hpp>

#include <array>
#include <stdexcept>
#include <string>

#include "catch.hpp"
#include "counting.hpp"

using ecs::Entity;
using ecs::World;
using namespace ecs_test;

namespace {
struct OneByte {
    char c;
};
struct ThreeBytes {
    std::array<char, 3> c;
};
struct TwelveBytes {
    int a, b, c;
};
struct alignas(32) Aligned32 {
    int v;
};
struct Boom {};
} // namespace

TEST_CASE("command queue: records of odd sizes and alignments follow each other correctly", "[command_queue]") {
    World w;
    ecs::CommandBuffer cb;
    std::vector<Entity> es;
    for (int i = 0; i < 2000; ++i) es.push_back(w.create());
    // Interleave payload sizes 1, 3, 12, 32-aligned and strings so that headers land after
    // unaligned payload ends, across several pages.
    for (int i = 0; i < 2000; ++i) {
        const Entity e = es[size_t(i)];
        cb.add(e, OneByte{char('a' + i % 26)});
        cb.add(e, ThreeBytes{{char(i % 7), char(i % 11), char(i % 13)}});
        cb.add(e, TwelveBytes{i, -i, i * 2});
        cb.add(e, Aligned32{i});
        cb.add(e, std::string(size_t(i % 20), 'x'));
    }
    CHECK(cb.size() == 10000);
    cb.flush(w);
    CHECK(cb.empty());
    for (int i = 0; i < 2000; ++i) {
        const Entity e = es[size_t(i)];
        REQUIRE(w.get<OneByte>(e).c == char('a' + i % 26));
        REQUIRE(w.get<ThreeBytes>(e).c[2] == char(i % 13));
        REQUIRE(w.get<TwelveBytes>(e).b == -i);
        REQUIRE(w.get<Aligned32>(e).v == i);
        REQUIRE(reinterpret_cast<uintptr_t>(&w.get<Aligned32>(e)) % 32 == 0);
        REQUIRE(w.get<std::string>(e) == std::string(size_t(i % 20), 'x'));
    }
    CHECK(w.check_invariants());
}

TEST_CASE("command queue: a throwing hook during a flush drops the rest and leaves the queue usable",
          "[command_queue][lifetime]") {
    reset_life();
    {
        World w;
        w.on_add<Boom>([](World&, Entity, Boom&) { throw std::runtime_error("hook failed"); });
        const Entity e = w.create();
        w.deferred().add(e, Counted{1});
        w.deferred().add(e, Boom{});
        w.deferred().add(e, CountedName{"never applied"});
        w.deferred().create_with(Counted{2});
        CHECK_THROWS_AS(w.flush_deferred(), std::runtime_error);
        CHECK(w.deferred_count() == 0);
        CHECK(w.has<Counted>(e));
        CHECK(w.has<Boom>(e)); // placed before its hook threw
        CHECK_FALSE(w.has<CountedName>(e));
        CHECK(w.count() == 1);
        w.deferred().add(e, CountedName{"applied"});
        w.flush_deferred();
        CHECK(w.get<CountedName>(e).name == "applied");
        CHECK(w.check_invariants());
    }
    CHECK(life().alive() == 0);
    CHECK(life().bad_destroys == 0);
}
