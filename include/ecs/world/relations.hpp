/**
 * @file ecs/world/relations.hpp
 * @brief The World side of relationships: World::relate and the other relationship members, the
 *        destroy path of a world holding pairs, and the engine side of the Related / Cascade filters.
 *
 * Included by world.hpp after the class. The relation room itself (the indexes,
 * the filters) is ecs/relation.hpp.
 *
 * The destroy path (World::destroy when the world holds a pair; every other path reaches it: deferred
 * and command-buffer destroys at their flush, hooks that destroy, destroy_recursive, and whatever
 * destroys through World::destroy):
 * 1. Cascade: when `e` is the target of a destroy_sources relationship, its sources are collected
 *    breadth-first, transitively, each entity once (a mark per slot: cycles end there), and destroyed
 *    deepest first, then `e`: sources go before their target, so their hooks still see it alive.
 * 2. Each entity is destroyed as before (on_leave, on_remove hooks), then its pairs are removed as a
 *    source and as a target (Relations::detach), then its row and slot go.
 * 3. Follow-up work detach queued runs once the entity is dead (after each entity of a cascade):
 *    sources that lost their last target of an `unrelate` relationship lose their HasRelation tag
 *    (remove: on_leave / on_remove hooks fire), sources of a destroy_sources relationship still alive
 *    (related meanwhile by a hook) are destroyed. Hooks running then may see another source of the
 *    same target still carrying the tag without a target, until its turn comes.
 * A world without pairs takes none of this: one branch on Relations::any() in World::destroy.
 */
#pragma once

#include <cstddef>
#include <vector>

#include "../detail/atomic_slot.hpp"
#include "../detail/message.hpp"
#include "../detail/pod_array.hpp"
#include "../detail/world_access.hpp"
#include "../relation.hpp"
#include "world_class.hpp"

