/**
 * @file ecs/detail/change_stream.hpp
 * @brief Change streams (SPEC §3.27): write_changes (serialize_changes) and ChangeApplier
 *        (apply_changes): what changed in a world since a tick, as a framed, checksummed stream.
 *
 * What a stream holds, given `since`:
 * - every entity slot whose structure changed after `since` (the entity index's structure stamps:
 *   created, destroyed, a component added or removed, renamed, related, enabled or disabled): a dead
 *   slot as its generation and free-list link, a live one whole (every component value, its
 *   disabled flags, the entity's enable bit, its name, its relationship targets in order);
 * - for every other live entity, the values of tracked types (track_changes) written after `since`;
 * - the slot count and the free-list head, so the receiver's next create() matches the sender's.
 * Untracked values written without a structural change are not seen (they carry no tick).
 *
 * Layout (all integers little-endian):
 *
 *     "ECSC", u32 version (1), u64 body length, u32 CRC-32C of these 16 bytes
 *     body:
 *       u32 since, u32 until (the sender's clock when written)
 *       u32 name count; per name: u32 length, bytes (registered component names)
 *       u32 slot count, u32 free-list head
 *       u32 slot records; per record: u32 index, u32 generation, u8 state
 *         state 0 (dead): u32 free-list link
 *         state 1 (live): u8 entity enabled, u32 components; per component: u32 name, u8 disabled,
 *                         u32 payload length, payload; u32 name length, name bytes;
 *                         u32 relationship types; per type: u32 name, u32 targets, per target: u32 index, u32 generation
 *       u32 value groups; per group: u32 name, u32 rows; per row: u32 index, u32 generation,
 *                         u32 payload length, payload
 *     u32 CRC-32C of the body
 *
 * Payloads: the registered serialize function's bytes, or the object representation for types
 * registered without functions (as snapshot columns).
 *
 * Reading is all or nothing: the frame and the body are checked (length, both checksums), then the
 * whole body is parsed, every value deserialized into storage of its own and every handle checked
 * against the target world, before the world is touched. Only then are the changes applied.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../archetype.hpp"
#include "../component.hpp"
#include "../entity.hpp"
#include "../entity_index.hpp"
#include "../relation.hpp"
#include "../sparse.hpp"
#include "../world.hpp"
#include "algorithms.hpp"
#include "atomic_slot.hpp"
#include "component_registry.hpp"
#include "snapshot_io.hpp"
#include "snapshot_registry.hpp"
#include "stream.hpp"
#include "world_access.hpp"

namespace ecs {

/// Version of the change stream format written by serialize_changes().
inline constexpr uint32_t CHANGE_STREAM_VERSION = 1;

namespace detail {

inline constexpr char CHANGE_MAGIC[4] = {'E', 'C', 'S', 'C'};
inline constexpr size_t CHANGE_HEADER = 20; ///< magic, version, body length, header checksum

/// The relationship type whose relation component (R itself) has id `relation`, or nullptr.
template <class = void>
inline const RelationTypeInfo* relation_type_of_relation(ComponentTypeID relation) {
    const RelationTypeInfo* found = nullptr;
    each_relation_type([&](const RelationTypeInfo& info) {
        if (info.relation == relation) found = &info;
    });
    return found;
}

/// Builds the body of a change stream (see the file comment).
template <class D = void>
class ChangeWriter {
public:
    ChangeWriter(const World& world, uint32_t since) : world_(world), since_(since) {
        table_.assign(ECS_MAX_COMPONENTS, NONE);
        values_ = std::move(scratch()); // the previous stream's buffer: no regrowth per call
        values_.clear();
    }
    ~ChangeWriter() {
        if (values_.capacity() <= KEEP_BYTES) scratch() = std::move(values_); // else freed here
    }
    ChangeWriter(const ChangeWriter<>&) = delete;
    ChangeWriter<>& operator=(const ChangeWriter<>&) = delete;

    /// False (message set) when something cannot be written: an unregistered type.
    bool build() {
        const EntityIndex& index = WorldAccess::entities(world_);
        const uint32_t until = WorldAccess::graph(world_).clock()->now; // the tick serialize_changes closes
        head_.u32(since_);
        head_.u32(until);
        records_.u32(static_cast<uint32_t>(index.size()));
        records_.u32(index.free_head());
        // Slot records.
        uint32_t count = 0;
        const size_t record_count_at = records_.bytes.size();
        records_.u32(0);
        bool ok = true;
        index.each_stamped_after(since_, [&](uint32_t i) {
            if (!ok || i == 0) return;
            ok = slot_record(index, i);
            ++count;
        });
        if (!ok) return false;
        put_u32(reinterpret_cast<unsigned char*>(&records_.bytes[record_count_at]), count);
        // Values of tracked types on entities whose structure did not change (the body's last part).
        value_u32(0); // the group count, patched below
        groups_ = 0;
        for (const Archetype* a : WorldAccess::archetypes(world_)) {
            if (a->size() == 0 || !a->ticks.active()) continue;
            for (size_t c = 0; c < a->columns.size(); ++c) {
                const TickColumn* ticks = a->ticks.column(c);
                if (ticks == nullptr || (ticks->max_added <= since_ && ticks->max_changed <= since_)) continue;
                if (!value_group(index, *a, a->columns[c], *ticks)) return false;
            }
        }
        if (const SparseRoom* room = WorldAccess::sparse(world_)) {
            for (const ComponentTypeID id : room->ids()) {
                const SparseSet& set = *room->set(id);
                if (!set.ticks_active() || set.size() == 0) continue;
                std::vector<uint32_t> members;
                set.each([&](uint32_t slot_index, const void*) {
                    const uint32_t slot = set.slot_of(slot_index) - 1;
                    if (set.added_tick(slot) <= since_ && set.changed_tick(slot) <= since_) return;
                    if (index.stamped_after(slot_index, since_)) return;
                    members.push_back(slot_index);
                });
                if (members.empty()) continue;
                if (!sparse_group(set, members)) return false;
                ++groups_;
            }
        }
        put_u32(values_.data(), groups_);
        return true;
    }

    /// Writes the frame and the body to `out`.
    void write(Dependent<D, std::ostream>& out) const {
        SectionBytes<> names;
        names.u32(static_cast<uint32_t>(names_.size()));
        for (const std::string* n : names_) names.name(*n);
        const uint64_t body = head_.bytes.size() + names.bytes.size() + records_.bytes.size() + values_.size();
        unsigned char header[CHANGE_HEADER];
        std::memcpy(header, CHANGE_MAGIC, 4);
        put_u32(header + 4, CHANGE_STREAM_VERSION);
        put_u64(header + 8, body);
        put_u32(header + 16, Crc32c::of(header, 16));
        out.write(reinterpret_cast<const char*>(header), CHANGE_HEADER);
        Crc32c crc;
        const std::string* parts[3] = {&head_.bytes, &names.bytes, &records_.bytes};
        for (const std::string* part : parts) {
            out.write(part->data(), static_cast<std::streamsize>(part->size()));
            crc.update(part->data(), part->size());
        }
        out.write(reinterpret_cast<const char*>(values_.data()), static_cast<std::streamsize>(values_.size()));
        crc.update(values_.data(), values_.size());
        unsigned char trailer[4];
        put_u32(trailer, crc.value());
        out.write(reinterpret_cast<const char*>(trailer), 4);
    }

    [[nodiscard]] const std::string& message() const noexcept { return message_; }

private:
    static constexpr uint32_t NONE = 0xFFFFFFFFu;
    static constexpr size_t KEEP_BYTES = size_t(1) << 20; ///< a larger buffer is not kept for the next call

    /// This thread's value buffer between calls (a stream a frame, the capacity stays).
    static PodArray<unsigned char>& scratch() {
        static thread_local PodArray<unsigned char> buffer;
        return buffer;
    }
    /// Appends a little-endian u32 to the value groups.
    void value_u32(uint32_t v) { put_u32(values_.extend(4), v); }

    /// The index of `id`'s name in the name table (added on first use); NONE when unregistered.
    uint32_t name_of(ComponentTypeID id) {
        if (table_[id] != NONE) return table_[id];
        const ComponentRegistration* reg = component_registry().find(id);
        if (reg == nullptr) {
            message_ = "serialize_changes: component type " + std::string(component_info(id).name) +
                       " has no name (call ecs::register_component<T>(name) first)";
            return NONE;
        }
        table_[id] = static_cast<uint32_t>(names_.size());
        names_.push_back(&reg->name);
        regs_.push_back(reg);
        return table_[id];
    }

    /// The bytes of one value's payload: `size` and `data` (into `sink_` for types with functions).
    const char* payload_bytes(const ComponentRegistration* reg, const void* value, size_t& size) {
        if (reg->element_size == 0) {
            size = 0;
            return nullptr;
        }
        if (reg->bulk) {
            size = reg->element_size;
            return static_cast<const char*>(value);
        }
        sink_.clear();
        Dependent<D, std::ostream> os(&sink_);
        reg->serialize(os, value);
        if (!os) failed_ = true;
        size = sink_.size();
        return sink_.data();
    }
    /// Appends one value's payload (length first) to the slot records.
    void payload(ComponentTypeID id, const void* value) {
        size_t size = 0;
        const char* bytes = payload_bytes(regs_[table_[id]], value, size);
        records_.u32(static_cast<uint32_t>(size));
        if (size != 0) records_.bytes.append(bytes, size);
    }
    /// Appends one row of a value group: the handle, the payload's length, the payload.
    void value_row(Entity e, const ComponentRegistration* reg, const void* value) {
        if (reg->bulk || reg->element_size == 0) { // fixed size: one extension, inline copies
            const size_t size = reg->element_size;
            unsigned char* out = values_.extend(12 + size);
            put_u32(out, e.index);
            put_u32(out + 4, e.generation);
            put_u32(out + 8, static_cast<uint32_t>(size));
            if (size != 0) ComponentColumn::copy_bytes(out + 12, value, size);
            return;
        }
        size_t size = 0;
        const char* bytes = payload_bytes(reg, value, size);
        unsigned char* out = values_.extend(12);
        put_u32(out, e.index);
        put_u32(out + 4, e.generation);
        put_u32(out + 8, static_cast<uint32_t>(size));
        values_.append(reinterpret_cast<const unsigned char*>(bytes), size);
    }

    bool slot_record(const EntityIndex& index, uint32_t i) {
        const EntityRecord& r = index[i];
        records_.u32(i);
        records_.u32(r.generation);
        if (!r.live()) {
            records_.bytes.push_back(0);
            records_.u32(EntityIndex::is_reserved(r) ? 0u : r.row);
            return true;
        }
        records_.bytes.push_back(1);
        const Entity e{i, r.generation};
        const Archetype& a = *r.archetype;
        records_.bytes.push_back(world_.enabled(e) ? 1 : 0);
        const size_t count_at = records_.bytes.size();
        records_.u32(0);
        uint32_t count = 0;
        for (const ComponentColumn& c : a.columns) {
            if (relation_type_of_marker(c.type_id) != nullptr) continue; // the pairs below bring it
            if (name_of(c.type_id) == NONE) return false;
            records_.u32(table_[c.type_id]);
            records_.bytes.push_back(a.disabled(c.type_id, r.row) ? 1 : 0);
            payload(c.type_id, c.is_tag ? nullptr : c.at(r.row));
            ++count;
        }
        if (const SparseRoom* room = WorldAccess::sparse(world_)) {
            for (const ComponentTypeID id : room->ids()) {
                const SparseSet& set = *room->set(id);
                if (!set.contains(i)) continue;
                if (name_of(id) == NONE) return false;
                records_.u32(table_[id]);
                records_.bytes.push_back(set.disabled(i) ? 1 : 0);
                payload(id, set.find(i));
                ++count;
            }
        }
        put_u32(reinterpret_cast<unsigned char*>(&records_.bytes[count_at]), count);
        records_.name(std::string(WorldAccess::names(world_).name_of(i)));
        const size_t types_at = records_.bytes.size();
        records_.u32(0);
        uint32_t types = 0;
        bool ok = true;
        WorldAccess::relations(world_).each_index([&](const RelationIndex& rel) {
            const uint32_t n = rel.target_count(i);
            if (n == 0 || !ok) return;
            if (name_of(rel.info().relation) == NONE) {
                ok = false;
                return;
            }
            records_.u32(table_[rel.info().relation]);
            records_.u32(n);
            const LinkList& targets = *rel.targets_of(i);
            for (uint32_t k = 0; k < n; ++k) {
                records_.u32(targets[k].other.index);
                records_.u32(targets[k].other.generation);
            }
            ++types;
        });
        put_u32(reinterpret_cast<unsigned char*>(&records_.bytes[types_at]), types);
        return ok && !failed_;
    }

    /// The rows of column `c` newer than `since` on entities whose structure did not change (those
    /// are sent whole): a group header, then per row the handle and the payload. Nothing when no row
    /// qualifies. The rows are written as they are found (the count is patched in afterwards).
    bool value_group(const EntityIndex& index, const Archetype& a, const ComponentColumn& c, const TickColumn& ticks) {
        const size_t header_at = values_.size();
        uint32_t rows = 0;
        const ComponentRegistration* reg = nullptr;
        bool named = true;
        ticks.each_newer(since_, [&](size_t row) {
            const Entity e = a.entities[row];
            if (!named || index.stamped_after(e.index, since_)) return; // sent whole with its slot
            if (rows == 0) { // the header, once a row qualifies
                if (name_of(c.type_id) == NONE) {
                    named = false;
                    return;
                }
                reg = regs_[table_[c.type_id]];
                value_u32(table_[c.type_id]);
                value_u32(0); // the row count, patched below
            }
            ++rows;
            value_row(e, reg, c.is_tag ? nullptr : c.at(row));
        });
        if (!named) return false;
        if (rows == 0) return true;
        put_u32(values_.data() + header_at + 4, rows);
        ++groups_;
        return !failed_;
    }

    bool sparse_group(const SparseSet& set, const std::vector<uint32_t>& members) {
        const ComponentTypeID id = set.type_id();
        if (name_of(id) == NONE) return false;
        value_u32(table_[id]);
        value_u32(static_cast<uint32_t>(members.size()));
        const ComponentRegistration* reg = regs_[table_[id]];
        for (const uint32_t i : members) value_row(Entity{i, WorldAccess::generation(world_, i)}, reg, set.find(i));
        return !failed_;
    }

    const World& world_;
    uint32_t since_;
    SectionBytes<> head_, records_;    ///< the ticks; the slot table and slot records
    PodArray<unsigned char> values_; ///< the value groups (last in the body)
    std::vector<uint32_t> table_;                  ///< component id -> name index, NONE
    std::vector<const std::string*> names_;        ///< the name table
    std::vector<const ComponentRegistration*> regs_;
    uint32_t groups_ = 0; ///< value groups written
    ByteSink<D> sink_;
    std::string message_;
    bool failed_ = false; ///< a serialize function set failbit
};

/// One value read from a change stream, constructed in storage of its own until it is placed.
template <class = void>
class StagedValue {
public:
    StagedValue(ComponentTypeID id, const ComponentColumn& ops) : id_(id), ops_(ops) {
        if (ops_.type_size != 0 && !ops_.is_tag)
            ptr_ = ::operator new(ops_.type_size, std::align_val_t(ops_.elem_align));
    }
    StagedValue(StagedValue<>&& o) noexcept : id_(o.id_), ops_(o.ops_), ptr_(o.ptr_), live_(o.live_) {
        o.ptr_ = nullptr;
        o.live_ = false;
    }
    StagedValue(const StagedValue<>&) = delete;
    StagedValue<>& operator=(const StagedValue<>&) = delete;
    StagedValue<>& operator=(StagedValue<>&&) = delete;
    ~StagedValue() {
        if (live_) ops_.destroy_at(ptr_);
        if (ptr_ != nullptr) ::operator delete(ptr_, std::align_val_t(ops_.elem_align));
    }
    [[nodiscard]] ComponentTypeID id() const noexcept { return id_; }
    [[nodiscard]] const ComponentColumn& ops() const noexcept { return ops_; }
    [[nodiscard]] void* get() const noexcept { return ptr_; }
    [[nodiscard]] bool tag() const noexcept { return ptr_ == nullptr; }
    void set_live() noexcept { live_ = true; }
    /// The value was relocated elsewhere: nothing is left to destroy here.
    void forget() noexcept { live_ = false; }
    /// Ends the value's life here by moving it into uninitialised `dst`.
    void relocate_to(void* dst) noexcept {
        ops_.relocate(dst, ptr_);
        live_ = false;
    }

private:
    ComponentTypeID id_;
    ComponentColumn ops_;
    void* ptr_ = nullptr;
    bool live_ = false;
};

/// Bounded little-endian reads over the body in memory; `at()` is the offset in the stream.
template <class = void>
class ChangeCursor {
public:
    ChangeCursor(const unsigned char* p, size_t n, uint64_t base) noexcept : p_(p), end_(p + n), begin_(p), base_(base) {}
    bool u32(uint32_t& v) noexcept {
        if (end_ - p_ < 4) return false;
        v = get_u32(p_);
        p_ += 4;
        return true;
    }
    bool u8(uint8_t& v) noexcept {
        if (p_ == end_) return false;
        v = *p_++;
        return true;
    }
    bool bytes(size_t n, const unsigned char*& out) noexcept {
        if (size_t(end_ - p_) < n) return false;
        out = p_;
        p_ += n;
        return true;
    }
    [[nodiscard]] size_t left() const noexcept { return size_t(end_ - p_); }
    [[nodiscard]] uint64_t at() const noexcept { return base_ + uint64_t(p_ - begin_); }

private:
    const unsigned char* p_;
    const unsigned char* end_;
    const unsigned char* begin_;
    uint64_t base_;
};

/**
 * @brief apply_changes: reads a whole change stream, checks it against the target world, then
 *        applies it (see the file comment). run() returns the outcome; on error nothing was changed.
 */
