/**
 * @file ecs/detail/snapshot_writer.hpp
 * @brief Snapshot writing: write_snapshot, as the steps of SnapshotBodyWriter (resolve every name,
 *        build the sections, measure the body, then write the frame, the archetype blocks, the
 *        entity table and the trailer).
 *
 * Everything that can fail is done before the first byte is written: an unregistered type or a
 * failing serialize function leaves the stream untouched (failbit set). Payloads of types with
 * functions are serialized into memory first, all of them: their lengths precede them, and format
 * 2 states the body's length before the body. Bulk columns go from the archetypes to the stream
 * directly, checksummed on the way. serialize() (serialization.hpp) runs it; include
 * <ecs/serialization.hpp>, not this file.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "stream.hpp"
#include "../archetype.hpp"
#include "../component.hpp"
#include "../entity.hpp"
#include "../entity_index.hpp"
#include "../sparse.hpp"
#include "../world.hpp"
#include "component_registry.hpp"
#include "relation_snapshot.hpp"
#include "snapshot_context.hpp"
#include "snapshot_io.hpp"
#include "snapshot_names.hpp"
#include "snapshot_registry.hpp"
#include "snapshot_resources.hpp"
#include "snapshot_sections.hpp"

namespace ecs {

namespace detail {

/**
 * @brief One snapshot being written, step by step: the plan (what the body holds and its length),
 *        then the bytes. write_snapshot calls the steps in order and stops at the first that fails.
 */
template <class D = void>
class SnapshotBodyWriter {
public:
    SnapshotBodyWriter(const World& world, Dependent<D, std::ostream>& out, uint32_t version)
        : world_(world), out_(out), version_(version), archetypes_(WorldAccess::archetypes(world)),
          records_(WorldAccess::records(world)) {}
    SnapshotBodyWriter(const SnapshotBodyWriter<>&) = delete;
    SnapshotBodyWriter<>& operator=(const SnapshotBodyWriter<>&) = delete;

    /// Slots reserved for deferred creations are written as freed (generation bumped) at the bottom
    /// of the free list: the queue that would create them is not part of a snapshot.
    void collect_free_list() {
        free_list_ = WorldAccess::reserved_slots(world_);
        const std::vector<uint32_t> freed = WorldAccess::free_list(world_);
        free_list_.insert(free_list_.end(), freed.begin(), freed.end());
    }

    /// The relationship types holding pairs, named (their tags get names here too).
    bool plan_relations() {
        return plan_relation_section(world_, relation_plan_) &&
               ECS_CHECK(version_ >= 2 || relation_plan_.bytes() == 0, "serialize: format 1 cannot hold relationship pairs");
    }

    /// Resolves the registration of every component type present, before a byte is written: an
    /// unregistered type leaves the stream untouched.
    bool resolve_registrations() {
        for (const auto& arch : archetypes_) {
            if (arch->size() == 0) continue;
            ++blocks_;
            for (ComponentTypeID t : arch->types) {
                const ComponentRegistration* reg = component_registry().find(t);
                if (!ECS_CHECK(reg != nullptr, "serialize: the world holds a component type that was never registered "
                                               "(call register_component<T>(name) first)"))
                    return false;
                registrations_.push_back(reg);
            }
        }
        if (const SparseRoom* room = WorldAccess::sparse(world_)) // sparse types present too
            for (const ComponentTypeID t : room->ids())
                if (room->member(t).size() != 0 && !ECS_CHECK(component_registry().find(t) != nullptr,
                                                             "serialize: the world holds a component type that was never "
                                                             "registered (call register_component<T>(name) first)"))
                    return false;
        return true;
    }

    /// Format 2: the registered resources present, and the "SPRS" / "ENBL" payloads. False when a
    /// serialize function failed (nothing written).
    bool collect_resources_and_sections() {
        if (version_ < 2) return true;
        collect_resources(world_, resources_);
        return extra_sections_.build(world_, [](ComponentTypeID id) { return component_registry().find(id); });
    }

    /// Measures the archetype blocks, serializing the columns only functions can write into
    /// `pending_`, in the order the body lists them.
    bool measure_archetypes() {
        size_t next = 0;
        for (const auto& arch_ptr : archetypes_) {
            const Archetype& arch = *arch_ptr;
            if (arch.size() == 0) continue;
            const ComponentRegistration* const* regs = registrations_.data() + next;
            next += arch.types.size();
            const uint64_t rows = arch.size();
            body_ += 4 + 4 + rows * 8; // component count, row count, rows
            for (size_t k = 0; k < arch.types.size(); ++k) body_ += 8 + regs[k]->name.size();
            for (size_t k = 0; k < arch.columns.size(); ++k) {
                const ComponentColumn& c = arch.columns[k];
                if (c.elem_size == 0) continue; // tags: no column
                body_ += 8;
                if (regs[k]->bulk) {
                    body_ += rows * c.elem_size;
                    continue;
                }
                const size_t before = pending_.size();
                for (size_t r = 0; r < rows; ++r)
                    if (!pending_.put(regs[k]->serialize, c.at(r))) return false;
                body_ += pending_.end_item(before);
            }
        }
        return true;
    }

