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
 * Observers live on the heap, one list per entity slot and per event type, so an observer may
 * register others, disconnect itself or others, or destroy entities while it runs: a removed
 * observer is marked dead and freed when the outermost emit ends. An observer added while an emit
 * runs is linked at once but matches nothing until then (it waits in `pending_`), so it runs in
 * no emit that was under way when it was added, nested ones included.
 *
 * Thread-safety: registration and dispatch need exclusive access to the world.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "component.hpp"
#include "config.hpp"
#include "detail/atomic_slot.hpp"
#include "detail/pod_array.hpp"
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
    void stop() noexcept { stopped_ = 1; }
    /// @brief True once stop() was called.
    [[nodiscard]] bool stopped() const noexcept { return stopped_ != 0; }
    /// @brief The entity the event was emitted to (observers receive the current one as `target`).
    [[nodiscard]] Entity origin() const noexcept { return origin_; }
    /// @brief Levels above the origin: 0 at the origin, 1 at its parent, ...
    [[nodiscard]] uint32_t depth() const noexcept { return depth_; }
    /// @brief Used by World::emit when the event moves up one level.
    void climb() noexcept { ++depth_; }

private:
    Entity origin_;
    uint32_t depth_ = 0;
    uint32_t stopped_ = 0; // a word, not a bool: one 8-byte store initialises it with depth_
};

namespace detail {

/// One emit's state at the level being visited: what every observer call receives, in one place,
/// so the dispatch loop keeps few values live across the (opaque) observer call and reloads the
/// rest from here.
struct EmitFrame {
    /// `key` is left unset: dispatch sets it before every walk.
    EmitFrame(World& w, void* ev, Entity target, ComponentTypeID t) noexcept
        : world(w), event(ev), propagation(target), current(target), type(t) {}

    World& world;
    void* event;
    Propagation propagation;
    Entity current;       ///< the entity whose observers run now
    ComponentTypeID type; ///< detail::event_type_id of the event
    uint64_t key;         ///< what a matching entry's key is at this level (set by dispatch)
};

/**
 * One registered observer: the list links and filters, and the callable behind one plain function
 * pointer (EntityObserver<F> holds it). A dispatch calls through that pointer alone: no
 * std::function in the way (ROADMAP-2.0 L: emit to one observer <= 3x a call through
 * std::function).
 */
struct EntityObserverEntry {
    using Call = void (*)(EntityObserverEntry&, EmitFrame&);
    using Destroy = void (*)(EntityObserverEntry*) noexcept;
    /// What a dispatch matches in one compare: the event type and the entity's generation (0 for
    /// observers of any entity). A dead entry, and one added during an emit until that emit ends,
    /// matches nothing (NO_MATCH).
    uint64_t key = 0;
    uint32_t id = 0;
    uint32_t generation = 0;
    ComponentTypeID type = INVALID_COMPONENT_ID;
    bool dead = false;
    EntityObserverEntry* next = nullptr;
    Call call = nullptr;
    Destroy destroy = nullptr;

    static constexpr uint64_t NO_MATCH = ~uint64_t(0);
    [[nodiscard]] static constexpr uint64_t key_of(ComponentTypeID t, uint32_t g) noexcept { return (uint64_t(g) << 32) | t; }
};

/// An observer entry holding callable `F`, called as fn(World&, Entity, void* event, Propagation&).
template <typename F>
struct EntityObserver final : EntityObserverEntry {
    F fn;
    explicit EntityObserver(F&& f) : fn(std::move(f)) {
        call = [](EntityObserverEntry& self, EmitFrame& frame) {
            static_cast<EntityObserver&>(self).fn(frame.world, frame.current, frame.event, frame.propagation);
        };
        destroy = [](EntityObserverEntry* self) noexcept { delete static_cast<EntityObserver*>(self); };
    }
};

/// The entity-event observers of one world (see the file comment).
class EntityEvents {
public:
    EntityEvents() : serial_(next_observers_serial.fetch_add(1, detail::order_relaxed)) {}
    EntityEvents(EntityEvents&& other) noexcept
        : by_slot_(std::move(other.by_slot_)), global_(std::move(other.global_)), pending_(std::move(other.pending_)), live_(other.live_),
          global_live_(other.global_live_), last_id_(other.last_id_), up_id_(other.up_id_), emitting_(other.emitting_), maintenance_(other.maintenance_), serial_(other.serial_) {
        other.live_ = 0;
        other.global_live_ = 0;
    }
    EntityEvents& operator=(EntityEvents&& other) noexcept {
        if (this != &other) {
            free_all();
            by_slot_ = std::move(other.by_slot_);
            global_ = std::move(other.global_);
            pending_ = std::move(other.pending_);
            live_ = other.live_;
            global_live_ = other.global_live_;
            last_id_ = other.last_id_;
            up_id_ = other.up_id_;
            emitting_ = other.emitting_;
            maintenance_ = other.maintenance_;
            serial_ = other.serial_;
            other.live_ = 0;
            other.global_live_ = 0;
        }
        return *this;
    }
    EntityEvents(const EntityEvents&) = delete;
    EntityEvents& operator=(const EntityEvents&) = delete;
    ~EntityEvents() { free_all(); }