template <class D = void>
class ChangeApplier {
public:
    ChangeApplier(World& world, Dependent<D, std::istream>& in) : world_(world), in_(in) {}

    DeserializeResult run() {
        if (!read_frame() || !parse() || !check()) return result_;
        apply();
        result_.offset = CHANGE_HEADER + body_size_ + 4;
        return result_;
    }

private:
    struct Comp {
        uint32_t staged;
        bool disabled;
    };
    struct Rel {
        const RelationTypeInfo* info;
        uint32_t first, count; ///< into targets_
    };
    struct SlotPlan {
        uint32_t index = 0, generation = 0, link = 0;
        bool live = false, enabled = true;
        uint32_t comp_first = 0, comp_count = 0, rel_first = 0, rel_count = 0;
        std::string name;
    };
    struct ValuePlan {
        Entity entity;
        uint32_t staged;
    };

    bool fail(DeserializeError error, uint64_t at, const std::string& what) { return load_failure(result_, error, at, what); }
    bool truncated(uint64_t at, const char* what) {
        return fail(DeserializeError::truncated, at, std::string("change stream truncated: ") + what);
    }

    bool read_frame() {
        Dependent<D, std::streambuf>* source = in_.rdbuf();
        if (source == nullptr || in_.fail()) return truncated(0, "input stream is not readable");
        unsigned char header[CHANGE_HEADER];
        if (source->sgetn(reinterpret_cast<char*>(header), CHANGE_HEADER) != std::streamsize(CHANGE_HEADER))
            return truncated(0, "missing header");
        if (std::memcmp(header, CHANGE_MAGIC, 4) != 0) return fail(DeserializeError::bad_magic, 0, "not a change stream (magic ECSC expected)");
        if (Crc32c::of(header, 16) != get_u32(header + 16))
            return fail(DeserializeError::checksum_mismatch, 16, "change stream header checksum mismatch");
        const uint32_t version = get_u32(header + 4);
        if (version != CHANGE_STREAM_VERSION)
            return fail(DeserializeError::unsupported_version, 4, "unsupported change stream version " + std::to_string(version));
        body_size_ = get_u64(header + 8);
        uint64_t remaining = 0;
        if (stream_remaining(*source, remaining) && remaining < body_size_ + 4)
            return truncated(CHANGE_HEADER, "the body is longer than the stream");
        if (body_size_ > (uint64_t(1) << 40)) return truncated(CHANGE_HEADER, "body length out of range");
        // Read in bounded steps: a hostile length allocates no more than the stream delivers.
        body_.clear();
        uint64_t want = body_size_ + 4;
        char chunk[1 << 16];
        while (want != 0) {
            const std::streamsize step = static_cast<std::streamsize>(want < sizeof chunk ? want : sizeof chunk);
            const std::streamsize got = source->sgetn(chunk, step);
            if (got <= 0) return truncated(CHANGE_HEADER + body_.size(), "the stream ends inside the body");
            body_.append(chunk, static_cast<size_t>(got));
            want -= static_cast<uint64_t>(got);
        }
        const unsigned char* bytes = reinterpret_cast<const unsigned char*>(body_.data());
        if (Crc32c::of(bytes, size_t(body_size_)) != get_u32(bytes + body_size_))
            return fail(DeserializeError::checksum_mismatch, CHANGE_HEADER + body_size_, "change stream body checksum mismatch");
        return true;
    }

