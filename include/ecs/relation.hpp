/**
 * @file ecs/relation.hpp
 * @brief Relationships: pairs (R, target) attached to source entities, both directions indexed, and
 *        the query filters Related<R> and Cascade<R> (the relation room).
 *
 * A relationship type `R` is an empty struct. `world.relate<R>(source, target)` attaches the pair
 * (R, target) to `source`; `relation_traits<R>` says whether a source has at most one target
 * (`exclusive`) and what destroying a target does to its sources (`on_delete_target`).
 *
 * Storage (per world, per relationship type, a detail::RelationIndex): per entity slot, the list of
 * its targets (in the order of relating) and the list of its sources; every link records where its
 * mirror sits in the other list, so a pair is removed in O(1) from the target's side (swap-remove)
 * and in O(targets of the source) from the source's side (order kept). Relating does not fragment:
 * the only thing an archetype sees is one tag per relationship type, `detail::HasRelation<R>`, which
 * a source carries while it has at least one R target. So `Related<R>{}` is an archetype-level
 * filter, and relating adds at most one archetype per (archetype, relationship type): never one per
 * target.
 *
 * No dangling pair: World::destroy detaches the entity from every relationship, as a source and as a
 * target (detail/relation_ops.hpp, one branch in destroy for worlds without pairs); sources of a
 * destroyed target lose the pair, or are destroyed too under OnDeleteTarget::destroy_sources.
 *
 * Thread-safety: none of its own (part of one World). Reading (related, targets, each_target,
 * each_source, Related runs) is safe from several threads while nobody writes. A Cascade<R> run may
 * bring its cached order up to date: inside a shared section (each_par, Schedule waves) it does so
 * under the shared cache lock, so Cascade queries may run concurrently there too.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

#include "archetype.hpp"
#include "component.hpp"
#include "config.hpp"
#include "detail/atomic_slot.hpp"
#include "detail/pod_array.hpp"
#include "entity.hpp"
#include "entity_index.hpp"
#include "query.hpp"

namespace ecs {

/// What destroying a target does to the entities related to it (relation_traits<R>::on_delete_target).
enum class OnDeleteTarget : uint8_t {
    unrelate,        ///< the sources lose the pair (R, target) and live on
    destroy_sources, ///< the sources are destroyed too (recursively, cycles included)
};

/**
 * @brief Behaviour of relationship type `R`; specialise it to change the defaults:
 * @code
 * template <> struct ecs::relation_traits<ChildOf> {
 *     static constexpr bool exclusive = true;                     // one target per source
 *     static constexpr ecs::OnDeleteTarget on_delete_target = ecs::OnDeleteTarget::destroy_sources;
 * };
 * @endcode
 * A specialisation may leave a member out: the default is used for it.
 */
template <typename R>
struct relation_traits {
    /// true: relating a source to a new target replaces its old target.
    static constexpr bool exclusive = false;
    static constexpr OnDeleteTarget on_delete_target = OnDeleteTarget::unrelate;
};

/**
 * @brief Query filter: the entity has the pair (R, target), or with `Related<R>{}` at least one R
 *        target. `world.each<Position>(ecs::Related<Targets>{enemy}, fn)`,
 *        `world.query<Position>(ecs::Related<Targets>{})`.
 *
 * `Related<R>{}` is decided per archetype (the HasRelation<R> tag); `Related<R>{target}` also tests
 * each row of those archetypes: O(targets of the row's entity) per row. A handle keeps the target.
 */
template <typename R>
struct Related {
    /// Any target: the entity has at least one R target.
    Related() noexcept = default;
    /// The entity has the pair (R, target). A dead or invalid `target` matches nothing.
    explicit Related(Entity t) noexcept : target(t), any_target(false) {}

    Entity target = INVALID_ENTITY;
    bool any_target = true;
};

/**
 * @brief Query filter: visits the matching entities so that an entity comes after its R target
 *        (roots, entities without a target, first; then by depth). `R` must be exclusive.
 *
 * Filters nothing: every matching entity is visited once. Order: by depth (the number of R links up
 * to a root), then archetype creation order, then row order. An entity whose target chain ends in a
 * cycle is ordered as if the link that closes the cycle (met first when walking slots in index order)
 * did not exist. The order is computed at the first run and cached per query signature until a
 * relationship of type R or the rows of a matching archetype change (checked in O(rows) by comparing
 * the entity lists: one memcmp per archetype).
 *
 * Rows: when the order is computed by a run that no other run surrounds (world.each, or a handle's
 * each / each_chunk, outside any query callback and parallel section), and an archetype's rows of one
 * depth are not adjacent, that run first sorts each matching archetype's rows by depth (stable, as
 * World::sort does: references to components of those archetypes are invalidated, change ticks
 * move with their rows). Later runs then visit whole blocks, one per depth and archetype, and
 * each_chunk hands them out as chunks. count(), first() and nested runs never move rows.
 */
