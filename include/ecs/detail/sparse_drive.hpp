/**
 * @file ecs/detail/sparse_drive.hpp
 * @brief The sparse-driven path of the query engine: a query whose required types are all sparse
 *        (at least one; no table type among its terms, With, Changed or Added) walks the slots of its
 *        smallest required set instead of every row of every archetype, and tests each member on
 *        the query's other conditions (SparseDrive).
 *
 * What a member is tested on, in this order: the driving set's own slot (a member, enabled, and
 * stamped after `since` under Changed / Added), the other required sets (present, enabled, stamped),
 * the excluded sparse sets (absent or disabled), then, only when the query has such conditions, the
 * entity's record: the entity's enable bit (unless IncludeDisabled), the excluded table types (absent
 * from its archetype or disabled on its row), the Optional table terms (disabled on its row: `absent`)
 * and the AnyOf groups. A query without table conditions never reads the records: the walk reads the
 * set's handles, flags and values, each in slot order.
 *
 * The visiting order is the driving set's slot order (see sparse.hpp): deterministic for a given
 * history of adds and removes, but not archetype order.
 *
 * Thread-safety: a prepared SparseDrive only reads; walks of disjoint slot ranges may run on several
 * threads while nobody writes to the world (each_par).
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include "../archetype.hpp"
#include "../change_detection.hpp"
#include "../component.hpp"
#include "../config.hpp"
#include "../enable.hpp"
#include "../entity.hpp"
#include "../entity_index.hpp"
#include "../sparse.hpp"
#include "pod_array.hpp"
#include "row_filters.hpp"

namespace ecs::detail {

/**
 * @brief One sparse-driven walk: the driving set (the required set with the fewest members), the
 *        tests of the other conditions, and the end of the walk (the slots used when it was prepared).
 */
class SparseDrive {
public:
    static constexpr size_t MAX = 64; // QueryCheck caps terms and required + excluded types at 64

    /// Starts a drive: no set yet. `records` are read per member only when a table condition needs them.
    void reset(const PodArray<EntityRecord>* records, Tick since) noexcept {
        records_ = records;
        since_ = since;
        driver_ = nullptr;
        others_count_ = excluded_count_ = excluded_table_count_ = optional_count_ = any_count_ = any_groups_ = 0;
        check_entities_ = needs_record_ = false;
    }
    /// Adds a required set (`changed` / `added`: listed in Changed / Added). @return false when `set`
    /// is nullptr (the type has no set: no entity can pass).
    bool require(SparseSet* set, bool changed, bool added) noexcept {
        if (set == nullptr) return false;
        if (others_count_ < MAX) others_[others_count_++] = Required{set, changed, added};
        return true;
    }
    /// Adds an excluded set (nullptr: nobody has the type; nothing to test).
    void exclude(const SparseSet* set) noexcept {
        if (set != nullptr && excluded_count_ < MAX) excluded_[excluded_count_++] = set;
    }
    /// Tests the entities' enable bits (a world where some bit may be set, without IncludeDisabled).
    void check_entities() noexcept {
        check_entities_ = true;
        needs_record_ = true;
    }
    /// Picks the driving set: the required set with the fewest members (the first on a tie).
    /// @return false when there is none or it has no member (nothing to visit).
    bool finish() noexcept {
        if (others_count_ == 0) return false;
        size_t best = 0;
        for (size_t i = 1; i < others_count_; ++i)
            if (others_[i].set->size() < others_[best].set->size()) best = i;
        driver_ = others_[best].set;
        driver_changed_ = others_[best].changed;
        driver_added_ = others_[best].added;
        for (size_t i = best + 1; i < others_count_; ++i) others_[i - 1] = others_[i];
        --others_count_;
        end_ = driver_->slot_count();
        simple_ = (others_count_ | excluded_count_ | any_groups_) == 0 && !needs_record_ && !driver_changed_ && !driver_added_;
        return driver_->size() != 0;
    }

