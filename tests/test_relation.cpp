// Relationships (relation.hpp, detail/relation_ops.hpp, detail/relation_snapshot.hpp): pairs in both
// directions, exclusive replacement, OnDeleteTarget through several levels and cycles, self-relation,
// every destroy path (destroy, deferred, command buffers, hooks), the Related / Cascade filters with
// world.each and handles, deferred relate/unrelate, snapshots, clone, describe, and no fragmentation.
// Refusals (dead entities, iteration) are in tests/assert/test_assert_relation.cpp.
#include <ecs/command_buffer.hpp>
#include <ecs/inspect.hpp>
#include <ecs/parallel.hpp>
#include <ecs/schedule.hpp>
#include <ecs/serialization.hpp>
#include <ecs/world.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "data/snapshot_v2_before_relations.hpp"
#include "lifetime.hpp"

using ecs::Entity;
using ecs::World;

namespace {
struct Likes {};   // several targets, unrelate
struct ChildOf {}; // exclusive, destroy_sources
struct Owns {};    // several targets, destroy_sources
struct Follows {}; // exclusive, unrelate
struct Position {
    float x = 0, y = 0;
};
struct Velocity {
    float x = 0;
};
struct Frozen {};
struct RelTag {};
using Counted = lifetime::Counted<RelTag>;
struct FixPos {
    float x, y;
};
struct FixTag {};
} // namespace

template <>
struct ecs::relation_traits<ChildOf> {
    static constexpr bool exclusive = true;
    static constexpr ecs::OnDeleteTarget on_delete_target = ecs::OnDeleteTarget::destroy_sources;
};
template <>
struct ecs::relation_traits<Owns> {
    static constexpr ecs::OnDeleteTarget on_delete_target = ecs::OnDeleteTarget::destroy_sources;
};
template <>
struct ecs::relation_traits<Follows> {
    static constexpr bool exclusive = true; // on_delete_target left out: the default (unrelate)
};

namespace {

template <typename R>
std::vector<Entity> targets_of(const World& w, Entity e) {
    std::vector<Entity> out;
    w.each_target<R>(e, [&](Entity t) { out.push_back(t); });
    return out;
}
template <typename R>
std::vector<Entity> sources_of(const World& w, Entity e) {
    std::vector<Entity> out;
    w.each_source<R>(e, [&](Entity s) { out.push_back(s); });
    std::sort(out.begin(), out.end());
    return out;
}

/// Both directions agree for every pair of `all`, targets come in order, the tag follows the pairs,
/// and the world's invariants (which check the index itself) hold.
template <typename R>
void check_both(const World& w, const std::vector<Entity>& all) {
    REQUIRE(w.check_invariants());
    for (const Entity s : all) {
        const std::vector<Entity> targets = targets_of<R>(w, s);
        REQUIRE(targets.size() == w.target_count<R>(s));
        for (size_t i = 0; i < targets.size(); ++i) REQUIRE(w.target<R>(s, i) == targets[i]);
        REQUIRE(w.target<R>(s, targets.size()) == ecs::INVALID_ENTITY);
        REQUIRE(w.has<ecs::detail::HasRelation<R>>(s) == (w.alive(s) && !targets.empty()));
        for (const Entity t : all) {
            const bool related = w.related<R>(s, t);
            const std::vector<Entity> sources = sources_of<R>(w, t);
            REQUIRE(related == std::binary_search(sources.begin(), sources.end(), s));
            REQUIRE(related == (std::find(targets.begin(), targets.end(), t) != targets.end()));
            if (related) REQUIRE((w.alive(s) && w.alive(t)));
        }
    }
}

std::vector<Entity> make(World& w, int n) {
    std::vector<Entity> out;
    for (int i = 0; i < n; ++i) out.push_back(w.create_with(Position{float(i), 0}));
    return out;
}

std::string save(const World& w) {
    std::ostringstream out;
    ecs::serialize(w, out);
    return out.str();
}

ecs::DeserializeResult load(World& w, const std::string& bytes) {
    std::istringstream in(bytes);
    return ecs::deserialize(w, in);
}

const bool names_registered = [] {
    ecs::register_relation<Likes>("rel.Likes");
    ecs::register_relation<ChildOf>("rel.ChildOf");
    ecs::register_relation<Owns>("rel.Owns");
    ecs::register_component<Follows>("rel.Follows"); // the other way to name a relationship
    ecs::register_component<Position>("rel.Position");
    ecs::register_component<Velocity>("rel.Velocity");
    ecs::register_component<Frozen>("rel.Frozen");
    ecs::register_component<FixPos>("relfix.Pos");
    ecs::register_component<FixTag>("relfix.Tag");
    return true;
}();

} // namespace

// -------------------------------------------------------------------------------------------------
// The pairs
// -------------------------------------------------------------------------------------------------

