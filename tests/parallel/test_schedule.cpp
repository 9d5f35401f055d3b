// Schedule (ROADMAP 1.0 E): run(world) and run(world, pool) give identical worlds for random
// schedules; conflicting systems never overlap; With/Without-disjoint writers share a wave;
// exclusive systems run alone; buffers are flushed at sync points in insertion order; run ends
// with update_events. Part of ecs_parallel_tests (ThreadSanitizer-clean).
#include <ecs/schedule.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "catch.hpp"

namespace {

struct SA {
    int64_t v;
};
struct SB {
    int64_t v;
};
struct SC {
    int64_t v;
};
struct SFlag {};
struct SOrder {
    int v;
};
struct SEvent {
    int v;
};
struct SCounter {
    int64_t v;
};

void build(ecs::World& w, uint32_t seed) {
    std::mt19937 rng(seed);
    for (int i = 0; i < 3000; ++i) {
        const int64_t x = static_cast<int64_t>(rng() % 100);
        switch (rng() % 5) {
        case 0: w.create_with(SA{x}); break;
        case 1: w.create_with(SA{x}, SB{x + 1}); break;
        case 2: w.create_with(SA{x}, SB{x}, SC{x}, SFlag{}); break;
        case 3: w.create_with(SB{x}, SC{x * 2}); break;
        default: w.create_with(SC{x}, SFlag{}); break;
        }
    }
    w.set_resource(SCounter{0});
}

using Row = std::tuple<uint32_t, uint32_t, int64_t, int64_t, int64_t, bool, int>;

std::vector<Row> snapshot(ecs::World& w) {
    std::vector<Row> rows;
    w.each<ecs::Optional<const SA>, ecs::Optional<const SB>, ecs::Optional<const SC>, ecs::Optional<const SFlag>,
           ecs::Optional<const SOrder>>([&](ecs::Entity e, const SA* a, const SB* b, const SC* c, const SFlag* f, const SOrder* o) {
        rows.emplace_back(e.index, e.generation, a ? a->v : -1, b ? b->v : -1, c ? c->v : -1, f != nullptr, o ? o->v : -1);
    });
    std::sort(rows.begin(), rows.end());
    rows.emplace_back(0u, 0u, w.resource<SCounter>().v, 0, 0, false, 0);
    return rows;
}

/// Adds system number `kind` (one of 12 shapes) to `s`.
void add_system(ecs::Schedule& s, int kind, int n) {
    const std::string name = "s" + std::to_string(n) + "k" + std::to_string(kind);
    switch (kind) {
    case 0: s.add<SA, const SB>(name, [](SA& a, const SB& b) { a.v = (a.v * 3 + b.v) % 1000003; }); break;
    case 1: s.add<SB, const SC>(name, [](SB& b, const SC& c) { b.v = (b.v + c.v * 5) % 1000003; }); break;
    case 2: s.add<SC, const SA>(name, [](SC& c, const SA& a) { c.v = (c.v * 7 + a.v) % 1000003; }); break;
    case 3: s.add<SA>(name, ecs::Without<SFlag>{}, [](SA& a) { a.v += 13; }); break;
    case 4: s.add<SA>(name, ecs::With<SFlag>{}, [](SA& a) { a.v *= 2; }); break;
    case 5:
        s.add(name, ecs::Reads<SA>{}, ecs::Writes<SCounter>{}, [](ecs::World& w) {
            int64_t sum = 0;
            w.each<const SA>([&](const SA& a) { sum += a.v; });
            w.resource<SCounter>().v = (w.resource<SCounter>().v * 31 + sum) % 1000003;
        });
        break;
    case 6:
        s.add(name, ecs::Reads<SCounter, SB>{}, ecs::Writes<SC>{}, [](ecs::World& w) {
            const int64_t k = w.resource<const SCounter>().v % 17;
            w.each<SC, const SB>([&](SC& c, const SB& b) { c.v = (c.v + b.v * k) % 1000003; });
        });
        break;
    case 7: // commands from a per-entity system
        s.add<const SA, const SB>(name, [](ecs::CommandBuffer& cb, ecs::Entity e, const SA& a, const SB& b) {
            if ((a.v + b.v) % 11 == 0) cb.add(e, SOrder{static_cast<int>(a.v)});
            if ((a.v + b.v) % 13 == 0) cb.create_with(SC{a.v});
        });
        break;
    case 8: // commands from a world system
        s.add(name, ecs::Reads<SC>{}, [](ecs::World& w, ecs::CommandBuffer& cb) {
            w.each<const SC>([&](ecs::Entity e, const SC& c) {
                if (c.v % 19 == 3) cb.destroy(e);
                if (c.v % 23 == 4) cb.remove<SC>(e);
            });
        });
        break;
    case 9: // exclusive: structural changes directly
        s.add(name, [n](ecs::World& w) {
            for (int i = 0; i < 5; ++i) w.create_with(SA{n * 10 + i}, SB{i});
            w.resource<SCounter>().v += 1;
        });
        break;
    case 10: s.add<SB>(name, ecs::Without<SA>{}, [](SB& b) { b.v = (b.v * 5 + 1) % 1000003; }); break;
    default: s.add<SB, ecs::Optional<const SC>>(name, ecs::With<SA>{}, [](SB& b, const SC* c) { b.v += c ? c->v : 1; }); break;
    }
}

} // namespace