    /**
     * @brief Prepares the drive of cached query `q` (@pre q.sparse_driven) in a world whose sparse room
     *        is `room` and entity records `records`.
     * @param may_have_disabled some enable bit may be set in the world (ArchetypeGraph::may_have_disabled)
     * @param since Changed / Added pass values stamped after it (0: no change filter)
     * @return false when no entity can pass (a required type has no set, or the driving set is empty)
     */
    bool prepare(const QueryCache& q, const SparseRoom* room, const PodArray<EntityRecord>& records, bool may_have_disabled,
                 Tick since) noexcept {
        reset(&records, since);
        for (const ComponentTypeID id : q.sparse_required)
            if (!require(room != nullptr ? room->set(id) : nullptr, listed(q.sparse_changed, id), listed(q.sparse_added, id)))
                return false;
        for (const ComponentTypeID id : q.sparse_excluded) exclude(room != nullptr ? room->set(id) : nullptr);
        if (may_have_disabled && !q.include_disabled) check_entities();
        for (const ComponentTypeID id : q.excluded_ids) // table types (sparse ones are in sparse_excluded)
            if (excluded_table_count_ < MAX) excluded_table_[excluded_table_count_++] = id;
        for (size_t t = 0; t < q.optional_ids.size() && t < MAX; ++t) {
            const ComponentTypeID id = q.optional_ids.data()[t];
            if (id == INVALID_COMPONENT_ID) continue;
            optional_[optional_count_] = id;
            optional_term_[optional_count_++] = static_cast<uint32_t>(t);
        }
        uint32_t first = 0; // AnyOf groups: every alternative tested per member
        for (size_t g = 0; g < q.any_ends.size(); ++g) {
            const uint32_t end = q.any_ends.data()[g];
            for (uint32_t i = first; i < end && any_count_ < MAX; ++i) {
                const ComponentTypeID id = q.any_ids.data()[i];
                const bool sparse = q.any_sparse.data()[i] != 0;
                any_[any_count_++] = Alternative{id, sparse && room != nullptr ? room->set(id) : nullptr, sparse};
                needs_record_ = needs_record_ || !sparse;
            }
            if (any_groups_ < MAX) any_group_end_[any_groups_++] = static_cast<uint32_t>(any_count_);
            first = end;
        }
        needs_record_ = needs_record_ || excluded_table_count_ != 0 || optional_count_ != 0;
        return finish();
    }

    /// The driving set. @pre finish() returned true
    [[nodiscard]] SparseSet& driver() const noexcept { return *driver_; }
    /// The end of the walk: the driving set's slot count when the drive was prepared.
    [[nodiscard]] size_t end() const noexcept { return end_; }
    /// True when a member enabled in the driving set passes: nothing else to test (passes_rest).
    [[nodiscard]] bool simple() const noexcept { return simple_; }

    /**
     * @brief True when slot `slot` of the driving set holds a member that passes. Sets `e` to the
     *        member, `record` to its record (nullptr when no table condition needed it) and `absent`
     *        (bit t: Optional table term t is disabled on the member's row).
     */
    ECS_FORCEINLINE bool passes(uint32_t slot, Entity& e, const EntityRecord*& record, uint64_t& absent) const noexcept {
        const SparseSet& d = *driver_;
        e = d.owner(slot);
        record = nullptr;
        absent = 0;
        if (e.index == 0 || d.disabled_slot(slot)) return false;
        return passes_rest(slot, e, record, absent);
    }
    /**
     * @brief passes() for member `e`, enabled in slot `slot` of the driving set: the tests beyond that
     *        (the driving set's ticks, the other sets, the record). @pre `record` nullptr, `absent` 0
     */
    ECS_FORCEINLINE bool passes_rest(uint32_t slot, Entity e, const EntityRecord*& record, uint64_t& absent) const noexcept {
        const SparseSet& d = *driver_;
        if (driver_changed_ && d.changed_tick(slot) <= since_) return false;
        if (driver_added_ && d.added_tick(slot) <= since_) return false;
        if ((others_count_ | excluded_count_) != 0 && !passes_sets(e.index)) return false;
        if (!needs_record_ && any_groups_ == 0) return true;
        return passes_table(e.index, record, absent);
    }

private:
    struct Required {
        SparseSet* set;
        bool changed;
        bool added;
    };
    using Alternative = AnyAlternative;

