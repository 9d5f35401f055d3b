/**
 * @file ecs/world/copy.hpp
 * @brief World::copy_from (a world made equal to another in place, reusing its memory) and
 *        World::change_tick.
 *
 * copy_from goes down the floors as clone does (world/clone.hpp), but into a world that already
 * holds memory: each archetype of `src` is paired with this world's archetype of the same type set,
 * whose rows are destroyed and whose block takes the copies (Archetype::copy_rows_from); the tick
 * columns, the entity index, names, pairs, sparse sets, the clock and the copyable resources follow.
 *
 * Archetype ids: when this world's archetype list and `src`'s agree on the type sets of their common
 * prefix (always so for a world copied from `src`'s lineage: a new world, a Rollback slot), the
 * archetypes keep `src`'s ids, and queries visit rows in `src`'s order; this world's archetypes past
 * `src`'s end are emptied. Otherwise (the same type set under another id) every archetype is emptied
 * and each of `src`'s is paired with this world's archetype of its type set, found or created: the
 * values and handles are equal, only the order in which queries visit archetypes may differ.
 * Archetypes are never freed, so query caches and handles of this world stay valid.
 *
 * Not copied, kept as they are: hooks and query observers (none runs during the copy), query caches
 * (their Changed/Added progress included), events (World::update_events and Rollback drop them),
 * resources that cannot be copied. Dropped: this world's pending deferred commands.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include "../detail/pod_array.hpp"
#include "../detail/world_access.hpp"
#include "clone.hpp"
#include "world_class.hpp"

namespace ecs {

/**
 * Makes this world equal to `src`: the same handles, generations and free list (the next create
 * gives the same handle in both), archetypes and rows in the same order, components
 * copy-constructed, enable bits, names, relationship pairs, the change-detection clock and every
 * tracked column's ticks (a type tracked here but not in `src` stays tracked; its ticks count as
 * added at the copied clock), sparse sets (their ticks stamped at the copied clock), and the copyable
 * resources (see detail::Resources::copy_from). No allocation when this world already holds the same
 * archetypes with room for `src`'s rows and slots, and `src` has no names, pairs or reserved slots.
 *
 * Writes to `src` too: its change clock (the open tick is closed) and its record of the last copy,
 * so no other thread may use `src` meanwhile.
 * @pre Not during iteration (refused). Every value `src` holds is copy-constructible: otherwise
 *      asserted and refused, with this world unchanged. A throwing copy constructor leaves this world
 *      with no entity, and the exception propagates.
 * Invalidates every pointer and reference into this world's components.
 * Complexity: O(slots + archetypes + rows of both worlds).
 */
inline void World::copy_from(const World& src) {
    if (&src == this) return;
    if (!ECS_CHECK(!iterating(), "World::copy_from: called during iteration (refused)")) return;
    if (!detail::WorldCloner::copyable(src, "World::copy_from", "the world is left unchanged")) return;
    if (deferred_ != nullptr) deferred_->clear(); // their reserved slots are overwritten with src's records below

    // The clock and the tracked types first, so rows created below get their tick columns. src's
    // current tick is closed first: this copy holds src as of change_tick(), src's later writes
    // come after it (the since of a change stream, serialize_changes).
    if (src.graph_.any_tracked()) {
        ++src.graph_.clock()->now;
        for (ComponentTypeID id = 0; id < ECS_MAX_COMPONENTS; ++id)
            if (src.graph_.tracks(id)) graph_.track(id);
        entities_.stamp_with(graph_.clock());
        graph_.clock()->now = src.graph_.clock()->now;
    }

    const detail::OwnedArray<Archetype>& from = src.graph_.all();
    const size_t common = from.size() < graph_.all().size() ? from.size() : graph_.all().size();
    bool same_ids = true;
    for (size_t i = 0; i < common && same_ids; ++i)
        same_ids = graph_.all()[i]->type_hash == from[i]->type_hash && graph_.all()[i]->types == from[i]->types;
    if (same_ids && copy_values_only(src)) return;
    detail::PodArray<Archetype*> twins; // src id -> archetype here; only filled when the ids differ
    struct Reset { // a throwing copy constructor: no entity is left half-copied
        World& world;
        bool done = false;
        ~Reset() {
            if (!done) detail::WorldAccess::reset_entities(world);
        }
    } reset{*this};
    if (same_ids) {
        for (size_t i = common; i < from.size(); ++i) (void)graph_.find_or_create(from[i]->types);
        for (size_t i = from.size(); i < graph_.all().size(); ++i) graph_.all()[i]->clear();
    } else {
        for (Archetype* a : graph_.all()) a->clear();
        twins.reserve(from.size());
        for (const Archetype* a : from) twins.push_back(graph_.find_or_create(a->types));
    }
    const detail::OwnedArray<Archetype>& here = graph_.all();
    for (size_t i = 0; i < from.size(); ++i) {
        Archetype& to = same_ids ? *here[i] : *twins[i];
        const Archetype& of = *from[i];
        if (same_ids) to.clear();
        to.copy_rows_from(of);
        if (to.ticks.active())
            for (size_t c = 0; c < to.columns.size(); ++c)
                if (detail::TickColumn* t = to.ticks.column(c))
                    if (const detail::TickColumn* f = of.ticks.column(c)) t->copy_from(*f);
    }
    if (src.graph_.may_have_disabled()) graph_.note_disabled();

    if (same_ids) // each record points into this world's twin of its archetype
        entities_.copy_from(src.entities_, [&](const Archetype* a) { return here[a->id]; });
    else
        entities_.copy_from(src.entities_, [&](const Archetype* a) { return twins[a->id]; });
    names_.copy_from(src.names_);
    relations_.reset();
    relations_.copy_from(src.relations_);
    if (graph_.sparse() != nullptr) graph_.sparse()->clear();
    if (const detail::SparseRoom* room = src.graph_.sparse()) detail::WorldCloner::copy_sparse(*room, *this);
    reset.done = true;
    detail::copy_resources(resources_, src.resources_);
    if (src.entities_.reserved_count() == 0) entities_.note_copied_from(src.entities_);
}

