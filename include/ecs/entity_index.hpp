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
 * A slot can also be *reserved*: taken for an entity that a deferred command creates at
 * the next flush (`world.deferred().create()`), so its handle exists before the entity does. A
 * reserved slot is neither alive nor free: `archetype == nullptr` and `row == RESERVED_ROW` (never a
 * free-list link). place_reserved() makes it live at exactly that handle; cancel_reservation() frees
 * it with its generation bumped, as if an entity had lived and died there.
 *
 * Structure stamps (change streams, serialize_changes): once the world's change-detection clock
 * exists (stamp_with), every slot also carries the tick of its last structural change: created,
 * destroyed, reserved or freed here; moved to another archetype, renamed, related, enabled or
 * disabled by the World's rooms (stamp()). A world without a tracked type pays one predictable branch.
 *
 * Thread-safety: none of its own; it is part of one World (one writer at a time). Concurrent readers
 * (alive, operator[]) are safe while nobody writes.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "change_detection.hpp"
#include "config.hpp"
#include "detail/algorithms.hpp"
#include "detail/atomic_slot.hpp"
#include "detail/pod_array.hpp"
#include "entity.hpp"

#if ECS_COMPACT_RECORDS
#include "archetype.hpp"
#endif

namespace ecs {

class Archetype;

namespace detail {

/// A number no other World of the process had (World::copy_from's lineage check).
inline uint64_t next_world_uid() noexcept {
    static detail::AtomicSlot<uint64_t> counter{0};
    return counter.fetch_add(1, detail::order_relaxed) + 1;
}

/**
 * @brief Which world this one was last made structurally equal to by copy_from, and at which
 *        structure versions of both. A moved-to world takes the lineage along; a moved-from (or
 *        copied) one gets a uid of its own and forgets its peer.
 */
struct CopyLineage {
    uint64_t uid = next_world_uid();
    uint64_t peer = 0;         ///< uid of the other world (0: none)
    uint64_t peer_version = 0; ///< its structure version right after the copy
    uint64_t own_version = 0;  ///< this world's structure version right after the copy

    CopyLineage() = default;
    CopyLineage(const CopyLineage&) noexcept : uid(next_world_uid()) {}
    CopyLineage(CopyLineage&& o) noexcept : uid(o.uid), peer(o.peer), peer_version(o.peer_version), own_version(o.own_version) {
        o.reset();
    }
    CopyLineage& operator=(const CopyLineage&) noexcept {
        reset();
        return *this;
    }
    CopyLineage& operator=(CopyLineage&& o) noexcept {
        if (this == &o) return *this;
        uid = o.uid;
        peer = o.peer;
        peer_version = o.peer_version;
        own_version = o.own_version;
        o.reset();
        return *this;
    }
    void reset() noexcept {
        uid = next_world_uid();
        peer = peer_version = own_version = 0;
    }
};

} // namespace detail

/**
 * @brief Where an entity lives: its archetype and row, plus the slot's current generation.
 *
 * Addition to the spec's `{archetype, row}`: the generation sits in the same 16 bytes, so checking a
 * handle and finding its data touch one cache line. `archetype == nullptr` marks a free slot.
 */
#if !ECS_COMPACT_RECORDS
struct EntityRecord {
    Archetype* archetype = nullptr;
    uint32_t row = 0;
    uint32_t generation = 1;

    /// True when the slot holds a live entity.
    [[nodiscard]] bool live() const noexcept { return archetype != nullptr; }
};
#else
/// The compact-records build's record (config.hpp, ECS_COMPACT_RECORDS): 8 bytes, the same fields
/// read the same way, with a 16-bit generation and the archetype as its registry id.
struct EntityRecord {
    uint32_t row = 0;
    uint16_t generation = 1;
    ArchetypeRef archetype;