TEST_CASE("relation: relate, related, targets in order, sources, both directions", "[relation]") {
    World w;
    const auto e = make(w, 4);
    check_both<Likes>(w, e);
    w.relate<Likes>(e[0], e[1]);
    w.relate<Likes>(e[0], e[3]);
    w.relate<Likes>(e[0], e[2]);
    w.relate<Likes>(e[2], e[1]);
    check_both<Likes>(w, e);
    CHECK(w.related<Likes>(e[0], e[1]));
    CHECK_FALSE(w.related<Likes>(e[1], e[0]));
    CHECK(w.target_count<Likes>(e[0]) == 3);
    CHECK(targets_of<Likes>(w, e[0]) == std::vector<Entity>{e[1], e[3], e[2]}); // order of relating
    CHECK(w.target<Likes>(e[0]) == e[1]);
    CHECK(w.target<Likes>(e[0], 2) == e[2]);
    CHECK(w.target<Likes>(e[0], 3) == ecs::INVALID_ENTITY);
    CHECK(sources_of<Likes>(w, e[1]) == std::vector<Entity>{e[0], e[2]});
    CHECK(w.target_count<Follows>(e[0]) == 0); // another relationship type knows nothing of these

    SECTION("relating again is a no-op") {
        w.relate<Likes>(e[0], e[1]);
        CHECK(targets_of<Likes>(w, e[0]) == std::vector<Entity>{e[1], e[3], e[2]});
        check_both<Likes>(w, e);
    }
    SECTION("unrelate keeps the order of the others; unrelating what is not related is a no-op") {
        w.unrelate<Likes>(e[0], e[3]);
        CHECK(targets_of<Likes>(w, e[0]) == std::vector<Entity>{e[1], e[2]});
        w.unrelate<Likes>(e[0], e[3]);
        w.unrelate<Likes>(e[3], e[0]);
        w.unrelate<Likes>(ecs::INVALID_ENTITY, e[0]);
        check_both<Likes>(w, e);
        w.unrelate<Likes>(e[0], e[1]);
        w.unrelate<Likes>(e[0], e[2]);
        CHECK(w.target_count<Likes>(e[0]) == 0);
        CHECK_FALSE(w.has<ecs::detail::HasRelation<Likes>>(e[0])); // the tag goes with the last pair
        check_both<Likes>(w, e);
    }
    SECTION("unrelate_all") {
        w.unrelate_all<Likes>(e[0]);
        CHECK(w.target_count<Likes>(e[0]) == 0);
        CHECK(sources_of<Likes>(w, e[1]) == std::vector<Entity>{e[2]});
        w.unrelate_all<Likes>(e[3]); // nothing to do
        check_both<Likes>(w, e);
    }
    SECTION("dead handles ask nothing") {
        w.destroy(e[3]);
        CHECK_FALSE(w.related<Likes>(e[3], e[0]));
        CHECK(w.target_count<Likes>(e[3]) == 0);
        CHECK(w.target<Likes>(e[3]) == ecs::INVALID_ENTITY);
        CHECK(targets_of<Likes>(w, e[3]).empty());
        CHECK(sources_of<Likes>(w, e[3]).empty());
        check_both<Likes>(w, e);
    }
}

TEST_CASE("relation: an exclusive relationship replaces the old target", "[relation]") {
    World w;
    const auto e = make(w, 4);
    w.relate<Follows>(e[0], e[1]);
    w.relate<Follows>(e[2], e[1]);
    w.relate<Follows>(e[0], e[3]);
    check_both<Follows>(w, e);
    CHECK(w.target_count<Follows>(e[0]) == 1);
    CHECK(w.target<Follows>(e[0]) == e[3]);
    CHECK(sources_of<Follows>(w, e[1]) == std::vector<Entity>{e[2]});
    CHECK(sources_of<Follows>(w, e[3]) == std::vector<Entity>{e[0]});
    w.relate<Follows>(e[0], e[3]); // the same target: nothing changes
    CHECK(w.target<Follows>(e[0]) == e[3]);
    w.relate<ChildOf>(e[1], e[0]);
    w.relate<ChildOf>(e[1], e[2]);
    CHECK(w.target<ChildOf>(e[1]) == e[2]);
    check_both<ChildOf>(w, e);
    check_both<Follows>(w, e);
}

TEST_CASE("relation: a self-relation is allowed and goes with its entity", "[relation]") {
    World w;
    const auto e = make(w, 2);
    w.relate<Likes>(e[0], e[0]);
    w.relate<Likes>(e[0], e[1]);
    w.relate<Owns>(e[1], e[1]);
    check_both<Likes>(w, e);
    check_both<Owns>(w, e);
    CHECK(w.related<Likes>(e[0], e[0]));
    CHECK(sources_of<Likes>(w, e[0]) == std::vector<Entity>{e[0]});
    w.destroy(e[1]); // destroy_sources with itself as source: destroyed once, nothing else
    CHECK(w.alive(e[0]));
    CHECK(targets_of<Likes>(w, e[0]) == std::vector<Entity>{e[0]});
    w.destroy(e[0]);
    CHECK(w.count() == 0);
    check_both<Likes>(w, e);
    CHECK(w.check_invariants());
}

// -------------------------------------------------------------------------------------------------
// Destroying: no dangling pair, on every path
// -------------------------------------------------------------------------------------------------

TEST_CASE("relation: destroying a target unrelates its sources, destroying a source frees its targets", "[relation]") {
    World w;
    const auto e = make(w, 5);
    w.relate<Likes>(e[0], e[1]);
    w.relate<Likes>(e[0], e[2]);
    w.relate<Likes>(e[3], e[1]);
    w.relate<Likes>(e[1], e[4]);
    w.destroy(e[1]);
    CHECK(w.alive(e[0]));
    CHECK(w.alive(e[3]));
    CHECK(targets_of<Likes>(w, e[0]) == std::vector<Entity>{e[2]});
    CHECK(w.target_count<Likes>(e[3]) == 0);
    CHECK_FALSE(w.has<ecs::detail::HasRelation<Likes>>(e[3])); // lost its last target: the tag goes
    CHECK(sources_of<Likes>(w, e[4]).empty());
    check_both<Likes>(w, e);
    // The slot is reused: the newcomer inherits nothing.
    const Entity fresh = w.create_with(Position{});
    CHECK(fresh.index == e[1].index);
    CHECK(sources_of<Likes>(w, fresh).empty());
    CHECK(w.target_count<Likes>(fresh) == 0);
    w.destroy(e[0]);
    CHECK(sources_of<Likes>(w, e[2]).empty());
    check_both<Likes>(w, {e[0], e[2], e[3], e[4], fresh});
}

