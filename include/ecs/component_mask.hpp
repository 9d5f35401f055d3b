/**
 * @file ecs/component_mask.hpp
 * @brief BitMask<N> and ComponentMask (BitMask<ECS_MAX_COMPONENTS>): one bit per component id,
 *        matched by AND + compare.
 *
 * Archetypes, query caches, observers, prefabs and the Schedule's access sets hold one. It has
 * std::bitset's names and meanings for what the library and its users call (test, set, reset, flip,
 * count, any, none, all, size, [], &, |, ^, ~, ==), with no exceptions: a position at or beyond
 * size() is ignored by set/reset/flip and reads as false. It is its own class rather than
 * std::bitset because <bitset> (its string and stream conversions, its range checks that throw) is
 * costlier to compile than the few loops over words the library needs.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include "config.hpp"

namespace ecs {

/// A fixed set of `Bits` bits (see the file comment); ComponentMask is BitMask<ECS_MAX_COMPONENTS>.
template <size_t Bits>
class BitMask {
    static_assert(Bits > 0, "a BitMask holds at least one bit");

public:
    static constexpr size_t bit_count = Bits;
    static constexpr size_t word_count = (bit_count + 63) / 64;

    constexpr BitMask() noexcept = default;

    [[nodiscard]] static constexpr size_t size() noexcept { return bit_count; }

    /// Whether bit `pos` is set; false for a position beyond size().
    [[nodiscard]] constexpr bool test(size_t pos) const noexcept {
        return pos < bit_count && ((words_[pos / 64] >> (pos % 64)) & 1u) != 0;
    }
    [[nodiscard]] constexpr bool operator[](size_t pos) const noexcept { return test(pos); }

    /// Sets bit `pos` to `value` (a position beyond size() is ignored).
    constexpr BitMask& set(size_t pos, bool value = true) noexcept {
        if (pos < bit_count) {
            const uint64_t bit = uint64_t{1} << (pos % 64);
            words_[pos / 64] = value ? (words_[pos / 64] | bit) : (words_[pos / 64] & ~bit);
        }
        return *this;
    }
    /// Sets every bit.
    constexpr BitMask& set() noexcept {
        for (size_t i = 0; i < word_count; ++i) words_[i] = ~uint64_t{0};
        return trim();
    }
    constexpr BitMask& reset(size_t pos) noexcept { return set(pos, false); }
    /// Clears every bit.
    constexpr BitMask& reset() noexcept {
        for (size_t i = 0; i < word_count; ++i) words_[i] = 0;
        return *this;
    }
    constexpr BitMask& flip(size_t pos) noexcept { return set(pos, !test(pos)); }
    constexpr BitMask& flip() noexcept {
        for (size_t i = 0; i < word_count; ++i) words_[i] = ~words_[i];
        return trim();
    }

    /// The number of set bits.
    [[nodiscard]] size_t count() const noexcept {
        size_t n = 0;
        for (size_t i = 0; i < word_count; ++i) n += popcount(words_[i]);
        return n;
    }
    [[nodiscard]] constexpr bool any() const noexcept {
        for (size_t i = 0; i < word_count; ++i)
            if (words_[i] != 0) return true;
        return false;
    }
    [[nodiscard]] constexpr bool none() const noexcept { return !any(); }
    [[nodiscard]] constexpr bool all() const noexcept { return BitMask(*this).flip().none(); }

    constexpr BitMask& operator&=(const BitMask& other) noexcept {
        for (size_t i = 0; i < word_count; ++i) words_[i] &= other.words_[i];
        return *this;
    }
    constexpr BitMask& operator|=(const BitMask& other) noexcept {
        for (size_t i = 0; i < word_count; ++i) words_[i] |= other.words_[i];
        return *this;
    }
    constexpr BitMask& operator^=(const BitMask& other) noexcept {
        for (size_t i = 0; i < word_count; ++i) words_[i] ^= other.words_[i];
        return *this;
    }
    [[nodiscard]] constexpr BitMask operator~() const noexcept { return BitMask(*this).flip(); }

    [[nodiscard]] friend constexpr BitMask operator&(BitMask a, const BitMask& b) noexcept { return a &= b; }
    [[nodiscard]] friend constexpr BitMask operator|(BitMask a, const BitMask& b) noexcept { return a |= b; }
    [[nodiscard]] friend constexpr BitMask operator^(BitMask a, const BitMask& b) noexcept { return a ^= b; }
    [[nodiscard]] friend constexpr bool operator==(const BitMask& a, const BitMask& b) noexcept {
        for (size_t i = 0; i < word_count; ++i)
            if (a.words_[i] != b.words_[i]) return false;
        return true;
    }
    [[nodiscard]] friend constexpr bool operator!=(const BitMask& a, const BitMask& b) noexcept { return !(a == b); }

    /// Whether every bit of `sub` is set here: (*this & sub) == sub, without the temporary.
    [[nodiscard]] constexpr bool contains(const BitMask& sub) const noexcept {
        for (size_t i = 0; i < word_count; ++i)
            if ((words_[i] & sub.words_[i]) != sub.words_[i]) return false;
        return true;
    }
    /// Whether some bit is set both here and in `other`: (*this & other).any(), without the temporary.
    [[nodiscard]] constexpr bool intersects(const BitMask& other) const noexcept {
        for (size_t i = 0; i < word_count; ++i)
            if ((words_[i] & other.words_[i]) != 0) return true;
        return false;
    }

private:
    /// Clears the bits past size() in the last word (none when size() is a multiple of 64).
    constexpr BitMask& trim() noexcept {
        if constexpr (bit_count % 64 != 0) words_[word_count - 1] &= (uint64_t{1} << (bit_count % 64)) - 1;
        return *this;
    }
    static size_t popcount(uint64_t w) noexcept {
#if defined(__GNUC__) || defined(__clang__)
        return static_cast<size_t>(__builtin_popcountll(w));
#else
        size_t n = 0;
        for (; w != 0; w &= w - 1) ++n;
        return n;
#endif
    }

    uint64_t words_[word_count] = {};
};

/// One bit per component id; used for query matching by AND + compare.
using ComponentMask = BitMask<ECS_MAX_COMPONENTS>;

} // namespace ecs
