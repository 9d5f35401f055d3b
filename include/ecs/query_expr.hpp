/**
 * @file ecs/query_expr.hpp
 * @brief Query text (addition, 2.0): `ecs::DynamicQuery`, a query built at run time from text such as
 *        `"Position, [in] Velocity, !Frozen, ?Health, Player|Enemy, (ChildOf, *), Transform(up ChildOf)"`,
 *        for tools, scripts and remote inspectors that know component names, not C++ types.
 *
 * `ecs::query_expr(world, text)` parses the text (detail/query_text.hpp), resolves every name
 * (component names as component_info reports them: the registered name, else the type name;
 * relationship names likewise; entity names through World::lookup) and returns a DynamicQuery. A
 * malformed or unresolvable text gives a query that converts to false, with `error()` naming the
 * offending word and `error_offset()` its byte offset: nothing throws or asserts.
 *
 * Terms (see SPEC "Addition (2.0): query text"):
 * | text              | the entity must                          | each receives           |
 * |-------------------|------------------------------------------|-------------------------|
 * | `Name`            | have Name, enabled                       | its address (writable)  |
 * | `[in] Name`       | have Name, enabled                       | its address (read only) |
 * | `!Name`           | not have Name enabled                    | nothing (a filter)      |
 * | `?Name`           | nothing                                  | its address or nullptr  |
 * | `A|B|C`           | have at least one of them enabled        | nothing (a filter)      |
 * | `(R, target)`     | have the pair (R, target); `*`: any one  | nothing (a filter)      |
 * | `Name(up R)`      | nothing                                  | Name of the nearest R ancestor, or nullptr |
 * | `Name(self|up R)` | nothing                                  | its own Name, else as up |
 *
 * `each(fn)` calls `fn(Entity, void* const* values)` with one pointer per value term (plain, `[in]`,
 * `?`, up), in the order written. It visits what a typed query with the same terms visits, in the
 * same order (archetype creation order, then row order), under the same rules: disabled components
 * are absent, disabled entities are skipped, structural changes inside `fn` are refused, mutable
 * terms of tracked types are stamped changed. The matching archetypes are cached (a detail::QueryCache
 * extended as archetypes are created) and each run walks their columns.
 *
 * A DynamicQuery refers to its world: the world must outlive it and stay at its address, and must
 * not be given another world's state (move assignment) while the query is kept: parse again then.
 *
 * Thread-safety: as a typed query run on the same world; one DynamicQuery must not run on two
 * threads at once (its cache is brought up to date by each run).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "builtin/hierarchy.hpp"
#include "detail/query_text.hpp"
#include "relation.hpp"
#include "runtime.hpp"
#include "world.hpp"

namespace ecs {

/// What a term may do to the component it names.
enum class TermAccess : uint8_t {
    none,  ///< a filter: nothing is handed out
    read,  ///< handed out, read only (`[in]`, up terms)
    write, ///< handed out, writable (plain and `?` terms)
};

/// The form of a term.
enum class TermKind : uint8_t {
    with,     ///< `Name`: required, writable value
    in,       ///< `[in] Name`: required, read-only value
    without,  ///< `!Name`
    optional, ///< `?Name`: value or nullptr
    any_of,   ///< `A|B|C`
    pair,     ///< `(R, target)` or `(R, *)`
    up,       ///< `Name(up R)`
    self_up,  ///< `Name(self|up R)`
};

/// One term of a DynamicQuery, as parsed and resolved.
struct QueryTerm {
    std::string name;                            ///< as written: "Position", "A|B", "(ChildOf, *)", "Transform(up ChildOf)"
    ComponentTypeID id = INVALID_COMPONENT_ID;   ///< the component (any_of: the first; pair: R)
    TermAccess access = TermAccess::none;
    TermKind kind = TermKind::with;
    std::vector<ComponentTypeID> any_of;         ///< any_of: every alternative
    ComponentTypeID relation = INVALID_COMPONENT_ID; ///< pair, up, self_up: R (or ecs::Parent)
    Entity target = INVALID_ENTITY;              ///< pair: the target; INVALID_ENTITY for `*`
    int value = -1;                              ///< position in each's value array, -1 for a filter
};

class DynamicQuery;
DynamicQuery query_expr(World& world, std::string_view text);

namespace detail {

// ---- adapter: what the query text reads of a World's internals --------------------------------------
// Everything DynamicQuery needs beyond the public API goes through these few functions, so that a
// change to the World's rooms touches only this section.

/// The relationship type whose component id is `id`, or nullptr.
inline const RelationTypeInfo* relation_type_of_component(ComponentTypeID id) {
    const RelationTypeInfo* found = nullptr;
    each_relation_type([&](const RelationTypeInfo& info) {
        if (info.relation == id) found = &info;
    });
    return found;
}

struct QueryTextWorld {
    static const ArchetypeGraph& graph(const World& w) noexcept { return WorldAccess::graph(w); }
    /// The record of a live `e`, or nullptr.
    static const EntityRecord* record(const World& w, Entity e) noexcept { return live_record(w, e); }
    /// The address of `e`'s component `id` when present and enabled, else nullptr (no change stamp).
    static void* value(const World& w, Entity e, ComponentTypeID id, bool sparse) noexcept {
        return enabled_value(w, e, id, sparse);
    }
    /// [sparse] The value of sparse `id` of the live entity in slot `index` when present and enabled,
    /// else nullptr; stamped changed when `write` and the type is tracked.
    static void* sparse_value(const World& w, ComponentTypeID id, uint32_t index, bool write) noexcept {
        const SparseRoom* room = graph(w).sparse();
        SparseSet* set = room != nullptr ? room->set(id) : nullptr;
        if (set == nullptr) return nullptr;
        const uint32_t s = set->slot_of(index);
        if (s == 0 || set->disabled_slot(s - 1)) return nullptr;
        if (write && set->ticks_active()) set->touch(index);
        return set->at(s - 1);
    }
    /// The index of relationship `info` in `w`, or nullptr when `w` never related that type.
    static const RelationIndex* relation(const World& w, const RelationTypeInfo& info) noexcept {
        return relation_index(w, info);
    }
    /// The world's iteration depth for a run's IterationScope (nullptr inside a shared section).
    static uint32_t* scope_depth(World& w) noexcept { return WorldAccess::queries(w).scope_depth(); }
    static bool shared(const World& w) noexcept { return WorldAccess::queries(w).shared(); }
};

// ---- end of the adapter ------------------------------------------------------------------------------

/// How a value term finds its values.
enum class ValueSource : uint8_t { table, table_optional, sparse, sparse_optional, up, self_up };

struct ValueTerm {
    ComponentTypeID id = INVALID_COMPONENT_ID;
    ValueSource source = ValueSource::table;
    bool write = false;
    const RelationTypeInfo* relation = nullptr; ///< up: R (nullptr: ecs::Parent)
    bool sparse = false;                        ///< up: the component is sparse
};

/// A row filter the archetype masks cannot express: a pair with a concrete target. (Any-of terms are
/// AnyOf groups of the cache, as for the typed filter.)
struct RowFilter {
    const RelationTypeInfo* relation = nullptr;  ///< pair: R (nullptr: ecs::Parent)
    Entity target = INVALID_ENTITY;              ///< pair: the target
};

/// The rows of one run over table columns only: `fn(entity, values)` per row, value i at `ptrs[i]`
/// advanced by `strides[i]` (0 for an absent term, whose pointer stays null). The values live in a
/// full-size local array: compilers see no access past its end whatever the count, and, the array
/// being local, keep its live elements in registers once `fn` is inlined.
template <typename Func>
ECS_FORCEINLINE void run_columns(Func& fn, const Entity* entities, size_t rows, void* const* ptrs, const size_t* strides,
                                 size_t count) {
    void* values[MAX_QUERY_TERMS] = {};
    for (size_t i = 0; i < count; ++i) values[i] = ptrs[i];
    for (size_t r = 0; r < rows; ++r) {
        fn(entities[r], static_cast<void* const*>(values));
        for (size_t i = 0; i < count; ++i) values[i] = static_cast<uint8_t*>(values[i]) + strides[i];
    }
}
/// run_columns for a count known at compile time (1 to 4 value terms: the loops unroll).
template <size_t N, typename Func>
ECS_FORCEINLINE void run_fixed_columns(Func& fn, const Entity* entities, size_t rows, void* const* ptrs, const size_t* strides) {
    void* values[MAX_QUERY_TERMS] = {};
    uint8_t* p[N];
    size_t s[N];
    for (size_t i = 0; i < N; ++i) {
        p[i] = static_cast<uint8_t*>(ptrs[i]);
        s[i] = strides[i];
    }
    for (size_t r = 0; r < rows; ++r) {
        for (size_t i = 0; i < N; ++i) {
            values[i] = p[i];
            p[i] += s[i];
        }
        fn(entities[r], static_cast<void* const*>(values));
    }
}

} // namespace detail

/**
 * @brief A query parsed from text (see the file comment). A value type: movable, not copyable.
 *        Obtained from `ecs::query_expr(world, text)`.
 */
