// Assertion tests for the World's preconditions: each one must fire (recorded, see
// recording_assert.hpp) and leave the world exactly as it was.
#include "recording_assert.hpp" // first: defines ECS_ASSERT before any ecs header

#include "catch.hpp"

#include <ecs/command_buffer.hpp>
#include <ecs/world.hpp>

#include <functional>
#include <sstream>
#include <string>

namespace {

long& counted_live() {
    static long n = 0;
    return n;
}

/// Counts live instances: a refused operation must neither leak nor double-destroy its arguments.
struct Counted {
    int v;
    explicit Counted(int value) : v(value) { ++counted_live(); }
    Counted(const Counted& o) : v(o.v) { ++counted_live(); }
    Counted(Counted&& o) noexcept : v(o.v) { ++counted_live(); }
    Counted& operator=(const Counted&) = default;
    Counted& operator=(Counted&&) noexcept = default;
    ~Counted() { --counted_live(); }
};

struct Pos {
    float x, y;
};
struct Vel {
    float dx;
};
struct Tag {};
struct Absent {
    int v;
};
struct Name {
    std::string s;
};
struct Res {
    int v;
};

// Ids are handed out before any test runs, so the 257-types test (another file) cannot starve these
// types whatever the test order.
const bool types_registered = [] {
    (void)ecs::ensure_column_factory<Counted>();
    (void)ecs::ensure_column_factory<Pos>();
    (void)ecs::ensure_column_factory<Vel>();
    (void)ecs::ensure_column_factory<Tag>();
    (void)ecs::ensure_column_factory<Absent>();
    (void)ecs::ensure_column_factory<Name>();
    (void)ecs::component_id<Res>();
    return true;
}();

/// A small world with known content, and a printable snapshot of everything observable about it.
struct Fixture {
    ecs::World w;
    ecs::Entity a, b, c, empty, stale;

    Fixture() {
        a = w.create_with(Pos{1, 2}, Counted{10}, Name{"a"});
        b = w.create_with(Pos{3, 4}, Vel{5});
        c = w.create_with(Counted{30}, Tag{});
        empty = w.create();
        stale = w.create_with(Pos{9, 9});
        w.destroy(stale);
        ecs_assert_test::reset();
    }

    std::string state() {
        std::ostringstream out;
        out << "count=" << w.count() << " archetypes=" << w.archetype_count() << " deferred=" << w.deferred_count()
            << " invariants=" << w.check_invariants() << " counted=" << counted_live() << "\n";
        for (ecs::Entity e : {a, b, c, empty, stale}) {
            out << e.index << "," << e.generation << ": alive=" << w.alive(e);
            if (const Pos* p = w.try_get<Pos>(e)) out << " Pos(" << p->x << "," << p->y << ")";
            if (const Vel* v = w.try_get<Vel>(e)) out << " Vel(" << v->dx << ")";
            if (const Counted* k = w.try_get<Counted>(e)) out << " Counted(" << k->v << ")";
            if (const Name* n = w.try_get<Name>(e)) out << " Name(" << n->s << ")";
            if (w.has<Tag>(e)) out << " Tag";
            if (w.has<Absent>(e)) out << " Absent";
            out << "\n";
        }
        return out.str();
    }
};

/// The four ways of iterating: `body` runs inside the callback, on the first visit only.
enum class Loop { Each, EachExclude, EachNoEntity, Single };

void iterate(ecs::World& w, Loop loop, const std::function<void()>& body) {
    bool done = false;
    auto once = [&] {
        if (!done) {
            done = true;
            body();
        }
    };
    switch (loop) {
    case Loop::Each: w.each<Pos>([&](ecs::Entity, Pos&) { once(); }); break;
    case Loop::EachExclude: w.each<Pos>(ecs::Exclude<Tag>{}, [&](ecs::Entity, Pos&) { once(); }); break;
    case Loop::EachNoEntity: w.each_no_entity<const Pos>([&](const Pos&) { once(); }); break;
    case Loop::Single: w.single<Vel>([&](ecs::Entity, Vel&) { once(); }); break;
    }
    REQUIRE(done);
}

const char* loop_name(Loop loop) {
    switch (loop) {
    case Loop::Each: return "each";
    case Loop::EachExclude: return "each(Exclude)";
    case Loop::EachNoEntity: return "each_no_entity";
    default: return "single";
    }
}

} // namespace