TEST_CASE("schedule: run(world) and run(world, pool) give identical worlds", "[parallel][schedule]") {
    ecs::ThreadPool pool(4);
    for (uint32_t seed = 1; seed <= 40; ++seed) {
        std::mt19937 rng(seed * 7919u);
        ecs::Schedule s;
        const int count = 4 + static_cast<int>(rng() % 12);
        for (int i = 0; i < count; ++i) {
            add_system(s, static_cast<int>(rng() % 12), i);
            if (rng() % 5 == 0) s.sync();
        }
        ecs::World sequential, parallel;
        build(sequential, seed);
        build(parallel, seed);
        for (int frame = 0; frame < 3; ++frame) {
            s.run(sequential);
            s.run(parallel, pool);
        }
        INFO("seed " << seed << ": " << s.plan_string());
        REQUIRE(snapshot(parallel) == snapshot(sequential));
        CHECK(parallel.check_invariants());
        CHECK(!parallel.iterating());
    }
}

namespace {
/// Per-type activity counters: a system marks what it touches while it runs, and records a
/// violation when a writer overlaps anyone touching its type, or a reader overlaps a writer.
struct Activity {
    std::atomic<int> readers[3];
    std::atomic<int> writers[3];
    std::atomic<int> violations{0};
    std::atomic<int> exclusive_running{0};
    std::atomic<int> running{0};
    Activity() {
        for (int i = 0; i < 3; ++i) {
            readers[i].store(0);
            writers[i].store(0);
        }
    }
    void enter(int type, bool write) {
        ++running;
        if (exclusive_running.load() != 0) ++violations;
        if (write) {
            if (writers[type].fetch_add(1) != 0 || readers[type].load() != 0) ++violations;
        } else {
            readers[type].fetch_add(1);
            if (writers[type].load() != 0) ++violations;
        }
    }
    void leave(int type, bool write) {
        if (write) --writers[type];
        else --readers[type];
        --running;
    }
};

void busy_wait() {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(300);
    while (std::chrono::steady_clock::now() < until) std::this_thread::yield();
}
} // namespace

