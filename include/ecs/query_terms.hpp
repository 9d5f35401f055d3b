/**
 * @file ecs/query_terms.hpp
 * @brief What users write in a query: the terms (`T`, `const T`, `Optional<T>`) and the filters
 *        (`With`, `Without` / `Exclude`; `Changed`, `Added` and `IncludeDisabled` come from
 *        change_detection.hpp and enable.hpp), with the compile-time machinery that reads them:
 *        type lists, TermTraits, FilterTraits, the values value filters carry (FilterValues) and
 *        the checks every query signature passes (QueryCheck).
 *
 * Pure types and constant expressions: no state, nothing that runs a query. The engine
 * (query_engine.hpp) and the row loops (detail/query_loops.hpp) build on it; users include
 * <ecs/query.hpp> or <ecs/world.hpp>.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "archetype.hpp"
#include "change_detection.hpp"
#include "component.hpp"
#include "config.hpp"
#include "enable.hpp"
#include "entity.hpp"

namespace ecs {

class World;

/// Query term: the component may be absent; the callback receives a pointer, nullptr when absent.
template <typename T>
struct Optional {
    static_assert(!std::is_pointer_v<T> && !std::is_reference_v<T>,
                  "ecs::Optional<T>: T must be a component type, not a pointer or reference");
};

/**
 * Query term: `T` of the nearest ancestor along the exclusive relationship `R` (or `ecs::Parent`)
 * that has `T` enabled, the entity itself excluded; the callback receives `const T*`, nullptr when no
 * ancestor has it. Never filters. Read-only: `T` must be `const`. The walk stops after 64 levels and
 * on a cycle.
 */
template <typename R, typename T>
struct Up {};

/// Query term: like Up<R, const T>, but the entity's own `T` first.
template <typename R, typename T>
struct SelfUp {};

/// Query filter: the entity must have every one of `Ts` (not fetched).
template <typename... Ts>
struct With {};

/// Query filter: the entity must have none of `Ts`.
template <typename... Ts>
struct Without {};

/// The spec's name for Without: `world.each<A>(Exclude<B, C>{}, fn)`.
template <typename... Ts>
using Exclude = Without<Ts...>;

/// Query filter: the entity must have at least one of `Ts`, enabled (not fetched). Archetypes are
/// matched on their type sets; rows are tested only where enable bits or sparse types can decide.
template <typename... Ts>
struct AnyOf {
    static_assert(sizeof...(Ts) != 0, "ecs::AnyOf<Ts...>: name at least one component type");
};

