/**
 * @file ecs/detail/snapshot_loader.hpp
 * @brief Snapshot reading and writing against a World: SnapshotLoader (parses into an empty world,
 *        all or nothing), write_snapshot, and the public serialize() / deserialize() (SPEC §3.10).
 *
 * Included at the end of ecs/serialization.hpp, where the registries and DeserializeResult are
 * declared; include <ecs/serialization.hpp>, not this file.
 */
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ios>
#include <istream>
#include <new>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "../serialization.hpp"
#include "snapshot_io.hpp"
#include "snapshot_sections.hpp"

namespace ecs {

namespace detail {

// ---- [relations] the relationship section: defined in detail/relation_snapshot.hpp (included at the
// end of this file), which documents the format -----------------------------------------------------

/// The pairs of one relationship type read from a snapshot, installed by SnapshotLoader::commit().
struct PendingRelation {
    const RelationTypeInfo* info = nullptr;
    std::vector<Entity> sources;
    std::vector<Entity> targets;
    std::vector<uint32_t> positions; ///< each source's place among its target's sources
};
/// What write_snapshot writes of the relationships: the types holding pairs, with their names.
struct RelationSectionPlan {
    const World* world = nullptr;
    std::vector<std::pair<const RelationIndex*, const ComponentRegistration*>> items;
    uint64_t payload = 0;
    /// Bytes of the trailing sections (0 without pairs: nothing is written).
    [[nodiscard]] uint64_t bytes() const noexcept { return items.empty() ? 0 : 4 + 8 + payload; } // "RELS" section
};
/// Names the HasRelation tag of every relationship type whose R is registered.
inline void sync_relation_tags();
/// Collects the relationship types of `world` holding pairs; false (asserted) when one has no name.
inline bool plan_relation_section(const World& world, RelationSectionPlan& plan);
inline void write_relation_section(const RelationSectionPlan& plan, SnapshotWriter& w);
/// Reads the sections after the resource table (to the body's end), checked against the live slots.
inline bool read_relation_section(SnapshotReader& in, uint64_t bytes, const std::vector<uint8_t>& slot_states, uint8_t live_state,
                                   const std::vector<uint32_t>& generations, std::vector<PendingRelation>& out,
                                   DeserializeResult& result);
/// Checks the HasRelation tags of the loaded archetypes against the pairs read.
inline bool check_relation_tags(const std::vector<Archetype*>& filled, size_t slot_count,
                                const std::vector<PendingRelation>& pending, DeserializeResult& result);
inline void install_relations(World& world, const std::vector<PendingRelation>& pending);

// ---- [relations] end ----------------------------------------------------------------------------------

/**
 * Parses one snapshot into a World. Components are constructed directly in the archetypes' column
 * storage; rows become visible (entities assigned to the archetype) only once all their columns are
 * constructed, and records / free list are written only after everything validated. Until commit(),
 * the destructor undoes everything: completed archetypes are cleared (each of their objects
 * destroyed once) and the columns of a half-built archetype are destroyed up to exactly the rows
 * constructed, so the world is left with no entities, as it was.
 */
class SnapshotLoader {
public:
    SnapshotLoader(World& world, SnapshotReader& reader) noexcept : world_(world), in_(reader) {}
    SnapshotLoader(const SnapshotLoader&) = delete;
    SnapshotLoader& operator=(const SnapshotLoader&) = delete;
    ~SnapshotLoader() {
        if (!committed_) roll_back();
    }

    DeserializeResult run() {
        sync_relation_tags(); // [relations] the HasRelation tags' names, before any archetype is read
        if (!read_header()) return std::move(result_);
        if (version_ >= 2) in_.limit(body_length_); // verified: the body ends exactly there
        if (!read_counts() || !read_archetypes() || !read_entity_table()) return std::move(result_);
        if (version_ >= 2 && !read_trailer()) return std::move(result_);
        if (!check_relation_tags(filled_, slot_count_, relations_, result_)) return std::move(result_); // [relations]
        commit();
        result_.offset = in_.offset();
        return std::move(result_);
    }

private:
    enum : uint8_t { SLOT_UNSEEN = 0, SLOT_LIVE = 1, SLOT_FREE = 2 };

    bool fail(DeserializeError error, uint64_t at, const std::string& what) {
        result_.error = error;
        result_.offset = at;
        result_.message = what + " (at byte " + std::to_string(at) + ")";
        return false;
    }
    bool truncated(uint64_t at, const char* what) {
        return fail(DeserializeError::truncated, at, std::string("snapshot truncated: ") + what);
    }

    /// Magic and version; for format 2 also the frame (body length, frame checksum) and the body
    /// checksum, verified in a first pass over the body before anything is built.
    bool read_header() {
        unsigned char magic[4];
        if (!in_.raw(magic, 4)) return truncated(0, "missing magic");
        if (std::memcmp(magic, "ECS\0", 4) != 0) return fail(DeserializeError::bad_magic, 0, "not an ecs snapshot (bad magic)");
        uint32_t version = 0;
        if (!in_.u32(version)) return truncated(4, "missing format version");
        if (version == 1) {
            version_ = 1;
            return true;
        }
        if (version != 2)
            return fail(DeserializeError::unsupported_version, 4,
                        "unsupported snapshot format version " + std::to_string(version) + " (this build reads 1 and " +
                            std::to_string(SNAPSHOT_FORMAT_VERSION) + ")");
        version_ = 2;
        if (!in_.u64(body_length_)) return truncated(8, "missing body length");
        uint32_t frame_checksum = 0;
        if (!in_.u32(frame_checksum)) return truncated(16, "missing frame checksum");
        unsigned char frame[16];
        std::memcpy(frame, "ECS\0", 4);
        put_u32(frame + 4, version);
        put_u64(frame + 8, body_length_);
        if (Crc32c::of(frame, sizeof frame) != frame_checksum)
            return fail(DeserializeError::checksum_mismatch, 16,
                        "frame checksum mismatch (magic, version or body length damaged)");
        if (body_length_ > in_.remaining() || in_.remaining() - body_length_ < 4)
            return truncated(8, "body length and checksum need more bytes than the input holds");
        return verify_body();
    }

