/**
 * @file ecs/observers.hpp
 * @brief Observers: the on_add / on_remove hooks of a world, one list per component type, and their
 *        dispatch.
 *
 * A hook may change OTHER entities, structurally too. Dispatch therefore re-reads the entity's record
 * before every callback and holds no row, column pointer or reference across one (PITFALLS 5). With no
 * hook registered for a type, the cost on a structural change is one predictable branch on a flag
 * and a bit test (PITFALLS 6).
 *
 * Thread-safety: registration and dispatch need exclusive access to the world.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include "archetype.hpp"
#include "component.hpp"
#include "detail/algorithms.hpp"
#include "detail/pod_array.hpp"
#include "detail/std_function.hpp"
#include "entity.hpp"
#include "entity_index.hpp"

namespace ecs {

class World;

namespace detail {

/**
 * @brief The hooks of one world: per component id, the on_add and on_remove lists in registration
 *        order, a mask of the ids that have any, and the slots whose on_remove hooks are running.
 */
class Observers {
public:
    /// Type-erased hook: receives the world, the entity and the component's address.
    using ErasedHook = std::function<void(World&, Entity, void*)>;

    template <typename T>
    static ErasedHook erase(std::function<void(World&, Entity, T&)> fn) {
        return [f = std::move(fn)](World& w, Entity e, void* p) { f(w, e, *static_cast<T*>(p)); };
    }

    void add_on_add(ComponentTypeID id, ErasedHook&& fn) {
        add_hooks_.push_back(id, static_cast<ErasedHook&&>(fn));
        add_mask_.set(id);
        any_add_ = true;
    }
    void add_on_remove(ComponentTypeID id, ErasedHook&& fn) {
        remove_hooks_.push_back(id, static_cast<ErasedHook&&>(fn));
        remove_mask_.set(id);
        any_remove_ = true;
    }

    /// True when some on_add hook exists (the one branch structural paths take when there is none).
    [[nodiscard]] ECS_FORCEINLINE bool any_add() const noexcept { return any_add_; }
    [[nodiscard]] ECS_FORCEINLINE bool any_remove() const noexcept { return any_remove_; }
    /// True when an on_remove hook exists for one of the types of `mask`.
    [[nodiscard]] bool any_remove_in(const ComponentMask& mask) const noexcept { return (mask & remove_mask_).any(); }
    [[nodiscard]] bool has_remove(ComponentTypeID id) const noexcept { return remove_mask_.test(id); }

    void fire_on_add(World& w, const EntityIndex& index, Entity e, ComponentTypeID id) {
        if (add_mask_.test(id)) fire(add_hooks_, w, index, e, id);
    }
    void fire_on_remove(World& w, const EntityIndex& index, Entity e, ComponentTypeID id) {
        if (remove_mask_.test(id)) fire(remove_hooks_, w, index, e, id);
    }

    /**
     * Runs the on_remove hooks of every type of live entity `e` (its archetype's order), stopping if a
     * hook destroyed it. @return false when `e` is already being destroyed further up the stack (a
     * hook destroyed it again: that nested destroy must do nothing).
     */
    bool fire_all_on_remove(World& w, const EntityIndex& index, Entity e) {
        if (detail::find_value(dying_.begin(), dying_.end(), e.index) != dying_.end()) return false;
        dying_.push_back(e.index);
        struct Unmark { // also when a hook throws
            detail::PodArray<uint32_t>& dying;
            uint32_t slot;
            ~Unmark() {
                uint32_t* at = detail::find_value(dying.begin(), dying.end(), slot);
                for (uint32_t* next = at + 1; next != dying.end(); ++next) next[-1] = *next;
                dying.pop_back();
            }
        } unmark{dying_, e.index};
        const Archetype* arch = index[e.index].archetype;
        for (size_t i = 0; i < arch->types.size(); ++i) {
            const ComponentTypeID id = arch->types[i];
            if (!remove_mask_.test(id)) continue;
            fire(remove_hooks_, w, index, e, id); // `arch` stays valid: archetypes are never freed
            if (!index.alive(e)) break;
        }
        return true;
    }

private:
    using HookTable = OwnedBuckets<ErasedHook>;

    /// Runs the hooks of `id` on `e`, re-reading the record before each one: a hook may move rows of
    /// this archetype or grow its block. Stops when `e` no longer has the component.
    ECS_NOINLINE static void fire(HookTable& hooks, World& w, const EntityIndex& index, Entity e, ComponentTypeID id) {
        for (size_t i = 0; i < hooks.size(id); ++i) {
            if (!index.alive(e)) return;
            const EntityRecord& r = index[e.index];
            if (!r.archetype->has(id)) return;
            void* value = r.archetype->column(id).at(r.row);
            hooks.at(id, i)(w, e, value);
        }
    }

    HookTable add_hooks_;
    HookTable remove_hooks_;
    ComponentMask add_mask_;
    ComponentMask remove_mask_;
    bool any_add_ = false;
    bool any_remove_ = false;
    PodArray<uint32_t> dying_; ///< slots whose on_remove hooks are running (nested destroys)
};

} // namespace detail
} // namespace ecs