TEST_CASE("schedule: a writer never overlaps a reader or writer of its type; exclusive runs alone",
          "[parallel][schedule]") {
    ecs::ThreadPool pool(4);
    Activity act;
    ecs::Schedule s;
    // World systems over SA (0), SB (1), SC (2), declared; each marks its access while running.
    const int shapes[][2] = {{0, 0}, {0, 1}, {1, 1}, {0, 0}, {2, 1}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}};
    int n = 0;
    for (const auto& shape : shapes) {
        const int type = shape[0];
        const bool write = shape[1] != 0;
        auto body = [&act, type, write](ecs::World&) {
            act.enter(type, write);
            busy_wait();
            act.leave(type, write);
        };
        const std::string name = "w" + std::to_string(n++);
        if (type == 0) {
            if (write) s.add(name, ecs::Writes<SA>{}, body);
            else s.add(name, ecs::Reads<SA>{}, body);
        } else if (type == 1) {
            if (write) s.add(name, ecs::Writes<SB>{}, body);
            else s.add(name, ecs::Reads<SB>{}, body);
        } else {
            if (write) s.add(name, ecs::Writes<SC>{}, body);
            else s.add(name, ecs::Reads<SC>{}, body);
        }
        if (n == 5) {
            s.add("exclusive", [&act](ecs::World&) {
                if (act.running.load() != 0) ++act.violations;
                ++act.exclusive_running;
                busy_wait();
                --act.exclusive_running;
            });
        }
    }
    ecs::World w;
    for (int frame = 0; frame < 20; ++frame) s.run(w, pool);
    CHECK(act.violations.load() == 0);
    const auto plan = s.plan();
    bool exclusive_alone = false;
    for (const auto& wave : plan)
        if (wave.exclusive) exclusive_alone = wave.systems.size() == 1 && wave.systems[0] == "exclusive";
    CHECK(exclusive_alone);
}

TEST_CASE("schedule: the plan puts conflicting systems in order and disjoint writers together", "[parallel][schedule]") {
    ecs::Schedule s;
    s.add<SA, const SB>("a_writes", [](SA&, const SB&) {});
    s.add<const SA>("a_reads", [](const SA&) {});
    s.add<SC>("c_writes", [](SC&) {});
    s.add<SA>("a_with_flag", ecs::With<SFlag>{}, [](SA&) {});
    s.add<SA>("a_without_flag", ecs::Without<SFlag>{}, [](SA&) {});
    s.add("ui", [](ecs::World&) {});
    s.add<const SA>("after_ui", [](const SA&) {});
    s.sync();
    s.add("reads_c", ecs::Reads<SC>{}, [](ecs::World&) {});
    s.add("writes_b", ecs::Writes<SB>{}, [](ecs::World&) {});
    INFO(s.plan_string());
    // a_writes and c_writes share wave 1; a_reads and a_with_flag follow a_writes; a_without_flag
    // is disjoint from a_with_flag (Without/With of SFlag) but follows a_reads.
    CHECK(s.plan_string() == "[a_writes, c_writes] [a_reads] [a_with_flag, a_without_flag] [!ui] [after_ui] | "
                             "[reads_c, writes_b]");
    const auto plan = s.plan();
    REQUIRE(plan.size() == 6);
    CHECK(plan[2].systems == std::vector<std::string>{"a_with_flag", "a_without_flag"});
    CHECK(plan[3].exclusive);
    CHECK(plan[4].sync_after);
    CHECK(!plan[5].sync_after);

    // Disjoint writers share a wave; a third writer overlapping both follows them.
    ecs::Schedule t;
    t.add<SA>("one", ecs::With<SFlag>{}, [](SA&) {});
    t.add<SA>("two", ecs::Without<SFlag>{}, [](SA&) {});
    t.add<SA>("three", ecs::With<SB>{}, [](SA&) {});
    CHECK(t.plan_string() == "[one, two] [three]");
}

TEST_CASE("schedule: buffers are flushed at sync points and at the end, in insertion order", "[parallel][schedule]") {
    ecs::ThreadPool pool(4);
    ecs::World w;
    ecs::Schedule s;
    std::vector<size_t> seen_before_sync;
    // Four independent systems in one wave, each creating entities tagged with its number.
    for (int i = 0; i < 4; ++i)
        s.add("make" + std::to_string(i), ecs::Reads<SA>{}, [i](ecs::World&, ecs::CommandBuffer& cb) {
            for (int k = 0; k < 3; ++k) cb.create_with(SOrder{i * 10 + k});
        });
    s.add("count_before", [&](ecs::World& world) { seen_before_sync.push_back(world.count<SOrder>()); });
    s.sync();
    std::vector<int> order_after_sync;
    s.add("count_after", ecs::Reads<SOrder>{}, [&](ecs::World& world) {
        world.each<const SOrder>([&](const SOrder& o) { order_after_sync.push_back(o.v); });
    });
    s.add("late", ecs::Reads<SA>{}, [](ecs::World&, ecs::CommandBuffer& cb) { cb.create_with(SOrder{99}); });
    s.run(w, pool);
    CHECK(seen_before_sync == std::vector<size_t>{0});
    CHECK(order_after_sync == std::vector<int>{0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32});
    CHECK(w.count<SOrder>() == 13); // the last buffer is flushed at the end of run
    std::vector<std::pair<uint32_t, int>> by_entity;
    w.each<const SOrder>([&](ecs::Entity e, const SOrder& o) { by_entity.emplace_back(e.index, o.v); });
    std::sort(by_entity.begin(), by_entity.end());
    std::vector<int> created_order;
    for (const auto& p : by_entity) created_order.push_back(p.second);
    CHECK(created_order == std::vector<int>{0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32, 99});
}