template <typename R>
struct Cascade {
    static_assert(relation_traits<R>::exclusive,
                  "ecs::Cascade<R>: R must be an exclusive relationship (specialise ecs::relation_traits<R> with "
                  "exclusive = true): an entity can come after its target only when it has one target");
};

namespace detail {

/// The tag a source carries while it has at least one R target (what Related<R>{} matches).
template <typename R>
struct HasRelation {};

template <typename R, typename = void>
struct relation_exclusive : std::false_type {};
template <typename R>
struct relation_exclusive<R, std::void_t<decltype(relation_traits<R>::exclusive)>>
    : std::bool_constant<relation_traits<R>::exclusive> {};

template <typename R, typename = void>
struct relation_on_delete {
    static constexpr OnDeleteTarget value = OnDeleteTarget::unrelate;
};
template <typename R>
struct relation_on_delete<R, std::void_t<decltype(relation_traits<R>::on_delete_target)>> {
    static constexpr OnDeleteTarget value = relation_traits<R>::on_delete_target;
};

/// What the library knows of one relationship type, process-wide. Never freed, never changed.
struct RelationTypeInfo {
    uint32_t id = 0;                                 ///< dense relationship id (process-wide)
    ComponentTypeID relation = INVALID_COMPONENT_ID; ///< component_id<R>(): its registered name names R in snapshots
    ComponentTypeID marker = INVALID_COMPONENT_ID;   ///< component_id<HasRelation<R>>()
    bool exclusive = false;
    OnDeleteTarget on_delete_target = OnDeleteTarget::unrelate;
    std::string_view type_name; ///< type_name<R>()
};

/// Every relationship type used or registered in the program, by id (a slot may be briefly null
/// while another thread lists its type).
inline AtomicSlot<const RelationTypeInfo*> relation_types[ECS_MAX_COMPONENTS] = {};
inline AtomicSlot<uint32_t> relation_type_count{0};

/// Lists `info` (copied to the heap, kept for the program's life) and returns the listed copy.
inline const RelationTypeInfo* list_relation_type(RelationTypeInfo info) {
    info.id = relation_type_count.fetch_add(1, detail::order_relaxed);
    const RelationTypeInfo* listed = new RelationTypeInfo(info);
    if (info.id < ECS_MAX_COMPONENTS) relation_types[info.id].store(listed, detail::order_release);
    return listed;
}

/// The info of `R`, built on first use (thread-safe).
template <typename R>
const RelationTypeInfo& relation_type() {
    static const RelationTypeInfo* const info = [] {
        static_assert(std::is_same_v<R, bare_t<R>>, "ecs relationship: R must not be cv-qualified or a reference");
        static_assert(std::is_empty_v<R>, "ecs relationship: a relationship type R must be an empty struct");
        RelationTypeInfo i;
        i.relation = ensure_column_factory<R>();
        i.marker = ensure_column_factory<HasRelation<R>>();
        i.exclusive = relation_exclusive<R>::value;
        i.on_delete_target = relation_on_delete<R>::value;
        i.type_name = type_name<R>();
        return list_relation_type(i);
    }();
    return *info;
}

/// Lists `R` at program start (dynamic initialisation) in every program that uses it in relationship
/// code, so that a snapshot naming R loads even before the program's first relate<R>.
template <typename R>
struct RelationTypeAtStart {
    static inline const RelationTypeInfo* const info = &relation_type<R>();
};

/// The info of `R` (see RelationTypeAtStart).
template <typename R>
const RelationTypeInfo& relation_info() {
    const RelationTypeInfo* listed = RelationTypeAtStart<R>::info;
    return listed != nullptr ? *listed : relation_type<R>();
}

/// Calls `fn(const RelationTypeInfo&)` for every relationship type listed so far, in id order.
template <typename Fn>
void each_relation_type(Fn&& fn) {
    const uint32_t n = relation_type_count.load(detail::order_acquire);
    for (uint32_t i = 0; i < n && i < ECS_MAX_COMPONENTS; ++i)
        if (const RelationTypeInfo* info = relation_types[i].load(detail::order_acquire)) fn(*info);
}

/// The relationship type whose HasRelation tag has component id `marker`, or nullptr.
inline const RelationTypeInfo* relation_type_of_marker(ComponentTypeID marker) {
    const RelationTypeInfo* found = nullptr;
    each_relation_type([&](const RelationTypeInfo& info) {
        if (info.marker == marker) found = &info;
    });
    return found;
}

// -- the index of one relationship type ------------------------------------------------------------

/// One side of a pair: in a source's list the target, in a target's list the source.
struct RelationLink {
    Entity other;
    uint32_t mirror; ///< where the same pair sits in `other`'s list of the opposite side
};

/**
 * @brief A short list of links: one inline, more on the heap. Trivially copyable on purpose (it
 *        lives in a PodArray): its owner frees it with release() and deep-copies it with copy_from().
 */
class LinkList {
public:
    [[nodiscard]] uint32_t size() const noexcept { return size_; }
    [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
    [[nodiscard]] RelationLink* data() noexcept { return capacity_ <= 1 ? &one_ : heap_; }
    [[nodiscard]] const RelationLink* data() const noexcept { return capacity_ <= 1 ? &one_ : heap_; }
    [[nodiscard]] RelationLink& operator[](size_t i) noexcept { return data()[i]; }
    [[nodiscard]] const RelationLink& operator[](size_t i) const noexcept { return data()[i]; }
    void push_back(const RelationLink& link) {
        if (size_ == capacity_) grow();
        data()[size_++] = link;
    }
    void pop_back() noexcept { --size_; }
    /// Frees the heap part; the list is empty and inline again.
    void release() noexcept {
        if (capacity_ > 1) std::free(heap_);
        one_ = RelationLink{};
        size_ = 0;
        capacity_ = 1;
    }
    /// Makes this (released) list a copy of `other`.
    void copy_from(const LinkList& other) {
        for (uint32_t i = 0; i < other.size_; ++i) push_back(other[i]);
    }
    [[nodiscard]] size_t heap_bytes() const noexcept { return capacity_ > 1 ? size_t(capacity_) * sizeof(RelationLink) : 0; }

private:
    void grow() {
        const uint32_t cap = capacity_ <= 1 ? 4 : capacity_ * 2;
        auto* fresh = static_cast<RelationLink*>(std::malloc(size_t(cap) * sizeof(RelationLink)));
        if (fresh == nullptr) out_of_memory();
        if (size_ != 0) std::memcpy(fresh, data(), size_t(size_) * sizeof(RelationLink));
        if (capacity_ > 1) std::free(heap_);
        heap_ = fresh;
        capacity_ = cap;
    }

    union {
        RelationLink one_{};
        RelationLink* heap_;
    };
    uint32_t size_ = 0;
    uint32_t capacity_ = 1; ///< 1: the inline link
};

/// The links of one entity slot: its targets (order of relating) and its sources (no order).
struct RelationNode {
    LinkList targets;
    LinkList sources;
};

/**
 * @brief Both directions of one relationship type in one world, indexed by entity slot.
 *
 * Invariants: `nodes_[s].targets[k] == {t, m}` if and only if `nodes_[t.index].sources[m] == {s', k}`
 * where `s'` is the live entity of slot `s`; no pair is listed twice; every listed entity is alive.
 */
class RelationIndex {
public:
    static constexpr uint32_t NPOS = 0xFFFFFFFFu;

