/**
 * @file ecs/system.hpp
 * @brief SystemRegistry: an ordered list of named systems, run in insertion order.
 *
 * Deliberately minimal: no dependency resolution, no parallelism. After each system returns,
 * run_all flushes the world's deferred commands, so system N+1 sees what system N queued.
 */
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include "detail/pod_array.hpp"
#include "detail/std_function.hpp"
#include "world.hpp"

namespace ecs {

/// A system: any callable taking the world.
using SystemFunc = std::function<void(World&)>;

class SystemRegistry {
public:
    using SystemFunc = ecs::SystemFunc;

    SystemRegistry() = default;
    /// Copies every system (name and callable). Delegates to the default constructor so that, should
    /// copying a callable throw, the destructor frees the systems already copied.
    SystemRegistry(const SystemRegistry& other) : SystemRegistry() {
        systems_.reserve(other.systems_.size()); // the push_backs below cannot throw
        for (const Entry* entry : other.systems_) systems_.push_back(new Entry(*entry));
    }
    SystemRegistry& operator=(const SystemRegistry& other) {
        if (this != &other) {
            SystemRegistry copy(other);
            systems_.swap(copy.systems_); // `copy` now owns the previous systems and deletes them
        }
        return *this;
    }
    SystemRegistry(SystemRegistry&& other) noexcept : systems_(std::move(other.systems_)) {}
    /// Deletes this registry's systems, then takes over `other`'s; `other` is left empty.
    SystemRegistry& operator=(SystemRegistry&& other) noexcept {
        if (this != &other) {
            SystemRegistry previous(std::move(*this));
            systems_.swap(other.systems_);
        } // `previous` deletes the systems this registry held
        return *this;
    }
    ~SystemRegistry() {
        for (Entry* entry : systems_) delete entry;
    }

    /// @brief Appends a system; it runs after every system added before it.
    template <typename = void>
    void add(std::string name, SystemFunc fn) {
        if (systems_.size() == systems_.capacity()) systems_.reserve(systems_.size() * 2 + 8); // may throw: nothing owned yet
        systems_.push_back(new Entry{std::move(name), std::move(fn)});                         // cannot throw
    }

    /// @brief Runs every system in insertion order, flushing the world's deferred commands after each.
    /// @pre Not called during iteration.
    void run_all(World& world) {
        for (size_t i = 0; i < systems_.size(); ++i) {
            systems_[i]->fn(world);
            world.flush_deferred();
        }
    }

    /// @brief Number of systems.
    [[nodiscard]] size_t size() const noexcept { return systems_.size(); }
    /// @brief Name of the i-th system in run order. @pre i < size()
    [[nodiscard]] const std::string& name(size_t i) const noexcept { return systems_[i]->name; }

private:
    struct Entry {
        std::string name;
        SystemFunc fn;
    };
    /// One heap node per system (owned): a system may add systems while run_all runs it, and growing
    /// the array must not move the callable being executed.
    detail::PodArray<Entry*> systems_;
};

} // namespace ecs
