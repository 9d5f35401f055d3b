// The game loop keeps determinism: random schedules with conditions, intervals, states and a fixed
// step give identical worlds through run(world, dt) / advance(...) and their executor forms.
// Part of ecs_parallel_tests (ThreadSanitizer-clean).
#include <ecs/schedule.hpp>
#include <ecs/parallel.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "catch.hpp"

namespace {

struct LA {
    int64_t v;
};
struct LB {
    int64_t v;
};
struct LC {
    int64_t v;
};
struct LFlag {};
struct LOrder {
    int v;
};
struct LEvent {
    int v;
};
struct LCounter {
    int64_t v;
};

void build(ecs::World& w, uint32_t seed) {
    std::mt19937 rng(seed);
    for (int i = 0; i < 3000; ++i) {
        const int64_t x = static_cast<int64_t>(rng() % 100);
        switch (rng() % 5) {
        case 0: w.create_with(LA{x}); break;
        case 1: w.create_with(LA{x}, LB{x + 1}); break;
        case 2: w.create_with(LA{x}, LB{x}, LC{x}, LFlag{}); break;
        case 3: w.create_with(LB{x}, LC{x * 2}); break;
        default: w.create_with(LC{x}, LFlag{}); break;
        }
    }
    w.set_resource(LCounter{0});
}

using Row = std::tuple<uint32_t, uint32_t, int64_t, int64_t, int64_t, bool, int>;

std::vector<Row> snapshot(ecs::World& w) {
    std::vector<Row> rows;
    w.each<ecs::Optional<const LA>, ecs::Optional<const LB>, ecs::Optional<const LC>, ecs::Optional<const LFlag>,
           ecs::Optional<const LOrder>>([&](ecs::Entity e, const LA* a, const LB* b, const LC* c, const LFlag* f, const LOrder* o) {
        rows.emplace_back(e.index, e.generation, a ? a->v : -1, b ? b->v : -1, c ? c->v : -1, f != nullptr, o ? o->v : -1);
    });
    std::sort(rows.begin(), rows.end());
    rows.emplace_back(0u, 0u, w.resource<LCounter>().v, 0, 0, false, 0);
    return rows;
}

/// Adds system number `kind` (one of 12 shapes) to `s`.
void add_system(ecs::Schedule& s, int kind, int n) {
    const std::string name = "s" + std::to_string(n) + "k" + std::to_string(kind);
    switch (kind) {
    case 0: s.add<LA, const LB>(name, [](LA& a, const LB& b) { a.v = (a.v * 3 + b.v) % 1000003; }); break;
    case 1: s.add<LB, const LC>(name, [](LB& b, const LC& c) { b.v = (b.v + c.v * 5) % 1000003; }); break;
    case 2: s.add<LC, const LA>(name, [](LC& c, const LA& a) { c.v = (c.v * 7 + a.v) % 1000003; }); break;
    case 3: s.add<LA>(name, ecs::Without<LFlag>{}, [](LA& a) { a.v += 13; }); break;
    case 4: s.add<LA>(name, ecs::With<LFlag>{}, [](LA& a) { a.v *= 2; }); break;
    case 5:
        s.add(name, ecs::Reads<LA>{}, ecs::Writes<LCounter>{}, [](ecs::World& w) {
            int64_t sum = 0;
            w.each<const LA>([&](const LA& a) { sum += a.v; });
            w.resource<LCounter>().v = (w.resource<LCounter>().v * 31 + sum) % 1000003;
        });
        break;
    case 6:
        s.add(name, ecs::Reads<LCounter, LB>{}, ecs::Writes<LC>{}, [](ecs::World& w) {
            const int64_t k = w.resource<const LCounter>().v % 17;
            w.each<LC, const LB>([&](LC& c, const LB& b) { c.v = (c.v + b.v * k) % 1000003; });
        });
        break;
    case 7: // commands from a per-entity system
        s.add<const LA, const LB>(name, [](ecs::CommandBuffer& cb, ecs::Entity e, const LA& a, const LB& b) {
            if ((a.v + b.v) % 11 == 0) cb.add(e, LOrder{static_cast<int>(a.v)});
            if ((a.v + b.v) % 13 == 0) cb.create_with(LC{a.v});
        });
        break;
    case 8: // commands from a world system
        s.add(name, ecs::Reads<LC>{}, [](ecs::World& w, ecs::CommandBuffer& cb) {
            w.each<const LC>([&](ecs::Entity e, const LC& c) {
                if (c.v % 19 == 3) cb.destroy(e);
                if (c.v % 23 == 4) cb.remove<LC>(e);
            });
        });
        break;
    case 9: // exclusive: structural changes directly
        s.add(name, [n](ecs::World& w) {
            for (int i = 0; i < 5; ++i) w.create_with(LA{n * 10 + i}, LB{i});
            w.resource<LCounter>().v += 1;
        });
        break;
    case 10: s.add<LB>(name, ecs::Without<LA>{}, [](LB& b) { b.v = (b.v * 5 + 1) % 1000003; }); break;
    default: s.add<LB, ecs::Optional<const LC>>(name, ecs::With<LA>{}, [](LB& b, const LC* c) { b.v += c ? c->v : 1; }); break;
    }
}


enum class Phase { A, B, C };

/// A schedule of random systems, some behind a condition, an interval or a state, plus transitions.
void build_schedule(ecs::Schedule& s, uint32_t seed) {
    std::mt19937 rng(seed * 7919u);
    const int count = 4 + static_cast<int>(rng() % 12);
    for (int i = 0; i < count; ++i) {
        add_system(s, static_cast<int>(rng() % 12), i);
        switch (rng() % 6) {
        case 0: s.run_if([](const ecs::World& w) { return w.resource<LCounter>().v % 3 != 1; }); break;
        case 1: s.interval(0.02 + 0.01 * double(rng() % 5)); break;
        case 2: s.run_if(ecs::in_state(Phase(rng() % 3))); break;
        case 3: s.run_if([](const ecs::World& w) { return w.resource<ecs::Time>().frame % 2 == 0; }); break;
        default: break;
        }
        if (rng() % 5 == 0) s.sync();
    }
    s.add("switch", [](ecs::World& w) { // exclusive: moves the state machine on, now and then
        const auto& t = w.resource<ecs::Time>();
        if (t.frame % 3 == 0) w.resource<ecs::State<Phase>>().set_next(Phase((t.frame / 3) % 3));
    });
    s.on_enter(Phase::B, "enter_b", [](ecs::World& w, ecs::CommandBuffer& cb) {
        w.each<const LA>([&](ecs::Entity e, const LA& a) {
            if (a.v % 7 == 0) cb.add(e, LOrder{int(a.v)});
        });
    });
    s.on_exit(Phase::C, "exit_c", [](ecs::World& w) { w.resource<LCounter>().v += 5; });
}

} // namespace

