/**
 * @file ecs/world/queries.hpp
 * @brief World::count, single, each, each_no_entity, query, each_par and sort: the World side of the query engine.
 *
 * Each call finds (or builds) the cached archetype list of its terms and filters in the query engine
 * (query.hpp) and runs the row loops over it inside an iteration scope.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../detail/algorithms.hpp"
#include "../detail/pod_array.hpp"
#include "world_class.hpp"

namespace ecs {

template <typename T, typename... Ts>
inline size_t World::count() const {
    const detail::QueryCache& q = cache_of<detail::TypeList<T, Ts...>, detail::TypeList<>>();
    size_t n = 0;
    if (q.sparse_driven) return detail::count_driven(graph_, q, *this, 0); // every type sparse: the smallest set's members
    detail::for_each_match(graph_, q, [&](Archetype&, size_t, size_t k, uint64_t) { n += k; }); // per row
    return n;
}

template <typename... Ts, typename Func>
inline void World::single(Func&& fn) {
    detail::QueryCache& q = cache_of<detail::TypeList<Ts...>, detail::TypeList<>>();
    size_t n = 0;
    Archetype* found = nullptr;
    size_t row = 0;
    if (q.sparse_driven) { // every required type sparse: the smallest set's members
        detail::for_each_driven(graph_, q, *this, 0, [&](Entity e, const EntityRecord*) {
            if (found == nullptr) {
                found = entities_[e.index].archetype;
                row = entities_[e.index].row;
            }
            ++n;
        });
    } else {
        detail::for_each_match(graph_, q, [&](Archetype& a, size_t begin, size_t k, uint64_t) {
            if (found == nullptr) {
                found = &a;
                row = begin;
            }
            n += k;
        });
    }
    if (!ECS_CHECK(n == 1, detail::pack_message<Ts...>(n == 0 ? "World::single: expected exactly one matching entity, found none"
                                                                 : "World::single: expected exactly one matching entity, found several"))) return;
    if (!detail::terms_access_ok<Ts...>()) return;
    detail::IterationScope scope(queries_.scope_depth());
    if (ECS_UNLIKELY(found->ticks.active())) detail::touch_terms<Ts...>(*found, row, 1);
    const Entity e = found->entities[row];
    fn(e, detail::term_fetch<Ts>(detail::term_source<Ts>(*found, row, false, graph_.sparse(), this), 0, e.index)...);
}

template <typename... Terms, typename... Args>
inline void World::each(Args&&... args) {
    each_impl<0, Terms...>(detail::init_t<Args...>{}, detail::last_arg(args...), args...);
}

template <typename... Terms, typename... Args>
inline void World::each(Args&&... args) const {
    static_assert(detail::QueryCheck<detail::TypeList<Terms...>, detail::TypeList<>>::read_only,
                  "World::each on a const World: every term must be const T or Optional<const T>");
    const_cast<World*>(this)->each_impl<0, Terms...>(detail::init_t<Args...>{}, detail::last_arg(args...), args...);
}

template <typename... Terms, typename... Args>
inline void World::each_no_entity(Args&&... args) {
    each_impl<1, Terms...>(detail::init_t<Args...>{}, detail::last_arg(args...), args...);
}

template <typename... Terms, typename... Filters>
inline Query<Terms...> World::query(Filters... filters) {
    using Check = detail::QueryCheck<detail::TypeList<Terms...>, detail::TypeList<Filters...>>;
    static_assert(Check::check(), "ecs query check");
    return Query<Terms...>(queries_, graph_, cache_of<detail::TypeList<Terms...>, detail::TypeList<Filters...>>(), this,
                           detail::filter_values(filters...)); // Related<R>{target}, Cascade<R>
}

template <typename... Terms, typename... Args>
inline void World::each_par(Executor& executor, Args&&... args) {
    using Check = detail::QueryCheck<detail::TypeList<Terms...>, detail::init_t<Args...>>;
    static_assert(Check::check(), "ecs query check");
    static_assert(!Check::change_filtered, "World::each_par: Changed/Added filters need a query handle's each");
    detail::EachParRunner<Terms...>::run_world(*this, executor, detail::init_t<Args...>{}, detail::last_arg(args...),
                                               args...);
}

template <typename T, typename Compare>
inline void World::sort(Compare&& cmp) {
    using C = detail::bare_t<T>;
    static_assert(!detail::is_sparse_v<C>, "World::sort<T>: T is stored sparse (it has no column to sort by)");
    if (!ECS_CHECK(!iterating(), "World::sort: called during iteration")) return;
    if constexpr (!detail::is_tag_v<C>) {
        std::vector<uint32_t> order;
        std::vector<uint32_t> scratch; // the merge buffer
        detail::PodArray<uint8_t> placed;
        for (Archetype* arch : cache_of<detail::TypeList<C>, detail::TypeList<>>().archetypes) {
            const size_t n = arch->size();
            if (n < 2) continue;
            const C* values = column_data<const C>(*arch);
            order.resize(n);
            scratch.resize(n);
            for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32_t>(i);
            auto less = [&](uint32_t a, uint32_t b) { return cmp(values[a], values[b]); };
            detail::stable_sort_with_buffer(order.data(), n, scratch.data(), less);
            arch->permute(order, placed);
            for (size_t row = 0; row < n; ++row) entities_[arch->entities[row].index].row = static_cast<uint32_t>(row);
            entities_.bump(); // the rows moved: a copy of this world no longer holds this order
        }
    } else {
        (void)cmp;
    }
}

template <typename TermList, typename FilterList>
inline detail::QueryCache& World::cache_of() const {
    return queries_.cache<TermList, FilterList>(graph_);
}

template <int NoEntity, typename... Terms, typename... Filters, typename Func, typename... Args>
inline void World::each_impl(detail::TypeList<Filters...>, Func& fn, const Args&... args) {
    using Check = detail::QueryCheck<detail::TypeList<Terms...>, detail::TypeList<Filters...>>;
    static_assert(Check::check(), "ecs query check");
    static_assert(!Check::change_filtered, "World::each: Changed<...>/Added<...> filters need a handle that remembers its "
                                           "previous run: use world.query<...>(ecs::Changed<T>{}).each(fn)");
    constexpr bool with_entity = NoEntity == 0 && detail::takes_entity<Func, Terms...>();
    if (!detail::terms_access_ok<Terms...>()) return;
    detail::QueryCache& q = cache_of<detail::TypeList<Terms...>, detail::TypeList<Filters...>>();
    if constexpr (Check::valued) { // Related<R>{target}, Cascade<R>: their values reach the run
        const detail::FilterValues values = detail::filter_values(args...);
        if (values.active) return detail::run_valued<with_entity, Terms...>(*this, graph_, q, values, queries_.scope_depth(), fn);
    } else {
        ((void)args, ...);
    }
    detail::run_query<with_entity, Terms...>(graph_, q, queries_.scope_depth(), this, fn, std::bool_constant<Check::has_sparse>{});
}

} // namespace ecs
