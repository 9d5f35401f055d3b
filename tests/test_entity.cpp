// Entity handles (SPEC §2.1): equality, hashing, INVALID_ENTITY, generations and the free list.
#include <ecs/entity.hpp>
#include <ecs/serialization.hpp>
#include <ecs/world.hpp>

#include <set>
#include <sstream>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

#include "catch.hpp"

using ecs::Entity;
using ecs::World;

TEST_CASE("entity: handles compare by index and generation", "[entity]") {
    const Entity a{3, 1};
    const Entity b{3, 1};
    const Entity c{3, 2};
    const Entity d{4, 1};
    CHECK(a == b);
    CHECK_FALSE(a != b);
    CHECK(a != c);
    CHECK(a != d);
    CHECK(a < c);
    CHECK(c < d);
    STATIC_REQUIRE(std::is_trivially_copyable_v<Entity>);
    STATIC_REQUIRE(sizeof(Entity) == 8);
}

TEST_CASE("entity: INVALID_ENTITY is {0,0} and never alive", "[entity]") {
    STATIC_REQUIRE(ecs::INVALID_ENTITY.index == 0);
    STATIC_REQUIRE(ecs::INVALID_ENTITY.generation == 0);
    World w;
    CHECK_FALSE(w.alive(ecs::INVALID_ENTITY));
    CHECK_FALSE(w.alive(Entity{0, 1})); // slot 0 is reserved, whatever the generation
    for (int i = 0; i < 100; ++i) {
        const Entity e = w.create();
        CHECK(e.index != 0);
        CHECK(e != ecs::INVALID_ENTITY);
    }
    CHECK_FALSE(w.alive(ecs::INVALID_ENTITY));
    CHECK(w.check_invariants());
}

TEST_CASE("entity: EntityHash and std::hash spread handles and agree", "[entity]") {
    std::unordered_set<size_t> hashes;
    for (uint32_t i = 0; i < 1000; ++i)
        for (uint32_t g = 0; g < 4; ++g) hashes.insert(ecs::EntityHash{}(Entity{i, g}));
    CHECK(hashes.size() == 4000);
    CHECK(ecs::EntityHash{}(Entity{7, 9}) == std::hash<Entity>{}(Entity{7, 9}));
    std::unordered_map<Entity, int, ecs::EntityHash> by_entity;
    by_entity[Entity{1, 1}] = 5;
    by_entity[Entity{1, 2}] = 6;
    CHECK(by_entity.size() == 2);
    CHECK(by_entity.at(Entity{1, 1}) == 5);
}

TEST_CASE("entity: destroy bumps the generation and recycles the index", "[entity]") {
    World w;
    const Entity a = w.create();
    const Entity b = w.create();
    CHECK(a.index != b.index);
    w.destroy(a);
    CHECK_FALSE(w.alive(a));
    CHECK(w.alive(b));
    const Entity c = w.create();
    CHECK(c.index == a.index);            // free list reuses the slot
    CHECK(c.generation == a.generation + 1);
    CHECK(w.alive(c));
    CHECK_FALSE(w.alive(a));              // the stale handle does not alias the new entity
    CHECK(w.check_invariants());
}

namespace {
struct Mark {
    int v = 0;
};
} // namespace

// create() writes a fresh slot's record once and counts it live without a counter of its own (the
// live count is the slots minus those not live): every way a slot turns live or not live must agree.
TEST_CASE("entity: count() follows every way a slot becomes live or stops being live", "[entity]") {
    World w;
    CHECK(w.count() == 0);
    std::vector<Entity> live;
    for (int i = 0; i < 40; ++i) live.push_back(i % 3 == 0 ? w.create_with(Mark{i}) : w.create()); // fresh slots
    CHECK(w.count() == 40);
    for (int i = 0; i < 40; i += 4) w.destroy(live[size_t(i)]);
    CHECK(w.count() == 30);
    for (int i = 0; i < 10; ++i) {
        const Entity e = i % 2 == 0 ? w.create() : w.create_with(Mark{-i}); // recycled slots
        CHECK(e.index <= 40);
        CHECK(e.generation == 2);
        CHECK(w.alive(e));
    }
    CHECK(w.count() == 40);
    const Entity fresh = w.create(); // the free list is empty again
    CHECK(fresh.index == 41);
    CHECK(fresh.generation == 1);
    CHECK(w.count() == 41);
    CHECK(w.check_invariants());

    // Reserved slots (deferred creation) are not live until the flush; a cancelled one never is.
    {
        auto d = w.deferred();
        const Entity a = d.create();
        const Entity b = d.create();
        d.destroy(b);
        (void)a;
        CHECK(w.count() == 41);
    }
    w.flush_deferred();
    CHECK(w.count() == 42);
    CHECK(w.check_invariants());

    // Bulk destroy, then a clone and a snapshot round trip keep the count and the free list.
    CHECK(w.destroy_all<Mark>() == 15); // 14 - 4 of the first 40, 5 of the recycled ten
    const size_t left = w.count();
    CHECK(left == 27);
    World copy = w.clone();
    CHECK(copy.count() == left);
    CHECK(copy.check_invariants());
    for (const Entity e : live) CHECK(copy.alive(e) == w.alive(e));
    std::stringstream snapshot;
    ecs::serialize(w, snapshot);
    World loaded;
    REQUIRE(ecs::deserialize(loaded, snapshot));
    CHECK(loaded.count() == left);
    CHECK(loaded.check_invariants());
    const Entity after_load = loaded.create(); // a recycled slot of the snapshot's free list
    CHECK(loaded.count() == left + 1);
    CHECK(after_load.generation > 1);
    CHECK(after_load == copy.create()); // the clone's free list is the same

    // A merge moves every loaded entity into the target (the loaded world keeps none).
    std::stringstream again;
    ecs::serialize(w, again);
    ecs::EntityMap map;
    World target;
    (void)target.create();
    REQUIRE(ecs::deserialize(target, again, ecs::LoadMode::merge, map));
    CHECK(target.count() == left + 1);
    CHECK(map.size() == left);
    CHECK(target.check_invariants());

    // copy_from, and a world moved from.
    World other;
    other.copy_from(w);
    CHECK(other.count() == left);
    World moved_to = std::move(w);
    CHECK(moved_to.count() == left);
    CHECK(w.count() == 0); // NOLINT(bugprone-use-after-move): a moved-from world reads as empty
    CHECK(moved_to.check_invariants());
}