    /// Reads the body and its checksum once, compares, and seeks back to the body's first byte.
    /// The source is seekable here: deserialize() measured it, or copied it into a MemoryStreamBuf.
    /// When the stream already holds the whole body in memory (std::istringstream, a snapshot read
    /// from a pipe, any buffer over memory), the checksum runs over that memory: no copy, no seek, and
    /// the same pass copies the entity lists and generation table out for the parse (BodyScan).
    bool verify_body() {
        using Pos = std::streambuf::pos_type;
        std::streambuf* sb = in_.source();
        const uint64_t body_at = in_.offset();
        const char* next = GetArea::next(sb);
        if (uint64_t(GetArea::end(sb) - next) >= body_length_ + 4 && body_length_ + 4 > body_length_) {
            const unsigned char* body = reinterpret_cast<const unsigned char*>(next);
            const uint32_t stored = get_u32(body + body_length_);
            body_at_ = body_at;
            scanned_ = true;
            if (scan_.run(body, body_length_) != stored)
                return fail(DeserializeError::checksum_mismatch, body_at + body_length_,
                            "body checksum mismatch (the snapshot is damaged)");
            return true;
        }
        const Pos here = sb->pubseekoff(0, std::ios_base::cur, std::ios_base::in);
        if (here == Pos(std::streambuf::off_type(-1))) return truncated(body_at, "input cannot seek back to the body");
        Crc32c crc;
        char buffer[16384];
        for (uint64_t left = body_length_; left != 0;) {
            const uint64_t want = detail::min_of<uint64_t>(left, sizeof buffer);
            const std::streamsize got = sb->sgetn(buffer, static_cast<std::streamsize>(want));
            if (got != static_cast<std::streamsize>(want)) return truncated(body_at, "body cut short");
            crc.update(buffer, static_cast<size_t>(want));
            left -= want;
        }
        unsigned char stored[4];
        if (sb->sgetn(reinterpret_cast<char*>(stored), 4) != 4)
            return truncated(body_at + body_length_, "missing body checksum");
        if (sb->pubseekpos(here, std::ios_base::in) != here)
            return truncated(body_at, "input cannot seek back to the body");
        if (crc.value() != get_u32(stored))
            return fail(DeserializeError::checksum_mismatch, body_at + body_length_,
                        "body checksum mismatch (the snapshot is damaged)");
        return true;
    }

    /// Format 2, after the entity table: the resource table, then the optional sections, which must end
    /// the body exactly (snapshot_sections.hpp), then the body checksum (already verified).
    bool read_trailer() {
        if (!read_resources()) return false;
        while (in_.remaining() != 0) // extension sections (1.0): until the body ends
            if (!read_section()) return false;
        in_.unlimit();
        unsigned char stored[4];
        if (!in_.raw(stored, 4)) return truncated(in_.offset(), "missing body checksum");
        return true;
    }

    bool read_counts() {
        const uint64_t at = in_.offset();
        if (!in_.u32(archetype_count_)) return truncated(at, "missing archetype count");
        if (!in_.u32(slot_count_)) return truncated(at + 4, "missing entity slot count");
        if (slot_count_ == 0)
            return fail(DeserializeError::bad_count, at + 4, "entity slot count is 0 (slot 0 is always reserved)");
        // Every archetype block takes at least 8 bytes, the entity table 4 per slot plus 4.
        if (uint64_t(archetype_count_) * 8 + uint64_t(slot_count_) * 4 + 4 > in_.remaining())
            return truncated(at, "archetype and slot counts need more bytes than the input holds");
        slot_state_.resize(slot_count_, SLOT_UNSEEN); // a fresh loader: every slot starts unseen
        return true;
    }

    bool read_archetypes() {
        for (uint32_t i = 0; i < archetype_count_; ++i)
            if (!read_archetype()) return false;
        return true;
    }

    bool read_archetype() {
        const uint64_t block_at = in_.offset();
        uint32_t component_count = 0;
        if (!in_.u32(component_count)) return truncated(block_at, "missing archetype component count");
        if (component_count > ECS_MAX_COMPONENTS)
            return fail(DeserializeError::bad_count, block_at,
                        "archetype lists " + std::to_string(component_count) + " components (more than ECS_MAX_COMPONENTS)");
        plans_.clear();
        plan_ids_.clear();
        TypeSet types; // sorted as it is built (a few ids: insertion beats a sort)
        bool duplicate = false;
        uint64_t bytes_per_row = sizeof(Entity); // entity list + bulk payloads: known before reading them
        uint64_t fixed_bytes = 0;                // one u64 byte length per column that has bytes
        for (uint32_t k = 0; k < component_count; ++k) {
            const uint64_t name_at = in_.offset();
            uint32_t length = 0;
            if (!in_.u32(length)) return truncated(name_at, "missing component name length");
            if (length == 0 || length > MAX_COMPONENT_NAME_LENGTH)
                return fail(DeserializeError::bad_name, name_at,
                            "component name length " + std::to_string(length) + " is 0 or above MAX_COMPONENT_NAME_LENGTH");
            std::string name(length, '\0');
            if (!in_.raw(&name[0], length)) return truncated(name_at, "component name cut short");
            ComponentTypeID id = INVALID_COMPONENT_ID;
            const ComponentRegistration* registration = component_registry().find(name, id);
            if (registration == nullptr)
                return fail(DeserializeError::unknown_component, name_at, "unknown component name \"" + name + "\"");
            const uint64_t size_at = in_.offset();
            uint32_t element_size = 0;
            if (!in_.u32(element_size)) return truncated(size_at, "missing component element size");
            if (element_size != registration->element_size)
                return fail(DeserializeError::element_size_mismatch, size_at,
                            "component \"" + name + "\" has element size " + std::to_string(element_size) +
                                " in the snapshot but " + std::to_string(registration->element_size) +
                                " in this program");
            if (element_size != 0) {
                fixed_bytes += 8;
                if (registration->bulk) bytes_per_row += element_size;
            }
            plans_.push_back(registration);
            plan_ids_.push_back(id);
            const auto at = detail::upper_bound_value(types.begin(), types.end(), id);
            if (at != types.begin() && *(at - 1) == id) duplicate = true; // reported once all names are read
            types.insert(at, id);
        }
        if (duplicate)
            return fail(DeserializeError::duplicate_component, block_at, "archetype lists the same component twice");

        const uint64_t rows_at = in_.offset();
        uint32_t rows = 0;
        if (!in_.u32(rows)) return truncated(rows_at, "missing archetype row count");
        if (fixed_bytes > in_.remaining() || rows > (in_.remaining() - fixed_bytes) / bytes_per_row)
            return truncated(rows_at, "archetype row count needs more bytes than the input holds");
        if (rows > slot_count_ - 1 - live_)
            return fail(DeserializeError::bad_count, rows_at, "archetype rows outnumber the unused entity slots");

        const uint64_t entities_at = in_.offset();
        PodArray<Entity> read_entities;
        const Entity* entities = scanned_ ? scan_.entities_at(entities_at - body_at_, rows) : nullptr;
        if (entities == nullptr || !in_.skip_buffered(uint64_t(rows) * 8)) { // not copied by the body scan
            read_entities.reserve(rows); // bounded: rows * 8 bytes are known to be in the input; read
                                         // into the capacity (a fill first would write the bytes twice)
            if (!in_.entities(read_entities.data(), rows)) return truncated(entities_at, "entity list cut short");
            entities = read_entities.data();
        }
        for (uint32_t r = 0; r < rows; ++r) {
            const Entity e = entities[r];
            const uint64_t at = entities_at + uint64_t(r) * 8;
            if (e.index == 0 || e.index >= slot_count_)
                return fail(DeserializeError::entity_out_of_range, at,
                            "row names entity slot " + std::to_string(e.index) + " (slot count " +
                                std::to_string(slot_count_) + ", slot 0 reserved)");
            if (e.generation == 0) return fail(DeserializeError::bad_generation, at + 4, "live entity has generation 0");
            if (slot_state_[e.index] != SLOT_UNSEEN)
                return fail(DeserializeError::duplicate_entity, at,
                            "entity slot " + std::to_string(e.index) + " appears in two rows");
            slot_state_[e.index] = SLOT_LIVE;
        }
        live_ += rows;

        if (rows == 0) return skip_empty_columns(); // empty blocks create no archetype

        Archetype* arch = WorldAccess::find_or_create_archetype(world_, types);
        if (arch == nullptr) return fail(DeserializeError::unknown_component, block_at, "component type cannot be stored");
        if (arch->id >= archetype_used_.size()) archetype_used_.resize(size_t(arch->id) + 1, 0);
        if (archetype_used_[arch->id] != 0)
            return fail(DeserializeError::duplicate_archetype, block_at, "two archetype blocks have the same component set");
        archetype_used_[arch->id] = 1;
        if (arch->size() != 0) // cannot happen: the world had no live entity
            return fail(DeserializeError::target_not_empty, block_at, "target archetype already holds rows");

        arch->reserve(rows);
        partial_ = arch;
        partial_rows_.assign(arch->columns.size(), 0);
        for (size_t k = 0; k < plans_.size(); ++k)
            if (!read_column(*arch, plan_ids_[k], *plans_[k], rows)) return false;
        arch->entities.assign(entities, rows); // every column is complete: the rows become real
        arch->sync_ticks(); // change detection: loaded rows count as added now
        partial_ = nullptr;
        filled_.push_back(arch);
        filled_offsets_.push_back(entities_at);
        return true;
    }