TEST_CASE("schedule: run ends with update_events", "[parallel][schedule]") {
    ecs::World w;
    ecs::Schedule s;
    s.add("sender", [](ecs::World& world) { world.send(SEvent{1}); });
    ecs::EventReader<SEvent> reader;
    s.run(w);
    size_t first = reader.read(w, [](const SEvent&) {});
    CHECK(first == 1);
    ecs::EventReader<SEvent> late;
    ecs::Schedule empty;
    empty.run(w); // the second update_events since the send: the event is gone
    CHECK(late.read(w, [](const SEvent&) {}) == 0);
}

TEST_CASE("schedule: pools come and go cleanly around runs", "[parallel][schedule]") {
    ecs::World w;
    build(w, 5);
    ecs::Schedule s;
    for (int i = 0; i < 12; ++i) add_system(s, i, i);
    for (int round = 0; round < 4; ++round) {
        ecs::ThreadPool pool(static_cast<size_t>(1 + round));
        s.run(w, pool);
        s.run(w, pool);
    }
    CHECK(w.check_invariants());
}

namespace {
struct MtValue {
    int64_t v;
};
struct MtThread {
    std::thread::id id;
};
struct MtOther {
    int64_t v;
};
} // namespace

namespace {
/// Makes "some rows left the calling thread" deterministic for a pooled multi_threaded system. On a
/// loaded machine the calling thread could take every batch before a worker wakes, so its first
/// row of a run waits (0.5 s at most) until a worker has run a row: the other batches stay free.
struct CallerGate {
    std::thread::id caller = std::this_thread::get_id();
    std::atomic<bool> worker_ran{false};
    std::atomic<bool> caller_waited{false};
    void reset() {
        worker_ran.store(false);
        caller_waited.store(false);
    }
    void at_row() {
        if (std::this_thread::get_id() != caller) {
            worker_ran.store(true);
        } else if (!caller_waited.exchange(true)) {
            for (int k = 0; k < 5000 && !worker_ran.load(); ++k) std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
    }
};
} // namespace

TEST_CASE("schedule: a multi_threaded system alone in its wave cuts its rows across the pool", "[parallel][schedule]") {
    // Several archetypes (a tag splits them), Changed stamps, a skipped neighbour: the world after a
    // pooled run equals the world after the same runs on the calling thread.
    struct Tag {};
    const auto fill = [](ecs::World& w) {
        for (int64_t i = 0; i < 40000; ++i) {
            const ecs::Entity e = w.create_with(MtValue{i}, MtThread{});
            if (i % 3 == 0) w.add<Tag>(e);
        }
        w.create_with(MtOther{0});
    };
    const auto schedule = [](ecs::Schedule& s, bool& other_on, CallerGate* gate) {
        s.add<MtValue, MtThread>("heavy", [gate](MtValue& v, MtThread& t) {
             v.v = v.v * 3 + 1;
             t.id = std::this_thread::get_id();
             if (gate != nullptr) gate->at_row();
         }).multi_threaded();
        s.add<MtOther>("other", [](MtOther& o) { ++o.v; }).run_if([&other_on](const ecs::World&) { return other_on; });
    };
    ecs::World pooled, inline_world;
    fill(pooled);
    fill(inline_world);
    bool other_on = false;
    ecs::Schedule sp, si;
    CallerGate gate;
    schedule(sp, other_on, &gate);
    schedule(si, other_on, nullptr);
    REQUIRE(sp.plan().size() == 1); // one wave: heavy and other
    ecs::ThreadPool pool(4);
    const std::thread::id caller = std::this_thread::get_id();
    bool several_threads = false;
    for (int run = 0; run < 6; ++run) {
        other_on = run % 2 == 1; // alone in its wave on even runs: split; beside `other` on odd runs
        gate.reset();
        sp.run(pooled, pool);
        si.run(inline_world);
        if (!other_on) {
            size_t off_caller = 0;
            pooled.each<const MtThread>([&](const MtThread& t) {
                if (t.id != caller) ++off_caller;
            });
            several_threads = several_threads || off_caller > 0;
        }
    }
    std::vector<int64_t> a, b;
    pooled.each<const MtValue>([&](const MtValue& v) { a.push_back(v.v); });
    inline_world.each<const MtValue>([&](const MtValue& v) { b.push_back(v.v); });
    CHECK(a == b);
    CHECK(a.size() == 40000);
    int64_t other = 0;
    pooled.each<const MtOther>([&](const MtOther& o) { other = o.v; });
    CHECK(other == 3);
    CHECK(several_threads); // a 4-thread pool took some of 40,000 rows off the calling thread
    CHECK(sp.stats()[0].runs == 6);
    CHECK(pooled.check_invariants());
}

TEST_CASE("schedule: a multi_threaded system sees Changed stamps like a plain one", "[parallel][schedule]") {
    ecs::World w;
    w.track_changes<MtValue>();
    for (int64_t i = 0; i < 20000; ++i) w.create_with(MtValue{i});
    ecs::Schedule s;
    s.add<MtValue>("heavy", [](MtValue& v) { v.v += 1; }).multi_threaded();
    ecs::ThreadPool pool(2);
    auto changed = w.query<const MtValue>(ecs::Changed<MtValue>{});
    size_t seen = 0;
    changed.each([&](const MtValue&) { ++seen; }); // everything so far
    CHECK(seen == 20000);
    seen = 0;
    changed.each([&](const MtValue&) { ++seen; });
    CHECK(seen == 0);
    s.run(w, pool); // the rows were written on two threads: every one is stamped
    changed.each([&](const MtValue&) { ++seen; });
    CHECK(seen == 20000);
}

namespace {
struct MtSparse;
struct MtSparse2;
} // namespace
template <>
struct ecs::component_traits<MtSparse> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};
template <>
struct ecs::component_traits<MtSparse2> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};
namespace {
struct MtSparse {
    int64_t v;
};
struct MtSparse2 {
    int64_t v;
};
struct MtMixed {
    int64_t v;
};
} // namespace

