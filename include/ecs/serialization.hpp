/**
 * @file ecs/serialization.hpp
 * @brief Stable component names and binary world snapshots (SPEC §3.10).
 *
 * Component ids depend on the order in which a program first uses its types, so a snapshot names
 * its component types with strings given by register_component<T>(name). serialize() writes every
 * entity of a World (alive and dead slots, generations, free list, component values, archetype
 * structure) to a std::ostream; deserialize() rebuilds it in an empty World.
 *
 * The byte layout is described in SPEC.md §3.10.1 (format version 1) and its addition for version 2:
 * serialize() writes version 2, whose body (the version 1 layout plus a resource table) is framed by
 * its length and two CRC-32C checksums, so that any single flipped bit is rejected before the target
 * world is touched; deserialize() reads both versions. In short: every integer of the framing
 * is little-endian and fixed width on every host; component payloads are whatever the registered
 * serialize functions write. For trivially copyable types registered without functions, that is
 * the object representation (memcpy), written and read one column at a time: such snapshots move
 * between hosts that share the types' layout and byte order (in practice: any little-endian
 * 64-bit platform with the same compiler ABI).
 *
 * A malformed snapshot is data, not a precondition: deserialize() returns a DeserializeResult naming
 * the problem and its byte offset, and leaves the target world as it was (empty and valid).
 *
 * The parts: detail/snapshot_registry.hpp (the name registries, DeserializeResult),
 * detail/snapshot_io.hpp (bytes, framing, checksum), one file per section (snapshot_names.hpp,
 * snapshot_resources.hpp, snapshot_sparse.hpp, snapshot_enable.hpp, relation_snapshot.hpp, with
 * snapshot_sections.hpp for their framing), detail/snapshot_loader.hpp (reading) and
 * detail/snapshot_writer.hpp (writing). This header defines serialize() and deserialize().
 */
#pragma once

#include <cstdint>

#include "detail/stream.hpp"
#include "detail/change_stream.hpp"     // ChangeWriter, ChangeApplier
#include "detail/relation_snapshot.hpp" // the relationship section, register_relation
#include "detail/snapshot_io.hpp"       // framing, checksum, readers and writers of bytes
#include "detail/snapshot_loader.hpp"   // SnapshotLoader
#include "detail/snapshot_merge.hpp"    // LoadMode, EntityMap, merge_world
#include "detail/snapshot_registry.hpp" // register_component, register_resource, DeserializeResult
#include "detail/snapshot_writer.hpp"   // write_snapshot
#include "world.hpp"