TEST_CASE("relation: destroy_sources cascades through several levels", "[relation]") {
    World w;
    Counted::reset();
    {
        // root <- a <- a1, a2 <- a21 ; root <- b ; other stays
        const Entity root = w.create_with(Counted(0));
        const Entity a = w.create_with(Counted(1));
        const Entity b = w.create_with(Counted(2));
        const Entity a1 = w.create_with(Counted(3));
        const Entity a2 = w.create_with(Counted(4));
        const Entity a21 = w.create_with(Counted(5));
        const Entity other = w.create_with(Counted(6));
        w.relate<ChildOf>(a, root);
        w.relate<ChildOf>(b, root);
        w.relate<ChildOf>(a1, a);
        w.relate<ChildOf>(a2, a);
        w.relate<ChildOf>(a21, a2);
        w.relate<Likes>(other, a21); // a plain relationship into the doomed tree
        std::vector<int> order;
        w.on_remove<Counted>([&](World& world, Entity, Counted& c) {
            order.push_back(c.value());
            CHECK(world.check_invariants()); // consistent whenever user code runs
        });
        SECTION("destroy the root") {
            w.destroy(root);
            CHECK(w.count() == 1);
            CHECK(w.alive(other));
            CHECK(w.target_count<Likes>(other) == 0);
            // Sources before their target: deepest first, the root last.
            REQUIRE(order.size() == 6);
            CHECK(order.back() == 0);
            auto at = [&](int v) { return std::find(order.begin(), order.end(), v) - order.begin(); };
            CHECK(at(5) < at(4));
            CHECK(at(4) < at(1));
            CHECK(at(3) < at(1));
            CHECK(at(1) < at(0));
            CHECK(at(2) < at(0));
        }
        SECTION("destroy a middle node through a deferred destroy") {
            w.deferred().destroy(a);
            w.flush_deferred();
            CHECK(w.count() == 3);
            CHECK(w.alive(root));
            CHECK(w.alive(b));
            CHECK(sources_of<ChildOf>(w, root) == std::vector<Entity>{b});
        }
        SECTION("destroy through a command buffer") {
            ecs::CommandBuffer cb;
            cb.destroy(a2);
            cb.flush(w);
            CHECK(w.count() == 5);
            CHECK_FALSE(w.alive(a21));
        }
        check_both<ChildOf>(w, {root, a, b, a1, a2, a21, other});
        check_both<Likes>(w, {root, a, b, a1, a2, a21, other});
    }
    w = World{};
    CHECK(Counted::tally().clean());
}

TEST_CASE("relation: destroy_sources ends on cycles and shared sources", "[relation]") {
    World w;
    SECTION("a two-cycle") {
        const auto e = make(w, 3);
        w.relate<Owns>(e[0], e[1]);
        w.relate<Owns>(e[1], e[0]);
        w.destroy(e[0]);
        CHECK(w.count() == 1);
        CHECK(w.alive(e[2]));
    }
    SECTION("a long cycle of an exclusive type") {
        const auto e = make(w, 50);
        for (size_t i = 0; i < e.size(); ++i) w.relate<ChildOf>(e[i], e[(i + 1) % e.size()]);
        check_both<ChildOf>(w, e);
        w.destroy(e[17]);
        CHECK(w.count() == 0);
        CHECK(w.check_invariants());
    }
    SECTION("a diamond and a source of several targets") {
        const auto e = make(w, 5);
        w.relate<Owns>(e[1], e[0]); // e1 and e2 are sources of e0; e3 is a source of both; e4 of e3
        w.relate<Owns>(e[2], e[0]);
        w.relate<Owns>(e[3], e[1]);
        w.relate<Owns>(e[3], e[2]);
        w.relate<Owns>(e[4], e[3]);
        w.relate<Owns>(e[4], e[4]);
        w.destroy(e[0]);
        CHECK(w.count() == 0);
        CHECK(w.check_invariants());
    }
    SECTION("a deep chain destroys without deep recursion") {
        std::vector<Entity> chain = make(w, 20000);
        for (size_t i = 1; i < chain.size(); ++i) w.relate<ChildOf>(chain[i], chain[i - 1]);
        w.destroy(chain[0]);
        CHECK(w.count() == 0);
        CHECK(w.check_invariants());
    }
    SECTION("unrelate and destroy_sources relationships mixed") {
        const auto e = make(w, 4);
        w.relate<Owns>(e[1], e[0]);
        w.relate<Likes>(e[2], e[1]);
        w.relate<Likes>(e[2], e[3]);
        w.relate<Owns>(e[3], e[1]);
        w.destroy(e[0]);
        CHECK(w.count() == 1);
        CHECK(w.alive(e[2]));
        CHECK(w.target_count<Likes>(e[2]) == 0);
        CHECK_FALSE(w.has<ecs::detail::HasRelation<Likes>>(e[2]));
        check_both<Likes>(w, e);
    }
}

TEST_CASE("relation: hooks that destroy and relate during a destroy", "[relation]") {
    World w;
    const auto e = make(w, 6);
    w.relate<ChildOf>(e[1], e[0]);
    w.relate<ChildOf>(e[2], e[1]);
    w.relate<Likes>(e[3], e[2]);
    w.relate<Likes>(e[4], e[0]);
    SECTION("an on_remove hook destroys an entity of the cascade and another one") {
        w.on_remove<Position>([&](World& world, Entity dying, Position&) {
            if (dying == e[2]) {
                world.destroy(e[1]); // already collected: destroyed now, skipped later
                world.destroy(e[5]);
            }
        });
        w.destroy(e[0]);
        CHECK(w.count() == 2);
        CHECK(w.alive(e[3]));
        CHECK(w.alive(e[4]));
    }
    SECTION("an on_remove hook relates a new source to the dying target") {
        w.on_remove<Position>([&](World& world, Entity dying, Position&) {
            if (dying == e[1] && world.alive(e[5])) world.relate<ChildOf>(e[5], e[1]);
        });
        w.destroy(e[0]);
        CHECK_FALSE(w.alive(e[5])); // related before the pairs went: destroyed with its target
        CHECK(w.count() == 2);
    }
    SECTION("an on_remove hook of the tag destroys the source losing it") {
        w.on_remove<ecs::detail::HasRelation<Likes>>([&](World& world, Entity losing, ecs::detail::HasRelation<Likes>&) {
            if (losing == e[3]) world.destroy(e[3]);
        });
        w.destroy(e[2]);
        CHECK_FALSE(w.alive(e[3]));
        CHECK(w.alive(e[4]));
    }
    check_both<ChildOf>(w, e);
    check_both<Likes>(w, e);
}

TEST_CASE("relation: relating fires on_add and on_enter for the tag; Related<R>{} observers work", "[relation]") {
    World w;
    const auto e = make(w, 3);
    int entered = 0;
    int left = 0;
    w.on_enter<Position>(ecs::Related<Likes>{}, [&](World& world, Entity who) {
        ++entered;
        CHECK(world.target_count<Likes>(who) == 1); // the pair exists when the hook runs
    });
    w.on_leave<Position>(ecs::Related<Likes>{}, [&](World&, Entity) { ++left; });
    w.relate<Likes>(e[0], e[1]);
    w.relate<Likes>(e[0], e[2]);
    CHECK(entered == 1);
    w.unrelate<Likes>(e[0], e[1]);
    CHECK(left == 0);
    w.destroy(e[2]); // e0 loses its last target
    CHECK(left == 1);
    w.relate<Likes>(e[1], e[0]);
    w.destroy(e[1]);
    CHECK(left == 2);
}