namespace detail {

template <typename... Ts>
struct TypeList {};

template <typename T, typename... Ts>
inline constexpr bool contains_v = (std::is_same_v<T, Ts> || ...);

template <typename... Ts>
struct distinct;
template <>
struct distinct<> : std::true_type {};
template <typename T, typename... Ts>
struct distinct<T, Ts...> : std::bool_constant<!contains_v<T, Ts...> && distinct<Ts...>::value> {};
/// True when no type appears twice in the pack (cv and references ignored).
template <typename... Ts>
inline constexpr bool distinct_v = distinct<component_t<Ts>...>::value;

template <typename... Lists>
struct concat {
    using type = TypeList<>;
};
template <typename... A>
struct concat<TypeList<A...>> {
    using type = TypeList<A...>;
};
template <typename... A, typename... B, typename... Rest>
struct concat<TypeList<A...>, TypeList<B...>, Rest...> : concat<TypeList<A..., B...>, Rest...> {};

template <typename List>
struct list_distinct;
template <typename... Ts>
struct list_distinct<TypeList<Ts...>> : distinct<Ts...> {};

template <typename T, typename List>
struct list_contains;
template <typename T, typename... Ts>
struct list_contains<T, TypeList<Ts...>> : std::bool_constant<contains_v<T, Ts...>> {};

template <typename List>
struct list_size;
template <typename... Ts>
struct list_size<TypeList<Ts...>> : std::integral_constant<size_t, sizeof...(Ts)> {};

/// The types of a list stored in tables (`Sparse` false) or sparse (`Sparse` true).
template <bool Sparse, typename List>
struct storage_filter;
template <bool Sparse, typename... Ts>
struct storage_filter<Sparse, TypeList<Ts...>> {
    using type = typename concat<std::conditional_t<is_sparse_v<Ts> == Sparse, TypeList<Ts>, TypeList<>>...>::type;
};
template <typename List>
using table_only_t = typename storage_filter<false, List>::type;
template <typename List>
using sparse_only_t = typename storage_filter<true, List>::type;

template <typename A, typename B>
struct lists_disjoint;
template <typename... As, typename B>
struct lists_disjoint<TypeList<As...>, B> : std::bool_constant<!(list_contains<As, B>::value || ...)> {};

// -- terms -------------------------------------------------------------------------------------------

/// What a term asks for: a required `T` / `const T`.
template <typename Term>
struct TermTraits {
    using component = bare_t<Term>;
    using pointer = std::remove_reference_t<Term>*; ///< column base, and Chunk::get's result
    using param = std::remove_reference_t<Term>&;   ///< what the callback receives
    static constexpr bool optional = false;
    static constexpr bool read_only = std::is_const_v<Term>;
    static constexpr bool valid = !std::is_pointer_v<Term> && !std::is_reference_v<Term> && !std::is_array_v<Term>;
    static constexpr bool up = false; ///< Up / SelfUp: fetched from an ancestor
    static constexpr bool up_read_only = true;
};
template <typename T>
struct TermTraits<Optional<T>> {
    using component = std::remove_cv_t<T>;
    using pointer = T*;
    using param = T*;
    static constexpr bool optional = true;
    static constexpr bool read_only = std::is_const_v<T>;
    static constexpr bool valid = !std::is_pointer_v<T> && !std::is_reference_v<T> && !std::is_array_v<T>;
    static constexpr bool up = false;
    static constexpr bool up_read_only = true;
};
/// Up<R, const T> and SelfUp<R, const T>: `const T*` from the entity's ancestors (self first for
/// SelfUp); not required, read-only, fetched row by row.
template <typename R, typename T, bool Self>
struct UpTermTraits {
    using component = std::remove_cv_t<T>;
    using relation = R;
    using pointer = const component*;
    using param = const component*;
    static constexpr bool optional = true;
    static constexpr bool read_only = true;
    static constexpr bool valid = !std::is_pointer_v<T> && !std::is_reference_v<T> && !std::is_array_v<T>;
    static constexpr bool up = true;
    static constexpr bool self = Self;
    static constexpr bool up_read_only = std::is_const_v<T>;
};
template <typename R, typename T>
struct TermTraits<Up<R, T>> : UpTermTraits<R, T, false> {};
template <typename R, typename T>
struct TermTraits<SelfUp<R, T>> : UpTermTraits<R, T, true> {};

template <typename Term>
using term_component_t = typename TermTraits<Term>::component;
/// What makes two terms the same term: the component, or the Up / SelfUp term itself (a query may
/// read an entity's `T` and its ancestor's).
template <typename Term>
using term_identity_t = std::conditional_t<TermTraits<Term>::up, Term, term_component_t<Term>>;
/// True when a term's values are fetched row by row (a sparse type, an ancestor's value).
template <typename Term>
inline constexpr bool term_per_row_v = TermTraits<Term>::up || is_sparse_v<term_component_t<Term>>;
template <typename Term>
using term_pointer_t = typename TermTraits<Term>::pointer;
template <typename Term>
using term_param_t = typename TermTraits<Term>::param;

/// The components a term list requires (Optional terms require nothing).
template <typename... Terms>
using required_of_terms_t =
    typename concat<std::conditional_t<TermTraits<Terms>::optional, TypeList<>, TypeList<term_component_t<Terms>>>...>::type;

// -- filters -----------------------------------------------------------------------------------------

template <typename F>
struct FilterTraits {
    static constexpr bool is_filter = false;
    using required = TypeList<>;
    using excluded = TypeList<>;
    using changed = TypeList<>; ///< Changed<Ts...>
    using added = TypeList<>;   ///< Added<Ts...>
    static constexpr unsigned tests = 0;  ///< row tests its value adds (Related<R>{target})
    static constexpr unsigned orders = 0; ///< 1 when it orders the rows (Cascade<R>)
    static constexpr bool include_disabled = false; ///< IncludeDisabled (enable.hpp)
    using any_of = TypeList<>;  ///< AnyOf<Ts...>: one TypeList<Ts...> per filter
};
template <typename... Ts>
struct FilterTraits<With<Ts...>> : FilterTraits<void> {
    static constexpr bool is_filter = true;
    using required = TypeList<bare_t<Ts>...>;
};
template <typename... Ts>
struct FilterTraits<Without<Ts...>> : FilterTraits<void> {
    static constexpr bool is_filter = true;
    using excluded = TypeList<bare_t<Ts>...>;
};
template <typename... Ts>
struct FilterTraits<AnyOf<Ts...>> : FilterTraits<void> {
    static constexpr bool is_filter = true;
    using any_of = TypeList<TypeList<bare_t<Ts>...>>;
};
template <typename... Ts>
struct FilterTraits<Changed<Ts...>> : FilterTraits<void> {
    static constexpr bool is_filter = true;
    using required = TypeList<bare_t<Ts>...>;
    using changed = TypeList<bare_t<Ts>...>;
};
template <typename... Ts>
struct FilterTraits<Added<Ts...>> : FilterTraits<void> {
    static constexpr bool is_filter = true;
    using required = TypeList<bare_t<Ts>...>;
    using added = TypeList<bare_t<Ts>...>;
};

template <>
struct FilterTraits<IncludeDisabled> : FilterTraits<void> {
    static constexpr bool is_filter = true;
    static constexpr bool include_disabled = true;
};

template <typename F>
inline constexpr bool is_filter_v = FilterTraits<std::remove_cv_t<std::remove_reference_t<F>>>::is_filter;

/// All but the last type of a pack (the filters before a callback), as a TypeList.
template <typename Acc, typename... Ts>
struct init_impl;
template <typename... Acc, typename T>
struct init_impl<TypeList<Acc...>, T> {
    using type = TypeList<Acc...>;
};
template <typename... Acc, typename T, typename U, typename... Rest>
struct init_impl<TypeList<Acc...>, T, U, Rest...> : init_impl<TypeList<Acc..., std::remove_cv_t<std::remove_reference_t<T>>>, U, Rest...> {};
template <typename... Ts>
using init_t = typename init_impl<TypeList<>, Ts...>::type;

/// The last argument of a pack (the callback after the filters).
template <typename A>
ECS_FORCEINLINE A& last_arg(A& a) noexcept {
    return a;
}
template <typename A, typename B, typename... Rest>
ECS_FORCEINLINE decltype(auto) last_arg(A&, B& b, Rest&... rest) noexcept {
    return last_arg(b, rest...);
}

// -- value filters: Related<R>{target}, Cascade<R> (relation.hpp) -----------------------------------

struct QueryCache;

/// Rows [begin, begin + count) of one archetype, in the order a query visits them.
struct RowRun {
    Archetype* archetype;
    size_t begin;
    size_t count;
};

/**
 * @brief The values a query's value filters carry, type-erased so that a `Query<Terms...>` handle
 *        has one type whatever its filters (relation.hpp fills it):
 *        - row tests: `tests[k](world, row_entity, values[k])` must hold for a row to be visited
 *          (`Related<R>{target}`: the row's entity has the pair (R, target));
 *        - an order: `order(world, cache, may_reorder, runs, count)` gives the cache's rows as runs in
 *          the order to visit them (`Cascade<R>`), valid until the next structural or relationship
 *          change. `may_reorder`: no run is in progress around this one, so the order may sort the
 *          rows of the matching archetypes (as World::sort does) to make its runs contiguous.
 * Every other filter is a type only. A run whose values are inactive takes the plain path.
 */
struct FilterValues {
    static constexpr size_t MAX_TESTS = 2;
    using RowTest = bool (*)(const World& world, Entity row, Entity value);
    using Order = void (*)(World& world, const QueryCache& q, bool may_reorder, const RowRun*& runs, size_t& count);

