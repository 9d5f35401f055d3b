/**
 * @file ecs/detail/snapshot_loader.hpp
 * @brief Snapshot reading against a World: SnapshotLoader parses a snapshot (formats 1 and 2) into
 *        an empty world, all or nothing.
 *
 * The loader reads the frame, the archetype blocks and the entity table itself, and hands the
 * resource table and each extension section to the file that owns it (snapshot_resources.hpp,
 * snapshot_names.hpp, relation_snapshot.hpp, snapshot_sparse.hpp, snapshot_enable.hpp), through
 * the state they share (SnapshotLoadState, snapshot_context.hpp). deserialize() (serialization.hpp)
 * runs it; include <ecs/serialization.hpp>, not this file.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "stream.hpp"
#include "../archetype.hpp"
#include "../component.hpp"
#include "../entity.hpp"
#include "../world.hpp"
#include "algorithms.hpp"
#include "component_registry.hpp"
#include "relation_snapshot.hpp"
#include "snapshot_context.hpp"
#include "snapshot_enable.hpp"
#include "snapshot_io.hpp"
#include "snapshot_names.hpp"
#include "snapshot_registry.hpp"
#include "snapshot_resources.hpp"
#include "snapshot_sparse.hpp"

namespace ecs {

namespace detail {

/**
 * Parses one snapshot into a World. Components are constructed directly in the archetypes' column
 * storage; rows become visible (entities assigned to the archetype) only once all their columns are
 * constructed, and records / free list are written only after everything validated. Until commit(),
 * the destructor undoes everything: completed archetypes are cleared (each of their objects
 * destroyed once) and the columns of a half-built archetype are destroyed up to exactly the rows
 * constructed, so the world is left with no entities, as it was.
 */
template <class D = void>
class SnapshotLoader : private SnapshotLoadState<> {
public:
    SnapshotLoader(World& world, SnapshotReader<>& reader) noexcept : SnapshotLoadState<>(world, reader) {}
    SnapshotLoader(const SnapshotLoader<>&) = delete;
    SnapshotLoader<>& operator=(const SnapshotLoader<>&) = delete;
    ~SnapshotLoader() {
        if (!committed_) roll_back();
    }