    /// Reads one payload of type `id` into a staged value.
    bool stage(ChangeCursor<>& c, uint32_t name, uint32_t& staged_at) {
        const uint64_t at = c.at();
        uint32_t length = 0;
        const unsigned char* bytes = nullptr;
        if (!c.u32(length) || !c.bytes(length, bytes)) return truncated(at, "missing component payload");
        const ComponentRegistration* reg = regs_[name];
        const ComponentTypeID id = ids_[name];
        const ColumnFactory factory = column_factory(id);
        if (factory == nullptr) return fail(DeserializeError::unknown_component, at, "component " + reg->name + " has no storage");
        staged_.emplace_back(id, factory());
        StagedValue<>& v = staged_.back();
        staged_at = static_cast<uint32_t>(staged_.size() - 1);
        if (reg->element_size == 0 || v.tag()) {
            if (length != 0) return fail(DeserializeError::column_size_mismatch, at, "tag " + reg->name + " with a payload");
            return true;
        }
        if (reg->bulk) {
            if (length != reg->element_size)
                return fail(DeserializeError::column_size_mismatch, at,
                            "component " + reg->name + " payload of " + std::to_string(length) + " bytes, expected " +
                                std::to_string(reg->element_size));
            std::memcpy(v.get(), bytes, length);
            v.set_live();
            return true;
        }
        MemoryStreamBuf<D> view;
        view.view(const_cast<char*>(reinterpret_cast<const char*>(bytes)), length);
        Dependent<D, std::istream> is(&view);
        reg->deserialize(is, v.get());
        if (is.fail()) return fail(DeserializeError::deserializer_failed, at, "the deserializer of " + reg->name + " failed");
        v.set_live();
        if (view.pubseekoff(0, Dependent<D, std::ios_base>::cur, Dependent<D, std::ios_base>::in) != std::streampos(std::streamoff(length)))
            return fail(DeserializeError::column_size_mismatch, at, "the deserializer of " + reg->name + " left bytes unread");
        return true;
    }

