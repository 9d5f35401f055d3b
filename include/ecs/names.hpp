/**
 * @file ecs/names.hpp
 * @brief Entity names: a unique name per entity, found by name in O(1) (the name index room).
 *
 * Each name lives in its own heap block `[header | text | '\0']`, so the text never moves while its
 * entity keeps the name: a `std::string_view` from World::name(e) stays valid until `e` is renamed,
 * unnamed or destroyed (or the world is destroyed or reset), whatever happens to other entities.
 *
 * Two tables lead to the blocks:
 * - by name: an open-addressing table (linear probing, at most half full, backward-shift deletion,
 *   no tombstones) of `{hash, block}` slots. A lookup hashes the text (8 bytes per step), compares
 *   full 64-bit hashes in the table and touches one block: two cache misses, no allocation;
 * - by entity: one pointer per entity slot index, up to the highest named index.
 *
 * Names belong to live entities only: the World erases an entity's name when it is destroyed (one
 * predictable branch, `any()`, for worlds that never used names), so a name never leads to a dead
 * handle nor to the entity that later reuses the slot.
 *
 * Thread-safety: none of its own (part of one World). Concurrent find/name_of are safe while nobody
 * writes.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>

#include "config.hpp"
#include "detail/message.hpp"
#include "detail/pod_array.hpp"
#include "entity.hpp"

namespace ecs {

/// Longest entity name World::set_name accepts (and a snapshot may carry), in bytes.
inline constexpr size_t MAX_ENTITY_NAME_LENGTH = 1024;

} // namespace ecs

namespace ecs::detail {

inline uint64_t load64(const char* p) noexcept {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}
inline uint64_t load32(const char* p) noexcept {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
/// Folds two words into one (multiply, then xor-shift so high bits reach the low ones).
inline uint64_t fold(uint64_t a, uint64_t b) noexcept {
    a = (a ^ 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
    b = (b ^ 0xD6E8FEB86659FD93ull) * 0x94D049BB133111EBull;
    const uint64_t h = a ^ (b >> 29) ^ (b << 35);
    return (h ^ (h >> 31)) * 0x9E3779B97F4A7C15ull;
}

/// 64-bit hash of a name: overlapping word loads, no byte loop and no library call for names of
/// up to 16 bytes (the usual case); 16 bytes per step beyond.
inline uint64_t hash_name(std::string_view s) noexcept {
    const char* p = s.data();
    const size_t n = s.size();
    uint64_t a = 0;
    uint64_t b = 0;
    uint64_t h = uint64_t(n) * 0xFF51AFD7ED558CCDull;
    if (n <= 16) {
        if (n >= 8) {
            a = load64(p);
            b = load64(p + n - 8);
        } else if (n >= 4) {
            a = load32(p);
            b = load32(p + n - 4);
        } else if (n > 0) {
            a = (uint64_t(static_cast<unsigned char>(p[0])) << 16) | (uint64_t(static_cast<unsigned char>(p[n >> 1])) << 8) |
                uint64_t(static_cast<unsigned char>(p[n - 1]));
        }
    } else {
        size_t i = 0;
        for (; i + 16 < n; i += 16) h = fold(h ^ load64(p + i), load64(p + i + 8));
        a = load64(p + n - 16);
        b = load64(p + n - 8);
    }
    h = fold(h ^ a, b);
    h ^= h >> 32;
    return h;
}

/**
 * @brief The names of one world's entities: name -> entity and entity -> name, both O(1).
 *
 * Invariants: every entry is listed once in the table and once by its entity's slot index; no
 * entry has an empty name; `entries_.size()` is the number of named entities.
 */
class NameIndex {
public:
    NameIndex() noexcept = default;
    NameIndex(const NameIndex&) = delete;
    NameIndex& operator=(const NameIndex&) = delete;
    NameIndex(NameIndex&& other) noexcept = default;
    NameIndex& operator=(NameIndex&& other) noexcept {
        if (this != &other) {
            clear();
            slots_ = static_cast<PodArray<Slot>&&>(other.slots_);
            entries_ = static_cast<PodArray<Entry>&&>(other.entries_);
            by_index_ = static_cast<PodArray<uint32_t>&&>(other.by_index_);
            text_bytes_ = other.text_bytes_;
            other.text_bytes_ = 0;
        }
        return *this;
    }
    ~NameIndex() { clear(); }

    /// True when some entity has a name (the World's destroy path tests only this).
    [[nodiscard]] ECS_FORCEINLINE bool any() const noexcept { return !entries_.empty(); }
    /// Number of named entities.
    [[nodiscard]] size_t size() const noexcept { return entries_.size(); }