TEST_CASE("assert: get on a dead, stale or invalid entity fires and changes nothing", "[assert]") {
    Fixture f;
    const std::string before = f.state();
    const ecs::Entity handles[] = {f.stale, ecs::INVALID_ENTITY, ecs::Entity{9999, 1},
                                   ecs::Entity{f.a.index, f.a.generation + 1}};
    for (ecs::Entity h : handles) {
        CAPTURE(h.index, h.generation);
        ecs_assert_test::reset();
        Pos& p = f.w.get<Pos>(h);
        (void)p;
        // The message names the function, the type and the entity (ROADMAP A, introspection).
        const std::string handle = std::to_string(h.index) + "v" + std::to_string(h.generation);
        CHECK(ecs_assert_test::fired_once_with(("World::get<Pos>: entity " + handle + " is not alive").c_str()));

        ecs_assert_test::reset();
        const ecs::World& cw = f.w;
        const Counted& k = cw.get<Counted>(h);
        (void)k;
        CHECK(ecs_assert_test::fired_once_with(("World::get<Counted>: entity " + handle + " is not alive").c_str()));
    }
    CHECK(f.state() == before);
}

TEST_CASE("assert: get of a component the entity lacks fires and changes nothing", "[assert]") {
    Fixture f;
    const std::string before = f.state();
    Vel& v = f.w.get<Vel>(f.a);
    (void)v;
    const std::string a = std::to_string(f.a.index) + "v" + std::to_string(f.a.generation);
    CHECK(ecs_assert_test::fired_once_with(("World::get<Vel>: entity " + a + " does not have the component").c_str()));

    ecs_assert_test::reset();
    Absent& x = f.w.get<Absent>(f.empty);
    (void)x;
    CHECK(ecs_assert_test::fired_once_with("does not have the component"));

    ecs_assert_test::reset();
    const Tag& t = f.w.get<const Tag>(f.b);
    (void)t;
    CHECK(ecs_assert_test::fired_once_with("does not have the component"));
    CHECK(f.state() == before);
}