TEST_CASE("schedule: multi_threaded systems split beside other systems of their wave", "[parallel][schedule]") {
    // One wave: a table system and a sparse-only system (both multi_threaded), a mixed one
    // (multi_threaded, table and sparse terms) and a plain one. Some rows disabled, one type tracked.
    // Pooled runs equal inline runs; the split systems' rows leave the calling thread.
    const auto fill = [](ecs::World& w) {
        w.track_changes<MtValue>();
        for (int64_t i = 0; i < 30000; ++i) {
            const ecs::Entity e = w.create_with(MtValue{i}, MtThread{}, MtMixed{i});
            if (i % 4 == 0) w.add(e, MtSparse{i});
            if (i % 3 == 0) w.add(e, MtSparse2{i + 1});
            if (i % 97 == 0) w.disable(e);
        }
        for (int64_t i = 0; i < 500; ++i) w.create_with(MtOther{i});
    };
    const auto schedule = [](ecs::Schedule& s, CallerGate* gate) {
        s.add<MtValue, MtThread>("table", [gate](MtValue& v, MtThread& t) {
             v.v = v.v * 3 + 1;
             t.id = std::this_thread::get_id();
             if (gate != nullptr) gate->at_row();
         }).multi_threaded();
        s.add<MtSparse>("sparse", [](ecs::Entity e, MtSparse& p) { p.v += static_cast<int64_t>(e.index); }).multi_threaded();
        s.add<MtMixed, const MtSparse2>("mixed", [](MtMixed& m, const MtSparse2& p) { m.v += p.v; }).multi_threaded();
        s.add<MtOther>("plain", [](MtOther& o) { o.v *= 2; });
    };
    ecs::World pooled, inline_world;
    fill(pooled);
    fill(inline_world);
    ecs::Schedule sp, si;
    CallerGate gate;
    schedule(sp, &gate);
    schedule(si, nullptr);
    REQUIRE(sp.plan().size() == 1); // no conflict: one wave of four systems
    ecs::ThreadPool pool(4);
    auto changed = pooled.query<const MtValue>(ecs::Changed<MtValue>{});
    size_t seen = 0;
    changed.each([&](const MtValue&) { ++seen; });
    for (int run = 0; run < 4; ++run) {
        gate.reset();
        sp.run(pooled, pool);
        si.run(inline_world);
    }
    const auto values = [](ecs::World& w) {
        std::vector<int64_t> out;
        w.each<const MtValue, const MtMixed>(ecs::IncludeDisabled{}, [&](const MtValue& v, const MtMixed& m) {
            out.push_back(v.v);
            out.push_back(m.v);
        });
        w.each<const MtSparse>(ecs::IncludeDisabled{}, [&](const MtSparse& p) { out.push_back(p.v); });
        w.each<const MtOther>([&](const MtOther& o) { out.push_back(o.v); });
        return out;
    };
    CHECK(values(pooled) == values(inline_world));
    size_t off_caller = 0;
    const std::thread::id caller = std::this_thread::get_id();
    pooled.each<const MtThread>([&](const MtThread& t) {
        if (t.id != caller) ++off_caller;
    });
    CHECK(off_caller > 0);
    seen = 0;
    changed.each([&](const MtValue&) { ++seen; });
    CHECK(seen == 30000 - (30000 + 96) / 97); // every enabled row was written, and stamped
    for (const ecs::Schedule::SystemStats& st : sp.stats()) CHECK(st.runs == 4);
    CHECK(pooled.check_invariants());
}

