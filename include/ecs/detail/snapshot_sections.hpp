/**
 * @file ecs/detail/snapshot_sections.hpp
 * @brief The optional sections at the end of a format 2 snapshot body (addition, 1.0): enable state
 *        (and, with sparse storage, sparse components).
 *
 * They are extension sections of the format 2 body (see SnapshotLoader::read_section, which also
 * reads "NAME" and "RELS"): each
 *
 *     4-byte tag, u64 byte length, payload (exactly that many bytes)
 *
 * at most one per tag, written after "NAME" and "RELS"; "SPRS" is written (and must come) before
 * "ENBL", whose component bits may name sparse values. An unknown tag is `bad_section`. A reader
 * that finds the body ending after the resource table sees no section: snapshots written before
 * sections existed, and snapshots of worlds that use none of them, are byte for byte what they were,
 * and the format version stays 2. The body checksum covers the sections like the rest of the body.
 *
 * - `"SPRS"` (sparse.hpp): u32 type count, then per sparse type with members: u32 name length, the
 *   registered name, u32 element size (0 for a tag), u32 count, that many entity slots (the members,
 *   ascending), u64 byte length and the values in the same order, written like a
 *   column (the object bytes of a type registered without functions, else its serialize function).
 * - `"ENBL"` (enable.hpp): u32 count, that many entity slots (disabled entities), then u32 type count
 *   and per type: u32 name length, the registered name, u32 count, that many entity slots (the
 *   entities whose component of that type is disabled, sparse types included). Slots are u32
 *   little-endian, ascending.
 *
 * This header builds and writes the sections (write_snapshot calls it); SnapshotLoader reads them
 * (snapshot_loader.hpp). Include <ecs/serialization.hpp>.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "../world.hpp"
#include "snapshot_io.hpp"

namespace ecs::detail {

/// Section tags: four ASCII characters read as a little-endian u32.
inline constexpr uint32_t SECTION_SPARSE = 0x53525053u; // "SPRS"
inline constexpr uint32_t SECTION_ENABLE = 0x4C424E45u; // "ENBL"

/// A payload under construction: little-endian integers appended to a byte string.
struct SectionBytes {
    std::string bytes;
    void u32(uint32_t v) {
        unsigned char b[4];
        put_u32(b, v);
        bytes.append(reinterpret_cast<const char*>(b), 4);
    }
    void u64(uint64_t v) {
        unsigned char b[8];
        put_u64(b, v);
        bytes.append(reinterpret_cast<const char*>(b), 8);
    }
    void name(const std::string& text) {
        u32(static_cast<uint32_t>(text.size()));
        bytes.append(text);
    }
};

/**
 * @brief The sections of one snapshot, built from a world before the body is written (their byte
 *        lengths are part of the body's length, which precedes the body).
 */
struct SnapshotSections {
    SectionBytes sparse; ///< payload of "SPRS"; empty when no sparse component exists
    SectionBytes enable; ///< payload of "ENBL"; empty when nothing is disabled
    bool has_sparse = false;
    bool has_enable = false;

    /**
     * Builds every section `world` needs. `registration_of(id)` gives a component type's registration
     * (name, element_size, bulk, serialize). @return false when a serialize function set failbit.
     * @pre every component type present is registered.
     */
    template <typename RegistrationOf>
    bool build(const World& world, RegistrationOf&& registration_of) {
        if (!build_sparse(world, registration_of)) return false;
        build_enable(world, [&](ComponentTypeID id) -> const std::string& {
            static const std::string unregistered; // not reached: every type present is registered (@pre)
            const auto* reg = registration_of(id);
            return reg != nullptr ? reg->name : unregistered;
        });
        return true;
    }
    /// Bytes the sections add to the body.
    [[nodiscard]] uint64_t bytes() const noexcept {
        return (has_sparse ? 12 + sparse.bytes.size() : 0) + (has_enable ? 12 + enable.bytes.size() : 0);
    }
    void write(SnapshotWriter& w) const {
        if (has_sparse) write_one(w, SECTION_SPARSE, sparse);
        if (has_enable) write_one(w, SECTION_ENABLE, enable);
    }

private:
    static void write_one(SnapshotWriter& w, uint32_t tag, const SectionBytes& payload) {
        w.u32(tag);
        w.u64(payload.bytes.size());
        w.raw(payload.bytes.data(), payload.bytes.size());
    }

    /// Calls `fn(row)` for each set bit of `bits` below `rows`.
    template <typename Func>
    static void each_set(const DisabledBits& bits, size_t rows, Func&& fn) {
        for (size_t w = 0; w < bits.words.size(); ++w)
            for (uint64_t word = bits.words.data()[w]; word != 0; word &= word - 1) {
                size_t k = 0;
                while (!((word >> k) & 1u)) ++k;
                if (w * 64 + k < rows) fn(w * 64 + k);
            }
    }

    template <typename RegistrationOf>
    bool build_sparse(const World& world, RegistrationOf& registration_of) {
        const SparseRoom* room = WorldAccess::sparse(world);
        if (room == nullptr) return true;
        uint32_t types = 0;
        for (const ComponentTypeID id : room->ids()) types += room->member(id).size() != 0 ? 1u : 0u;
        if (types == 0) return true;
        has_sparse = true;
        sparse.u32(types);
        ByteSink values;
        std::ostream values_out(&values);
        for (const ComponentTypeID id : room->ids()) {
            const SparseSet& set = room->member(id);
            if (set.size() == 0) continue;
            const auto* reg = registration_of(id);
            if (reg == nullptr) return false; // not reached: write_snapshot checked every type (@pre)
            sparse.name(reg->name);
            sparse.u32(reg->element_size);
            sparse.u32(static_cast<uint32_t>(set.size()));
            set.each([&](uint32_t index, const void*) { sparse.u32(index); });
            values.clear();
            if (reg->element_size != 0)
                set.each([&](uint32_t, const void* value) { // the generated memcpy function for bulk types
                    if (!values_out.fail()) reg->serialize(values_out, value);
                });
            if (values_out.fail()) return false;
            sparse.u64(values.size());
            sparse.bytes.append(values.data(), values.size());
        }
        return true;
    }

    template <typename NameOf>
    void build_enable(const World& world, NameOf&& name_of) {
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

    /// Ascending slots: a shell sort keeps <algorithm> out of every translation unit.
    static void insertion_sort_slots(std::vector<uint32_t>& v) noexcept {
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
};

} // namespace ecs::detail
