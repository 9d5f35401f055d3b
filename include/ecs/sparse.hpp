/**
 * @file ecs/sparse.hpp
 * @brief Sparse storage: one sparse set per component type declared
 *        `component_traits<T>::storage == Storage::sparse`, per world.
 *
 * A sparse component does not take part in the entity's archetype: adding or removing it never
 * moves the entity, and its value lives in pages that never move, so its address is stable until
 * it is removed or the entity destroyed (however many other values are added).
 *
 * Layout of one SparseSet:
 * - values in pages of a power-of-two number of slots (about 16 KiB each, at least one slot),
 *   allocated at the type's alignment and never moved or freed before the set; a free list of slots;
 * - `sparse_`: entity index -> slot + 1 (0: absent); members are enumerated through it, in entity
 *   slot order (snapshots, clones), so adding and removing touch no list of members;
 * - per slot a flags byte (the enable bit; 0 while the slot is free), its member's handle
 *   (INVALID_ENTITY while the slot is free) and, while the type is tracked, its added / changed ticks.
 *   A query whose required types are all sparse walks the slots of its smallest set through the
 *   handles (slot order: the values lie in that order in their pages).
 *
 * While a run walks the slots it *pins* the set: insert then takes a fresh slot past every used one
 * instead of reusing a freed one, so a member added during the run lies past the end the run walks
 * to, and an entity removed and added again is not met twice.
 *
 * Thread-safety: as the world that owns it (one writer; concurrent readers while nobody writes).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

#include "change_detection.hpp"
#include "component.hpp"
#include "config.hpp"
#include "detail/pod_array.hpp"
#include "entity.hpp"

namespace ecs::detail {

/**
 * @brief The values of one sparse component type in one world.
 *
 * Type-erased through the column descriptor of the type (make_column): move, destroy, copy.
 */
class SparseSet {
public:
    static constexpr uint8_t DISABLED = 1; ///< flags bit: the component is disabled (enable bits)
    static constexpr size_t PAGE_BYTES = 16384;

    explicit SparseSet(const ComponentColumn& ops) noexcept : ops_(ops) {
        stride_ = ops.elem_size;
        align_ = ops.elem_align > alignof(std::max_align_t) ? ops.elem_align : alignof(std::max_align_t);
        size_t per_page = 1;
        while (stride_ != 0 && per_page * 2 * stride_ <= PAGE_BYTES) per_page *= 2;
        if (stride_ == 0) per_page = size_t(1) << 16;
        while ((size_t(1) << shift_) < per_page) ++shift_;
        mask_ = (uint32_t(1) << shift_) - 1u;
    }
    SparseSet(const SparseSet&) = delete;
    SparseSet& operator=(const SparseSet&) = delete;
    ~SparseSet() {
        clear();
        for (uint8_t* page : pages_) ::operator delete(page, std::align_val_t(align_));
    }

    [[nodiscard]] ComponentTypeID type_id() const noexcept { return ops_.type_id; }
    [[nodiscard]] const ComponentColumn& ops() const noexcept { return ops_; }
    /// Number of members.
    [[nodiscard]] size_t size() const noexcept { return size_; }
    /// Calls `fn(uint32_t entity_index, void* value)` for every member, in entity slot order.
    /// O(highest entity slot ever a member).
    template <typename Func>
    void each(Func&& fn) const {
        for (size_t i = 0; i < sparse_.size(); ++i) {
            const uint32_t s = sparse_.data()[i];
            if (s != 0) fn(static_cast<uint32_t>(i), at(s - 1));
        }
    }

    /// Slots per page (a power of two): the values of slots [k * n, (k + 1) * n) lie one after the
    /// other from at(k * n), `n` being this.
    [[nodiscard]] size_t page_slots() const noexcept { return size_t(mask_) + 1; }
    /// Bytes from one slot's value to the next one's in a page (0 for a tag: one object for all).
    [[nodiscard]] size_t stride() const noexcept { return stride_; }
    /// Number of slots ever used (members and free ones): the end of a walk over the slots.
    [[nodiscard]] ECS_FORCEINLINE size_t slot_count() const noexcept { return flags_.size(); }
    /// The member in slot `slot`, INVALID_ENTITY (index 0) while the slot is free. @pre slot < slot_count()
    [[nodiscard]] ECS_FORCEINLINE Entity owner(uint32_t slot) const noexcept { return owners_.data()[slot]; }