class DynamicQuery {
public:
    DynamicQuery() = default;
    /// A moved-from query is invalid (converts to false, matches nothing).
    DynamicQuery(DynamicQuery&& other) noexcept = default;
    DynamicQuery& operator=(DynamicQuery&& other) noexcept = default;
    DynamicQuery(const DynamicQuery&) = delete;
    DynamicQuery& operator=(const DynamicQuery&) = delete;

    /// @brief True when the text parsed and every name resolved.
    explicit operator bool() const noexcept { return world_ != nullptr && error_.empty(); }
    /// @brief The error message (names the offending word and its byte offset); empty when valid.
    [[nodiscard]] const std::string& error() const noexcept { return error_; }
    /// @brief Byte offset of the offending word in the text (0 when valid).
    [[nodiscard]] size_t error_offset() const noexcept { return error_offset_; }
    /// @brief The terms as parsed, in the order written (empty when invalid).
    [[nodiscard]] const std::vector<QueryTerm>& terms() const noexcept { return terms_; }
    /// @brief Number of pointers `each` passes (value terms).
    [[nodiscard]] size_t value_count() const noexcept { return values_.size(); }

    /**
     * @brief Calls `fn(Entity, void* const* values)` for every matching entity; `values[i]` is the
     *        address of value term i's component, nullptr when absent (`?`, up). Archetype creation
     *        order, then row order. No-op on an invalid query.
     * @pre `fn` makes no structural change to the world (refused, as in World::each); not inside a
     *      parallel section.
     * Complexity: O(matching rows) plus O(archetypes created since the previous run); rows are
     * tested one by one only for sparse, any-of, pair-with-target and up terms.
     */
    template <typename Func>
    void each(Func&& fn) {
        static_assert(std::is_invocable_v<Func&, Entity, void* const*>,
                      "DynamicQuery::each: the callback must be callable as fn(ecs::Entity, void* const* values)");
        if (!*this) return;
        if (!ECS_CHECK(!detail::QueryTextWorld::shared(*world_), "DynamicQuery::each: not available inside a parallel section"))
            return;
#if ECS_ASSERT_ENABLED
        if (ECS_UNLIKELY(detail::current_access != nullptr)) // inside a Schedule system: its declared access
            for (const detail::ValueTerm& v : values_)
                if (detail::access_refused(v.id, v.write, component_info(v.id).name)) return;
#endif
        refresh();
        detail::IterationScope scope(detail::QueryTextWorld::scope_depth(*world_));
        run(fn);
    }

