// ecs::describe (inspect.hpp): the report names every archetype's components with its row count,
// the fragmentation histogram, cached queries, memory per room and names.
#include <ecs/inspect.hpp>

#include <string>

#include "catch.hpp"

using ecs::Entity;
using ecs::World;

namespace {
struct InspectPosition {
    float x = 0, y = 0;
};
struct InspectVelocity {
    float x = 0, y = 0;
};
struct InspectFrozen {};

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }
} // namespace

TEST_CASE("describe: a world with no entities", "[inspect]") {
    World w;
    const std::string text = ecs::describe(w);
    INFO(text);
    CHECK(contains(text, "entities: 0 alive, 0 slots, 0 free"));
    CHECK(contains(text, "archetypes: 1\n"));
    CHECK(contains(text, "  #0 [] rows 0"));
    CHECK(contains(text, "fragmentation: 1 archetypes, 1 empty; rows per archetype: [0] 1"));
    CHECK(contains(text, "cached queries: 0"));
    CHECK(contains(text, "memory: " + std::to_string(w.memory_bytes()) + " bytes"));
    CHECK(contains(text, "names: 0"));
    CHECK(contains(text, "tracked types: none"));
    CHECK(contains(text, "relationships: none"));
}

TEST_CASE("describe: archetypes with their component names and rows", "[inspect]") {
    World w;
    for (int i = 0; i < 10; ++i) (void)w.create_with(InspectPosition{}, InspectVelocity{});
    for (int i = 0; i < 3; ++i) (void)w.create_with(InspectPosition{}, InspectFrozen{});
    const Entity e = w.create_with(InspectVelocity{});
    w.destroy(e); // leaves an empty archetype (its slot is reused below)
    const Entity named = w.create();
    w.set_name(named, "root");
    (void)w.count<InspectPosition>(); // one cached query
    const std::string text = ecs::describe(w);
    INFO(text);
    CHECK(contains(text, "entities: 14 alive, 14 slots, 0 free"));
    const std::string p = std::string(ecs::type_name<InspectPosition>());
    const std::string v = std::string(ecs::type_name<InspectVelocity>());
    const std::string f = std::string(ecs::type_name<InspectFrozen>());
    // Component names in id order inside each archetype.
    const bool p_first = ecs::component_id<InspectPosition>() < ecs::component_id<InspectVelocity>();
    CHECK(contains(text, "[" + (p_first ? p + ", " + v : v + ", " + p) + "] rows 10, capacity "));
    CHECK((contains(text, "[" + p + ", " + f + "] rows 3,") || contains(text, "[" + f + ", " + p + "] rows 3,")));
    CHECK(contains(text, "[" + v + "] rows 0,"));
    CHECK(contains(text, "  #0 [] rows 1,"));
    CHECK(contains(text, "fragmentation: 4 archetypes, 1 empty; rows per archetype: [0] 1 [1] 1 [2-3] 1 [8-15] 1"));
    CHECK(contains(text, "cached queries: 1"));
    CHECK(contains(text, "names: 1"));
    CHECK(contains(text, "memory: " + std::to_string(w.memory_bytes()) + " bytes (records "));
}

TEST_CASE("describe: the memory parts add up to memory_bytes", "[inspect]") {
    World w;
    w.track_changes<InspectPosition>(); // tick columns count too
    for (int i = 0; i < 1000; ++i) {
        const Entity e = w.create_with(InspectPosition{float(i), 0});
        if (i % 10 == 0) w.set_name(e, "e" + std::to_string(i));
    }
    w.deferred().destroy(ecs::INVALID_ENTITY);
    const std::string text = ecs::describe(w);
    INFO(text);
    const size_t at = text.find("memory: ");
    REQUIRE(at != std::string::npos);
    const std::string line = text.substr(at, text.find('\n', at) - at);
    size_t total = 0;
    size_t sum = 0;
    size_t pos = line.find("memory: ") + 8;
    total = std::stoul(line.substr(pos));
    for (const char* part : {"records ", "archetype blocks ", "entity lists ", "archetype objects ", "change ticks ",
                             "deferred pages ", "names "}) {
        const size_t p = line.find(part);
        REQUIRE(p != std::string::npos);
        sum += std::stoul(line.substr(p + std::string(part).size()));
    }
    CHECK(total == w.memory_bytes());
    CHECK(sum == total);
}

TEST_CASE("describe: lists the tracked types by name", "[inspect]") {
    World w;
    (void)w.create_with(InspectPosition{1, 2});
    CHECK(ecs::describe(w).find("tracked types: none") != std::string::npos);
    w.track_changes<InspectPosition>();
    const std::string text = ecs::describe(w);
    INFO(text);
    CHECK(text.find("tracked types: InspectPosition") != std::string::npos);
}