/**
 * copy_from when this world already holds `src`'s structure: it was made a copy of `src` (or `src`
 * of it) and neither changed structurally since (EntityIndex::same_structure_as; every create,
 * destroy, add, remove, rename, pair, enable flip, sort and snapshot load changes the structure
 * version). The records, the archetypes' rows and entities, names, pairs and enable bits are then
 * equal already: only the values, their ticks, the sparse sets, the clock and the resources are
 * copied. A Rollback frame restored after value-only frames costs about a memcpy of the values.
 * @return false (nothing changed) when the structures may differ: the caller copies everything.
 */
inline bool World::copy_values_only(const World& src) {
    if (!entities_.same_structure_as(src.entities_) || src.entities_.reserved_count() != 0 || entities_.reserved_count() != 0)
        return false;
    const detail::OwnedArray<Archetype>& from = src.graph_.all();
    const detail::OwnedArray<Archetype>& here = graph_.all();
    if (from.size() > here.size()) return false;
    for (size_t i = 0; i < from.size(); ++i) {
        if (here[i]->size() != from[i]->size()) return false;
        // A type tracked here but not in src: its ticks must restart (the full path does that).
        if (here[i]->ticks.active())
            for (size_t c = 0; c < here[i]->columns.size(); ++c)
                if (here[i]->ticks.column(c) != nullptr && from[i]->ticks.column(c) == nullptr) return false;
    }
    for (size_t i = from.size(); i < here.size(); ++i)
        if (here[i]->size() != 0) return false;
    for (size_t i = 0; i < from.size(); ++i) {
        Archetype& to = *here[i];
        const Archetype& of = *from[i];
        to.copy_values_from(of);
        if (to.ticks.active())
            for (size_t c = 0; c < to.columns.size(); ++c)
                if (detail::TickColumn* t = to.ticks.column(c))
                    if (const detail::TickColumn* f = of.ticks.column(c)) t->copy_from(*f);
    }
    if (graph_.sparse() != nullptr) graph_.sparse()->clear();
    if (const detail::SparseRoom* room = src.graph_.sparse()) detail::WorldCloner::copy_sparse(*room, *this);
    detail::copy_resources(resources_, src.resources_);
    entities_.note_copied_from(src.entities_);
    return true;
}

/// The change-detection clock (SPEC §3.13) as a `since`: the last closed tick. Every write so far
/// carries at most this tick plus one (the open tick, which copy_from and serialize_changes close),
/// so a change stream since the value read right after those calls holds exactly the later writes.
/// 0 while no type is tracked.
inline uint32_t World::change_tick() const noexcept {
    const detail::ChangeClock* clock = graph_.clock();
    return clock != nullptr ? clock->now - 1 : 0;
}

} // namespace ecs