    /// Measures the entity table and, in format 2, the resource table and the extension sections
    /// ("NAME" is built in memory here: the sections are small next to the columns).
    bool measure_trailer() {
        body_ += uint64_t(records_.size()) * 4 + 4 + uint64_t(free_list_.size()) * 4;
        if (version_ >= 2) {
            if (!measure_resource_table(resources_, pending_, body_)) return false;
            body_ += relation_plan_.bytes();
            body_ += extra_sections_.bytes();
            write_names_section(world_, names_section_);
        }
        body_ += names_section_.size();
        return true;
    }

    /// The frame: magic, version, and in format 2 the body's length and the frame's checksum; the
    /// body's checksum starts after it. Then the archetype and slot counts.
    void write_frame() {
        unsigned char frame[16];
        std::memcpy(frame, "ECS\0", 4);
        put_u32(frame + 4, version_);
        put_u64(frame + 8, body_);
        if (version_ >= 2) {
            w_.raw(frame, 16);
            w_.u32(Crc32c::of(frame, 16));
            w_.begin_checksum();
        } else {
            w_.raw(frame, 8);
        }
        w_.u32(blocks_);
        w_.u32(static_cast<uint32_t>(records_.size()));
    }

    /// One block per non-empty archetype: its component names, its entities, its columns.
    void write_archetypes() {
        size_t next = 0;
        for (const auto& arch_ptr : archetypes_) {
            const Archetype& arch = *arch_ptr;
            if (arch.size() == 0) continue;
            const ComponentRegistration* const* regs = registrations_.data() + next;
            next += arch.types.size();
            const uint32_t rows = static_cast<uint32_t>(arch.size());

            w_.u32(static_cast<uint32_t>(arch.types.size()));
            for (size_t k = 0; k < arch.types.size(); ++k) {
                w_.u32(static_cast<uint32_t>(regs[k]->name.size()));
                w_.raw(regs[k]->name.data(), regs[k]->name.size());
                w_.u32(regs[k]->element_size);
            }
            w_.u32(rows);
            w_.entities(arch.entities);
            for (size_t k = 0; k < arch.columns.size(); ++k) {
                const ComponentColumn& c = arch.columns[k];
                if (c.elem_size == 0) continue; // tags: no bytes
                if (regs[k]->bulk) {
                    w_.u64(uint64_t(rows) * c.elem_size);
                    w_.raw(c.data, uint64_t(rows) * c.elem_size);
                } else {
                    pending_.write_next(w_);
                }
            }
        }
    }

    /// Entity table: one generation per slot, then the free list bottom to top.
    void write_entity_table() {
        uint32_t generations[1024];
        for (size_t i = 0; i < records_.size();) {
            size_t k = 0;
            for (; k < 1024 && i < records_.size(); ++k, ++i)
                generations[k] = EntityIndex::is_reserved(records_[i]) ? EntityIndex::next_generation(records_[i].generation)
                                                                       : records_[i].generation;
            w_.u32_array(generations, k);
        }
        w_.u32(static_cast<uint32_t>(free_list_.size()));
        w_.u32_array(free_list_.data(), free_list_.size());
    }

    /// Format 2: the resource table, the extension sections ("NAME", "RELS", "SPRS", "ENBL"), then
    /// the body's checksum.
    void write_trailer() {
        write_resource_table(w_, resources_, pending_);
        w_.raw(names_section_.data(), names_section_.size());
        write_relation_section(relation_plan_, w_);
        extra_sections_.write(w_); // "SPRS" then "ENBL"
        ECS_ASSERT(w_.written() == body_, "serialize: body length miscounted (library bug)");
        w_.u32(w_.end_checksum());
    }

private:
    const World& world_;
    Dependent<D, std::ostream>& out_;
    uint32_t version_;
    const OwnedArray<Archetype>& archetypes_;
    const PodArray<EntityRecord>& records_;
    std::vector<uint32_t> free_list_;
    RelationSectionPlan<> relation_plan_;
    std::vector<const ComponentRegistration*> registrations_; ///< per block, per component, in body order
    uint32_t blocks_ = 0;                                     ///< non-empty archetypes
    SnapshotResources resources_;                             ///< registered and present
    SnapshotSections<> extra_sections_;                         ///< "SPRS" / "ENBL"
    PendingPayloads<D> pending_;
    uint64_t body_ = 8; ///< the body's length: archetype count, slot count, ...
    ByteSink<D> names_section_;
    SnapshotWriter<> w_{out_};
};

/**
 * Writes a snapshot of `world` in format `version`: 2 (what serialize() writes) or 1 (what ecs 0.9
 * wrote: no frame, no checksum, no resources; kept so tests, benchmarks and tools can produce
 * version 1 input).
 */
template <class D = void>
inline void write_snapshot(const World& world, Dependent<D, std::ostream>& out, uint32_t version) {
    SnapshotBodyWriter<D> writer(world, out, version);
    writer.collect_free_list();
    if (!writer.plan_relations() || !writer.resolve_registrations() || !writer.collect_resources_and_sections() ||
        !writer.measure_archetypes() || !writer.measure_trailer()) {
        out.setstate(Dependent<D, std::ios_base>::failbit); // nothing written
        return;
    }
    writer.write_frame();
    writer.write_archetypes();
    writer.write_entity_table();
    if (version < 2) return;
    writer.write_trailer();
}

} // namespace detail

} // namespace ecs