    /// True when the slot holds a live entity.
    [[nodiscard]] bool live() const noexcept { return archetype != nullptr; }
};
static_assert(sizeof(EntityRecord) == 8 && offsetof(EntityRecord, generation) == 4 && offsetof(EntityRecord, archetype) == 6,
              "ECS_COMPACT_RECORDS: the record must stay 8 bytes, its fields in declaration order");
#endif

/**
 * @brief Records of every slot, the free list and the live count.
 *
 * Invariants: slot 0 is never alive nor free (INVALID_ENTITY); a live slot's record points at the
 * archetype row holding it; a free slot's `row` links to the next free slot (0 ends the list).
 */
class EntityIndex {
public:
    /// `row` of a reserved slot (see the file comment): no free-list link can have this value.
    static constexpr uint32_t RESERVED_ROW = 0xFFFFFFFFu;
    /// Highest generation a slot reaches before it wraps to 1 (16 bits in the compact-records build).
    static constexpr uint32_t MAX_GENERATION = ECS_COMPACT_RECORDS ? 0xFFFFu : 0xFFFFFFFFu;

    EntityIndex() { records_.push_back(EntityRecord{}); } // slot 0 is never issued

    /// True when `e` names a live entity (index in range, generation current, archetype assigned).
    [[nodiscard]] ECS_FORCEINLINE bool alive(Entity e) const noexcept {
        return e.index < records_.size() && records_[e.index].generation == e.generation &&
               records_[e.index].archetype != nullptr;
    }
    /// The current generation of slot `index` (live, free or reserved).
    [[nodiscard]] uint32_t generation(uint32_t index) const noexcept { return records_[index].generation; }
    /// The record of slot `index`. @pre index < size()
    [[nodiscard]] ECS_FORCEINLINE EntityRecord& operator[](uint32_t index) noexcept { return records_[index]; }
    [[nodiscard]] ECS_FORCEINLINE const EntityRecord& operator[](uint32_t index) const noexcept { return records_[index]; }
    /// Number of slots ever used, slot 0 included.
    [[nodiscard]] size_t size() const noexcept { return records_.size(); }
    /// Number of live entities.
    [[nodiscard]] size_t alive_count() const noexcept {
        return records_.empty() ? 0 : records_.size() - not_live_; // empty: moved from
    }
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
            ++not_live_; // until place()
        }
        return Entity{index, records_[index].generation}; // place() or unallocate() stamps the slot
    }
    /**
     * allocate() and place() in one step, for a caller that knows the row before the handle
     * (World::spawn: the archetype's next row). A fresh slot's record is written once, whole.
     */
    ECS_FORCEINLINE Entity allocate_placed(Archetype* arch, uint32_t row) {
        uint32_t index;
        uint32_t generation;
        if (free_head_ != 0) {
            index = free_head_;
            EntityRecord& r = records_[index];
            free_head_ = r.row;
            generation = r.generation;
            store_live(r, arch, row, generation);
            --not_live_;
        } else {
            ECS_ASSERT(records_.size() < 0xFFFFFFFFull, "World::create: entity index space exhausted");
            index = static_cast<uint32_t>(records_.size());
            generation = EntityRecord{}.generation;
            store_live(*records_.extend(1), arch, row, generation); // live from the start: not_live_ unchanged
        }
        stamp(index);
        return Entity{index, generation};
    }
    /// Makes the slot allocated by allocate() live at `row` of `arch`.
    ECS_FORCEINLINE void place(uint32_t index, Archetype* arch, uint32_t row) noexcept {
        records_[index].archetype = arch;
        records_[index].row = row;
        --not_live_;
        stamp(index);
    }
    /// Frees the live slot of `e`: its generation is bumped (0 is skipped) and it goes to the free list.
    ECS_FORCEINLINE void release(Entity e) noexcept {
        const uint32_t index = e.index;
        EntityRecord& r = records_[index];
        store_dead(r, free_head_, next_generation(r.generation));
        free_head_ = index;
        ++not_live_;
        stamp(index);
    }
    /// Returns a slot taken by allocate() but never placed to the free list, generation unchanged.
    void unallocate(uint32_t index) noexcept {
        records_[index].row = free_head_;
        free_head_ = index;
        stamp(index);
    }

    // -- reserved slots (deferred creation) ---------------------------------------------------------

    /// Takes a slot for an entity created later (allocated, not alive) and returns its handle.
    Entity reserve() {
        const Entity e = allocate();
        records_[e.index].row = RESERVED_ROW;
        ++reserved_count_;
        return e;
    }
    /// True when `r` is the record of a reserved slot.
    [[nodiscard]] static bool is_reserved(const EntityRecord& r) noexcept {
        return r.archetype == nullptr && r.row == RESERVED_ROW;
    }
    /// True when `e` names a slot reserved by reserve() and neither placed nor cancelled since.
    [[nodiscard]] bool reserved(Entity e) const noexcept {
        return e.index != 0 && e.index < records_.size() && records_[e.index].generation == e.generation &&
               is_reserved(records_[e.index]);
    }
    /// Makes reserved slot `index` live at `row` of `arch`. @pre reserved(handle of index)
    void place_reserved(uint32_t index, Archetype* arch, uint32_t row) noexcept {
        --reserved_count_;
        place(index, arch, row);
    }
    /// Frees the slot `e` reserved: generation bumped, slot on the free list (reused first). No-op
    /// when `e` is not reserved (already created or cancelled).
    void cancel_reservation(Entity e) noexcept {
        if (!reserved(e)) return;
        EntityRecord& r = records_[e.index];
        r.row = free_head_;
        r.generation = next_generation(r.generation);
        free_head_ = e.index;
        --reserved_count_;
        stamp(e.index);
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
    [[nodiscard]] static decltype(EntityRecord::generation) next_generation(uint32_t g) noexcept {
        return static_cast<decltype(EntityRecord::generation)>(g >= MAX_GENERATION ? 1u : g + 1);
    }

    /// Frees the live slots of `entities` (a whole archetype's rows, destroyed in bulk), in order.
    void release_all(const Entity* entities, size_t n) noexcept {
        EntityRecord* const records = records_.data();
        uint32_t head = free_head_;
        for (size_t i = 0; i < n; ++i) {
            const uint32_t index = entities[i].index;
            EntityRecord& r = records[index];
            store_dead(r, head, next_generation(r.generation));
            head = index;
            stamp(index);
        }
        free_head_ = head;
        not_live_ += n;
    }

    /// The free slots, the next one to be reused last.
    [[nodiscard]] std::vector<uint32_t> free_list() const {
        std::vector<uint32_t> list;
        for (uint32_t i = free_head_; i != 0 && list.size() < records_.size(); i = records_[i].row) list.push_back(i);
        for (size_t i = 0, j = list.size(); i + 1 < j; ++i, --j) { // reversed in place
            const uint32_t slot = list[i];
            list[i] = list[j - 1];
            list[j - 1] = slot;
        }
        return list;
    }
    /// Replaces the free list (`slots.back()` is reused first). @pre every slot is in range, dead and
    /// listed once.
    void set_free_list(const std::vector<uint32_t>& slots) noexcept {
        free_head_ = 0;
        for (uint32_t slot : slots) {
            records_[slot].row = free_head_;
            free_head_ = slot;
        }
        stamp_all();
    }
    /// Room for `n` more slots (bulk creation grows the records once).
    void reserve_more(size_t n) { records_.reserve_more(n); }
    /// Grows the index to `n` slots (new ones dead, generation 1, on no free list; change streams).
    void ensure_slots(size_t n) {
        ++version_;
        while (records_.size() < n) {
            records_.push_back(EntityRecord{});
            ++not_live_;
        }
        if (clock_ != nullptr) stamps_.resize(records_.size(), 0u);
    }
    /// Makes dead slot `index` hold generation `generation` and free-list link `link` (change
    /// streams; the caller sets the free list's head). @pre the slot is neither live nor reserved.
    void set_dead(uint32_t index, uint32_t generation, uint32_t link) noexcept {
        ECS_ASSERT(generation != 0 && generation <= MAX_GENERATION, "EntityIndex::set_dead: generation out of range");
        records_[index].generation = static_cast<decltype(EntityRecord::generation)>(generation);
        records_[index].row = link;
        stamp(index);
    }
    /// Makes `head` the slot the next allocate() takes (0: none). @pre see set_dead.
    void set_free_head(uint32_t head) noexcept {
        free_head_ = head;
        ++version_;
    }
    /// The slot the next allocate() takes when the free list is not empty (0: none).
    [[nodiscard]] uint32_t free_head() const noexcept { return free_head_; }

    // -- structure stamps (see the file comment) ----------------------------------------------------

    /// Starts (or keeps) stamping with `clock` (the world's, created by its first tracked type).
    /// When stamping starts, every slot counts as changed now (as the rows of a newly tracked type
    /// count as added now): a change stream since any earlier tick holds them all.
    void stamp_with(const detail::ChangeClock* clock) {
        const bool starts = clock_ == nullptr && clock != nullptr;
        clock_ = clock;
        stamp_slot_ = &EntityIndex::stamp_now<>; // compiled where stamping starts, not by every structural change
        if (starts) stamp_all();
        else if (clock != nullptr && stamps_.size() < records_.size()) stamps_.resize(records_.size(), 0u);
    }
    /// True when structural changes are stamped.
    [[nodiscard]] ECS_FORCEINLINE bool stamping() const noexcept { return clock_ != nullptr; }
    /// Records that slot `index` changed structurally now (no-op without a clock).
    ECS_FORCEINLINE void stamp(uint32_t index) noexcept {
        ++version_;
        if (ECS_UNLIKELY(clock_ != nullptr)) stamp_slot_(*this, index);
    }
    /// Records a structural change that stamps no slot (rows reordered: sort, Cascade order).
    void bump() noexcept { ++version_; }
    /// Changes with every structural change of the world (every stamp and bump).
    [[nodiscard]] uint64_t structure_version() const noexcept { return version_; }

    /// True when this index and `other` hold the same structure because one was made a copy of
    /// the other (copy_from) and neither changed structurally since: the records, the rows' order
    /// and entities, names, pairs and enable bits are then equal (archetypes paired by id).
    [[nodiscard]] bool same_structure_as(const EntityIndex& other) const noexcept {
        return (lineage_.peer == other.lineage_.uid && lineage_.peer_version == other.version_ &&
                lineage_.own_version == version_) ||
               (other.lineage_.peer == lineage_.uid && other.lineage_.peer_version == version_ &&
                other.lineage_.own_version == other.version_);
    }
    /// Notes that this index was just made structurally equal to `src` (copy_from).
    void note_copied_from(const EntityIndex& src) const noexcept {
        lineage_.peer = src.lineage_.uid;
        lineage_.peer_version = src.version_;
        lineage_.own_version = version_;
        src.lineage_.peer = lineage_.uid;
        src.lineage_.peer_version = version_;
        src.lineage_.own_version = src.version_;
    }
    /// Stamps every slot now (the records were rebuilt wholesale: a snapshot load).
    void stamp_all() noexcept {
        ++version_;
        if (clock_ == nullptr) return;
        stamps_.resize(records_.size(), 0u);
        for (size_t i = 0; i < stamps_.size(); ++i) stamps_.data()[i] = clock_->now;
        rebuild_block_stamps();
    }
    /// Calls `fn(index)` for every slot whose structure changed after `since`, ascending; blocks of
    /// STAMP_BLOCK slots with nothing newer are skipped whole.
    template <typename Fn>
    void each_stamped_after(uint32_t since, Fn&& fn) const {
        const size_t n = stamps_.size() < records_.size() ? stamps_.size() : records_.size();
        for (size_t b = 0; b * STAMP_BLOCK < n; ++b) {
            if (b < block_stamps_.size() && block_stamps_.data()[b] <= since) continue;
            const size_t end = (b + 1) * STAMP_BLOCK < n ? (b + 1) * STAMP_BLOCK : n;
            for (size_t i = b * STAMP_BLOCK; i < end; ++i)
                if (stamps_.data()[i] > since) fn(static_cast<uint32_t>(i));
        }
    }
    /// True when slot `index`'s structure changed after `since` (one load of a small array when
    /// nothing in its block did).
    [[nodiscard]] bool stamped_after(uint32_t index, uint32_t since) const noexcept {
        const size_t b = index / STAMP_BLOCK;
        if (b < block_stamps_.size() && block_stamps_.data()[b] <= since) return false;
        return stamp_of(index) > since;
    }
    /// The tick of slot `index`'s last structural change (0: before stamping began).
    [[nodiscard]] uint32_t stamp_of(uint32_t index) const noexcept {
        return index < stamps_.size() ? stamps_.data()[index] : 0u;
    }
    /// Becomes a copy of `other`: the same records, generations and free list (World::copy_from),
    /// each live record's archetype replaced by `twin(archetype)` (this world's copy of it), in the
    /// same pass. Slots `other` reserves for deferred creations are freed here (generation bumped,
    /// reused last): the queue that would create them is not copied. No allocation when the records
    /// fit and `other` reserves nothing.
    template <typename Twin>
    void copy_from(const EntityIndex& other, Twin&& twin) {
        ++version_;
        const size_t n = other.records_.size();
        records_.resize(n);
        const EntityRecord* from = other.records_.data();
        EntityRecord* to = records_.data();
        for (size_t i = 0; i < n; ++i) {
            EntityRecord r = from[i];
            if (r.archetype != nullptr) r.archetype = twin(r.archetype);
            to[i] = r;
        }
        free_head_ = other.free_head_;
        not_live_ = other.not_live_; // the same number of slots
        reserved_count_ = 0;
        if (clock_ != nullptr) { // the stamps too: a delta since the copy's tick starts from equal stamps
            stamps_.resize(n, 0u);
            for (size_t i = 0; i < n; ++i) stamps_.data()[i] = other.stamp_of(static_cast<uint32_t>(i));
            rebuild_block_stamps();
        }
        if (other.reserved_count_ == 0) return;
        std::vector<uint32_t> slots = other.reserved_slots();
        for (uint32_t slot : slots) {
            records_[slot].row = 0;
            records_[slot].generation = next_generation(records_[slot].generation);
        }
        const std::vector<uint32_t> freed = other.free_list();
        detail::append_range(slots, freed.begin(), freed.end());
        set_free_list(slots);
    }
    /// Forgets every slot: the state of a new world (slot 0 only, empty free list, no reservation).
    void reset() noexcept {
        ++version_;
        records_.resize(1);
        records_[0] = EntityRecord{};
        free_head_ = 0;
        not_live_ = 1;
        reserved_count_ = 0;
        if (clock_ != nullptr) {
            stamps_.resize(1, 0u);
            stamps_.data()[0] = clock_->now;
            rebuild_block_stamps();
        }
    }
    /// Checks the free list: every free slot is in range, dead and listed once, and free + live +
    /// reserved + 1 slots make up the index. `live` is the number of rows found in archetypes.
    [[nodiscard]] bool check(size_t live) const {
        if (live != alive_count() || records_.empty() || records_[0].archetype != nullptr) return false;
        size_t free_slots = 0;
        detail::PodArray<uint8_t> seen;
        seen.assign(records_.size(), 0);
        for (uint32_t index = free_head_; index != 0; index = records_[index].row) {
            if (index >= records_.size() || seen[index] || records_[index].archetype != nullptr) return false;
            seen[index] = 1;
            ++free_slots;
        }
        size_t reserved_slots = 0;
        for (uint32_t i = 1; i < records_.size(); ++i)
            if (is_reserved(records_[i])) ++reserved_slots;
        return reserved_slots == reserved_count_ && free_slots + live + reserved_slots + 1 == records_.size();
    }

    /// The raw records (serialization and prefabs rebuild them wholesale; see detail::WorldAccess).
    /// Mutable access counts as a structural change (the caller may rebuild or reorder records).
    detail::PodArray<EntityRecord>& records() noexcept {
        ++version_;
        return records_;
    }
    const detail::PodArray<EntityRecord>& records() const noexcept { return records_; }
    /// Sets the live count after the records were rebuilt wholesale through records().
    void set_alive_count(size_t live) noexcept { not_live_ = records_.size() - live; }

private:
    /// Makes `r` a dead record: no archetype, free-list link `link`, generation `generation`. The
    /// compact build writes the 8 bytes in one store: three narrow stores, one of them a
    /// read-modify-write of the generation, made destroy 1.3x slower than the default build (a
    /// bulk release_all at 1M went from 1.2x to 1.0x the default build with it).
    static ECS_FORCEINLINE void store_dead(EntityRecord& r, uint32_t link, decltype(EntityRecord::generation) generation) noexcept {
#if ECS_COMPACT_RECORDS && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        const uint64_t bits = uint64_t(link) | uint64_t(generation) << 32; // archetype id 0: none
        std::memcpy(&r, &bits, sizeof bits);
#else
        r.archetype = nullptr;
        r.row = link;
        r.generation = generation;
#endif
    }

    /// Makes `r` the record of a live entity at `row` of `arch` (not null). GCC stores the fields
    /// one by one; here the row and the generation (default build), or the whole 8-byte record
    /// (compact build), go in one store.
    static ECS_FORCEINLINE void store_live(EntityRecord& r, Archetype* arch, uint32_t row, uint32_t generation) noexcept {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#if ECS_COMPACT_RECORDS
        const uint64_t bits = uint64_t(row) | uint64_t(generation) << 32 | uint64_t(arch->registry_id) << 48;
        std::memcpy(static_cast<void*>(&r), &bits, sizeof bits);
#else
        static_assert(offsetof(EntityRecord, generation) == offsetof(EntityRecord, row) + 4, "EntityRecord: row, then generation");
        r.archetype = arch;
        const uint64_t bits = uint64_t(row) | uint64_t(generation) << 32;
        std::memcpy(static_cast<void*>(&r.row), &bits, sizeof bits);
#endif
#else
        r.archetype = arch;
        r.row = row;
        r.generation = static_cast<decltype(EntityRecord::generation)>(generation);
#endif
    }

    /// stamp()'s body: grows the stamps to the records (which paths outside this class may grow).
    template <class = void>
    static void stamp_now(EntityIndex& self, uint32_t index) noexcept {
        self.stamp_index(index);
    }
    void stamp_index(uint32_t index) noexcept {
        if (index >= stamps_.size()) stamps_.resize(records_.size() > index ? records_.size() : size_t(index) + 1, 0u);
        stamps_.data()[index] = clock_->now;
        const size_t b = index / STAMP_BLOCK;
        if (b >= block_stamps_.size()) block_stamps_.resize(b + 1, 0u);
        block_stamps_.data()[b] = clock_->now; // the clock never goes back: the newest stamp of the block
    }
    static constexpr size_t STAMP_BLOCK = 1024; ///< slots per entry of block_stamps_
    /// Recomputes every block's newest stamp from the slots' stamps.
    void rebuild_block_stamps() {
        block_stamps_.resize((stamps_.size() + STAMP_BLOCK - 1) / STAMP_BLOCK, 0u);
        for (size_t b = 0; b < block_stamps_.size(); ++b) {
            uint32_t top = 0;
            const size_t end = (b + 1) * STAMP_BLOCK < stamps_.size() ? (b + 1) * STAMP_BLOCK : stamps_.size();
            for (size_t i = b * STAMP_BLOCK; i < end; ++i) top = stamps_.data()[i] > top ? stamps_.data()[i] : top;
            block_stamps_.data()[b] = top;
        }
    }

    detail::PodArray<EntityRecord> records_; ///< grown with realloc (no copy into fresh pages)
    const detail::ChangeClock* clock_ = nullptr; ///< the world's clock once a type is tracked
    void (*stamp_slot_)(EntityIndex&, uint32_t) noexcept = nullptr; ///< stamp_now<>, set with the clock
    detail::PodArray<uint32_t> stamps_;          ///< per slot: tick of its last structural change
    detail::PodArray<uint32_t> block_stamps_;    ///< per STAMP_BLOCK slots: >= every stamp of the block
    uint64_t version_ = 0;                       ///< structure version (see structure_version)
    mutable detail::CopyLineage lineage_;        ///< copy_from's record of the last copy (both sides)
    uint32_t free_head_ = 0;                 ///< most recently freed slot (0: none)
    /// Slots that are not live (slot 0, free, reserved, allocated and not yet placed): the live
    /// count is records_.size() - not_live_, so a create that appends a live slot updates no counter.
    size_t not_live_ = 1;
    size_t reserved_count_ = 0;              ///< slots taken by reserve(), not yet placed or cancelled
};

/**
 * @brief What code outside World needs to check a handle and reach its archetype (observers,
 *        relationships): the records, read-only.
 */
struct EntityLookup {
    const EntityIndex* index;

    [[nodiscard]] bool alive(Entity e) const noexcept { return index->alive(e); }
    [[nodiscard]] const EntityRecord& operator[](uint32_t i) const noexcept { return (*index)[i]; }
    [[nodiscard]] size_t size() const noexcept { return index->size(); }
    /// The archetype of a live record.
    [[nodiscard]] Archetype& archetype(const EntityRecord& r) const noexcept { return *r.archetype; }
};

} // namespace ecs