TEST_CASE("assert: structural changes inside iteration fire and are refused", "[assert]") {
    for (Loop loop : {Loop::Each, Loop::EachExclude, Loop::EachNoEntity, Loop::Single}) {
        CAPTURE(loop_name(loop));
        {
            Fixture f;
            const std::string before = f.state();
            ecs::Entity made{1, 1};
            iterate(f.w, loop, [&] { made = f.w.create(); });
            CHECK(made == ecs::INVALID_ENTITY);
            CHECK(ecs_assert_test::fired_once_with("World::create:"));
            CHECK(f.state() == before);
        }
        {
            Fixture f;
            const Counted lvalue{8};
            const std::string before = f.state();
            ecs::Entity made{1, 1};
            // A new archetype and an existing one: both refused, arguments destroyed exactly once.
            iterate(f.w, loop, [&] { made = f.w.create_with(Counted{7}, Absent{1}); });
            CHECK(made == ecs::INVALID_ENTITY);
            CHECK(ecs_assert_test::fired_once_with("World::create_with:"));
            ecs_assert_test::reset();
            iterate(f.w, loop, [&] { made = f.w.create_with(Pos{1, 1}, Vel{1}); });
            CHECK(made == ecs::INVALID_ENTITY);
            CHECK(ecs_assert_test::fired_once_with("World::create_with:"));
            ecs_assert_test::reset();
            iterate(f.w, loop, [&] { made = f.w.create_with(lvalue); }); // the copying path
            CHECK(made == ecs::INVALID_ENTITY);
            CHECK(ecs_assert_test::fired_once_with("World::create_with:"));
            CHECK(counted_live() == 3); // a, c and `lvalue`
            CHECK(f.state() == before);
        }
        {
            Fixture f;
            const std::string before = f.state();
            iterate(f.w, loop, [&] { f.w.destroy(f.b); });
            CHECK(ecs_assert_test::fired_once_with("World::destroy:"));
            CHECK(f.w.alive(f.b));
            CHECK(f.state() == before);
            // Destroying a dead handle during iteration is a no-op, not a structural change.
            ecs_assert_test::reset();
            iterate(f.w, loop, [&] { f.w.destroy(f.stale); });
            CHECK(ecs_assert_test::fired() == 0);
            CHECK(f.state() == before);
        }
        {
            Fixture f;
            const std::string before = f.state();
            iterate(f.w, loop, [&] { f.w.add(f.a, Vel{42}); });
            CHECK(ecs_assert_test::fired_once_with("World::add:"));
            ecs_assert_test::reset();
            iterate(f.w, loop, [&] { f.w.add(f.empty, Counted{5}); });
            CHECK(ecs_assert_test::fired_once_with("World::add:"));
            ecs_assert_test::reset();
            iterate(f.w, loop, [&] { f.w.add<Tag>(f.b); });
            CHECK(ecs_assert_test::fired_once_with("World::add:"));
            ecs_assert_test::reset();
            iterate(f.w, loop, [&] { f.w.add(f.a, ecs::construct<Vel>(42.f)); }); // built in place: refused alike
            CHECK(ecs_assert_test::fired_once_with("World::add:"));
            ecs_assert_test::reset();
            iterate(f.w, loop, [&] { f.w.add(f.a, ecs::construct<Vel>(42.f), Tag{}); });
            CHECK(ecs_assert_test::fired_once_with("World::add:"));
            ecs_assert_test::reset();
            iterate(f.w, loop, [&] { CHECK(f.w.create_n(3, Vel{1}).empty()); });
            CHECK(ecs_assert_test::fired_once_with("World::create_n:"));
            CHECK(!f.w.has<Vel>(f.a));
            CHECK(f.state() == before);
        }
        {
            Fixture f;
            const std::string before = f.state();
            iterate(f.w, loop, [&] { f.w.remove<Pos>(f.a); });
            CHECK(ecs_assert_test::fired_once_with("World::remove:"));
            ecs_assert_test::reset();
            iterate(f.w, loop, [&] { f.w.remove<Tag>(f.c); });
            CHECK(ecs_assert_test::fired_once_with("World::remove:"));
            CHECK(f.w.has<Pos>(f.a));
            CHECK(f.state() == before);
        }
        {
            Fixture f;
            f.w.deferred().destroy(f.b);
            const std::string before = f.state();
            iterate(f.w, loop, [&] { f.w.flush_deferred(); });
            CHECK(ecs_assert_test::fired_once_with("World::flush_deferred:"));
            CHECK(f.w.deferred_count() == 1);
            CHECK(f.state() == before);
            ecs_assert_test::reset();
            f.w.flush_deferred(); // after the loop the queue runs as recorded
            CHECK(ecs_assert_test::fired() == 0);
            CHECK(!f.w.alive(f.b));
        }
        {
            Fixture f;
            (void)f.w.create_with(Pos{-1, 0}); // a second Pos-only row, in reverse order
            (void)f.w.create_with(Pos{-2, 0});
            ecs_assert_test::reset();
            const std::string before = f.state();
            std::vector<float> order_before;
            f.w.each<Pos>([&](ecs::Entity, Pos& p) { order_before.push_back(p.x); });
            iterate(f.w, loop, [&] { f.w.sort<Pos>([](const Pos& l, const Pos& r) { return l.x < r.x; }); });
            CHECK(ecs_assert_test::fired_once_with("World::sort:"));
            std::vector<float> order_after;
            f.w.each<Pos>([&](ecs::Entity, Pos& p) { order_after.push_back(p.x); });
            CHECK(order_after == order_before);
            CHECK(f.state() == before);
        }
        {
            Fixture f;
            ecs::CommandBuffer cb;
            cb.destroy(f.b);
            cb.add(f.a, Counted{3});
            const std::string before = f.state();
            iterate(f.w, loop, [&] { cb.flush(f.w); });
            CHECK(ecs_assert_test::fired_once_with("CommandBuffer::flush:"));
            CHECK(cb.size() == 2);
            CHECK(f.state() == before);
            ecs_assert_test::reset();
            cb.flush(f.w); // the buffer was left intact and runs after the loop
            CHECK(ecs_assert_test::fired() == 0);
            CHECK(cb.empty());
            CHECK(!f.w.alive(f.b));
            CHECK(f.w.get<Counted>(f.a).v == 3);
        }
    }
    CHECK(counted_live() == 0);
}