    explicit RelationIndex(const RelationTypeInfo& info) noexcept : info_(&info) {}
    RelationIndex(const RelationIndex&) = delete;
    RelationIndex& operator=(const RelationIndex&) = delete;
    ~RelationIndex() { release(); }

    [[nodiscard]] const RelationTypeInfo& info() const noexcept { return *info_; }
    /// Number of pairs.
    [[nodiscard]] size_t pairs() const noexcept { return pairs_; }
    /// Changes whenever a pair is added or removed (Cascade caches compare it).
    [[nodiscard]] uint64_t version() const noexcept { return version_; }
    /// Number of slots with a node (higher slots have no pair).
    [[nodiscard]] size_t slots() const noexcept { return nodes_.size(); }

    [[nodiscard]] const LinkList* targets_of(uint32_t slot) const noexcept {
        return slot < nodes_.size() ? &nodes_[slot].targets : nullptr;
    }
    [[nodiscard]] const LinkList* sources_of(uint32_t slot) const noexcept {
        return slot < nodes_.size() ? &nodes_[slot].sources : nullptr;
    }
    [[nodiscard]] uint32_t target_count(uint32_t slot) const noexcept {
        return slot < nodes_.size() ? nodes_[slot].targets.size() : 0;
    }
    /// Position of `target` among the targets of the entity in `slot`, or NPOS. O(targets).
    [[nodiscard]] uint32_t find(uint32_t slot, Entity target) const noexcept {
        if (slot >= nodes_.size()) return NPOS;
        const LinkList& list = nodes_[slot].targets;
        const RelationLink* links = list.data();
        for (uint32_t k = 0, n = list.size(); k < n; ++k)
            if (links[k].other == target) return k;
        return NPOS;
    }

