/**
 * @file tests/lifetime.hpp
 * @brief Instance-counting payloads for the command buffer, resource, observer and system tests.
 *
 * `lifetime::Counted<Tag>` registers the address of every object it constructs and unregisters it on
 * destruction, so a test sees not only unbalanced totals (leaks) but also a destructor run on an
 * address holding no live object (double destruction, destruction of raw bytes), and it can check
 * that a value is read from a live object. Each Tag has its own counters: declare tags in an
 * anonymous namespace in the test file, so two test files never share (or ODR-clash on) a type.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>

namespace lifetime {

/// Counters of one Counted<Tag> type.
struct Tally {
    long constructed = 0;  ///< every constructor: value, copy and move
    long destroyed = 0;
    long copies = 0;
    long moves = 0;
    long bad_destroys = 0; ///< destructor on an address with no live object
    long bad_reads = 0;    ///< value() read through an address with no live object
    std::set<const void*> live;

    [[nodiscard]] long alive() const { return constructed - destroyed; }
    /// True when nothing leaked and nothing was destroyed twice or read dead.
    [[nodiscard]] bool clean() const { return alive() == 0 && live.empty() && bad_destroys == 0 && bad_reads == 0; }
};

/**
 * @brief A copyable, movable int that counts its instances. A moved-from object keeps living (it
 *        must still be destroyed) and holds MOVED_FROM.
 */
template <typename Tag>
struct Counted {
    static constexpr int MOVED_FROM = -1000000;

    static Tally& tally() {
        static Tally t;
        return t;
    }
    static void reset() { tally() = Tally{}; }

    explicit Counted(int v = 0) : value_(v) { born(); }
    Counted(const Counted& other) : value_(other.value()) {
        ++tally().copies;
        born();
    }
    Counted(Counted&& other) noexcept : value_(other.value()) {
        other.value_ = MOVED_FROM;
        ++tally().moves;
        born();
    }
    Counted& operator=(const Counted& other) {
        value_ = other.value();
        return *this;
    }
    Counted& operator=(Counted&& other) noexcept {
        value_ = other.value();
        other.value_ = MOVED_FROM;
        return *this;
    }
    ~Counted() {
        ++tally().destroyed;
        if (tally().live.erase(this) == 0) ++tally().bad_destroys;
        value_ = MOVED_FROM - 1;
    }

    /// The value; counts a bad read when `this` is not a live object.
    [[nodiscard]] int value() const {
        if (tally().live.count(this) == 0) ++tally().bad_reads;
        return value_;
    }

private:
    void born() {
        ++tally().constructed;
        tally().live.insert(this);
    }
    int value_;
};

} // namespace lifetime
