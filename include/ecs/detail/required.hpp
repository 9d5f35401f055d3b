/**
 * @file ecs/detail/required.hpp
 * @brief The constructing half of required components (component_traits<T>::requires): after a
 *        migration whose destination the archetype graph widened with the requirements of the
 *        added types, the columns nobody supplied a value for are value-initialised here.
 *
 * The destination of an add is `src` + the added types + their requirements that `src` lacked
 * (ArchetypeGraph::add_required). Every column of `dst` that `src` does not have and that the
 * caller did not construct is therefore a requirement: these functions find them by walking both
 * sorted type sets once. Callers test `dst.columns.size()` first, so adds without requirements
 * pay one compare.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include "../archetype.hpp"
#include "../component.hpp"
#include "atomic_slot.hpp"

namespace ecs {
namespace detail {

/// Calls `fn(id)` for every type of `dst` that `src` lacks and `given[0..n)` does not list.
template <typename F>
void for_each_required(const Archetype& src, const Archetype& dst, const ComponentTypeID* given, size_t n, F&& fn) {
    for (const ComponentTypeID id : dst.types) {
        if (src.has(id)) continue;
        bool supplied = false;
        for (size_t i = 0; i < n && !supplied; ++i) supplied = given[i] == id;
        if (!supplied) fn(id);
    }
}

/// Value-initialises, at `row` of `dst`, the components for_each_required names.
inline void construct_required(const Archetype& src, Archetype& dst, uint32_t row, const ComponentTypeID* given, size_t n) {
    for_each_required(src, dst, given, n, [&](ComponentTypeID id) {
        if (component_infos[id].tag) return; // no bytes: the static object stands for every row
        const DefaultConstructFunc make = default_constructors[id].load(detail::order_relaxed);
        if (make != nullptr) make(dst.column(id).at(row)); // required types are default-constructible
    });
}

} // namespace detail
} // namespace ecs
