/**
 * @file ecs/entity_index.hpp
 * @brief The entity index: one 8-byte record per entity slot (archetype, row), the free list of slots
 *        and the count of live entities.
 *
 * This room answers "where does this handle live, and is it still valid?". It knows nothing of
 * components: the archetype owns the rows, the index only points at them. A live slot's record holds
 * the index of its archetype in the world's archetype table and its row; the handle's generation is
 * the one stored with the row (`archetype->entities[row]`), so checking a handle reads the row it
 * points at, and a record costs 8 bytes, not 16 (#20: 32 bytes per entity of {Position, Velocity}).
 * A slot that is not live keeps its generation in `row` and a tag in `archetype`: free slots form a
 * LIFO list threaded through their `archetype` fields (FREE_BIT | next slot), so create and destroy
 * touch no other array.
 *
 * A slot can also be *reserved* (addition): taken for an entity that a deferred command creates at
 * the next flush (`world.deferred().create()`), so its handle exists before the entity does. A
 * reserved slot is neither alive nor free: `archetype == RESERVED`, `row` its generation.
 * place_reserved() makes it live at exactly that handle; cancel_reservation() frees it with its
 * generation bumped, as if an entity had lived and died there.
 *
 * Limits: fewer than 2^31 - 1 slots and 2^31 archetypes per world (asserted).
 *
 * Thread-safety: none of its own; it is part of one World (one writer at a time). Concurrent readers
 * (alive, operator[]) are safe while nobody writes.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "archetype.hpp"
#include "config.hpp"
#include "detail/pod_array.hpp"
#include "entity.hpp"

namespace ecs {

/**
 * @brief Where an entity lives: the index of its archetype in the world's archetype table, and its row.
 *
 * Change from the spec's `{Archetype* archetype, size_t row}` (#20): 8 bytes instead of 16, so the
 * records of a million entities take 8 MB. `archetype` is an index (`World` maps it to the archetype
 * through its table: `ArchetypeGraph::operator[]`). A slot that is not live keeps its generation in
 * `row`, and `archetype` is RESERVED or FREE_BIT | next free slot.
 */
struct EntityRecord {
    static constexpr uint32_t FREE_BIT = 0x80000000u; ///< set in `archetype` of every slot that is not live
    static constexpr uint32_t RESERVED = 0xFFFFFFFFu; ///< `archetype` of a reserved slot

    uint32_t archetype = FREE_BIT; ///< live: archetype index; free: FREE_BIT | next free slot (0 ends)
    uint32_t row = 1;              ///< live: row in the archetype; otherwise the slot's generation

    /// True when the slot holds a live entity.
    [[nodiscard]] bool live() const noexcept { return archetype < FREE_BIT; }
};
static_assert(sizeof(EntityRecord) == 8, "records are 8 bytes (#20)");

/**
 * @brief Records of every slot, the free list and the live count.
 *
 * Invariants: slot 0 is never alive nor free (INVALID_ENTITY); a live slot's record points at the
 * archetype row holding it; a free slot's `archetype` links to the next free slot (0 ends the list).
 * Functions that check a handle's generation take the world's archetype table (`Archetype* const*`,
 * indexed by EntityRecord::archetype).
 */
class EntityIndex {
public:
    using Table = Archetype* const*;
    static constexpr uint32_t FREE_BIT = EntityRecord::FREE_BIT;
    static constexpr uint32_t RESERVED = EntityRecord::RESERVED;

    EntityIndex() { records_.push_back(EntityRecord{}); } // slot 0 is never issued

