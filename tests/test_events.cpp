// Events (ROADMAP 1.0 B, "Events"): send, EventReader, update_events. Double buffering, missed
// counts, reader copies, counted lifetimes (PITFALLS 1-3), move-only and over-aligned events, memory
// reuse across frames, sends from inside a read.
#include <ecs/world.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "lifetime.hpp"

using ecs::EventReader;
using ecs::World;

namespace {

struct Hit {
    int value = 0;
};
struct Other {
    int value = 0;
};

struct CountedTag {};
using CountedEvent = lifetime::Counted<CountedTag>;

/// Short strings live inside the std::string object: memcpy relocation would make them dangle.
struct Named {
    std::string name;
    int id = 0;
};

struct MoveOnly {
    std::unique_ptr<int> value;
    explicit MoveOnly(int v) : value(std::make_unique<int>(v)) {}
};

struct alignas(64) Wide {
    float lanes[16] = {};
    int id = 0;
};

/// Larger than a page: one event per page.
struct Huge {
    char bytes[5000] = {};
    int id = 0;
};

/// Reads every pending Hit with `reader`, appending the values.
std::vector<int> read_all(EventReader<Hit>& reader, World& world) {
    std::vector<int> out;
    const size_t n = reader.read(world, [&](const Hit& h) { out.push_back(h.value); });
    CHECK(n == out.size());
    return out;
}

std::vector<int> iota(int first, int last) {
    std::vector<int> v;
    for (int i = first; i < last; ++i) v.push_back(i);
    return v;
}

} // namespace

TEST_CASE("events: a reader that reads once per frame sees each event exactly once, in either order", "[events]") {
    World world;
    EventReader<Hit> before; // runs before the senders of its frame
    EventReader<Hit> after;  // runs after them
    std::vector<int> seen_before;
    std::vector<int> seen_after;
    int next = 0;
    for (int frame = 0; frame < 20; ++frame) {
        before.read(world, [&](const Hit& h) { seen_before.push_back(h.value); });
        const int count = frame % 4; // frames with 0..3 events
        for (int i = 0; i < count; ++i) world.send(Hit{next++});
        after.read(world, [&](const Hit& h) { seen_after.push_back(h.value); });
        world.update_events();
    }
    before.read(world, [&](const Hit& h) { seen_before.push_back(h.value); }); // the last frame's
    CHECK(seen_before == iota(0, next));
    CHECK(seen_after == iota(0, next));
    CHECK(before.missed() == 0);
    CHECK(after.missed() == 0);
}

TEST_CASE("events: an event stays readable until the second update_events after it was sent", "[events]") {
    World world;
    world.send(Hit{1});
    SECTION("read after one update") {
        world.update_events();
        EventReader<Hit> r;
        CHECK(read_all(r, world) == std::vector<int>{1});
        CHECK(r.missed() == 0);
    }
    SECTION("dropped by the second update, counted as missed") {
        world.update_events();
        world.update_events();
        EventReader<Hit> r;
        CHECK(read_all(r, world).empty());
        CHECK(r.missed() == 1);
    }
}

TEST_CASE("events: a reader that reads less often misses the dropped events and counts them", "[events]") {
    World world;
    EventReader<Hit> every_frame;
    EventReader<Hit> every_third;
    std::vector<int> got;
    int next = 0;
    for (int frame = 0; frame < 9; ++frame) {
        world.send(Hit{next++});
        world.send(Hit{next++});
        (void)read_all(every_frame, world);
        if (frame % 3 == 2) {
            const std::vector<int> part = read_all(every_third, world);
            got.insert(got.end(), part.begin(), part.end());
        }
        world.update_events();
    }
    // Read at frames 2, 5, 8: each time the events of frames k-1 and k are still there, frame
    // k-2's were dropped.
    CHECK(got == std::vector<int>{2, 3, 4, 5, 8, 9, 10, 11, 14, 15, 16, 17});
    CHECK(every_third.missed() == 6);
    CHECK(every_frame.missed() == 0);
    // Missed counts are cumulative and a reader that catches up misses nothing more.
    world.update_events();
    world.update_events();
    CHECK(read_all(every_third, world).empty());
    CHECK(every_third.missed() == 6);
}