    /// Slot + 1 of entity slot `index`, 0 when absent.
    [[nodiscard]] ECS_FORCEINLINE uint32_t slot_of(uint32_t index) const noexcept {
        return index < sparse_.size() ? sparse_.data()[index] : 0u;
    }
    /// Address of slot `slot` (for a tag, its one shared object).
    [[nodiscard]] ECS_FORCEINLINE void* at(uint32_t slot) const noexcept {
        if (stride_ == 0) return ops_.data;
        return pages_.data()[slot >> shift_] + size_t(slot & mask_) * stride_;
    }
    /// The value of entity slot `index`, or nullptr.
    [[nodiscard]] ECS_FORCEINLINE void* find(uint32_t index) const noexcept {
        const uint32_t s = slot_of(index);
        return s != 0 ? at(s - 1) : nullptr;
    }
    [[nodiscard]] ECS_FORCEINLINE bool contains(uint32_t index) const noexcept { return slot_of(index) != 0; }
    /// The value of member `index`. @pre contains(index)
    [[nodiscard]] ECS_FORCEINLINE void* value_of(uint32_t index) const noexcept { return at(sparse_.data()[index] - 1); }

    /**
     * Makes `e` a member and returns its value's storage, UNINITIALISED (the caller constructs the
     * value there; a tag's shared object needs nothing). @pre `e` is not a member.
     */
    ECS_FORCEINLINE void* insert(Entity e) {
        if (ECS_UNLIKELY(e.index >= sparse_.size())) sparse_.resize(size_t(e.index) + 1, 0u);
        uint32_t slot;
        if (ECS_LIKELY(!free_.empty() && pins_ == 0)) {
            slot = free_.data()[free_.size() - 1];
            free_.pop_back();
        } else {
            slot = grow();
        }
        ++size_; // a free slot's flags are 0: nothing else to reset
        sparse_.data()[e.index] = slot + 1;
        owners_.data()[slot] = e;
        if (ECS_UNLIKELY(clock_ != nullptr)) {
            added_.data()[slot] = clock_->now;
            changed_.data()[slot] = clock_->now;
        }
        return at(slot);
    }

    /// Destroys the value of member `index` (unless `destroy` is false: never constructed) and
    /// frees its slot. @pre `index` is a member.
    ECS_FORCEINLINE void erase(uint32_t index, bool destroy = true) noexcept {
        const uint32_t slot = sparse_.data()[index] - 1;
        if (destroy && stride_ != 0) ops_.destroy_at(at(slot));
        release(index, slot);
    }
    /// Frees member `index`'s slot `slot` (its value already destroyed, or never constructed).
    ECS_FORCEINLINE void release(uint32_t index, uint32_t slot) noexcept {
        sparse_.data()[index] = 0;
        owners_.data()[slot] = INVALID_ENTITY;
        if (ECS_UNLIKELY(disabled_ != 0) && (flags_.data()[slot] & DISABLED)) {
            --disabled_;
            flags_.data()[slot] = 0;
        }
        --size_;
        free_.push_back_unchecked(slot); // grow() keeps room for every slot
    }

    /// Forgets every member without destroying its value (the values were relocated elsewhere).
    void clear_relocated() noexcept {
        for (size_t i = 0; i < sparse_.size() && size_ != 0; ++i)
            if (sparse_.data()[i] != 0) erase(static_cast<uint32_t>(i), false);
    }
    /// Destroys every value; keeps the pages.
    void clear() noexcept {
        for (size_t i = 0; i < sparse_.size() && size_ != 0; ++i)
            if (sparse_.data()[i] != 0) erase(static_cast<uint32_t>(i));
    }

    // -- enable bits --------------------------------------------------------------------------------

