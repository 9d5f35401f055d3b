/**
 * @file ecs/detail/world_access.hpp
 * @brief detail::WorldAccess, the internal door into a World for the library's own rooms and
 *        operations (serialization, prefabs, structural ops, relations, runtime components, clone),
 *        Not part of the public API.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../world/world_class.hpp"

namespace ecs {

namespace detail {

/**
 * @brief Internal door into a World for library code that builds or reads entities wholesale
 *        (serialization.hpp, prefab.hpp). Not part of the public API.
 *
 * Whoever uses the mutating functions must leave every invariant of SPEC §6 holding when it returns
 * control to user code (World::check_invariants() verifies them).
 */
struct WorldAccess {
    static const OwnedArray<Archetype>& archetypes(const World& w) noexcept { return w.graph_.all(); }
    static PodArray<EntityRecord>& records(World& w) noexcept { return w.entities_.records(); }
    static const PodArray<EntityRecord>& records(const World& w) noexcept { return w.entities_.records(); }
    /// The current generation of slot `slot` (live: the one stored with its row).
    static uint32_t generation(const World& w, uint32_t slot) noexcept {
        return w.entities_.generation(slot);
    }
    /// The free slots, the next one to be reused last.
    static std::vector<uint32_t> free_list(const World& w) { return w.entities_.free_list(); }
    /// Replaces the free list (`slots.back()` is reused first). @pre in range, dead, listed once.
    static void set_free_list(World& w, const std::vector<uint32_t>& slots) noexcept { w.entities_.set_free_list(slots); }
    static void set_alive_count(World& w, size_t live) noexcept { w.entities_.set_alive_count(live); }
    static bool iterating(const World& w) noexcept { return w.iterating(); }
    /// The query room and the archetype graph (each_par.hpp, schedule.hpp open shared sections).
    static QueryEngine& queries(World& w) noexcept { return w.queries_; }
    static const QueryEngine& queries(const World& w) noexcept { return w.queries_; }
    static const ArchetypeGraph& graph(const World& w) noexcept { return w.graph_; }
    /// Starts tracking `id` in `w` (World::track_changes by id).
    static void track(World& w, ComponentTypeID id) {
        w.graph_.track(id);
        w.entities_.stamp_with(w.graph_.clock());
    }
    /// The entity names: `names(w).each(fn(Entity, std::string_view))` enumerates them (slot order);
    /// `names(w).set(e, name)` sets one without asserting (false: taken by another entity).
    static NameIndex& names(World& w) noexcept { return w.names_; }
    static const NameIndex& names(const World& w) noexcept { return w.names_; }
    /// The world's sparse sets (nullptr until the first sparse component).
    static detail::SparseRoom* sparse(const World& w) noexcept { return w.graph_.sparse(); }
    /// The set of sparse type `id`, created when missing.
    static detail::SparseSet& sparse_set(World& w, ComponentTypeID id) { return w.sparse_set_of(id); }
    /// Some enable bit may be set from now on (clone and snapshot loading set bits directly).
    static void note_disabled(World& w) noexcept { w.graph_.note_disabled(); }
    /// Bytes of the deferred queue's pages.
    static size_t deferred_bytes(const World& w) noexcept { return w.deferred_ != nullptr ? w.deferred_->capacity_bytes() : 0; }
    /// The archetype of exactly `sorted_types`, created when missing (nullptr when refused).
    static Archetype* find_or_create_archetype(World& w, const TypeSet& sorted_types) {
        return w.graph_.find_or_create(sorted_types);
    }
    /// Allocates a slot and appends a row for it in `arch`. The row's non-tag columns are
    /// UNINITIALISED: construct every one of them before any other world call.
    static Entity spawn(World& w, Archetype& arch, uint32_t& row) { return w.spawn(arch, row); }
    /// The entity index (change streams read the structure stamps and rebuild slots).
    static EntityIndex& entities(World& w) noexcept { return w.entities_; }
    static const EntityIndex& entities(const World& w) noexcept { return w.entities_; }
    /// Makes dead slot `e.index` live with generation `e.generation`, in the empty archetype (change
    /// streams). @pre the slot is dead, not reserved; the caller sets the free list afterwards.
    static void revive(World& w, Entity e) {
        EntityRecord& r = w.entities_[e.index];
        ECS_ASSERT(e.generation <= EntityIndex::MAX_GENERATION, "WorldAccess::revive: generation out of range");
        r.generation = static_cast<decltype(EntityRecord::generation)>(e.generation);
        Archetype& empty = *w.graph_.empty_archetype();
        const uint32_t row = empty.push_entity(e);
        w.entities_.place(e.index, &empty, row);
    }
    /// Disables (`off`) or enables component `id` of `e`, or `e` itself for INVALID_COMPONENT_ID,
    /// through the commit point. @pre `e` alive and holding `id`.
    static void set_disabled(World& w, Entity e, ComponentTypeID id, bool off) {
        if (off) w.graph_.note_disabled(); // queries stop skipping the enable tests (sticky)
        w.toggle_observed(e, id, off);
    }
    /// add_raw of a value moved in (`value` is consumed; change streams). @pre `id` is not sparse.
    static void* add_moved(World& w, Entity e, ComponentTypeID id, void* value) { return w.add_raw_from(e, id, nullptr, value); }
    /// World::relate and unrelate_all by relationship type info (change streams).
    static void relate(World& w, const RelationTypeInfo& info, Entity source, Entity target) {
        RelationIndex& index = w.relations_.ensure(info);
        if (index.find(source.index, target) != RelationIndex::NPOS) return;
        if (info.exclusive && index.target_count(source.index) != 0) w.relations_.unlink(index, source.index, 0);
        w.relations_.link(index, source, target);
        w.entities_.stamp(source.index);
        if (!w.arch_of(source).has(info.marker)) (void)w.add_raw(source, info.marker, nullptr);
    }
    static void unrelate_all(World& w, const RelationTypeInfo& info, Entity source) {
        RelationIndex* index = w.relations_.find(info.id);
        if (index == nullptr || index->target_count(source.index) == 0) return;
        while (index->target_count(source.index) != 0) w.relations_.unlink(*index, source.index, index->target_count(source.index) - 1);
        w.entities_.stamp(source.index);
        w.remove_id(source, info.marker);
    }
    /// Gives row `row` of `arch` (filled, its handle not yet this world's) a new slot of `w` and
    /// returns the handle, written into the row (merge loading).
    static Entity adopt_row(World& w, Archetype& arch, uint32_t row) {
        const Entity e = w.entities_.allocate_placed(&arch, row);
        arch.entities[row] = e;
        return e;
    }
    /// Makes the reserved slot `slot` live in a new row of `arch` (prefab.hpp; same contract as spawn).
    static Entity spawn_reserved(World& w, Entity slot, Archetype& arch, uint32_t& row) {
        return w.spawn_reserved(slot, arch, row);
    }
    /// True when `slot` is reserved (deferred creation pending) in `w`.
    static bool reserved(const World& w, Entity slot) noexcept { return w.entities_.reserved(slot); }
    /// Slots reserved for deferred creations (snapshots and clones treat them as freed: the queue
    /// that would create them is not part of either).
    static std::vector<uint32_t> reserved_slots(const World& w) { return w.entities_.reserved_slots(); }
    static size_t reserved_count(const World& w) noexcept { return w.entities_.reserved_count(); }
    /// Creates the entity of a deferred create / create_with at its reserved handle; INVALID_ENTITY
    /// (nothing created) when `slot` is no longer reserved or the creation is refused.
    template <typename... Ts>
    static Entity create_reserved(World& w, Entity slot, Ts&&... values) {
        if (!w.entities_.reserved(slot)) return INVALID_ENTITY;
        const Entity e = w.create_in<true>(slot, std::forward<Ts>(values)...);
        return e;
    }
    /// Frees a reserved slot (generation bumped); no-op when it is not reserved.
    static void cancel_reservation(World& w, Entity slot) noexcept { w.entities_.cancel_reservation(slot); }
    /// Runs the on_add hooks of component `id` for `e` (no-op when none are registered).
    static void fire_on_add(World& w, Entity e, ComponentTypeID id) {
        if (w.observers_.any_add()) w.observers_.fire_on_add(w, w.lookup(), e, id);
    }
    /// Creates an entity through the world's commit point: `move()` spawns it (setting `e`) and
    /// constructs its values, `hooks()` runs its on_add hooks, then the on_enter observers run.
    template <typename Move, typename Hooks>
    static void commit_created(World& w, Entity& e, Move&& move, Hooks&& hooks) {
        Notice notice{nullptr, nullptr, false, true};
        w.commit(e, notice, [] { return true; }, move, hooks);
    }
    /// Destroys every entity without running hooks; slots return to the state of a new world.
    /// Archetypes are kept (they are never freed).
    static void reset_entities(World& w) noexcept {
        for (Archetype* a : w.graph_.all()) a->clear();
        if (w.graph_.sparse() != nullptr) w.graph_.sparse()->clear();
        w.entities_.reset();
        w.names_.clear();
        w.relations_.reset();
        if (w.entity_events_ != nullptr) w.entity_events_->clear();
    }
    /// The relationships of `w` (relation.hpp).
    static Relations& relations(World& w) noexcept { return w.relations_; }
    static const Relations& relations(const World& w) noexcept { return w.relations_; }
};

/// Declared in detail/query_loops.hpp: the sparse-driven runs read the members' records.
inline const PodArray<EntityRecord>& world_records(const World& world) noexcept { return WorldAccess::records(world); }

} // namespace detail

} // namespace ecs
