/**
 * @file ecs/archetype.hpp
 * @brief Archetypes: one table per distinct set of component types, stored as Structure-of-Arrays.
 *
 * Column storage: an archetype whose columns are all plain bytes at malloc alignment (trivially
 * relocatable, alignof <= alignof(max_align_t)) gives each column its own allocation, grown with
 * realloc (large columns move pages, not bytes). Any other archetype keeps one block, regions
 * aligned to max(16, alignof(T)), reallocated and relocated element by element:
 *
 *     [col0: cap * size0] [pad] [col1: cap * size1] [pad] ...
 *
 * Tag columns (empty types, see detail::is_tag_v) take no region. The entity handles live in a
 * separate array, row-parallel to the columns. Archetypes are owned by their World's archetype graph
 * and never destroyed before it, so pointers to them (records, edges, query caches) stay valid.
 *
 * This room owns everything about its rows: appending (push_entity), growth (reallocate),
 * swap-remove (erase_row), migration to another archetype (move_row_to, or push_entity then
 * move_row_into; append_rows_to for all rows at once) and reordering (permute).
 * It never reaches back into the World: callers update the entity records from what it returns.
 *
 * Change detection (change_detection.hpp): `ticks` holds tick columns for the tracked types only; every
 * row operation keeps them parallel to the rows behind one `ticks.active()` branch. Moves inside
 * storage (migration, swap-remove, permute, growth) carry the ticks along and never count as changes.
 *
 * Enable bits (enable.hpp): `enable` holds the disabled bits of this archetype's rows; every row
 * operation carries them along behind one `enable.any()` branch (false while nothing here is disabled).
 */
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "change_detection.hpp"
#include "component.hpp"
#include "component_mask.hpp"
#include "detail/algorithms.hpp"
#include "detail/atomic_slot.hpp"
#include "detail/pod_array.hpp"
#include "enable.hpp"
#include "entity.hpp"

#if ECS_COMPACT_RECORDS
#endif

namespace ecs {

/// Sorted, duplicate-free list of component ids identifying an archetype.
using TypeSet = std::vector<ComponentTypeID>;

/// Hash functor for TypeSet keys (FNV-1a over the ids).
struct TypeSetHash {
    [[nodiscard]] size_t operator()(const TypeSet& set) const noexcept { return of(set.data(), set.size()); }
    /// The hash of the `count` ids at `ids` (the same as of a TypeSet holding them).
    [[nodiscard]] static size_t of(const ComponentTypeID* ids, size_t count) noexcept {
        uint64_t h = 1469598103934665603ull;
        for (size_t i = 0; i < count; ++i) {
            h ^= ids[i];
            h *= 1099511628211ull;
        }
        return static_cast<size_t>(h);
    }
};

class Archetype;

#if ECS_COMPACT_RECORDS
namespace detail {
/**
 * The compact-records build's archetype ids: every live archetype of the process holds an id
 * (1..16383; 0 is "none"), and lives in slot `id` of one static arena (archetype_arena, after the
 * class), so an entity record names its archetype in two bytes and finds it by arithmetic, with no
 * table to read (ArchetypeRef). The arena is static storage: its pages become resident only as ids
 * are used. Ids are taken and given back under a spin lock (archetypes are created rarely).
 */
struct ArchetypeIds {
    static constexpr uint32_t CAPACITY = 1u << 14;
    uint16_t next_free[CAPACITY] = {};
    uint32_t free_head = 0; ///< most recently given back id (0: none)
    uint32_t high = 0;      ///< highest id ever handed out
    detail::AtomicSlot<bool> locked{false};

    /// Takes an id; 0 when all CAPACITY - 1 are in use.
    uint16_t acquire() noexcept {
        lock();
        uint32_t id = 0;
        if (free_head != 0) {
            id = free_head;
            free_head = next_free[id];
        } else if (high + 1 < CAPACITY) {
            id = ++high;
        }
        locked.store(false, detail::order_release);
        return static_cast<uint16_t>(id);
    }
    /// Gives `id` back (0: nothing).
    void release(uint16_t id) noexcept {
        if (id == 0) return;
        lock();
        next_free[id] = static_cast<uint16_t>(free_head);
        free_head = id;
        locked.store(false, detail::order_release);
    }

private:
    void lock() noexcept {
        while (locked.exchange(true, detail::order_acquire)) {
        }
    }
};
inline ArchetypeIds archetype_ids;
} // namespace detail
#endif

/// Cached neighbours in the archetype graph: the archetype reached by adding / removing one type.
struct ArchetypeEdge {
    Archetype* add = nullptr;
    Archetype* remove = nullptr;
    /// How a row crosses this edge as plain bytes (Archetype::plain_plan): steps
    /// [first - 1, first - 1 + count) of the source's `plain_steps`, the first `count8` of stride 8.
    /// first == 0: no plan (the source's rows are not plain bytes).
    struct Plan {
        uint32_t first = 0;
        uint16_t count = 0;
        uint16_t count8 = 0;
    };
    Plan add_plan;
    Plan remove_plan;
};

/// One column of a plain move: the source column and the destination's column of the same
/// type (nullptr when the destination lacks it: the value is dropped).
struct PlainStep {
    ComponentColumn* from;
    ComponentColumn* to;
};

/**
 * @brief A table of entities that all have exactly the same component types.
 *
 * Internal to the World: users reach archetypes only through queries. Members are public so that the
 * world, snapshots and prefabs can work on them directly; they keep the invariants below.
 *
 * Invariants: `columns[i].type_id == types[i]`; every column holds `entities.size()` live objects;
 * `mask` has exactly the bits of `types`; `column_index[id]` is the column of `id` or NO_COLUMN;
 * `data_by_id[types[i]] == columns[i].data`.
 */
class Archetype {
public:
    static constexpr uint16_t NO_COLUMN = 0xFFFF; ///< all bits set: the constructor fills with memset
    /// Bytes the first allocation aims at (spec: initial capacity max(16, 16384 / row_size)).
    static constexpr size_t INITIAL_BLOCK_BYTES = 16384;
    static constexpr size_t MIN_CAPACITY = 16;
    /// Widest stride the fast migration copies inline (wider ones take the general path's memcpy).
    static constexpr size_t PLAIN_MAX_BYTES = 64;