    bool parse() {
        ChangeCursor<> c(reinterpret_cast<const unsigned char*>(body_.data()), size_t(body_size_), CHANGE_HEADER);
        uint32_t names = 0;
        if (!c.u32(since_) || !c.u32(until_) || !c.u32(names)) return truncated(c.at(), "missing ticks or name count");
        if (uint64_t(names) * 4 > c.left()) return truncated(c.at(), "name count exceeds the body");
        for (uint32_t i = 0; i < names; ++i) {
            const uint64_t at = c.at();
            uint32_t length = 0;
            const unsigned char* bytes = nullptr;
            if (!c.u32(length) || length > MAX_COMPONENT_NAME_LENGTH || !c.bytes(length, bytes))
                return fail(DeserializeError::bad_name, at, "bad component name");
            const std::string name(reinterpret_cast<const char*>(bytes), length);
            ComponentTypeID id = INVALID_COMPONENT_ID;
            const ComponentRegistration* reg = component_registry().find(name, id);
            if (reg == nullptr) return fail(DeserializeError::unknown_component, at, "unknown component \"" + name + "\"");
            for (const ComponentTypeID seen : ids_)
                if (seen == id) return fail(DeserializeError::duplicate_component, at, "component \"" + name + "\" named twice");
            ids_.push_back(id);
            regs_.push_back(reg);
        }
        if (!c.u32(slot_count_) || !c.u32(free_head_)) return truncated(c.at(), "missing slot table");
        uint32_t records = 0;
        if (!c.u32(records)) return truncated(c.at(), "missing slot record count");
        if (uint64_t(records) * 13 > c.left()) return truncated(c.at(), "slot record count exceeds the body");
        slots_.reserve(records);
        for (uint32_t k = 0; k < records; ++k)
            if (!parse_slot(c)) return false;
        uint32_t groups = 0;
        if (!c.u32(groups)) return truncated(c.at(), "missing value group count");
        if (uint64_t(groups) * 8 > c.left()) return truncated(c.at(), "value group count exceeds the body");
        for (uint32_t g = 0; g < groups; ++g) {
            const uint64_t at = c.at();
            uint32_t name = 0, rows = 0;
            if (!c.u32(name) || !c.u32(rows)) return truncated(at, "missing value group");
            if (name >= ids_.size()) return fail(DeserializeError::bad_name, at, "value group names no listed component");
            if (uint64_t(rows) * 12 > c.left()) return truncated(at, "row count exceeds the body");
            for (uint32_t r = 0; r < rows; ++r) {
                ValuePlan v;
                if (!c.u32(v.entity.index) || !c.u32(v.entity.generation)) return truncated(c.at(), "missing row handle");
                if (!stage(c, name, v.staged)) return false;
                values_.push_back(v);
            }
        }
        if (c.left() != 0) return fail(DeserializeError::bad_count, c.at(), "bytes after the last value group");
        return true;
    }