    /// Columns of a block without rows must be empty.
    bool skip_empty_columns() {
        for (const ComponentRegistration* registration : plans_) {
            if (registration->element_size == 0) continue;
            const uint64_t at = in_.offset();
            uint64_t bytes = 0;
            if (!in_.u64(bytes)) return truncated(at, "missing column byte length");
            if (bytes != 0)
                return fail(DeserializeError::column_size_mismatch, at,
                            "column of \"" + registration->name + "\" holds bytes but its archetype has no rows");
        }
        return true;
    }

    bool read_column(Archetype& arch, ComponentTypeID id, const ComponentRegistration& reg, uint32_t rows) {
        if (reg.element_size == 0) return true; // tag: no bytes
        const size_t column = arch.column_index[id];
        ComponentColumn& c = arch.columns[column];
        const uint64_t at = in_.offset();
        uint64_t bytes = 0;
        if (!in_.u64(bytes)) return truncated(at, "missing column byte length");
        if (reg.bulk) {
            if (bytes != uint64_t(rows) * c.elem_size)
                return fail(DeserializeError::column_size_mismatch, at,
                            "column of \"" + reg.name + "\" has " + std::to_string(bytes) + " bytes for " +
                                std::to_string(rows) + " rows");
            if (!in_.raw(c.data, bytes)) return truncated(at + 8, "column data cut short");
            partial_rows_[column] = rows;
            return true;
        }
        if (bytes > in_.remaining()) return truncated(at, "column byte length exceeds the bytes left in the input");
        LimitedStreamBuf limited(in_.source(), bytes);
        std::istream element_in(&limited);
        for (uint32_t r = 0; r < rows; ++r) {
            reg.deserialize(element_in, c.at(r));
            if (element_in.fail()) {
                if (limited.source_short()) return truncated(at + 8, "column data cut short");
                return fail(DeserializeError::deserializer_failed, at + 8,
                            "deserializer of \"" + reg.name + "\" failed at row " + std::to_string(r));
            }
            partial_rows_[column] = r + 1;
        }
        if (!limited.exhausted())
            return fail(DeserializeError::column_size_mismatch, at,
                        "deserializer of \"" + reg.name + "\" read fewer bytes than its column holds");
        in_.consumed(bytes);
        return true;
    }

    bool read_entity_table() {
        const uint64_t generations_at = in_.offset();
        if (!scanned_ || !scan_.take_generations(generations_at - body_at_, slot_count_, generations_) ||
            !in_.skip_buffered(uint64_t(slot_count_) * 4)) { // not copied by the body scan
            generations_.resize(slot_count_); // bounded: checked against the input size in read_header
            if (!in_.u32_array(generations_.data(), slot_count_)) return truncated(generations_at, "generation table cut short");
        }
        if (generations_[0] != 1) return fail(DeserializeError::bad_generation, generations_at, "slot 0 must have generation 1");
        for (uint32_t i = 1; i < slot_count_; ++i)
            if (generations_[i] == 0)
                return fail(DeserializeError::bad_generation, generations_at + uint64_t(i) * 4,
                            "slot " + std::to_string(i) + " has generation 0");
        for (size_t a = 0; a < filled_.size(); ++a) {
            const PodArray<Entity>& list = filled_[a]->entities;
            for (size_t r = 0; r < list.size(); ++r)
                if (generations_[list[r].index] != list[r].generation)
                    return fail(DeserializeError::bad_generation, filled_offsets_[a] + uint64_t(r) * 8 + 4,
                                "entity in slot " + std::to_string(list[r].index) +
                                    " has a generation other than its slot's");
        }

        const uint64_t free_at = in_.offset();
        uint32_t free_count = 0;
        if (!in_.u32(free_count)) return truncated(free_at, "missing free list length");
        const uint64_t not_live = uint64_t(slot_count_) - 1 - live_;
        if (free_count != not_live)
            return fail(DeserializeError::bad_count, free_at,
                        "free list has " + std::to_string(free_count) + " slots but " + std::to_string(not_live) +
                            " slots are neither live nor reserved");
        free_list_.resize(free_count); // bounded by the slot count
        if (!in_.u32_array(free_list_.data(), free_count)) return truncated(free_at + 4, "free list cut short");
        for (uint32_t i = 0; i < free_count; ++i) {
            const uint32_t slot = free_list_[i];
            const uint64_t at = free_at + 4 + uint64_t(i) * 4;
            if (slot == 0 || slot >= slot_count_)
                return fail(DeserializeError::bad_free_list, at, "free list names slot " + std::to_string(slot) +
                                                                     " (reserved or out of range)");
            if (slot_state_[slot] == SLOT_LIVE)
                return fail(DeserializeError::bad_free_list, at, "free list names live slot " + std::to_string(slot));
            if (slot_state_[slot] == SLOT_FREE)
                return fail(DeserializeError::bad_free_list, at, "free list names slot " + std::to_string(slot) + " twice");
            slot_state_[slot] = SLOT_FREE;
        }
        return true;
    }

