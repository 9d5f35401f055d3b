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
 * nothing changed since its last run without reading its rows; and for `changed`, one bound per
 * group of 16 rows (one cache line of ticks), so a run over scattered changes reads the tick lines
 * of the groups where something changed only.
 *
 * A mutable pass that covers whole blocks (a system iterating an archetype) does not write the rows'
 * `changed` ticks: it raises the block's floor (`block_floor`: every row of the block changed at or
 * after it), so stamping costs O(blocks) instead of O(rows), and a Changed<T> run passes such a block
 * whole without reading its rows. A row's tick is max(its `changed` entry, its block's floor)
 * (`changed_tick`); a write that would lower a row below its block's floor (a row moved in) first
 * folds the floor into the block's rows.
 *
 * Thread-safety: as the archetype that owns the ticks (stamping is a plain write).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "config.hpp"
#include "detail/pod_array.hpp"

namespace ecs {

/**
 * @brief Query filter for `world.query(...)`: the entity has every `Ts` and each of them was
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

struct TickColumn;
class RowTicks;

/**
 * The operations on tick columns that row operations and query runs call, reached through a table
 * the first track_changes installs (ChangeClock::ops): a translation unit of a program that tracks no
 * type does not compile them. Each costs one indirect call, only where ticks are active.
 */
struct TickOps {
    void (*enable)(RowTicks&, size_t c, size_t column_count, size_t rows, const struct ChangeClock* clock);
    void (*push)(RowTicks&);
    void (*grow_to)(RowTicks&, size_t rows);
    void (*erase)(RowTicks&, size_t row);
    void (*permute)(RowTicks&, const std::vector<uint32_t>& order);
    void (*clear)(RowTicks&);
    void (*destroy)(RowTicks&);
    void (*touch)(TickColumn&, size_t row, Tick t);
    void (*touch_range)(TickColumn&, size_t begin, size_t count, Tick t);
    void (*set)(TickColumn&, size_t row, Tick add, Tick change);
};

/// The tick source of one world. Heap-allocated by the archetype graph on the first track_changes,
/// so archetypes can point at it while the World moves.
struct ChangeClock {
    Tick now = 1;
    const TickOps* ops = nullptr; ///< set by its creator (ArchetypeGraph::track): tick_ops<>
};

/**
 * @brief Ticks of one tracked column: per row when its value was added and last changed; per block
 *        of BLOCK_ROWS rows an upper bound of both and a floor of `changed`; per group of GROUP_ROWS
 *        rows a summary of `changed` (a Changed/Added run skips blocks and groups that cannot pass).
 *
 * Invariants, per group g of 16 rows (its rows' `changed` entries, floors left out):
 * every entry <= group_changed[g]; the rows in group_rows[g] (bit i: row 16g+i) hold exactly
 * group_changed[g]; the other rows hold <= group_below[g]. So a run with progress `since` where
 * group_changed[g] > since >= group_below[g] passes exactly group_rows[g] without reading the ticks
 * (the common case: a few rows written since the last run).
 */
struct TickColumn {
    static constexpr size_t BLOCK_SHIFT = 10;
    static constexpr size_t BLOCK_ROWS = size_t(1) << BLOCK_SHIFT;
    static constexpr size_t GROUP_SHIFT = 4;
    static constexpr size_t GROUP_ROWS = size_t(1) << GROUP_SHIFT;

    PodArray<Tick> added;
    PodArray<Tick> changed;
    PodArray<Tick> block_added;   ///< >= every `added` tick of the block (never lowered but by permute)
    PodArray<Tick> block_changed; ///< >= every changed tick of the block (floor included)
    PodArray<Tick> block_floor;   ///< <= every changed tick of the block: the block's rows changed at or after it (0: none)
    PodArray<Tick> group_changed; ///< the highest `changed` entry of the group (see the invariants)
    PodArray<Tick> group_below;   ///< >= the entries of the group's rows outside group_rows
    PodArray<uint16_t> group_rows; ///< the group's rows whose entry is group_changed
    Tick max_added = 0;   ///< >= every tick in `added`: a conservative bound for the whole archetype
    Tick max_changed = 0; ///< >= every tick in `changed`

    [[nodiscard]] size_t size() const noexcept { return added.size(); }
    /// The tick at which `row`'s value was last changed.
    [[nodiscard]] Tick changed_tick(size_t row) const noexcept {
        const Tick own = changed.data()[row];
        const Tick floor = block_floor.data()[row >> BLOCK_SHIFT];
        return own > floor ? own : floor;
    }