    bool parse_slot(ChangeCursor<>& c) {
        const uint64_t at = c.at();
        SlotPlan s;
        uint8_t state = 0;
        if (!c.u32(s.index) || !c.u32(s.generation) || !c.u8(state)) return truncated(at, "missing slot record");
        if (s.index == 0 || s.index >= slot_count_) return fail(DeserializeError::entity_out_of_range, at, "slot record out of range");
        if (!slots_.empty() && s.index <= slots_.back().index)
            return fail(DeserializeError::duplicate_entity, at, "slot records out of order or repeated");
        if (s.generation == 0) return fail(DeserializeError::bad_generation, at, "generation 0");
        if (s.generation > EntityIndex::MAX_GENERATION)
            return fail(DeserializeError::bad_generation, at, "generation beyond this build's (ECS_COMPACT_RECORDS: 16 bits)");
        if (state > 1) return fail(DeserializeError::bad_count, at, "bad slot state");
        s.live = state == 1;
        if (!s.live) {
            if (!c.u32(s.link)) return truncated(at, "missing free-list link");
            if (s.link >= slot_count_) return fail(DeserializeError::bad_free_list, at, "free-list link out of range");
            slots_.push_back(std::move(s));
            return true;
        }
        uint8_t enabled = 1;
        uint32_t comps = 0;
        if (!c.u8(enabled) || enabled > 1 || !c.u32(comps)) return truncated(at, "missing entity record");
        s.enabled = enabled == 1;
        if (uint64_t(comps) * 9 > c.left()) return truncated(c.at(), "component count exceeds the body");
        s.comp_first = static_cast<uint32_t>(comps_.size());
        for (uint32_t k = 0; k < comps; ++k) {
            const uint64_t comp_at = c.at();
            uint32_t name = 0;
            uint8_t disabled = 0;
            if (!c.u32(name) || !c.u8(disabled)) return truncated(comp_at, "missing component");
            if (name >= ids_.size() || disabled > 1) return fail(DeserializeError::bad_name, comp_at, "component names no listed type");
            if (relation_type_of_marker(ids_[name]) != nullptr)
                return fail(DeserializeError::bad_relation, comp_at, "a relationship tag listed as a component");
            for (uint32_t j = s.comp_first; j < comps_.size(); ++j)
                if (staged_[comps_[j].staged].id() == ids_[name])
                    return fail(DeserializeError::duplicate_component, comp_at, "component listed twice on one entity");
            Comp comp{0, disabled == 1};
            if (!stage(c, name, comp.staged)) return false;
            comps_.push_back(comp);
        }
        s.comp_count = comps;
        uint32_t name_length = 0;
        const unsigned char* name = nullptr;
        if (!c.u32(name_length) || name_length > MAX_ENTITY_NAME_LENGTH || !c.bytes(name_length, name))
            return truncated(c.at(), "bad entity name");
        s.name.assign(reinterpret_cast<const char*>(name), name_length);
        uint32_t types = 0;
        if (!c.u32(types)) return truncated(c.at(), "missing relationship count");
        if (uint64_t(types) * 8 > c.left()) return truncated(c.at(), "relationship count exceeds the body");
        s.rel_first = static_cast<uint32_t>(rels_.size());
        for (uint32_t k = 0; k < types; ++k) {
            const uint64_t rel_at = c.at();
            uint32_t type = 0, n = 0;
            if (!c.u32(type) || !c.u32(n)) return truncated(rel_at, "missing relationship");
            if (type >= ids_.size()) return fail(DeserializeError::bad_name, rel_at, "relationship names no listed type");
            const RelationTypeInfo* info = relation_type_of_relation(ids_[type]);
            if (info == nullptr) return fail(DeserializeError::unknown_relation, rel_at, "not a relationship type: " + regs_[type]->name);
            for (uint32_t j = s.rel_first; j < rels_.size(); ++j)
                if (rels_[j].info == info) return fail(DeserializeError::bad_relation, rel_at, "relationship listed twice");
            if (n == 0 || (info->exclusive && n > 1) || uint64_t(n) * 8 > c.left())
                return fail(DeserializeError::bad_relation, rel_at, "bad target count");
            Rel rel{info, static_cast<uint32_t>(targets_.size()), n};
            for (uint32_t t = 0; t < n; ++t) {
                Entity target;
                (void)c.u32(target.index);
                (void)c.u32(target.generation);
                for (uint32_t j = rel.first; j < targets_.size(); ++j)
                    if (targets_[j] == target) return fail(DeserializeError::bad_relation, rel_at, "pair listed twice");
                targets_.push_back(target);
            }
            rels_.push_back(rel);
        }
        s.rel_count = types;
        slots_.push_back(std::move(s));
        return true;
    }

