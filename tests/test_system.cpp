// SystemRegistry (SPEC §4): insertion order, names, and the deferred flush after each system.
#include <ecs/system.hpp>
#include <ecs/world.hpp>

#include <string>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "lifetime.hpp"

using ecs::Entity;
using ecs::SystemRegistry;
using ecs::World;

namespace {
struct Hp {
    int value = 0;
};
struct Dead {};
struct TokenTag {};
using Token = lifetime::Counted<TokenTag>;
} // namespace

TEST_CASE("system: systems run in insertion order and keep their names", "[system]") {
    World w;
    SystemRegistry reg;
    CHECK(reg.size() == 0);
    reg.run_all(w); // nothing to run

    std::vector<std::string> log;
    const std::vector<std::string> names{"input", "physics", "ai", "render", "audio"};
    // Added out of alphabetical order, so a registry that sorted by name would fail.
    for (const std::string& n : names) reg.add(n, [&log, n](World&) { log.push_back(n); });
    REQUIRE(reg.size() == 5);
    for (size_t i = 0; i < names.size(); ++i) CHECK(reg.name(i) == names[i]);

    reg.run_all(w);
    CHECK(log == names);
    reg.run_all(w);
    REQUIRE(log.size() == 10);
    for (size_t i = 0; i < names.size(); ++i) CHECK(log[5 + i] == names[i]);
}

TEST_CASE("system: every system receives the world it runs on", "[system]") {
    World w1;
    World w2;
    SystemRegistry reg;
    std::vector<World*> seen;
    reg.add("a", [&](World& w) { seen.push_back(&w); });
    reg.add("b", [&](World& w) { seen.push_back(&w); });
    reg.run_all(w1);
    reg.run_all(w2);
    CHECK(seen == std::vector<World*>{&w1, &w1, &w2, &w2});
}

TEST_CASE("system: run_all flushes deferred commands after each system", "[system]") {
    World w;
    SystemRegistry reg;
    std::vector<std::string> log;

    reg.add("spawn", [&](World& world) {
        for (int i = 0; i < 3; ++i) world.deferred().create_with(Hp{i});
        CHECK(world.count<Hp>() == 0); // not yet: the flush comes after this system
        log.push_back("spawn");
    });
    reg.add("damage", [&](World& world) {
        CHECK(world.deferred_count() == 0);
        CHECK(world.count<Hp>() == 3); // sees what "spawn" queued
        world.each<Hp>([&](Entity e, Hp& h) {
            if (h.value == 1) world.deferred().add<Dead>(e);
        });
        CHECK(world.count<Dead>() == 0);
        log.push_back("damage");
    });
    reg.add("reap", [&](World& world) {
        CHECK(world.count<Dead>() == 1);
        world.each<Dead>([&](Entity e, Dead&) { world.deferred().destroy(e); });
        CHECK(world.count<Hp>() == 3);
        log.push_back("reap");
    });
    reg.add("count", [&](World& world) {
        CHECK(world.count<Hp>() == 2);
        CHECK(world.count<Dead>() == 0);
        log.push_back("count");
    });

    reg.run_all(w);
    CHECK(log == std::vector<std::string>{"spawn", "damage", "reap", "count"});
    CHECK(w.deferred_count() == 0);
    CHECK(w.count<Hp>() == 2);
    std::vector<int> left;
    w.each<Hp>([&](Entity, Hp& h) { left.push_back(h.value); });
    CHECK(left == std::vector<int>{0, 2});
    CHECK(w.check_invariants());
}

TEST_CASE("system: commands queued before run_all are flushed after the first system", "[system]") {
    World w;
    w.deferred().create_with(Hp{7});
    SystemRegistry reg;
    size_t seen_by_first = 99;
    size_t seen_by_second = 99;
    reg.add("first", [&](World& world) { seen_by_first = world.count<Hp>(); });
    reg.add("second", [&](World& world) { seen_by_second = world.count<Hp>(); });
    reg.run_all(w);
    CHECK(seen_by_first == 0);
    CHECK(seen_by_second == 1);
}

TEST_CASE("system: the last system's commands are flushed before run_all returns", "[system]") {
    Token::reset();
    {
        World w;
        SystemRegistry reg;
        reg.add("only", [](World& world) { world.deferred().create_with(Token{1}); });
        reg.run_all(w);
        CHECK(w.count<Token>() == 1);
        CHECK(w.deferred_count() == 0);
        reg.run_all(w);
        CHECK(w.count<Token>() == 2);
        CHECK(Token::tally().alive() == 2);
    }
    CHECK(Token::tally().clean());
}