    /// @pre `type_set` is sorted, duplicate-free, every id < ECS_MAX_COMPONENTS and has a factory.
    Archetype(const TypeSet& type_set, uint32_t archetype_id)
        : Archetype(type_set.data(), type_set.size(), archetype_id) {}
    /// The archetype of the `count` ids at `ids` (the same preconditions). The archetype graph builds
    /// archetypes through this one: no TypeSet is copied or compared on the way.
    ECS_NOINLINE Archetype(const ComponentTypeID* ids, size_t count, uint32_t archetype_id)
        : types(ids, ids + count), type_hash(TypeSetHash::of(ids, count)), id(archetype_id) {
#if ECS_COMPACT_RECORDS
        registry_id = arena_id_of(this);
#endif
        std::memset(column_index.data(), 0xFF, sizeof column_index); // every entry NO_COLUMN (0xFFFF)
        columns.reserve(count);
        for (size_t k = 0; k < count; ++k) {
            const ComponentTypeID t = ids[k];
            column_index[t] = static_cast<uint16_t>(columns.size());
            mask.set(t);
            columns.push_back(column_factory(t)());
            const ComponentColumn& c = columns[columns.size() - 1];
            row_size += c.elem_size;
            if (c.elem_align > block_align) block_align = c.elem_align;
            if (!c.trivially_relocatable) all_trivial = false;
            if (c.elem_size > PLAIN_MAX_BYTES) small_columns = false;
        }
        sync_data();
    }
    Archetype(const Archetype&) = delete;
    Archetype& operator=(const Archetype&) = delete;
#if ECS_COMPACT_RECORDS
    /// The compact-records build places every archetype in its id's arena slot; nullptr (and no
    /// archetype) when all 16383 ids are in use.
    static void* operator new(size_t size) noexcept;
    static void operator delete(void* p) noexcept;
    /// The arena slot `self` lies in (0: outside the arena, e.g. an archetype on the stack).
    static uint16_t arena_id_of(const void* self) noexcept;
#endif

    ECS_NOINLINE ~Archetype() {
        destroy_all_rows();
        free_block();
    }

    [[nodiscard]] size_t size() const noexcept { return entities.size(); }
    [[nodiscard]] size_t capacity() const noexcept { return capacity_; }
    /// Bytes of the column block (0 while empty or when every column is a tag).
    [[nodiscard]] size_t block_bytes() const noexcept { return block_bytes_; }

    [[nodiscard]] bool has(ComponentTypeID t) const noexcept {
        return t < ECS_MAX_COMPONENTS && column_index[t] != NO_COLUMN;
    }
    /// Column holding `t`. @pre has(t)
    [[nodiscard]] ComponentColumn& column(ComponentTypeID t) noexcept { return columns[column_index[t]]; }
    [[nodiscard]] const ComponentColumn& column(ComponentTypeID t) const noexcept { return columns[column_index[t]]; }

    /// Edge slot for `t`, grown on demand.
    ArchetypeEdge& edge(ComponentTypeID t) {
        if (t >= edges.size()) edges.resize(size_t(t) + 1, ArchetypeEdge{});
        return edges[t];
    }

    /// Makes room for one more row, so that the next push_entity() neither grows nor fails.
    ECS_FORCEINLINE void reserve_row() {
        if (ECS_UNLIKELY(entities.size() == entities.capacity())) grow_rows(); // one test covers both arrays
    }

    /**
     * Appends a row for `e` and returns its index. The row's components are uninitialised: the caller
     * must construct every non-tag column at that row before anything else touches this archetype.
     * May reallocate the block (invalidating column pointers of this archetype).
     */
    uint32_t push_entity(Entity e) {
        const size_t row = entities.size();
        reserve_row();
        store_entity(entities.extend_unchecked(), e);
        if (ECS_UNLIKELY(ticks.active())) ticks.push(); // a new row counts as added now
        return static_cast<uint32_t>(row);
    }

    /// True when the next push_entity moves this archetype's existing components to a new block (so
    /// an argument referring into the old block must be taken out first).
    [[nodiscard]] bool full() const noexcept { return capacity_ != 0 && entities.size() == capacity_; }