    /// The plan for slot `i`, or nullptr when its structure did not change.
    [[nodiscard]] const SlotPlan* plan_of(uint32_t i) const noexcept {
        size_t lo = 0, hi = slots_.size();
        while (lo < hi) {
            const size_t mid = (lo + hi) / 2;
            if (slots_[mid].index < i) lo = mid + 1;
            else hi = mid;
        }
        return lo < slots_.size() && slots_[lo].index == i ? &slots_[lo] : nullptr;
    }
    /// True when `e` is alive once the stream is applied.
    [[nodiscard]] bool alive_after(Entity e) const noexcept {
        if (e.index == 0 || e.index >= slot_count_) return false;
        if (const SlotPlan* s = plan_of(e.index)) return s->live && s->generation == e.generation;
        return world_.alive(e);
    }

    /// Everything that can be told before the world changes: the stream fits the world.
    bool check() {
        if (WorldAccess::iterating(world_))
            return fail(DeserializeError::target_iterating, 0, "apply_changes: the target world is iterating");
        const EntityIndex& index = WorldAccess::entities(world_);
        if (WorldAccess::reserved_count(world_) != 0)
            return fail(DeserializeError::base_mismatch, 0, "apply_changes: the target has pending deferred creations (flush_deferred() first)");
        if (slot_count_ < index.size())
            return fail(DeserializeError::base_mismatch, 0, "apply_changes: the target has more entity slots than the stream's world");
        // Slots the target does not have yet were created after `since`: each has a record.
        size_t new_records = 0;
        for (const SlotPlan& s : slots_) new_records += s.index >= index.size() ? 1u : 0u;
        if (new_records != slot_count_ - index.size())
            return fail(DeserializeError::base_mismatch, 0, "apply_changes: slots new to the target lack their records");
        // Values of untouched entities: alive in the target, holding the type.
        for (const ValuePlan& v : values_) {
            if (plan_of(v.entity.index) != nullptr || !world_.alive(v.entity) || !world_.has_raw(v.entity, staged_[v.staged].id()))
                return fail(DeserializeError::base_mismatch, 0,
                            "apply_changes: a changed value names entity " + std::to_string(v.entity.index) + "v" +
                                std::to_string(v.entity.generation) + ", which the target does not hold as the stream expects");
        }
        // Pairs end at entities alive afterwards; names are free afterwards.
        std::vector<std::string_view> names;
        for (const SlotPlan& s : slots_) {
            if (!s.live) continue;
            for (uint32_t r = s.rel_first; r < s.rel_first + s.rel_count; ++r)
                for (uint32_t t = rels_[r].first; t < rels_[r].first + rels_[r].count; ++t)
                    if (!alive_after(targets_[t]))
                        return fail(DeserializeError::dangling_relation, 0, "apply_changes: a pair names an entity that will not be alive");
            if (s.name.empty()) continue;
            names.push_back(s.name);
            const Entity holder = world_.lookup(s.name);
            if (holder != INVALID_ENTITY && plan_of(holder.index) == nullptr)
                return fail(DeserializeError::name_taken, 0, "apply_changes: name \"" + s.name + "\" belongs to another entity of the target");
        }
        sort_values(names.begin(), names.end());
        for (size_t i = 1; i < names.size(); ++i)
            if (names[i] == names[i - 1]) return fail(DeserializeError::name_taken, 0, "apply_changes: a name given twice");
        // Types a new component can be made of: copied, or default-constructed and then replaced.
        for (const SlotPlan& s : slots_)
            for (uint32_t k = s.comp_first; k < s.comp_first + s.comp_count; ++k) {
                const StagedValue<>& v = staged_[comps_[k].staged];
                if (!v.tag() && is_sparse_id(v.id()) && v.ops().copy == nullptr &&
                    default_constructors[v.id()].load(detail::order_acquire) == nullptr)
                    return fail(DeserializeError::deserializer_failed, 0,
                                "apply_changes: component " + regs_index_name(v.id()) +
                                    " can neither be copied nor default-constructed into an entity");
            }
        if (slots_.empty()) { // no slot changed: the free list is the target's own
            if (free_head_ != index.free_head())
                return fail(DeserializeError::base_mismatch, 0, "apply_changes: the free list differs from the target's, with no slot changed");
            return true;
        }
        return check_free_list(index);
    }