    [[nodiscard]] ECS_FORCEINLINE bool disabled_slot(uint32_t slot) const noexcept { return flags_.data()[slot] & DISABLED; }
    /// True when member `index` is disabled. @pre member
    [[nodiscard]] bool disabled(uint32_t index) const noexcept { return disabled_slot(sparse_.data()[index] - 1); }
    /// Disables (`off`) or enables member `index`. @return true when it changed. @pre member
    bool set_disabled(uint32_t index, bool off) noexcept {
        uint8_t& f = flags_.data()[sparse_.data()[index] - 1];
        if (((f & DISABLED) != 0) == off) return false;
        f = static_cast<uint8_t>(off ? (f | DISABLED) : (f & ~DISABLED));
        disabled_ = off ? disabled_ + 1 : disabled_ - 1;
        return true;
    }
    /// Number of disabled members.
    [[nodiscard]] size_t disabled_count() const noexcept { return disabled_; }

    // -- change detection ---------------------------------------------------------------------------

    /// Starts tick columns (track_changes): present members count as added now.
    void enable_ticks(ChangeClock* clock) {
        if (clock_ != nullptr) return;
        clock_ = clock;
        added_.resize(flags_.size(), clock->now);
        changed_.resize(flags_.size(), clock->now);
    }
    [[nodiscard]] ECS_FORCEINLINE bool ticks_active() const noexcept { return clock_ != nullptr; }
    /// Stamps member `index` changed now. @pre member, ticks_active()
    void touch(uint32_t index) noexcept { changed_.data()[sparse_.data()[index] - 1] = clock_->now; }
    /// Stamps the member in slot `slot` changed now. @pre a member's slot, ticks_active()
    ECS_FORCEINLINE void touch_slot(uint32_t slot) noexcept { changed_.data()[slot] = clock_->now; }
    [[nodiscard]] Tick added_tick(uint32_t slot) const noexcept { return added_.data()[slot]; }
    [[nodiscard]] Tick changed_tick(uint32_t slot) const noexcept { return changed_.data()[slot]; }

    // -- walks over the slots --------------------------------------------------------------------------

    /// Pins the set for a walk over its slots (see the file comment); nests.
    void pin() noexcept { ++pins_; }
    void unpin() noexcept { --pins_; }

    /// Bytes held (pages and index arrays).
    [[nodiscard]] size_t memory_bytes() const noexcept {
        return pages_.size() * (size_t(mask_) + 1) * stride_ + (sparse_.capacity() + free_.capacity()) * 4 +
               flags_.capacity() + owners_.capacity() * sizeof(Entity) + (added_.capacity() + changed_.capacity()) * sizeof(Tick);
    }

    /// Checks the index arrays against each other (World::check_invariants).
    [[nodiscard]] bool check() const noexcept {
        size_t members = 0;
        size_t disabled = 0;
        PodArray<uint8_t> used; // every slot is a member's or free, once
        used.resize(flags_.size(), 0);
        for (size_t i = 0; i < sparse_.size(); ++i) {
            const uint32_t s = sparse_.data()[i];
            if (s == 0) continue;
            ++members;
            if (s - 1 >= flags_.size() || used.data()[s - 1]++ != 0 || owners_.data()[s - 1].index != i) return false;
            disabled += (flags_.data()[s - 1] & DISABLED) ? 1u : 0u;
        }
        for (const uint32_t slot : free_)
            if (slot >= flags_.size() || used.data()[slot]++ != 0 || flags_.data()[slot] != 0 || owners_.data()[slot].index != 0)
                return false;
        return members == size_ && disabled == disabled_ && members + free_.size() == flags_.size() &&
               owners_.size() == flags_.size();
    }

private:
    /// A fresh slot past every used one (a new page when needed).
    ECS_NOINLINE uint32_t grow() {
        const uint32_t slot = static_cast<uint32_t>(flags_.size());
        if ((slot >> shift_) >= pages_.size() && stride_ != 0) {
            const size_t bytes = (size_t(mask_) + 1) * stride_;
            pages_.reserve_more(1); // first: nothing leaks if it throws
            pages_.push_back(static_cast<uint8_t*>(::operator new(bytes, std::align_val_t(align_))));
        }
        // Room in the free list for every slot, so erase() never allocates (it is noexcept).
        if (free_.capacity() < size_t(slot) + 1) free_.reserve(flags_.capacity() > slot ? flags_.capacity() : size_t(slot) * 2 + 16);
        flags_.push_back(0);
        owners_.push_back(INVALID_ENTITY);
        if (clock_ != nullptr) {
            added_.push_back(0);
            changed_.push_back(0);
        }
        return slot;
    }