    /**
     * Destroys the components at `row` and fills the row from the last one, in one pass per column.
     * @return the entity that now occupies `row`, or INVALID_ENTITY when `row` was the last row.
     */
    ECS_FORCEINLINE Entity erase_row(size_t row) noexcept {
        const size_t last = entities.size() - 1;
        if (ECS_LIKELY(all_trivial)) {
            // Plain bytes: nothing to destroy, one copy per column fills the hole (tags copy nothing).
            if (row != last)
                for (ComponentColumn& c : columns)
                    ComponentColumn::copy_bytes(c.data + row * c.elem_size, c.data + last * c.elem_size, c.elem_size);
            return pop_into(row);
        }
        for (ComponentColumn& c : columns) {
            if (c.elem_size == 0) continue;
            uint8_t* hole = c.data + row * c.elem_size;
            c.destroy_at(hole);
            if (row != last) c.relocate(hole, c.data + last * c.elem_size);
        }
        return pop_into(row);
    }

    /// Moves the last entity handle into `row` (the columns are already dealt with) and drops the
    /// last row. @return the entity now at `row`, or INVALID_ENTITY when `row` was the last row.
    ECS_FORCEINLINE Entity pop_into(size_t row) noexcept {
        if (ECS_UNLIKELY(has_side_rows())) return pop_side_rows(row);
        return pop_handle(row);
    }

    /// True when rows carry more than columns: tick columns (a tracked type) or disabled bits. Row
    /// operations test this once and leave the rest to a function of its own.
    [[nodiscard]] ECS_FORCEINLINE bool has_side_rows() const noexcept { return ticks.active() || enable.any(); }

    /// Result of move_row_to(): the row the entity got in the destination, and the entity that
    /// filled the hole it left (INVALID_ENTITY when it was the last row).
    struct RowMove {
        uint32_t dst_row;
        Entity filled_by;
    };

    /**
     * Moves the row `src_row` (entity `e`) to `dst`: components both archetypes share are relocated,
     * the others destroyed; the hole is filled from the last row. Columns of `dst` that this
     * archetype lacks are left UNINITIALISED at the returned row: the caller constructs them. The
     * caller updates the records of `e` and of `filled_by`.
     */
    ECS_FORCEINLINE RowMove move_row_to(uint32_t src_row, Archetype& dst, Entity e) {
        const uint32_t dst_row = dst.push_entity(e);
        return RowMove{dst_row, move_row_into(src_row, dst, dst_row)};
    }

    /**
     * The second half of move_row_to, for a row already pushed to `dst` (at `dst_row`): relocates the
     * shared components of `src_row` there, destroys the others, fills the hole from the last row.
     * Callers that construct `dst`'s new columns before the source rows move (so arguments that refer
     * into this archetype are read while still valid) push the row, construct, then call this.
     * @return the entity that now occupies `src_row`, or INVALID_ENTITY when it was the last row.
     */
    ECS_FORCEINLINE Entity move_row_into(uint32_t src_row, Archetype& dst, uint32_t dst_row) {
        const size_t last = size() - 1;
        if (ECS_LIKELY(all_trivial)) {
            // Every column is plain bytes: per column one copy out (when `dst` keeps the type) and one
            // copy from the last row into the hole, nothing to destroy. Tags have stride 0.
            const uint16_t* const to_column = dst.column_index.data();
            ComponentColumn* const dst_columns = dst.columns.data();
            ComponentColumn* const first = columns.data();
            ComponentColumn* const end = first + columns.size();
            if (src_row != last) {
                for (ComponentColumn* c = first; c != end; ++c) {
                    const size_t size = c->elem_size;
                    uint8_t* const base = c->data;
                    uint8_t* const from = base + src_row * size;
                    const uint16_t to = to_column[c->type_id];
                    if (to != NO_COLUMN)
                        ComponentColumn::copy_bytes(dst_columns[to].data + size_t(dst_row) * size, from, size);
                    ComponentColumn::copy_bytes(from, base + last * size, size);
                }
            } else {
                for (ComponentColumn* c = first; c != end; ++c) {
                    const size_t size = c->elem_size;
                    const uint16_t to = to_column[c->type_id];
                    if (to != NO_COLUMN)
                        ComponentColumn::copy_bytes(dst_columns[to].data + size_t(dst_row) * size, c->data + src_row * size, size);
                }
            }
        } else {
            move_columns(src_row, last, dst, dst_row);
        }
        if (ECS_UNLIKELY(has_side_rows())) return move_side_rows(src_row, dst, dst_row);
        return pop_handle(src_row);
    }

    /// True when push_entity() would neither grow a buffer nor stamp ticks: the entity list has
    /// room, so the block has too (`entities.capacity() <= capacity_` while rows have bytes).
    [[nodiscard]] ECS_FORCEINLINE bool has_plain_room() const noexcept {
        return entities.size() != entities.capacity() && !ticks.active();
    }

    /**
     * Builds the plan of a plain move from this archetype to `dst` (called when the edge is
     * linked): one step per column with bytes, stride-8 columns first. No plan (first == 0) unless
     * every column is plain bytes of at most PLAIN_MAX_BYTES. Steps point at `columns` of both
     * archetypes, which never move once constructed.
     */
    ArchetypeEdge::Plan plain_plan(Archetype& dst) {
        ArchetypeEdge::Plan plan;
        if (!all_trivial || !small_columns) return plan;
        plan.first = static_cast<uint32_t>(plain_steps.size() + 1);
        for (int pass = 0; pass < 2; ++pass) {
            for (ComponentColumn& c : columns) {
                if (c.elem_size == 0 || (c.elem_size == 8) != (pass == 0)) continue;
                const uint16_t to = dst.column_index[c.type_id];
                plain_steps.push_back(PlainStep{&c, to == NO_COLUMN ? nullptr : &dst.columns[to]});
                ++plan.count;
                if (pass == 0) ++plan.count8;
            }
        }
        return plan;
    }

