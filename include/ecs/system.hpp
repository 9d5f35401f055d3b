/**
 * @file ecs/system.hpp
 * @brief SystemRegistry: an ordered list of named systems, run in insertion order.
 *
 * Deliberately minimal: no dependency resolution, no parallelism. After each system returns,
 * run_all flushes the world's deferred commands, so system N+1 sees what system N queued.
 */
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <string>
#include <utility>

#include "world.hpp"

namespace ecs {

/// A system: any callable taking the world.
using SystemFunc = std::function<void(World&)>;

class SystemRegistry {
public:
    using SystemFunc = ecs::SystemFunc;

    /// @brief Appends a system; it runs after every system added before it.
    void add(std::string name, SystemFunc fn) { systems_.push_back(Entry{std::move(name), std::move(fn)}); }

    /// @brief Runs every system in insertion order, flushing the world's deferred commands after each.
    /// @pre Not called during iteration.
    void run_all(World& world) {
        for (size_t i = 0; i < systems_.size(); ++i) {
            systems_[i].fn(world);
            world.flush_deferred();
        }
    }

    /// @brief Number of systems (addition).
    [[nodiscard]] size_t size() const noexcept { return systems_.size(); }
    /// @brief Name of the i-th system in run order (addition). @pre i < size()
    [[nodiscard]] const std::string& name(size_t i) const noexcept { return systems_[i].name; }

private:
    struct Entry {
        std::string name;
        SystemFunc fn;
    };
    std::deque<Entry> systems_; ///< a deque: a system may add systems while run_all runs it
};

} // namespace ecs