TEST_CASE("system: systems may be any callable, captured state is kept and destroyed once", "[system]") {
    Token::reset();
    {
        World w;
        SystemRegistry reg;
        struct Counter {
            Token token{0};
            int* runs;
            void operator()(World&) { ++*runs; }
        };
        int runs = 0;
        reg.add("functor", Counter{Token{0}, &runs});
        std::string name = "moved-name";
        reg.add(std::move(name), [t = Token{5}](World& world) { world.set_resource(Hp{t.value()}); });
        reg.run_all(w);
        reg.run_all(w);
        CHECK(runs == 2);
        CHECK(reg.name(1) == "moved-name");
        CHECK(w.resource<Hp>().value == 5);
        CHECK(Token::tally().alive() == 2); // one token per stored system
    }
    CHECK(Token::tally().clean());
}

// Regression: run_all calls systems_[i].fn while a system may add systems; with a vector, push_back
// reallocated and moved the running std::function (a small callable lives inside it), freeing the
// running system's captures under it (ASan: heap-use-after-free).
TEST_CASE("system: a system may add systems while run_all runs", "[system]") {
    World w;
    SystemRegistry reg;
    struct Shared {
        SystemRegistry* reg;
        int late_runs;
        int marker_seen;
    } shared{&reg, 0, 0};
    int marker = 42; // not const: a const int would need no capture
    // Two words of captures: small enough to live inside the std::function itself.
    reg.add("bootstrap", [&shared, marker](World&) {
        if (shared.reg->size() == 1)
            for (int i = 0; i < 16; ++i)
                shared.reg->add("late" + std::to_string(i), [&shared](World&) { ++shared.late_runs; });
        shared.marker_seen = marker; // a capture of the running system, read after the registry grew
    });
    reg.run_all(w);
    CHECK(shared.marker_seen == 42);
    CHECK(reg.size() == 17);
    CHECK(reg.name(16) == "late15");
    // Whether systems added during a pass join it is unspecified; from the next pass on they run.
    const int first_pass = shared.late_runs;
    CHECK((first_pass == 0 || first_pass == 16));
    reg.run_all(w);
    CHECK(shared.late_runs == first_pass + 16);
}

// SystemRegistry owns one heap node per system: copies are deep (each copy runs its own callables),
// moves hand the nodes over, and every stored callable is destroyed exactly once.
TEST_CASE("system: copies are independent, moves hand the systems over", "[system]") {
    Token::reset();
    {
        World w;
        int runs = 0;
        SystemRegistry a;
        a.add("count", [&runs, t = Token{1}](World&) { runs += t.value(); });
        a.add("twice", [&runs, t = Token{2}](World&) { runs += t.value(); });

        SystemRegistry b(a); // copy: two more tokens
        CHECK(Token::tally().alive() == 4);
        REQUIRE(b.size() == 2);
        CHECK(b.name(0) == "count");
        CHECK(b.name(1) == "twice");
        b.add("extra", [&runs](World&) { runs += 100; });
        CHECK(a.size() == 2); // the copy grew, not the original
        b.run_all(w);
        CHECK(runs == 103);

        SystemRegistry c(std::move(b)); // move: no token copied or destroyed
        CHECK(Token::tally().alive() == 4);
        CHECK(b.size() == 0); // NOLINT(bugprone-use-after-move): moved-from registries are empty
        REQUIRE(c.size() == 3);
        c.run_all(w);
        CHECK(runs == 206);

        c = a; // copy assignment: c's previous systems (two tokens) go, copies of a's come
        CHECK(Token::tally().alive() == 4);
        REQUIRE(c.size() == 2);
        SystemRegistry& self = c;
        c = self; // self-assignment keeps everything
        CHECK(c.size() == 2);
        CHECK(Token::tally().alive() == 4);

        c = std::move(a); // move assignment: c's copies go at once, a is left empty
        CHECK(Token::tally().alive() == 2);
        CHECK(a.size() == 0); // NOLINT(bugprone-use-after-move)
        REQUIRE(c.size() == 2);
        runs = 0;
        c.run_all(w);
        CHECK(runs == 3);
    }
    CHECK(Token::tally().clean());
}
