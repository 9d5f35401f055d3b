// The game loop's schedule part: ecs::Time, run_if, interval, stats, State<S> with on_enter /
// on_exit / in_state, FixedStep, and World::resource<T>() const for conditions.
#include <ecs/schedule.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "catch.hpp"
#include "game_loop_types.hpp"

namespace {

using LoopPos = gl_test::Pos;
using gl_test::Paused;
enum class Game { Menu, Playing, Over };

} // namespace

TEST_CASE("loop: run(world, dt) sets ecs::Time before the systems run", "[schedule][loop]") {
    ecs::World w;
    ecs::Schedule s;
    std::vector<ecs::Time> seen;
    s.add("t", [&](ecs::World& world) { seen.push_back(world.resource<ecs::Time>()); });
    s.run(w, 0.25);
    s.run(w, 0.5);
    REQUIRE(seen.size() == 2);
    CHECK(seen[0].delta == 0.25);
    CHECK(seen[0].elapsed == 0.25);
    CHECK(seen[0].frame == 1);
    CHECK(seen[1].delta == 0.5);
    CHECK(seen[1].elapsed == 0.75);
    CHECK(seen[1].frame == 2);
}

TEST_CASE("loop: run(world) without a delta does not touch Time", "[schedule][loop]") {
    ecs::World w;
    ecs::Schedule s;
    int n = 0;
    s.add("t", [&](ecs::World&) { ++n; });
    s.run(w);
    CHECK(n == 1);
    CHECK(!w.has_resource<ecs::Time>());
    s.run(w, 1.0);
    s.run(w);
    CHECK(w.resource<ecs::Time>().frame == 1);
    CHECK(w.resource<ecs::Time>().elapsed == 1.0);
}

TEST_CASE("loop: World::resource<T>() const and try_resource<T>() const", "[schedule][loop]") {
    ecs::World w;
    const ecs::World& cw = w;
    CHECK(cw.try_resource<Paused>() == nullptr);
    w.set_resource(Paused{true});
    CHECK(cw.resource<Paused>().on);
    CHECK(cw.try_resource<Paused>() == &w.resource<Paused>());
}

TEST_CASE("loop: run_if skips a system, which records no commands and counts in skipped", "[schedule][loop]") {
    ecs::World w;
    w.set_resource(Paused{true});
    for (int i = 0; i < 10; ++i) w.create_with(LoopPos{float(i), 0});
    ecs::Schedule s;
    s.add<LoopPos>("move", [](LoopPos& p) { p.x += 1; }).run_if([](const ecs::World& world) { return !world.resource<Paused>().on; });
    s.add<const LoopPos>("spawn", [](ecs::CommandBuffer& cb, const LoopPos& p) { cb.create_with(LoopPos{p.x, 0}); })
        .run_if([](const ecs::World& world) { return !world.resource<Paused>().on; });
    s.run(w, 0.1);
    s.run(w, 0.1);
    CHECK(w.count<LoopPos>() == 10);
    auto st = s.stats();
    REQUIRE(st.size() == 2);
    CHECK(st[0].name == "move");
    CHECK(st[0].runs == 0);
    CHECK(st[0].skipped == 2);
    CHECK(st[1].skipped == 2);
    w.resource<Paused>().on = false;
    s.run(w, 0.1);
    CHECK(w.count<LoopPos>() == 20);
    st = s.stats();
    CHECK(st[0].runs == 1);
    CHECK(st[0].skipped == 2);
    CHECK(st[0].avg_ns >= 0.0);
    CHECK(double(st[0].last_ns) >= 0.0);
}

TEST_CASE("loop: several run_if on one system must all hold", "[schedule][loop]") {
    ecs::World w;
    ecs::Schedule s;
    int n = 0;
    bool a = true, b = false;
    s.add("x", [&](ecs::World&) { ++n; }).run_if([&](const ecs::World&) { return a; }).run_if([&](const ecs::World&) { return b; });
    s.run(w);
    CHECK(n == 0);
    b = true;
    s.run(w);
    CHECK(n == 1);
}

TEST_CASE("loop: a condition is evaluated just before its wave and sees the earlier waves", "[schedule][loop]") {
    ecs::World w;
    w.set_resource(Paused{false});
    w.set_resource(gl_test::Health{});
    ecs::Schedule s;
    s.add("pause", [](ecs::World& world) { world.resource<Paused>().on = true; }); // exclusive: its own wave
    s.add("count", ecs::Writes<gl_test::Health>{}, [](ecs::World& world) { ++world.resource<gl_test::Health>().hp; })
        .run_if([](const ecs::World& world) { return !world.resource<Paused>().on; });
    s.run(w, 0.016);
    CHECK(w.resource<gl_test::Health>().hp == 0);
}

