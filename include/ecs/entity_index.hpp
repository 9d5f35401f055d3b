/**
 * @file ecs/entity_index.hpp
 * @brief The entity index: one record per entity slot (archetype, row, generation), the free list of
 *        slots and the count of live entities.
 *
 * This room answers "where does this handle live, and is it still valid?" in one cache line per
 * handle (PITFALLS 14). It knows nothing of components: the archetype owns the rows, the index only
 * points at them. Free slots form a LIFO list threaded through their records' `row` fields, so
 * create and destroy touch no other array.
 *
 * Thread-safety: none of its own; it is part of one World (one writer at a time). Concurrent readers
 * (alive, operator[]) are safe while nobody writes.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "config.hpp"
#include "detail/pod_array.hpp"
#include "entity.hpp"

namespace ecs {

class Archetype;

/**
 * @brief Where an entity lives: its archetype and row, plus the slot's current generation.
 *
 * Addition to the spec's `{archetype, row}`: the generation sits in the same 16 bytes, so checking a
 * handle and finding its data touch one cache line. `archetype == nullptr` marks a free slot.
 */
struct EntityRecord {
    Archetype* archetype = nullptr;
    uint32_t row = 0;
    uint32_t generation = 1;
};

/**
 * @brief Records of every slot, the free list and the live count.
 *
 * Invariants: slot 0 is never alive nor free (INVALID_ENTITY); a live slot's record points at the
 * archetype row holding it; a free slot's `row` links to the next free slot (0 ends the list).
 */
class EntityIndex {
public:
    EntityIndex() { records_.push_back(EntityRecord{}); } // slot 0 is reserved

    /// True when `e` names a live entity (index in range, generation current, archetype assigned).
    [[nodiscard]] ECS_FORCEINLINE bool alive(Entity e) const noexcept {
        return e.index < records_.size() && records_[e.index].generation == e.generation &&
               records_[e.index].archetype != nullptr;
    }
    /// The record of slot `index`. @pre index < size()
    [[nodiscard]] ECS_FORCEINLINE EntityRecord& operator[](uint32_t index) noexcept { return records_[index]; }
    [[nodiscard]] ECS_FORCEINLINE const EntityRecord& operator[](uint32_t index) const noexcept { return records_[index]; }
    /// Number of slots ever used, slot 0 included.
    [[nodiscard]] size_t size() const noexcept { return records_.size(); }
    /// Number of live entities.
    [[nodiscard]] size_t alive_count() const noexcept { return alive_count_; }
    /// Bytes held by the records.
    [[nodiscard]] size_t memory_bytes() const noexcept { return records_.capacity() * sizeof(EntityRecord); }

    /**
     * Takes a slot (the most recently freed first) and returns its handle. The slot is NOT live until
     * place() gives it an archetype row.
     */
    ECS_FORCEINLINE Entity allocate() {
        uint32_t index;
        if (free_head_ != 0) {
            index = free_head_;
            free_head_ = records_[index].row; // a free slot's row links to the next free slot
        } else {
            ECS_ASSERT(records_.size() < 0xFFFFFFFFull, "World::create: entity index space exhausted");
            index = static_cast<uint32_t>(records_.size());
            records_.push_back(EntityRecord{});
        }
        return Entity{index, records_[index].generation};
    }
    /// Makes the slot allocated by allocate() live at `row` of `arch`.
    ECS_FORCEINLINE void place(uint32_t index, Archetype* arch, uint32_t row) noexcept {
        records_[index].archetype = arch;
        records_[index].row = row;
        ++alive_count_;
    }
    /// Frees a live slot: its generation is bumped (0 is skipped) and it goes to the free list.
    ECS_FORCEINLINE void release(uint32_t index) noexcept {
        EntityRecord& r = records_[index];
        r.archetype = nullptr;
        r.row = free_head_;
        if (++r.generation == 0) r.generation = 1; // wrapped: 0 stays the never-issued generation
        free_head_ = index;
        --alive_count_;
    }
    /// Returns a slot taken by allocate() but never placed to the free list, generation unchanged.
    void unallocate(uint32_t index) noexcept {
        records_[index].row = free_head_;
        free_head_ = index;
    }

    /// The free slots, the next one to be reused last.
    [[nodiscard]] std::vector<uint32_t> free_list() const {
        std::vector<uint32_t> list;
        for (uint32_t i = free_head_; i != 0 && list.size() < records_.size(); i = records_[i].row) list.push_back(i);
        return std::vector<uint32_t>(list.rbegin(), list.rend());
    }
    /// Replaces the free list (`slots.back()` is reused first). @pre every slot is in range, dead and
    /// listed once.
    void set_free_list(const std::vector<uint32_t>& slots) noexcept {
        free_head_ = 0;
        for (uint32_t slot : slots) {
            records_[slot].row = free_head_;
            free_head_ = slot;
        }
    }
    /// Forgets every slot: the state of a new world (slot 0 only, empty free list).
    void reset() noexcept {
        records_.resize(1);
        records_[0] = EntityRecord{};
        free_head_ = 0;
        alive_count_ = 0;
    }
    /// Checks the free list: every free slot is in range, dead and listed once, and free + live + 1
    /// slots make up the index. `live` is the number of rows found in archetypes.
    [[nodiscard]] bool check(size_t live) const {
        if (live != alive_count_ || records_.empty() || records_[0].archetype != nullptr) return false;
        size_t free_slots = 0;
        std::vector<uint8_t> seen(records_.size(), 0);
        for (uint32_t index = free_head_; index != 0; index = records_[index].row) {
            if (index >= records_.size() || seen[index] || records_[index].archetype != nullptr) return false;
            seen[index] = 1;
            ++free_slots;
        }
        return free_slots + live + 1 == records_.size();
    }

    /// The raw records (serialization and prefabs rebuild them wholesale; see detail::WorldAccess).
    detail::PodArray<EntityRecord>& records() noexcept { return records_; }
    const detail::PodArray<EntityRecord>& records() const noexcept { return records_; }
    size_t& alive_count_ref() noexcept { return alive_count_; }

private:
    detail::PodArray<EntityRecord> records_; ///< grown with realloc (no copy into fresh pages)
    uint32_t free_head_ = 0;                 ///< most recently freed slot (0: none)
    size_t alive_count_ = 0;
};

} // namespace ecs
