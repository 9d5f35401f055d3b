/**
 * @file ecs/detail/component_registry.hpp
 * @brief The process-wide registry of component names: name <-> id, and for the types snapshots can
 *        hold, the functions that write and read them (SPEC §3.10).
 *
 * Split out of serialization.hpp (, scripting) so that the World can resolve a
 * component name without the snapshot machinery: `World::get_raw(e, "Position")` and runtime
 * components (runtime.hpp) use it; serialization.hpp includes it and keeps its public API.
 *
 * Two tables, both indexed by component id, entries never removed nor changed once written:
 * - `names`: every registered name, given by register_component<T>(name) or by
 *   register_runtime_component(name, ops). A name names one id; an id has at most one name.
 * - `by_id`: what a snapshot needs to write and read a type (its functions, element size). Every
 *   register_component<T> has one; a runtime component has one when it has serialize functions.
 *
 * Thread-safety: writers take a small spinlock; name lookups by text (`id_of`) are lock-free (an
 * open-addressing table of atomics, each entry published with a release store after its text), so
 * they cost a hash and a probe, not a lock and a scan. Lookups by id keep the lock.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "../component.hpp"
#include "../config.hpp"
#include "../names.hpp" // detail::hash_name
#include "atomic_slot.hpp"
#include "message.hpp"

namespace ecs {

/// Longest component name register_component() accepts and a snapshot may carry, in bytes.
inline constexpr size_t MAX_COMPONENT_NAME_LENGTH = 1024;

namespace detail {

/// What the registry knows about one component type.
struct ComponentRegistration {
    std::string name;
    ComponentColumn::SerializeFunc serialize = nullptr;     ///< nullptr for tags and `bulk` types
    ComponentColumn::DeserializeFunc deserialize = nullptr; ///< nullptr for tags and `bulk` types
    uint32_t element_size = 0; ///< column stride: sizeof(T), or 0 for tags
    bool bulk = false;         ///< trivially copyable, registered without functions: a value is its bytes, a column one block
};

/// Minimal test-and-test-and-set lock guarding the registry: held only for a short table scan or
/// an insertion, and far cheaper to compile than <mutex>. Locks on construction, unlocks on
/// destruction (also when an insertion throws).
class RegistryLock {
public:
    explicit RegistryLock(detail::AtomicSlot<bool>& flag) noexcept : flag_(flag) {
        while (flag_.exchange(true, detail::order_acquire))
            while (flag_.load(detail::order_relaxed)) {
            }
    }
    ~RegistryLock() { flag_.store(false, detail::order_release); }
    RegistryLock(const RegistryLock&) = delete;
    RegistryLock& operator=(const RegistryLock&) = delete;

private:
    detail::AtomicSlot<bool>& flag_;
};

/// Slots of the registry's name table: room for twice as many names as there can be ids (so probes
/// stay short), a power of two.
constexpr size_t registry_name_slots() noexcept {
    size_t n = 16;
    while (n < 2 * size_t(ECS_MAX_COMPONENTS)) n *= 2;
    return n;
}

/**
 * Process-wide name <-> id table, indexed by component id (only ids below ECS_MAX_COMPONENTS are
 * accepted). Entries are never removed or modified after insertion, so a pointer or reference
 * handed out stays valid (and needs no lock to read) for the whole program.
 */
class ComponentRegistry {
public:
    enum class Outcome : uint8_t { added, unchanged, name_taken, type_has_other_name, id_out_of_range };

    ComponentRegistry() = default;
    ComponentRegistry(const ComponentRegistry&) = delete;
    ComponentRegistry& operator=(const ComponentRegistry&) = delete;
    ~ComponentRegistry() {
        for (ComponentRegistration* entry : by_id_) delete entry;
        for (std::string* name : names_) delete name;
    }

    /// Names `id` `entry.name` and records its snapshot functions (register_component).
    Outcome add(ComponentTypeID id, ComponentRegistration entry) {
        if (id >= ECS_MAX_COMPONENTS) return Outcome::id_out_of_range; // refused by register_component
        RegistryLock lock(locked_);
        if (const ComponentRegistration* existing = by_id_[id])
            return existing->name == entry.name ? Outcome::unchanged : Outcome::type_has_other_name;
        const Outcome named = name_locked(id, entry.name);
        if (named != Outcome::added && named != Outcome::unchanged) return named;
        by_id_[id] = new ComponentRegistration(std::move(entry));
        return Outcome::added;
    }