    DeserializeResult run() {
        sync_relation_tags(); // the HasRelation tags' names, before any archetype is read
        if (!read_header()) return std::move(result_);
        if (version_ >= 2) in_.limit(body_length_); // verified: the body ends exactly there
        if (!read_counts() || !read_archetypes() || !read_entity_table()) return std::move(result_);
        if (version_ >= 2 && !read_trailer()) return std::move(result_);
        if (!check_relation_tags(filled_, slot_count_, relations_, result_)) return std::move(result_);
        commit();
        result_.offset = in_.offset();
        return std::move(result_);
    }

private:
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
        using Buf = Dependent<D, std::streambuf>;
        using Ios = Dependent<D, std::ios_base>;
        using Pos = typename Buf::pos_type;
        Buf* sb = in_.source();
        const uint64_t body_at = in_.offset();
        const char* next = GetArea<D>::next(sb);
        if (uint64_t(GetArea<D>::end(sb) - next) >= body_length_ + 4 && body_length_ + 4 > body_length_) {
            const unsigned char* body = reinterpret_cast<const unsigned char*>(next);
            const uint32_t stored = get_u32(body + body_length_);
            body_at_ = body_at;
            scanned_ = true;
            if (scan_.run(body, body_length_) != stored)
                return fail(DeserializeError::checksum_mismatch, body_at + body_length_,
                            "body checksum mismatch (the snapshot is damaged)");
            return true;
        }
        const Pos here = sb->pubseekoff(0, Ios::cur, Ios::in);
        if (here == Pos(typename Buf::off_type(-1))) return truncated(body_at, "input cannot seek back to the body");
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
        if (sb->pubseekpos(here, Ios::in) != here)
            return truncated(body_at, "input cannot seek back to the body");
        if (crc.value() != get_u32(stored))
            return fail(DeserializeError::checksum_mismatch, body_at + body_length_,
                        "body checksum mismatch (the snapshot is damaged)");
        return true;
    }

    /// Format 2, after the entity table: the resource table, then the optional sections, which must end
    /// the body exactly (snapshot_sections.hpp), then the body checksum (already verified).
    bool read_trailer() {
        if (!read_resource_table(*this, resources_)) return false;
        while (in_.remaining() != 0) // extension sections: until the body ends
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
        LimitedStreamBuf<D> limited(in_.source(), bytes);
        Dependent<D, std::istream> element_in(&limited);
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
            if (generations_[i] == 0 || generations_[i] > EntityIndex::MAX_GENERATION)
                return fail(DeserializeError::bad_generation, generations_at + uint64_t(i) * 4,
                            "slot " + std::to_string(i) + (generations_[i] == 0 ? " has generation 0"
                                                                               : " has a generation beyond this build's (ECS_COMPACT_RECORDS: 16 bits)"));
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
     * "NAME" (entity names, snapshot_names.hpp), "RELS" (relationship pairs, relation_snapshot.hpp),
     * "SPRS" (sparse components, snapshot_sparse.hpp) and "ENBL" (enable bits, snapshot_enable.hpp;
     * after "SPRS" when both are present).
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
        if (std::memcmp(tag, "NAME", 4) == 0) ok = read_names_section(*this, length, pending_names_);
        else if (std::memcmp(tag, "RELS", 4) == 0)
            ok = read_relation_section(in_, length, slot_state_, SLOT_LIVE, generations_, relations_, result_);
        else if (std::memcmp(tag, "SPRS", 4) == 0) { // before "ENBL", which may flag sparse values
            if (seen_section("ENBL")) return fail(DeserializeError::bad_section, at, "\"SPRS\" after \"ENBL\"");
            ok = read_sparse_section(*this);
        } else if (std::memcmp(tag, "ENBL", 4) == 0) {
            WorldAccess::note_disabled(world_); // before any bit is set (harmless if the load fails)
            ok = read_enable_section(*this);
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

    void commit() {
        auto& records = WorldAccess::records(world_);
        records.assign(slot_count_, EntityRecord{});
        for (uint32_t i = 0; i < slot_count_; ++i) records[i].generation = static_cast<decltype(EntityRecord::generation)>(generations_[i]); // checked <= MAX_GENERATION
        for (Archetype* arch : filled_) {
            const auto& list = arch->entities;
            for (size_t r = 0; r < list.size(); ++r) {
                records[list[r].index].archetype = arch;
                records[list[r].index].row = static_cast<uint32_t>(r);
            }
        }
        WorldAccess::set_free_list(world_, free_list_);
        WorldAccess::set_alive_count(world_, live_);
        install_relations(world_, relations_);
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
        if (touched_sparse_) // every sparse member came from this snapshot (the world had no live entity)
            if (SparseRoom* room = WorldAccess::sparse(world_)) room->clear();
        for (PendingResource& p : resources_) {
            if (p.constructed) p.registration->destroy(p.storage);
            ::operator delete(p.storage, std::align_val_t(p.registration->align));
        }
        resources_.clear();
    }

    std::vector<PendingName> pending_names_;   ///< the "NAME" section, set by commit()
    std::vector<std::string> sections_seen_; ///< tags read so far: each section at most once
    uint32_t version_ = 0;
    uint64_t body_length_ = 0;            ///< format 2
    BodyScan<> scan_;                       ///< format 2 in memory: the checksum pass's copies
    bool scanned_ = false;                ///< scan_ ran over the body, which starts at body_at_
    uint64_t body_at_ = 0;
    std::vector<PendingResource> resources_; ///< format 2, in snapshot order
    uint32_t archetype_count_ = 0;
    size_t live_ = 0;
    std::vector<uint8_t> archetype_used_; ///< by archetype id: filled by this snapshot
    std::vector<const ComponentRegistration*> plans_; ///< the current block's components, in snapshot order
    TypeSet plan_ids_;                                ///< their ids, same order
    std::vector<uint64_t> filled_offsets_;            ///< where each one's entity list starts in the snapshot
    Archetype* partial_ = nullptr;        ///< archetype whose columns are being constructed
    std::vector<uint32_t> partial_rows_;  ///< per column of partial_: rows constructed so far
    std::vector<uint32_t> free_list_;
    std::vector<PendingRelation> relations_; ///< relationship pairs read, installed by commit()
    bool committed_ = false;
};

} // namespace detail

} // namespace ecs