    std::string regs_index_name(ComponentTypeID id) const {
        for (size_t i = 0; i < ids_.size(); ++i)
            if (ids_[i] == id) return regs_[i]->name;
        return "?";
    }

    /// The free list after the stream: from its head through dead slots only, each once, and as
    /// long as the dead slots (the entity index's invariant).
    bool check_free_list(const EntityIndex& index) {
        size_t live = 0;
        for (uint32_t i = 1; i < slot_count_; ++i) {
            const SlotPlan* s = plan_of(i);
            live += s != nullptr ? (s->live ? 1u : 0u) : (i < index.size() && index[i].live() ? 1u : 0u);
        }
        std::vector<uint8_t> seen(slot_count_, 0);
        size_t free_slots = 0;
        for (uint32_t at = free_head_; at != 0;) {
            if (at >= slot_count_ || seen[at]) return fail(DeserializeError::bad_free_list, 0, "apply_changes: the free list loops or leaves the slots");
            seen[at] = 1;
            const SlotPlan* s = plan_of(at);
            if (s != nullptr ? s->live : index[at].live()) return fail(DeserializeError::bad_free_list, 0, "apply_changes: the free list holds a live slot");
            ++free_slots;
            at = s != nullptr ? s->link : index[at].row;
        }
        if (free_slots + live + 1 != slot_count_)
            return fail(DeserializeError::bad_free_list, 0, "apply_changes: the free list does not hold every dead slot");
        return true;
    }