namespace {
struct MtChildOf {};
struct MtDepth {
    int64_t v;
};
} // namespace
template <>
struct ecs::relation_traits<MtChildOf> {
    static constexpr bool exclusive = true;
};

TEST_CASE("schedule: a multi_threaded system with Cascade keeps its order beside others", "[parallel][schedule]") {
    // Cascade<R> visits targets before their sources: a split would lose that, so the system stays
    // one task in a shared wave (and each_par runs it inline when it is alone).
    ecs::World w;
    std::vector<ecs::Entity> chain;
    for (int i = 0; i < 6000; ++i) {
        const ecs::Entity e = w.create_with(MtDepth{0});
        if (!chain.empty()) w.relate<MtChildOf>(e, chain[static_cast<size_t>(i) / 2]); // a tree
        chain.push_back(e);
    }
    for (int64_t i = 0; i < 20000; ++i) w.create_with(MtOther{i});
    ecs::World* world = &w;
    ecs::Schedule s;
    s.add<MtDepth>("depth", ecs::Cascade<MtChildOf>{}, [world](ecs::Entity e, MtDepth& d) {
         world->each_target<MtChildOf>(e, [&](ecs::Entity parent) { d.v = world->get<MtDepth>(parent).v + 1; });
     }).multi_threaded();
    s.add<MtOther>("other", [](MtOther& o) { ++o.v; }).multi_threaded();
    ecs::ThreadPool pool(4);
    s.run(w, pool);
    // Each depth is its parent's plus one only if the parent was visited first.
    bool ordered = true;
    for (size_t i = 1; i < chain.size(); ++i)
        if (w.get<MtDepth>(chain[i]).v != w.get<MtDepth>(chain[i / 2]).v + 1) ordered = false;
    CHECK(ordered);
    CHECK(w.get<MtDepth>(chain[0]).v == 0);
}
