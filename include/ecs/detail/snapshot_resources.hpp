/**
 * @file ecs/detail/snapshot_resources.hpp
 * @brief The resource table of a format 2 snapshot (resources registered with register_resource):
 *        its writer and its reader.
 *
 * Layout, after the entity table: u32 count, then per resource: u32 name length, the registered
 * name, u32 element size, u64 byte length and the bytes (the object representation for a type
 * registered without functions, else what its serialize function writes). Registered resources are
 * written in registration order; a resource is read into storage of its own and moved into the
 * world only by SnapshotLoader::commit().
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "stream.hpp"
#include "../world.hpp"
#include "snapshot_context.hpp"
#include "snapshot_io.hpp"
#include "snapshot_registry.hpp"

namespace ecs {

namespace detail {

/// The registered resources present in a world being written, with their values.
using SnapshotResources = std::vector<std::pair<const ResourceRegistration*, const void*>>;

/// Collects the registered resources present in `world`, in registration order.
template <class = void>
inline void collect_resources(const World& world, SnapshotResources& resources) {
    for (const ResourceRegistration* reg : resource_registry().all())
        if (const void* value = reg->find(world)) resources.emplace_back(reg, value);
}

/// Adds the resource table's bytes to `body`, serializing into `pending` the values only functions
/// can write. @return false when a serialize function set failbit.
template <class D = void>
inline bool measure_resource_table(const SnapshotResources& resources, PendingPayloads<D>& pending, uint64_t& body) {
    body += 4;
    for (const auto& item : resources) {
        const ResourceRegistration& reg = *item.first;
        body += 4 + reg.name.size() + 4 + 8;
        if (reg.bulk) {
            body += reg.element_size;
            continue;
        }
        const size_t before = pending.size();
        if (!pending.put(reg.serialize, item.second)) return false;
        body += pending.end_item(before);
    }
    return true;
}

/// Writes the resource table (the values of types with functions come from `pending`, in order).
template <class D = void>
inline void write_resource_table(SnapshotWriter<D>& w, const SnapshotResources& resources, PendingPayloads<D>& pending) {
    w.u32(static_cast<uint32_t>(resources.size()));
    for (const auto& item : resources) {
        const ResourceRegistration& reg = *item.first;
        w.u32(static_cast<uint32_t>(reg.name.size()));
        w.raw(reg.name.data(), reg.name.size());
        w.u32(reg.element_size);
        if (reg.bulk) {
            w.u64(reg.element_size);
            w.raw(item.second, reg.element_size);
        } else {
            pending.write_next(w);
        }
    }
}

/// A resource read from the snapshot, waiting for commit().
struct PendingResource {
    const ResourceRegistration* registration;
    void* storage;    ///< ::operator new(element_size, align)
    bool constructed; ///< storage holds a live object
};

/// One entry of the resource table.
template <class D = void>
inline bool read_resource(SnapshotLoadState<>& s, std::vector<PendingResource>& resources) {
    const uint64_t name_at = s.in_.offset();
    uint32_t length = 0;
    if (!s.in_.u32(length)) return s.truncated(name_at, "missing resource name length");
    if (length == 0 || length > MAX_COMPONENT_NAME_LENGTH)
        return s.fail(DeserializeError::bad_name, name_at,
                      "resource name length " + std::to_string(length) + " is 0 or above MAX_COMPONENT_NAME_LENGTH");
    std::string name(length, '\0');
    if (!s.in_.raw(&name[0], length)) return s.truncated(name_at, "resource name cut short");
    const ResourceRegistration* reg = resource_registry().find(name);
    if (reg == nullptr)
        return s.fail(DeserializeError::unknown_resource, name_at, "unknown resource name \"" + name + "\"");
    for (const PendingResource& p : resources)
        if (p.registration == reg)
            return s.fail(DeserializeError::duplicate_resource, name_at, "resource \"" + name + "\" listed twice");
    const uint64_t size_at = s.in_.offset();
    uint32_t element_size = 0;
    if (!s.in_.u32(element_size)) return s.truncated(size_at, "missing resource element size");
    if (element_size != reg->element_size)
        return s.fail(DeserializeError::element_size_mismatch, size_at,
                      "resource \"" + name + "\" has element size " + std::to_string(element_size) +
                          " in the snapshot but " + std::to_string(reg->element_size) + " in this program");
    const uint64_t at = s.in_.offset();
    uint64_t bytes = 0;
    if (!s.in_.u64(bytes)) return s.truncated(at, "missing resource byte length");
    if (bytes > s.in_.remaining()) return s.truncated(at, "resource byte length exceeds the bytes left in the input");
    if (reg->bulk && bytes != reg->element_size)
        return s.fail(DeserializeError::column_size_mismatch, at,
                      "resource \"" + name + "\" has " + std::to_string(bytes) + " bytes for one object of " +
                          std::to_string(reg->element_size));
    void* storage = ::operator new(reg->element_size, std::align_val_t(reg->align));
    resources.push_back(PendingResource{reg, storage, false});
    PendingResource& pending = resources.back();
    if (reg->bulk) {
        if (!s.in_.raw(pending.storage, bytes)) return s.truncated(at + 8, "resource data cut short");
        pending.constructed = true;
        return true;
    }
    LimitedStreamBuf<D> limited(s.in_.source(), bytes);
    Dependent<D, std::istream> object_in(&limited);
    reg->deserialize(object_in, pending.storage);
    if (object_in.fail()) {
        if (limited.source_short()) return s.truncated(at + 8, "resource data cut short");
        return s.fail(DeserializeError::deserializer_failed, at + 8,
                      "deserializer of resource \"" + name + "\" failed");
    }
    pending.constructed = true;
    if (!limited.exhausted())
        return s.fail(DeserializeError::column_size_mismatch, at,
                      "deserializer of resource \"" + name + "\" read fewer bytes than the resource holds");
    s.in_.consumed(bytes);
    return true;
}

/// Format 2: the resource table. Each resource is constructed in storage of its own and moved
/// into the world only by commit().
template <class = void>
inline bool read_resource_table(SnapshotLoadState<>& s, std::vector<PendingResource>& resources) {
    const uint64_t table_at = s.in_.offset();
    uint32_t count = 0;
    if (!s.in_.u32(count)) return s.truncated(table_at, "missing resource count");
    // Every resource takes at least 17 bytes: name length, a 1-byte name, element size, byte length.
    if (uint64_t(count) * 17 > s.in_.remaining())
        return s.truncated(table_at, "resource count needs more bytes than the input holds");
    for (uint32_t i = 0; i < count; ++i)
        if (!read_resource(s, resources)) return false;
    return true;
}

} // namespace detail

} // namespace ecs
