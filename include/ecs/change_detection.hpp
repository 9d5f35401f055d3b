/**
 * @file ecs/change_detection.hpp
 * @brief Change detection (opt-in per world and type): the world's tick clock, the per-archetype tick
 *        columns, and the `Changed<Ts...>` / `Added<Ts...>` query filters.
 *
 * `world.track_changes<T>()` gives every archetype holding `T` two tick arrays row-parallel to `T`'s
 * column: the tick at which the row's `T` was added, and the tick at which it was last changed. Only
 * tracked types have them; an archetype with no tracked type has no tick storage at all, and every
 * row operation on it pays one predictable branch on `RowTicks::active()`.
 *
 * Ticks: the clock starts at 1 and is read (`now`) to stamp writes. A query handle whose run has a
 * Changed/Added filter visits rows stamped after its previous run (`tick > last_run`), then records
 * `last_run = now` and advances the clock. So writes made during the run, by the run itself or by
 * anything it calls, carry a tick <= that handle's `last_run` (it never sees them again) but > the
 * `last_run` of every other handle that ran before (they see them). Writes after the run carry the
 * advanced tick and are seen by the next run. A 32-bit clock advances once per filtered run: 4 billion
 * runs before wrap-around (not handled).
 *
 * Per column the archetype also keeps the highest tick ever stamped (`max_added`, `max_changed`), and
 * one bound per block of 1,024 rows, so a `Changed<T>` run skips an archetype, or a block, where
 * nothing changed since its last run without reading its rows.
 *
 * Thread-safety: as the archetype that owns the ticks (stamping is a plain write).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "detail/pod_array.hpp"

namespace ecs {

/**
 * @brief Query filter for `world.query(...)` (addition): the entity has every `Ts` and each of them was
 *        changed (written, added included) after the end of this handle's previous run.
 * @pre Every `Ts` is tracked (`world.track_changes<T>()`) when the handle runs (asserted; the run then
 *      visits nothing). Not accepted by `world.each` (compile error).
 */
template <typename... Ts>
struct Changed {};

/// @brief As Changed, for `Ts` added (create_with, add of a new T, instantiate, snapshot load, ...).
template <typename... Ts>
struct Added {};

namespace detail {

using Tick = uint32_t;

/// The tick source of one world. Heap-allocated by the archetype graph on the first track_changes,
/// so archetypes can point at it while the World moves.
struct ChangeClock {
    Tick now = 1;
};

/// Ticks of one tracked column: per row when its value was added and last changed, and per block of
/// BLOCK_ROWS rows an upper bound of both (a Changed/Added run skips blocks that cannot pass).
struct TickColumn {
    static constexpr size_t BLOCK_SHIFT = 10;
    static constexpr size_t BLOCK_ROWS = size_t(1) << BLOCK_SHIFT;

    PodArray<Tick> added;
    PodArray<Tick> changed;
    PodArray<Tick> block_added;   ///< >= every `added` tick of the block (never lowered but by permute)
    PodArray<Tick> block_changed; ///< >= every `changed` tick of the block
    Tick max_added = 0;   ///< >= every tick in `added`: a conservative bound for the whole archetype
    Tick max_changed = 0; ///< >= every tick in `changed`

    [[nodiscard]] size_t size() const noexcept { return added.size(); }