    /// Names `id` `name` without snapshot functions (a runtime component that cannot be saved).
    Outcome add_name(ComponentTypeID id, const std::string& name) {
        if (id >= ECS_MAX_COMPONENTS) return Outcome::id_out_of_range;
        RegistryLock lock(locked_);
        return name_locked(id, name);
    }

    /// Snapshot registration of `id`, or nullptr.
    [[nodiscard]] const ComponentRegistration* find(ComponentTypeID id) const {
        if (id >= ECS_MAX_COMPONENTS) return nullptr;
        RegistryLock lock(locked_);
        return by_id_[id];
    }

    /// Snapshot registration named `name` (its id in `id`), or nullptr.
    [[nodiscard]] const ComponentRegistration* find(const std::string& name, ComponentTypeID& id) const {
        const ComponentTypeID found = id_of(name);
        if (found == INVALID_COMPONENT_ID) return nullptr;
        const ComponentRegistration* entry = find(found);
        if (entry != nullptr) id = found;
        return entry;
    }

    /// The id registered under `name` (by register_component or register_runtime_component), or
    /// INVALID_COMPONENT_ID. Lock-free: a hash, a probe and one comparison of the text.
    [[nodiscard]] ComponentTypeID id_of(std::string_view name) const noexcept {
        const uint64_t h = hash_name(name);
        for (size_t i = size_t(h) & (NAME_SLOTS - 1);; i = (i + 1) & (NAME_SLOTS - 1)) {
            const uint32_t v = name_slots_[i].load(detail::order_acquire);
            if (v == 0) return INVALID_COMPONENT_ID;
            const uint32_t id = v - 1;
            if (name_hashes_[id] == h && *names_[id] == name) return id;
        }
    }

    /// The name registered for `id`, or nullptr. Valid for the rest of the program. Lock-free.
    [[nodiscard]] const std::string* name_of(ComponentTypeID id) const noexcept {
        if (id >= ECS_MAX_COMPONENTS) return nullptr;
        return named_[id].load(detail::order_acquire) ? names_[id] : nullptr;
    }

private:
    static constexpr size_t NAME_SLOTS = registry_name_slots();

    /// Gives `id` the name `name` in the name index. @pre the lock is held
    Outcome name_locked(ComponentTypeID id, const std::string& name) {
        if (named_[id].load(detail::order_relaxed)) return *names_[id] == name ? Outcome::unchanged : Outcome::type_has_other_name;
        if (id_of(name) != INVALID_COMPONENT_ID) return Outcome::name_taken;
        names_[id] = new std::string(name);
        name_hashes_[id] = hash_name(name);
        named_[id].store(true, detail::order_release);
        size_t i = size_t(name_hashes_[id]) & (NAME_SLOTS - 1);
        while (name_slots_[i].load(detail::order_relaxed) != 0) i = (i + 1) & (NAME_SLOTS - 1);
        name_slots_[i].store(id + 1, detail::order_release); // publishes the text and the hash
        return Outcome::added;
    }

    mutable detail::AtomicSlot<bool> locked_{false};
    ComponentRegistration* by_id_[ECS_MAX_COMPONENTS] = {}; ///< owned; nullptr where not saved by snapshots
    std::string* names_[ECS_MAX_COMPONENTS] = {};           ///< owned; the registered name per id
    uint64_t name_hashes_[ECS_MAX_COMPONENTS] = {};         ///< hash_name of names_[id]
    detail::AtomicSlot<bool> named_[ECS_MAX_COMPONENTS] = {};      ///< names_[id] is published
    detail::AtomicSlot<uint32_t> name_slots_[NAME_SLOTS] = {};     ///< id + 1 per used slot, 0 when empty
};

/// True when `id` names a component type this process has handed out (typed or runtime).
inline bool known_component_id(ComponentTypeID id) noexcept {
    return id < ECS_MAX_COMPONENTS && id < next_component_id.load(detail::order_relaxed);
}

/// Refuses an id this process never handed out, naming `function`.
inline bool check_known_id(const char* function, ComponentTypeID id) {
    return ECS_CHECK(known_component_id(id), format_message("%s: unknown component id %u", function, static_cast<unsigned>(id)));
}

/// The one registry of the process (constructed on first use, thread-safe).
inline ComponentRegistry& component_registry() {
    static ComponentRegistry registry;
    return registry;
}

} // namespace detail
} // namespace ecs