TEST_CASE("entity: free list is last-in first-out", "[entity]") {
    World w;
    Entity e[4];
    for (auto& x : e) x = w.create();
    w.destroy(e[1]);
    w.destroy(e[3]);
    CHECK(w.create().index == e[3].index);
    CHECK(w.create().index == e[1].index);
    CHECK(w.create().index > e[3].index); // free list empty again: a new slot
}

TEST_CASE("entity: generations never decrease over many reuses of one slot", "[entity]") {
    World w;
    Entity e = w.create();
    const uint32_t index = e.index;
    std::set<uint32_t> seen{e.generation};
    for (int i = 0; i < 1000; ++i) {
        w.destroy(e);
        const Entity next = w.create();
        REQUIRE(next.index == index);
        REQUIRE(next.generation > e.generation);
        seen.insert(next.generation);
        e = next;
    }
    CHECK(seen.size() == 1001);
}

TEST_CASE("entity: stale and out-of-range handles are safe everywhere they are not a precondition", "[entity]") {
    World w;
    const Entity a = w.create_with<int>(1);
    w.destroy(a);
    const Entity b = w.create_with<int>(2); // reuses a's slot
    REQUIRE(b.index == a.index);
    const Entity far{123456, 1};
    for (Entity bad : {a, far, ecs::INVALID_ENTITY}) {
        CHECK_FALSE(w.alive(bad));
        CHECK_FALSE(w.has<int>(bad));
        CHECK(w.try_get<int>(bad) == nullptr);
        w.add(bad, 5.0);
        w.add(bad, 9);
        w.remove<int>(bad);
        w.destroy(bad);
    }
    // None of that touched the entity now living in a's slot.
    CHECK(w.alive(b));
    CHECK(w.get<int>(b) == 2);
    CHECK_FALSE(w.has<double>(b));
    CHECK(w.count() == 1);
    CHECK(w.check_invariants());
}

TEST_CASE("entity: a slot's generation wraps to 1 after MAX_GENERATION, never to 0", "[entity]") {
    // The compact-records build (ECS_COMPACT_RECORDS) keeps 16-bit generations in 8-byte records;
    // the default build keeps 32 bits in 16 bytes.
    STATIC_REQUIRE(sizeof(ecs::EntityRecord) == (ECS_COMPACT_RECORDS ? 8 : 16));
    CHECK(ecs::EntityIndex::MAX_GENERATION == (ECS_COMPACT_RECORDS ? 0xFFFFu : 0xFFFFFFFFu));
    CHECK(ecs::EntityIndex::next_generation(ecs::EntityIndex::MAX_GENERATION) == 1u);
    CHECK(ecs::EntityIndex::next_generation(1) == 2u);
#if ECS_COMPACT_RECORDS
    // Walk one slot through every generation: the handle from before the wrap is stale until the
    // slot comes round to its generation again, and 0 is never issued.
    World w;
    const Entity first = w.create_with<int>(7);
    Entity e = first;
    for (uint32_t i = 0; i < ecs::EntityIndex::MAX_GENERATION - 1; ++i) {
        w.destroy(e);
        e = w.create();
        REQUIRE(e.generation != 0);
    }
    CHECK(e.index == first.index);
    CHECK(e.generation == ecs::EntityIndex::MAX_GENERATION);
    CHECK_FALSE(w.alive(first));
    w.destroy(e);
    const Entity wrapped = w.create_with<int>(9);
    CHECK(wrapped.generation == 1u);
    CHECK(w.alive(first)); // the documented limit: 65535 reuses of one slot alias a handle
    CHECK(w.get<int>(wrapped) == 9);
    CHECK(w.check_invariants());
#endif
}