TEST_CASE("loop: interval runs a system at most once per period of Time", "[schedule][loop]") {
    ecs::World w;
    ecs::Schedule s;
    std::vector<uint64_t> frames;
    s.add("spawn", [&](ecs::World& world) { frames.push_back(world.resource<ecs::Time>().frame); }).interval(0.5);
    for (int i = 0; i < 20; ++i) s.run(w, 0.1); // 2 s: due at 0.5, 1.0, 1.5, 2.0
    CHECK(frames == std::vector<uint64_t>{5, 10, 15, 20});
    CHECK(s.stats()[0].skipped == 16);
    // A frame that jumps past several due times runs it once.
    s.run(w, 3.0);
    s.run(w, 0.1);
    CHECK(frames.size() == 5);
}

TEST_CASE("loop: state transitions run on_exit then on_enter before any other system", "[schedule][loop]") {
    ecs::World w;
    w.set_resource(ecs::State<Game>{Game::Menu});
    ecs::Schedule s;
    std::vector<std::string> log;
    s.add("play", [&](ecs::World&) { log.push_back("play"); }).run_if(ecs::in_state(Game::Playing));
    s.add("menu", [&](ecs::World&) { log.push_back("menu"); }).run_if(ecs::in_state(Game::Menu));
    s.on_exit(Game::Menu, "leave_menu", [&](ecs::World&) { log.push_back("exit menu"); });
    s.on_enter(Game::Playing, "spawn_level", [&](ecs::World& world, ecs::CommandBuffer& cb) {
        log.push_back("enter playing");
        CHECK(world.resource<ecs::State<Game>>().current() == Game::Playing);
        cb.create_with(LoopPos{7, 0});
    });
    s.on_enter(Game::Over, "never", [&](ecs::World&) { log.push_back("enter over"); });
    s.run(w, 0.1);
    CHECK(log == std::vector<std::string>{"menu"});
    log.clear();
    w.resource<ecs::State<Game>>().set_next(Game::Over);
    w.resource<ecs::State<Game>>().set_next(Game::Playing); // the last one applies
    CHECK(w.resource<ecs::State<Game>>().current() == Game::Menu);
    s.run(w, 0.1);
    CHECK(log == std::vector<std::string>{"exit menu", "enter playing", "play"});
    CHECK(w.count<LoopPos>() == 1); // the on_enter system's commands were flushed
    log.clear();
    s.run(w, 0.1);
    CHECK(log == std::vector<std::string>{"play"});
    const auto st = s.stats();
    REQUIRE(st.size() == 5);
    CHECK(st[2].name == "leave_menu");
    CHECK(st[2].runs == 1);
    CHECK(st[4].runs == 0);
}

TEST_CASE("loop: in_state alone teaches the schedule its state type", "[schedule][loop]") {
    ecs::World w;
    w.set_resource(ecs::State<Game>{Game::Menu});
    ecs::Schedule s;
    int n = 0;
    s.add("play", [&](ecs::World&) { ++n; }).run_if(ecs::in_state(Game::Playing));
    w.resource<ecs::State<Game>>().set_next(Game::Playing);
    s.run(w);
    CHECK(n == 1);
    CHECK(!w.resource<ecs::State<Game>>().pending());
}

TEST_CASE("loop: FixedStep runs the schedule per whole step, caps at max_steps, gives alpha", "[schedule][loop]") {
    ecs::World w;
    ecs::Schedule physics;
    std::vector<ecs::Time> seen;
    physics.add("step", [&](ecs::World& world) { seen.push_back(world.resource<ecs::Time>()); });
    ecs::FixedStep step(0.01);
    CHECK(step.max_steps() == 8);
    CHECK(step.advance(w, physics, 0.025) == 2);
    CHECK(step.alpha() == Approx(0.5));
    CHECK(!w.has_resource<ecs::Time>()); // the fixed clock is not left behind
    CHECK(step.advance(w, physics, 0.005) == 1);
    CHECK(step.alpha() == Approx(0.0).margin(1e-9));
    REQUIRE(seen.size() == 3);
    CHECK(seen[2].delta == 0.01);
    CHECK(seen[2].frame == 3);
    CHECK(seen[2].elapsed == Approx(0.03));
    // A long frame: at most max_steps, the rest dropped.
    CHECK(step.advance(w, physics, 1.0) == 8);
    CHECK(step.alpha() < 1.0);
    // 60 frames of 1/60 s make 60 steps despite rounding.
    ecs::FixedStep sixty(1.0 / 60);
    size_t total = 0;
    for (int i = 0; i < 60; ++i) total += sixty.advance(w, physics, 1.0 / 60);
    CHECK(total == 60);
    // The frame's Time is restored around the fixed runs.
    ecs::Schedule frame;
    frame.add("f", [](ecs::World&) {});
    frame.run(w, 0.5);
    sixty.advance(w, physics, 0.1);
    CHECK(w.resource<ecs::Time>().delta == 0.5);
    CHECK(w.resource<ecs::Time>().frame == 1);
}