    /**
     * move_row_to() for the fast path, following `plan` (see plain_plan): appends `e` to
     * `dst`, copies the columns both have, fills the hole from the last row. Inline code only (no
     * call, no allocation), so the caller stays a leaf function. Columns of `dst` this archetype
     * lacks are left UNINITIALISED at the returned row: the caller constructs them.
     * @pre plan.first != 0, !has_side_rows() and dst.has_plain_room(); `&dst != this`.
     */
    ECS_FORCEINLINE RowMove move_plain_row(ArchetypeEdge::Plan plan, uint32_t src_row, Archetype& dst, Entity e) noexcept {
        const size_t dst_row = dst.entities.size();
        store_entity(dst.entities.extend_unchecked(), e);
        const size_t last = entities.size() - 1;
        const PlainStep* step = plain_steps.data() + (plan.first - 1);
        const PlainStep* const end8 = step + plan.count8;
        const PlainStep* const end = step + plan.count;
        if (src_row != last) {
            for (; step != end8; ++step) {
                uint8_t* const base = step->from->data;
                if (step->to != nullptr) std::memcpy(step->to->data + dst_row * 8, base + size_t(src_row) * 8, 8);
                std::memcpy(base + size_t(src_row) * 8, base + last * 8, 8);
            }
            for (; step != end; ++step) {
                const size_t size = step->from->elem_size;
                uint8_t* const hole = step->from->data + src_row * size;
                if (step->to != nullptr) copy_plain(step->to->data + dst_row * size, hole, size);
                copy_plain(hole, step->from->data + last * size, size);
            }
        } else {
            for (; step != end8; ++step)
                if (step->to != nullptr) std::memcpy(step->to->data + dst_row * 8, step->from->data + size_t(src_row) * 8, 8);
            for (; step != end; ++step) {
                const size_t size = step->from->elem_size;
                if (step->to != nullptr) copy_plain(step->to->data + dst_row * size, step->from->data + src_row * size, size);
            }
        }
        return RowMove{static_cast<uint32_t>(dst_row), pop_handle(src_row)};
    }

    /**
     * Moves EVERY row of this archetype to the end of `dst`, in row order (bulk migration): per
     * shared column one memcpy (trivially relocatable types) or one relocation per element; columns
     * `dst` lacks are destroyed; `dst`'s columns this archetype lacks are left UNINITIALISED at the
     * new rows: the caller constructs them. Ticks of shared tracked types go along; types `dst` gains
     * count as added now. This archetype is left empty (its block kept).
     * @return the first new row in `dst`. The caller updates the records of rows [base, dst.size()).
     * @pre `&dst != this`.
     */
    uint32_t append_rows_to(Archetype& dst) {
        const size_t n = size();
        const size_t base = dst.size();
        dst.reserve(base + n);
        for (ComponentColumn& c : columns) {
            if (c.elem_size == 0) continue; // tags: nothing stored
            const uint16_t to = dst.column_index[c.type_id];
            if (to == NO_COLUMN) {
                if (!c.trivially_relocatable)
                    for (size_t row = 0; row < n; ++row) c.destroy(c.at(row));
                continue;
            }
            uint8_t* out = dst.columns[to].data + base * c.elem_size;
            if (c.trivially_relocatable) {
                std::memcpy(out, c.data, n * c.elem_size);
            } else {
                for (size_t row = 0; row < n; ++row) c.relocate(out + row * c.elem_size, c.at(row));
            }
        }
        dst.entities.append(entities.data(), n); // capacity reserved above
        if (ECS_UNLIKELY(dst.ticks.active())) {
            dst.ticks.grow_to(base + n); // new rows: added now
            if (ticks.active())
                for (size_t c = 0; c < columns.size(); ++c) {
                    const detail::TickColumn* from = ticks.column(c);
                    detail::TickColumn* to = from != nullptr ? dst.ticks_of(columns[c].type_id) : nullptr;
                    if (to == nullptr) continue;
                    for (size_t row = 0; row < n; ++row)
                        dst.ticks.set(*to, base + row, from->added.data()[row], from->changed_tick(row));
                }
        }
        if (ECS_UNLIKELY(enable.any())) // disabled bits go along (types `dst` keeps, entity bits)
            for (size_t row = 0; row < n; ++row) move_enable(static_cast<uint32_t>(row), dst, static_cast<uint32_t>(base + row));
        entities.clear();
        ticks.clear();
        enable.clear();
        return static_cast<uint32_t>(base);
    }

