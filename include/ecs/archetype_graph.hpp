/**
 * @file ecs/archetype_graph.hpp
 * @brief The archetype graph: every archetype of a world, the index from type set to archetype, the
 *        add/remove edges between neighbours and the per-pack cache of create_with.
 *
 * Archetypes are created here and never destroyed before the graph, so an `Archetype*` stays valid for
 * the life of the world. `size()` only grows; query caches use it as the archetype generation they have
 * seen, and archetypes appear in creation order (the order queries visit them).
 *
 * Thread-safety: lookups through cached edges and packs are read-only; anything that may create an
 * archetype (a missing edge, a new pack, find_or_create) needs exclusive access.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "archetype.hpp"
#include "change_detection.hpp"
#include "component.hpp"
#include "config.hpp"
#include "detail/algorithms.hpp"
#include "detail/atomic_slot.hpp"
#include "detail/pod_array.hpp"
#include "sparse.hpp"

namespace ecs {

namespace detail {

struct EnabledWalk; // detail/row_filters.hpp: the query runs of a world where some bit may be set

/// Process-wide dense slot number per create_with pack, so each World finds the pack's archetype by
/// indexing an array (no hashing, no allocation on the hot path).
inline AtomicSlot<uint32_t> next_pack_slot{0};

template <typename... Ts>
uint32_t pack_slot() noexcept {
    static const uint32_t slot = next_pack_slot.fetch_add(1, detail::order_relaxed);
    return slot;
}

/// Process-wide dense slot number per multi-type pack of add(e, a, b, ...) / remove<A, B, ...>(e)
/// (`Op` tells the two apart), so each world caches the pack's destination per source archetype.
inline AtomicSlot<uint32_t> next_multi_slot{0};

/// Per-pack slot, constant-initialised like TypeIdSlot: no guard variable to test on every call.
template <typename Op, typename... Ts>
struct MultiSlot {
    static inline AtomicSlot<uint32_t> slot{UNASSIGNED_ID};
};

/// First use of a pack: takes the next slot (compare-exchange keeps one slot per pack when threads race).
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline, cold))
#endif
inline uint32_t assign_multi_slot(AtomicSlot<uint32_t>& slot) noexcept {
    uint32_t expected = UNASSIGNED_ID;
    const uint32_t fresh = next_multi_slot.fetch_add(1, detail::order_relaxed);
    if (slot.compare_exchange_strong(expected, fresh, detail::order_relaxed)) return fresh;
    return expected;
}

template <typename Op, typename... Ts>
ECS_FORCEINLINE uint32_t multi_slot() noexcept {
    const uint32_t slot = MultiSlot<Op, Ts...>::slot.load(detail::order_relaxed);
    if (ECS_LIKELY(slot != UNASSIGNED_ID)) return slot;
    return assign_multi_slot(MultiSlot<Op, Ts...>::slot);
}

/// Tags of multi_slot: the pack is added / removed.
struct AddPack {};
struct RemovePack {};

/// Sorts a short id list (a component pack) without instantiating std::sort in every user TU.
inline void insertion_sort(ComponentTypeID* v, size_t count) noexcept {
    for (size_t i = 1; i < count; ++i) {
        const ComponentTypeID x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; --j) v[j] = v[j - 1];
        v[j] = x;
    }
}

} // namespace detail

/**
 * @brief Owns the archetypes of one world and the ways to reach them: by type set (an open-addressing
 *        index), by one added or removed type (edges), by create_with pack (a per-pack slot), by a
 *        multi-type add or remove pack from a source archetype (target_for, cached per pack).
 */
class ArchetypeGraph {
public:
    ArchetypeGraph() {
        archetypes_.reserve_one();
        archetypes_.push_back(new Archetype(nullptr, 0, 0));
#if ECS_COMPACT_RECORDS
        ECS_ASSERT(archetypes_.back() != nullptr, "World: more than 16383 archetypes alive in the process (ECS_COMPACT_RECORDS)");
#endif
        index_insert(archetypes_.back());
        empty_ = archetypes_.back();
    }