    RowTest tests[MAX_TESTS] = {};
    Entity values[MAX_TESTS] = {};
    uint32_t test_count = 0;
    bool active = false; ///< a test or an order is present
    Order order = nullptr;

    void add_test(RowTest test, Entity value) noexcept {
        tests[test_count] = test;
        values[test_count] = value;
        ++test_count;
        active = true;
    }
    void set_order(Order o) noexcept {
        order = o;
        active = true;
    }
    /// True when `e` passes every row test.
    [[nodiscard]] bool passes(const World& world, Entity e) const {
        for (uint32_t k = 0; k < test_count; ++k)
            if (!tests[k](world, e, values[k])) return false;
        return true;
    }
};

/// Records the value of filter `f` (nothing for filters without one, and for the callback).
template <typename F>
ECS_FORCEINLINE void bind_filter_value(FilterValues& values, const F& f) {
    using Traits = FilterTraits<std::remove_cv_t<std::remove_reference_t<F>>>;
    if constexpr (Traits::tests + Traits::orders != 0) {
        Traits::bind(f, values);
    } else {
        (void)values;
        (void)f;
    }
}
/// The values of the filters among `args` (the callback, when present, is ignored).
template <typename... Args>
FilterValues filter_values(const Args&... args) {
    FilterValues values;
    (bind_filter_value(values, args), ...);
    return values;
}

// -- the compile-time checks ---------------------------------------------------------------------------

// AnyOf groups (a TypeList of TypeLists): no type twice in a group, the types counted, sparse ones.
template <typename... Groups>
constexpr bool any_groups_distinct(TypeList<Groups...>) {
    return (list_distinct<Groups>::value && ...);
}
template <typename... Groups>
constexpr size_t any_types(TypeList<Groups...>) {
    return (size_t(0) + ... + list_size<Groups>::value);
}
template <typename... Groups>
constexpr bool any_sparse(TypeList<Groups...>) {
    return ((list_size<sparse_only_t<Groups>>::value != 0) || ...);
}

template <typename TermList, typename FilterList>
struct QueryCheck;
template <typename... Terms, typename... Filters>
struct QueryCheck<TypeList<Terms...>, TypeList<Filters...>> {
    using required = typename concat<required_of_terms_t<Terms...>, typename FilterTraits<Filters>::required...>::type;
    using excluded = typename concat<typename FilterTraits<Filters>::excluded...>::type;
    /// The AnyOf groups, one TypeList each.
    using any_groups = typename concat<typename FilterTraits<Filters>::any_of...>::type;

