// Entity names (names.hpp, World::set_name / name / lookup): uniqueness, renaming, freeing on every
// destruction path, slot reuse, migrations, long names and a large index.
#include <ecs/world.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "catch.hpp"

using ecs::Entity;
using ecs::World;

namespace {
struct Position {
    float x = 0, y = 0;
};
struct Velocity {
    float x = 0, y = 0;
};
struct Frozen {};
struct Label {
    std::string text;
};
} // namespace

TEST_CASE("names: set, name and lookup", "[names]") {
    World w;
    const Entity a = w.create();
    const Entity b = w.create();
    CHECK(w.name(a).empty());
    CHECK(w.lookup("player") == ecs::INVALID_ENTITY);
    w.set_name(a, "player");
    w.set_name(b, "enemy");
    CHECK(w.name(a) == "player");
    CHECK(w.name(b) == "enemy");
    CHECK(w.lookup("player") == a);
    CHECK(w.lookup("enemy") == b);
    CHECK(w.lookup("") == ecs::INVALID_ENTITY);
    CHECK(w.lookup("play") == ecs::INVALID_ENTITY);
    CHECK(w.lookup("player2") == ecs::INVALID_ENTITY);
    CHECK(w.check_invariants());
}

TEST_CASE("names: setting an entity's own name again changes nothing", "[names]") {
    World w;
    const Entity a = w.create();
    w.set_name(a, "same");
    w.set_name(a, std::string("same"));
    CHECK(w.name(a) == "same");
    CHECK(w.lookup("same") == a);
    CHECK(ecs::detail::WorldAccess::names(w).size() == 1);
}

TEST_CASE("names: renaming frees the old name", "[names]") {
    World w;
    const Entity a = w.create();
    const Entity b = w.create();
    w.set_name(a, "first");
    w.set_name(a, "second");
    CHECK(w.name(a) == "second");
    CHECK(w.lookup("first") == ecs::INVALID_ENTITY);
    CHECK(w.lookup("second") == a);
    w.set_name(b, "first"); // free again
    CHECK(w.lookup("first") == b);
    CHECK(w.check_invariants());
}

TEST_CASE("names: an empty name removes the entity's name", "[names]") {
    World w;
    const Entity a = w.create();
    w.set_name(a, "temp");
    w.set_name(a, "");
    CHECK(w.name(a).empty());
    CHECK(w.lookup("temp") == ecs::INVALID_ENTITY);
    w.set_name(a, ""); // no name to remove: no-op
    CHECK(w.name(a).empty());
    CHECK(ecs::detail::WorldAccess::names(w).size() == 0);
    CHECK(w.check_invariants());
}

TEST_CASE("names: a dead entity has no name", "[names]") {
    World w;
    const Entity a = w.create();
    w.set_name(a, "gone");
    w.destroy(a);
    CHECK(w.name(a).empty());
    CHECK(w.name(ecs::INVALID_ENTITY).empty());
    CHECK(w.lookup("gone") == ecs::INVALID_ENTITY);
}

TEST_CASE("names: destroy frees the name on every path", "[names]") {
    World w;
    SECTION("destroy") {
        const Entity a = w.create_with(Position{1, 2});
        w.set_name(a, "a");
        w.destroy(a);
        CHECK(w.lookup("a") == ecs::INVALID_ENTITY);
    }
    SECTION("deferred destroy, freed at the flush") {
        const Entity a = w.create_with(Position{1, 2});
        w.set_name(a, "a");
        w.deferred().destroy(a);
        CHECK(w.lookup("a") == a); // still alive until the flush
        w.flush_deferred();
        CHECK(!w.alive(a));
        CHECK(w.lookup("a") == ecs::INVALID_ENTITY);
    }
    SECTION("a hook that destroys another named entity") {
        const Entity victim = w.create_with(Velocity{});
        w.set_name(victim, "victim");
        const Entity a = w.create_with(Position{});
        w.set_name(a, "a");
        std::string seen;
        w.on_remove<Position>([&](World& world, Entity e, Position&) {
            seen = std::string(world.name(e)); // the name is still readable in on_remove
            world.destroy(victim);
        });
        w.destroy(a);
        CHECK(seen == "a");
        CHECK(w.lookup("a") == ecs::INVALID_ENTITY);
        CHECK(w.lookup("victim") == ecs::INVALID_ENTITY);
    }
    SECTION("a hook that destroys the entity being destroyed") {
        const Entity a = w.create_with(Position{});
        w.set_name(a, "a");
        w.on_remove<Position>([](World& world, Entity e, Position&) { world.destroy(e); });
        w.destroy(a);
        CHECK(!w.alive(a));
        CHECK(w.lookup("a") == ecs::INVALID_ENTITY);
    }
    SECTION("reset_entities (what a load into a world does)") {
        const Entity a = w.create_with(Position{});
        w.set_name(a, "a");
        ecs::detail::WorldAccess::reset_entities(w);
        CHECK(w.lookup("a") == ecs::INVALID_ENTITY);
        CHECK(ecs::detail::WorldAccess::names(w).size() == 0);
    }
    CHECK(w.check_invariants());
}

TEST_CASE("names: an old name never leads to the entity reusing its slot", "[names]") {
    World w;
    const Entity a = w.create();
    w.set_name(a, "old");
    w.destroy(a);
    const Entity reused = w.create();
    REQUIRE(reused.index == a.index); // the slot was reused
    CHECK(w.lookup("old") == ecs::INVALID_ENTITY);
    CHECK(w.name(reused).empty());
    CHECK(w.name(a).empty());
    w.set_name(reused, "new");
    CHECK(w.name(a).empty()); // the stale handle sees nothing
    CHECK(w.lookup("new") == reused);
}

