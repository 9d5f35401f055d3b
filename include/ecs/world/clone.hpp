/**
 * @file ecs/world/clone.hpp
 * @brief World::clone: an exact copy of a world's entities, components and names.
 *
 * Included by world.hpp, where World is complete. The copy is built floor by floor:
 * the archetype graph gets the same archetypes in the same creation order (so ids, and therefore
 * query iteration order, match), each archetype copies its rows (Archetype::copy_rows_from), the
 * entity index gets the same records, generations and free list, and the name index is copied as
 * it is, and so are the relationship pairs (both directions, same order); sparse sets are copied
 * member by member. What is not copied: resources, hooks, query caches (Cascade orders included),
 * events and pending deferred commands.
 */
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "../detail/algorithms.hpp"
#include "../detail/message.hpp"
#include "../detail/world_access.hpp"
#include "world_class.hpp"

namespace ecs::detail {

/// The routine behind World::clone (see the file comment).
struct WorldCloner {
    /**
     * @brief True when every value `src` holds can be copied; else reports the first type that
     *        cannot through ECS_CHECK (`fn` names the caller, `outcome` what the refusal leaves).
     */
    static bool copyable(const World& src, const char* fn, const char* outcome) {
        for (const Archetype* a : WorldAccess::archetypes(src)) {
            if (a->size() == 0) continue; // no value to copy: the type set alone is fine
            for (const ComponentColumn& c : a->columns)
                if (c.copy == nullptr && !refuse(fn, c.type_id, outcome)) return false;
        }
        const SparseRoom* room = WorldAccess::sparse(src); // the same check for sparse sets
        if (room != nullptr)
            for (const ComponentTypeID id : room->ids())
                if (room->member(id).size() != 0 && room->member(id).ops().copy == nullptr && !refuse(fn, id, outcome))
                    return false;
        return true;
    }
    /// Reports the refusal of copyable() (assert, refusal handler); always false.
    static bool refuse(const char* fn, ComponentTypeID id, const char* outcome) {
        const std::string_view type = component_info(id).name;
        return ECS_CHECK(false, format_message("%s: component type %.*s is not copy-constructible (refused: %s)", fn,
                                               static_cast<int>(type.size()), type.data(), outcome));
    }

    static World clone(const World& src) {
        if (!copyable(src, "World::clone", "an empty world is returned")) return World{};
        const auto& archetypes = WorldAccess::archetypes(src);
        const SparseRoom* room = WorldAccess::sparse(src);
        World out;
        for (size_t i = 1; i < archetypes.size(); ++i) // archetype 0, the empty one, exists already
            (void)WorldAccess::find_or_create_archetype(out, archetypes[i]->types);
        const auto& copies = WorldAccess::archetypes(out);
        for (size_t i = 0; i < archetypes.size(); ++i) copies[i]->copy_rows_from(*archetypes[i]);
        if (WorldAccess::graph(src).may_have_disabled()) WorldAccess::note_disabled(out); // bits copied

        const PodArray<EntityRecord>& records = WorldAccess::records(src);
        PodArray<EntityRecord>& out_records = WorldAccess::records(out);
        out_records.assign(records.data(), records.size()); // generations and free links included
        for (EntityRecord& r : out_records) // archetype i of the copy is the copy of archetype i
            if (r.archetype != nullptr) r.archetype = copies[r.archetype->id];
        // Slots reserved for deferred creations are freed in the copy (generation bumped, reused
        // last): the queue that would create them is not copied.
        std::vector<uint32_t> free_list = WorldAccess::reserved_slots(src);
        for (uint32_t slot : free_list) {
            EntityRecord& r = out_records[slot];
            r.row = 0;
            r.generation = EntityIndex::next_generation(r.generation);
        }
        const std::vector<uint32_t> freed = WorldAccess::free_list(src);
        append_range(free_list, freed.begin(), freed.end());
        WorldAccess::set_free_list(out, free_list);
        WorldAccess::set_alive_count(out, src.count());
        WorldAccess::names(out).copy_from(WorldAccess::names(src));
        WorldAccess::relations(out).copy_from(WorldAccess::relations(src)); // the pairs, both directions
        if (room != nullptr) copy_sparse(*room, out);
        // The copy tracks the types the original tracks; its values count as added at the
        // copy's first tick (ticks are a world's own clock, not copied).
        const ArchetypeGraph& graph = WorldAccess::graph(src);
        if (graph.any_tracked())
            for (ComponentTypeID id = 0; id < ECS_MAX_COMPONENTS; ++id)
                if (graph.tracks(id)) WorldAccess::track(out, id);
        return out;
    }

    /// Every set: the same members, values copy-constructed, enable flags kept.
    static void copy_sparse(const SparseRoom& room, World& out) {
        for (const ComponentTypeID id : room.ids()) {
            const SparseSet& from = room.member(id); // ids() lists only ids that have a set
            if (from.size() == 0) continue;
            SparseSet& to = WorldAccess::sparse_set(out, id);
            const bool bytes = from.ops().elem_size != 0;
            from.each([&](uint32_t index, const void* value) {
                const Entity e{index, WorldAccess::generation(out, index)}; // the records are copied already
                void* dst = to.insert(e);
                if (bytes) {
                    struct Undo { // a throwing copy constructor leaves no half-made member
                        SparseSet& set;
                        uint32_t index;
                        bool done = false;
                        ~Undo() {
                            if (!done) set.erase(index, false);
                        }
                    } undo{to, e.index};
                    from.ops().copy(dst, value);
                    undo.done = true;
                }
                if (from.disabled(e.index)) to.set_disabled(e.index, true);
            });
        }
    }
};

} // namespace ecs::detail

namespace ecs {
inline World World::clone() const { return detail::WorldCloner::clone(*this); }
} // namespace ecs
