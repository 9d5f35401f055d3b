// Loading a snapshot into a live world (deserialize(into, in, LoadMode::merge, map)): new handles,
// remapped Entity fields (reflected, nested, arrays, Parent/Children, relationship pairs), names,
// sparse values and enable bits carried, counted lifetimes, and all or nothing on bad input.
#include <ecs/ecs.hpp>
#include <ecs/reflect.hpp>
#include <ecs/serialization.hpp>

#include <array>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "lifetime.hpp"
#include "rollback/stream_functions.hpp"

namespace {
using ecs::Entity;
using ecs::World;

struct MgPos {
    float x = 0, y = 0;
};
struct MgLink { // a reflected handle
    Entity target;
    int n = 0;
};
struct MgInner {
    Entity who;
};
struct MgNested { // handles in an array and a nested type
    std::array<Entity, 2> pair{};
    MgInner inner;
};
struct MgText {
    std::string s;
};
struct alignas(64) MgAligned {
    float v = 0;
};
struct MgPoison { // sparse
    int turns = 0;
};
struct MgLikes {};
struct MgCountTag {};
using MgCounted = lifetime::Counted<MgCountTag>;
} // namespace

ECS_REFLECT(MgLink, target, n)
ECS_REFLECT(MgInner, who)
ECS_REFLECT(MgNested, pair, inner)

template <>
struct ecs::component_traits<MgPoison> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};

namespace {

void register_merge_types() {
    static const bool done = [] {
        ecs::register_component<MgPos>("mg.Pos");
        ecs::register_component<MgLink>("mg.Link");
        ecs::register_component<MgNested>("mg.Nested");
        ecs::register_component<MgText>("mg.Text", &text_out<MgText>, &text_in<MgText>);
        ecs::register_component<MgAligned>("mg.Aligned");
        ecs::register_component<MgPoison>("mg.Poison");
        ecs::register_component<MgCounted>("mg.Counted", &counted_out<MgCounted>, &counted_in<MgCounted>);
        ecs::register_relation<MgLikes>("mg.Likes");
        ecs::register_component<ecs::Parent>("Parent");
        ecs::register_component<ecs::Children>("Children", &ecs::write_children, &ecs::read_children);
        return true;
    }();
    (void)done;
}

std::string save(const World& w) {
    std::ostringstream out;
    ecs::serialize(w, out);
    return out.str();
}

/// A level: a parent with two children, handles between them, a pair, names, sparse, enable bits.
struct Level {
    World w;
    Entity root, a, b, dead;
    Level() {
        register_merge_types();
        dead = w.create_with(MgPos{9, 9});
        root = w.create_with(MgPos{1, 2}, MgText{"root, a string longer than the small-string buffer"});
        a = w.create_with(MgPos{3, 4}, MgCounted(7), MgAligned{1.5f});
        b = w.create_with(MgText{"b"}, MgCounted(8));
        w.destroy(dead); // a stale handle the values below point to
        ecs::set_parent(w, a, root);
        ecs::set_parent(w, b, root);
        w.add(a, MgLink{b, 1});
        w.add(b, MgLink{dead, 2});
        w.add(root, MgNested{{a, b}, MgInner{root}});
        w.relate<MgLikes>(a, b);
        w.add(b, MgPoison{3});
        w.set_name(root, "level.root");
        w.disable<MgPos>(a);
    }
};
} // namespace

TEST_CASE("merge: a snapshot loads into a live world under new handles, every handle remapped", "[merge]") {
    MgCounted::reset();
    {
        Level level;
        const std::string bytes = save(level.w);

        World into;
        const Entity mine = into.create_with(MgPos{100, 100}, MgLink{ecs::INVALID_ENTITY, 0});
        const Entity gone = into.create();
        into.destroy(gone); // a free slot the merge reuses
        ecs::EntityMap map;
        std::istringstream in(bytes);
        const ecs::DeserializeResult r = ecs::deserialize(into, in, ecs::LoadMode::merge, map);
        REQUIRE(r);
        REQUIRE(into.check_invariants());
        CHECK(into.count() == 4);
        CHECK(map.size() == 3);
        CHECK(into.get<MgPos>(mine).x == 100); // the world's own entity is untouched

        const Entity root = map[level.root], a = map[level.a], b = map[level.b];
        REQUIRE(into.alive(root));
        REQUIRE(into.alive(a));
        REQUIRE(into.alive(b));
        CHECK(root != mine);
        CHECK(map[level.dead] == ecs::INVALID_ENTITY);
        CHECK(map[Entity{level.a.index, level.a.generation + 1}] == ecs::INVALID_ENTITY); // stale

        CHECK(into.get<MgText>(root).s == "root, a string longer than the small-string buffer");
        CHECK(into.get<MgCounted>(a).value() == 7);
        CHECK(into.get<MgAligned>(a).v == 1.5f);
        CHECK(reinterpret_cast<uintptr_t>(&into.get<MgAligned>(a)) % 64 == 0);
        CHECK(into.get<MgLink>(a).target == b);
        CHECK(into.get<MgLink>(b).target == ecs::INVALID_ENTITY); // pointed at a dead entity
        CHECK(into.get<MgNested>(root).pair[0] == a);
        CHECK(into.get<MgNested>(root).pair[1] == b);
        CHECK(into.get<MgNested>(root).inner.who == root);
        CHECK(into.get<ecs::Parent>(a).entity == root);
        CHECK(into.get<ecs::Children>(root).entities == std::vector<Entity>{a, b});
        CHECK(into.related<MgLikes>(a, b));
        CHECK(into.target_count<MgLikes>(a) == 1);
        CHECK(into.get<MgPoison>(b).turns == 3);
        CHECK(into.lookup("level.root") == root);
        CHECK(into.name(root) == "level.root");
        CHECK_FALSE(into.enabled<MgPos>(a));
        CHECK(into.enabled<MgPos>(root));

        // The merged entities behave as native ones: queries, hierarchy edits, destruction.
        int with_pos = 0;
        into.each<const MgPos>([&](Entity, const MgPos&) { ++with_pos; });
        CHECK(with_pos == 2); // mine and root (a's is disabled)
        ecs::destroy_recursive(into, root);
        CHECK(into.count() == 1);
        CHECK_FALSE(into.alive(b));
        REQUIRE(into.check_invariants());

        // A second merge of the same bytes makes a second copy with handles of its own.
        ecs::EntityMap again;
        std::istringstream in2(bytes);
        REQUIRE(ecs::deserialize(into, in2, ecs::LoadMode::merge, again));
        std::istringstream in3(bytes);
        ecs::EntityMap third;
        const ecs::DeserializeResult clash = ecs::deserialize(into, in3, ecs::LoadMode::merge, third);
        CHECK(clash.error == ecs::DeserializeError::name_taken); // "level.root" is held by the second copy
        CHECK(third.empty());
        CHECK(into.count() == 4);
        REQUIRE(into.check_invariants());
    }
    CHECK(MgCounted::tally().clean());
}