    /// Number of archetypes created so far, the empty one included; never decreases.
    [[nodiscard]] size_t size() const noexcept { return archetypes_.size(); }
    [[nodiscard]] Archetype* operator[](size_t i) const noexcept { return archetypes_[i]; }
    [[nodiscard]] Archetype* empty_archetype() const noexcept { return empty_; }
    [[nodiscard]] const detail::OwnedArray<Archetype>& all() const noexcept { return archetypes_; }

    /// The archetype of exactly `types` (sorted, distinct), created when missing; nullptr (asserts)
    /// when an id is beyond ECS_MAX_COMPONENTS or has no column factory.
    Archetype* find_or_create(const TypeSet& types) { return find_or_create(types.data(), types.size()); }
    /// find_or_create for the `count` ids at `ids` (sorted, distinct).
    ECS_NOINLINE Archetype* find_or_create(const ComponentTypeID* ids, size_t count) {
        for (size_t k = 0; k < count; ++k) {
            const ComponentTypeID t = ids[k];
            if (!ECS_CHECK(t < ECS_MAX_COMPONENTS,
                           "World: more than ECS_MAX_COMPONENTS component types in use (raise ECS_MAX_COMPONENTS)"))
                return nullptr;
            if (!ECS_CHECK(column_factory(t) != nullptr, "World: component type has no column factory"))
                return nullptr;
        }
        const size_t hash = TypeSetHash::of(ids, count);
        for (size_t i = hash & (index_.size() - 1);; i = (i + 1) & (index_.size() - 1)) {
            Archetype* a = index_[i];
            if (a == nullptr) break;
            if (a->type_hash == hash && a->types.size() == count &&
                (count == 0 || std::memcmp(a->types.data(), ids, count * sizeof(ComponentTypeID)) == 0))
                return a;
        }
        archetypes_.reserve_one();
        Archetype* arch = new Archetype(ids, count, static_cast<uint32_t>(archetypes_.size()));
#if ECS_COMPACT_RECORDS
        if (!ECS_CHECK(arch != nullptr, "World: more than 16383 archetypes alive in the process (ECS_COMPACT_RECORDS)"))
            return nullptr;
#endif
        archetypes_.push_back(arch);
        index_insert(arch);
        if (ECS_UNLIKELY(clock_ != nullptr))
            for (size_t k = 0; k < count; ++k)
                if (tracked_.test(ids[k])) arch->enable_ticks(ids[k], clock_.get());
        return arch;
    }

    /// The archetype of the pack `{Ts...}` (bare types), cached per pack.
    template <typename... Ts>
    ECS_FORCEINLINE Archetype* pack_archetype() {
        const uint32_t slot = detail::pack_slot<Ts...>();
        if (ECS_LIKELY(slot < pack_cache_.size() && pack_cache_[slot] != nullptr)) return pack_cache_[slot];
        return pack_archetype_slow<Ts...>(slot);
    }

    /// The neighbour of `src` across `id` in direction `dir` if that edge was ever created, else
    /// nullptr. An add edge exists only from an archetype lacking `id`, a remove edge only from one
    /// having it, so a non-null answer also answers has(id).
    static ECS_FORCEINLINE Archetype* cached_edge(const Archetype& src, ComponentTypeID id,
                                                  Archetype* ArchetypeEdge::*dir) noexcept {
        return ECS_LIKELY(id < src.edges.size()) ? src.edges[id].*dir : nullptr;
    }
    /// `src` with `id` added, through the cached edge (created on first use); nullptr when refused.
    ECS_FORCEINLINE Archetype* add_target(Archetype& src, ComponentTypeID id) {
        Archetype* cached = cached_edge(src, id, &ArchetypeEdge::add);
        return ECS_LIKELY(cached != nullptr) ? cached : add_target_slow(src, id);
    }
    /// `src` with `id` removed. @pre src.has(id)
    ECS_FORCEINLINE Archetype* remove_target(Archetype& src, ComponentTypeID id) {
        Archetype* cached = cached_edge(src, id, &ArchetypeEdge::remove);
        return ECS_LIKELY(cached != nullptr) ? cached : remove_target_slow(src, id);
    }