TEST_CASE("relation: counted components are unaffected by relating, cascades and reloads", "[relation]") {
    Counted::reset();
    {
        World w;
        std::vector<Entity> e;
        for (int i = 0; i < 40; ++i) e.push_back(w.create_with(Counted(i), Position{float(i), 0}));
        for (int i = 1; i < 40; ++i) w.relate<ChildOf>(e[size_t(i)], e[size_t(i / 3)]);
        for (int i = 0; i < 40; i += 7) w.relate<Likes>(e[size_t(i)], e[size_t(39 - i)]);
        for (int i = 0; i < 40; ++i) REQUIRE(w.get<Counted>(e[size_t(i)]).value() == i); // values survived the migrations
        World copy = w.clone();
        w.destroy(e[1]);
        CHECK(w.check_invariants());
        CHECK(copy.check_invariants());
        CHECK(copy.count() == 40);
    }
    CHECK(Counted::tally().clean());
}

// -------------------------------------------------------------------------------------------------
// No fragmentation
// -------------------------------------------------------------------------------------------------

TEST_CASE("relation: relating to many targets adds one archetype per relationship type", "[relation]") {
    World w;
    const auto targets = make(w, 300);
    std::vector<Entity> sources;
    for (int i = 0; i < 300; ++i) sources.push_back(w.create_with(Position{}, Velocity{}));
    const size_t before = w.archetype_count();
    for (size_t i = 0; i < sources.size(); ++i) {
        w.relate<Likes>(sources[i], targets[i]);
        w.relate<Likes>(sources[i], targets[(i + 1) % targets.size()]);
        w.relate<ChildOf>(sources[i], targets[i]);
    }
    CHECK(w.archetype_count() <= before + 3); // {P,V,Likes} and {P,V,Likes,ChildOf} (+ the edge between)
    CHECK(w.count<ecs::detail::HasRelation<Likes>>() == 300);
}

// -------------------------------------------------------------------------------------------------
// Queries: Related<R>{target}, Related<R>{}, Cascade<R>
// -------------------------------------------------------------------------------------------------

TEST_CASE("relation: Related<R>{target} and Related<R>{} in world.each and in handles", "[relation]") {
    World w;
    const auto e = make(w, 8);
    w.add(e[5], Velocity{5});
    w.add(e[6], Velocity{6});
    w.relate<Likes>(e[1], e[0]);
    w.relate<Likes>(e[2], e[0]);
    w.relate<Likes>(e[2], e[7]);
    w.relate<Likes>(e[5], e[0]);
    w.relate<Likes>(e[6], e[7]);
    w.relate<Follows>(e[5], e[7]);

    auto collect_each = [&](auto... filters) {
        std::vector<Entity> out;
        w.each<const Position>(filters..., [&](Entity x, const Position&) { out.push_back(x); });
        std::sort(out.begin(), out.end());
        return out;
    };
    CHECK(collect_each(ecs::Related<Likes>{e[0]}) == std::vector<Entity>{e[1], e[2], e[5]});
    CHECK(collect_each(ecs::Related<Likes>{e[7]}) == std::vector<Entity>{e[2], e[6]});
    CHECK(collect_each(ecs::Related<Likes>{}) == std::vector<Entity>{e[1], e[2], e[5], e[6]});
    CHECK(collect_each(ecs::Related<Likes>{e[3]}).empty());
    CHECK(collect_each(ecs::Related<Likes>{ecs::INVALID_ENTITY}).empty());
    CHECK(collect_each(ecs::Related<Likes>{e[0]}, ecs::With<Velocity>{}) == std::vector<Entity>{e[5]});
    CHECK(collect_each(ecs::Related<Likes>{e[0]}, ecs::Without<Velocity>{}) == std::vector<Entity>{e[1], e[2]});
    CHECK(collect_each(ecs::Related<Likes>{e[0]}, ecs::Related<Follows>{e[7]}) == std::vector<Entity>{e[5]});
    CHECK(collect_each(ecs::Related<Likes>{e[0]}, ecs::Related<Likes>{e[7]}) == std::vector<Entity>{e[2]});

    // each_no_entity and the const World.
    int n = 0;
    w.each_no_entity<Position>(ecs::Related<Likes>{e[7]}, [&](Position&) { ++n; });
    CHECK(n == 2);
    const World& cw = w;
    n = 0;
    cw.each<const Position>(ecs::Related<Likes>{e[0]}, [&](const Position&) { ++n; });
    CHECK(n == 3);

    // A handle keeps its target; two handles of one signature keep theirs.
    auto q0 = w.query<const Position>(ecs::Related<Likes>{e[0]});
    auto q7 = w.query<const Position>(ecs::Related<Likes>{e[7]});
    auto qa = w.query<const Position>(ecs::Related<Likes>{});
    CHECK(q0.count() == 3);
    CHECK(q7.count() == 2);
    CHECK(qa.count() == 4);
    CHECK_FALSE(q0.empty());
    CHECK(q0.first() == e[1]);
    size_t chunk_rows = 0;
    q0.each_chunk([&](ecs::Chunk& c) {
        for (size_t i = 0; i < c.size(); ++i) CHECK(w.related<Likes>(c.entities()[i], e[0]));
        chunk_rows += c.size();
    });
    CHECK(chunk_rows == 3);
    std::vector<Entity> seen;
    q7.each([&](Entity x, const Position&) { seen.push_back(x); });
    CHECK(seen.size() == 2);
    // The handle sees later changes.
    w.unrelate<Likes>(e[1], e[0]);
    w.relate<Likes>(e[3], e[0]);
    CHECK(q0.count() == 3);
    w.destroy(e[0]);
    CHECK(q0.count() == 0);
    CHECK(q0.empty());
    CHECK(q0.first() == ecs::INVALID_ENTITY);
    // A copy of a handle carries the value.
    auto copy = q7;
    CHECK(copy.count() == 2);
    // A handle made before R was ever related.
    World fresh;
    auto early = fresh.query<const Position>(ecs::Related<Owns>{Entity{1, 1}});
    CHECK(early.count() == 0);
    const auto f = make(fresh, 3);
    fresh.relate<Owns>(f[1], f[0]);
    CHECK(early.count() == 1);
}