    /// Appends the pair (source, target). @pre both alive, not related yet.
    void link(Entity source, Entity target) {
        const uint32_t high = source.index > target.index ? source.index : target.index;
        if (high >= nodes_.size()) nodes_.resize(size_t(high) + 1);
        RelationNode& s = nodes_[source.index];
        RelationNode& t = nodes_[target.index];
        const uint32_t in_targets = s.targets.size();
        const uint32_t in_sources = t.sources.size();
        s.targets.push_back(RelationLink{target, in_sources});
        t.sources.push_back(RelationLink{source, in_targets});
        ++pairs_;
        ++version_;
    }

    /// Removes target `k` of the entity in `slot`: swap-removed from the target's sources, erased
    /// from the source's targets with the order of the others kept. @pre k < target_count(slot)
    void unlink(uint32_t slot, uint32_t k) noexcept {
        RelationNode* nodes = nodes_.data();
        RelationNode& s = nodes[slot];
        const RelationLink gone = s.targets[k];
        LinkList& sources = nodes[gone.other.index].sources;
        const uint32_t last = sources.size() - 1;
        if (gone.mirror != last) {
            const RelationLink moved = sources[last];
            sources[gone.mirror] = moved;
            nodes[moved.other.index].targets[moved.mirror].mirror = gone.mirror;
        }
        sources.pop_back();
        for (uint32_t j = k + 1, n = s.targets.size(); j < n; ++j) {
            const RelationLink shifted = s.targets[j];
            s.targets[j - 1] = shifted;
            nodes[shifted.other.index].sources[shifted.mirror].mirror = j - 1;
        }
        s.targets.pop_back();
        --pairs_;
        ++version_;
    }

    /**
     * @brief Removes every pair of `e`, as a source and as a target. Calls `lost(source)` for each
     *        other entity that lost `e` as its target, after its pair is gone. @return pairs removed.
     */
    template <typename Lost>
    size_t detach(Entity e, Lost&& lost) {
        if (e.index >= nodes_.size()) return 0;
        size_t removed = 0;
        while (nodes_[e.index].targets.size() != 0) { // from the back: nothing to shift
            unlink(e.index, nodes_[e.index].targets.size() - 1);
            ++removed;
        }
        while (nodes_[e.index].sources.size() != 0) {
            const RelationLink link = nodes_[e.index].sources[nodes_[e.index].sources.size() - 1];
            unlink(link.other.index, link.mirror);
            ++removed;
            lost(link.other);
        }
        return removed;
    }

    /**
     * @brief Adds `n` pairs (sources[i], targets[i]) to this (empty) index: each source's targets in
     *        the order listed, each target's sources at the given positions (snapshot loading).
     * @pre No pair listed twice; per target, the positions are 0..k-1 once each; all entities alive.
     */
    void install(const Entity* sources, const Entity* targets, const uint32_t* positions, size_t n) {
        uint32_t high = 0;
        for (size_t i = 0; i < n; ++i) {
            if (sources[i].index > high) high = sources[i].index;
            if (targets[i].index > high) high = targets[i].index;
        }
        if (n != 0 && high >= nodes_.size()) nodes_.resize(size_t(high) + 1);
        for (size_t i = 0; i < n; ++i) nodes_[targets[i].index].sources.push_back(RelationLink{}); // places, filled below
        for (size_t i = 0; i < n; ++i) {
            LinkList& targets_of_source = nodes_[sources[i].index].targets;
            const uint32_t k = targets_of_source.size();
            targets_of_source.push_back(RelationLink{targets[i], positions[i]});
            nodes_[targets[i].index].sources[positions[i]] = RelationLink{sources[i], k};
        }
        pairs_ += n;
        ++version_;
    }

    /// Forgets every pair (frees the lists).
    void clear() noexcept {
        release();
        pairs_ = 0;
        ++version_;
    }

    /// Makes this (empty) index a copy of `other` (World::clone).
    void copy_from(const RelationIndex& other) {
        release();
        nodes_.resize(other.nodes_.size());
        for (size_t i = 0; i < other.nodes_.size(); ++i) {
            nodes_[i].targets.copy_from(other.nodes_[i].targets);
            nodes_[i].sources.copy_from(other.nodes_[i].sources);
        }
        pairs_ = other.pairs_;
        ++version_;
    }