    /// @brief Number of entities `each` would visit. O(matching rows) at most (O(archetypes) when
    ///        no row needs a test).
    [[nodiscard]] size_t count() {
        if (!*this) return 0;
        refresh();
        size_t n = 0;
        walk([&](Archetype& a, size_t begin, size_t rows) {
            if (filters_.empty()) {
                n += rows;
                return;
            }
            const Entity* entities = a.entities.data();
            for (size_t r = begin; r < begin + rows; ++r) n += passes(entities[r]) ? 1u : 0u;
        });
        return n;
    }

private:
    friend DynamicQuery query_expr(World& world, std::string_view text);

    using Cache = detail::QueryCache;

    /// Brings the cache up to date. A cheap guard starts over when the world visibly holds other
    /// archetypes than those cached (fewer, or another first one); see the @pre of query_expr.
    void refresh() {
        const ArchetypeGraph& graph = detail::QueryTextWorld::graph(*world_);
        if (cache_.scanned > graph.size() || (cache_.scanned != 0 && graph[0] != first_archetype_)) {
            cache_.archetypes.clear();
            cache_.candidates.clear();
            cache_.scanned = 0;
        }
        cache_.refresh(graph);
        first_archetype_ = graph.size() != 0 ? graph[0] : nullptr;
    }

    /// Calls `visit(arch, begin, rows, absent)` for every run of rows passing the cache's rules.
    template <typename Visit>
    void walk_runs(Visit&& visit) {
        detail::for_each_match(detail::QueryTextWorld::graph(*world_), cache_, visit);
    }
    template <typename Visit>
    void walk(Visit&& visit) {
        walk_runs([&](Archetype& a, size_t begin, size_t rows, uint64_t) { visit(a, begin, rows); });
    }