    /**
     * Format 2: one extension section after the resource table: a 4-byte tag, a u64 byte length, the
     * bytes. Snapshots written before a section existed simply end earlier. Known tags:
     * "NAME" (entity names), "RELS" (relationship pairs, detail/relation_snapshot.hpp), "SPRS" (sparse
     * components) and "ENBL" (enable bits; after "SPRS" when both are present), snapshot_sections.hpp.
     * An unknown tag is an error (data this build would drop silently).
     */
    bool read_section() {
        const uint64_t at = in_.offset();
        unsigned char tag[4];
        if (!in_.raw(tag, 4)) return truncated(at, "missing section tag");
        uint64_t length = 0;
        if (!in_.u64(length)) return truncated(at + 4, "missing section length");
        if (length > in_.remaining()) return truncated(at + 4, "section length exceeds the bytes left in the body");
        const uint64_t end = in_.offset() + length;
        bool ok = false;
        for (const std::string& seen : sections_seen_)
            if (std::memcmp(seen.data(), tag, 4) == 0) return fail(DeserializeError::bad_section, at, "a section appears twice");
        sections_seen_.emplace_back(reinterpret_cast<const char*>(tag), 4);
        if (std::memcmp(tag, "NAME", 4) == 0) ok = read_names(length);
        else if (std::memcmp(tag, "RELS", 4) == 0)
            ok = read_relation_section(in_, length, slot_state_, SLOT_LIVE, generations_, relations_, result_);
        else if (std::memcmp(tag, "SPRS", 4) == 0) { // [sparse] before "ENBL", which may flag sparse values
            if (seen_section("ENBL")) return fail(DeserializeError::bad_section, at, "\"SPRS\" after \"ENBL\"");
            ok = read_sparse_section();
        } else if (std::memcmp(tag, "ENBL", 4) == 0) { // [enable]
            WorldAccess::note_disabled(world_); // before any bit is set (harmless if the load fails)
            ok = read_enable_section();
        }
        else return fail(DeserializeError::bad_section, at, "unknown section tag");
        if (!ok) return false;
        if (in_.offset() != end) return fail(DeserializeError::bad_section, at, "section length disagrees with its contents");
        return true;
    }

    [[nodiscard]] bool seen_section(const char* tag) const noexcept {
        for (const std::string& seen : sections_seen_)
            if (std::memcmp(seen.data(), tag, 4) == 0) return true;
        return false;
    }

    /// "NAME": u32 count, then per name: u32 slot, u32 length, the bytes. Every name names a live
    /// slot, is non-empty, at most MAX_ENTITY_NAME_LENGTH bytes, and unique; a slot has one name.
    bool read_names(uint64_t length) {
        const uint64_t at = in_.offset();
        uint32_t count = 0;
        if (length < 4 || !in_.u32(count)) return fail(DeserializeError::bad_section, at, "names section too short");
        if (uint64_t(count) * 9 > length - 4) return fail(DeserializeError::bad_section, at, "name count exceeds the section");
        std::vector<uint8_t> named(slot_count_, 0);
        pending_names_.reserve(count);
        for (uint32_t i = 0; i < count; ++i) {
            const uint64_t item_at = in_.offset();
            uint32_t slot = 0, size = 0;
            if (!in_.u32(slot) || !in_.u32(size)) return truncated(item_at, "name entry cut short");
            if (slot >= slot_count_ || slot_state_[slot] != SLOT_LIVE || named[slot])
                return fail(DeserializeError::bad_section, item_at, "a name for a slot that is not live, or named twice");
            if (size == 0 || size > MAX_ENTITY_NAME_LENGTH || size > in_.remaining())
                return fail(DeserializeError::bad_section, item_at, "a name of bad length");
            std::string name(size, '\0');
            if (!in_.raw(&name[0], size)) return truncated(item_at + 8, "name cut short");
            named[slot] = 1;
            pending_names_.push_back(PendingName{slot, std::move(name)});
        }
        // Unique names: sort a copy of the views (a snapshot is bad data, not a precondition).
        std::vector<std::string_view> sorted;
        sorted.reserve(pending_names_.size());
        for (const PendingName& n : pending_names_) sorted.push_back(n.name);
        std::vector<std::string_view> scratch(sorted.size());
        detail::stable_sort_with_buffer(sorted.data(), sorted.size(), scratch.data(),
                                        [](std::string_view a, std::string_view b) { return a < b; });
        for (size_t i = 1; i < sorted.size(); ++i)
            if (sorted[i] == sorted[i - 1]) return fail(DeserializeError::bad_section, at, "two entities share a name");
        return true;
    }

    /// Format 2: the resource table. Each resource is constructed in storage of its own and moved
    /// into the world only by commit().
    bool read_resources() {
        const uint64_t table_at = in_.offset();
        uint32_t count = 0;
        if (!in_.u32(count)) return truncated(table_at, "missing resource count");
        // Every resource takes at least 17 bytes: name length, a 1-byte name, element size, byte length.
        if (uint64_t(count) * 17 > in_.remaining())
            return truncated(table_at, "resource count needs more bytes than the input holds");
        for (uint32_t i = 0; i < count; ++i)
            if (!read_resource()) return false;
        return true;
    }