    static bool listed(const PodArray<ComponentTypeID>& ids, ComponentTypeID id) noexcept {
        for (const ComponentTypeID x : ids)
            if (x == id) return true;
        return false;
    }

    /// The required sets other than the driving one, and the excluded sets.
    ECS_FORCEINLINE bool passes_sets(uint32_t index) const noexcept {
        return passes_sparse_sets(index, others_, others_count_, excluded_, excluded_count_, since_);
    }

    /// The conditions on the member's record: enable bits, excluded table types, Optional table
    /// terms, AnyOf groups.
    bool passes_table(uint32_t index, const EntityRecord*& record, uint64_t& absent) const noexcept {
        const Archetype* a = nullptr;
        size_t row = 0;
        bool bits = false; // some row of the archetype has a disabled bit
        if (needs_record_) {
            const EntityRecord& r = records_->data()[index];
            if (!r.live()) return false; // never for a member (destroy erases sparse values first)
            record = &r;
            a = r.archetype;
            row = r.row;
            bits = a->enable.any();
            if (check_entities_ && bits && a->enable.entity_disabled(row)) return false;
            for (size_t i = 0; i < excluded_table_count_; ++i) {
                const ComponentTypeID id = excluded_table_[i];
                if (a->has(id) && !(bits && a->enable.disabled(a->column_index[id], row))) return false; // held, enabled
            }
            if (bits)
                for (size_t i = 0; i < optional_count_; ++i) {
                    const ComponentTypeID id = optional_[i];
                    if (a->has(id) && a->enable.disabled(a->column_index[id], row)) absent |= uint64_t(1) << optional_term_[i];
                }
        }
        return any_groups_ == 0 || passes_any_groups(index, a, row, any_, any_group_end_, any_groups_);
    }

    const PodArray<EntityRecord>* records_ = nullptr;
    SparseSet* driver_ = nullptr;
    size_t end_ = 0;
    Tick since_ = 0;
    bool driver_changed_ = false;
    bool driver_added_ = false;
    bool check_entities_ = false; ///< test the entities' enable bits
    bool needs_record_ = false;   ///< some condition reads the member's record
    bool simple_ = false;         ///< see simple()
    size_t others_count_ = 0;
    size_t excluded_count_ = 0;
    size_t excluded_table_count_ = 0;
    size_t optional_count_ = 0;
    size_t any_count_ = 0;
    size_t any_groups_ = 0;
    // Arrays last, left uninitialised: only their first `..._count_` entries are read.
    Required others_[MAX];                 ///< required sets but the driving one, in the query's order
    const SparseSet* excluded_[MAX];        ///< excluded sparse sets
    ComponentTypeID excluded_table_[MAX];   ///< excluded table types
    ComponentTypeID optional_[MAX];         ///< Optional table terms' types
    uint32_t optional_term_[MAX];           ///< their term positions
    Alternative any_[MAX];                  ///< AnyOf alternatives, by group
    uint32_t any_group_end_[MAX];           ///< group g's alternatives end at any_group_end_[g]
};

/// Pins a set for the length of a walk over its slots (nullptr: nothing; a walk inside a parallel
/// section, where nobody may insert, pins nothing: the count would be a shared write).
class SparsePin {
public:
    explicit SparsePin(SparseSet* set) noexcept : set_(set) {
        if (set_ != nullptr) set_->pin();
    }
    ~SparsePin() {
        if (set_ != nullptr) set_->unpin();
    }
    SparsePin(const SparsePin&) = delete;
    SparsePin& operator=(const SparsePin&) = delete;

private:
    SparseSet* set_;
};

} // namespace ecs::detail