TEST_CASE("relation: each_par with Related<R>{target} runs sequentially and right", "[relation]") {
    World w;
    const auto e = make(w, 5000);
    for (size_t i = 1; i < e.size(); i += 2) w.relate<Likes>(e[i], e[0]);
    ecs::ThreadPool pool(2);
    size_t n = 0;
    w.each_par<Position>(pool, ecs::Related<Likes>{e[0]}, [&](Entity x, Position&) {
        ++n;
        CHECK(x.index % 2 == 0);
    });
    CHECK(n == 2500);
    n = 0;
    w.query<Position>(ecs::Related<Likes>{e[0]}).each_par(pool, [&](ecs::CommandBuffer& cb, Entity x, Position&) {
        ++n;
        cb.add(x, Frozen{});
    });
    CHECK(n == 2500);
    CHECK(w.count<Frozen>() == 2500);
}

namespace {
/// Visits with Cascade<ChildOf> and checks each entity comes after its target; returns the order.
template <typename... Filters>
std::vector<Entity> cascade_order(World& w, Filters... filters) {
    std::vector<Entity> order;
    std::set<Entity> visited;
    w.each<const Position>(ecs::Cascade<ChildOf>{}, filters..., [&](Entity x, const Position&) {
        const Entity parent = w.target<ChildOf>(x);
        if (parent != ecs::INVALID_ENTITY && w.has<Position>(parent) && sizeof...(Filters) == 0)
            CHECK(visited.count(parent) == 1); // the target came first
        CHECK(visited.insert(x).second);       // once
        order.push_back(x);
    });
    return order;
}
} // namespace

TEST_CASE("relation: Cascade<R> visits roots first, each entity after its target", "[relation]") {
    World w;
    // Children created before their parents, spread over two archetypes.
    std::vector<Entity> e;
    for (int i = 0; i < 30; ++i) e.push_back(i % 3 == 0 ? w.create_with(Position{float(i), 0}, Velocity{}) : w.create_with(Position{float(i), 0}));
    // A forest: node i's parent is node 3i+1.. reversed: parent(i) = i + 1 + (i % 4) when in range.
    for (size_t i = 0; i < e.size(); ++i)
        if (i + 1 + (i % 4) < e.size()) w.relate<ChildOf>(e[i], e[i + 1 + (i % 4)]);
    std::vector<Entity> order = cascade_order(w);
    CHECK(order.size() == e.size());

    // Roots first (depth 0), in archetype then row order.
    auto depth = [&](Entity x) {
        int d = 0;
        for (Entity p = w.target<ChildOf>(x); p != ecs::INVALID_ENTITY; p = w.target<ChildOf>(p)) ++d;
        return d;
    };
    for (size_t i = 1; i < order.size(); ++i) CHECK(depth(order[i - 1]) <= depth(order[i]));

    SECTION("handles: each, each_chunk, count, first") {
        auto q = w.query<const Position>(ecs::Cascade<ChildOf>{});
        std::vector<Entity> by_handle;
        q.each([&](Entity x, const Position&) { by_handle.push_back(x); });
        CHECK(by_handle == order);
        std::vector<Entity> by_chunk;
        q.each_chunk([&](ecs::Chunk& c) {
            for (size_t i = 0; i < c.size(); ++i) by_chunk.push_back(c.entities()[i]);
            const Position* p = c.get<const Position>();
            for (size_t i = 0; i < c.size(); ++i) CHECK(&w.get<Position>(c.entities()[i]) == p + i);
        });
        CHECK(by_chunk == order);
        CHECK(q.count() == order.size());
        CHECK(q.first() == order.front());
    }
    SECTION("the order follows changes: reparenting, new entities, moves between archetypes") {
        const Entity top = w.create_with(Position{-1, 0});
        w.relate<ChildOf>(e.back(), top); // the old root gets a parent: everything deepens by one
        w.add(e[5], Frozen{});            // a row moves to another archetype
        w.destroy(e[7]);                  // and a subtree goes
        const std::vector<Entity> again = cascade_order(w);
        CHECK(std::find(again.begin(), again.end(), top) < std::find(again.begin(), again.end(), e.back()));
        CHECK(again.size() == w.count<Position>());
        CHECK_FALSE(w.alive(e[2])); // its chain went through e[7]
        const Entity mover = *std::find_if(e.begin(), e.end() - 1, [&](Entity x) { return w.alive(x) && w.target<ChildOf>(x) != ecs::INVALID_ENTITY; });
        w.relate<ChildOf>(mover, top); // exclusive: reparented
        CHECK(w.target<ChildOf>(mover) == top);
        CHECK(cascade_order(w).size() == w.count<Position>());
    }
    SECTION("with other filters and in nested runs") {
        const std::vector<Entity> movers = cascade_order(w, ecs::With<Velocity>{});
        CHECK(movers.size() == 10);
        const std::vector<Entity> under = cascade_order(w, ecs::Related<ChildOf>{e[29]});
        for (const Entity x : under) CHECK(w.target<ChildOf>(x) == e[29]);
        size_t inner_runs = 0;
        w.each<const Position>(ecs::Cascade<ChildOf>{}, [&](Entity, const Position&) {
            size_t n = 0;
            w.each<const Position>(ecs::Cascade<ChildOf>{}, [&](Entity, const Position&) { ++n; });
            CHECK(n == order.size());
            ++inner_runs;
        });
        CHECK(inner_runs == order.size());
    }
    SECTION("a cycle is cut and every member still visited once") {
        w.relate<ChildOf>(e.back(), e[0]); // closes a cycle through the chain from e[0]
        size_t n = 0;
        std::set<Entity> once;
        w.each<const Position>(ecs::Cascade<ChildOf>{}, [&](Entity x, const Position&) {
            ++n;
            CHECK(once.insert(x).second);
        });
        CHECK(n == e.size());
    }
    SECTION("a world that never related R") {
        World other;
        const auto f = make(other, 4);
        std::vector<Entity> seen;
        other.each<const Position>(ecs::Cascade<ChildOf>{}, [&](Entity x, const Position&) { seen.push_back(x); });
        CHECK(seen == f);
    }
}