    /// Appends a row stamped `t`; `t` is the clock's current tick, the highest ever stamped (so at
    /// least its block's floor and its group's entries).
    void push(Tick t) {
        const size_t row = added.size();
        if ((row & (BLOCK_ROWS - 1)) == 0) {
            block_added.push_back(t);
            block_changed.push_back(t);
            block_floor.push_back(0);
        } else {
            block_added.data()[row >> BLOCK_SHIFT] = t;
            block_changed.data()[row >> BLOCK_SHIFT] = t;
        }
        if ((row & (GROUP_ROWS - 1)) == 0) {
            group_changed.push_back(t);
            group_below.push_back(0);
            group_rows.push_back(1);
        } else {
            stamp_group(row >> GROUP_SHIFT, bit_of(row), t);
        }
        added.push_back(t);
        changed.push_back(t);
        max_added = t;
        max_changed = t;
    }
    /// Sets both ticks of `row` (a row moved in from another archetype or from the last row).
    void set(size_t row, Tick add, Tick change) noexcept {
        if (ECS_UNLIKELY(block_floor.data()[row >> BLOCK_SHIFT] > change)) fold_floor(row >> BLOCK_SHIFT);
        added.data()[row] = add;
        changed.data()[row] = change;
        raise(block_added.data()[row >> BLOCK_SHIFT], add);
        raise(block_changed.data()[row >> BLOCK_SHIFT], change);
        const size_t g = row >> GROUP_SHIFT;
        if (change >= group_changed.data()[g]) {
            stamp_group(g, bit_of(row), change);
        } else {
            group_rows.data()[g] = static_cast<uint16_t>(group_rows.data()[g] & ~bit_of(row));
            raise(group_below.data()[g], change);
        }
        raise(max_added, add);
        raise(max_changed, change);
    }
    /// Stamps `row` changed at `t` (the current tick).
    void touch(size_t row, Tick t) noexcept {
        changed.data()[row] = t;
        block_changed.data()[row >> BLOCK_SHIFT] = t;
        stamp_group(row >> GROUP_SHIFT, bit_of(row), t);
        max_changed = t;
    }
    /// Stamps rows [begin, begin + count) changed at `t` (the current tick): the blocks the range
    /// covers whole (up to the last row) through their floor, the rest row by row.
    void touch_range(size_t begin, size_t count, Tick t) noexcept {
        if (count == 0) return;
        const size_t end = begin + count;
        const size_t rows = added.size();
        for (size_t b = begin >> BLOCK_SHIFT; b <= (end - 1) >> BLOCK_SHIFT; ++b) {
            const size_t block_begin = b << BLOCK_SHIFT;
            const size_t block_end = block_begin + BLOCK_ROWS < rows ? block_begin + BLOCK_ROWS : rows;
            const size_t lo = begin > block_begin ? begin : block_begin;
            const size_t hi = end < block_end ? end : block_end;
            if (lo == block_begin && hi == block_end) {
                block_floor.data()[b] = t;
            } else {
                Tick* p = changed.data();
                for (size_t row = lo; row < hi; ++row) p[row] = t;
                for (size_t g = lo >> GROUP_SHIFT; g <= (hi - 1) >> GROUP_SHIFT; ++g) {
                    const size_t first = g << GROUP_SHIFT;
                    const size_t from = lo > first ? lo - first : 0;
                    const size_t to = hi < first + GROUP_ROWS ? hi - first : GROUP_ROWS;
                    stamp_group(g, static_cast<uint16_t>(((1u << to) - 1u) & ~((1u << from) - 1u)), t);
                }
            }
            block_changed.data()[b] = t;
        }
        max_changed = t;
    }
    /// Swap-remove of `row`.
    void erase(size_t row) noexcept {
        const size_t last = added.size() - 1;
        if (row != last) set(row, added.data()[last], changed_tick(last));
        added.pop_back();
        changed.pop_back();
        if ((last & (BLOCK_ROWS - 1)) == 0) {
            block_added.pop_back();
            block_changed.pop_back();
            block_floor.pop_back();
        }
        if ((last & (GROUP_ROWS - 1)) == 0) {
            group_changed.pop_back();
            group_below.pop_back();
            group_rows.pop_back();
        } else {
            group_rows.data()[last >> GROUP_SHIFT] = static_cast<uint16_t>(group_rows.data()[last >> GROUP_SHIFT] & ~bit_of(last));
        }
    }
    /// Writes every floor into its block's rows and clears it (before rows are reordered).
    void fold_floors() noexcept {
        for (size_t b = 0; b < block_floor.size(); ++b)
            if (block_floor.data()[b] != 0) fold_floor(b);
    }
    /// Recomputes the block bounds and group summaries from the rows (after a permutation; floors
    /// folded before it).
    void rebuild_blocks() noexcept {
        for (size_t b = 0; b < block_added.size(); ++b) block_added.data()[b] = block_changed.data()[b] = 0;
        for (size_t row = 0; row < added.size(); ++row) {
            raise(block_added.data()[row >> BLOCK_SHIFT], added.data()[row]);
            raise(block_changed.data()[row >> BLOCK_SHIFT], changed.data()[row]);
        }
        for (size_t g = 0; g < group_changed.size(); ++g) summarize_group(g);
    }
    /**
     * Calls `fn(row)` for every row added or changed after `since`, in row order (change streams).
     * Blocks with nothing newer are skipped whole, a block whose floor is newer passes whole, and a
     * group of 16 rows is read row by row only when its summary cannot tell.
     */
    template <typename Fn>
    void each_newer(Tick since, Fn&& fn) const {
        const size_t rows = added.size();
        for (size_t b = 0; b < block_added.size(); ++b) {
            const bool any_added = block_added.data()[b] > since;
            const bool any_changed = block_changed.data()[b] > since;
            if (!any_added && !any_changed) continue;
            const size_t lo = b << BLOCK_SHIFT;
            const size_t hi = lo + BLOCK_ROWS < rows ? lo + BLOCK_ROWS : rows;
            if (block_floor.data()[b] > since) {
                for (size_t row = lo; row < hi; ++row) fn(row);
                continue;
            }
            // The groups of the block to look into: one compare per group, branch-free, then only
            // the set bits (64 groups of 16 rows per block).
            const size_t g0 = lo >> GROUP_SHIFT;
            const size_t groups = (hi - lo + GROUP_ROWS - 1) >> GROUP_SHIFT;
            uint64_t look = 0;
            if (any_added) {
                look = groups == 64 ? ~uint64_t(0) : (uint64_t(1) << groups) - 1;
            } else {
                const Tick* top = group_changed.data() + g0;
                for (size_t i = 0; i < groups; ++i) look |= uint64_t(top[i] > since) << i;
            }
            while (look != 0) {
                const size_t i = static_cast<size_t>(__builtin_ctzll(look));
                look &= look - 1;
                const size_t g = g0 + i;
                const size_t first = g << GROUP_SHIFT;
                const size_t end = first + GROUP_ROWS < hi ? first + GROUP_ROWS : hi;
                uint32_t mask = 0;
                if (any_changed && group_changed.data()[g] > since) {
                    if (group_below.data()[g] <= since) {
                        mask = group_rows.data()[g];
                    } else {
                        for (size_t row = first; row < end; ++row)
                            if (changed.data()[row] > since) mask |= 1u << (row - first);
                    }
                }
                if (any_added)
                    for (size_t row = first; row < end; ++row)
                        if (added.data()[row] > since) mask |= 1u << (row - first);
                while (mask != 0) {
                    const size_t bit = static_cast<size_t>(__builtin_ctz(mask));
                    mask &= mask - 1;
                    if (first + bit < end) fn(first + bit);
                }
            }
        }
    }

