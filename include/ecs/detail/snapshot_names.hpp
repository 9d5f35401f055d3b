/**
 * @file ecs/detail/snapshot_names.hpp
 * @brief The "NAME" snapshot section (entity names, names.hpp): its writer and its reader.
 *
 * Payload: u32 count, then per name: u32 slot, u32 length, the bytes. Written (format 2) only when
 * some entity has a name, first among the extension sections. Every name names a live slot, is
 * non-empty, at most MAX_ENTITY_NAME_LENGTH bytes, and unique; a slot has one name. The names are
 * set by SnapshotLoader::commit(), once everything validated.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../entity.hpp"
#include "../world.hpp"
#include "algorithms.hpp"
#include "snapshot_context.hpp"
#include "snapshot_io.hpp"

namespace ecs {

namespace detail {

/// An entity name read from the "NAME" section, set by commit().
struct PendingName {
    uint32_t slot;
    std::string name;
};

/// Appends the "NAME" section (tag, u64 length, payload) to `sections`; nothing when no entity of
/// `world` has a name.
template <class D = void>
inline void write_names_section(const World& world, ByteSink<D>& sections) {
    if (WorldAccess::names(world).size() == 0) return;
    ByteSink<D> names;
    const auto put32 = [](ByteSink<D>& sink, uint32_t v) {
        unsigned char b[4];
        put_u32(b, v);
        sink.sputn(reinterpret_cast<const char*>(b), 4);
    };
    put32(names, static_cast<uint32_t>(WorldAccess::names(world).size()));
    WorldAccess::names(world).each([&](Entity e, std::string_view name) {
        put32(names, e.index);
        put32(names, static_cast<uint32_t>(name.size()));
        names.sputn(name.data(), static_cast<std::streamsize>(name.size()));
    });
    sections.sputn("NAME", 4);
    unsigned char len[8];
    put_u64(len, names.size());
    sections.sputn(reinterpret_cast<const char*>(len), 8);
    sections.sputn(names.data(), static_cast<std::streamsize>(names.size()));
}

/// "NAME": u32 count, then per name: u32 slot, u32 length, the bytes. Every name names a live
/// slot, is non-empty, at most MAX_ENTITY_NAME_LENGTH bytes, and unique; a slot has one name.
template <class = void>
inline bool read_names_section(SnapshotLoadState<>& s, uint64_t length, std::vector<PendingName>& pending_names) {
    const uint64_t at = s.in_.offset();
    uint32_t count = 0;
    if (length < 4 || !s.in_.u32(count)) return s.fail(DeserializeError::bad_section, at, "names section too short");
    if (uint64_t(count) * 9 > length - 4) return s.fail(DeserializeError::bad_section, at, "name count exceeds the section");
    std::vector<uint8_t> named(s.slot_count_, 0);
    pending_names.reserve(count);
    for (uint32_t i = 0; i < count; ++i) {
        const uint64_t item_at = s.in_.offset();
        uint32_t slot = 0, size = 0;
        if (!s.in_.u32(slot) || !s.in_.u32(size)) return s.truncated(item_at, "name entry cut short");
        if (slot >= s.slot_count_ || s.slot_state_[slot] != SnapshotLoadState<>::SLOT_LIVE || named[slot])
            return s.fail(DeserializeError::bad_section, item_at, "a name for a slot that is not live, or named twice");
        if (size == 0 || size > MAX_ENTITY_NAME_LENGTH || size > s.in_.remaining())
            return s.fail(DeserializeError::bad_section, item_at, "a name of bad length");
        std::string name(size, '\0');
        if (!s.in_.raw(&name[0], size)) return s.truncated(item_at + 8, "name cut short");
        named[slot] = 1;
        pending_names.push_back(PendingName{slot, std::move(name)});
    }
    // Unique names: sort a copy of the views (a snapshot is bad data, not a precondition).
    std::vector<std::string_view> sorted;
    sorted.reserve(pending_names.size());
    for (const PendingName& n : pending_names) sorted.push_back(n.name);
    std::vector<std::string_view> scratch(sorted.size());
    detail::stable_sort_with_buffer(sorted.data(), sorted.size(), scratch.data(),
                                    [](std::string_view a, std::string_view b) { return a < b; });
    for (size_t i = 1; i < sorted.size(); ++i)
        if (sorted[i] == sorted[i - 1]) return s.fail(DeserializeError::bad_section, at, "two entities share a name");
    return true;
}

} // namespace detail

} // namespace ecs
