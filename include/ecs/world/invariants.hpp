/**
 * @file ecs/world/invariants.hpp
 * @brief World::check_invariants: every invariant of SPEC §6, checked over all archetypes, records,
 *        sparse sets, names and relationships (tests and the model test call it after every step).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "world_class.hpp"

namespace ecs {

inline bool World::check_invariants() const {
    size_t live = 0;
    for (size_t a = 0; a < graph_.size(); ++a) {
        const Archetype& arch = *graph_[a];
        if (arch.id != a || arch.columns.size() != arch.types.size()) return false;
        for (size_t c = 1; c < arch.types.size(); ++c)
            if (!(arch.types[c - 1] < arch.types[c])) return false; // sorted, no duplicates
        if (arch.mask.count() != arch.types.size()) return false;
        for (size_t c = 0; c < arch.types.size(); ++c) {
            if (arch.columns[c].type_id != arch.types[c] || !arch.mask.test(arch.types[c]) ||
                arch.column_index[arch.types[c]] != c || arch.data_by_id[arch.types[c]] != arch.columns[c].data)
                return false;
            const ComponentColumn& col = arch.columns[c];
            if (col.elem_size != 0 && reinterpret_cast<uintptr_t>(col.data) % col.elem_align != 0) return false;
        }
        if (arch.row_size != 0 && arch.size() > arch.capacity()) return false;
        if (!arch.enable.check(arch.size())) return false; // counts right, no bit past the rows
        for (size_t row = 0; row < arch.size(); ++row) {
            const Entity e = arch.entities[row];
            if (e.index == 0 || e.index >= entities_.size()) return false;
            const EntityRecord& r = entities_[e.index];
            if (r.archetype != &arch || r.row != row || r.generation != e.generation) return false;
        }
        live += arch.size();
    }
    if (const detail::SparseRoom* room = graph_.sparse()) // every member alive, indexes consistent
        for (const ComponentTypeID id : room->ids()) {
            const detail::SparseSet& set = room->member(id);
            if (!set.check() || is_sparse_id(id) == false) return false;
            bool members_alive = true;
            set.each([&](uint32_t index, const void*) { // and each slot names its member's current handle
                members_alive = members_alive && index < entities_.size() && entities_[index].live() &&
                                set.owner(set.slot_of(index) - 1).generation == entities_[index].generation;
            });
            if (!members_alive) return false;
        }
    bool names_alive = true; // names belong to live entities only
    names_.each([&](Entity e, std::string_view) { names_alive = names_alive && alive(e); });
    return entities_.check(live) && names_.check() && names_alive && relations_.check(lookup());
}

} // namespace ecs
