// serialization: saving a whole world to a binary snapshot and loading it into another one.
//
// Component ids are handed out in first-use order, so they may differ between two builds of a
// program. Snapshots therefore name component types with strings you register once at start-up.
// Trivially copyable types are written as raw bytes; other types (here Children, which holds a
// std::vector, and Inventory) need a pair of functions.
#include <cstdint>
#include <cstdio>
#include <istream>
#include <new>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>

#include <ecs/ecs.hpp>

struct Position {
    float x = 0.0f;
    float y = 0.0f;
};
struct Health {
    int32_t hp = 0;
};
struct Player {}; // tag

// Not trivially copyable: a string of item names, written as a length and the characters.
struct Inventory {
    std::string items;
};
void write_inventory(std::ostream& out, const void* component) {
    const std::string& s = static_cast<const Inventory*>(component)->items;
    const uint32_t n = static_cast<uint32_t>(s.size());
    out.write(reinterpret_cast<const char*>(&n), sizeof n);
    out.write(s.data(), static_cast<std::streamsize>(n));
}
void read_inventory(std::istream& in, void* storage) {
    uint32_t n = 0;
    if (!in.read(reinterpret_cast<char*>(&n), sizeof n) || n > (1u << 20)) {
        in.setstate(std::ios::failbit); // malformed: report it, construct nothing
        return;
    }
    std::string s(n, '\0');
    if (!in.read(&s[0], static_cast<std::streamsize>(n))) return;
    ::new (storage) Inventory{std::move(s)};
}

void register_types() {
    ecs::register_component<Position>("Position");
    ecs::register_component<Health>("Health");
    ecs::register_component<Player>("Player");
    ecs::register_component<Inventory>("Inventory", &write_inventory, &read_inventory);
    // Builtins: Parent is trivially copyable; Children ships its own functions.
    ecs::register_component<ecs::Parent>("ecs::Parent");
    ecs::register_component<ecs::Children>("ecs::Children", &ecs::write_children, &ecs::read_children);
}

void describe(ecs::World& world, const char* title) {
    std::printf("%s: %zu entities\n", title, world.count());
    world.each<const Position, const Health>([&](ecs::Entity e, const Position& p, const Health& h) {
        std::printf("  entity %u.%u at (%.1f, %.1f) hp %d", e.index, e.generation, static_cast<double>(p.x),
                    static_cast<double>(p.y), h.hp);
        if (world.has<Player>(e)) std::printf(" [player]");
        if (const Inventory* inv = world.try_get<Inventory>(e)) std::printf(" carrying \"%s\"", inv->items.c_str());
        if (const ecs::Parent* parent = world.try_get<ecs::Parent>(e)) std::printf(" rides %u", parent->entity.index);
        std::printf("\n");
    });
}

int main() {
    register_types();

    ecs::World world;
    const ecs::Entity hero = world.create_with(Position{1, 2}, Health{100}, Player{}, Inventory{"sword,rope"});
    const ecs::Entity horse = world.create_with(Position{1, 2}, Health{250});
    const ecs::Entity ghost = world.create_with(Position{9, 9}, Health{0});
    world.destroy(ghost); // a freed slot: snapshots keep it, with its bumped generation
    ecs::set_parent(world, hero, horse);
    describe(world, "before");

    std::stringstream snapshot;
    ecs::serialize(world, snapshot);
    std::printf("snapshot taken: %s\n", snapshot.str().empty() ? "no" : "yes");

    ecs::World loaded;
    const ecs::DeserializeResult result = ecs::deserialize(loaded, snapshot);
    if (!result) {
        std::printf("load failed: %s\n", result.message.c_str());
        return 1;
    }
    describe(loaded, "after");

    // Entity handles survive the trip, so the old handles work in the new world, and the freed slot
    // is reused exactly as it would have been in the original.
    std::printf("hero's horse: %u, horse's riders: %zu\n", loaded.get<ecs::Parent>(hero).entity.index,
                loaded.get<ecs::Children>(horse).entities.size());
    const ecs::Entity next_a = world.create();
    const ecs::Entity next_b = loaded.create();
    std::printf("next entity in both worlds: %u.%u and %u.%u\n", next_a.index, next_a.generation, next_b.index,
                next_b.generation);

    // Bad data is not a crash: a damaged snapshot gives an error and leaves the target empty.
    std::string damaged = snapshot.str();
    damaged.resize(damaged.size() / 2);
    std::istringstream truncated(damaged);
    ecs::World other;
    const ecs::DeserializeResult bad = ecs::deserialize(other, truncated);
    std::printf("half a snapshot: %s (%s), world still has %zu entities\n", bad ? "loaded" : "rejected",
                ecs::to_string(bad.error), other.count());
    return 0;
}

// Output:
// before: 2 entities
//   entity 1.1 at (1.0, 2.0) hp 100 [player] carrying "sword,rope" rides 2
//   entity 2.1 at (1.0, 2.0) hp 250
// snapshot taken: yes
// after: 2 entities
//   entity 1.1 at (1.0, 2.0) hp 100 [player] carrying "sword,rope" rides 2
//   entity 2.1 at (1.0, 2.0) hp 250
// hero's horse: 2, horse's riders: 1
// next entity in both worlds: 3.2 and 3.2
// half a snapshot: rejected (truncated), world still has 0 entities
