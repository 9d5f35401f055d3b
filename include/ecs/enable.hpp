/**
 * @file ecs/enable.hpp
 * @brief Enable bits: per archetype, one lazily allocated bit column per component
 *        column that ever had a disabled row, and one for the entities themselves; the
 *        `IncludeDisabled{}` query filter.
 *
 * `world.disable<T>(e)` leaves `T` on `e` (has, get, try_get work) but queries, `count<Ts...>` and
 * `single` treat it as absent; `world.disable(e)` hides the whole entity from them unless the query
 * passes `IncludeDisabled{}`. Neither moves the entity: a bit is set in the row's archetype.
 *
 * Storage: a bit set means disabled. Bits of rows at or past the archetype's size are always 0, so a
 * new row is enabled without writing anything, and a column that was never disabled has no storage at
 * all. Every bit column counts its set bits; the archetype keeps their total. Row operations
 * (swap-remove, migration, sort, clone) carry the bits along behind one predictable branch on
 * `RowEnable::any()` (false while nothing in the archetype is disabled), and the query engine takes
 * its row-filtered path only for archetypes where `any()` holds (query.hpp).
 *
 * Thread-safety: as the archetype that owns the bits. Toggling is a plain write: never toggle while
 * another thread reads the same archetype (each_par, Schedule waves).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "config.hpp"
#include "detail/pod_array.hpp"

namespace ecs {

/**
 * @brief Query filter: disabled entities (`world.disable(e)`) are visited too. Disabled
 *        components stay absent to the query. Accepted by world.each, each_no_entity, query, each_par.
 */
struct IncludeDisabled {};

namespace detail {

/// One bit per row of an archetype, set when the row is disabled; bits past the rows are 0.
struct DisabledBits {
    PodArray<uint64_t> words;
    size_t count = 0; ///< set bits

    [[nodiscard]] ECS_FORCEINLINE uint64_t word(size_t w) const noexcept { return w < words.size() ? words.data()[w] : 0; }
    [[nodiscard]] ECS_FORCEINLINE bool test(size_t row) const noexcept { return (word(row >> 6) >> (row & 63)) & 1u; }
    /// Sets the bit of `row`; @return true when it was clear.
    ECS_FORCEINLINE bool set(size_t row) {
        const size_t w = row >> 6;
        if (ECS_UNLIKELY(w >= words.size())) words.resize(w + 1, 0);
        uint64_t& word_ref = words.data()[w];
        const uint64_t bit = uint64_t(1) << (row & 63);
        if (word_ref & bit) return false;
        word_ref |= bit;
        ++count;
        return true;
    }
    /// Clears the bit of `row`; @return true when it was set.
    ECS_FORCEINLINE bool clear(size_t row) noexcept {
        const size_t w = row >> 6;
        if (w >= words.size()) return false;
        uint64_t& word_ref = words.data()[w];
        const uint64_t bit = uint64_t(1) << (row & 63);
        if (!(word_ref & bit)) return false;
        word_ref &= ~bit;
        --count;
        return true;
    }
    void reset() noexcept {
        for (uint64_t& w : words) w = 0;
        count = 0;
    }
};

/**
 * @brief The enable bits of one archetype: a bit column per component column (allocated on the first
 *        disable of that column's type in this archetype) and one for the entities.
 */
class RowEnable {
public:
    /// True when some row of the archetype has a disabled component or is a disabled entity.
    [[nodiscard]] ECS_FORCEINLINE bool any() const noexcept { return total_ != 0; }
    /// Disabled (row, column) pairs plus disabled rows.
    [[nodiscard]] size_t total() const noexcept { return total_; }
    /// Bits of component column `c`, or nullptr when it never had a disabled row here.
    [[nodiscard]] ECS_FORCEINLINE const DisabledBits* column(size_t c) const noexcept {
        return c < column_count_ ? columns_.get() + c : nullptr;
    }
    /// Bits of the entities (disable(e)).
    [[nodiscard]] const DisabledBits& entities() const noexcept { return entities_; }

    /// True when component column `c` is disabled at `row`.
    [[nodiscard]] ECS_FORCEINLINE bool disabled(size_t c, size_t row) const noexcept {
        return c < column_count_ && columns_[c].test(row);
    }
    [[nodiscard]] ECS_FORCEINLINE bool entity_disabled(size_t row) const noexcept { return entities_.test(row); }