    /**
     * @brief Depth per slot for an exclusive relationship: 0 for an entity without a target, else the
     *        depth of its target plus one; a cycle is cut at the link that closes it (met first when
     *        walking slots in index order). Cached until the next pair change. O(slots) to compute.
     * @return `slots()` depths.
     */
    const uint32_t* depths() {
        if (depth_version_ == version_ && depth_.size() == nodes_.size()) return depth_.data();
        enum : uint8_t { UNSEEN = 0, ON_PATH = 1, DONE = 2 };
        const size_t n = nodes_.size();
        depth_.assign(n, 0);
        state_.assign(n, UNSEEN);
        const RelationNode* nodes = nodes_.data();
        for (size_t i = 0; i < n; ++i) {
            if (state_[i] == DONE) continue;
            uint32_t cur = static_cast<uint32_t>(i);
            while (state_[cur] == UNSEEN && !nodes[cur].targets.empty()) { // up the chain
                state_[cur] = ON_PATH;
                path_.push_back(cur);
                cur = nodes[cur].targets[0].other.index;
            }
            if (state_[cur] != DONE) { // a root, or the entity closing a cycle: depth 0
                depth_[cur] = 0;
                state_[cur] = DONE;
            }
            while (!path_.empty()) { // back down, each one deeper than its target
                const uint32_t v = path_[path_.size() - 1];
                path_.pop_back();
                if (state_[v] == DONE) continue;
                depth_[v] = depth_[nodes[v].targets[0].other.index] + 1;
                state_[v] = DONE;
            }
        }
        depth_version_ = version_;
        return depth_.data();
    }

    [[nodiscard]] size_t memory_bytes() const noexcept {
        size_t bytes = sizeof(RelationIndex) + nodes_.capacity() * sizeof(RelationNode) + depth_.capacity() * 4 +
                       state_.capacity() + path_.capacity() * 4;
        for (const RelationNode& n : nodes_) bytes += n.targets.heap_bytes() + n.sources.heap_bytes();
        return bytes;
    }

    /// Checks the invariants against the entity records (World::check_invariants). O(slots + pairs).
    [[nodiscard]] bool check(EntityLookup entities) const {
        size_t pairs = 0;
        const RelationNode* nodes = nodes_.data();
        for (uint32_t i = 0; i < nodes_.size(); ++i) {
            const LinkList& targets = nodes[i].targets;
            const LinkList& sources = nodes[i].sources;
            if (targets.empty() && sources.empty()) continue;
            if (i >= entities.size() || !entities[i].live()) return false; // a pair of a dead slot
            const Archetype& arch = entities.archetype(entities[i]);
            const Entity self = arch.entities[entities[i].row];
            const bool marked = arch.has(info_->marker);
            if (marked != !targets.empty()) return false; // the tag while, and only while, it has targets
            for (uint32_t k = 0; k < targets.size(); ++k) {
                const RelationLink& l = targets[k];
                if (!entities.alive(l.other) || l.other.index >= nodes_.size()) return false;
                const LinkList& mirror = nodes[l.other.index].sources;
                if (l.mirror >= mirror.size() || mirror[l.mirror].other != self || mirror[l.mirror].mirror != k) return false;
                for (uint32_t j = 0; j < k; ++j)
                    if (targets[j].other == l.other) return false; // listed twice
            }
            for (uint32_t k = 0; k < sources.size(); ++k) {
                const RelationLink& l = sources[k];
                if (!entities.alive(l.other) || l.other.index >= nodes_.size()) return false;
                const LinkList& mirror = nodes[l.other.index].targets;
                if (l.mirror >= mirror.size() || mirror[l.mirror].other != self || mirror[l.mirror].mirror != k) return false;
            }
            if (info_->exclusive && targets.size() > 1) return false;
            pairs += targets.size();
        }
        return pairs == pairs_;
    }

private:
    void release() noexcept {
        for (RelationNode& n : nodes_) {
            n.targets.release();
            n.sources.release();
        }
        nodes_.clear();
    }

    const RelationTypeInfo* info_;
    PodArray<RelationNode> nodes_; ///< by entity slot
    size_t pairs_ = 0;
    uint64_t version_ = 1;
    uint64_t depth_version_ = 0;
    PodArray<uint32_t> depth_; ///< depths(): by slot
    PodArray<uint8_t> state_;  ///< depths(): scratch
    PodArray<uint32_t> path_;  ///< depths(): scratch
};

// -- Cascade<R>: the cached order of one query signature --------------------------------------------

/**
 * @brief The rows of one cached query in Cascade order, as runs, and what they were computed from
 *        (the relationship's version and a copy of every matching archetype's entity list).
 */
class CascadeOrder {
public:
    explicit CascadeOrder(const QueryCache& q) noexcept : cache_(&q) {}

    [[nodiscard]] const QueryCache* cache() const noexcept { return cache_; }
    [[nodiscard]] const RowRun* runs() const noexcept { return runs_.data(); }
    [[nodiscard]] size_t run_count() const noexcept { return runs_.size(); }
    [[nodiscard]] size_t memory_bytes() const noexcept {
        return sizeof(CascadeOrder) + archetypes_.capacity() * sizeof(Archetype*) + offsets_.capacity() * sizeof(size_t) +
               entities_.capacity() * sizeof(Entity) + runs_.capacity() * sizeof(RowRun) + rows_.capacity() * 8 +
               (counts_.capacity() + last_depth_.capacity()) * sizeof(size_t);
    }

