// Instance-counting component types shared by the core tests. Every constructor registers `this`,
// every destructor unregisters it, so double destruction, destruction of a never-constructed object
// and leaks are all caught, not just unbalanced totals.
#pragma once

#include <cstdint>
#include <set>
#include <string>

namespace ecs_test {

struct LifeStats {
    long constructed = 0;
    long destroyed = 0;
    long bad_destroys = 0;   // destructor ran on an address with no live object
    std::set<const void*> live;
    long alive() const { return constructed - destroyed; }
};

inline LifeStats& life() {
    static LifeStats s;
    return s;
}

/// Resets the counters; call at the start of a test that checks them.
inline void reset_life() { life() = LifeStats{}; }

inline void born(const void* p) {
    ++life().constructed;
    life().live.insert(p);
}
inline void died(const void* p) {
    ++life().destroyed;
    if (life().live.erase(p) == 0) ++life().bad_destroys;
}

/// Counted value type carrying an int; copyable and movable.
struct Counted {
    int value = 0;
    explicit Counted(int v = 0) : value(v) { born(this); }
    Counted(const Counted& o) : value(o.value) { born(this); }
    Counted(Counted&& o) noexcept : value(o.value) {
        o.value = -1;
        born(this);
    }
    Counted& operator=(const Counted& o) = default;
    Counted& operator=(Counted&& o) noexcept {
        value = o.value;
        o.value = -1;
        return *this;
    }
    ~Counted() { died(this); }
};

/// Counted, move-only, not default-constructible, with a heap-owning std::string.
struct CountedName {
    std::string name;
    CountedName() = delete;
    explicit CountedName(std::string n) : name(std::move(n)) { born(this); }
    CountedName(const CountedName&) = delete;
    CountedName(CountedName&& o) noexcept : name(std::move(o.name)) { born(this); }
    CountedName& operator=(const CountedName&) = delete;
    CountedName& operator=(CountedName&&) = delete;
    ~CountedName() { died(this); }
};

/// Counted and over-aligned.
struct alignas(64) CountedWide {
    float lanes[16] = {};
    explicit CountedWide(float v = 0.f) {
        for (float& l : lanes) l = v;
        born(this);
    }
    CountedWide(const CountedWide& o) {
        for (int i = 0; i < 16; ++i) lanes[i] = o.lanes[i];
        born(this);
    }
    CountedWide(CountedWide&& o) noexcept {
        for (int i = 0; i < 16; ++i) lanes[i] = o.lanes[i];
        born(this);
    }
    CountedWide& operator=(const CountedWide&) = default;
    ~CountedWide() { died(this); }
};

/// Empty but with user-written special members: must still be constructed/destroyed in pairs.
struct CountedEmpty {
    CountedEmpty() { born(this); }
    CountedEmpty(const CountedEmpty&) { born(this); }
    CountedEmpty(CountedEmpty&&) noexcept { born(this); }
    CountedEmpty& operator=(const CountedEmpty&) = default;
    ~CountedEmpty() { died(this); }
};

} // namespace ecs_test