    ComponentColumn ops_;            ///< the type's operations (its `data` is a tag's shared object)
    size_t stride_ = 0;              ///< sizeof(T), 0 for a tag
    size_t align_ = 16;              ///< page alignment
    uint32_t shift_ = 0;             ///< slots per page = 1 << shift_
    uint32_t mask_ = 0;
    PodArray<uint8_t*> pages_;       ///< never moved once allocated
    PodArray<uint32_t> sparse_;      ///< entity index -> slot + 1
    PodArray<uint32_t> free_;        ///< free slots, reused last-freed first (capacity: every slot)
    PodArray<uint8_t> flags_;        ///< per slot ever used: DISABLED (0 while free)
    PodArray<Entity> owners_;        ///< per slot ever used: its member (INVALID_ENTITY while free)
    uint32_t pins_ = 0;              ///< walks in progress over the slots (insert reuses no slot then)
    size_t size_ = 0;                ///< members
    size_t disabled_ = 0;
    ChangeClock* clock_ = nullptr;   ///< set while the type is tracked
    PodArray<Tick> added_;           ///< per slot, while tracked
    PodArray<Tick> changed_;
};

/**
 * @brief The sparse sets of one world, by component id. Created by the world on its first sparse
 *        component (heap-allocated, so the observers can point at it while the World moves).
 */
class SparseRoom {
public:
    SparseRoom() = default;
    SparseRoom(const SparseRoom&) = delete;
    SparseRoom& operator=(const SparseRoom&) = delete;
    ~SparseRoom() {
        for (SparseSet* s : sets_) delete s;
    }

    /// The set of `id`, or nullptr.
    [[nodiscard]] ECS_FORCEINLINE SparseSet* set(ComponentTypeID id) const noexcept {
        return id < sets_.size() ? sets_.data()[id] : nullptr;
    }
    /// The set of an id listed by ids() (which always has one). @pre `id` is in ids()
    [[nodiscard]] ECS_FORCEINLINE SparseSet& member(ComponentTypeID id) const noexcept {
        ECS_ASSERT(set(id) != nullptr, "SparseRoom::member: the id has no sparse set");
        return *sets_.data()[id];
    }
    /// The set of `id`, created when missing. @pre `id` has a column factory
    SparseSet& ensure(ComponentTypeID id) {
        if (SparseSet* s = set(id)) return *s;
        return create(id);
    }
    /// The ids that have a set, ascending.
    [[nodiscard]] const PodArray<ComponentTypeID>& ids() const noexcept { return ids_; }

    /// True when entity slot `index` has some sparse component.
    [[nodiscard]] bool any_for(uint32_t index) const noexcept {
        for (ComponentTypeID id : ids_)
            if (sets_.data()[id]->contains(index)) return true;
        return false;
    }
    /// Destroys every sparse component of entity slot `index`, in id order (no hooks).
    void erase_entity(uint32_t index) noexcept {
        for (ComponentTypeID id : ids_) {
            SparseSet& s = *sets_.data()[id];
            if (s.contains(index)) s.erase(index);
        }
    }
    /// Destroys every value of every set (the sets and their pages stay).
    void clear() noexcept {
        for (ComponentTypeID id : ids_) sets_.data()[id]->clear();
    }
    [[nodiscard]] size_t memory_bytes() const noexcept {
        size_t bytes = sizeof(SparseRoom);
        for (ComponentTypeID id : ids_) bytes += sizeof(SparseSet) + sets_.data()[id]->memory_bytes();
        return bytes;
    }

private:
    ECS_NOINLINE SparseSet& create(ComponentTypeID id) {
        if (id >= sets_.size()) sets_.resize(size_t(id) + 1, nullptr);
        ids_.reserve_more(1); // first: nothing leaks if it throws
        auto* s = new SparseSet(column_factory(id)());
        sets_.data()[id] = s;
        size_t at = ids_.size();
        ids_.push_back(id);
        for (; at > 0 && ids_.data()[at - 1] > id; --at) ids_.data()[at] = ids_.data()[at - 1];
        ids_.data()[at] = id;
        return *s;
    }

    PodArray<SparseSet*> sets_;     ///< owned; by component id
    PodArray<ComponentTypeID> ids_; ///< ids with a set, ascending
};

} // namespace ecs::detail