    void apply() {
        // 1. Entities that die or are replaced by a newer generation.
        for (const SlotPlan& s : slots_) {
            if (s.index >= WorldAccess::entities(world_).size()) break;
            const Entity current{s.index, WorldAccess::generation(world_, s.index)};
            if (world_.alive(current) && (!s.live || current.generation != s.generation)) world_.destroy(current);
        }
        // 2. The slot table: generations, free-list links, new entities (empty until step 3).
        EntityIndex& index = WorldAccess::entities(world_);
        index.ensure_slots(slot_count_);
        for (const SlotPlan& s : slots_) {
            const Entity e{s.index, s.generation};
            if (s.live) {
                if (!world_.alive(e)) WorldAccess::revive(world_, e);
            } else {
                index.set_dead(s.index, s.generation, s.link);
            }
        }
        index.set_free_head(free_head_);
        // 3. Every live record made whole: types, values, flags, names, pairs.
        for (const SlotPlan& s : slots_)
            if (s.live && !s.name.empty()) {
                const Entity holder = world_.lookup(s.name);
                if (holder != INVALID_ENTITY) world_.set_name(holder, ""); // freed for its new holder
            }
        for (const SlotPlan& s : slots_)
            if (s.live) rebuild(s);
        // 4. Values of tracked types.
        for (const ValuePlan& v : values_) place(v.entity, staged_[v.staged]);
        if (ChangeClock* clock = WorldAccess::graph(world_).clock())
            if (clock->now <= until_) clock->now = until_ + 1; // change_tick() answers until_
        result_.tick = until_;
    }

    /// Puts `v` into `e` (replacing its value, or adding the component).
    void place(Entity e, StagedValue<>& v) {
        const ComponentTypeID id = v.id();
        if (!world_.alive(e)) return; // a hook destroyed it
        if (world_.has_raw(e, id)) {
            if (v.tag()) return;
            void* at = world_.get_raw(e, id); // stamps a change when `id` is tracked
            if (at == nullptr) return;
            v.ops().destroy_at(at);
            v.relocate_to(at);
            return;
        }
        if (v.tag()) {
            (void)world_.add_raw(e, id, nullptr);
            return;
        }
        if (!is_sparse_id(id)) { // moved in
            (void)WorldAccess::add_moved(world_, e, id, v.get());
            v.forget();
            return;
        }
        if (v.ops().copy != nullptr) {
            (void)world_.add_raw(e, id, v.get());
            return;
        }
        void* at = world_.add_raw(e, id, nullptr); // default-constructed, then replaced
        if (at == nullptr) return;
        v.ops().destroy_at(at);
        v.relocate_to(at);
    }

    void rebuild(const SlotPlan& s) {
        const Entity e{s.index, s.generation};
        if (!world_.alive(e)) return;
        // Types the record does not list go (relationship tags are the pairs' business).
        std::vector<ComponentTypeID> present;
        {
            const EntityRecord& r = WorldAccess::entities(world_)[e.index];
            for (const ComponentColumn& c : r.archetype->columns) present.push_back(c.type_id);
            if (const SparseRoom* room = WorldAccess::sparse(world_))
                for (const ComponentTypeID id : room->ids())
                    if (room->set(id)->contains(e.index)) present.push_back(id);
        }
        for (const ComponentTypeID id : present) {
            if (relation_type_of_marker(id) != nullptr) continue;
            bool listed = false;
            for (uint32_t k = s.comp_first; k < s.comp_first + s.comp_count && !listed; ++k)
                listed = staged_[comps_[k].staged].id() == id;
            if (!listed) world_.remove_raw(e, id);
        }
        for (uint32_t k = s.comp_first; k < s.comp_first + s.comp_count; ++k) place(e, staged_[comps_[k].staged]);
        if (!world_.alive(e)) return;
        for (uint32_t k = s.comp_first; k < s.comp_first + s.comp_count; ++k) {
            const ComponentTypeID id = staged_[comps_[k].staged].id();
            if (!world_.has_raw(e, id)) continue;
            WorldAccess::set_disabled(world_, e, id, comps_[k].disabled);
        }
        WorldAccess::set_disabled(world_, e, INVALID_COMPONENT_ID, !s.enabled);
        if (world_.name(e) != s.name) world_.set_name(e, s.name);
        // Pairs: every target list replaced by the record's.
        Relations& relations = WorldAccess::relations(world_);
        relations.each_index([&](const RelationIndex& rel) {
            const RelationTypeInfo& info = rel.info();
            bool listed = false;
            for (uint32_t r = s.rel_first; r < s.rel_first + s.rel_count; ++r) listed = listed || rels_[r].info == &info;
            if (!listed && rel.target_count(e.index) != 0) WorldAccess::unrelate_all(world_, info, e);
        });
        for (uint32_t r = s.rel_first; r < s.rel_first + s.rel_count; ++r) {
            const Rel& rel = rels_[r];
            WorldAccess::unrelate_all(world_, *rel.info, e);
            for (uint32_t t = rel.first; t < rel.first + rel.count; ++t)
                if (world_.alive(targets_[t])) WorldAccess::relate(world_, *rel.info, e, targets_[t]);
        }
    }

    World& world_;
    Dependent<D, std::istream>& in_;
    DeserializeResult result_;
    std::string body_; ///< the body and its checksum
    uint64_t body_size_ = 0;
    uint32_t since_ = 0, until_ = 0, slot_count_ = 0, free_head_ = 0;
    std::vector<ComponentTypeID> ids_;                 ///< the name table, resolved
    std::vector<const ComponentRegistration*> regs_;
    std::vector<StagedValue<>> staged_;
    std::vector<SlotPlan> slots_;
    std::vector<Comp> comps_;
    std::vector<Rel> rels_;
    std::vector<Entity> targets_;
    std::vector<ValuePlan> values_;
};

} // namespace detail
} // namespace ecs