TEST_CASE("loop: run(world, dt) and run(world, dt, pool) give identical worlds with conditions, intervals and states",
          "[parallel][schedule][loop]") {
    ecs::ThreadPool pool(4);
    for (uint32_t seed = 1; seed <= 30; ++seed) {
        ecs::Schedule s1, s2;
        build_schedule(s1, seed);
        build_schedule(s2, seed);
        ecs::World sequential, parallel;
        build(sequential, seed);
        build(parallel, seed);
        sequential.set_resource(ecs::State<Phase>{Phase::A});
        parallel.set_resource(ecs::State<Phase>{Phase::A});
        for (int frame = 0; frame < 12; ++frame) {
            s1.run(sequential, 0.016);
            s2.run(parallel, 0.016, pool);
        }
        INFO("seed " << seed << ": " << s1.plan_string());
        REQUIRE(snapshot(parallel) == snapshot(sequential));
        CHECK(parallel.resource<ecs::State<Phase>>().current() == sequential.resource<ecs::State<Phase>>().current());
        const auto a = s1.stats(), b = s2.stats();
        REQUIRE(a.size() == b.size());
        for (size_t i = 0; i < a.size(); ++i) {
            CHECK(a[i].runs == b[i].runs);
            CHECK(a[i].skipped == b[i].skipped);
        }
        CHECK(parallel.check_invariants());
    }
}

TEST_CASE("loop: FixedStep::advance with and without an executor give identical worlds", "[parallel][schedule][loop]") {
    ecs::ThreadPool pool(4);
    for (uint32_t seed = 1; seed <= 10; ++seed) {
        ecs::Schedule s1, s2;
        build_schedule(s1, seed);
        build_schedule(s2, seed);
        ecs::World sequential, parallel;
        build(sequential, seed);
        build(parallel, seed);
        sequential.set_resource(ecs::State<Phase>{Phase::A});
        parallel.set_resource(ecs::State<Phase>{Phase::A});
        ecs::FixedStep f1(0.01), f2(0.01);
        std::mt19937 rng(seed);
        for (int frame = 0; frame < 10; ++frame) {
            const double dt = 0.004 * double(1 + rng() % 6);
            // A fixed schedule needs Time for its own conditions: advance sets the fixed clock.
            const size_t n1 = f1.advance(sequential, s1, dt);
            const size_t n2 = f2.advance(parallel, s2, dt, pool);
            REQUIRE(n1 == n2);
        }
        REQUIRE(snapshot(parallel) == snapshot(sequential));
        CHECK(f1.alpha() == f2.alpha());
    }
}