TEST_CASE("assert: overwriting add, removing an absent type and deferred recording are allowed in each",
          "[assert]") {
    for (Loop loop : {Loop::Each, Loop::EachExclude, Loop::EachNoEntity, Loop::Single}) {
        CAPTURE(loop_name(loop));
        Fixture f;
        const size_t archetypes = f.w.archetype_count();
        iterate(f.w, loop, [&] {
            f.w.add(f.a, Counted{11});     // a has Counted: overwrite in place
            f.w.add(f.b, Pos{7, 7});       // overwrite of the iterated column
            f.w.add(f.c, Tag{});           // overwrite of a tag
            f.w.remove<Vel>(f.a);          // absent: no-op
            f.w.remove<Absent>(f.empty);   // absent: no-op
            f.w.remove<Pos>(f.stale);      // dead entity: no-op
            f.w.add(f.stale, Vel{1});      // dead entity: no-op
            f.w.deferred().add(f.empty, Vel{2});
            f.w.deferred().destroy(f.c);
            const Counted k{12};
            f.w.deferred().create_with(k, Pos{0, 0});
        });
        CHECK(ecs_assert_test::fired() == 0);
        CHECK(f.w.get<Counted>(f.a).v == 11);
        CHECK(f.w.get<Pos>(f.b).x == 7);
        CHECK(f.w.archetype_count() == archetypes);
        CHECK(f.w.deferred_count() == 3);
        f.w.flush_deferred();
        CHECK(ecs_assert_test::fired() == 0);
        CHECK(f.w.get<Vel>(f.empty).dx == 2);
        CHECK(!f.w.alive(f.c));
        CHECK(f.w.count<Counted, Pos>() == 2);
        CHECK(f.w.check_invariants());
    }
    CHECK(counted_live() == 0);
}

TEST_CASE("assert: nested each keeps refusing structural changes after the inner loop ends", "[assert]") {
    Fixture f;
    const std::string before = f.state();
    int outer = 0;
    int inner_total = 0;
    ecs::Entity made_inner{1, 1};
    ecs::Entity made_after{1, 1};
    f.w.each<Pos>([&](ecs::Entity, Pos&) {
        ++outer;
        f.w.each<const Counted>([&](ecs::Entity, const Counted&) {
            ++inner_total;
            if (outer == 1 && inner_total == 1) made_inner = f.w.create(); // inner loop: refused
        });
        if (outer == 1) {
            CHECK(f.w.iterating());
            made_after = f.w.create(); // back in the outer loop: the guard must still hold
            f.w.add(f.b, Tag{});
            f.w.destroy(f.c);
        }
    });
    CHECK(outer == 2);
    CHECK(inner_total == 4);
    CHECK(made_inner == ecs::INVALID_ENTITY);
    CHECK(made_after == ecs::INVALID_ENTITY);
    REQUIRE(ecs_assert_test::fired() == 4);
    CHECK(ecs_assert_test::failures()[0].message.find("World::create:") != std::string::npos);
    CHECK(ecs_assert_test::failures()[1].message.find("World::create:") != std::string::npos);
    CHECK(ecs_assert_test::failures()[2].message.find("World::add:") != std::string::npos);
    CHECK(ecs_assert_test::failures()[3].message.find("World::destroy:") != std::string::npos);
    CHECK(!f.w.iterating());
    CHECK(f.state() == before);

    // After both loops the world accepts structural changes again.
    ecs_assert_test::reset();
    const ecs::Entity e = f.w.create();
    CHECK(f.w.alive(e));
    CHECK(ecs_assert_test::fired() == 0);
}

