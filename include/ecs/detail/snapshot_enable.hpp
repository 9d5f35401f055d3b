/**
 * @file ecs/detail/snapshot_enable.hpp
 * @brief The "ENBL" snapshot section (enable bits, enable.hpp): its writer and its reader.
 *
 * Payload: u32 count, that many entity slots (disabled entities), then u32 type count and per type:
 * u32 name length, the registered name, u32 count, that many entity slots (the entities whose
 * component of that type is disabled, sparse types included). Slots are u32 little-endian,
 * ascending. Written only when something is disabled, after "SPRS" (whose values it may flag).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "stream.hpp"
#include "../archetype.hpp"
#include "../component.hpp"
#include "../enable.hpp"
#include "../sparse.hpp"
#include "../world.hpp"
#include "snapshot_context.hpp"
#include "snapshot_io.hpp"
#include "snapshot_registry.hpp"

namespace ecs {

namespace detail {

/// Section tag: four ASCII characters read as a little-endian u32.
inline constexpr uint32_t SECTION_ENABLE = 0x4C424E45u; // "ENBL"

/// Calls `fn(row)` for each set bit of `bits` below `rows`.
template <typename Func>
inline void each_set(const DisabledBits& bits, size_t rows, Func&& fn) {
    for (size_t w = 0; w < bits.words.size(); ++w)
        for (uint64_t word = bits.words.data()[w]; word != 0; word &= word - 1) {
            size_t k = 0;
            while (!((word >> k) & 1u)) ++k;
            if (w * 64 + k < rows) fn(w * 64 + k);
        }
}

/// Ascending slots: a shell sort keeps <algorithm> out of every translation unit.
template <class = void>
inline void insertion_sort_slots(std::vector<uint32_t>& v) noexcept {
    size_t gap = 1;
    while (gap < v.size() / 3) gap = gap * 3 + 1;
    for (; gap > 0; gap /= 3)
        for (size_t i = gap; i < v.size(); ++i) {
            const uint32_t x = v[i];
            size_t j = i;
            for (; j >= gap && v[j - gap] > x; j -= gap) v[j] = v[j - gap];
            v[j] = x;
        }
}

/// Builds the "ENBL" payload in `enable` (`has_enable`: something is disabled).
template <typename NameOf>
void build_enable_section(const World& world, NameOf&& name_of, SectionBytes<>& enable, bool& has_enable) {
    std::vector<uint32_t> entities;
    std::vector<std::vector<uint32_t>> by_type; // by component id
    for (const Archetype* a : WorldAccess::archetypes(world)) {
        if (!a->enable.any()) continue;
        const size_t rows = a->size();
        each_set(a->enable.entities(), rows, [&](size_t row) { entities.push_back(a->entities[row].index); });
        for (size_t c = 0; c < a->columns.size(); ++c) {
            const DisabledBits* bits = a->enable.column(c);
            if (bits == nullptr || bits->count == 0) continue;
            const ComponentTypeID id = a->types[c];
            if (by_type.size() <= id) by_type.resize(size_t(id) + 1);
            each_set(*bits, rows, [&](size_t row) { by_type[id].push_back(a->entities[row].index); });
        }
    }
    if (const SparseRoom* room = WorldAccess::sparse(world)) // disabled sparse components
        for (const ComponentTypeID id : room->ids()) {
            const SparseSet& set = room->member(id);
            if (set.disabled_count() == 0) continue;
            if (by_type.size() <= id) by_type.resize(size_t(id) + 1);
            set.each([&](uint32_t index, const void*) {
                if (set.disabled(index)) by_type[id].push_back(index);
            });
        }
    size_t types = 0;
    for (const auto& list : by_type) types += list.empty() ? 0u : 1u;
    if (entities.empty() && types == 0) return;
    has_enable = true;
    insertion_sort_slots(entities);
    enable.u32(static_cast<uint32_t>(entities.size()));
    for (uint32_t slot : entities) enable.u32(slot);
    enable.u32(static_cast<uint32_t>(types));
    for (size_t id = 0; id < by_type.size(); ++id) {
        std::vector<uint32_t>& list = by_type[id];
        if (list.empty()) continue;
        enable.name(name_of(static_cast<ComponentTypeID>(id)));
        insertion_sort_slots(list);
        enable.u32(static_cast<uint32_t>(list.size()));
        for (uint32_t slot : list) enable.u32(slot);
    }
}

/// "ENBL": disabled entities, then disabled components by type.
template <class = void>
inline bool read_enable_section(SnapshotLoadState<>& s) {
    uint64_t at = s.in_.offset();
    uint32_t count = 0;
    if (!s.in_.u32(count)) return s.truncated(at, "missing disabled entity count");
    if (uint64_t(count) * 4 > s.in_.remaining()) return s.truncated(at, "disabled entity count exceeds the section");
    for (uint32_t i = 0; i < count; ++i) {
        at = s.in_.offset();
        uint32_t slot = 0;
        Archetype* arch = nullptr;
        uint32_t row = 0;
        if (!s.in_.u32(slot)) return s.truncated(at, "disabled entity list cut short");
        if (!s.locate_slot(slot, at, arch, row)) return false;
        if (!arch->enable.set_entity(row, true))
            return s.fail(DeserializeError::duplicate_entity, at, "entity slot " + std::to_string(slot) + " listed twice");
    }
    at = s.in_.offset();
    uint32_t types = 0;
    if (!s.in_.u32(types)) return s.truncated(at, "missing disabled component type count");
    if (uint64_t(types) * 9 > s.in_.remaining()) return s.truncated(at, "disabled component type count exceeds the section");
    for (uint32_t t = 0; t < types; ++t) {
        const uint64_t name_at = s.in_.offset();
        uint32_t length = 0;
        if (!s.in_.u32(length)) return s.truncated(name_at, "missing component name length");
        if (length == 0 || length > MAX_COMPONENT_NAME_LENGTH)
            return s.fail(DeserializeError::bad_name, name_at, "component name length " + std::to_string(length) + " is 0 or too long");
        std::string name(length, '\0');
        if (!s.in_.raw(&name[0], length)) return s.truncated(name_at, "component name cut short");
        ComponentTypeID id = INVALID_COMPONENT_ID;
        if (component_registry().find(name, id) == nullptr)
            return s.fail(DeserializeError::unknown_component, name_at, "unknown component name \"" + name + "\"");
        at = s.in_.offset();
        uint32_t n = 0;
        if (!s.in_.u32(n)) return s.truncated(at, "missing disabled component count");
        if (uint64_t(n) * 4 > s.in_.remaining()) return s.truncated(at, "disabled component count exceeds the section");
        for (uint32_t i = 0; i < n; ++i) {
            at = s.in_.offset();
            uint32_t slot = 0;
            Archetype* arch = nullptr;
            uint32_t row = 0;
            if (!s.in_.u32(slot)) return s.truncated(at, "disabled component list cut short");
            if (!s.locate_slot(slot, at, arch, row)) return false;
            if (is_sparse_id(id)) { // a sparse type: a flag in the set the sparse section filled
                SparseSet* set = WorldAccess::sparse(s.world_) != nullptr ? WorldAccess::sparse(s.world_)->set(id) : nullptr;
                if (set == nullptr || !set->contains(slot))
                    return s.fail(DeserializeError::bad_count, at,
                                  "entity slot " + std::to_string(slot) + " has no \"" + name + "\" to disable");
                if (!set->set_disabled(slot, true))
                    return s.fail(DeserializeError::duplicate_entity, at,
                                  "entity slot " + std::to_string(slot) + " listed twice for \"" + name + "\"");
                continue;
            }
            if (!arch->has(id))
                return s.fail(DeserializeError::bad_count, at,
                              "entity slot " + std::to_string(slot) + " has no \"" + name + "\" to disable");
            if (!arch->set_disabled(id, row, true))
                return s.fail(DeserializeError::duplicate_entity, at,
                              "entity slot " + std::to_string(slot) + " listed twice for \"" + name + "\"");
        }
    }
    return true;
}

} // namespace detail

} // namespace ecs