TEST_CASE("events: readers are independent, and a copy continues from the same position", "[events]") {
    World world;
    EventReader<Hit> a;
    EventReader<Hit> b;
    world.send(Hit{1});
    world.send(Hit{2});
    CHECK(read_all(a, world) == std::vector<int>{1, 2});
    world.send(Hit{3});
    EventReader<Hit> copy = a; // at event 3
    CHECK(read_all(b, world) == std::vector<int>{1, 2, 3});
    CHECK(read_all(a, world) == std::vector<int>{3});
    CHECK(read_all(copy, world) == std::vector<int>{3});
    CHECK(read_all(a, world).empty());
    EventReader<Hit> assigned;
    assigned = b;
    world.send(Hit{4});
    CHECK(read_all(assigned, world) == std::vector<int>{4});
    CHECK(read_all(b, world) == std::vector<int>{4});
}

TEST_CASE("events: channels are per type and per world", "[events]") {
    World w1;
    World w2;
    w1.send(Hit{1});
    w2.send(Hit{2});
    w1.send(Other{10});
    EventReader<Hit> h1;
    EventReader<Hit> h2;
    EventReader<Other> o1;
    EventReader<Other> o2;
    CHECK(read_all(h1, w1) == std::vector<int>{1});
    CHECK(read_all(h2, w2) == std::vector<int>{2});
    std::vector<int> others;
    CHECK(o1.read(w1, [&](const Other& o) { others.push_back(o.value); }) == 1);
    CHECK(o2.read(w2, [&](const Other& o) { others.push_back(o.value); }) == 0);
    CHECK(others == std::vector<int>{10});
}

TEST_CASE("events: reading a type never sent, or a world without events, finds nothing", "[events]") {
    World world;
    EventReader<Hit> r;
    CHECK(read_all(r, world).empty());
    world.update_events(); // no channel: nothing to do
    CHECK(r.missed() == 0);
    world.send(Other{1});
    CHECK(read_all(r, world).empty());
    const World& cw = world;
    CHECK(r.read(cw, [](const Hit&) {}) == 0);
}

TEST_CASE("events: read through a const World", "[events]") {
    World world;
    world.send(Hit{7});
    world.send(Hit{8});
    const World& cw = world;
    EventReader<Hit> r;
    std::vector<int> got;
    CHECK(r.read(cw, [&](const Hit& h) { got.push_back(h.value); }) == 2);
    CHECK(got == std::vector<int>{7, 8});
    CHECK(r.read(cw, [&](const Hit& h) { got.push_back(h.value); }) == 0);
}

TEST_CASE("events: every event constructed is destroyed exactly once", "[events][lifetime]") {
    CountedEvent::reset();
    {
        World world;
        EventReader<CountedEvent> r;
        std::vector<int> got;
        for (int frame = 0; frame < 5; ++frame) {
            for (int i = 0; i < 300; ++i) world.send(CountedEvent(frame * 1000 + i)); // several pages
            CountedEvent lvalue(frame);
            world.send(lvalue); // copied
            CHECK(lvalue.value() == frame);
            r.read(world, [&](const CountedEvent& e) { got.push_back(e.value()); });
            world.update_events();
            // Two frames at most are alive: this one's and the previous one's.
            CHECK(CountedEvent::tally().alive() <= 2 * 301);
        }
        CHECK(got.size() == 5 * 301);
        CHECK(CountedEvent::tally().bad_reads == 0);
        world.update_events();
        world.update_events();
        CHECK(CountedEvent::tally().alive() == 0); // all dropped by update_events
        for (int i = 0; i < 10; ++i) world.send(CountedEvent(i));
        world.update_events();
        for (int i = 0; i < 10; ++i) world.send(CountedEvent(i));
        CHECK(CountedEvent::tally().alive() == 20);
    } // the world goes with 20 events in two frames
    INFO("constructed " << CountedEvent::tally().constructed << ", destroyed " << CountedEvent::tally().destroyed);
    CHECK(CountedEvent::tally().clean());
}

TEST_CASE("events: short strings survive across pages and frames (no memcpy relocation)", "[events][lifetime]") {
    World world;
    EventReader<Named> r;
    std::vector<std::string> got;
    for (int frame = 0; frame < 4; ++frame) {
        for (int i = 0; i < 500; ++i) world.send(Named{"e" + std::to_string(i), i});
        r.read(world, [&](const Named& n) { got.push_back(n.name); });
        world.update_events();
    }
    REQUIRE(got.size() == 2000);
    CHECK(got[0] == "e0");
    CHECK(got[499] == "e499");
    CHECK(got[1999] == "e499");
}

TEST_CASE("events: move-only event types", "[events]") {
    World world;
    world.send(MoveOnly(5));
    MoveOnly m(6);
    world.send(std::move(m));
    EventReader<MoveOnly> r;
    std::vector<int> got;
    CHECK(r.read(world, [&](const MoveOnly& e) { got.push_back(*e.value); }) == 2);
    CHECK(got == std::vector<int>{5, 6});
}