    /// True when `e` passes the row filters (pairs with a target).
    [[nodiscard]] bool passes(Entity e) const {
        for (const detail::RowFilter& f : filters_) {
            if (f.relation == nullptr) {
                const void* p = detail::QueryTextWorld::value(*world_, e, component_id<Parent>(), false);
                if (p == nullptr || static_cast<const Parent*>(p)->entity != f.target) return false;
            } else {
                const detail::RelationIndex* index = detail::QueryTextWorld::relation(*world_, *f.relation);
                if (index == nullptr || index->find(e.index, f.target) == detail::RelationIndex::NPOS) return false;
            }
        }
        return true;
    }
    /// The value of up term `v` for `e`: self first for self_up, then the nearest ancestor having it.
    [[nodiscard]] void* up_value(const detail::ValueTerm& v, Entity e) const noexcept {
        return detail::up_value(*world_, v.relation, e, v.id, v.sparse, v.source == detail::ValueSource::self_up);
    }

    template <typename Func>
    void run(Func& fn) {
        const size_t count = values_.size();
        const detail::ValueTerm* terms = values_.data();
        void* ptrs[detail::MAX_QUERY_TERMS];
        size_t strides[detail::MAX_QUERY_TERMS];
        walk_runs([&](Archetype& a, size_t begin, size_t rows, uint64_t absent) {
            const bool stamp = a.ticks.active();
            // Table columns of the run (sparse and up terms: filled per row below).
            for (size_t i = 0; i < count; ++i) {
                const detail::ValueTerm& t = terms[i];
                ptrs[i] = nullptr;
                strides[i] = 0;
                if (t.source != detail::ValueSource::table && t.source != detail::ValueSource::table_optional) continue;
                if (((absent >> i) & 1u) != 0 || !a.has(t.id)) continue;
                const ComponentColumn& c = a.column(t.id);
                ptrs[i] = c.data + begin * c.elem_size;
                strides[i] = c.elem_size;
                if (t.write && ECS_UNLIKELY(stamp) && !row_tested_) // row-tested runs stamp the rows that pass
                    if (detail::TickColumn* tc = a.ticks_of(t.id)) a.ticks.touch_range(*tc, begin, rows);
            }
            const Entity* entities = a.entities.data() + begin;
            if (ECS_LIKELY(!row_tested_)) {
                switch (count) {
                case 1: detail::run_fixed_columns<1>(fn, entities, rows, ptrs, strides); break;
                case 2: detail::run_fixed_columns<2>(fn, entities, rows, ptrs, strides); break;
                case 3: detail::run_fixed_columns<3>(fn, entities, rows, ptrs, strides); break;
                case 4: detail::run_fixed_columns<4>(fn, entities, rows, ptrs, strides); break;
                default: detail::run_columns(fn, entities, rows, ptrs, strides, count); break;
                }
                return;
            }
            void* row_values[detail::MAX_QUERY_TERMS];
            for (size_t r = 0; r < rows; ++r) {
                const Entity e = entities[r];
                if (!passes(e)) continue;
                for (size_t i = 0; i < count; ++i) {
                    const detail::ValueTerm& t = terms[i];
                    switch (t.source) {
                    case detail::ValueSource::table:
                    case detail::ValueSource::table_optional:
                        row_values[i] = ptrs[i] != nullptr ? static_cast<uint8_t*>(ptrs[i]) + r * strides[i] : nullptr;
                        if (ECS_UNLIKELY(stamp) && t.write && row_values[i] != nullptr) a.touch(t.id, begin + r);
                        break;
                    case detail::ValueSource::sparse:
                    case detail::ValueSource::sparse_optional: {
                        row_values[i] = detail::QueryTextWorld::sparse_value(*world_, t.id, e.index, t.write);
                        break;
                    }
                    case detail::ValueSource::up:
                    case detail::ValueSource::self_up:
                        row_values[i] = up_value(t, e);
                        break;
                    }
                }
                fn(e, static_cast<void* const*>(row_values));
            }
        });
    }

