/**
 * @file ecs/world/raw.hpp
 * @brief World's untyped members: add_raw, remove_raw, get_raw, has_raw, each_raw and the raw
 *        observer registrations, which reach any component, typed or runtime, by id or by name.
 *
 * They route to the same rooms as the typed calls: the archetype graph for migrations, the sparse
 * room for sparse types, the observers for hooks. Runtime component types themselves (their ids,
 * slots and column functions) live in runtime_types.hpp.
 */
#pragma once

#include <cstddef>
#include <string_view>

#include "../detail/atomic_slot.hpp"
#include "../detail/component_registry.hpp"
#include "../detail/message.hpp"
#include "../detail/sparse_drive.hpp"
#include "../runtime_types.hpp"
#include "structural.hpp"
#include "world_class.hpp"

namespace ecs {


inline void* World::get_raw(Entity e, ComponentTypeID id) {
    if (!alive(e)) return nullptr;
    const EntityRecord& r = entities_[e.index];
    Archetype& a = arch_of(r);
    detail::SparseSet* set = nullptr;
    if (ECS_UNLIKELY(!a.has(id))) {
        set = sparse_member(e, id);
        if (set == nullptr) {
            (void)detail::check_known_id("World::get_raw", id);
            return nullptr;
        }
    }
#if ECS_ASSERT_ENABLED
    if (ECS_UNLIKELY(detail::current_access != nullptr) && detail::access_refused(id, true, component_info(id).name))
        return nullptr;
#endif
    if (set != nullptr) { // a sparse type: its value lives in the set
        if (ECS_UNLIKELY(set->ticks_active())) set->touch(e.index); // mutable access counts as a change
        return set->find(e.index);
    }
    if (ECS_UNLIKELY(a.ticks.active())) a.touch(id, r.row); // mutable access counts as a change
    return a.column(id).at(r.row);
}

inline const void* World::get_raw(Entity e, ComponentTypeID id) const {
    if (!alive(e)) return nullptr;
    const EntityRecord& r = entities_[e.index];
    const Archetype& a = arch_of(r);
    const detail::SparseSet* set = nullptr;
    if (ECS_UNLIKELY(!a.has(id))) {
        set = sparse_member(e, id);
        if (set == nullptr) {
            (void)detail::check_known_id("World::get_raw", id);
            return nullptr;
        }
    }
#if ECS_ASSERT_ENABLED
    if (ECS_UNLIKELY(detail::current_access != nullptr) && detail::access_refused(id, false, component_info(id).name))
        return nullptr;
#endif
    if (set != nullptr) return set->find(e.index); // a sparse type: its value lives in the set
    return a.column(id).at(r.row);
}

inline void* World::get_raw(Entity e, const char* name) {
    const ComponentTypeID id = detail::resolve_name("World::get_raw", name);
    return id != INVALID_COMPONENT_ID ? get_raw(e, id) : nullptr;
}

inline const void* World::get_raw(Entity e, const char* name) const {
    const ComponentTypeID id = detail::resolve_name("World::get_raw", name);
    return id != INVALID_COMPONENT_ID ? get_raw(e, id) : nullptr;
}

inline bool World::has_raw(Entity e, ComponentTypeID id) const {
    if (alive(e) && (arch_of(e).has(id) || sparse_member(e, id) != nullptr)) return true;
    (void)detail::check_known_id("World::has_raw", id);
    return false;
}

inline bool World::has_raw(Entity e, const char* name) const {
    const ComponentTypeID id = detail::resolve_name("World::has_raw", name);
    return id != INVALID_COMPONENT_ID && has_raw(e, id);
}

inline void* World::get_raw(Entity e, std::string_view name) {
    const ComponentTypeID id = detail::resolve_name("World::get_raw", name);
    return id != INVALID_COMPONENT_ID ? get_raw(e, id) : nullptr;
}

inline const void* World::get_raw(Entity e, std::string_view name) const {
    const ComponentTypeID id = detail::resolve_name("World::get_raw", name);
    return id != INVALID_COMPONENT_ID ? get_raw(e, id) : nullptr;
}

inline bool World::has_raw(Entity e, std::string_view name) const {
    const ComponentTypeID id = detail::resolve_name("World::has_raw", name);
    return id != INVALID_COMPONENT_ID && has_raw(e, id);
}

inline void World::remove_raw(Entity e, ComponentTypeID id) {
    if (!detail::check_known_id("World::remove_raw", id)) return;
    if (ECS_UNLIKELY(is_sparse_id(id))) return remove_sparse_id(e, id); // no migration, as remove<T>
    remove_plain(e, id); // the fast path of remove<T>, else the general one
}

inline void* World::add_raw(Entity e, ComponentTypeID id, const void* value) { return add_raw_from(e, id, value, nullptr); }

/// add_raw's body. `moved` (a table type only): a live value relocated into the world instead of
/// copying `value`; it is consumed whatever happens (destroyed when the add is refused).
inline void* World::add_raw_from(Entity e, ComponentTypeID id, const void* value, void* moved) {
    if (!detail::check_known_id("World::add_raw", id)) return nullptr;
    const ColumnFactory factory = column_factory(id);
    if (!ECS_CHECK(factory != nullptr, "World::add_raw: the component type has no storage (never used as a component)"))
        return nullptr;
    const ComponentColumn c = factory();
    detail::RawValue made(c);
    bool taken_out = false;
    if (moved != nullptr && !c.is_tag) { // taken over first: consumed on every path below
        c.relocate(made.storage(), moved);
        made.set_live();
        taken_out = true;
    }
    if (!alive(e)) return nullptr;
    const std::string_view type = component_info(id).name;
    if (!c.is_tag && !taken_out) {
        const bool can = value != nullptr ? c.copy != nullptr
                                          : detail::default_constructors[id].load(detail::order_acquire) != nullptr;
        if (!ECS_CHECK(can, detail::detailed_message(value != nullptr ? "World::add_raw: the component type cannot be copied"
                                                                        : "World::add_raw: the component type is not default-constructible",
                                                     type, e)))
            return nullptr;
    }
    if (ECS_UNLIKELY(is_sparse_id(id))) return add_sparse_raw(e, id, value); // into its set, as add<T>
    // The new value is made outside the world first when constructing it in place could go wrong:
    // a constructor that throws must not leave a half-built row or a destroyed old value behind, and
    // observers (on_leave runs before the migration) may destroy the entity `value` belongs to.
    if (!taken_out && !c.is_tag && (!c.trivially_relocatable || (value != nullptr && observers_.any_query()))) {
        if (!detail::make_raw_value(made, c, id, value)) return nullptr;
        taken_out = true;
    }
    struct Source { // what the commit point constructs the new value from
        const ComponentColumn* column;
        detail::RawValue* made;
        const void* value;
        ComponentTypeID id;
        bool taken_out;
        static void construct(void* at, void* self) {
            const Source& src = *static_cast<const Source*>(self);
            if (src.column->is_tag) return;
            if (src.taken_out) src.made->relocate_to(at);
            else if (src.value != nullptr) src.column->copy(at, src.value);
            else detail::default_constructors[src.id].load(detail::order_acquire)(at);
        }
    } source{&c, &made, value, id, taken_out};
    AddSlot slot = add_slot(e, id, taken_out, &Source::construct, &source);
    if (slot.kind == AddSlot::DESTINATION_FULL) { // the destination block moves: `value` may live in it
        if (!detail::make_raw_value(made, c, id, value)) return nullptr;
        taken_out = source.taken_out = true;
        slot = add_slot(e, id, true, &Source::construct, &source);
    }
    if (slot.kind == AddSlot::NOTHING) return nullptr;
    if (slot.kind == AddSlot::EXISTING) {
        if (!c.is_tag) {
            if (taken_out) {
                c.destroy_at(slot.at);
                made.relocate_to(slot.at);
            } else if (value != slot.at) { // plain bytes: written over the old value
                if (value != nullptr) c.copy(slot.at, value);
                else detail::default_constructors[id].load(detail::order_acquire)(slot.at);
            }
        }
        if (ECS_UNLIKELY(graph_.any_tracked())) touch(e, id); // an overwrite is a change
        if (ECS_UNLIKELY(observers_.any_set())) observers_.fire_on_set(*this, lookup(), e, id);
    }
    // Hooks may have moved the row (or removed the component): read the address anew.
    if (!alive(e)) return nullptr;
    const EntityRecord& r = entities_[e.index];
    return arch_of(r).has(id) ? arch_of(r).column(id).at(r.row) : nullptr;
}

namespace detail {

/**
 * each_raw's run over the rows of `q` (the cache of the table ids: enable rules applied, as in each)
 * whose entity is a member, enabled, of every set in `sets` (`sets[i]` non-null where `ids[i]` is a
 * sparse type, as the query engine's SparseRowTest). `fn(Entity, void* const*)` receives the address
 * of each `ids[i]`; every id counts as mutable (change detection).
 */
template <typename Func>
void run_raw_rows(const QueryCache& q, const ComponentTypeID* ids, size_t count, SparseSet* const* sets, bool any_sparse,
                  uint32_t* depth, Func& fn) {
    IterationScope scope(depth);
    constexpr size_t LOCAL = 16;
    void* local_ptrs[LOCAL];
    size_t local_strides[LOCAL];
    PodArray<void*> heap_ptrs;
    PodArray<size_t> heap_strides;
    void** ptrs = local_ptrs;
    size_t* strides = local_strides;
    if (count > LOCAL) {
        heap_ptrs.resize(count, nullptr);
        heap_strides.resize(count, 0);
        ptrs = heap_ptrs.data();
        strides = heap_strides.data();
    }
    for_each_run(q, [&](Archetype& arch, size_t begin, size_t n, uint64_t) {
        const Entity* entities = arch.entities.data();
        if (ECS_LIKELY(!any_sparse)) {
            if (ECS_UNLIKELY(arch.ticks.active())) // every id is handed out mutable: each visited row changes
                for (size_t i = 0; i < count; ++i)
                    if (TickColumn* t = arch.ticks_of(ids[i])) arch.ticks.touch_range(*t, begin, n);
            for (size_t i = 0; i < count; ++i) {
                const ComponentColumn& c = arch.column(ids[i]);
                ptrs[i] = c.data + begin * c.elem_size;
                strides[i] = c.elem_size;
            }
            if (count == 1) {
                uint8_t* p0 = static_cast<uint8_t*>(ptrs[0]);
                const size_t s0 = strides[0];
                for (size_t row = begin; row < begin + n; ++row, p0 += s0) {
                    void* const components[1] = {p0};
                    fn(entities[row], static_cast<void* const*>(components));
                }
                return;
            }
            if (count == 2) { // the common pair: two pointers in registers, no per-row loop over ids
                uint8_t* p0 = static_cast<uint8_t*>(ptrs[0]);
                uint8_t* p1 = static_cast<uint8_t*>(ptrs[1]);
                const size_t s0 = strides[0];
                const size_t s1 = strides[1];
                for (size_t row = begin; row < begin + n; ++row, p0 += s0, p1 += s1) {
                    void* const components[2] = {p0, p1};
                    fn(entities[row], static_cast<void* const*>(components));
                }
                return;
            }
            for (size_t row = begin; row < begin + n; ++row) {
                fn(entities[row], static_cast<void* const*>(ptrs));
                for (size_t i = 0; i < count; ++i) ptrs[i] = static_cast<uint8_t*>(ptrs[i]) + strides[i];
            }
            return;
        }
        for (size_t row = begin; row < begin + n; ++row) { // row by row: the sparse sets decide
            const uint32_t index = entities[row].index;
            bool passes = true;
            for (size_t i = 0; i < count && passes; ++i) {
                if (sets[i] == nullptr) continue;
                const uint32_t slot = sets[i]->slot_of(index);
                passes = slot != 0 && !sets[i]->disabled_slot(slot - 1);
                if (passes) ptrs[i] = sets[i]->at(slot - 1);
            }
            if (!passes) continue;
            for (size_t i = 0; i < count; ++i) {
                if (sets[i] != nullptr) {
                    if (ECS_UNLIKELY(sets[i]->ticks_active())) sets[i]->touch(index);
                    continue;
                }
                ptrs[i] = arch.column(ids[i]).at(static_cast<uint32_t>(row));
                if (ECS_UNLIKELY(arch.ticks.active())) arch.touch(ids[i], static_cast<uint32_t>(row));
            }
            fn(entities[row], static_cast<void* const*>(ptrs));
        }
    });
}

/**
 * each_raw's run when every id is sparse: the members of the smallest set (detail/sparse_drive.hpp),
 * in its slot order, each tested on the other sets and, in a world where some enable bit may be set,
 * on its entity's bit. `sets[i]` is the set of `ids[i]` (none null); every id counts as mutable.
 */
template <typename Func>
void run_raw_driven(SparseSet* const* sets, size_t count, const ArchetypeGraph& graph, const PodArray<EntityRecord>& records,
                    uint32_t* depth, Func& fn) {
    IterationScope scope(depth);
    SparseDrive drive;
    drive.reset(&records, 0);
    for (size_t i = 0; i < count; ++i) (void)drive.require(sets[i], false, false);
    if (graph.may_have_disabled()) drive.check_entities();
    if (!drive.finish()) return;
    const SparseSet* driver = &drive.driver();
    SparsePin pin(&drive.driver()); // each_raw never runs inside a parallel section
    constexpr size_t LOCAL = 16;
    void* local_ptrs[LOCAL];
    PodArray<void*> heap_ptrs;
    void** ptrs = local_ptrs;
    if (count > LOCAL) {
        heap_ptrs.resize(count, nullptr);
        ptrs = heap_ptrs.data();
    }
    for (size_t slot = 0; slot < drive.end(); ++slot) {
        Entity e;
        const EntityRecord* record;
        uint64_t absent;
        if (!drive.passes(static_cast<uint32_t>(slot), e, record, absent)) continue;
        for (size_t i = 0; i < count; ++i) {
            SparseSet& set = *sets[i];
            const uint32_t s = &set == driver ? static_cast<uint32_t>(slot) : set.slot_of(e.index) - 1;
            if (ECS_UNLIKELY(set.ticks_active())) set.touch_slot(s);
            ptrs[i] = set.at(s);
        }
        fn(e, static_cast<void* const*>(ptrs));
    }
}

} // namespace detail

template <typename Func>
inline void World::each_raw(const ComponentTypeID* ids, size_t count, Func&& fn) {
    static_assert(std::is_invocable_v<Func&, Entity, void* const*>,
                  "World::each_raw: the callback must be callable as fn(ecs::Entity, void* const* components)");
    if (!detail::raw_ids_ok(ids, count)) return;
    if (!ECS_CHECK(!queries_.shared(), "World::each_raw: not available inside a parallel section")) return;
#if ECS_ASSERT_ENABLED
    if (ECS_UNLIKELY(detail::current_access != nullptr))
        for (size_t i = 0; i < count; ++i)
            if (detail::access_refused(ids[i], true, component_info(ids[i]).name)) return;
#endif
    // Sparse ids are no archetype's: the cache holds the table ids, the sets test each row.
    size_t sparse_count = 0;
    for (size_t i = 0; i < count; ++i) sparse_count += is_sparse_id(ids[i]) ? 1u : 0u;
    if (ECS_LIKELY(sparse_count == 0)) {
        detail::QueryCache& q = queries_.raw_cache(ids, count, graph_);
        if (ECS_UNLIKELY(q.required_ids.size() != count)) q.required_ids.assign(ids, count); // enable bits: each id must be enabled
        detail::run_raw_rows(q, ids, count, nullptr, false, queries_.scope_depth(), fn);
        return;
    }
    detail::PodArray<ComponentTypeID> table_ids;
    detail::PodArray<detail::SparseSet*> sets;
    sets.resize(count, nullptr);
    table_ids.reserve(count - sparse_count);
    for (size_t i = 0; i < count; ++i) {
        if (!is_sparse_id(ids[i])) {
            table_ids.push_back(ids[i]);
            continue;
        }
        sets.data()[i] = graph_.sparse() != nullptr ? graph_.sparse()->set(ids[i]) : nullptr;
        if (sets.data()[i] == nullptr) return; // no entity has ever had it
    }
    if (sparse_count == count) { // every id sparse: the smallest set's members, not every row
        detail::run_raw_driven(sets.data(), count, graph_, entities_.records(), queries_.scope_depth(), fn);
        return;
    }
    detail::QueryCache& q = queries_.raw_cache(table_ids.data(), table_ids.size(), graph_);
    if (ECS_UNLIKELY(q.required_ids.size() != table_ids.size())) q.required_ids.assign(table_ids.data(), table_ids.size());
    detail::run_raw_rows(q, ids, count, sets.data(), true, queries_.scope_depth(), fn);
}

template <typename>
inline ObserverId World::on_add_raw(ComponentTypeID id, ErasedHook fn) {
    if (!detail::check_known_id("World::on_add_raw", id)) return {};
    return observers_.add_on_add(id, std::move(fn));
}
template <typename>
inline ObserverId World::on_remove_raw(ComponentTypeID id, ErasedHook fn) {
    if (!detail::check_known_id("World::on_remove_raw", id)) return {};
    return observers_.add_on_remove(id, std::move(fn));
}
template <typename>
inline ObserverId World::on_set_raw(ComponentTypeID id, ErasedHook fn) {
    if (!detail::check_known_id("World::on_set_raw", id)) return {};
    return observers_.add_on_set(id, std::move(fn));
}

} // namespace ecs
