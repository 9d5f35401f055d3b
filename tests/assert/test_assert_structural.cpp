// Assertion tests for structural power (ROADMAP-1.0 C): each refusal must fire (recorded, see
// recording_assert.hpp), name the function, and leave the world exactly as it was.
#include "recording_assert.hpp" // first: defines ECS_ASSERT before any ecs header

#include "catch.hpp"

#include <ecs/command_buffer.hpp>
#include <ecs/serialization.hpp>
#include <ecs/world.hpp>

#include <sstream>
#include <string>

namespace {

long& structural_live() {
    static long n = 0;
    return n;
}

/// Counts live instances: a refused operation must neither leak nor double-destroy its arguments.
struct SCounted {
    int v;
    explicit SCounted(int value) : v(value) { ++structural_live(); }
    SCounted(const SCounted& o) : v(o.v) { ++structural_live(); }
    SCounted(SCounted&& o) noexcept : v(o.v) { ++structural_live(); }
    SCounted& operator=(const SCounted&) = default;
    SCounted& operator=(SCounted&&) noexcept = default;
    ~SCounted() { --structural_live(); }
};
struct SPos {
    float x, y;
};
struct SVel {
    float dx;
};
struct STag {};

// Ids are handed out before any test runs (the 257-types test of another file cannot starve these).
const bool structural_types_registered = [] {
    (void)ecs::ensure_column_factory<SCounted>();
    (void)ecs::ensure_column_factory<SPos>();
    (void)ecs::ensure_column_factory<SVel>();
    (void)ecs::ensure_column_factory<STag>();
    return true;
}();

struct Fixture {
    ecs::World w;
    ecs::Entity a, b;
    Fixture() {
        a = w.create_with(SPos{1, 2}, SCounted{10});
        b = w.create_with(SPos{3, 4}, SVel{5});
        ecs_assert_test::reset();
    }
    std::string state() const {
        std::ostringstream out;
        out << "count=" << w.count() << " archetypes=" << w.archetype_count() << " invariants=" << w.check_invariants()
            << " live=" << structural_live();
        for (ecs::Entity e : {a, b}) {
            out << " [" << w.alive(e);
            if (const SPos* p = w.try_get<SPos>(e)) out << " pos " << p->x << "," << p->y;
            if (const SVel* v = w.try_get<SVel>(e)) out << " vel " << v->dx;
            if (const SCounted* c = w.try_get<SCounted>(e)) out << " counted " << c->v;
            if (w.has<STag>(e)) out << " tag";
            out << "]";
        }
        return out.str();
    }
};

} // namespace

TEST_CASE("assert: multi add and multi remove that migrate during iteration are refused", "[assert][structural]") {
    Fixture f;
    const std::string before = f.state();
    f.w.each<SPos>([&](ecs::Entity e, SPos&) {
        if (e != f.a) return;
        ecs_assert_test::reset();
        f.w.add(e, SVel{9}, STag{}); // a migration: refused as a whole
        CHECK(ecs_assert_test::fired_once_with("World::add: structural change during iteration"));
        ecs_assert_test::reset();
        f.w.add(e, SPos{7, 7}, SVel{9}); // SPos would be overwritten, SVel migrates: refused, SPos kept
        CHECK(ecs_assert_test::fired_once_with("World::add: structural change during iteration"));
        ecs_assert_test::reset();
        f.w.remove<SCounted, SPos>(e);
        CHECK(ecs_assert_test::fired_once_with("World::remove: structural change during iteration"));
        ecs_assert_test::reset();
        f.w.remove<SVel, STag>(e); // nothing to remove: a no-op, allowed
        f.w.add(e, SPos{1, 2}, SCounted{10}); // pure overwrite: allowed
        CHECK(ecs_assert_test::fired() == 0);
    });
    CHECK(f.state() == before);
}

TEST_CASE("assert: emplace on a dead entity or migrating during iteration is refused", "[assert][structural]") {
    Fixture f;
    const std::string before = f.state();
    ecs::Entity dead = f.w.create();
    f.w.destroy(dead);
    ecs_assert_test::reset();
    (void)f.w.emplace<SCounted>(dead, 3);
    const std::string handle = std::to_string(dead.index) + "v" + std::to_string(dead.generation);
    CHECK(ecs_assert_test::fired_once_with(("World::emplace<SCounted>: entity " + handle + " is not alive").c_str()));
    ecs_assert_test::reset();
    (void)f.w.get_or_emplace<SCounted>(dead, 3);
    CHECK(ecs_assert_test::fired_once_with("is not alive"));
    CHECK(f.state() == before);

    f.w.each<SPos>([&](ecs::Entity e, SPos&) {
        if (e != f.b) return;
        ecs_assert_test::reset();
        (void)f.w.emplace<SCounted>(e, 4); // a migration
        CHECK(ecs_assert_test::fired_once_with("World::emplace: structural change during iteration"));
        ecs_assert_test::reset();
        f.w.emplace<SVel>(e, SVel{5}); // replacing: allowed
        CHECK(ecs_assert_test::fired() == 0);
    });
    CHECK(f.state() == before);
}

TEST_CASE("assert: bulk operations during iteration are refused", "[assert][structural]") {
    Fixture f;
    const std::string before = f.state();
    f.w.each<SPos>([&](ecs::Entity e, SPos&) {
        if (e != f.a) return;
        ecs_assert_test::reset();
        CHECK(f.w.destroy_all<SPos>() == 0);
        CHECK(ecs_assert_test::fired_once_with("World::destroy_all: structural change during iteration"));
        ecs_assert_test::reset();
        CHECK(f.w.remove_all<SVel>() == 0);
        CHECK(ecs_assert_test::fired_once_with("World::remove_all: structural change during iteration"));
        ecs_assert_test::reset();
        CHECK(f.w.add_all(STag{}) == 0);
        CHECK(ecs_assert_test::fired_once_with("World::add_all: structural change during iteration"));
    });
    CHECK(f.state() == before);
}

TEST_CASE("assert: deserialize into a world with reserved deferred handles is refused", "[assert][structural]") {
    ecs::World source;
    std::ostringstream out;
    ecs::serialize(source, out);
    ecs::World target;
    const ecs::Entity pending = target.deferred().create();
    ecs_assert_test::reset();
    std::istringstream in(out.str());
    const ecs::DeserializeResult r = ecs::deserialize(target, in);
    CHECK_FALSE(r);
    CHECK(r.error == ecs::DeserializeError::target_not_empty);
    CHECK(ecs_assert_test::fired_once_with("deferred creations"));
    target.flush_deferred();
    CHECK(target.alive(pending));
    CHECK(target.check_invariants());
}