    /**
     * Reorders the rows so that new row i holds old row `order[i]` (all columns and the entity list
     * in lockstep, by swaps along the permutation's cycles). `placed` is scratch space. The caller
     * updates the records of every row.
     */
    void permute(const std::vector<uint32_t>& order, detail::PodArray<uint8_t>& placed) {
        const size_t n = order.size();
        placed.assign(n, 0);
        for (size_t i = 0; i < n; ++i) {
            if (placed[i]) continue;
            size_t j = i;
            for (;;) {
                placed[j] = 1;
                const size_t k = order[j];
                if (k == i) break;
                for (ComponentColumn& c : columns)
                    if (c.elem_size != 0) c.swap(c.at(j), c.at(k));
                const Entity tmp = entities[j];
                entities[j] = entities[k];
                entities[k] = tmp;
                j = k;
            }
        }
        if (ECS_UNLIKELY(ticks.active())) ticks.permute(order);
        if (ECS_UNLIKELY(enable.any())) enable.permute(order);
    }

    /// Starts change tracking of `t` on this archetype (no-op without `t`); existing rows count as
    /// added at the clock's current tick.
    void enable_ticks(ComponentTypeID t, detail::ChangeClock* clock) {
        if (has(t)) ticks.enable(column_index[t], columns.size(), size(), clock);
    }
    /// Tick column of `t`, or nullptr when `t` is absent or not tracked.
    [[nodiscard]] detail::TickColumn* ticks_of(ComponentTypeID t) const noexcept {
        return has(t) ? ticks.column(column_index[t]) : nullptr;
    }
    /// Records that the `t` at `row` changed now (no-op when `t` is not tracked).
    void touch(ComponentTypeID t, size_t row) noexcept {
        if (detail::TickColumn* c = ticks_of(t)) ticks.touch(*c, row);
    }
    // -- enable bits (enable.hpp) ------------------------------------------------------------

    /// Disables (`off`) or enables `t` at `row`. @return true when the state changed. @pre has(t), row < size()
    ECS_FORCEINLINE bool set_disabled(ComponentTypeID t, size_t row, bool off) {
        return enable.set(column_index[t], columns.size(), row, off);
    }
    /// True when `t` is disabled at `row`. @pre has(t)
    [[nodiscard]] ECS_FORCEINLINE bool disabled(ComponentTypeID t, size_t row) const noexcept {
        return enable.disabled(column_index[t], row);
    }

    /// The types of `row` as queries see them: `mask` less the types disabled there. @return false
    /// when the row's entity is disabled (it matches no query without IncludeDisabled).
    bool effective_mask(size_t row, ComponentMask& out) const noexcept {
        if (enable.entity_disabled(row)) return false;
        out = mask;
        if (enable.any())
            for (size_t c = 0; c < columns.size(); ++c)
                if (enable.disabled(c, row)) out.reset(types[c]);
        return true;
    }

    /// Rows appended to `entities` directly (snapshot loading) get their ticks: added now.
    void sync_ticks() {
        if (ECS_UNLIKELY(ticks.active())) ticks.grow_to(size());
    }

    /**
     * Appends a copy of every row of `src` after this archetype's rows, in `src`'s row order, entity
     * handles included (World::clone). Trivially copyable columns are copied with one memcpy each,
     * the others element by element through their copy function. If a copy constructor throws, the
     * copies made so far are destroyed and this archetype is left as it was. The caller updates
     * the records.
     * @pre `src.types == types`; every non-tag column has a copy function or is trivially copyable.
     */
    void copy_rows_from(const Archetype& src) {
        const size_t n = src.size();
        if (n == 0) return;
        const size_t base = size();
        reserve(base + n);
        struct Rollback { // destroys the copies made so far unless the copy completes
            Archetype& self;
            size_t base, n, column = 0, row = 0;
            bool done = false;
            ~Rollback() {
                if (done) return;
                for (size_t k = 0; k <= column && k < self.columns.size(); ++k) {
                    const ComponentColumn& c = self.columns[k];
                    const size_t rows = k < column ? n : row;
                    if (c.elem_size != 0)
                        for (size_t r = 0; r < rows; ++r) c.destroy_at(c.at(base + r));
                }
            }
        } rollback{*this, base, n};
        for (; rollback.column < columns.size(); ++rollback.column) {
            const ComponentColumn& c = columns[rollback.column];
            const ComponentColumn& from = src.columns[rollback.column];
            if (c.elem_size == 0) continue; // tags: nothing stored
            if (c.trivially_relocatable) {
                std::memcpy(c.at(base), from.data, n * c.elem_size);
                continue;
            }
            for (rollback.row = 0; rollback.row < n; ++rollback.row) c.copy(c.at(base + rollback.row), from.at(rollback.row));
        }
        rollback.done = true;
        entities.append(src.entities.data(), n); // within the reserved capacity: one memcpy
        sync_ticks(); // tracked types (none in a fresh clone): the copies count as added now
        enable.append_from(src.enable, base, n, columns.size()); // disabled stays disabled
    }