    /// The entity named `name`, or INVALID_ENTITY (also for the empty name). No allocation.
    [[nodiscard]] Entity find(std::string_view name) const noexcept {
        const uint32_t at = find_entry(name);
        return at != NONE ? entries_[at].entity : INVALID_ENTITY;
    }

    /// The name of the entity in slot `index`, empty when it has none. @pre the slot is alive.
    [[nodiscard]] std::string_view name_of(uint32_t index) const noexcept {
        if (index >= by_index_.size() || by_index_[index] == NONE) return {};
        const Entry& en = entries_[by_index_[index]];
        return std::string_view(en.text, en.size);
    }

    /**
     * Names live entity `e` `name` (empty: removes its name). Renaming frees the old name.
     * @return false, changing nothing, when another entity holds `name` (bad data for a loader,
     *         a refusal for World::set_name).
     */
    bool set(Entity e, std::string_view name) {
        const Entity holder = find(name);
        if (holder != INVALID_ENTITY) return holder == e; // taken, or already e's name
        if (name.empty()) {
            erase(e.index);
            return true;
        }
        // Allocate first: when an allocation throws, the old name is still in place.
        if (e.index >= by_index_.size()) by_index_.resize(size_t(e.index) + 1, NONE);
        if ((entries_.size() + 1) * 2 > slots_.size()) rehash(slots_.size() == 0 ? 16 : slots_.size() * 2);
        entries_.reserve_more(1);
        char* text = make_text(name);
        erase(e.index);
        Entry en{hash_name(name), e, text, static_cast<uint32_t>(name.size()), {}};
        std::memcpy(en.head, text, name.size() < HEAD ? name.size() : HEAD);
        const uint32_t at = static_cast<uint32_t>(entries_.size());
        entries_.push_back(en);
        by_index_[e.index] = at;
        place(en.hash, at);
        return true;
    }

    /// Frees the name of the entity in slot `index`, if any (destroy calls it once `any()`).
    void erase(uint32_t index) noexcept {
        if (index >= by_index_.size() || by_index_[index] == NONE) return;
        const uint32_t at = by_index_[index];
        by_index_[index] = NONE;
        const Entry gone = entries_[at];
        remove_slot(slot_of(gone.hash, at));
        const uint32_t last = static_cast<uint32_t>(entries_.size() - 1);
        if (at != last) { // the last entry fills the hole; its slot and index follow it
            const Entry& moved = entries_[last];
            slots_[slot_of(moved.hash, last)].entry = at;
            by_index_[moved.entity.index] = at;
            entries_[at] = moved;
        }
        entries_.pop_back();
        free_text(gone.text, gone.size);
    }

    /// Forgets every name (a world whose entities are all gone).
    void clear() noexcept {
        for (const Entry& en : entries_) free_text(en.text, en.size);
        entries_.clear();
        by_index_.clear();
        slots_.clear();
    }

    /// Calls `fn(Entity, std::string_view)` for every named entity, in slot index order.
    template <typename Func>
    void each(Func&& fn) const {
        for (uint32_t at : by_index_)
            if (at != NONE) fn(entries_[at].entity, std::string_view(entries_[at].text, entries_[at].size));
    }

    /// Makes this index an exact copy of `other` (same table layout). Used by World::clone.
    void copy_from(const NameIndex& other) {
        clear();
        entries_.reserve(other.entries_.size());
        for (const Entry& en : other.entries_) {
            Entry copy = en;
            copy.text = make_text(std::string_view(en.text, en.size));
            entries_.push_back(copy);
        }
        by_index_.assign(other.by_index_.data(), other.by_index_.size());
        slots_.assign(other.slots_.data(), other.slots_.size());
    }

    /// Bytes held: the table, the entries, the index by entity and the texts.
    [[nodiscard]] size_t memory_bytes() const noexcept {
        return slots_.capacity() * sizeof(Slot) + entries_.capacity() * sizeof(Entry) +
               by_index_.capacity() * sizeof(uint32_t) + text_bytes_;
    }

    /// `"<function>: name "<name>" is taken by entity <i>v<g>"`; built only when a check fails.
    [[nodiscard]] const char* taken_message(const char* function, std::string_view name) const noexcept {
        const Entity holder = find(name);
        return format_message("%s: name \"%.*s\" is taken by entity %uv%u", function, static_cast<int>(name.size()),
                              name.data(), static_cast<unsigned>(holder.index), static_cast<unsigned>(holder.generation));
    }