    /// Appends a row stamped `t`; `t` is the clock's current tick, the highest ever stamped.
    void push(Tick t) {
        if ((added.size() & (BLOCK_ROWS - 1)) == 0) {
            block_added.push_back(t);
            block_changed.push_back(t);
        } else {
            block_added.data()[added.size() >> BLOCK_SHIFT] = t;
            block_changed.data()[added.size() >> BLOCK_SHIFT] = t;
        }
        added.push_back(t);
        changed.push_back(t);
        max_added = t;
        max_changed = t;
    }
    /// Sets both ticks of `row` (a row moved in from another archetype or from the last row).
    void set(size_t row, Tick add, Tick change) noexcept {
        added.data()[row] = add;
        changed.data()[row] = change;
        raise(block_added.data()[row >> BLOCK_SHIFT], add);
        raise(block_changed.data()[row >> BLOCK_SHIFT], change);
        raise(max_added, add);
        raise(max_changed, change);
    }
    void touch(size_t row, Tick t) noexcept {
        changed.data()[row] = t;
        block_changed.data()[row >> BLOCK_SHIFT] = t;
        max_changed = t;
    }
    void touch_range(size_t begin, size_t count, Tick t) noexcept {
        if (count == 0) return;
        Tick* p = changed.data() + begin;
        for (size_t i = 0; i < count; ++i) p[i] = t;
        for (size_t b = begin >> BLOCK_SHIFT; b <= (begin + count - 1) >> BLOCK_SHIFT; ++b) block_changed.data()[b] = t;
        max_changed = t;
    }
    /// Swap-remove of `row`.
    void erase(size_t row) noexcept {
        const size_t last = added.size() - 1;
        if (row != last) set(row, added.data()[last], changed.data()[last]);
        added.pop_back();
        changed.pop_back();
        if ((last & (BLOCK_ROWS - 1)) == 0) {
            block_added.pop_back();
            block_changed.pop_back();
        }
    }
    /// Recomputes the block bounds from the rows (after a permutation).
    void rebuild_blocks() noexcept {
        for (size_t b = 0; b < block_added.size(); ++b) block_added.data()[b] = block_changed.data()[b] = 0;
        for (size_t row = 0; row < added.size(); ++row) {
            raise(block_added.data()[row >> BLOCK_SHIFT], added.data()[row]);
            raise(block_changed.data()[row >> BLOCK_SHIFT], changed.data()[row]);
        }
    }
    void clear() noexcept {
        added.clear();
        changed.clear();
        block_added.clear();
        block_changed.clear();
    }

private:
    static void raise(Tick& bound, Tick t) noexcept {
        if (t > bound) bound = t;
    }
};

/**
 * @brief The tick columns of one archetype, indexed like its component columns (nullptr for an
 *        untracked type). Rows stay parallel to the archetype's: the archetype calls push, erase,
 *        move and permute on every row operation while `active()`.
 */
class RowTicks {
public:
    /// True when some column of the archetype is tracked.
    [[nodiscard]] bool active() const noexcept { return clock_ != nullptr; }
    [[nodiscard]] Tick now() const noexcept { return clock_->now; }
    /// Ticks of column `c`, or nullptr when its type is not tracked.
    [[nodiscard]] TickColumn* column(size_t c) const noexcept { return c < columns_.size() ? columns_[c].get() : nullptr; }

    /// Starts tracking column `c` of `column_count`; its `rows` existing rows count as added now.
    void enable(size_t c, size_t column_count, size_t rows, ChangeClock* clock) {
        clock_ = clock;
        if (columns_.size() < column_count) columns_.resize(column_count);
        if (columns_[c] != nullptr) return;
        auto col = make_box<TickColumn>();
        for (size_t row = 0; row < rows; ++row) col->push(clock->now);
        columns_[c] = std::move(col);
    }

    /// A row was appended (new entity, or a migration that copies the shared ticks afterwards).
    void push() {
        const Tick t = clock_->now;
        for (auto& c : columns_)
            if (c != nullptr) c->push(t);
    }
    /// Rows were appended without push() (a snapshot load): they count as added now.
    void grow_to(size_t rows) {
        const Tick t = clock_->now;
        for (auto& c : columns_)
            if (c != nullptr)
                while (c->size() < rows) c->push(t);
    }
    /// Swap-remove of `row` (the last row fills it). Not a change.
    void erase(size_t row) noexcept {
        for (auto& c : columns_) {
            if (c == nullptr) continue;
            c->erase(row);
        }
    }
    /// New row i holds old row `order[i]`. Not a change.
    void permute(const std::vector<uint32_t>& order) {
        PodArray<Tick> scratch;
        for (auto& c : columns_) {
            if (c == nullptr) continue;
            for (PodArray<Tick>* arr : {&c->added, &c->changed}) {
                scratch.assign(arr->data(), arr->size());
                for (size_t i = 0; i < order.size(); ++i) arr->data()[i] = scratch.data()[order[i]];
            }
            c->rebuild_blocks();
        }
    }
    void clear() noexcept {
        for (auto& c : columns_)
            if (c != nullptr) c->clear();
    }
    [[nodiscard]] size_t memory_bytes() const noexcept {
        size_t bytes = 0;
        for (const auto& c : columns_)
            if (c != nullptr) bytes += sizeof(TickColumn) + 2 * c->added.size() * sizeof(Tick);
        return bytes;
    }

private:
    ChangeClock* clock_ = nullptr;
    std::vector<Box<TickColumn>> columns_;
};

} // namespace detail
} // namespace ecs