    bool read_resource() {
        const uint64_t name_at = in_.offset();
        uint32_t length = 0;
        if (!in_.u32(length)) return truncated(name_at, "missing resource name length");
        if (length == 0 || length > MAX_COMPONENT_NAME_LENGTH)
            return fail(DeserializeError::bad_name, name_at,
                        "resource name length " + std::to_string(length) + " is 0 or above MAX_COMPONENT_NAME_LENGTH");
        std::string name(length, '\0');
        if (!in_.raw(&name[0], length)) return truncated(name_at, "resource name cut short");
        const ResourceRegistration* reg = resource_registry().find(name);
        if (reg == nullptr)
            return fail(DeserializeError::unknown_resource, name_at, "unknown resource name \"" + name + "\"");
        for (const PendingResource& p : resources_)
            if (p.registration == reg)
                return fail(DeserializeError::duplicate_resource, name_at, "resource \"" + name + "\" listed twice");
        const uint64_t size_at = in_.offset();
        uint32_t element_size = 0;
        if (!in_.u32(element_size)) return truncated(size_at, "missing resource element size");
        if (element_size != reg->element_size)
            return fail(DeserializeError::element_size_mismatch, size_at,
                        "resource \"" + name + "\" has element size " + std::to_string(element_size) +
                            " in the snapshot but " + std::to_string(reg->element_size) + " in this program");
        const uint64_t at = in_.offset();
        uint64_t bytes = 0;
        if (!in_.u64(bytes)) return truncated(at, "missing resource byte length");
        if (bytes > in_.remaining()) return truncated(at, "resource byte length exceeds the bytes left in the input");
        if (reg->bulk && bytes != reg->element_size)
            return fail(DeserializeError::column_size_mismatch, at,
                        "resource \"" + name + "\" has " + std::to_string(bytes) + " bytes for one object of " +
                            std::to_string(reg->element_size));
        void* storage = ::operator new(reg->element_size, std::align_val_t(reg->align));
        resources_.push_back(PendingResource{reg, storage, false});
        PendingResource& pending = resources_.back();
        if (reg->bulk) {
            if (!in_.raw(pending.storage, bytes)) return truncated(at + 8, "resource data cut short");
            pending.constructed = true;
            return true;
        }
        LimitedStreamBuf limited(in_.source(), bytes);
        std::istream object_in(&limited);
        reg->deserialize(object_in, pending.storage);
        if (object_in.fail()) {
            if (limited.source_short()) return truncated(at + 8, "resource data cut short");
            return fail(DeserializeError::deserializer_failed, at + 8,
                        "deserializer of resource \"" + name + "\" failed");
        }
        pending.constructed = true;
        if (!limited.exhausted())
            return fail(DeserializeError::column_size_mismatch, at,
                        "deserializer of resource \"" + name + "\" read fewer bytes than the resource holds");
        in_.consumed(bytes);
        return true;
    }

    void commit() {
        auto& records = WorldAccess::records(world_);
        records.assign(slot_count_, EntityRecord{});
        for (uint32_t i = 0; i < slot_count_; ++i) records[i].generation = generations_[i];
        for (Archetype* arch : filled_) {
            const auto& list = arch->entities;
            for (size_t r = 0; r < list.size(); ++r) {
                records[list[r].index].archetype = arch;
                records[list[r].index].row = static_cast<uint32_t>(r);
            }
        }
        WorldAccess::set_free_list(world_, free_list_);
        WorldAccess::alive_count(world_) = live_;
        install_relations(world_, relations_); // [relations]
        committed_ = true;
        for (const PendingName& n : pending_names_) // validated: live, unique, one per slot
            (void)WorldAccess::names(world_).set(Entity{n.slot, generations_[n.slot]}, n.name);
        pending_names_.clear();
        for (PendingResource& p : resources_) {
            p.registration->install(world_, p.storage); // moves the value in, destroys the loaded one
            ::operator delete(p.storage, std::align_val_t(p.registration->align));
        }
        resources_.clear();
    }

    void roll_back() noexcept {
        if (partial_ != nullptr) {
            for (size_t k = 0; k < partial_->columns.size(); ++k) {
                const ComponentColumn& c = partial_->columns[k];
                for (size_t r = 0; r < partial_rows_[k]; ++r) c.destroy_at(c.at(r));
            }
            partial_ = nullptr;
        }
        for (Archetype* arch : filled_) arch->clear();
        filled_.clear();
        if (touched_sparse_) // [sparse] every member came from this snapshot (the world had no live entity)
            if (SparseRoom* room = WorldAccess::sparse(world_)) room->clear();
        for (PendingResource& p : resources_) {
            if (p.constructed) p.registration->destroy(p.storage);
            ::operator delete(p.storage, std::align_val_t(p.registration->align));
        }
        resources_.clear();
    }

    /// An entity name read from the "NAME" section, set by commit().
    struct PendingName {
        uint32_t slot;
        std::string name;
    };
    std::vector<PendingName> pending_names_;
    std::vector<std::string> sections_seen_; ///< tags read so far: each section at most once
    // -- [enable] [sparse] the "ENBL" and "SPRS" extension sections (format: snapshot_sections.hpp) --

    /// The archetype and row of live slot `slot` (a section names it); fails (at `at`) otherwise.
    bool locate_slot(uint32_t slot, uint64_t at, Archetype*& arch, uint32_t& row) {
        if (slot >= slot_count_ || slot_state_[slot] != SLOT_LIVE)
            return fail(DeserializeError::entity_out_of_range, at,
                        "section names entity slot " + std::to_string(slot) + ", which holds no live entity");
        if (where_.empty()) {
            where_.assign(slot_count_, SlotPlace{nullptr, 0});
            for (Archetype* a : filled_)
                for (size_t r = 0; r < a->size(); ++r) where_[a->entities[r].index] = SlotPlace{a, static_cast<uint32_t>(r)};
        }
        arch = where_[slot].archetype;
        row = where_[slot].row;
        return arch != nullptr || fail(DeserializeError::entity_out_of_range, at, "section names an entity without a row");
    }

