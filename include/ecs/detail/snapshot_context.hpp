/**
 * @file ecs/detail/snapshot_context.hpp
 * @brief What the snapshot loader and writer share with the section files: SnapshotLoadState (the
 *        target world, the reader, the result and the slot table that every section reader checks
 *        against) and PendingPayloads (the values only serialize functions can write, serialized
 *        into memory before the body).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "stream.hpp"
#include "../archetype.hpp"
#include "../component.hpp"
#include "../world.hpp"
#include "snapshot_io.hpp"
#include "snapshot_registry.hpp"

namespace ecs {

namespace detail {

/**
 * @brief The state of one snapshot load that the section readers share with SnapshotLoader (which
 *        derives from it): the target world, the reader, the result so far, the slot table of the
 *        entity table, and the archetypes filled so far.
 */
template <class = void>
struct SnapshotLoadState {
    SnapshotLoadState(World& world, SnapshotReader<>& reader) noexcept : world_(world), in_(reader) {}
    SnapshotLoadState(const SnapshotLoadState<>&) = delete;
    SnapshotLoadState<>& operator=(const SnapshotLoadState<>&) = delete;

    enum : uint8_t { SLOT_UNSEEN = 0, SLOT_LIVE = 1, SLOT_FREE = 2 };

    bool fail(DeserializeError error, uint64_t at, const std::string& what) { return load_failure(result_, error, at, what); }
    bool truncated(uint64_t at, const char* what) {
        return fail(DeserializeError::truncated, at, std::string("snapshot truncated: ") + what);
    }

    /// The archetype and row of live slot `slot` (a section names it); fails (at `at`) otherwise.
    bool locate_slot(uint32_t slot, uint64_t at, Archetype*& arch, uint32_t& row) {
        if (slot >= slot_count_ || slot_state_[slot] != SLOT_LIVE)
            return fail(DeserializeError::entity_out_of_range, at,
                        "section names entity slot " + std::to_string(slot) + ", which holds no live entity");
        if (where_.empty()) {
            where_.assign(slot_count_, SlotPlace{nullptr, 0});
            for (Archetype* a : filled_)
                for (size_t r = 0; r < a->size(); ++r) where_[a->entities[r].index] = SlotPlace{a, static_cast<uint32_t>(r)};
        }
        arch = where_[slot].archetype;
        row = where_[slot].row;
        return arch != nullptr || fail(DeserializeError::entity_out_of_range, at, "section names an entity without a row");
    }

    struct SlotPlace {
        Archetype* archetype;
        uint32_t row;
    };

    World& world_;
    SnapshotReader<>& in_;
    DeserializeResult result_;
    uint32_t slot_count_ = 0;
    std::vector<uint8_t> slot_state_;   ///< SLOT_* per slot
    std::vector<Archetype*> filled_;    ///< archetypes completed by this snapshot
    std::vector<uint32_t> generations_;
    std::vector<SlotPlace> where_;      ///< by slot, built by the first locate_slot
    bool touched_sparse_ = false;       ///< the sparse section put values in the world's sets
};

/**
 * @brief The payloads only serialize functions can write (columns and resources of types registered
 *        with functions), serialized into memory while the body is measured: their lengths precede
 *        them, and format 2 states the body's length before the body. Items are written back in the
 *        order they were added.
 */
template <class D = void>
class PendingPayloads {
public:
    /// Bytes serialized so far.
    [[nodiscard]] size_t size() const noexcept { return bytes_.size(); }
    /// Serializes `value` with `fn`; false when `fn` set failbit.
    bool put(ComponentColumn::SerializeFunc fn, const void* value) {
        fn(out_, value);
        return !out_.fail();
    }
    /// Closes the item that started at size() == `before`: records and returns its byte length.
    uint64_t end_item(size_t before) {
        sizes_.push_back(bytes_.size() - before);
        return sizes_.back();
    }
    /// Writes the next item: its byte length, then its bytes.
    void write_next(SnapshotWriter<>& w) {
        const uint64_t bytes = sizes_[item_++];
        w.u64(bytes);
        w.raw(bytes_.data() + at_, bytes);
        at_ += static_cast<size_t>(bytes);
    }

private:
    ByteSink<D> bytes_;
    Dependent<D, std::ostream> out_{&bytes_};
    std::vector<uint64_t> sizes_; ///< one length per column or resource, in the order the body lists them
    size_t at_ = 0;               ///< next unwritten byte of `bytes_`
    size_t item_ = 0;             ///< next entry of `sizes_`
};

} // namespace detail

} // namespace ecs