TEST_CASE("relation: an outermost Cascade run sorts rows by depth; nested runs and count() do not", "[relation]") {
    World w;
    std::vector<Entity> e = make(w, 12); // two chains, children created first: e0 -> ... -> e5, e6 -> ... -> e11
    for (size_t i = 0; i + 1 < e.size(); ++i)
        if (i != 5) w.relate<ChildOf>(e[i], e[i + 1]);
    auto rows = [&] {
        std::vector<Entity> out;
        w.each<const Position>([&](Entity x, const Position&) { out.push_back(x); });
        return out;
    };
    const std::vector<Entity> before = rows();
    auto q = w.query<const Position>(ecs::Cascade<ChildOf>{});
    CHECK(q.count() == e.size());
    CHECK(q.first() == before.front()); // a root: the first row of the archetype without the tag
    CHECK(rows() == before); // count() and first() leave the rows alone
    size_t nested = 0;
    w.each<const Position>([&](Entity, const Position&) {
        if (nested++ == 0) CHECK(q.count() == e.size());
        if (nested == 1) q.each([](Entity, const Position&) {});
    });
    CHECK(rows() == before); // nested runs too
    std::vector<Entity> cascade;
    q.each([&](Entity x, const Position&) { cascade.push_back(x); });
    // Depth by depth, the two roots (in the untagged archetype, in their row order) first.
    const std::vector<Entity> expected{before[0], before[1], e[4], e[10], e[3], e[9], e[2], e[8], e[1], e[7], e[0], e[6]};
    CHECK(cascade == expected);
    CHECK(rows() == expected); // sorted by depth: the plain order is now the Cascade order
    CHECK(w.check_invariants());
    for (size_t i = 0; i < e.size(); ++i) CHECK(w.get<const Position>(e[i]).x == float(i)); // values moved with rows
    std::vector<size_t> chunks;
    q.each_chunk([&](ecs::Chunk& c) { chunks.push_back(c.size()); });
    CHECK(chunks == std::vector<size_t>{2, 10}); // whole blocks: the roots, then every depth in a row
}

TEST_CASE("relation: Cascade runs in parallel sections and scheduled systems", "[relation]") {
    World w;
    const auto e = make(w, 3000);
    for (size_t i = 1; i < e.size(); ++i) w.relate<ChildOf>(e[i], e[(i - 1) / 3]);
    ecs::ThreadPool pool(2);
    std::atomic<size_t> counted{0};
    w.each_par<const Position>(pool, [&](Entity x, const Position&) {
        if (x.index % 500 == 0) counted += w.query<const Position>(ecs::Cascade<ChildOf>{}).count();
    });
    CHECK(counted.load() == 6 * e.size());
    ecs::Schedule s;
    std::vector<Entity> order;
    s.add<const Position>("cascade", ecs::Cascade<ChildOf>{}, [&](Entity x, const Position&) { order.push_back(x); });
    s.add<Velocity>("other", [](Velocity&) {});
    s.run(w, pool);
    REQUIRE(order.size() == e.size());
    std::set<Entity> seen;
    for (const Entity x : order) {
        const Entity parent = w.target<ChildOf>(x);
        if (parent != ecs::INVALID_ENTITY) CHECK(seen.count(parent) == 1);
        seen.insert(x);
    }
}

TEST_CASE("relation: a Cascade run writes its mutable terms and stamps them", "[relation]") {
    World w;
    w.track_changes<Position>();
    const auto e = make(w, 6);
    for (size_t i = 1; i < e.size(); ++i) w.relate<ChildOf>(e[i], e[i - 1]);
    auto changed = w.query<const Position>(ecs::Changed<Position>{});
    changed.each([](const Position&) {});
    // Propagation: each x = parent x + 1, correct only in Cascade order (children were created later).
    w.each<Position>(ecs::Cascade<ChildOf>{}, [&](Entity x, Position& p) {
        const Entity parent = w.target<ChildOf>(x);
        p.x = parent == ecs::INVALID_ENTITY ? 0.0f : w.get<const Position>(parent).x + 1.0f;
    });
    for (size_t i = 0; i < e.size(); ++i) CHECK(w.get<const Position>(e[i]).x == float(i));
    CHECK(changed.count() == e.size());
}

// -------------------------------------------------------------------------------------------------
// Deferred
// -------------------------------------------------------------------------------------------------

TEST_CASE("relation: deferred relate and unrelate, in order, dead entities skipped", "[relation]") {
    World w;
    const auto e = make(w, 4);
    w.relate<Likes>(e[3], e[2]);
    w.each<Position>([&](Entity x, Position&) {
        if (x == e[0]) {
            w.deferred().relate<Likes>(e[0], e[1]);
            w.deferred().relate<Likes>(e[0], e[2]);
            w.deferred().unrelate<Likes>(e[0], e[1]);
            w.deferred().unrelate_all<Likes>(e[3]);
            w.deferred().relate<Likes>(e[1], e[2]);
            w.deferred().destroy(e[2]);
            w.deferred().relate<Likes>(e[1], e[2]); // e2 is dead by then: nothing happens
        }
    });
    CHECK(w.target_count<Likes>(e[0]) == 0);
    w.flush_deferred();
    CHECK(w.target_count<Likes>(e[0]) == 0); // related to e2, which died
    CHECK(w.target_count<Likes>(e[1]) == 0);
    CHECK(w.target_count<Likes>(e[3]) == 0);
    check_both<Likes>(w, e);

    ecs::CommandBuffer cb;
    cb.relate<Follows>(e[0], e[1]);
    cb.relate<Follows>(e[0], e[3]);
    cb.relate<Likes>(e[3], e[1]);
    cb.unrelate<Likes>(e[3], e[1]);
    cb.relate<Likes>(e[3], e[0]);
    CHECK(w.target_count<Follows>(e[0]) == 0);
    cb.flush(w);
    CHECK(w.target<Follows>(e[0]) == e[3]);
    CHECK(targets_of<Likes>(w, e[3]) == std::vector<Entity>{e[0]});
    check_both<Likes>(w, e);
    check_both<Follows>(w, e);
}

// -------------------------------------------------------------------------------------------------
// Snapshots, clone, describe, moves, resets
// -------------------------------------------------------------------------------------------------