    /// True when any observer is registered (the one branch destroy takes when there is none).
    [[nodiscard]] bool any() const noexcept { return live_ != 0; }

    /// The component id emit tests on each level to climb (Parent's; set by World::observe). Any
    /// valid id when Parent has none: emit_up checks again before it climbs.
    [[nodiscard]] ComponentTypeID up_id() const noexcept { return up_id_; }
    void set_up_id(ComponentTypeID id) noexcept { up_id_ = id < ECS_MAX_COMPONENTS ? id : 0; }

    /// Registers `fn` for events of type `type` (detail::event_type_id) on `e`, or on any entity when `e` is INVALID_ENTITY.
    template <typename F>
    ObserverId add(Entity e, ComponentTypeID type, F&& fn) {
        Entry* entry = new EntityObserver<std::decay_t<F>>(std::forward<F>(fn));
        entry->id = ++last_id_;
        entry->generation = e.generation;
        entry->type = type;
        if (emitting_) { // matches from the end of the outermost emit on (maintain)
            entry->key = Entry::NO_MATCH;
            pending_.push_back(entry);
            maintenance_ = true;
        } else {
            entry->key = live_key(*entry);
        }
        Entry*& head = e == INVALID_ENTITY ? grow(global_, type) : grow(by_slot_, e.index);
        Entry** at = &head; // appended: observers run in registration order
        while (*at != nullptr) at = &(*at)->next;
        *at = entry;
        ++live_;
        if (e == INVALID_ENTITY) ++global_live_;
        return ObserverId{last_id_, serial_};
    }

    /**
     * Runs the observers of `frame.type` registered on `frame.current`, then those of any entity,
     * each with `frame.current` as the current entity. Only between begin_emit and end_emit.
     */
    ECS_FORCEINLINE void dispatch(EmitFrame& frame) { dispatch(frame, frame.current); }
    ECS_FORCEINLINE void dispatch(EmitFrame& frame, Entity current) {
        const uint32_t slot = current.index;
        if (slot < by_slot_.size() && by_slot_[slot] != nullptr) {
            frame.key = Entry::key_of(frame.type, current.generation);
            run(by_slot_[slot], frame);
        }
        if (global_live_ != 0 && frame.type < global_.size() && global_[frame.type] != nullptr) {
            frame.key = Entry::key_of(frame.type, 0u);
            run(global_[frame.type], frame);
        }
    }

    /**
     * Opens an emit; true for the outermost one (not run by an observer of another). While any
     * emit runs, removed observers stay allocated and added ones wait (see the file comment).
     *
     * A flag set by the outermost emit, not a depth counter: storing constants keeps back-to-back
     * emits free of a read-modify-write chain through memory (the observer is an opaque call, so
     * the field cannot stay in a register).
     */
    [[nodiscard]] bool begin_emit() noexcept {
        const bool outermost = !emitting_;
        emitting_ = true;
        return outermost;
    }
    /// Closes the emit begin_emit opened; the outermost one activates the observers added and frees those removed meanwhile.
    void end_emit(bool outermost) {
        if (!outermost) return;
        emitting_ = false;
        if (ECS_UNLIKELY(maintenance_)) maintain();
    }