    /**
     * Copies every value of `src` over this archetype's values, row by row (World::copy_from when
     * both worlds already hold the same structure: the entities, ticks' shape and enable bits are
     * equal and stay). Trivially copyable columns: one memcpy each. Others: each value is copied
     * into a temporary first, then replaces the old one (a throwing copy constructor leaves the old
     * value in place). Nothing is allocated for trivially copyable columns.
     * @pre `src.types == types` and `src.size() == size()`.
     */
    void copy_values_from(const Archetype& src) {
        const size_t n = size();
        if (n == 0) return;
        for (size_t k = 0; k < columns.size(); ++k) {
            const ComponentColumn& c = columns[k];
            const ComponentColumn& from = src.columns[k];
            if (c.elem_size == 0) continue; // tags: nothing stored
            if (c.trivially_relocatable) {
                std::memcpy(c.data, from.data, n * c.elem_size);
                continue;
            }
            struct Temp { // one value's storage (on the stack when it fits), freed however the loop ends
                alignas(64) unsigned char local[256];
                void* p;
                size_t align;
                Temp(size_t size, size_t a) : p(size <= sizeof local && a <= 64 ? static_cast<void*>(local) : ::operator new(size, std::align_val_t(a))), align(a) {}
                Temp(const Temp&) = delete;
                Temp& operator=(const Temp&) = delete;
                ~Temp() {
                    if (p != static_cast<void*>(local)) ::operator delete(p, std::align_val_t(align));
                }
            } temp(c.type_size, c.elem_align);
            for (size_t row = 0; row < n; ++row) {
                c.copy(temp.p, from.at(row));
                c.destroy_at(c.at(row));
                c.move(c.at(row), temp.p);
                c.destroy_at(temp.p);
            }
        }
    }

    /// Destroys every row (entities included); keeps the block for reuse.
    void clear() noexcept {
        destroy_all_rows();
        entities.clear();
        ticks.clear();
        enable.clear();
    }

    /// Makes room for at least `n` rows (one allocation at most).
    void reserve(size_t n) {
        if (n <= entities.capacity()) return; // the block holds at least as many rows
        if (row_size != 0 && n > capacity_) {
            size_t cap = capacity_ ? capacity_ : initial_capacity();
            while (cap < n) cap *= 2;
            reallocate(cap);
        }
        entities.reserve(row_size != 0 ? capacity_ : n);
    }

    /// `max(16, 16384 / row_size)`.
    [[nodiscard]] size_t initial_capacity() const noexcept {
        return row_size == 0 ? MIN_CAPACITY : detail::max_of(MIN_CAPACITY, INITIAL_BLOCK_BYTES / row_size);
    }

    TypeSet types;                          ///< sorted component ids
    size_t type_hash = 0;                   ///< TypeSetHash of `types` (the world's archetype index)
    detail::PodArray<ComponentColumn> columns;   ///< one per type, same order as `types`
    detail::PodArray<Entity> entities;           ///< row -> entity (capacity never above the block's)
    detail::RowEnable enable;               ///< disabled bits (enable.hpp); near `entities`: every query run tests it
    ComponentMask mask;                     ///< bit per type, for query matching
    detail::PodArray<ArchetypeEdge> edges;       ///< edge cache indexed by component id
    detail::PodArray<PlainStep> plain_steps;     ///< the steps of every edge's plain plan
    std::array<uint16_t, ECS_MAX_COMPONENTS> column_index{}; ///< component id -> column, or NO_COLUMN
    uint32_t id = 0;                        ///< position in the world's archetype list
#if ECS_COMPACT_RECORDS
    uint16_t registry_id = 0;               ///< its slot in detail::archetype_arena (set by operator new)
#endif
    size_t row_size = 0;                    ///< sum of the columns' strides
    bool all_trivial = true;                ///< every column is trivially copyable (no destructor to run)
    bool small_columns = true;              ///< every stride <= PLAIN_MAX_BYTES (plain_plan())
    detail::RowTicks ticks;                 ///< tick columns of the tracked types (change_detection.hpp)

private:
    /// Copies one element of at most PLAIN_MAX_BYTES with inline code only: the common strides
    /// spelled out, others in 8-byte words and a tail (no memcpy call: move_plain_row stays a leaf).
    static ECS_FORCEINLINE void copy_plain(uint8_t* dst, const uint8_t* src, size_t n) noexcept {
        if (ECS_LIKELY(n == 8)) {
            std::memcpy(dst, src, 8);
        } else if (n == 4) {
            std::memcpy(dst, src, 4);
        } else if (n == 16) {
            std::memcpy(dst, src, 16);
        } else if (n != 0) {
            for (; n >= 8; n -= 8, dst += 8, src += 8) std::memcpy(dst, src, 8);
            if (n & 4) { std::memcpy(dst, src, 4); dst += 4; src += 4; }
            if (n & 2) { std::memcpy(dst, src, 2); dst += 2; src += 2; }
            if (n & 1) *dst = *src;
        }
    }

    /// Writes handle `e` at `slot` in one 8-byte store where the layout allows (GCC otherwise stores
    /// the index and the generation separately, one more store on the create and migrate paths).
    static ECS_FORCEINLINE void store_entity(Entity* slot, Entity e) noexcept {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        static_assert(sizeof(Entity) == 8 && offsetof(Entity, generation) == 4, "Entity: {index, generation}");
        const uint64_t bits = uint64_t(e.index) | uint64_t(e.generation) << 32;
        std::memcpy(static_cast<void*>(slot), &bits, sizeof bits);
#else
        *slot = e;
#endif
    }

