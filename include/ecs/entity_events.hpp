/**
 * @file ecs/entity_events.hpp
 * @brief Entity events: observers of an event type on one entity (or on any entity), and the
 *        Propagation handle an observer uses to stop an event travelling up the hierarchy.
 *
 * This room holds the observer table of one world: per entity slot, the observers registered on
 * that entity (with its generation, so a reused slot never sees them), and per event type the
 * observers of any entity. World::emit (world/entity_events.hpp) walks the target and its ancestors
 * and asks this room to dispatch at each level.
 *
 * Observers live on the heap, so an observer may register others, disconnect itself or others, or
 * destroy entities while it runs: a removed observer is marked dead and freed once no dispatch runs;
 * observers added during a dispatch do not run in it.
 *
 * Thread-safety: registration and dispatch need exclusive access to the world.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "component.hpp"
#include "entity.hpp"
#include "observers.hpp"

namespace ecs {

class World;

/**
 * @brief Passed to every entity-event observer: `stop()` ends the event's travel up the hierarchy
 *        once the observers of the current entity have run.
 */
class Propagation {
public:
    explicit Propagation(Entity origin) noexcept : origin_(origin) {}
    /// @brief No ancestor further up sees the event (the current entity's other observers still do).
    void stop() noexcept { stopped_ = true; }
    /// @brief True once stop() was called.
    [[nodiscard]] bool stopped() const noexcept { return stopped_; }
    /// @brief The entity the event was emitted to (observers receive the current one as `target`).
    [[nodiscard]] Entity origin() const noexcept { return origin_; }
    /// @brief Levels above the origin: 0 at the origin, 1 at its parent, ...
    [[nodiscard]] uint32_t depth() const noexcept { return depth_; }
    /// @brief Used by World::emit when the event moves up one level.
    void climb() noexcept { ++depth_; }

private:
    Entity origin_;
    uint32_t depth_ = 0;
    bool stopped_ = false;
};

namespace detail {

/// Type-erased entity-event observer: the world, the current entity, the event's address.
using EntityObserverFn = std::function<void(World&, Entity, void*, Propagation&)>;

/// The entity-event observers of one world (see the file comment).
class EntityEvents {
public:
    EntityEvents() : serial_(next_observers_serial.fetch_add(1, std::memory_order_relaxed)) {}
    EntityEvents(EntityEvents&&) noexcept = default;
    EntityEvents& operator=(EntityEvents&&) noexcept = default;
    EntityEvents(const EntityEvents&) = delete;
    EntityEvents& operator=(const EntityEvents&) = delete;

    /// True when any observer is registered (the one branch destroy takes when there is none).
    [[nodiscard]] bool any() const noexcept { return live_ != 0; }

    /// Registers `fn` for events of `type` on `e`, or on any entity when `e` is INVALID_ENTITY.
    ObserverId add(Entity e, ComponentTypeID type, EntityObserverFn&& fn) {
        auto entry = std::make_unique<Entry>();
        entry->id = ++last_id_;
        entry->generation = e.generation;
        entry->type = type;
        entry->fn = std::move(fn);
        List& list = e == INVALID_ENTITY ? grow(global_, type) : grow(by_slot_, e.index);
        list.push_back(std::move(entry));
        ++live_;
        return ObserverId{last_id_, serial_};
    }

    /**
     * Runs the observers of `type` registered on `e`, then those of any entity, each with `e` as
     * the current entity. Returns without a call when none exists.
     */
    void dispatch(World& world, Entity e, ComponentTypeID type, void* event, Propagation& p) {
        if (e.index < by_slot_.size() && !by_slot_[e.index].empty()) run(world, by_slot_, e.index, e, true, type, event, p);
        if (type < global_.size() && !global_[type].empty()) run(world, global_, type, e, false, type, event, p);
    }

    /// True when some observer may receive `type` on `e` or on any entity (emit's early exit).
    [[nodiscard]] bool listens(Entity e, ComponentTypeID type) const noexcept {
        return (e.index < by_slot_.size() && !by_slot_[e.index].empty()) || (type < global_.size() && !global_[type].empty());
    }

    /// Drops every observer registered on `e` (destroyed).
    void drop(Entity e) {
        if (e.index >= by_slot_.size()) return;
        List& list = by_slot_[e.index];
        for (auto& entry : list)
            if (!entry->dead && entry->generation == e.generation) kill(*entry);
        sweep(list);
    }

    /// Unregisters the observer `id`; false when unknown, already gone or from another world.
    bool disconnect(ObserverId id) {
        if (id.world != serial_ || id.value == 0) return false;
        for (auto* lists : {&by_slot_, &global_})
            for (List& list : *lists)
                for (auto& entry : list)
                    if (entry->id == id.value && !entry->dead) {
                        kill(*entry);
                        sweep(list);
                        return true;
                    }
        return false;
    }

    /// Drops every observer (the world lost every entity).
    void clear() {
        if (dispatching_ != 0) {
            for (auto* lists : {&by_slot_, &global_})
                for (List& list : *lists)
                    for (auto& entry : list)
                        if (!entry->dead) kill(*entry);
            return;
        }
        by_slot_.clear();
        global_.clear();
        live_ = 0;
    }

private:
    struct Entry {
        uint32_t id = 0;
        uint32_t generation = 0;
        ComponentTypeID type = INVALID_COMPONENT_ID;
        bool dead = false;
        EntityObserverFn fn;
    };
    using List = std::vector<std::unique_ptr<Entry>>;

    static List& grow(std::vector<List>& lists, size_t at) {
        if (at >= lists.size()) lists.resize(at + 1);
        return lists[at];
    }

    void kill(Entry& entry) noexcept {
        entry.dead = true;
        --live_;
        garbage_ = true;
    }

    /// Frees the dead entries of `list` unless a dispatch runs (it may hold one of them).
    void sweep(List& list) {
        if (dispatching_ != 0) return;
        size_t out = 0;
        for (size_t i = 0; i < list.size(); ++i)
            if (!list[i]->dead) list[out++] = std::move(list[i]);
        list.resize(out);
    }

    void sweep_all() {
        garbage_ = false;
        for (auto* lists : {&by_slot_, &global_})
            for (List& list : *lists) sweep(list);
    }

    /// Calls the entries of `lists[at]` that exist now, are live, of `type` and (`own`) of `e`'s
    /// generation, with `e` as the current entity. The list is re-read by index on every call: an
    /// observer may register on another slot, which moves the lists.
    void run(World& world, std::vector<List>& lists, size_t at, Entity e, bool own, ComponentTypeID type, void* event,
             Propagation& p) {
        const size_t n = lists[at].size(); // observers added meanwhile wait for the next emit
        ++dispatching_;
        for (size_t i = 0; i < n; ++i) {
            Entry* entry = lists[at][i].get(); // heap entries stay put; nothing is erased while dispatching
            if (entry->dead || entry->type != type || (own && entry->generation != e.generation)) continue;
            entry->fn(world, e, event, p);
        }
        if (--dispatching_ == 0 && garbage_) sweep_all();
    }

    std::vector<List> by_slot_; ///< entity slot -> observers registered on it
    std::vector<List> global_;  ///< event type -> observers of any entity
    size_t live_ = 0;
    uint32_t last_id_ = 0;
    uint32_t dispatching_ = 0;
    bool garbage_ = false;
    uint32_t serial_ = 0;
};

} // namespace detail
} // namespace ecs