    /// The world; null in a default-constructed or moved-from query.
    struct WorldRef {
        World* world = nullptr;
        WorldRef() = default;
        WorldRef(WorldRef&& other) noexcept : world(other.world) { other.world = nullptr; }
        WorldRef& operator=(WorldRef&& other) noexcept {
            World* w = other.world;
            other.world = nullptr;
            world = w;
            return *this;
        }
        WorldRef(const WorldRef&) = delete;
        WorldRef& operator=(const WorldRef&) = delete;
        World& operator*() const noexcept { return *world; }
        bool operator!=(std::nullptr_t) const noexcept { return world != nullptr; }
    };

    WorldRef world_;
    std::string error_;
    size_t error_offset_ = 0;
    std::vector<QueryTerm> terms_;
    std::vector<detail::ValueTerm> values_;
    std::vector<detail::RowFilter> filters_;
    bool row_tested_ = false; ///< some term needs a per-row look (sparse value, up, pair target)
    Cache cache_;
    const Archetype* first_archetype_ = nullptr;
};

/**
 * @brief Parses `text` into a DynamicQuery over `world` (see the file comment for the terms).
 * @return a query that converts to false, with error() and error_offset() set, when the text is
 *         malformed or names an unknown component, relationship or entity. Never throws or asserts.
 *         Entity names in pair targets are looked up now, once.
 * @pre `world` outlives the query, is not moved, and is not move-assigned while the query is kept.
 * Complexity: O(text) plus O(component types) per name that is not a registered name.
 */
