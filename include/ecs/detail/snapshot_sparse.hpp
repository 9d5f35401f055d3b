/**
 * @file ecs/detail/snapshot_sparse.hpp
 * @brief The "SPRS" snapshot section (components with sparse storage, sparse.hpp): its writer and
 *        its reader.
 *
 * Payload: u32 type count, then per sparse type with members: u32 name length, the registered name,
 * u32 element size (0 for a tag), u32 count, that many entity slots (the members, ascending), u64
 * byte length and the values in the same order, written like a column (the object bytes of a type
 * registered without functions, else its serialize function). Written (and required) before "ENBL",
 * whose component bits may name sparse values. The reader constructs the values straight into the
 * world's sets (SnapshotLoader::roll_back empties them: the world had no live entity, so its sets
 * had no member).
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
inline constexpr uint32_t SECTION_SPARSE = 0x53525053u; // "SPRS"

/// Builds the "SPRS" payload in `sparse` (`has_sparse`: some sparse component exists).
/// @return false when a serialize function set failbit.
template <typename RegistrationOf>
bool build_sparse_section(const World& world, RegistrationOf& registration_of, SectionBytes<>& sparse, bool& has_sparse) {
    const SparseRoom* room = WorldAccess::sparse(world);
    if (room == nullptr) return true;
    uint32_t types = 0;
    for (const ComponentTypeID id : room->ids()) types += room->member(id).size() != 0 ? 1u : 0u;
    if (types == 0) return true;
    has_sparse = true;
    sparse.u32(types);
    ByteSink<Dependent<RegistrationOf, void>> values;
    Dependent<RegistrationOf, std::ostream> values_out(&values);
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
            set.each([&](uint32_t, const void* value) {
                if (reg->bulk) values.sputn(static_cast<const char*>(value), std::streamsize(reg->element_size));
                else if (!values_out.fail()) reg->serialize(values_out, value);
            });
        if (values_out.fail()) return false;
        sparse.u64(values.size());
        sparse.bytes.append(values.data(), values.size());
    }
    return true;
}

/// One type of the "SPRS" section: its name, element size, members and values.
template <class D = void>
inline bool read_sparse_type(SnapshotLoadState<>& s) {
    const uint64_t name_at = s.in_.offset();
    uint32_t length = 0;
    if (!s.in_.u32(length)) return s.truncated(name_at, "missing component name length");
    if (length == 0 || length > MAX_COMPONENT_NAME_LENGTH)
        return s.fail(DeserializeError::bad_name, name_at, "component name length " + std::to_string(length) + " is 0 or too long");
    std::string name(length, '\0');
    if (!s.in_.raw(&name[0], length)) return s.truncated(name_at, "component name cut short");
    ComponentTypeID id = INVALID_COMPONENT_ID;
    const ComponentRegistration* reg = component_registry().find(name, id);
    if (reg == nullptr) return s.fail(DeserializeError::unknown_component, name_at, "unknown component name \"" + name + "\"");
    if (!is_sparse_id(id))
        return s.fail(DeserializeError::unknown_component, name_at,
                      "component \"" + name + "\" is listed as sparse but is stored in tables in this program");
    uint64_t at = s.in_.offset();
    uint32_t element_size = 0;
    if (!s.in_.u32(element_size)) return s.truncated(at, "missing component element size");
    if (element_size != reg->element_size)
        return s.fail(DeserializeError::element_size_mismatch, at,
                      "component \"" + name + "\" has element size " + std::to_string(element_size) + " in the snapshot but " +
                          std::to_string(reg->element_size) + " in this program");
    at = s.in_.offset();
    uint32_t count = 0;
    if (!s.in_.u32(count)) return s.truncated(at, "missing sparse member count");
    if (uint64_t(count) * 4 + 8 > s.in_.remaining()) return s.truncated(at, "sparse member count exceeds the section");
    SparseSet& set = WorldAccess::sparse_set(s.world_, id);
    if (set.size() != 0) return s.fail(DeserializeError::duplicate_component, name_at, "sparse type \"" + name + "\" listed twice");
    std::vector<Entity> members(count);
    std::vector<uint8_t> listed(s.slot_count_, 0);
    for (uint32_t i = 0; i < count; ++i) {
        const uint64_t slot_at = s.in_.offset();
        uint32_t slot = 0;
        Archetype* arch = nullptr;
        uint32_t row = 0;
        if (!s.in_.u32(slot)) return s.truncated(slot_at, "sparse member list cut short");
        if (!s.locate_slot(slot, slot_at, arch, row)) return false;
        if (listed[slot] != 0)
            return s.fail(DeserializeError::duplicate_entity, slot_at, "entity slot " + std::to_string(slot) + " listed twice");
        listed[slot] = 1;
        members[i] = arch->entities[row];
    }
    at = s.in_.offset();
    uint64_t bytes = 0;
    if (!s.in_.u64(bytes)) return s.truncated(at, "missing sparse value byte length");
    if (bytes > s.in_.remaining()) return s.truncated(at, "sparse value byte length exceeds the section");
    if (reg->element_size == 0) { // a tag: no bytes
        if (bytes != 0) return s.fail(DeserializeError::column_size_mismatch, at, "tag \"" + name + "\" has value bytes");
        for (const Entity e : members) (void)set.insert(e);
        return true;
    }
    if (reg->bulk) {
        if (bytes != uint64_t(count) * reg->element_size)
            return s.fail(DeserializeError::column_size_mismatch, at,
                          "sparse values of \"" + name + "\" have " + std::to_string(bytes) + " bytes for " +
                              std::to_string(count) + " members");
        for (const Entity e : members) {
            void* storage = set.insert(e);
            if (!s.in_.raw(storage, reg->element_size)) {
                set.erase(e.index, false);
                return s.truncated(at + 8, "sparse values cut short");
            }
        }
        return true;
    }
    LimitedStreamBuf<D> limited(s.in_.source(), bytes);
    Dependent<D, std::istream> element_in(&limited);
    for (uint32_t i = 0; i < count; ++i) {
        void* storage = set.insert(members[i]);
        reg->deserialize(element_in, storage);
        if (element_in.fail()) {
            set.erase(members[i].index, false); // nothing constructed there
            if (limited.source_short()) return s.truncated(at + 8, "sparse values cut short");
            return s.fail(DeserializeError::deserializer_failed, at + 8,
                          "deserializer of \"" + name + "\" failed at member " + std::to_string(i));
        }
    }
    if (!limited.exhausted())
        return s.fail(DeserializeError::column_size_mismatch, at,
                      "deserializer of \"" + name + "\" read fewer bytes than its values hold");
    s.in_.consumed(bytes);
    return true;
}

/// "SPRS": the sparse components, constructed straight into the world's sets (roll_back empties
/// them: the world had no live entity, so its sets had no member).
template <class = void>
inline bool read_sparse_section(SnapshotLoadState<>& s) {
    uint64_t at = s.in_.offset();
    uint32_t types = 0;
    if (!s.in_.u32(types)) return s.truncated(at, "missing sparse type count");
    if (uint64_t(types) * 21 > s.in_.remaining()) return s.truncated(at, "sparse type count exceeds the section");
    s.touched_sparse_ = true;
    for (uint32_t t = 0; t < types; ++t)
        if (!read_sparse_type(s)) return false;
    return true;
}

} // namespace detail

} // namespace ecs