TEST_CASE("assert: single with zero or with two matches fires and does not call back", "[assert]") {
    Fixture f;
    const std::string before = f.state();
    int calls = 0;
    f.w.single<Absent>([&](ecs::Entity, Absent&) { ++calls; });
    CHECK(ecs_assert_test::fired_once_with("World::single"));
    CHECK(ecs_assert_test::fired_once_with("found none [")); // the refusal names the type
    CHECK(ecs_assert_test::fired_once_with("Absent]"));
    ecs_assert_test::reset();
    f.w.single<Pos>([&](ecs::Entity, Pos&) { ++calls; }); // a and b
    CHECK(ecs_assert_test::fired_once_with("World::single"));
    CHECK(ecs_assert_test::fired_once_with("found several ["));
    CHECK(ecs_assert_test::fired_once_with("Pos]"));
    ecs_assert_test::reset();
    f.w.single<Counted, Pos>([&](ecs::Entity, Counted&, Pos&) { ++calls; }); // a only: fine
    CHECK(ecs_assert_test::fired() == 0);
    CHECK(calls == 1);
    // A structural change inside single is refused like in each.
    f.w.single<Vel>([&](ecs::Entity e, Vel&) { f.w.destroy(e); });
    CHECK(ecs_assert_test::fired_once_with("World::destroy:"));
    CHECK(f.state() == before);
}

TEST_CASE("assert: resource of an absent type fires and creates nothing", "[assert]") {
    ecs::World w;
    ecs_assert_test::reset();
    Res& r = w.resource<Res>();
    (void)r;
    CHECK(ecs_assert_test::fired_once_with("World::resource: resource does not exist"));
    CHECK(!w.has_resource<Res>());
    CHECK(w.try_resource<Res>() == nullptr);

    ecs_assert_test::reset();
    w.set_resource(Res{4});
    w.remove_resource<Res>();
    (void)w.resource<Res>(); // removed: absent again
    CHECK(ecs_assert_test::fired_once_with("World::resource:"));
    ecs_assert_test::reset();
    w.set_resource(Res{5});
    CHECK(w.resource<Res>().v == 5);
    CHECK(ecs_assert_test::fired() == 0);
}

TEST_CASE("assert: no assertion fires on ordinary use", "[assert]") {
    ecs_assert_test::reset();
    {
        Fixture f;
        f.w.add(f.a, Vel{1});
        f.w.remove<Counted>(f.a);
        f.w.destroy(f.c);
        f.w.destroy(f.c);
        f.w.remove<Pos>(f.stale);
        f.w.add(ecs::INVALID_ENTITY, Pos{0, 0});
        (void)f.w.try_get<Pos>(f.stale);
        (void)f.w.has<Pos>(ecs::INVALID_ENTITY);
        f.w.sort<Pos>([](const Pos& l, const Pos& r) { return l.x > r.x; });
        f.w.flush_deferred();
        CHECK(f.w.check_invariants());
    }
    CHECK(ecs_assert_test::fired() == 0);
    CHECK(counted_live() == 0);
    CHECK(types_registered);
}
