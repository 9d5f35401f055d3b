/**
 * @file ecs/detail/ancestors.hpp
 * @brief Walking up an entity's ancestors: the value of a live entity's component (enabled only),
 *        its one parent along an exclusive relationship or `ecs::Parent`, and the nearest ancestor
 *        holding a component (64 levels at most, stopping on a cycle). Typed `Up` / `SelfUp` terms
 *        (AncestorLookup) and query text's `T(up R)` terms both read values through here.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../archetype.hpp"
#include "../builtin/hierarchy.hpp"
#include "../component.hpp"
#include "../config.hpp"
#include "../entity.hpp"
#include "../query.hpp"
#include "../relation.hpp"
#include "../sparse.hpp"
#include "world_access.hpp"

namespace ecs::detail {

/// The deepest walk an Up term makes (ROADMAP-2.0 K: "Up stops after 64 levels").
inline constexpr size_t MAX_ANCESTOR_LEVELS = 64;

/// The record of a live `e`, or nullptr.
inline const EntityRecord* live_record(const World& w, Entity e) noexcept {
    const PodArray<EntityRecord>& records = WorldAccess::records(w);
    if (e.index == 0 || e.index >= records.size()) return nullptr;
    const EntityRecord& r = records[e.index];
    return r.live() && r.generation == e.generation ? &r : nullptr;
}

/// The address of live `e`'s component `id` when present and enabled, else nullptr (no change stamp).
inline void* enabled_value(const World& w, Entity e, ComponentTypeID id, bool sparse) noexcept {
    if (sparse) {
        const SparseRoom* room = WorldAccess::graph(w).sparse();
        const SparseSet* set = room != nullptr ? room->set(id) : nullptr;
        if (set == nullptr || live_record(w, e) == nullptr) return nullptr;
        const uint32_t s = set->slot_of(e.index);
        return s != 0 && !set->disabled_slot(s - 1) ? set->at(s - 1) : nullptr;
    }
    const EntityRecord* r = live_record(w, e);
    if (r == nullptr || !r->archetype->has(id)) return nullptr;
    const Archetype& a = *r->archetype;
    const size_t c = a.column_index[id];
    if (a.enable.any() && a.enable.disabled(c, r->row)) return nullptr;
    return a.columns[c].at(r->row);
}

/// The index of relationship `info` in `w`, or nullptr when `w` never related that type.
inline const RelationIndex* relation_index(const World& w, const RelationTypeInfo& info) noexcept {
    return WorldAccess::relations(w).find(info.id);
}

/// The one target of `e` along the exclusive relationship whose index is `index` (`by_parent`: along
/// `ecs::Parent` instead), or INVALID_ENTITY. A Parent naming a dead entity leads nowhere.
inline Entity parent_of(const World& w, bool by_parent, const RelationIndex* index, Entity e) noexcept {
    if (by_parent) {
        const void* p = enabled_value(w, e, component_id<Parent>(), false);
        if (p == nullptr) return INVALID_ENTITY;
        const Entity up = static_cast<const Parent*>(p)->entity;
        return live_record(w, up) != nullptr ? up : INVALID_ENTITY;
    }
    const LinkList* targets = index != nullptr ? index->targets_of(e.index) : nullptr;
    return targets != nullptr && !targets->empty() ? (*targets)[0].other : INVALID_ENTITY;
}

/// The value `id` of the nearest ancestor of `e` having it enabled, starting at `first` (e's parent),
/// or nullptr: 64 levels at most, and nullptr on a cycle (an ancestor met twice, or `e` itself).
inline void* nearest_ancestor_value(const World& w, bool by_parent, const RelationIndex* index, Entity e, Entity first,
                                    ComponentTypeID id, bool sparse) noexcept {
    Entity seen[MAX_ANCESTOR_LEVELS];
    Entity at = first;
    for (size_t level = 0; level < MAX_ANCESTOR_LEVELS; ++level) {
        if (at == INVALID_ENTITY || at == e) return nullptr;
        for (size_t k = 0; k < level; ++k)
            if (seen[k] == at) return nullptr; // a cycle above `e`
        seen[level] = at;
        if (void* p = enabled_value(w, at, id, sparse)) return p;
        at = parent_of(w, by_parent, index, at);
    }
    return nullptr;
}

/// `T` of `e`'s ancestors along `info` (nullptr: `ecs::Parent`), `self` first when asked.
inline void* up_value(const World& w, const RelationTypeInfo* info, Entity e, ComponentTypeID id, bool sparse,
                      bool self) noexcept {
    if (self)
        if (void* p = enabled_value(w, e, id, sparse)) return p;
    const RelationIndex* index = info != nullptr ? relation_index(w, *info) : nullptr;
    if (info != nullptr && index == nullptr) return nullptr; // never related: no parent anywhere
    return nearest_ancestor_value(w, info == nullptr, index, e, parent_of(w, info == nullptr, index, e), id, sparse);
}

/// Up<R, const T> / SelfUp<R, const T> (query_terms.hpp): row `i` of the run in `state`. A row whose
/// parent is the previous row's parent reuses its answer (no structural or relationship change can
/// happen during a run), unless the previous walk passed through the row's own entity.
template <typename Term>
struct UpFetch {
    using Traits = TermTraits<Term>;
    using T = typename Traits::component;
    using R = typename Traits::relation;
    static constexpr bool by_parent = std::is_same_v<R, Parent>;
    static_assert(by_parent || relation_exclusive<R>::value,
                  "ecs::Up<R, const T> / SelfUp<R, const T>: R must be an exclusive relationship (relation_traits<R>::exclusive) "
                  "or ecs::Parent");

    /// The value for row `i`: the previous row's answer when the parent is the same (the common case,
    /// kept small so that it inlines into the row loop), else a walk.
    ECS_FORCEINLINE static const void* fetch(UpState& state, size_t i) noexcept {
        if (state.world == nullptr) return nullptr;
        const Entity e = state.archetype->entities[state.begin + i];
        if constexpr (Traits::self)
            if (void* p = enabled_value(*state.world, e, component_id<T>(), is_sparse_v<T>)) return p;
        if (ECS_UNLIKELY(!state.resolved)) resolve(state);
        Entity parent;
        if (by_parent && state.parents != nullptr) {
            parent = static_cast<const Parent*>(state.parents)[state.begin + i].entity;
            if (!(state.remembered && parent == state.last_parent) && live_record(*state.world, parent) == nullptr)
                parent = INVALID_ENTITY;
        } else {
            if (!by_parent && state.relation == nullptr) return nullptr; // never related: no parent anywhere
            parent = parent_of(*state.world, by_parent, static_cast<const RelationIndex*>(state.relation), e);
        }
        if (state.remembered && parent == state.last_parent) { // the previous row's walk, unless it passed `e`
            bool through_e = false;
            for (size_t k = 0; k < state.chain_length && !through_e; ++k) through_e = state.chain[k] == e;
            if (!through_e) return state.last_value;
        }
        return walk(state, e, parent);
    }

private:
    /// Once per run: the relationship's index, or the run's Parent column (when no enable bit can
    /// hide a row's Parent).
    ECS_NOINLINE static void resolve(UpState& state) noexcept {
        state.resolved = true;
        if constexpr (by_parent) {
            const Archetype& a = *state.archetype;
            const ComponentTypeID pid = component_id<Parent>();
            if (a.has(pid) && !a.enable.any()) state.parents = a.column(pid).data;
        } else {
            state.relation = relation_index(*state.world, relation_type<R>());
        }
    }

    /// The walk from `parent`, keeping the ancestors it passed (for the check in fetch).
    ECS_NOINLINE static const void* walk(UpState& state, Entity e, Entity parent) noexcept {
        const World& w = *state.world;
        const RelationIndex* index = static_cast<const RelationIndex*>(state.relation);
        const ComponentTypeID id = component_id<T>();
        state.chain_length = 0;
        const void* value = nullptr;
        bool met_e = false;
        Entity at = parent;
        for (size_t level = 0; level < MAX_ANCESTOR_LEVELS && at != INVALID_ENTITY; ++level) {
            if (at == e) {
                met_e = true; // a cycle through `e`: no value, and an answer that depends on `e`
                break;
            }
            bool cycle = false;
            for (size_t k = 0; k < state.chain_length && !cycle; ++k) cycle = state.chain[k] == at;
            if (cycle) break;
            state.chain[state.chain_length++] = at;
            if (void* p = enabled_value(w, at, id, is_sparse_v<T>)) {
                value = p;
                break;
            }
            at = parent_of(w, by_parent, index, at);
        }
        state.remembered = !met_e;
        state.last_parent = parent;
        state.last_value = value;
        return value;
    }
};
template <typename R, typename T>
struct AncestorLookup<Up<R, T>> : UpFetch<Up<R, T>> {};
template <typename R, typename T>
struct AncestorLookup<SelfUp<R, T>> : UpFetch<SelfUp<R, T>> {};

} // namespace ecs::detail