    /// Becomes a copy of `other` (World::copy_from); no allocation when the arrays fit.
    void copy_from(const TickColumn& other) {
        added.assign(other.added.data(), other.added.size());
        changed.assign(other.changed.data(), other.changed.size());
        block_added.assign(other.block_added.data(), other.block_added.size());
        block_changed.assign(other.block_changed.data(), other.block_changed.size());
        block_floor.assign(other.block_floor.data(), other.block_floor.size());
        group_changed.assign(other.group_changed.data(), other.group_changed.size());
        group_below.assign(other.group_below.data(), other.group_below.size());
        group_rows.assign(other.group_rows.data(), other.group_rows.size());
        max_added = other.max_added;
        max_changed = other.max_changed;
    }
    void clear() noexcept {
        added.clear();
        changed.clear();
        block_added.clear();
        block_changed.clear();
        block_floor.clear();
        group_changed.clear();
        group_below.clear();
        group_rows.clear();
    }

private:
    static uint16_t bit_of(size_t row) noexcept { return static_cast<uint16_t>(1u << (row & (GROUP_ROWS - 1))); }
    /// Rows `bits` of group `g` now hold `t`, at least every entry of the group.
    void stamp_group(size_t g, uint16_t bits, Tick t) noexcept {
        Tick& top = group_changed.data()[g];
        if (t > top) {
            raise(group_below.data()[g], top); // the rows that held the old top, but for `bits`
            top = t;
            group_rows.data()[g] = bits;
        } else {
            group_rows.data()[g] = static_cast<uint16_t>(group_rows.data()[g] | bits);
        }
    }
    /// Recomputes group `g`'s summary from its rows.
    void summarize_group(size_t g) noexcept {
        const size_t begin = g << GROUP_SHIFT;
        const size_t end = begin + GROUP_ROWS < changed.size() ? begin + GROUP_ROWS : changed.size();
        Tick top = 0;
        for (size_t row = begin; row < end; ++row) raise(top, changed.data()[row]);
        Tick below = 0;
        uint16_t rows = 0;
        for (size_t row = begin; row < end; ++row) {
            if (changed.data()[row] == top) rows = static_cast<uint16_t>(rows | bit_of(row));
            else raise(below, changed.data()[row]);
        }
        group_changed.data()[g] = top;
        group_below.data()[g] = below;
        group_rows.data()[g] = rows;
    }
    /// Writes the floor of block `b` into its rows (raising those below it) and clears it.
    ECS_NOINLINE void fold_floor(size_t b) noexcept {
        const Tick floor = block_floor.data()[b];
        const size_t begin = b << BLOCK_SHIFT;
        const size_t end = begin + BLOCK_ROWS < changed.size() ? begin + BLOCK_ROWS : changed.size();
        Tick* p = changed.data();
        for (size_t row = begin; row < end; ++row)
            if (p[row] < floor) p[row] = floor;
        for (size_t g = begin >> GROUP_SHIFT; g <= (end - 1) >> GROUP_SHIFT; ++g) summarize_group(g);
        block_floor.data()[b] = 0;
    }
    static void raise(Tick& bound, Tick t) noexcept {
        if (t > bound) bound = t;
    }
};

/**
 * @brief The tick columns of one archetype, indexed like its component columns (nullptr for an
 *        untracked type). Rows stay parallel to the archetype's: the archetype calls push, erase,
 *        move and permute on every row operation while `active()`. The work is done through the
 *        table `TickOps` (installed with the clock), so it is compiled only where a type is tracked.
 */
class RowTicks {
public:
    RowTicks() noexcept = default;
    RowTicks(const RowTicks&) = delete;
    RowTicks& operator=(const RowTicks&) = delete;
    RowTicks(RowTicks&& other) noexcept : clock_(other.clock_), ops_(other.ops_), columns_(static_cast<PodArray<TickColumn*>&&>(other.columns_)) {
        other.clock_ = nullptr;
        other.ops_ = nullptr;
    }
    RowTicks& operator=(RowTicks&&) = delete;
    ~RowTicks() {
        if (ops_ != nullptr) ops_->destroy(*this);
    }