namespace ecs {

/**
 * @brief Writes a binary snapshot of `world` to `out` (format version 2: SPEC.md §3.10.1 and the
 *        format 2 layout).
 *
 * Captures every entity slot (live and dead), generations, the free list in order, archetype
 * structure, component values and the resources whose types were given a name by
 * register_resource(). Archetypes without rows are skipped. Other resources, observers and deferred
 * commands are not written. Columns of types registered without functions (memcpy) are written with
 * one stream write each (checksummed in 64 KiB steps on the way); values of types with functions are
 * serialized into a memory buffer first (their lengths precede them, and the body's length is written
 * before the body), so writing holds those serialized bytes in memory once.
 *
 * @pre Every component type present in `world` is registered (asserted; otherwise nothing is
 *      written and `out`'s failbit is set). A SerializeFunc that sets failbit also stops the
 *      snapshot (before anything is written) and sets `out`'s failbit. Check `out` for write errors.
 * Complexity: O(entities + slots) plus the bytes of the components and resources.
 */
template <class D = void>
inline void serialize(const World& world, detail::Dependent<D, std::ostream>& out) {
    detail::write_snapshot(world, out, SNAPSHOT_FORMAT_VERSION);
}

/**
 * @brief Rebuilds the world stored in a snapshot read from `in` into `world`.
 *
 * On success the world holds exactly the snapshot's entities: the same handles (a handle live before
 * serialize is live again, a stale one stays stale), component values, archetype structure, slot
 * generations and free list order (the next create() returns what it would have returned in the
 * serialized world). Resources the snapshot holds (format 2: registered with
 * register_resource) are set in `world`, replacing a resource of the same type; its other resources,
 * observers and deferred commands are left alone. `on_add` hooks do NOT fire for the loaded
 * components: a snapshot restores state, it does not replay its creation.
 *
 * Formats 1 and 2 are read. In format 2 the frame checksum is verified first, then
 * the body's checksum in a first pass over the body (the stream is read twice: a seekable one is
 * sought back; any other is in memory anyway, see below), before anything is built: a damaged
 * snapshot (any single flipped bit included) is `checksum_mismatch` and the world is not touched
 * at all. When the stream holds the body in memory, that pass also copies the entity lists and the
 * generation table for the parse, so only the column and resource bytes are read twice.
 *
 * Bad input is reported, never asserted: the result names the problem and its byte offset, and the
 * world is left as it was (no live entities; check_invariants() holds; components constructed along
 * the way are destroyed exactly once; archetypes created along the way stay, empty). Allocations
 * are bounded by the input: every count is checked against the bytes left in the stream before
 * anything is allocated for it.
 *
 * The stream: when it can seek, its remaining size is measured and it is left just after the
 * snapshot on success (bytes after the snapshot are not an error: snapshots can be embedded).
 * A stream that cannot seek (a pipe, a streambuf without seekoff) is first read to its end into
 * memory: one more copy of the input, so prefer a seekable stream (std::ifstream,
 * std::istringstream, a streambuf overriding seekoff/seekpos) where speed matters. On error the
 * stream's position is unspecified and its failbit is set.
 *
 * @pre `world` has no live entities and is not iterating (asserted; returns target_not_empty /
 *      target_iterating without touching the world or the stream). Dead slots of `world` are
 *      replaced by the snapshot's on success.
 * Complexity: O(entities + slots) plus the bytes of the components and resources.
 */
template <class D = void>
inline DeserializeResult deserialize(World& world, detail::Dependent<D, std::istream>& in) {
    using detail::WorldAccess;
    DeserializeResult refused;
    if (!ECS_CHECK(!WorldAccess::iterating(world), "deserialize: called during iteration")) {
        refused.error = DeserializeError::target_iterating;
        refused.message = "deserialize: target world is iterating";
        return refused;
    }
    if (!ECS_CHECK(world.count() == 0, "deserialize: target world must have no live entities")) {
        refused.error = DeserializeError::target_not_empty;
        refused.message = "deserialize: target world has live entities";
        return refused;
    }
    // A pending deferred create holds a reserved slot that loading would hand out again.
    if (!ECS_CHECK(WorldAccess::reserved_count(world) == 0,
                   "deserialize: target world has handles reserved by deferred creations (flush_deferred() first)")) {
        refused.error = DeserializeError::target_not_empty;
        refused.message = "deserialize: target world has pending deferred creations";
        return refused;
    }
    detail::Dependent<D, std::streambuf>* source = in.rdbuf();
    if (source == nullptr || in.fail()) {
        refused.error = DeserializeError::truncated;
        refused.message = "input stream is not readable (no buffer or failbit set) (at byte 0)";
        return refused;
    }

    uint64_t remaining = 0;
    detail::SlurpedInput<D> memory;
    detail::MemoryStreamBuf<D> memory_buf;
    if (!detail::stream_remaining(*source, remaining)) {
        memory.read_all(*source);
        memory_buf.view(memory.data(), memory.size());
        source = &memory_buf;
        remaining = memory.size();
    }

    detail::SnapshotReader<D> reader(source, remaining);
    DeserializeResult result;
    {
        detail::SnapshotLoader<D> loader(world, reader);
        result = loader.run();
    } // a failed load is rolled back here
    if (!result) in.setstate(detail::Dependent<D, std::ios_base>::failbit);
    return result;
}

/**
 * @brief Loads the snapshot read from `in` into `world` in mode `mode`, and records in `map` the
 *        handle each loaded entity got (`map[handle in the snapshot]`; cleared first).
 *
 * - LoadMode::replace: exactly deserialize(world, in) (`world` has no live entity; the handles are
 *   the snapshot's own, so `map` maps each to itself).
 * - LoadMode::merge: `world` keeps its entities, resources and everything else; the snapshot's live
 *   entities are added under new handles (the next ones `world` would create). Their Entity fields
 *   are remapped through the map: fields of reflected components (ECS_REFLECT or a runtime layout,
 *   nested types and arrays included), Parent, Children, and relationship pairs (both ends). A
 *   handle the snapshot does not hold alive becomes INVALID_ENTITY (a Children list drops it); handles
 *   inside components without reflection are copied unchanged. Names, enable bits and sparse
 *   components come along; the snapshot's resources are NOT loaded (the world's own stay); tracked
 *   types count as added now. `on_add` hooks do not fire, as for deserialize().
 *
 * All or nothing: the snapshot is first loaded, with every check of deserialize(), into a world of
 * its own; a damaged snapshot (result as deserialize) or a loaded name another entity of `world`
 * already holds (name_taken) leaves `world` and `map` unchanged. Memory: the loaded entities are
 * built once and then moved (one relocation per value).
 *
 * @pre `world` is not iterating (refused: target_iterating). Complexity: O(snapshot) plus
 *      O(archetypes of the snapshot) lookups in `world`.
 */
template <class D = void>
inline DeserializeResult deserialize(World& world, detail::Dependent<D, std::istream>& in, LoadMode mode, EntityMap& map) {
    if (mode == LoadMode::replace) {
        DeserializeResult result = deserialize(world, in);
        if (!result) return result;
        map.clear();
        for (const Archetype* a : detail::WorldAccess::archetypes(world))
            for (const Entity e : a->entities) map.set(e, e);
        return result;
    }
    DeserializeResult result;
    if (!ECS_CHECK(!detail::WorldAccess::iterating(world), "deserialize: called during iteration")) {
        result.error = DeserializeError::target_iterating;
        result.message = "deserialize: target world is iterating";
        return result;
    }
    World loaded;
    result = deserialize(loaded, in);
    if (!result) return result;
    if (!detail::merge_world(loaded, world, map, result)) in.setstate(detail::Dependent<D, std::ios_base>::failbit);
    return result;
}

/**
 * @brief Writes what changed in `world` after tick `since` (exclusive) as a change stream (SPEC
 *        §3.27): every entity slot whose structure changed (created, destroyed, a component added
 *        or removed, renamed, related, enabled or disabled) whole, and the values of tracked types
 *        (track_changes) written on the other entities. Then closes the current tick: writes after
 *        this call carry a later one.
 *
 * The receiver applies it with apply_changes(). `since` is where the receiver's copy stands: the
 * sender's change_tick() right after the previous serialize_changes (it closes the tick it
 * sends), which is also DeserializeResult::tick of that stream's apply_changes; or, for a replica
 * made with copy_from, the replica's change_tick() right after the copy (copy_from closes the
 * source's open tick, and both worlds then answer the same change_tick()).
 *
 * @pre The world tracks at least one type (its clock exists; asserted, failbit, nothing written):
 *      structure stamps start with the clock, so a receiver's `since` must come after the first
 *      track_changes. Every component type on a changed entity is registered (register_component;
 *      asserted, failbit). No deferred creation is pending (asserted, failbit). Not during iteration.
 * Complexity: O(slots) for the stamps, O(rows of tracked types) for their ticks (archetypes and
 * columns with nothing newer skipped whole), plus the bytes written.
 */
template <class D = void>
inline void serialize_changes(const World& world, uint32_t since, detail::Dependent<D, std::ostream>& out) {
    if (!ECS_CHECK(detail::WorldAccess::graph(world).clock() != nullptr,
                   "serialize_changes: the world tracks no type (call track_changes<T>() first: its clock stamps the changes)")) {
        out.setstate(detail::Dependent<D, std::ios_base>::failbit);
        return;
    }
    if (!ECS_CHECK(detail::WorldAccess::reserved_count(world) == 0,
                   "serialize_changes: deferred creations are pending (flush_deferred() first)")) {
        out.setstate(detail::Dependent<D, std::ios_base>::failbit);
        return;
    }
    detail::ChangeWriter<D> writer(world, since);
    if (!ECS_CHECK(writer.build(), writer.message().c_str())) {
        out.setstate(detail::Dependent<D, std::ios_base>::failbit);
        return;
    }
    writer.write(out);
    ++detail::WorldAccess::graph(world).clock()->now; // later writes are after what was sent
}

/**
 * @brief Applies a change stream written by serialize_changes() to `world`, a replica of the
 *        sender as of the stream's `since`: afterwards it holds the sender's entities, handles,
 *        generations and free list, values, names, enable bits and pairs as they were when written.
 *
 * All or nothing: the frame and body checksums, every count against the bytes left, every name,
 * every payload (deserialized into storage of its own) and every handle against `world` (the
 * entities a value or pair names must exist there as the stream expects; the free list must come
 * out whole) are checked before anything changes. A damaged or mismatched stream leaves `world`
 * as it was and says why (checksum_mismatch, truncated, unknown_component, base_mismatch, ...).
 * Applying goes through the world's own operations, so hooks and observers fire as for the same
 * calls made by hand, tracked values count as changed (Changed<T> on the replica sees them), and the
 * replica's clock is raised to the stream's tick (DeserializeResult::tick, the next `since`).
 * Relationship pairs keep each source's target order; the order of a target's sources may differ.
 * Values are moved into place (move-only types work); a sparse type that is neither copyable nor
 * default-constructible can be updated, but not added to an entity (refused).
 * @pre Not during iteration (refused); no deferred creation pending in `world` (refused).
 */
template <class D = void>
inline DeserializeResult apply_changes(World& world, detail::Dependent<D, std::istream>& in) {
    detail::ChangeApplier<D> applier(world, in);
    DeserializeResult result = applier.run();
    if (!result) in.setstate(detail::Dependent<D, std::ios_base>::failbit);
    return result;
}

} // namespace ecs