    /**
     * The archetype reached from `src` by adding every type of the pack `{Ts...}` (`Op` = AddPack) or
     * removing every one of them (`Op` = RemovePack; absent types are ignored), in ONE step: no
     * intermediate archetype is created. `src` itself when nothing changes. Cached per (pack, `src`):
     * after the first call, two array lookups. nullptr when refused (too many component types).
     */
    template <typename Op, typename... Ts>
    ECS_FORCEINLINE Archetype* pack_target(Archetype& src) {
        const uint32_t slot = detail::multi_slot<Op, Ts...>();
        if (ECS_LIKELY(slot < multi_targets_.size())) {
            const detail::PodRows<Archetype*>::Row& row = multi_targets_[slot];
            if (ECS_LIKELY(src.id < row.size() && row[src.id] != nullptr)) return row[src.id];
        }
        const ComponentTypeID ids[] = {ensure_column_factory<Ts>()...};
        Archetype* dst = std::is_same_v<Op, detail::AddPack> ? target_for(src, ids, sizeof...(Ts), nullptr, 0)
                                                             : target_for(src, nullptr, 0, ids, sizeof...(Ts));
        if (dst != nullptr) cache_target(slot, src, dst);
        return dst;
    }

    /**
     * `src` with the `add_count` ids of `added` added and the `remove_count` ids of `removed` removed
     * (ids present, resp. absent, are ignored); the destination type set is computed once and the
     * archetype found or created. `src` itself when the set is unchanged; nullptr when refused.
     */
    ECS_NOINLINE Archetype* target_for(Archetype& src, const ComponentTypeID* added, size_t add_count,
                                       const ComponentTypeID* removed, size_t remove_count) {
        TypeSet types = src.types;
        bool changed = false;
        for (size_t i = 0; i < add_count; ++i) {
            const ComponentTypeID id = added[i];
            if (!ECS_CHECK(id < ECS_MAX_COMPONENTS, "World::add: more than ECS_MAX_COMPONENTS component types in use"))
                return nullptr;
            if (src.has(id)) continue;
            auto at = detail::upper_bound_value(types.begin(), types.end(), id);
            if (at == types.begin() || *(at - 1) != id) // else an earlier one required it
                detail::insert_at(types, static_cast<size_t>(at - types.begin()), id);
            changed = true;
            add_required(types, id);
        }
        for (size_t i = 0; i < remove_count; ++i) {
            auto at = detail::find_value(types.begin(), types.end(), removed[i]);
            if (at == types.end()) continue;
            detail::erase_at(types, static_cast<size_t>(at - types.begin()));
            changed = true;
        }
        return changed ? find_or_create(types) : &src;
    }

    /// Bytes held by the archetypes: blocks, entity lists and the archetype objects.
    [[nodiscard]] size_t memory_bytes() const noexcept {
        size_t bytes = 0;
        if (sparse_ != nullptr) bytes += sparse_->memory_bytes();
        for (const Archetype* a : archetypes_)
            bytes += sizeof(Archetype) + a->block_bytes() + a->entities.capacity() * sizeof(Entity) + a->ticks.memory_bytes() + a->enable.memory_bytes();
        return bytes;
    }

    // -- change detection (change_detection.hpp) ------------------------------------------------------