    /// True when some column of the archetype is tracked.
    [[nodiscard]] bool active() const noexcept { return clock_ != nullptr; }
    [[nodiscard]] Tick now() const noexcept { return clock_->now; }
    /// Ticks of column `c`, or nullptr when its type is not tracked.
    [[nodiscard]] TickColumn* column(size_t c) const noexcept { return c < columns_.size() ? columns_[c] : nullptr; }

    /// Starts tracking column `c` of `column_count`; its `rows` existing rows count as added now.
    void enable(size_t c, size_t column_count, size_t rows, const ChangeClock* clock) {
        clock->ops->enable(*this, c, column_count, rows, clock);
    }
    /// A row was appended (new entity, or a migration that copies the shared ticks afterwards).
    void push() { ops_->push(*this); }
    /// Rows were appended without push() (a snapshot load): they count as added now.
    void grow_to(size_t rows) { ops_->grow_to(*this, rows); }
    /// Swap-remove of `row` (the last row fills it). Not a change.
    void erase(size_t row) noexcept { ops_->erase(*this, row); }
    /// New row i holds old row `order[i]`. Not a change.
    void permute(const std::vector<uint32_t>& order) { ops_->permute(*this, order); }
    void clear() noexcept {
        if (ops_ != nullptr) ops_->clear(*this);
    }
    /// Stamps `row` of tracked column `c` changed now.
    void touch(TickColumn& c, size_t row) const noexcept { ops_->touch(c, row, clock_->now); }
    /// Stamps rows [begin, begin + count) of tracked column `c` changed now.
    void touch_range(TickColumn& c, size_t begin, size_t count) const noexcept { ops_->touch_range(c, begin, count, clock_->now); }
    /// Sets both ticks of `row` of tracked column `c` (a row moved in).
    void set(TickColumn& c, size_t row, Tick add, Tick change) const noexcept { ops_->set(c, row, add, change); }
    [[nodiscard]] size_t memory_bytes() const noexcept;

private:
    template <class>
    friend struct TickOpsOf;