    /**
     * @brief Brings the order up to date with the cache's rows and `index` (nullptr: no pair of R
     *        exists). With `records` (no run is in progress around this one), rows whose order leaves
     *        the runs fragmented are sorted by depth inside their archetypes (stable, as World::sort
     *        does, records updated), so that runs become whole blocks of one depth per archetype.
     */
    void update(RelationIndex* index, PodArray<EntityRecord>* records) {
        const QueryCache& q = *cache_;
        const uint64_t version = index != nullptr ? index->version() : 0;
        if (index == index_ && version == version_ && (contiguous_ || records == nullptr) && same_rows(q)) return;
        index_ = index;
        version_ = version;
        snapshot(q);
        compute(index);
        if (!contiguous_ && records != nullptr) {
            sort_rows(*records);
            snapshot(q);
            compute(index);
        }
    }

private:
    /// True when the cache lists the same archetypes holding the same entities in the same rows.
    [[nodiscard]] bool same_rows(const QueryCache& q) const noexcept {
        if (q.archetypes.size() != archetypes_.size()) return false;
        for (size_t a = 0; a < archetypes_.size(); ++a) {
            const Archetype* arch = q.archetypes[a];
            const size_t n = offsets_[a + 1] - offsets_[a];
            if (arch != archetypes_[a] || arch->size() != n) return false;
            if (n != 0 && std::memcmp(arch->entities.data(), entities_.data() + offsets_[a], n * sizeof(Entity)) != 0)
                return false;
        }
        return true;
    }

    void snapshot(const QueryCache& q) {
        archetypes_.assign(q.archetypes.data(), q.archetypes.size());
        offsets_.assign(1, 0);
        entities_.clear();
        for (const Archetype* a : archetypes_) {
            for (size_t r = 0; r < a->size(); ++r) entities_.push_back(a->entities[r]);
            offsets_.push_back(entities_.size());
        }
    }

    /// Counting sort of the rows by depth (stable: archetype order, then row order), then the
    /// sorted rows merged into runs of adjacent rows; `contiguous_` tells whether each archetype's
    /// rows of one depth came out as one run.
    void compute(RelationIndex* index) {
        runs_.clear();
        contiguous_ = true;
        if (index == nullptr || index->pairs() == 0) { // every entity is a root: archetype order
            for (Archetype* a : archetypes_)
                if (a->size() != 0) runs_.push_back(RowRun{a, 0, a->size()});
            rows_.clear();
            return;
        }
        const uint32_t* depth = index->depths();
        const size_t known = index->slots();
        counts_.assign(1, 0);
        for (const Entity& e : entities_) {
            const size_t d = e.index < known ? depth[e.index] : 0;
            if (d >= counts_.size()) counts_.resize(d + 1, 0);
            ++counts_[d];
        }
        size_t start = 0;
        for (size_t& c : counts_) { // counts become the first position of each depth
            const size_t n = c;
            c = start;
            start += n;
        }
        rows_.resize(entities_.size());
        for (size_t a = 0; a < archetypes_.size(); ++a) {
            for (size_t i = offsets_[a]; i < offsets_[a + 1]; ++i) {
                const uint32_t idx = entities_[i].index;
                const size_t d = idx < known ? depth[idx] : 0;
                rows_[counts_[d]++] = (uint64_t(a) << 32) | uint64_t(i - offsets_[a]);
            }
        }
        last_depth_.assign(archetypes_.size(), 0); // per archetype: 1 + the depth of its last run
        for (size_t i = 0, d = 0; i < rows_.size(); ++i) {
            while (d + 1 < counts_.size() && i >= counts_[d]) ++d; // counts_[d] is now where depth d ends
            const size_t a = static_cast<size_t>(rows_[i] >> 32);
            Archetype* arch = archetypes_[a];
            const size_t row = static_cast<size_t>(rows_[i] & 0xFFFFFFFFu);
            if (!runs_.empty()) {
                RowRun& last = runs_[runs_.size() - 1];
                if (last.archetype == arch && last.begin + last.count == row) {
                    ++last.count;
                    continue;
                }
            }
            if (last_depth_[a] == d + 1) contiguous_ = false; // a second run of one depth in one archetype
            last_depth_[a] = d + 1;
            runs_.push_back(RowRun{arch, row, 1});
        }
    }