namespace ecs {

namespace detail {

/// The index of relationship type R in `rel`, or nullptr before its first pair.
template <typename R>
[[nodiscard]] const RelationIndex* relation_index_of(const Relations& rel) {
    return rel.find(relation_info<R>().id);
}

/// Calls `fn(entity)` for the `other` of each link of `list`, copied first (fn may change it).
template <typename Func>
void visit_links_copy(const LinkList* list, Func& fn) {
    if (list == nullptr || list->empty()) return;
    const uint32_t n = list->size();
    const RelationLink* links = list->data();
    Entity local[32];
    if (n <= 32) {
        for (uint32_t i = 0; i < n; ++i) local[i] = links[i].other;
        for (uint32_t i = 0; i < n; ++i) fn(local[i]);
        return;
    }
    std::vector<Entity> copy(n);
    for (uint32_t i = 0; i < n; ++i) copy[i] = links[i].other;
    for (const Entity e : copy) fn(e);
}

template <typename R>
bool related_row_test(const World& world, Entity row, Entity target) {
    const RelationIndex* index = relation_index_of<R>(WorldAccess::relations(world));
    return index != nullptr && index->find(row.index, target) != RelationIndex::NPOS;
}

template <typename R>
void cascade_order(World& world, const QueryCache& q, bool may_reorder, const RowRun*& runs, size_t& count) {
    // Inside a shared section (each_par workers, Schedule waves) several threads may run Cascade
    // queries: the first one brings the order up to date under the shared cache lock; nothing can
    // change it until the section ends (relationship and structural changes are refused), so the
    // others find it valid and only read it.
    const bool shared = WorldAccess::queries(world).shared();
    if (shared)
        while (shared_cache_lock.exchange(true, detail::order_acquire)) {
        }
    Relations& rel = WorldAccess::relations(world);
    CascadeOrder& order = rel.cascade_order(q);
    order.update(rel.find(relation_info<R>().id), may_reorder && !shared ? &WorldAccess::records(world) : nullptr);
    runs = order.runs();
    count = order.run_count();
    if (shared) shared_cache_lock.store(false, detail::order_release);
}

} // namespace detail

template <typename R>
inline void World::relate(Entity source, Entity target) {
    const detail::RelationTypeInfo& info = detail::relation_info<R>();
    if (!ECS_CHECK(alive(source), detail::entity_message("World::relate", info.type_name, source, "is not alive (source)")))
        return;
    if (!ECS_CHECK(alive(target), detail::entity_message("World::relate", info.type_name, target, "is not alive (target)")))
        return;
    if (!ECS_CHECK(!iterating(), detail::detailed_message("World::relate: relationship change during iteration (use deferred())",
                                                         info.type_name, source)))
        return;
    if (!ECS_CHECK(info.marker < ECS_MAX_COMPONENTS, "World::relate: too many component types (raise ECS_MAX_COMPONENTS)"))
        return;
    detail::RelationIndex& index = relations_.ensure(info);
    if (index.find(source.index, target) != detail::RelationIndex::NPOS) return;
    if (info.exclusive && index.target_count(source.index) != 0) relations_.unlink(index, source.index, 0);
    relations_.link(index, source, target);
    entities_.stamp(source.index);
    // The tag after the pair: its on_add / on_enter hooks see the pair.
    if (!arch_of(source).has(info.marker)) add<detail::HasRelation<R>>(source);
}

template <typename R>
inline void World::unrelate(Entity source, Entity target) {
    if (!alive(source)) return;
    const detail::RelationTypeInfo& info = detail::relation_info<R>();
    detail::RelationIndex* index = relations_.find(info.id);
    if (index == nullptr) return;
    const uint32_t k = index->find(source.index, target);
    if (k == detail::RelationIndex::NPOS) return;
    if (!ECS_CHECK(!iterating(), detail::detailed_message("World::unrelate: relationship change during iteration (use deferred())",
                                                         info.type_name, source)))
        return;
    relations_.unlink(*index, source.index, k);
    entities_.stamp(source.index);
    if (index->target_count(source.index) == 0) remove_id(source, info.marker);
}

template <typename R>
inline void World::unrelate_all(Entity source) {
    if (!alive(source)) return;
    const detail::RelationTypeInfo& info = detail::relation_info<R>();
    detail::RelationIndex* index = relations_.find(info.id);
    if (index == nullptr || index->target_count(source.index) == 0) return;
    if (!ECS_CHECK(!iterating(), detail::detailed_message("World::unrelate_all: relationship change during iteration (use deferred())",
                                                         info.type_name, source)))
        return;
    while (index->target_count(source.index) != 0) relations_.unlink(*index, source.index, index->target_count(source.index) - 1);
    entities_.stamp(source.index);
    remove_id(source, info.marker);
}

/// World::destroy's body when the world holds pairs (see the file comment).
ECS_NOINLINE inline void World::relations_destroy(Entity e) {
    detail::Relations& rel = relations_;
    if (rel.cascades(e)) {
        detail::PodArray<Entity> order; // breadth-first: e, its sources, theirs...
        order.push_back(e);
        rel.mark_dying(e.index);
        for (size_t i = 0; i < order.size(); ++i) {
            rel.each_cascading_source(order[i].index, [&](Entity source) {
                if (rel.dying(source.index)) return; // collected already (a cycle, or a shared source)
                rel.mark_dying(source.index);
                order.push_back(source);
            });
        }
        for (size_t k = order.size(); k-- > 0;) { // deepest first, `e` last
            if (!alive(order[k])) continue;
            destroy_entity<true>(order[k]);
            drain_relations(); // before the next entity's hooks run: they see a consistent world
        }
        for (const Entity x : order) rel.clear_dying(x.index); // also for any a hook destroyed another way
    } else {
        destroy_entity<true>(e);
    }
    drain_relations();
}

inline void World::stamp_sources(Entity e) {
    relations_.each_index([&](const detail::RelationIndex& index) {
        if (const detail::LinkList* sources = index.sources_of(e.index))
            for (uint32_t k = 0; k < sources->size(); ++k) entities_.stamp((*sources)[k].other.index);
    });
}

/// Runs the follow-up work detach queued (LIFO); a nested call leaves it to the running one.
inline void World::drain_relations() {
    detail::Relations& rel = relations_;
    if (rel.draining()) return;
    rel.draining() = true;
    struct Done { // also when a hook throws: the work left waits for the next destroy
        bool& flag;
        ~Done() { flag = false; }
    } done{rel.draining()};
    detail::PodArray<detail::Relations::Pending>& pending = rel.pending();
    while (!pending.empty()) {
        const detail::Relations::Pending p = pending[pending.size() - 1];
        pending.pop_back();
        if (!alive(p.entity)) continue;
        if (p.destroy) {
            if (!rel.dying(p.entity.index)) destroy(p.entity); // a cascade in progress destroys it anyway
            continue;
        }
        const detail::RelationIndex* index = rel.find(p.relation);
        if (index != nullptr && index->target_count(p.entity.index) == 0) remove_id(p.entity, index->info().marker);
    }
}

template <typename R>
inline bool World::related(Entity source, Entity target) const {
    if (!alive(source)) return false;
    const detail::RelationIndex* index = detail::relation_index_of<R>(relations_);
    return index != nullptr && index->find(source.index, target) != detail::RelationIndex::NPOS;
}

template <typename R>
inline size_t World::target_count(Entity source) const {
    if (!alive(source)) return 0;
    const detail::RelationIndex* index = detail::relation_index_of<R>(relations_);
    return index != nullptr ? index->target_count(source.index) : 0;
}

template <typename R>
inline Entity World::target(Entity source, size_t i) const {
    if (!alive(source)) return INVALID_ENTITY;
    const detail::RelationIndex* index = detail::relation_index_of<R>(relations_);
    if (index == nullptr || i >= index->target_count(source.index)) return INVALID_ENTITY;
    return (*index->targets_of(source.index))[i].other;
}

template <typename R, typename Func>
inline void World::each_target(Entity source, Func&& fn) const {
    static_assert(std::is_invocable_v<Func&, Entity>, "World::each_target: the callback must be callable as fn(Entity target)");
    if (!alive(source)) return;
    const detail::RelationIndex* index = detail::relation_index_of<R>(relations_);
    if (index != nullptr) detail::visit_links_copy(index->targets_of(source.index), fn);
}

template <typename R, typename Func>
inline void World::each_source(Entity target, Func&& fn) const {
    static_assert(std::is_invocable_v<Func&, Entity>, "World::each_source: the callback must be callable as fn(Entity source)");
    if (!alive(target)) return;
    const detail::RelationIndex* index = detail::relation_index_of<R>(relations_);
    if (index != nullptr) detail::visit_links_copy(index->sources_of(target.index), fn);
}

} // namespace ecs