    /// Drops every observer registered on `e` (destroyed).
    void drop(Entity e) {
        if (e.index >= by_slot_.size()) return;
        for (Entry* entry = by_slot_[e.index]; entry != nullptr; entry = entry->next)
            if (!entry->dead && entry->generation == e.generation) kill(*entry);
        if (!emitting_) sweep(by_slot_[e.index]);
    }

    /// Unregisters the observer `id`; false when unknown, already gone or from another world.
    bool disconnect(ObserverId id) {
        if (id.world != serial_ || id.value == 0) return false;
        for (auto* lists : {&by_slot_, &global_})
            for (Entry*& head : *lists)
                for (Entry* entry = head; entry != nullptr; entry = entry->next)
                    if (entry->id == id.value && !entry->dead) {
                        kill(*entry);
                        if (!emitting_) sweep(head);
                        return true;
                    }
        return false;
    }

    /// Drops every observer (the world lost every entity).
    void clear() {
        for (auto* lists : {&by_slot_, &global_})
            for (Entry* head : *lists)
                for (Entry* entry = head; entry != nullptr; entry = entry->next)
                    if (!entry->dead) kill(*entry);
        if (!emitting_) sweep_all();
    }

private:
    using Entry = EntityObserverEntry;

    static Entry*& grow(PodArray<Entry*>& heads, size_t at) {
        if (at >= heads.size()) heads.resize(at + 1, nullptr);
        return heads[at];
    }

    /// The key an entry matches once active: its event type and its entity's generation (0 for any entity).
    [[nodiscard]] static uint64_t live_key(const Entry& entry) noexcept { return Entry::key_of(entry.type, entry.generation); }

    void kill(Entry& entry) noexcept {
        entry.dead = true;
        entry.key = Entry::NO_MATCH;
        --live_;
        if (entry.generation == 0) --global_live_; // an observer of any entity (no slot's generation is 0)
        maintenance_ = true;
    }

    /// Unlinks and frees the dead entries of one list (never while an emit runs: it may hold one).
    static void sweep(Entry*& head) {
        Entry** at = &head;
        while (*at != nullptr) {
            Entry* entry = *at;
            if (entry->dead) {
                *at = entry->next;
                entry->destroy(entry);
            } else {
                at = &entry->next;
            }
        }
    }

    /// At the end of the outermost emit: the observers added during it start matching, the removed ones are freed.
    ECS_NOINLINE void maintain() {
        for (Entry* entry : pending_)
            if (!entry->dead) entry->key = live_key(*entry);
        pending_.clear();
        sweep_all();
    }

    void sweep_all() {
        maintenance_ = false;
        for (auto* lists : {&by_slot_, &global_})
            for (Entry*& head : *lists) sweep(head);
    }

    void free_all() noexcept {
        for (auto* lists : {&by_slot_, &global_})
            for (Entry* head : *lists)
                while (head != nullptr) {
                    Entry* next = head->next;
                    head->destroy(head);
                    head = next;
                }
        by_slot_.clear();
        global_.clear();
    }

    /// Calls the entries from `entry` on whose key is `frame.key`. Entries stay put (heap nodes,
    /// freed only when no emit runs), so an observer may register, disconnect or destroy while this
    /// walks.
    static void run(Entry* entry, EmitFrame& frame) {
        do {
            if (entry->key == frame.key) entry->call(*entry, frame);
            entry = entry->next;
        } while (entry != nullptr);
    }

    PodArray<Entry*> by_slot_; ///< entity slot -> its observers (a list in registration order)
    PodArray<Entry*> global_;  ///< event type -> observers of any entity
    PodArray<Entry*> pending_; ///< added while an emit ran: their keys are set when the outermost one ends
    size_t live_ = 0;
    size_t global_live_ = 0; ///< live observers of any entity (dispatch skips global_ while 0)
    uint32_t last_id_ = 0;
    ComponentTypeID up_id_ = 0;
    bool emitting_ = false;    ///< an emit runs (begin_emit .. end_emit)
    bool maintenance_ = false; ///< observers were removed, or added during an emit, since the last maintain()
    uint32_t serial_ = 0;
};

} // namespace detail
} // namespace ecs