    /// True when `e` names a live entity: index in range, slot live, generation of its row current.
    [[nodiscard]] ECS_FORCEINLINE bool alive(Entity e, Table table) const noexcept {
        if (e.index >= records_.size()) return false;
        const EntityRecord r = records_[e.index];
        return r.live() && table[r.archetype]->entities[r.row].generation == e.generation;
    }
    /// The current generation of slot `index` (live, free or reserved).
    [[nodiscard]] uint32_t generation(uint32_t index, Table table) const noexcept {
        const EntityRecord r = records_[index];
        return r.live() ? table[r.archetype]->entities[r.row].generation : r.row;
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
            free_head_ = records_[index].archetype & ~FREE_BIT; // a free slot links to the next free slot
        } else {
            ECS_ASSERT(records_.size() < MAX_SLOTS, "World::create: entity index space exhausted");
            index = static_cast<uint32_t>(records_.size());
            records_.push_back(EntityRecord{});
        }
        return Entity{index, records_[index].row};
    }
    /// Makes the slot allocated by allocate() live at `row` of the archetype with index `arch`.
    ECS_FORCEINLINE void place(uint32_t index, uint32_t arch, uint32_t row) noexcept {
        records_[index].archetype = arch;
        records_[index].row = row;
        ++alive_count_;
    }
    /// Frees the live slot of `e`: its generation is bumped (0 is skipped) and it goes to the free list.
    ECS_FORCEINLINE void release(Entity e) noexcept {
        EntityRecord& r = records_[e.index];
        r.archetype = FREE_BIT | free_head_;
        r.row = next_generation(e.generation);
        free_head_ = e.index;
        --alive_count_;
    }
    /// Returns a slot taken by allocate() but never placed to the free list, generation unchanged.
    void unallocate(uint32_t index) noexcept {
        records_[index].archetype = FREE_BIT | free_head_;
        free_head_ = index;
    }

    // -- reserved slots (deferred creation) ---------------------------------------------------------

    /// Takes a slot for an entity created later (allocated, not alive) and returns its handle.
    Entity reserve() {
        const Entity e = allocate();
        records_[e.index].archetype = RESERVED;
        ++reserved_count_;
        return e;
    }
    /// True when `r` is the record of a reserved slot.
    [[nodiscard]] static bool is_reserved(const EntityRecord& r) noexcept { return r.archetype == RESERVED; }
    /// True when `e` names a slot reserved by reserve() and neither placed nor cancelled since.
    [[nodiscard]] bool reserved(Entity e) const noexcept {
        return e.index != 0 && e.index < records_.size() && is_reserved(records_[e.index]) &&
               records_[e.index].row == e.generation;
    }
    /// Makes reserved slot `index` live at `row` of archetype `arch`. @pre reserved(handle of index)
    void place_reserved(uint32_t index, uint32_t arch, uint32_t row) noexcept {
        --reserved_count_;
        place(index, arch, row);
    }
    /// Frees the slot `e` reserved: generation bumped, slot on the free list (reused first). No-op
    /// when `e` is not reserved (already created or cancelled).
    void cancel_reservation(Entity e) noexcept {
        if (!reserved(e)) return;
        EntityRecord& r = records_[e.index];
        r.archetype = FREE_BIT | free_head_;
        r.row = next_generation(r.row);
        free_head_ = e.index;
        --reserved_count_;
    }
    /// Number of reserved slots.
    [[nodiscard]] size_t reserved_count() const noexcept { return reserved_count_; }
    /// The reserved slots, ascending.
    [[nodiscard]] std::vector<uint32_t> reserved_slots() const {
        std::vector<uint32_t> slots;
        if (reserved_count_ == 0) return slots;
        for (uint32_t i = 1; i < records_.size(); ++i)
            if (is_reserved(records_[i])) slots.push_back(i);
        return slots;
    }
    /// The generation after `g` (0 is skipped: it is never issued).
    [[nodiscard]] static uint32_t next_generation(uint32_t g) noexcept { return g + 1 == 0 ? 1 : g + 1; }

    /// Frees the live slots of `entities` (a whole archetype's rows, destroyed in bulk), in order.
    void release_all(const Entity* entities, size_t n) noexcept {
        EntityRecord* const records = records_.data();
        uint32_t head = free_head_;
        for (size_t i = 0; i < n; ++i) {
            const uint32_t index = entities[i].index;
            EntityRecord& r = records[index];
            r.archetype = FREE_BIT | head;
            r.row = next_generation(entities[i].generation);
            head = index;
        }
        free_head_ = head;
        alive_count_ -= n;
    }

    /// The free slots, the next one to be reused last.
    [[nodiscard]] std::vector<uint32_t> free_list() const {
        std::vector<uint32_t> list;
        for (uint32_t i = free_head_; i != 0 && list.size() < records_.size(); i = records_[i].archetype & ~FREE_BIT)
            list.push_back(i);
        return std::vector<uint32_t>(list.rbegin(), list.rend());
    }
    /// Replaces the free list (`slots.back()` is reused first). @pre every slot is in range, not live,
    /// not reserved and listed once; its `row` holds its generation.
    void set_free_list(const std::vector<uint32_t>& slots) noexcept {
        free_head_ = 0;
        for (uint32_t slot : slots) {
            records_[slot].archetype = FREE_BIT | free_head_;
            free_head_ = slot;
        }
    }
    /// Forgets every slot: the state of a new world (slot 0 only, empty free list, no reservation).
    void reset() noexcept {
        records_.resize(1);
        records_[0] = EntityRecord{};
        free_head_ = 0;
        alive_count_ = 0;
        reserved_count_ = 0;
    }
    /// Checks the free list: every free slot is in range, not live and listed once, and free + live +
    /// reserved + 1 slots make up the index. `live` is the number of rows found in archetypes.
    [[nodiscard]] bool check(size_t live) const {
        if (live != alive_count_ || records_.empty() || records_[0].live()) return false;
        size_t free_slots = 0;
        std::vector<uint8_t> seen(records_.size(), 0);
        for (uint32_t index = free_head_; index != 0; index = records_[index].archetype & ~FREE_BIT) {
            if (index >= records_.size() || seen[index] || records_[index].live() || is_reserved(records_[index]))
                return false;
            seen[index] = 1;
            ++free_slots;
        }
        size_t reserved_slots = 0, live_slots = 0;
        for (uint32_t i = 1; i < records_.size(); ++i) {
            if (is_reserved(records_[i])) ++reserved_slots;
            if (records_[i].live()) ++live_slots;
        }
        return reserved_slots == reserved_count_ && live_slots == live &&
               free_slots + live + reserved_slots + 1 == records_.size();
    }

    /// The raw records (serialization and prefabs rebuild them wholesale; see detail::WorldAccess).
    detail::PodArray<EntityRecord>& records() noexcept { return records_; }
    const detail::PodArray<EntityRecord>& records() const noexcept { return records_; }
    size_t& alive_count_ref() noexcept { return alive_count_; }

private:
    static constexpr size_t MAX_SLOTS = 0x7FFFFFFFu; ///< a free link never equals RESERVED's low bits

    detail::PodArray<EntityRecord> records_; ///< grown with realloc (no copy into fresh pages)
    uint32_t free_head_ = 0;                 ///< most recently freed slot (0: none)
    size_t alive_count_ = 0;
    size_t reserved_count_ = 0;              ///< slots taken by reserve(), not yet placed or cancelled
};

/**
 * @brief The entity index together with the world's archetype table: what code outside World needs
 *        to check a handle and reach its archetype (observers, relationships). Cheap to copy; valid
 *        until the next archetype is created.
 */
struct EntityLookup {
    const EntityIndex* index;
    EntityIndex::Table table;

    [[nodiscard]] bool alive(Entity e) const noexcept { return index->alive(e, table); }
    [[nodiscard]] const EntityRecord& operator[](uint32_t i) const noexcept { return (*index)[i]; }
    [[nodiscard]] size_t size() const noexcept { return index->size(); }
    /// The archetype of a live record.
    [[nodiscard]] Archetype& archetype(const EntityRecord& r) const noexcept { return *table[r.archetype]; }
};

} // namespace ecs