    /// Sets (`off`) or clears the bit of column `c` (of `column_count`) at `row`. @return true when it changed.
    ECS_FORCEINLINE bool set(size_t c, size_t column_count, size_t row, bool off) {
        if (!off) {
            if (c >= column_count_ || !columns_[c].clear(row)) return false;
            --total_;
            return true;
        }
        if (ECS_UNLIKELY(columns_ == nullptr)) allocate(column_count);
        if (!columns_[c].set(row)) return false;
        ++total_;
        return true;
    }
    /// Sets (`off`) or clears the entity bit of `row`. @return true when it changed.
    ECS_FORCEINLINE bool set_entity(size_t row, bool off) {
        const bool changed = off ? entities_.set(row) : entities_.clear(row);
        if (changed) total_ = off ? total_ + 1 : total_ - 1;
        return changed;
    }

    /// Swap-remove of `row` (the last row, `last`, fills it). @pre any()
    void erase(size_t row, size_t last) noexcept {
        for (size_t c = 0; c < column_count_; ++c)
            if (columns_[c].count != 0) total_ -= erase_in(columns_[c], row, last);
        if (entities_.count != 0) total_ -= erase_in(entities_, row, last);
    }
    /// New row i holds old row `order[i]`. @pre any()
    void permute(const std::vector<uint32_t>& order) {
        PodArray<uint64_t> scratch;
        for (size_t c = 0; c < column_count_; ++c)
            if (columns_[c].count != 0) permute_in(columns_[c], order, scratch);
        if (entities_.count != 0) permute_in(entities_, order, scratch);
    }
    /// Appends the bits of `src`'s `n` rows after row `base` (clone; same column layout).
    void append_from(const RowEnable& src, size_t base, size_t n, size_t column_count) {
        if (!src.any()) return;
        for (size_t c = 0; c < src.column_count_; ++c)
            for (size_t r = 0; r < n; ++r)
                if (src.columns_[c].test(r)) set(c, column_count, base + r, true);
        for (size_t r = 0; r < n; ++r)
            if (src.entities_.test(r)) set_entity(base + r, true);
    }
    /// Every row enabled again (the archetype lost its rows); storage is kept.
    void clear() noexcept {
        for (size_t c = 0; c < column_count_; ++c) columns_[c].reset();
        entities_.reset();
        total_ = 0;
    }
    [[nodiscard]] size_t memory_bytes() const noexcept {
        size_t bytes = entities_.words.capacity() * sizeof(uint64_t);
        for (size_t c = 0; c < column_count_; ++c) bytes += sizeof(DisabledBits) + columns_[c].words.capacity() * sizeof(uint64_t);
        return bytes;
    }
    /// Checks the counts and that no bit is set at or past `rows` (World::check_invariants).
    [[nodiscard]] bool check(size_t rows) const noexcept {
        size_t total = 0;
        auto check_bits = [&](const DisabledBits& b) {
            size_t set = 0;
            for (size_t w = 0; w < b.words.size(); ++w) {
                const uint64_t word = b.words.data()[w];
                for (size_t k = 0; k < 64; ++k)
                    if ((word >> k) & 1u) {
                        if (w * 64 + k >= rows) return false;
                        ++set;
                    }
            }
            total += set;
            return set == b.count;
        };
        for (size_t c = 0; c < column_count_; ++c)
            if (!check_bits(columns_[c])) return false;
        return check_bits(entities_) && total == total_;
    }

private:
    ECS_NOINLINE void allocate(size_t column_count) {
        columns_.reset(new DisabledBits[column_count]);
        column_count_ = column_count;
    }
    /// @return 1 when the erased row's bit was set (the count dropped by one), else 0.
    static size_t erase_in(DisabledBits& b, size_t row, size_t last) noexcept {
        const bool was = b.test(row);
        if (row != last && b.test(last)) {
            // The last row's bit moves into `row` (set there, cleared at `last`).
            if (!was) {
                b.words.data()[row >> 6] |= uint64_t(1) << (row & 63);
                ++b.count;
            }
            b.clear(last);
            return was ? 1 : 0;
        }
        if (was) b.clear(row);
        return was ? 1 : 0;
    }
    static void permute_in(DisabledBits& b, const std::vector<uint32_t>& order, PodArray<uint64_t>& scratch) {
        scratch.assign(b.words.data(), b.words.size());
        const size_t needed = (order.size() + 63) / 64;
        if (b.words.size() < needed) b.words.resize(needed, 0);
        for (uint64_t& w : b.words) w = 0;
        for (size_t i = 0; i < order.size(); ++i) {
            const size_t k = order[i];
            const bool bit = (k >> 6) < scratch.size() && ((scratch.data()[k >> 6] >> (k & 63)) & 1u);
            if (bit) b.words.data()[i >> 6] |= uint64_t(1) << (i & 63);
        }
    }

    size_t total_ = 0;                        ///< first: the one field hot paths read
    Box<DisabledBits[]> columns_;       ///< column_count_ of them, or nullptr
    size_t column_count_ = 0;
    DisabledBits entities_;
};

} // namespace detail
} // namespace ecs