    const ChangeClock* clock_ = nullptr;
    const TickOps* ops_ = nullptr; ///< clock_->ops, kept here: the destructor may run after the clock is gone
    PodArray<TickColumn*> columns_; ///< owned; deleted by ops_->destroy
};

/// The implementations behind TickOps (a template: compiled only where tick_ops<> is named).
template <class = void>
struct TickOpsOf {
    static void enable(RowTicks& r, size_t c, size_t column_count, size_t rows, const ChangeClock* clock) {
        r.clock_ = clock;
        r.ops_ = clock->ops;
        if (r.columns_.size() < column_count) r.columns_.resize(column_count, nullptr);
        if (r.columns_[c] != nullptr) return;
        Box<TickColumn> col = make_box<TickColumn>();
        for (size_t row = 0; row < rows; ++row) col->push(clock->now);
        r.columns_[c] = col.release();
    }
    static void push(RowTicks& r) {
        const Tick t = r.clock_->now;
        for (TickColumn* c : r.columns_)
            if (c != nullptr) c->push(t);
    }
    static void grow_to(RowTicks& r, size_t rows) {
        const Tick t = r.clock_->now;
        for (TickColumn* c : r.columns_)
            if (c != nullptr)
                while (c->size() < rows) c->push(t);
    }
    static void erase(RowTicks& r, size_t row) {
        for (TickColumn* c : r.columns_)
            if (c != nullptr) c->erase(row);
    }
    static void permute(RowTicks& r, const std::vector<uint32_t>& order) {
        PodArray<Tick> scratch;
        for (TickColumn* c : r.columns_) {
            if (c == nullptr) continue;
            c->fold_floors();
            for (PodArray<Tick>* arr : {&c->added, &c->changed}) {
                scratch.assign(arr->data(), arr->size());
                for (size_t i = 0; i < order.size(); ++i) arr->data()[i] = scratch.data()[order[i]];
            }
            c->rebuild_blocks();
        }
    }
    static void clear(RowTicks& r) {
        for (TickColumn* c : r.columns_)
            if (c != nullptr) c->clear();
    }
    static void destroy(RowTicks& r) {
        for (TickColumn* c : r.columns_) delete c;
        r.columns_.clear();
    }
    static void touch(TickColumn& c, size_t row, Tick t) { c.touch(row, t); }
    static void touch_range(TickColumn& c, size_t begin, size_t count, Tick t) { c.touch_range(begin, count, t); }
    static void set(TickColumn& c, size_t row, Tick add, Tick change) { c.set(row, add, change); }
};

/// The table ArchetypeGraph::track installs in the world's clock.
template <class = void>
inline constexpr TickOps tick_ops = {&TickOpsOf<>::enable, &TickOpsOf<>::push,  &TickOpsOf<>::grow_to,
                                     &TickOpsOf<>::erase,  &TickOpsOf<>::permute, &TickOpsOf<>::clear,
                                     &TickOpsOf<>::destroy, &TickOpsOf<>::touch, &TickOpsOf<>::touch_range,
                                     &TickOpsOf<>::set};

inline size_t RowTicks::memory_bytes() const noexcept {
    size_t bytes = 0;
    for (const TickColumn* c : columns_)
        if (c != nullptr) bytes += sizeof(TickColumn) + 2 * c->added.size() * sizeof(Tick);
    return bytes;
}

} // namespace detail
} // namespace ecs