namespace {
/// A world with pairs in several types, reused by the snapshot and clone tests.
std::vector<Entity> build_related_world(World& w) {
    auto e = make(w, 10);
    w.add(e[4], Velocity{4});
    w.relate<Likes>(e[0], e[3]);
    w.relate<Likes>(e[0], e[1]);
    w.relate<Likes>(e[0], e[2]);
    w.relate<Likes>(e[5], e[1]);
    w.relate<Likes>(e[2], e[1]);
    w.relate<Likes>(e[4], e[4]);
    w.relate<ChildOf>(e[6], e[5]);
    w.relate<ChildOf>(e[7], e[6]);
    w.relate<Follows>(e[8], e[7]);
    w.destroy(e[9]); // a free slot
    w.unrelate<Likes>(e[5], e[1]); // reorders e1's sources (swap-remove)
    w.relate<Likes>(e[7], e[1]);
    return e;
}

/// Every pair of every type among `e`, with the targets' source lists in their stored order.
std::string pairs_of(const World& w, const std::vector<Entity>& e) {
    std::string out;
    auto dump = [&](const char* name, auto tag) {
        using R = decltype(tag);
        for (const Entity x : e) {
            for (const Entity t : targets_of<R>(w, x)) out += std::string(name) + " " + std::to_string(x.index) + ">" + std::to_string(t.index) + "\n";
            w.each_source<R>(x, [&](Entity s) { out += std::string(name) + " src " + std::to_string(x.index) + "<" + std::to_string(s.index) + "\n"; });
        }
    };
    dump("likes", Likes{});
    dump("childof", ChildOf{});
    dump("follows", Follows{});
    return out;
}
} // namespace

TEST_CASE("relation: pairs round-trip through snapshots, both orders kept", "[relation]") {
    REQUIRE(names_registered);
    World w;
    const auto e = build_related_world(w);
    const std::string bytes = save(w);
    REQUIRE_FALSE(bytes.empty());
    World loaded;
    std::istringstream in(bytes);
    const ecs::DeserializeResult r = ecs::deserialize(loaded, in);
    INFO(r.message);
    REQUIRE(r);
    CHECK(loaded.check_invariants());
    CHECK(pairs_of(loaded, e) == pairs_of(w, e));
    CHECK(loaded.archetype_count() <= w.archetype_count());
    check_both<Likes>(loaded, e);
    check_both<ChildOf>(loaded, e);
    check_both<Follows>(loaded, e);
    // Loaded pairs behave: cascades, filters, more relating.
    CHECK(loaded.query<const Position>(ecs::Related<Likes>{e[1]}).count() == 3);
    loaded.destroy(e[5]);
    CHECK_FALSE(loaded.alive(e[7]));
    CHECK(loaded.target_count<Follows>(e[8]) == 0);
    CHECK(loaded.check_invariants());
    // Saving the loaded world gives the same bytes.
    World again;
    std::istringstream in2(bytes);
    REQUIRE(ecs::deserialize(again, in2));
    CHECK(save(again) == bytes);
}

TEST_CASE("relation: thousands of pairs in scrambled order round-trip through a snapshot", "[relation]") {
    // The reader sorts the pairs twice (duplicates, then positions per target): enough pairs, related
    // in an order far from sorted and with unrelates between, to exercise that sort at size.
    REQUIRE(names_registered);
    World w;
    const auto e = make(w, 400);
    uint32_t state = 12345;
    auto next = [&](uint32_t bound) {
        state = state * 1664525u + 1013904223u;
        return (state >> 8) % bound;
    };
    for (int i = 0; i < 3000; ++i) {
        const Entity s = e[next(400)], t = e[next(60)];
        if (next(5) == 0) w.unrelate<Likes>(s, t);
        else w.relate<Likes>(s, t);
    }
    REQUIRE(w.query<const Position>().count() == 400);
    const std::string bytes = save(w);
    World loaded;
    const ecs::DeserializeResult r = load(loaded, bytes);
    INFO(r.message);
    REQUIRE(r);
    CHECK(loaded.check_invariants());
    CHECK(pairs_of(loaded, e) == pairs_of(w, e));
    check_both<Likes>(loaded, e);
    CHECK(save(loaded) == bytes);
}

TEST_CASE("relation: a world without pairs writes what it wrote before relationships", "[relation]") {
    REQUIRE(names_registered);
    SECTION("a snapshot written before relationships existed loads") {
        World w;
        std::istringstream in(std::string(reinterpret_cast<const char*>(fixture::snapshot_v2_before_relations),
                                          sizeof fixture::snapshot_v2_before_relations));
        const ecs::DeserializeResult r = ecs::deserialize(w, in);
        INFO(r.message);
        REQUIRE(r);
        CHECK(w.count() == 3);
        CHECK(w.count<FixPos>() == 2);
        CHECK(w.count<FixTag>() == 1);
        // ...and this build writes the very same bytes for that world.
        CHECK(save(w) == std::string(reinterpret_cast<const char*>(fixture::snapshot_v2_before_relations),
                                     sizeof fixture::snapshot_v2_before_relations));
    }
    SECTION("a world whose pairs are all gone") {
        World w;
        const auto e = make(w, 3);
        World plain;
        (void)make(plain, 3);
        w.relate<Likes>(e[2], e[1]); // the last row leaves for the tag's archetype and comes back last
        w.unrelate<Likes>(e[2], e[1]);
        CHECK(save(w) == save(plain));
    }
}

namespace {
/// The byte offset of the first pair of the relations section in a snapshot, and the body bounds.
struct SnapshotLayout {
    size_t body_at = 20;
    size_t body_length = 0;
    size_t first_pair = 0;
};
SnapshotLayout layout_of(const std::string& s) {
    SnapshotLayout l;
    uint64_t length = 0;
    std::memcpy(&length, s.data() + 8, 8);
    l.body_length = static_cast<size_t>(length);
    const size_t at = s.find("RELS"); // the extension section's tag
    REQUIRE(at != std::string::npos);
    size_t p = at + 4 + 8 + 4; // tag, payload length, type count
    uint32_t name_length = 0;
    std::memcpy(&name_length, s.data() + p, 4);
    p += 4 + name_length + 4; // name, pair count
    l.first_pair = p;
    return l;
}
/// Rewrites the body checksum after a change inside the body.
void reseal(std::string& s, const SnapshotLayout& l) {
    const uint32_t crc = ecs::detail::Crc32c::of(s.data() + l.body_at, l.body_length);
    std::memcpy(&s[l.body_at + l.body_length], &crc, 4);
}
void put32(std::string& s, size_t at, uint32_t v) { std::memcpy(&s[at], &v, 4); }
} // namespace