    /// pop_into() without side rows: the last handle fills `row`, the last row goes.
    ECS_FORCEINLINE Entity pop_handle(size_t row) noexcept {
        const size_t last = entities.size() - 1;
        Entity moved = INVALID_ENTITY;
        if (row != last) {
            moved = entities[last];
            entities[row] = moved;
        }
        entities.pop_back();
        return moved;
    }
    /// pop_into() when ticks or disabled bits go along with the rows.
    ECS_NOINLINE Entity pop_side_rows(size_t row) noexcept {
        const size_t last = entities.size() - 1;
        const Entity moved = pop_handle(row);
        if (ticks.active()) ticks.erase(row);
        if (enable.any()) enable.erase(row, last);
        return moved;
    }
    /// The end of move_row_into() when ticks or disabled bits go along with the rows.
    ECS_NOINLINE Entity move_side_rows(uint32_t src_row, Archetype& dst, uint32_t dst_row) {
        if (ticks.active()) move_ticks(src_row, dst, dst_row);
        if (enable.any()) move_enable(src_row, dst, dst_row);
        return pop_side_rows(src_row);
    }

    /// Copies the ticks of the moving row to `dst` (which already pushed a row stamped "added now":
    /// the types `dst` gains keep that stamp). The source row's ticks go with pop_into.
    ECS_NOINLINE void move_ticks(uint32_t src_row, Archetype& dst, uint32_t dst_row) noexcept {
        for (size_t c = 0; c < columns.size(); ++c) {
            const detail::TickColumn* from = ticks.column(c);
            if (from == nullptr) continue;
            detail::TickColumn* to = dst.ticks_of(columns[c].type_id);
            if (to != nullptr) dst.ticks.set(*to, dst_row, from->added.data()[src_row], from->changed_tick(src_row));
        }
    }

    /// Copies the disabled bits of the moving row to `dst` for the types `dst` keeps, and the entity
    /// bit (`dst` pushed an enabled row). The source row's bits go with pop_into.
    ECS_NOINLINE void move_enable(uint32_t src_row, Archetype& dst, uint32_t dst_row) {
        for (size_t c = 0; c < columns.size(); ++c) {
            if (!enable.disabled(c, src_row)) continue;
            const ComponentTypeID t = columns[c].type_id;
            if (dst.has(t)) dst.set_disabled(t, dst_row, true);
        }
        if (enable.entity_disabled(src_row)) dst.enable.set_entity(dst_row, true);
    }

    /// The general column pass of move_row_to: move each value out (or destroy it), then fill the
    /// hole from the last row.
    ECS_NOINLINE void move_columns(uint32_t src_row, size_t last, Archetype& dst, uint32_t dst_row) {
        for (ComponentColumn& c : columns) {
            if (c.elem_size == 0) continue; // tags: nothing stored
            uint8_t* from = c.data + src_row * c.elem_size;
            const uint16_t to = dst.column_index[c.type_id];
            if (to != NO_COLUMN) {
                c.relocate(dst.columns[to].data + size_t(dst_row) * c.elem_size, from);
            } else {
                c.destroy_at(from);
            }
            if (src_row != last) c.relocate(from, c.data + last * c.elem_size);
        }
    }

    void destroy_all_rows() noexcept {
        if (all_trivial) return;
        for (ComponentColumn& c : columns) {
            if (c.trivially_relocatable) continue;
            for (size_t row = 0; row < entities.size(); ++row) c.destroy(c.at(row));
        }
    }

    /// push_entity() found the entity list full. Keeps `entities.capacity() <= capacity_` whenever
    /// rows have bytes, so a row that fits the list also fits the block.
    ECS_NOINLINE void grow_rows() {
        if (row_size == 0) {
            entities.reserve(detail::max_of<size_t>(MIN_CAPACITY, entities.capacity() * 2));
            return;
        }
        if (entities.size() == capacity_) reallocate(capacity_ ? capacity_ * 2 : initial_capacity());
        entities.reserve(capacity_);
    }

    static size_t align_up(size_t v, size_t a) noexcept { return (v + a - 1) / a * a; }
    static size_t region_align(const ComponentColumn& c) noexcept { return detail::max_of<size_t>(16, c.elem_align); }

    /// Plain-byte columns whose alignment malloc already gives are separate allocations grown with
    /// realloc: the allocator may extend in place or move pages instead of bytes.
    [[nodiscard]] bool grows_with_realloc() const noexcept {
        return all_trivial && detail::max_of<size_t>(16, block_align) <= alignof(std::max_align_t);
    }

    ECS_NOINLINE void reallocate(size_t new_capacity) {
        if (grows_with_realloc()) {
            reallocate_columns(new_capacity);
            return;
        }
        size_t bytes = 0;
        for (const ComponentColumn& c : columns) {
            if (c.elem_size == 0) continue;
            bytes = align_up(bytes, region_align(c)) + new_capacity * c.elem_size;
        }
        const size_t align = detail::max_of<size_t>(16, block_align);
        auto* fresh = static_cast<uint8_t*>(::operator new(bytes, std::align_val_t(align)));
        size_t offset = 0;
        const size_t n = entities.size();
        for (ComponentColumn& c : columns) {
            if (c.elem_size == 0) continue;
            offset = align_up(offset, region_align(c));
            uint8_t* dst = fresh + offset;
            if (n != 0) {
                if (c.trivially_relocatable) {
                    std::memcpy(dst, c.data, n * c.elem_size);
                } else {
                    for (size_t i = 0; i < n; ++i) c.relocate(dst + i * c.elem_size, c.at(i));
                }
            }
            c.data = dst;
            offset += new_capacity * c.elem_size;
        }
        free_block();
        block = fresh;
        block_bytes_ = bytes;
        capacity_ = new_capacity;
        sync_data();
    }