    /// Sorts each archetype's rows by depth (stable), from the order compute() left in rows_.
    void sort_rows(PodArray<EntityRecord>& records) {
        std::vector<uint32_t> order;
        PodArray<uint8_t> placed;
        for (size_t a = 0; a < archetypes_.size(); ++a) {
            Archetype& arch = *archetypes_[a];
            order.clear();
            for (const uint64_t r : rows_)
                if (static_cast<size_t>(r >> 32) == a) order.push_back(static_cast<uint32_t>(r & 0xFFFFFFFFu));
            bool identity = true;
            for (size_t i = 0; i < order.size() && identity; ++i) identity = order[i] == i;
            if (identity) continue;
            arch.permute(order, placed);
            for (size_t row = 0; row < arch.size(); ++row) records[arch.entities[row].index].row = static_cast<uint32_t>(row);
        }
    }

    const QueryCache* cache_;
    const RelationIndex* index_ = nullptr;
    uint64_t version_ = ~uint64_t(0); ///< never a real version: the first update computes
    bool contiguous_ = false;         ///< every archetype's rows of one depth form one run
    PodArray<Archetype*> archetypes_;
    PodArray<size_t> offsets_;  ///< per archetype, where its entities start in entities_ (one more at the end)
    PodArray<Entity> entities_; ///< the entity lists the order was computed from
    PodArray<RowRun> runs_;
    PodArray<uint64_t> rows_;   ///< scratch: (archetype << 32 | row), sorted by depth
    PodArray<size_t> counts_;   ///< scratch: per depth
    PodArray<size_t> last_depth_; ///< scratch: per archetype
};

// -- the room ------------------------------------------------------------------------------------------

/**
 * @brief The relationships of one world: one RelationIndex per relationship type used, the state of
 *        a destroy in progress (entities marked for a cascade, follow-up work) and the Cascade caches.
 */
class Relations {
public:
    /// Work a destroy leaves for after the entity is gone: destroy a source (destroy_sources), or
    /// take the HasRelation tag off a source that lost its last target (unrelate).
    struct Pending {
        Entity entity;
        uint32_t relation; ///< relationship id
        bool destroy;
    };

    Relations() noexcept = default;
    Relations(const Relations&) = delete;
    Relations& operator=(const Relations&) = delete;
    Relations(Relations&&) noexcept = default;
    Relations& operator=(Relations&&) noexcept = default;
    ~Relations() = default;

    /// True when the world holds a pair (World::destroy tests only this).
    [[nodiscard]] ECS_FORCEINLINE bool any() const noexcept { return pairs_ != 0; }
    /// Number of pairs, all relationship types together.
    [[nodiscard]] size_t pairs() const noexcept { return pairs_; }

    /// The index of relationship id `id`, or nullptr when this world never related that type.
    [[nodiscard]] RelationIndex* find(uint32_t id) const noexcept { return id < by_id_.size() ? by_id_[id] : nullptr; }
    /// The index of `info`, created on first use.
    RelationIndex& ensure(const RelationTypeInfo& info) {
        if (RelationIndex* found = find(info.id)) return *found;
        if (info.id >= by_id_.size()) by_id_.resize(size_t(info.id) + 1);
        by_id_.set(info.id, new RelationIndex(info));
        return *by_id_[info.id];
    }
    /// Calls `fn(RelationIndex&)` for each relationship type this world used, by id.
    template <typename Fn>
    void each_index(Fn&& fn) const {
        for (RelationIndex* index : by_id_)
            if (index != nullptr) fn(*index);
    }

    void link(RelationIndex& index, Entity source, Entity target) {
        index.link(source, target);
        ++pairs_;
    }
    void unlink(RelationIndex& index, uint32_t slot, uint32_t k) noexcept {
        index.unlink(slot, k);
        --pairs_;
    }
    /// RelationIndex::install, counted (snapshot loading).
    void install(RelationIndex& index, const Entity* sources, const Entity* targets, const uint32_t* positions, size_t n) {
        index.install(sources, targets, positions, n);
        pairs_ += n;
    }

    /// True when `e` has a source, not already marked for destruction, in a destroy_sources relation.
    [[nodiscard]] bool cascades(Entity e) const noexcept {
        for (const RelationIndex* index : by_id_) {
            if (index == nullptr || index->info().on_delete_target != OnDeleteTarget::destroy_sources) continue;
            const LinkList* sources = index->sources_of(e.index);
            if (sources == nullptr) continue;
            for (uint32_t k = 0; k < sources->size(); ++k)
                if (!dying((*sources)[k].other.index)) return true;
        }
        return false;
    }
    /// Calls `fn(source)` for each source of the entity in `slot` in destroy_sources relations.
    template <typename Fn>
    void each_cascading_source(uint32_t slot, Fn&& fn) const {
        for (const RelationIndex* index : by_id_) {
            if (index == nullptr || index->info().on_delete_target != OnDeleteTarget::destroy_sources) continue;
            const LinkList* sources = index->sources_of(slot);
            if (sources == nullptr) continue;
            for (uint32_t k = 0; k < sources->size(); ++k) fn((*sources)[k].other);
        }
    }