TEST_CASE("relation: malformed relationship sections are refused and the world left untouched", "[relation]") {
    REQUIRE(names_registered);
    World w;
    const auto e = make(w, 4);
    w.relate<Follows>(e[0], e[1]);
    w.relate<Follows>(e[2], e[1]);
    w.destroy(e[3]);
    const std::string good = save(w);
    const SnapshotLayout l = layout_of(good);
    World target;
    SECTION("a pair naming a dead entity") {
        std::string bad = good;
        put32(bad, l.first_pair + 12, 7); // the target's generation
        reseal(bad, l);
        const ecs::DeserializeResult r = load(target, bad);
        CHECK(r.error == ecs::DeserializeError::dangling_relation);
        std::string bad2 = good;
        put32(bad2, l.first_pair + 8, e[3].index); // a freed slot
        reseal(bad2, l);
        CHECK(load(target, bad2).error == ecs::DeserializeError::dangling_relation);
    }
    SECTION("a pair listed twice, bad positions") {
        std::string bad = good;
        std::memcpy(&bad[l.first_pair + 20], &bad[l.first_pair], 20); // the second pair repeats the first
        reseal(bad, l);
        CHECK(load(target, bad).error == ecs::DeserializeError::bad_relation);
        std::string bad2 = good;
        put32(bad2, l.first_pair + 16, 1); // both sources claim position 1
        reseal(bad2, l);
        CHECK(load(target, bad2).error == ecs::DeserializeError::bad_relation);
    }
    SECTION("a pair whose source lacks the tag") {
        std::string bad = good;
        put32(bad, l.first_pair + 20, e[1].index); // e1 (untagged) as the second source, of itself
        put32(bad, l.first_pair + 24, e[1].generation);
        reseal(bad, l);
        CHECK(load(target, bad).error == ecs::DeserializeError::bad_relation);
    }
    SECTION("an unknown relationship name and an unknown section") {
        std::string bad = good;
        const size_t name_at = good.rfind("rel.Follows"); // in the section, not the tag's name
        REQUIRE(name_at != std::string::npos);
        bad[name_at + 4] = 'X';
        reseal(bad, l);
        CHECK(load(target, bad).error == ecs::DeserializeError::unknown_relation);
        std::string bad2 = good;
        bad2[good.find("RELS")] = 'X';
        reseal(bad2, l);
        CHECK(load(target, bad2).error == ecs::DeserializeError::bad_section);
    }
    SECTION("a flipped bit anywhere in the section is a checksum mismatch") {
        for (size_t at = l.first_pair - 30; at < l.body_at + l.body_length; ++at) {
            std::string bad = good;
            bad[at] = static_cast<char>(bad[at] ^ 0x10);
            CHECK(load(target, bad).error == ecs::DeserializeError::checksum_mismatch);
        }
    }
    CHECK(target.count() == 0);
    CHECK(target.check_invariants());
    World fine;
    REQUIRE(load(fine, good));
    CHECK(fine.target<Follows>(e[2]) == e[1]);
}

TEST_CASE("relation: clone copies the pairs; the copies are independent", "[relation]") {
    World w;
    const auto e = build_related_world(w);
    World copy = w.clone();
    CHECK(copy.check_invariants());
    CHECK(pairs_of(copy, e) == pairs_of(w, e));
    copy.destroy(e[1]);
    CHECK(w.target_count<Likes>(e[0]) == 3);
    CHECK(copy.target_count<Likes>(e[0]) == 2);
    w.relate<Likes>(e[3], e[1]);
    CHECK_FALSE(copy.related<Likes>(e[3], e[1]));
    CHECK(w.check_invariants());
    CHECK(copy.check_invariants());
}

TEST_CASE("relation: describe lists the relationship types and their counts", "[relation]") {
    World w;
    CHECK(ecs::describe(w).find("relationships: none") != std::string::npos);
    (void)build_related_world(w);
    const std::string text = ecs::describe(w);
    INFO(text);
    CHECK(text.find("relationships: 3 types, 9 pairs") != std::string::npos);
    CHECK(text.find("rel.Likes (several targets, unrelate): 6 pairs, 4 sources, 4 targets") != std::string::npos);
    CHECK(text.find("rel.ChildOf (exclusive, destroy sources): 2 pairs") != std::string::npos);
    CHECK(text.find("rel.Follows (exclusive, unrelate): 1 pairs") != std::string::npos);
    CHECK(text.find("ecs::Related<rel.Likes>") != std::string::npos); // the tag's name in archetypes
}

TEST_CASE("relation: moving a world keeps its pairs; resetting forgets them", "[relation]") {
    World w;
    const auto e = build_related_world(w);
    const std::string before = pairs_of(w, e);
    World moved(std::move(w));
    CHECK(pairs_of(moved, e) == before);
    CHECK(moved.check_invariants());
    moved.destroy(e[0]);
    CHECK(moved.check_invariants());
    ecs::detail::WorldAccess::reset_entities(moved);
    CHECK(moved.count() == 0);
    CHECK(moved.check_invariants());
    const auto f = make(moved, 3);
    CHECK(moved.target_count<Likes>(f[0]) == 0);
    moved.relate<Likes>(f[0], f[1]);
    CHECK(moved.check_invariants());
}

TEST_CASE("relation: each_target and each_source may change relationships inside", "[relation]") {
    World w;
    const auto e = make(w, 6);
    for (size_t i = 1; i < e.size(); ++i) w.relate<Likes>(e[i], e[0]);
    for (size_t i = 1; i < e.size(); ++i) w.relate<Likes>(e[0], e[i]);
    size_t visited = 0;
    w.each_source<Likes>(e[0], [&](Entity s) {
        ++visited;
        w.destroy(s); // each call sees the list as it was at the start
    });
    CHECK(visited == 5);
    CHECK(w.count() == 1);
    w.relate<Likes>(e[0], e[0]);
    visited = 0;
    w.each_target<Likes>(e[0], [&](Entity t) {
        ++visited;
        w.unrelate<Likes>(e[0], t);
    });
    CHECK(visited == 1);
    CHECK(w.check_invariants());
}