    /// Starts tracking `id` in every archetype, present and future; idempotent. Rows that already
    /// hold `id` count as added at the current tick. @pre id < ECS_MAX_COMPONENTS
    void track(ComponentTypeID id) {
        if (clock_ == nullptr) {
            clock_ = detail::make_box<detail::ChangeClock>();
            clock_->ops = &detail::tick_ops<>; // the tick code is compiled where tracking starts
        }
        if (tracked_.test(id)) return;
        tracked_.set(id);
        for (Archetype* a : archetypes_) a->enable_ticks(id, clock_.get());
        if (sparse_ != nullptr)
            if (detail::SparseSet* set = sparse_->set(id)) set->enable_ticks(clock_.get());
    }
    [[nodiscard]] bool tracks(ComponentTypeID id) const noexcept { return id < ECS_MAX_COMPONENTS && tracked_.test(id); }
    /// True once some type is tracked (the one branch untracked worlds take).
    [[nodiscard]] bool any_tracked() const noexcept { return clock_ != nullptr; }
    /// The world's tick clock; nullptr until the first track().
    [[nodiscard]] detail::ChangeClock* clock() const noexcept { return clock_.get(); }

    // -- enable bits (enable.hpp) ---------------------------------------------------------------------

    /// Records that some row of this world may hold a disabled bit (sticky): called before a bit is
    /// set. Until then query runs skip every per-archetype enable test. The first call also stores
    /// the walk those runs take from then on (`Walk::arm`): a program that never disables anything
    /// never compiles that walk. A template so that `Walk` is complete where it is used.
    template <typename Walk = detail::EnabledWalk>
    ECS_FORCEINLINE void note_disabled() noexcept {
        if (ECS_UNLIKELY(!any_disabled_)) {
            any_disabled_ = true;
            Walk::arm();
        }
    }
    /// False while no bit was ever set in this world (queries take the plain path).
    [[nodiscard]] ECS_FORCEINLINE bool may_have_disabled() const noexcept { return any_disabled_; }

    // -- sparse storage (sparse.hpp) -------------------------------------------------------------------

    /// The sparse sets of this world; nullptr until the first sparse component.
    [[nodiscard]] ECS_FORCEINLINE detail::SparseRoom* sparse() const noexcept { return sparse_.get(); }
    /// The set of sparse type `id`, created (with the room) when missing; tick columns when tracked.
    ECS_FORCEINLINE detail::SparseSet& sparse_set(ComponentTypeID id) {
        if (ECS_LIKELY(sparse_ != nullptr))
            if (detail::SparseSet* set = sparse_->set(id)) return *set;
        return sparse_set_slow(id);
    }

private:
    ECS_NOINLINE detail::SparseSet& sparse_set_slow(ComponentTypeID id) {
        detail::SparseSet& set = sparse_.create().ensure(id);
        if (clock_ != nullptr && tracks(id)) set.enable_ticks(clock_.get());
        return set;
    }

    detail::LazyBox<detail::SparseRoom> sparse_; ///< created on first use; heap: observers point at it
    bool any_disabled_ = false; ///< see note_disabled
    detail::Box<detail::ChangeClock> clock_; ///< created by the first track(); archetypes point at it
    ComponentMask tracked_;                      ///< types with tick columns


    ECS_NOINLINE Archetype* add_target_slow(Archetype& src, ComponentTypeID id) {
        if (!ECS_CHECK(id < ECS_MAX_COMPONENTS, "World::add: more than ECS_MAX_COMPONENTS component types in use"))
            return nullptr;
        TypeSet types = src.types;
        detail::insert_sorted(types, id);
        add_required(types, id); // the same migration adds what `id` requires (component_traits)
        Archetype* dst = find_or_create(types); // may push to archetypes_, never moves `src`
        if (dst != nullptr) link(src, *dst, id);
        return dst;
    }

    ECS_NOINLINE Archetype* remove_target_slow(Archetype& src, ComponentTypeID id) {
        TypeSet types = src.types;
        detail::erase_at(types, static_cast<size_t>(detail::find_value(types.begin(), types.end(), id) - types.begin()));
        Archetype* dst = find_or_create(types);
        link(*dst, src, id);
        return dst;
    }

    /// Inserts into the sorted `types` every requirement of `id` it lacks (component_traits).
    /// Nothing to do (and nothing compiled) while no type with requirements was ever registered.
    static void add_required(TypeSet& types, ComponentTypeID id) {
        if (const detail::WidenFunc widen = detail::widen_required.load(detail::order_acquire)) widen(types, id);
    }

