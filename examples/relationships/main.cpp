// relationships: pairs (R, target) attached to entities, kept consistent in both directions.
//
// A relationship type is an empty struct. `world.relate<R>(source, target)` attaches the pair
// (R, target) to `source`; relation_traits<R> says whether a source has one target at most
// (exclusive) and what destroying a target does to its sources (unrelate them, or destroy them).
// Relating never creates an archetype per target: the world stays as compact as without pairs.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <ecs/ecs.hpp>

struct Name {
    const char* text = "";
};
struct Health {
    int hp = 0;
};

// A unit attacks one enemy at a time: relating a new target replaces the old one. When the target
// dies, the attackers simply lose it (the default, OnDeleteTarget::unrelate).
struct Targets {};
// An item is in one inventory; when its owner is destroyed, the items go with it.
struct InInventory {};
// The owner's side: its items in the order they were picked up (several targets). An item that is
// destroyed leaves the list by itself.
struct Contains {};

template <>
struct ecs::relation_traits<Targets> {
    static constexpr bool exclusive = true;
};
template <>
struct ecs::relation_traits<InInventory> {
    static constexpr bool exclusive = true;
    static constexpr ecs::OnDeleteTarget on_delete_target = ecs::OnDeleteTarget::destroy_sources;
};

namespace {

const char* name_of(const ecs::World& world, ecs::Entity e) {
    return world.alive(e) ? world.get<Name>(e).text : "(nobody)";
}

/// The names of the entities `collect` reports, sorted (each_source visits in no particular order).
template <typename Collect>
std::string sorted_names(const ecs::World& world, Collect&& collect) {
    std::vector<std::string> names;
    collect([&](ecs::Entity e) { names.emplace_back(name_of(world, e)); });
    std::sort(names.begin(), names.end());
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out.empty() ? "nobody" : out;
}

void print_targets(const ecs::World& world) {
    // Related<Targets>{} matches every entity with a target: a plain archetype filter.
    world.each<const Name>(ecs::Related<Targets>{}, [&](ecs::Entity unit, const Name& name) {
        std::printf("  %s targets %s\n", name.text, name_of(world, world.target<Targets>(unit)));
    });
}

void pick_up(ecs::World& world, ecs::Entity owner, ecs::Entity item) {
    world.relate<InInventory>(item, owner);
    world.relate<Contains>(owner, item);
}

void print_inventory(const ecs::World& world, ecs::Entity owner) {
    std::string items;
    world.each_target<Contains>(owner, [&](ecs::Entity item) { items += (items.empty() ? "" : ", ") + std::string(name_of(world, item)); });
    std::printf("  %s carries: %s\n", name_of(world, owner), items.empty() ? "nothing" : items.c_str());
}

} // namespace

int main() {
    ecs::World world;
    const ecs::Entity knight = world.create_with(Name{"knight"}, Health{100});
    const ecs::Entity archer = world.create_with(Name{"archer"}, Health{60});
    const ecs::Entity goblin = world.create_with(Name{"goblin"}, Health{25});
    const ecs::Entity orc = world.create_with(Name{"orc"}, Health{80});
    const size_t archetypes_before = world.archetype_count();

    // --- units targeting each other ---
    world.relate<Targets>(knight, goblin);
    world.relate<Targets>(archer, goblin);
    world.relate<Targets>(goblin, knight);
    world.relate<Targets>(orc, archer);
    std::printf("targets:\n");
    print_targets(world);
    std::printf("goblin is targeted by: %s\n",
                sorted_names(world, [&](auto&& fn) { world.each_source<Targets>(goblin, fn); }).c_str());

    // Exclusive: a new target replaces the old one.
    world.relate<Targets>(archer, orc);
    std::printf("archer switches to %s; goblin is targeted by %zu unit(s)\n", name_of(world, world.target<Targets>(archer)),
                world.query<const Name>(ecs::Related<Targets>{goblin}).count());

    // One round of combat: every unit with a target hits it. Changing Health is not structural, so
    // it is allowed inside the loop; the dead are destroyed afterwards, through the deferred queue.
    world.each<const Name>(ecs::Related<Targets>{}, [&](ecs::Entity unit, const Name&) {
        Health& target_health = world.get<Health>(world.target<Targets>(unit));
        target_health.hp -= 30;
        if (target_health.hp <= 0) world.deferred().destroy(world.target<Targets>(unit));
    });
    world.flush_deferred();
    std::printf("after one round: goblin alive? %s\n", world.alive(goblin) ? "yes" : "no");
    std::printf("targets:\n");
    print_targets(world); // the knight lost its target with the goblin

    // --- an inventory ---
    const ecs::Entity sword = world.create_with(Name{"sword"});
    const ecs::Entity potion = world.create_with(Name{"potion"});
    const ecs::Entity shield = world.create_with(Name{"shield"});
    const ecs::Entity axe = world.create_with(Name{"axe"});
    pick_up(world, knight, sword);
    pick_up(world, knight, potion);
    pick_up(world, knight, shield);
    pick_up(world, orc, axe);
    std::printf("inventories:\n");
    print_inventory(world, knight);
    print_inventory(world, orc);

    world.destroy(potion); // drunk: it leaves the knight's list by itself
    world.unrelate<InInventory>(axe, orc); // dropped
    world.unrelate<Contains>(orc, axe);
    std::printf("after drinking the potion and dropping the axe:\n");
    print_inventory(world, knight);
    print_inventory(world, orc);
    std::printf("items in an inventory: %zu\n", world.query<const Name>(ecs::Related<InInventory>{}).count());

    // The knight falls: the items in its inventory are destroyed with it (the dropped axe is not).
    world.destroy(knight);
    std::printf("the knight falls: sword alive? %s, shield alive? %s, axe alive? %s\n", world.alive(sword) ? "yes" : "no",
                world.alive(shield) ? "yes" : "no", world.alive(axe) ? "yes" : "no");
    std::printf("%zu entities left; archetypes: %zu before relating, %zu now\n", world.count(), archetypes_before,
                world.archetype_count());
    return world.check_invariants() ? 0 : 1;
}

// Output:
// targets:
//   knight targets goblin
//   archer targets goblin
//   goblin targets knight
//   orc targets archer
// goblin is targeted by: archer, knight
// archer switches to orc; goblin is targeted by 1 unit(s)
// after one round: goblin alive? no
// targets:
//   orc targets archer
//   archer targets orc
// inventories:
//   knight carries: sword, potion, shield
//   orc carries: axe
// after drinking the potion and dropping the axe:
//   knight carries: sword, shield
//   orc carries: nothing
// items in an inventory: 2
// the knight falls: sword alive? no, shield alive? no, axe alive? yes
// 3 entities left; archetypes: 2 before relating, 7 now