    /// Plain bytes at malloc alignment: each column is its own allocation and grows with realloc,
    /// which for large columns moves pages (mremap) instead of bytes. No column shifts inside a
    /// shared block, so growth copies nothing and leaves no touched page behind (resident
    /// bytes per entity are the bytes the rows use). `block` stays nullptr.
    void reallocate_columns(size_t new_capacity) {
        size_t total = 0;
        for (ComponentColumn& c : columns) {
            if (c.elem_size == 0) continue;
            void* grown = std::realloc(c.data, new_capacity * c.elem_size);
            if (grown == nullptr) detail::out_of_memory(); // this column is intact; capacity_ unchanged
            c.data = static_cast<uint8_t*>(grown);
            total += new_capacity * c.elem_size;
        }
        block_bytes_ = total;
        capacity_ = new_capacity;
        sync_data();
    }

    /// Copies every column's data pointer into data_by_id (after construction and each reallocation).
    void sync_data() noexcept {
        for (const ComponentColumn& c : columns) data_by_id[c.type_id] = c.data;
    }

    void free_block() noexcept {
        if (grows_with_realloc()) {
            for (ComponentColumn& c : columns) {
                if (c.elem_size == 0) continue;
                std::free(c.data);
                c.data = nullptr;
            }
            return;
        }
        if (block == nullptr) return;
        ::operator delete(block, std::align_val_t(detail::max_of<size_t>(16, block_align)));
    }

    uint8_t* block = nullptr;
    size_t capacity_ = 0;
    size_t block_bytes_ = 0;
    size_t block_align = 16;

public:
    /// Component id -> its column's first element (nullptr for ids not held), kept equal to
    /// `columns[column_index[id]].data` through every reallocation: World::get reads a value in one
    /// step from the archetype, as a hand-written table of arrays would (8 bytes per possible id).
    /// Last, so that the members row operations read stay together.
    std::array<uint8_t*, ECS_MAX_COMPONENTS> data_by_id{};
};

#if ECS_COMPACT_RECORDS
namespace detail {
/// Bytes between arena slots: sizeof(Archetype) rounded up to a power of two (a shift finds a slot).
inline constexpr size_t ARCHETYPE_STRIDE = [] {
    size_t n = 64;
    while (n < sizeof(Archetype)) n *= 2;
    return n;
}();
/// Slot `id` holds the archetype of that id; slot 0 is never used.
alignas(64) inline unsigned char archetype_arena[ArchetypeIds::CAPACITY * ARCHETYPE_STRIDE];

/// The arena slot of `id`. @pre id != 0
ECS_FORCEINLINE Archetype* archetype_at(uint16_t id) noexcept {
    return reinterpret_cast<Archetype*>(archetype_arena + size_t(id) * ARCHETYPE_STRIDE);
}
} // namespace detail

inline void* Archetype::operator new(size_t size) noexcept {
    ECS_ASSERT(size <= detail::ARCHETYPE_STRIDE, "Archetype: larger than its arena slot");
    (void)size;
    const uint16_t id = detail::archetype_ids.acquire();
    if (id == 0) return nullptr;
    return detail::archetype_arena + size_t(id) * detail::ARCHETYPE_STRIDE;
}

inline uint16_t Archetype::arena_id_of(const void* self) noexcept {
    const auto* p = static_cast<const unsigned char*>(self);
    const unsigned char* base = detail::archetype_arena;
    if (p < base || p >= base + sizeof detail::archetype_arena) return 0; // not made by operator new
    return static_cast<uint16_t>(static_cast<size_t>(p - base) / detail::ARCHETYPE_STRIDE);
}

inline void Archetype::operator delete(void* p) noexcept {
    if (p == nullptr) return;
    const size_t offset = static_cast<size_t>(static_cast<unsigned char*>(p) - detail::archetype_arena);
    detail::archetype_ids.release(static_cast<uint16_t>(offset / detail::ARCHETYPE_STRIDE));
}

/**
 * @brief The compact-records build's archetype pointer in two bytes: the archetype's arena slot.
 *        It converts to and from `Archetype*`, so an entity record reads the same in both builds.
 */
class ArchetypeRef {
public:
    ArchetypeRef() noexcept = default;
    ArchetypeRef(std::nullptr_t) noexcept {}
    ArchetypeRef(Archetype* a) noexcept : id_(a == nullptr ? uint16_t(0) : a->registry_id) {}
    [[nodiscard]] ECS_FORCEINLINE Archetype* get() const noexcept { return id_ == 0 ? nullptr : detail::archetype_at(id_); }
    ECS_FORCEINLINE operator Archetype*() const noexcept { return get(); }
    ECS_FORCEINLINE Archetype* operator->() const noexcept { return detail::archetype_at(id_); }
    ECS_FORCEINLINE Archetype& operator*() const noexcept { return *detail::archetype_at(id_); }
    friend bool operator==(ArchetypeRef a, std::nullptr_t) noexcept { return a.id_ == 0; }
    friend bool operator!=(ArchetypeRef a, std::nullptr_t) noexcept { return a.id_ != 0; }
    friend bool operator==(std::nullptr_t, ArchetypeRef a) noexcept { return a.id_ == 0; }
    friend bool operator!=(std::nullptr_t, ArchetypeRef a) noexcept { return a.id_ != 0; }

private:
    uint16_t id_ = 0;
};
#endif

} // namespace ecs