inline DynamicQuery query_expr(World& world, std::string_view text) {
    DynamicQuery q;
    q.world_.world = &world;
    detail::TextQuery parsed = detail::parse_query_text(text);
    auto fail = [&](std::string message, size_t at) {
        q.error_ = std::move(message) + " at byte " + std::to_string(at);
        q.error_offset_ = at;
        q.terms_.clear();
        q.values_.clear();
        q.filters_.clear();
        return std::move(q);
    };
    if (!parsed.error.empty()) {
        q.error_ = std::move(parsed.error);
        q.error_offset_ = parsed.error_offset;
        return q;
    }
    detail::QueryCache& cache = q.cache_;
    ComponentMask listed; // components of plain, [in], ! and ? terms: each at most once
    auto component = [&](const detail::TextWord& w, ComponentTypeID& id) {
        id = find_component(w.text);
        return id != INVALID_COMPONENT_ID && id < ECS_MAX_COMPONENTS;
    };
    // A relationship: a listed relationship type, or ecs::Parent (`info` nullptr).
    auto relationship = [&](const detail::TextWord& w, ComponentTypeID& id, const detail::RelationTypeInfo*& info) {
        info = nullptr;
        if (w.text == "Parent" || w.text == type_name<Parent>()) {
            id = component_id<Parent>();
            return true;
        }
        id = find_component(w.text);
        if (id == INVALID_COMPONENT_ID) return false;
        if (id == component_id<Parent>()) return true;
        info = detail::relation_type_of_component(id);
        return info != nullptr;
    };
    auto require = [&](ComponentTypeID id) {
        if (id >= ECS_MAX_COMPONENTS) {
            cache.impossible = true;
            return;
        }
        cache.include.set(id);
        cache.required_ids.push_back(id);
    };
    for (const detail::TextTerm& t : parsed.terms) {
        QueryTerm term;
        switch (t.form) {
        case detail::TextForm::with:
        case detail::TextForm::in:
        case detail::TextForm::without:
        case detail::TextForm::optional: {
            ComponentTypeID id = INVALID_COMPONENT_ID;
            if (!component(t.name, id)) return fail("unknown component " + detail::quote_word(t.name.text), t.name.offset);
            if (listed.test(id)) return fail("component " + detail::quote_word(t.name.text) + " is listed twice", t.name.offset);
            listed.set(id);
            const bool sparse = component_info(id).sparse;
            term.name = std::string(t.name.text);
            term.id = id;
            if (t.form == detail::TextForm::without) {
                term.kind = TermKind::without;
                if (sparse) {
                    cache.sparse_excluded.push_back(id);
                    cache.has_sparse = true;
                } else {
                    cache.exclude.set(id);
                    cache.excluded_ids.push_back(id);
                }
                break;
            }
            detail::ValueTerm v;
            v.id = id;
            v.write = t.form != detail::TextForm::in;
            term.access = v.write ? TermAccess::write : TermAccess::read;
            if (t.form == detail::TextForm::optional) {
                term.kind = TermKind::optional;
                v.source = sparse ? detail::ValueSource::sparse_optional : detail::ValueSource::table_optional;
                if (sparse) q.row_tested_ = true;
            } else {
                term.kind = t.form == detail::TextForm::in ? TermKind::in : TermKind::with;
                v.source = sparse ? detail::ValueSource::sparse : detail::ValueSource::table;
                if (sparse) {
                    cache.sparse_required.push_back(id);
                    cache.has_sparse = true;
                    q.row_tested_ = true;
                } else {
                    require(id);
                }
            }
            cache.optional_ids.push_back(v.source == detail::ValueSource::table_optional ? id : INVALID_COMPONENT_ID);
            term.value = static_cast<int>(q.values_.size());
            q.values_.push_back(v);
            break;
        }
        case detail::TextForm::any_of: {
            // The cache's AnyOf group, as for the typed filter: archetypes matched on their type
            // sets, rows tested only for enable bits and sparse alternatives.
            term.kind = TermKind::any_of;
            std::vector<uint8_t> sparse;
            for (const detail::TextWord& w : t.any_of) {
                ComponentTypeID id = INVALID_COMPONENT_ID;
                if (!component(w, id)) return fail("unknown component " + detail::quote_word(w.text), w.offset);
                for (const ComponentTypeID seen : term.any_of)
                    if (seen == id) return fail("component " + detail::quote_word(w.text) + " is listed twice in an any-of term", w.offset);
                term.any_of.push_back(id);
                sparse.push_back(component_info(id).sparse ? 1 : 0);
                if (component_info(id).sparse) cache.has_sparse = true;
                if (!term.name.empty()) term.name += '|';
                term.name += w.text;
            }
            term.id = term.any_of.front();
            cache.add_any_group(term.any_of.data(), sparse.data(), term.any_of.size());
            break;
        }
        case detail::TextForm::pair: {
            ComponentTypeID rid = INVALID_COMPONENT_ID;
            const detail::RelationTypeInfo* info = nullptr;
            if (!relationship(t.name, rid, info))
                return fail(detail::quote_word(t.name.text) + " is not a relationship", t.name.offset);
            term.kind = TermKind::pair;
            term.id = rid;
            term.relation = rid;
            term.name = "(" + std::string(t.name.text) + ", " + std::string(t.target.text) + ")";
            require(info != nullptr ? info->marker : rid); // has some target: the HasRelation tag, or Parent
            if (t.target_form != detail::TextTarget::any) {
                Entity target = INVALID_ENTITY;
                if (t.target_form == detail::TextTarget::number) {
                    target = Entity{t.target_index, t.target_generation};
                } else {
                    target = world.lookup(t.target.text);
                    if (target == INVALID_ENTITY) return fail("no entity named " + detail::quote_word(t.target.text), t.target.offset);
                }
                term.target = target;
                detail::RowFilter f;
                f.relation = info;
                f.target = target;
                q.filters_.push_back(std::move(f));
                q.row_tested_ = true;
            }
            break;
        }
        case detail::TextForm::up:
        case detail::TextForm::self_up: {
            ComponentTypeID id = INVALID_COMPONENT_ID;
            if (!component(t.name, id)) return fail("unknown component " + detail::quote_word(t.name.text), t.name.offset);
            ComponentTypeID rid = INVALID_COMPONENT_ID;
            const detail::RelationTypeInfo* info = nullptr;
            if (!relationship(t.relation, rid, info))
                return fail(detail::quote_word(t.relation.text) + " is not a relationship", t.relation.offset);
            if (info != nullptr && !info->exclusive)
                return fail("relationship " + detail::quote_word(t.relation.text) + " is not exclusive (up follows one target)",
                            t.relation.offset);
            const bool self = t.form == detail::TextForm::self_up;
            term.kind = self ? TermKind::self_up : TermKind::up;
            term.access = TermAccess::read;
            term.id = id;
            term.relation = rid;
            term.name = std::string(t.name.text) + (self ? "(self|up " : "(up ") + std::string(t.relation.text) + ")";
            detail::ValueTerm v;
            v.id = id;
            v.source = self ? detail::ValueSource::self_up : detail::ValueSource::up;
            v.relation = info;
            v.sparse = component_info(id).sparse;
            cache.optional_ids.push_back(INVALID_COMPONENT_ID);
            term.value = static_cast<int>(q.values_.size());
            q.values_.push_back(v);
            q.row_tested_ = true;
            break;
        }
        }
        q.terms_.push_back(std::move(term));
    }
    return q;
}

inline DynamicQuery World::query_expr(std::string_view text) { return ecs::query_expr(*this, text); }

} // namespace ecs