    static constexpr bool check() {
        static_assert((TermTraits<Terms>::valid && ...),
                      "ecs query: a term must be a component type, not a pointer or reference "
                      "(use ecs::Optional<T> for a component that may be absent)");
        static_assert((FilterTraits<Filters>::is_filter && ...),
                      "ecs query: the arguments before the callback must be filters (ecs::With<...>{}, ecs::Without<...>{}, ecs::AnyOf<...>{}, "
                      "ecs::IncludeDisabled{}, and for world.query only ecs::Changed<...>{}, ecs::Added<...>{})");
        static_assert(sizeof...(Terms) <= 64 && list_size<required>::value + list_size<excluded>::value <= 64,
                      "ecs query: at most 64 terms and 64 required or excluded types");
        static_assert((TermTraits<Terms>::up_read_only && ...),
                      "ecs query: an Up / SelfUp term is read-only: write ecs::Up<R, const T> (the callback gets const T*)");
        static_assert(distinct<term_identity_t<Terms>...>::value, "ecs query: a component type is listed twice among the terms");
        static_assert(list_distinct<excluded>::value, "ecs query: a component type is listed twice in Without/Exclude");
        static_assert(lists_disjoint<required, excluded>::value,
                      "ecs query: a component type is both required (term or With) and excluded (Without/Exclude)");
        static_assert(any_groups_distinct(any_groups{}), "ecs query: a component type is listed twice in one AnyOf");
        static_assert(any_types(any_groups{}) <= 64, "ecs query: at most 64 types in the AnyOf filters together");
        static_assert(value_tests <= FilterValues::MAX_TESTS, "ecs query: at most 2 Related<R>{target} filters per query");
        static_assert(value_orders <= 1, "ecs query: at most one Cascade<R> filter per query");
        static_assert(value_orders == 0 || !change_filtered, "ecs query: Cascade<R> cannot be combined with Changed/Added");
        return true;
    }
    static constexpr bool read_only = (TermTraits<Terms>::read_only && ...);
    using changed = typename concat<typename FilterTraits<Filters>::changed...>::type;
    using added = typename concat<typename FilterTraits<Filters>::added...>::type;
    /// True when a Changed/Added filter is present (only query handles keep the progress they need).
    static constexpr bool change_filtered = !std::is_same_v<changed, TypeList<>> || !std::is_same_v<added, TypeList<>>;
    /// Filters carrying a value (Related<R>{target}, Cascade<R>): runs look at FilterValues.
    static constexpr unsigned value_tests = (0u + ... + FilterTraits<Filters>::tests);
    static constexpr unsigned value_orders = (0u + ... + FilterTraits<Filters>::orders);
    static constexpr bool valued = value_tests + value_orders != 0;
    /// True when IncludeDisabled is among the filters.
    static constexpr bool include_disabled = (FilterTraits<Filters>::include_disabled || ...);
    /// True when a term or a filter names a sparse type (rows are then tested one by one).
    static constexpr bool has_sparse = list_size<sparse_only_t<required>>::value + list_size<sparse_only_t<excluded>>::value +
                                           (term_per_row_v<Terms> + ... + 0) != 0 ||
                                       any_sparse(any_groups{});
    /// True when a term is a sparse type (its value is fetched per row).
    static constexpr bool sparse_terms = (term_per_row_v<Terms> || ...);
    /// True when some type is required and every required type (terms, With, Changed, Added) is
    /// sparse: runs walk the smallest required set (detail/sparse_drive.hpp).
    static constexpr bool all_sparse = list_size<sparse_only_t<required>>::value != 0 && list_size<table_only_t<required>>::value == 0;
};

} // namespace detail

} // namespace ecs