    /// Checks the invariants (World::check_invariants calls it).
    [[nodiscard]] bool check() const noexcept {
        size_t listed = 0;
        for (size_t i = 0; i < by_index_.size(); ++i) {
            const uint32_t at = by_index_[i];
            if (at == NONE) continue;
            ++listed;
            if (at >= entries_.size()) return false;
            const Entry& en = entries_[at];
            const std::string_view text(en.text, en.size);
            if (en.entity.index != i || en.size == 0 || en.hash != hash_name(text) || find_entry(text) != at) return false;
        }
        size_t in_table = 0;
        for (const Slot& s : slots_) in_table += s.entry != NONE ? 1 : 0;
        return listed == entries_.size() && in_table == entries_.size();
    }

private:
    static constexpr uint32_t NONE = 0xFFFFFFFFu;
    static constexpr size_t HEAD = 20; ///< bytes of a name kept in its entry (shorter names compare there)

    /// A table slot: 8 bytes, so the table stays small enough to stay in cache.
    struct Slot {
        uint32_t tag = 0;      ///< high half of the name's hash
        uint32_t entry = NONE; ///< position in entries_ (NONE: empty slot)
    };
    /// A named entity. 48 bytes: a lookup of a name of up to HEAD bytes touches one entry, no text.
    struct Entry {
        uint64_t hash;
        Entity entity;
        char* text; ///< heap copy, '\0'-terminated; never moves while the name is kept
        uint32_t size;
        char head[HEAD]; ///< the first bytes of the name
    };

    static uint32_t tag_of(uint64_t h) noexcept { return static_cast<uint32_t>(h >> 32); }

    uint32_t find_entry(std::string_view name) const noexcept {
        if (entries_.empty() || name.empty()) return NONE;
        const uint64_t h = hash_name(name);
        const uint32_t tag = tag_of(h);
        const size_t mask = slots_.size() - 1;
        for (size_t i = size_t(h) & mask;; i = (i + 1) & mask) {
            const Slot s = slots_[i];
            if (s.entry == NONE) return NONE;
            if (s.tag != tag) continue;
            const Entry& en = entries_[s.entry];
            if (en.hash != h || en.size != name.size()) continue;
            if (name.size() <= HEAD ? std::memcmp(en.head, name.data(), name.size()) == 0
                                    : std::memcmp(en.text, name.data(), name.size()) == 0)
                return s.entry;
        }
    }

    /// The table slot holding entry `at` (whose hash is `h`). @pre it is in the table
    size_t slot_of(uint64_t h, uint32_t at) const noexcept {
        const size_t mask = slots_.size() - 1;
        size_t i = size_t(h) & mask;
        while (slots_[i].entry != at) i = (i + 1) & mask;
        return i;
    }

    char* make_text(std::string_view name) {
        auto* text = static_cast<char*>(std::malloc(name.size() + 1));
        if (text == nullptr) out_of_memory();
        std::memcpy(text, name.data(), name.size());
        text[name.size()] = '\0';
        text_bytes_ += name.size() + 1;
        return text;
    }
    void free_text(char* text, size_t size) noexcept {
        std::free(text);
        text_bytes_ -= size + 1;
    }

    void place(uint64_t h, uint32_t at) noexcept {
        const size_t mask = slots_.size() - 1;
        size_t i = size_t(h) & mask;
        while (slots_[i].entry != NONE) i = (i + 1) & mask;
        slots_[i] = Slot{tag_of(h), at};
    }

    void rehash(size_t capacity) {
        slots_.assign(capacity, Slot{});
        for (size_t at = 0; at < entries_.size(); ++at) place(entries_[at].hash, static_cast<uint32_t>(at));
    }

    /// Backward-shift deletion: later members of the probe run move up so no lookup stops early.
    void remove_slot(size_t hole) noexcept {
        const size_t mask = slots_.size() - 1;
        for (size_t j = (hole + 1) & mask; slots_[j].entry != NONE; j = (j + 1) & mask) {
            const size_t home = size_t(entries_[slots_[j].entry].hash) & mask;
            // Slot j may move into the hole when its home is not in the cyclic range (hole, j].
            const bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
            if (!stays) {
                slots_[hole] = slots_[j];
                hole = j;
            }
        }
        slots_[hole] = Slot{};
    }

    PodArray<Slot> slots_;       ///< open addressing, power-of-two size, at most half full
    PodArray<Entry> entries_;    ///< dense, in no particular order (swap-removed)
    PodArray<uint32_t> by_index_; ///< entity slot index -> position in entries_ (NONE: unnamed)
    size_t text_bytes_ = 0;      ///< bytes of the texts
};

} // namespace ecs::detail