    /// Caches the edges between `without` and `with` (= `without` + `id`) in both directions, with
    /// the plain-move plan of each.
    static void link(Archetype& without, Archetype& with, ComponentTypeID id) {
        const detail::RequiredList req = detail::required_of(id);
        for (size_t i = 0; i < req.count; ++i)
            if (!with.has(req.ids[i])) { // reached by a remove: adding `id` back must bring them
                ArchetypeEdge& down = with.edge(id);
                down.remove = &without;
                down.remove_plan = with.plain_plan(without);
                return;
            }
        ArchetypeEdge& up = without.edge(id);
        up.add = &with;
        if (with.columns.size() != without.columns.size() + 1) return; // required types came along:
        // no plain plan (they need constructing) and no way back (removing `id` keeps them)
        up.add_plan = without.plain_plan(with);
        ArchetypeEdge& down = with.edge(id);
        down.remove = &without;
        down.remove_plan = with.plain_plan(without);
    }

    ECS_NOINLINE void cache_target(uint32_t slot, const Archetype& src, Archetype* dst) {
        multi_targets_.at_grown(slot, src.id) = dst;
    }

    template <typename... Ts>
    ECS_NOINLINE Archetype* pack_archetype_slow(uint32_t slot) {
        ComponentTypeID ids[sizeof...(Ts) + 1] = {ensure_column_factory<Ts>()...}; // (+1: an empty pack)
        return pack_archetype_found(slot, ids, sizeof...(Ts));
    }
    /// pack_archetype_slow's part that does not depend on the pack: `ids` (the pack's ids, sorted
    /// here) widened by what they require, found or created, and cached in `slot`.
    ECS_NOINLINE Archetype* pack_archetype_found(uint32_t slot, ComponentTypeID* ids, size_t count) {
        detail::insertion_sort(ids, count);
        Archetype* arch = nullptr;
        if (const detail::WidenFunc widen = detail::widen_required.load(detail::order_acquire)) {
            const ComponentTypeID* const first = ids; // the iterator type Archetype's constructor uses
            TypeSet types(first, first + count);
            for (size_t i = 0; i < count; ++i) widen(types, ids[i]);
            arch = find_or_create(types);
        } else {
            arch = find_or_create(ids, count);
        }
        if (arch != nullptr) {
            if (slot >= pack_cache_.size()) pack_cache_.resize(size_t(slot) + 1, nullptr);
            pack_cache_[slot] = arch;
        }
        return arch;
    }

    /// Open-addressing index from type set to archetype (linear probing, at most half full). A
    /// purpose-built table: std::unordered_map keyed by vectors costs every user TU its instantiation.
    ECS_NOINLINE void index_insert(Archetype* arch) {
        if (archetypes_.size() * 2 > index_.size()) {
            detail::PodArray<Archetype*> old(static_cast<detail::PodArray<Archetype*>&&>(index_));
            index_.resize(detail::max_of<size_t>(16, old.size() * 2), nullptr);
            for (Archetype* a : old)
                if (a != nullptr) index_place(a);
        }
        index_place(arch);
    }
    void index_place(Archetype* arch) noexcept {
        size_t i = arch->type_hash & (index_.size() - 1);
        while (index_[i] != nullptr) i = (i + 1) & (index_.size() - 1);
        index_[i] = arch;
    }

    detail::OwnedArray<Archetype> archetypes_; ///< creation order; size() is the archetype generation
    Archetype* empty_ = nullptr;               ///< archetypes_[0], kept apart: create() reads it with one load
    detail::PodArray<Archetype*> index_;       ///< see index_insert; a power of two in size
    detail::PodArray<Archetype*> pack_cache_;  ///< pack slot -> archetype
    /// multi_slot -> source archetype id -> destination (pack_target); rows grown on demand.
    detail::PodRows<Archetype*> multi_targets_;
};

} // namespace ecs