TEST_CASE("names: names survive migrations", "[names]") {
    World w;
    const Entity a = w.create_with(Position{1, 1});
    const Entity b = w.create_with(Position{2, 2});
    w.set_name(a, "a");
    w.set_name(b, "b");
    w.add(a, Velocity{3, 3});
    w.add<Frozen>(a);
    w.add(a, Label{"hello"});
    CHECK(w.name(a) == "a");
    CHECK(w.lookup("a") == a);
    w.remove<Position>(a);
    w.remove<Frozen>(a);
    w.remove<Position>(b); // b moves to the empty archetype
    CHECK(w.name(a) == "a");
    CHECK(w.name(b) == "b");
    CHECK(w.lookup("b") == b);
    w.destroy(b); // swap-removes rows; a's name is per entity, not per row
    CHECK(w.name(a) == "a");
    CHECK(w.check_invariants());
}

TEST_CASE("names: a name's view stays valid while other entities change names", "[names]") {
    World w;
    const Entity a = w.create();
    w.set_name(a, "short");
    const std::string_view view = w.name(a);
    for (int i = 0; i < 1000; ++i) {
        const Entity e = w.create();
        w.set_name(e, "entity_" + std::to_string(i));
        if (i % 3 == 0) w.destroy(e);
    }
    CHECK(view == "short");
    CHECK(view.data() == w.name(a).data());
}

TEST_CASE("names: short, long and unusual names", "[names]") {
    World w;
    const std::string long_name(1000, 'x');
    const std::string with_nul("a\0b", 3);
    const Entity a = w.create();
    const Entity b = w.create();
    const Entity c = w.create();
    const Entity d = w.create();
    w.set_name(a, "x");
    w.set_name(b, long_name);
    w.set_name(c, with_nul);
    w.set_name(d, "a"); // a prefix of c's name
    CHECK(w.lookup("x") == a);
    CHECK(w.lookup(long_name) == b);
    CHECK(w.lookup(std::string(999, 'x')) == ecs::INVALID_ENTITY);
    CHECK(w.lookup(with_nul) == c);
    CHECK(w.lookup("a") == d);
    CHECK(w.name(c).size() == 3);
    CHECK(w.name(b) == long_name);
    for (size_t n = 1; n <= 40; ++n) { // every tail length of the 8-byte hash
        const Entity e = w.create();
        w.set_name(e, std::string(n, 'n'));
    }
    for (size_t n = 1; n <= 40; ++n) CHECK(w.name(w.lookup(std::string(n, 'n'))).size() == n);
    CHECK(w.check_invariants());
}

TEST_CASE("names: enumeration through WorldAccess gives every (entity, name) pair", "[names]") {
    World w;
    const Entity a = w.create();
    const Entity b = w.create();
    const Entity c = w.create();
    w.set_name(c, "c");
    w.set_name(a, "a");
    (void)b;
    std::vector<std::pair<Entity, std::string>> pairs;
    ecs::detail::WorldAccess::names(w).each([&](Entity e, std::string_view n) { pairs.emplace_back(e, std::string(n)); });
    REQUIRE(pairs.size() == 2);
    CHECK(pairs[0].first == a); // slot index order
    CHECK(pairs[0].second == "a");
    CHECK(pairs[1].first == c);
    // The loader's non-asserting setter: false for a taken name, nothing changed.
    CHECK(!ecs::detail::WorldAccess::names(w).set(b, "a"));
    CHECK(w.name(b).empty());
    CHECK(ecs::detail::WorldAccess::names(w).set(b, "b"));
    CHECK(w.lookup("b") == b);
}

TEST_CASE("names: 100k names, churn, then every lookup", "[names][scale]") {
    World w;
    constexpr size_t N = 100000;
    std::vector<Entity> handles;
    handles.reserve(N);
    for (size_t i = 0; i < N; ++i) {
        const Entity e = w.create_with(Position{static_cast<float>(i), 0});
        w.set_name(e, "entity_" + std::to_string(i));
        handles.push_back(e);
    }
    CHECK(ecs::detail::WorldAccess::names(w).size() == N);
    // Destroy every third, rename every seventh of the rest.
    for (size_t i = 0; i < N; i += 3) w.destroy(handles[i]);
    for (size_t i = 1; i < N; i += 7)
        if (i % 3 != 0) w.set_name(handles[i], "renamed_" + std::to_string(i));
    bool all_ok = true;
    for (size_t i = 0; i < N; ++i) {
        const std::string original = "entity_" + std::to_string(i);
        if (i % 3 == 0) {
            all_ok = all_ok && w.lookup(original) == ecs::INVALID_ENTITY && w.name(handles[i]).empty();
        } else if (i % 7 == 1) {
            all_ok = all_ok && w.lookup(original) == ecs::INVALID_ENTITY &&
                     w.lookup("renamed_" + std::to_string(i)) == handles[i];
        } else {
            all_ok = all_ok && w.lookup(original) == handles[i] && w.name(handles[i]) == original;
        }
    }
    CHECK(all_ok);
    CHECK(w.check_invariants());
    const size_t with_names = w.memory_bytes();
    for (size_t i = 0; i < N; ++i) w.destroy(handles[i]);
    CHECK(ecs::detail::WorldAccess::names(w).size() == 0);
    CHECK(w.memory_bytes() < with_names);
    CHECK(w.check_invariants());
}

TEST_CASE("names: a moved world keeps its names", "[names]") {
    World w;
    const Entity a = w.create();
    w.set_name(a, "kept");
    World moved(std::move(w));
    CHECK(moved.lookup("kept") == a);
    CHECK(moved.name(a) == "kept");
    World assigned;
    assigned = std::move(moved);
    CHECK(assigned.lookup("kept") == a);
}