    /// "ENBL": disabled entities, then disabled components by type.
    bool read_enable_section() {
        uint64_t at = in_.offset();
        uint32_t count = 0;
        if (!in_.u32(count)) return truncated(at, "missing disabled entity count");
        if (uint64_t(count) * 4 > in_.remaining()) return truncated(at, "disabled entity count exceeds the section");
        for (uint32_t i = 0; i < count; ++i) {
            at = in_.offset();
            uint32_t slot = 0;
            Archetype* arch = nullptr;
            uint32_t row = 0;
            if (!in_.u32(slot)) return truncated(at, "disabled entity list cut short");
            if (!locate_slot(slot, at, arch, row)) return false;
            if (!arch->enable.set_entity(row, true))
                return fail(DeserializeError::duplicate_entity, at, "entity slot " + std::to_string(slot) + " listed twice");
        }
        at = in_.offset();
        uint32_t types = 0;
        if (!in_.u32(types)) return truncated(at, "missing disabled component type count");
        if (uint64_t(types) * 9 > in_.remaining()) return truncated(at, "disabled component type count exceeds the section");
        for (uint32_t t = 0; t < types; ++t) {
            const uint64_t name_at = in_.offset();
            uint32_t length = 0;
            if (!in_.u32(length)) return truncated(name_at, "missing component name length");
            if (length == 0 || length > MAX_COMPONENT_NAME_LENGTH)
                return fail(DeserializeError::bad_name, name_at, "component name length " + std::to_string(length) + " is 0 or too long");
            std::string name(length, '\0');
            if (!in_.raw(&name[0], length)) return truncated(name_at, "component name cut short");
            ComponentTypeID id = INVALID_COMPONENT_ID;
            if (component_registry().find(name, id) == nullptr)
                return fail(DeserializeError::unknown_component, name_at, "unknown component name \"" + name + "\"");
            at = in_.offset();
            uint32_t n = 0;
            if (!in_.u32(n)) return truncated(at, "missing disabled component count");
            if (uint64_t(n) * 4 > in_.remaining()) return truncated(at, "disabled component count exceeds the section");
            for (uint32_t i = 0; i < n; ++i) {
                at = in_.offset();
                uint32_t slot = 0;
                Archetype* arch = nullptr;
                uint32_t row = 0;
                if (!in_.u32(slot)) return truncated(at, "disabled component list cut short");
                if (!locate_slot(slot, at, arch, row)) return false;
                if (is_sparse_id(id)) { // [sparse] a flag in the set the sparse section filled
                    SparseSet* set = WorldAccess::sparse(world_) != nullptr ? WorldAccess::sparse(world_)->set(id) : nullptr;
                    if (set == nullptr || !set->contains(slot))
                        return fail(DeserializeError::bad_count, at,
                                    "entity slot " + std::to_string(slot) + " has no \"" + name + "\" to disable");
                    if (!set->set_disabled(slot, true))
                        return fail(DeserializeError::duplicate_entity, at,
                                    "entity slot " + std::to_string(slot) + " listed twice for \"" + name + "\"");
                    continue;
                }
                if (!arch->has(id))
                    return fail(DeserializeError::bad_count, at,
                                "entity slot " + std::to_string(slot) + " has no \"" + name + "\" to disable");
                if (!arch->set_disabled(id, row, true))
                    return fail(DeserializeError::duplicate_entity, at,
                                "entity slot " + std::to_string(slot) + " listed twice for \"" + name + "\"");
            }
        }
        return true;
    }

    struct SlotPlace {
        Archetype* archetype;
        uint32_t row;
    };
    std::vector<SlotPlace> where_; ///< by slot, built by the first locate_slot

    /// "SPRS": the sparse components, constructed straight into the world's sets (roll_back empties
    /// them: the world had no live entity, so its sets had no member).
    bool read_sparse_section() {
        uint64_t at = in_.offset();
        uint32_t types = 0;
        if (!in_.u32(types)) return truncated(at, "missing sparse type count");
        if (uint64_t(types) * 21 > in_.remaining()) return truncated(at, "sparse type count exceeds the section");
        touched_sparse_ = true;
        for (uint32_t t = 0; t < types; ++t)
            if (!read_sparse_type()) return false;
        return true;
    }

    bool read_sparse_type() {
        const uint64_t name_at = in_.offset();
        uint32_t length = 0;
        if (!in_.u32(length)) return truncated(name_at, "missing component name length");
        if (length == 0 || length > MAX_COMPONENT_NAME_LENGTH)
            return fail(DeserializeError::bad_name, name_at, "component name length " + std::to_string(length) + " is 0 or too long");
        std::string name(length, '\0');
        if (!in_.raw(&name[0], length)) return truncated(name_at, "component name cut short");
        ComponentTypeID id = INVALID_COMPONENT_ID;
        const ComponentRegistration* reg = component_registry().find(name, id);
        if (reg == nullptr) return fail(DeserializeError::unknown_component, name_at, "unknown component name \"" + name + "\"");
        if (!is_sparse_id(id))
            return fail(DeserializeError::unknown_component, name_at,
                        "component \"" + name + "\" is listed as sparse but is stored in tables in this program");
        uint64_t at = in_.offset();
        uint32_t element_size = 0;
        if (!in_.u32(element_size)) return truncated(at, "missing component element size");
        if (element_size != reg->element_size)
            return fail(DeserializeError::element_size_mismatch, at,
                        "component \"" + name + "\" has element size " + std::to_string(element_size) + " in the snapshot but " +
                            std::to_string(reg->element_size) + " in this program");
        at = in_.offset();
        uint32_t count = 0;
        if (!in_.u32(count)) return truncated(at, "missing sparse member count");
        if (uint64_t(count) * 4 + 8 > in_.remaining()) return truncated(at, "sparse member count exceeds the section");
        SparseSet& set = WorldAccess::sparse_set(world_, id);
        if (set.size() != 0) return fail(DeserializeError::duplicate_component, name_at, "sparse type \"" + name + "\" listed twice");
        std::vector<Entity> members(count);
        std::vector<uint8_t> listed(slot_count_, 0);
        for (uint32_t i = 0; i < count; ++i) {
            const uint64_t slot_at = in_.offset();
            uint32_t slot = 0;
            Archetype* arch = nullptr;
            uint32_t row = 0;
            if (!in_.u32(slot)) return truncated(slot_at, "sparse member list cut short");
            if (!locate_slot(slot, slot_at, arch, row)) return false;
            if (listed[slot] != 0)
                return fail(DeserializeError::duplicate_entity, slot_at, "entity slot " + std::to_string(slot) + " listed twice");
            listed[slot] = 1;
            members[i] = arch->entities[row];
        }
        at = in_.offset();
        uint64_t bytes = 0;
        if (!in_.u64(bytes)) return truncated(at, "missing sparse value byte length");
        if (bytes > in_.remaining()) return truncated(at, "sparse value byte length exceeds the section");
        if (reg->element_size == 0) { // a tag: no bytes
            if (bytes != 0) return fail(DeserializeError::column_size_mismatch, at, "tag \"" + name + "\" has value bytes");
            for (const Entity e : members) (void)set.insert(e);
            return true;
        }
        if (reg->bulk) {
            if (bytes != uint64_t(count) * reg->element_size)
                return fail(DeserializeError::column_size_mismatch, at,
                            "sparse values of \"" + name + "\" have " + std::to_string(bytes) + " bytes for " +
                                std::to_string(count) + " members");
            for (const Entity e : members) {
                void* storage = set.insert(e);
                if (!in_.raw(storage, reg->element_size)) {
                    set.erase(e.index, false);
                    return truncated(at + 8, "sparse values cut short");
                }
            }
            return true;
        }
        LimitedStreamBuf limited(in_.source(), bytes);
        std::istream element_in(&limited);
        for (uint32_t i = 0; i < count; ++i) {
            void* storage = set.insert(members[i]);
            reg->deserialize(element_in, storage);
            if (element_in.fail()) {
                set.erase(members[i].index, false); // nothing constructed there
                if (limited.source_short()) return truncated(at + 8, "sparse values cut short");
                return fail(DeserializeError::deserializer_failed, at + 8,
                            "deserializer of \"" + name + "\" failed at member " + std::to_string(i));
            }
        }
        if (!limited.exhausted())
            return fail(DeserializeError::column_size_mismatch, at,
                        "deserializer of \"" + name + "\" read fewer bytes than its values hold");
        in_.consumed(bytes);
        return true;
    }
    bool touched_sparse_ = false; ///< the sparse section put values in the world's sets