TEST_CASE("events: over-aligned events are aligned", "[events]") {
    static_assert(alignof(Wide) == 64, "test type must be over-aligned");
    World world;
    EventReader<Wide> r;
    for (int frame = 0; frame < 3; ++frame) {
        for (int i = 0; i < 200; ++i) {
            Wide w;
            w.id = i;
            world.send(w);
        }
        size_t misaligned = 0;
        int expected = 0;
        bool in_order = true;
        CHECK(r.read(world, [&](const Wide& w) {
            if (reinterpret_cast<std::uintptr_t>(&w) % 64 != 0) ++misaligned;
            if (w.id != expected++) in_order = false;
        }) == 200);
        CHECK(misaligned == 0);
        CHECK(in_order);
        world.update_events();
    }
}

TEST_CASE("events: events larger than a page", "[events]") {
    World world;
    EventReader<Huge> r;
    for (int i = 0; i < 5; ++i) {
        Huge h;
        h.id = i;
        world.send(h);
    }
    std::vector<int> got;
    CHECK(r.read(world, [&](const Huge& h) { got.push_back(h.id); }) == 5);
    CHECK(got == iota(0, 5));
}

TEST_CASE("events: many events across frames reuse the same memory", "[events]") {
    World world;
    EventReader<Hit> r;
    std::set<const void*> addresses;
    int next = 0;
    bool in_order = true;
    for (int frame = 0; frame < 50; ++frame) {
        for (int i = 0; i < 1000; ++i) world.send(Hit{next++});
        int expected = next - 1000;
        r.read(world, [&](const Hit& h) {
            addresses.insert(&h);
            if (h.value != expected++) in_order = false;
        });
        world.update_events();
    }
    CHECK(in_order);
    CHECK(r.missed() == 0);
    // Two frames' pages, each rounded up to a whole page (at most 1024 Hits per 4 KiB page): without
    // reuse there would be 50,000 distinct addresses.
    CHECK(addresses.size() <= 2 * 2048);
}

TEST_CASE("events: events sent from inside a read are left for the next read", "[events]") {
    World world;
    EventReader<Hit> r;
    for (int i = 0; i < 3; ++i) world.send(Hit{i});
    std::vector<int> got;
    // Each event answers with a new one; 2000 answers span several pages, so pages are added while
    // the read holds a reference into an earlier one.
    const size_t n = r.read(world, [&](const Hit& h) {
        got.push_back(h.value);
        for (int i = 0; i < 700; ++i) world.send(Hit{100 + h.value});
        world.send(Other{h.value});
        CHECK(got.back() == h.value); // the reference is still valid after sends
    });
    CHECK(n == 3);
    CHECK(got == std::vector<int>{0, 1, 2});
    got.clear();
    CHECK(r.read(world, [&](const Hit& h) { got.push_back(h.value); }) == 2100);
    CHECK(got.front() == 100);
    CHECK(got.back() == 102);
    EventReader<Other> o;
    CHECK(o.read(world, [](const Other&) {}) == 3);
}

TEST_CASE("events: nested reads of another type and of a copy", "[events]") {
    World world;
    world.send(Hit{1});
    world.send(Other{2});
    EventReader<Hit> hits;
    EventReader<Other> others;
    int sum = 0;
    hits.read(world, [&](const Hit& h) {
        sum += h.value;
        others.read(world, [&](const Other& o) { sum += o.value; });
        CHECK(hits.read(world, [&](const Hit&) { sum += 100; }) == 0); // this cursor already moved
    });
    CHECK(sum == 3);
}

TEST_CASE("events: a moved world keeps its events", "[events][lifetime]") {
    CountedEvent::reset();
    {
        World a;
        a.send(CountedEvent(1));
        a.send(Hit{1});
        EventReader<CountedEvent> r;
        std::vector<int> got;
        r.read(a, [&](const CountedEvent& e) { got.push_back(e.value()); });
        a.update_events();
        a.send(CountedEvent(2));
        World b(std::move(a));
        r.read(b, [&](const CountedEvent& e) { got.push_back(e.value()); });
        CHECK(got == std::vector<int>{1, 2});
        World c;
        c.send(CountedEvent(3));
        c = std::move(b); // c's own event is destroyed
        CHECK(CountedEvent::tally().alive() == 2);
        EventReader<Hit> h;
        CHECK(read_all(h, c) == std::vector<int>{1});
        c.update_events();
        c.update_events();
        CHECK(CountedEvent::tally().alive() == 0);
    }
    CHECK(CountedEvent::tally().clean());
}
