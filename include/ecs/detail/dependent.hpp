/**
 * @file ecs/detail/dependent.hpp
 * @brief DependentType: a type spelled so that it depends on a template parameter.
 *
 * Internal. Inside a template, a use of a non-dependent type is checked where the template is
 * defined; through DependentType it is checked where the template is instantiated, once the type is
 * complete (World in events.hpp and the hierarchy functions, the standard streams in stream.hpp).
 */
#pragma once

namespace ecs::detail {

/// `U`, spelled so that it depends on `T`.
template <typename T, typename U>
struct DependentType {
    using type = U;
};

/// `S`, spelled as a type that depends on the template parameter `D`.
template <class D, class S>
using Dependent = typename DependentType<D, S>::type;

} // namespace ecs::detail