TEST_CASE("merge: damaged input and name clashes leave the world and the map as they were", "[merge]") {
    MgCounted::reset();
    {
        Level level;
        const std::string bytes = save(level.w);
        World into;
        const Entity keep = into.create_with(MgCounted(1), MgText{"keep"});
        into.set_name(keep, "level.root"); // the snapshot's root name is taken
        ecs::EntityMap map;
        map.set(Entity{1, 1}, keep);
        std::istringstream in(bytes);
        const ecs::DeserializeResult r = ecs::deserialize(into, in, ecs::LoadMode::merge, map);
        CHECK(r.error == ecs::DeserializeError::name_taken);
        CHECK(r.message.find("level.root") != std::string::npos);
        CHECK(into.count() == 1);
        CHECK(map.size() == 1);
        CHECK(into.get<MgCounted>(keep).value() == 1);
        REQUIRE(into.check_invariants());

        into.set_name(keep, "");
        for (size_t at = 0; at < bytes.size(); at += 7) { // every 7th byte flipped: refused whole
            std::string bad = bytes;
            bad[at] = static_cast<char>(bad[at] ^ 0x20);
            std::istringstream bad_in(bad);
            const ecs::DeserializeResult br = ecs::deserialize(into, bad_in, ecs::LoadMode::merge, map);
            CHECK_FALSE(br);
            CHECK(into.count() == 1);
        }
        for (size_t cut = 0; cut < bytes.size(); cut += 13) {
            std::istringstream short_in(bytes.substr(0, cut));
            CHECK_FALSE(ecs::deserialize(into, short_in, ecs::LoadMode::merge, map));
        }
        CHECK(into.count() == 1);
        REQUIRE(into.check_invariants());
    }
    CHECK(MgCounted::tally().clean());
}

TEST_CASE("merge: LoadMode::replace is deserialize with an identity map", "[merge]") {
    Level level;
    const std::string bytes = save(level.w);
    World into;
    ecs::EntityMap map;
    std::istringstream in(bytes);
    REQUIRE(ecs::deserialize(into, in, ecs::LoadMode::replace, map));
    CHECK(map.size() == 3);
    CHECK(map[level.a] == level.a);
    CHECK(into.get<MgLink>(level.a).target == level.b);
}

TEST_CASE("merge: many entities in many archetypes, tracked types count as added", "[merge]") {
    register_merge_types();
    World src;
    std::vector<Entity> es;
    for (int i = 0; i < 3000; ++i) {
        Entity e = src.create_with(MgPos{float(i), 0});
        if (i % 2) src.add(e, MgText{std::string(size_t(i % 40), 'x')});
        if (i % 3) src.add(e, MgLink{es.empty() ? ecs::INVALID_ENTITY : es[size_t(i) / 2], i});
        if (i % 5 == 0) src.add(e, MgPoison{i});
        es.push_back(e);
    }
    const std::string bytes = save(src);
    World into;
    into.track_changes<MgPos>();
    for (int i = 0; i < 500; ++i) (void)into.create_with(MgPos{-1, -1});
    auto changed = into.query<const MgPos>(ecs::Added<MgPos>{});
    size_t seen = 0;
    changed.each([&](const MgPos&) { ++seen; });
    CHECK(seen == 500);
    ecs::EntityMap map;
    std::istringstream in(bytes);
    REQUIRE(ecs::deserialize(into, in, ecs::LoadMode::merge, map));
    CHECK(into.count() == 3500);
    seen = 0;
    changed.each([&](const MgPos&) { ++seen; });
    CHECK(seen == 3000);
    for (size_t i = 0; i < es.size(); ++i) {
        const Entity e = map[es[i]];
        REQUIRE(into.alive(e));
        CHECK(into.get<MgPos>(e).x == float(i));
        if (i % 3) CHECK(into.get<MgLink>(e).target == map[es[i / 2]]);
        CHECK(into.has<MgPoison>(e) == (i % 5 == 0));
    }
    REQUIRE(into.check_invariants());
}