    /// A resource read from the snapshot, waiting for commit().
    struct PendingResource {
        const ResourceRegistration* registration;
        void* storage;    ///< ::operator new(element_size, align)
        bool constructed; ///< storage holds a live object
    };

    World& world_;
    SnapshotReader& in_;
    DeserializeResult result_;
    uint32_t version_ = 0;
    uint64_t body_length_ = 0;            ///< format 2
    BodyScan scan_;                       ///< format 2 in memory: the checksum pass's copies
    bool scanned_ = false;                ///< scan_ ran over the body, which starts at body_at_
    uint64_t body_at_ = 0;
    std::vector<PendingResource> resources_; ///< format 2, in snapshot order
    uint32_t archetype_count_ = 0;
    uint32_t slot_count_ = 0;
    size_t live_ = 0;
    std::vector<uint8_t> slot_state_;    ///< SLOT_* per slot
    std::vector<uint8_t> archetype_used_; ///< by archetype id: filled by this snapshot
    std::vector<const ComponentRegistration*> plans_; ///< the current block's components, in snapshot order
    TypeSet plan_ids_;                                ///< their ids, same order
    std::vector<Archetype*> filled_;                  ///< archetypes completed by this snapshot
    std::vector<uint64_t> filled_offsets_;            ///< where each one's entity list starts in the snapshot
    Archetype* partial_ = nullptr;        ///< archetype whose columns are being constructed
    std::vector<uint32_t> partial_rows_;  ///< per column of partial_: rows constructed so far
    std::vector<uint32_t> generations_;
    std::vector<uint32_t> free_list_;
    std::vector<PendingRelation> relations_; ///< [relations] pairs read, installed by commit()
    bool committed_ = false;
};

} // namespace detail

// ---------------------------------------------------------------------------------------------------
// Snapshots
// ---------------------------------------------------------------------------------------------------

namespace detail {

/**
 * Writes a snapshot of `world` in format `version`: 2 (what serialize() writes) or 1 (what ecs 0.9
 * wrote: no frame, no checksum, no resources; kept so tests, benchmarks and tools can produce
 * version 1 input). Payloads of types with functions are serialized into memory first, all of them:
 * their lengths precede them, and format 2 states the body's length before the body. Bulk columns
 * go from the archetypes to the stream directly, checksummed on the way.
 */
inline void write_snapshot(const World& world, std::ostream& out, uint32_t version) {
    const auto& archetypes = WorldAccess::archetypes(world);
    const auto& records = WorldAccess::records(world);
    // [structural] Slots reserved for deferred creations are written as freed (generation bumped) at
    // the bottom of the free list: the queue that would create them is not part of a snapshot.
    std::vector<uint32_t> free_list = WorldAccess::reserved_slots(world);
    {
        const std::vector<uint32_t> freed = WorldAccess::free_list(world);
        free_list.insert(free_list.end(), freed.begin(), freed.end());
    }

    // [relations] The relationship types holding pairs, named (their tags get names here too).
    RelationSectionPlan relation_plan;
    if (!plan_relation_section(world, relation_plan) ||
        !ECS_CHECK(version >= 2 || relation_plan.bytes() == 0, "serialize: format 1 cannot hold relationship pairs")) {
        out.setstate(std::ios_base::failbit);
        return;
    }

    // Resolve every name before writing a byte: an unregistered type leaves the stream untouched.
    std::vector<const ComponentRegistration*> registrations;
    uint32_t blocks = 0;
    for (const auto& arch : archetypes) {
        if (arch->size() == 0) continue;
        ++blocks;
        for (ComponentTypeID t : arch->types) {
            const ComponentRegistration* reg = component_registry().find(t);
            if (!ECS_CHECK(reg != nullptr, "serialize: the world holds a component type that was never registered "
                                           "(call register_component<T>(name) first)")) {
                out.setstate(std::ios_base::failbit);
                return;
            }
            registrations.push_back(reg);
        }
    }
    if (const SparseRoom* room = WorldAccess::sparse(world)) // [sparse] sparse types present too
        for (const ComponentTypeID t : room->ids())
            if (room->member(t).size() != 0 && !ECS_CHECK(component_registry().find(t) != nullptr,
                                                         "serialize: the world holds a component type that was never "
                                                         "registered (call register_component<T>(name) first)")) {
                out.setstate(std::ios_base::failbit);
                return;
            }
    std::vector<std::pair<const ResourceRegistration*, const void*>> resources; // registered and present
    SnapshotSections extra_sections; // [enable] [sparse] SPRS / ENBL extension sections
    if (version >= 2) {
        for (const ResourceRegistration* reg : resource_registry().all())
            if (const void* value = reg->find(world)) resources.emplace_back(reg, value);
        if (!extra_sections.build(world, [](ComponentTypeID id) { return component_registry().find(id); })) {
            out.setstate(std::ios_base::failbit); // a serialize function failed: nothing written
            return;
        }
    }

    // Measure the body; serialize what only functions can write into `pending`, one length per
    // column or resource in `pending_sizes`, in the order the body lists them.
    ByteSink pending;
    std::ostream pending_out(&pending);
    std::vector<uint64_t> pending_sizes;
    auto write_pending = [&](ComponentColumn::SerializeFunc fn, const void* value) {
        fn(pending_out, value);
        if (!pending_out.fail()) return true;
        out.setstate(std::ios_base::failbit);
        return false;
    };
    uint64_t body = 8; // archetype count, slot count
    size_t next = 0;
    for (const auto& arch_ptr : archetypes) {
        const Archetype& arch = *arch_ptr;
        if (arch.size() == 0) continue;
        const ComponentRegistration* const* regs = registrations.data() + next;
        next += arch.types.size();
        const uint64_t rows = arch.size();
        body += 4 + 4 + rows * 8; // component count, row count, rows
        for (size_t k = 0; k < arch.types.size(); ++k) body += 8 + regs[k]->name.size();
        for (size_t k = 0; k < arch.columns.size(); ++k) {
            const ComponentColumn& c = arch.columns[k];
            if (c.elem_size == 0) continue; // tags: no column
            body += 8;
            if (regs[k]->bulk) {
                body += rows * c.elem_size;
                continue;
            }
            const size_t before = pending.size();
            for (size_t r = 0; r < rows; ++r)
                if (!write_pending(regs[k]->serialize, c.at(r))) return;
            pending_sizes.push_back(pending.size() - before);
            body += pending_sizes.back();
        }
    }
    body += uint64_t(records.size()) * 4 + 4 + uint64_t(free_list.size()) * 4;
    if (version >= 2) {
        body += 4;
        for (const auto& item : resources) {
            const ResourceRegistration& reg = *item.first;
            body += 4 + reg.name.size() + 4 + 8;
            if (reg.bulk) {
                body += reg.element_size;
                continue;
            }
            const size_t before = pending.size();
            if (!write_pending(reg.serialize, item.second)) return;
            pending_sizes.push_back(pending.size() - before);
            body += pending_sizes.back();
        }
        body += relation_plan.bytes(); // [relations]
        body += extra_sections.bytes(); // [enable] [sparse]
    }

    // Extension sections (format 2), built in memory: they are small next to the columns.
    ByteSink sections;
    if (version >= 2 && WorldAccess::names(world).size() != 0) {
        ByteSink names;
        const auto put32 = [](ByteSink& sink, uint32_t v) {
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
    body += sections.size();

    SnapshotWriter w(out);
    unsigned char frame[16];
    std::memcpy(frame, "ECS\0", 4);
    put_u32(frame + 4, version);
    put_u64(frame + 8, body);
    if (version >= 2) {
        w.raw(frame, 16);
        w.u32(Crc32c::of(frame, 16));
        w.begin_checksum();
    } else {
        w.raw(frame, 8);
    }
    w.u32(blocks);
    w.u32(static_cast<uint32_t>(records.size()));

    size_t pending_at = 0;   // next unwritten byte of `pending`
    size_t pending_item = 0; // next entry of `pending_sizes`
    auto write_next_pending = [&] {
        const uint64_t bytes = pending_sizes[pending_item++];
        w.u64(bytes);
        w.raw(pending.data() + pending_at, bytes);
        pending_at += static_cast<size_t>(bytes);
    };
    next = 0;
    for (const auto& arch_ptr : archetypes) {
        const Archetype& arch = *arch_ptr;
        if (arch.size() == 0) continue;
        const ComponentRegistration* const* regs = registrations.data() + next;
        next += arch.types.size();
        const uint32_t rows = static_cast<uint32_t>(arch.size());

        w.u32(static_cast<uint32_t>(arch.types.size()));
        for (size_t k = 0; k < arch.types.size(); ++k) {
            w.u32(static_cast<uint32_t>(regs[k]->name.size()));
            w.raw(regs[k]->name.data(), regs[k]->name.size());
            w.u32(regs[k]->element_size);
        }
        w.u32(rows);
        w.entities(arch.entities);
        for (size_t k = 0; k < arch.columns.size(); ++k) {
            const ComponentColumn& c = arch.columns[k];
            if (c.elem_size == 0) continue; // tags: no bytes
            if (regs[k]->bulk) {
                w.u64(uint64_t(rows) * c.elem_size);
                w.raw(c.data, uint64_t(rows) * c.elem_size);
            } else {
                write_next_pending();
            }
        }
    }

    // Entity table: one generation per slot, then the free list bottom to top.
    uint32_t generations[1024];
    for (size_t i = 0; i < records.size();) {
        size_t k = 0;
        for (; k < 1024 && i < records.size(); ++k, ++i)
            generations[k] = EntityIndex::is_reserved(records[i]) ? EntityIndex::next_generation(records[i].generation)
                                                                  : records[i].generation;
        w.u32_array(generations, k);
    }
    w.u32(static_cast<uint32_t>(free_list.size()));
    w.u32_array(free_list.data(), free_list.size());
    if (version < 2) return;

    // Resource table, then the body's checksum.
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
            write_next_pending();
        }
    }
    w.raw(sections.data(), sections.size());
    write_relation_section(relation_plan, w); // [relations]
    extra_sections.write(w); // [enable] [sparse] SPRS then ENBL
    ECS_ASSERT(w.written() == body, "serialize: body length miscounted (library bug)");
    w.u32(w.end_checksum());
}

} // namespace detail

/**
 * @brief Writes a binary snapshot of `world` to `out` (format version 2: SPEC.md §3.10.1 and its
 *        1.0 addition).
 *
 * Captures every entity slot (live and dead), generations, the free list in order, archetype
 * structure, component values and **[Addition]** the resources whose types were given a name by
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
inline void serialize(const World& world, std::ostream& out) {
    detail::write_snapshot(world, out, SNAPSHOT_FORMAT_VERSION);
}

/**
 * @brief Rebuilds the world stored in a snapshot read from `in` into `world`.
 *
 * On success the world holds exactly the snapshot's entities: the same handles (a handle live before
 * serialize is live again, a stale one stays stale), component values, archetype structure, slot
 * generations and free list order (the next create() returns what it would have returned in the
 * serialized world). **[Addition]** Resources the snapshot holds (format 2: registered with
 * register_resource) are set in `world`, replacing a resource of the same type; its other resources,
 * observers and deferred commands are left alone. `on_add` hooks do NOT fire for the loaded
 * components: a snapshot restores state, it does not replay its creation.
 *
 * **[Addition]** Formats 1 and 2 are read. In format 2 the frame checksum is verified first, then
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
inline DeserializeResult deserialize(World& world, std::istream& in) {
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
    // [structural] A pending deferred create holds a reserved slot that loading would hand out again.
    if (!ECS_CHECK(WorldAccess::reserved_count(world) == 0,
                   "deserialize: target world has handles reserved by deferred creations (flush_deferred() first)")) {
        refused.error = DeserializeError::target_not_empty;
        refused.message = "deserialize: target world has pending deferred creations";
        return refused;
    }
    std::streambuf* source = in.rdbuf();
    if (source == nullptr || in.fail()) {
        refused.error = DeserializeError::truncated;
        refused.message = "input stream is not readable (no buffer or failbit set) (at byte 0)";
        return refused;
    }

    uint64_t remaining = 0;
    detail::SlurpedInput memory;
    detail::MemoryStreamBuf memory_buf;
    if (!detail::stream_remaining(*source, remaining)) {
        memory.read_all(*source);
        memory_buf.view(memory.data(), memory.size());
        source = &memory_buf;
        remaining = memory.size();
    }

    detail::SnapshotReader reader(source, remaining);
    DeserializeResult result;
    {
        detail::SnapshotLoader loader(world, reader);
        result = loader.run();
    } // a failed load is rolled back here
    if (!result) in.setstate(std::ios_base::failbit);
    return result;
}

} // namespace ecs

#include "relation_snapshot.hpp" // [relations] the relationship section, register_relation