    /// Marks slot `slot` as collected by a cascade in progress (cleared when its entity is detached).
    void mark_dying(uint32_t slot) {
        if (slot >= dying_.size()) dying_.resize(size_t(slot) + 1, 0);
        dying_[slot] = 1;
    }
    [[nodiscard]] bool dying(uint32_t slot) const noexcept { return slot < dying_.size() && dying_[slot] != 0; }
    void clear_dying(uint32_t slot) noexcept {
        if (slot < dying_.size()) dying_[slot] = 0;
    }

    /// Removes every pair of `e` (about to be destroyed) and queues the follow-up work for its sources.
    void detach(Entity e) {
        if (e.index < dying_.size()) dying_[e.index] = 0;
        for (RelationIndex* index : by_id_) {
            if (index == nullptr) continue;
            const uint32_t relation = index->info().id;
            const bool destroy = index->info().on_delete_target == OnDeleteTarget::destroy_sources;
            pairs_ -= index->detach(e, [&](Entity source) {
                if (destroy) pending_.push_back(Pending{source, relation, true});
                else if (index->target_count(source.index) == 0) pending_.push_back(Pending{source, relation, false});
            });
        }
    }
    /// The follow-up work queued by detach (the World's destroy path drains it).
    [[nodiscard]] PodArray<Pending>& pending() noexcept { return pending_; }
    /// True while a destroy drains the follow-up work (a nested destroy leaves it to that one).
    [[nodiscard]] bool& draining() noexcept { return draining_; }

    /// The Cascade order cache of query cache `q`, created on first use.
    CascadeOrder& cascade_order(const QueryCache& q) {
        for (CascadeOrder* c : cascades_)
            if (c->cache() == &q) return *c;
        cascades_.reserve_one();
        cascades_.push_back(new CascadeOrder(q));
        return *cascades_.back();
    }

    /// Forgets every pair and the destroy state (WorldAccess::reset_entities).
    void reset() noexcept {
        for (RelationIndex* index : by_id_)
            if (index != nullptr) index->clear();
        pairs_ = 0;
        dying_.clear();
        pending_.clear();
    }

    /// Makes this (new) room a copy of `other`'s pairs (World::clone). Cascade caches are not copied.
    void copy_from(const Relations& other) {
        for (const RelationIndex* index : other.by_id_)
            if (index != nullptr) ensure(index->info()).copy_from(*index);
        pairs_ = other.pairs_;
    }

    [[nodiscard]] size_t memory_bytes() const noexcept {
        size_t bytes = by_id_.size() * sizeof(void*) + dying_.capacity() + pending_.capacity() * sizeof(Pending);
        for (const RelationIndex* index : by_id_)
            if (index != nullptr) bytes += index->memory_bytes();
        for (const CascadeOrder* c : cascades_) bytes += c->memory_bytes();
        return bytes;
    }

    /// Checks every index against the records and the pair count. O(slots + pairs).
    [[nodiscard]] bool check(EntityLookup entities) const {
        size_t pairs = 0;
        for (const RelationIndex* index : by_id_) {
            if (index == nullptr) continue;
            if (!index->check(entities)) return false;
            pairs += index->pairs();
        }
        return pairs == pairs_;
    }

private:
    OwnedArray<RelationIndex> by_id_; ///< by relationship id; nullptr where unused
    size_t pairs_ = 0;
    PodArray<uint8_t> dying_;   ///< by slot: collected by a cascade in progress
    PodArray<Pending> pending_; ///< follow-up work of the destroys in progress (LIFO)
    bool draining_ = false;
    OwnedArray<CascadeOrder> cascades_;
};

// -- the filters' engine side ------------------------------------------------------------------------

/// Related<R>{target}'s row test (detail/relation_ops.hpp): `row` has the pair (R, target).
template <typename R>
bool related_row_test(const World& world, Entity row, Entity target);
/// Cascade<R>'s order (detail/relation_ops.hpp).
template <typename R>
void cascade_order(World& world, const QueryCache& q, bool may_reorder, const RowRun*& runs, size_t& count);

template <typename R>
struct FilterTraits<Related<R>> : FilterTraits<void> {
    static constexpr bool is_filter = true;
    static constexpr unsigned tests = 1;
    using required = TypeList<HasRelation<R>>;
    static void bind(const Related<R>& f, FilterValues& values) noexcept {
        if (!f.any_target) values.add_test(&related_row_test<R>, f.target);
    }
};

template <typename R>
struct FilterTraits<Cascade<R>> : FilterTraits<void> {
    static constexpr bool is_filter = true;
    static constexpr unsigned orders = 1;
    static void bind(const Cascade<R>&, FilterValues& values) noexcept { values.set_order(&cascade_order<R>); }
};

} // namespace detail

} // namespace ecs
