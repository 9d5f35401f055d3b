/**
 * @file ecs/construct.hpp
 * @brief `ecs::construct<T>(args...)`: a component value given as its constructor's arguments, so
 *        that `T` is built once, in its final place (a row, a sparse slot), with no temporary and no
 *        move. Accepted wherever a component value is: create_with, add (one or several values),
 *        deferred()/CommandBuffer forms and prefab instantiate overrides.
 *
 * The wrapper holds references to the arguments while the call that receives it runs. Where the
 * value must outlive the call (a recorded command) or where the arguments might live in storage the
 * call is about to grow, the arguments are copied or moved into an owning wrapper first (`owned_t`):
 * the component itself is still built only once, at its final address.
 */
#pragma once

#include <new>
#include <type_traits>
#include <utility>

#include "config.hpp"
#include "detail/value_pack.hpp"

namespace ecs {

namespace detail {
/// Tag: a Construct built from its arguments themselves.
struct FromArguments {};
/// The argument types of a Construct, compared as one type.
template <typename...>
struct ArgTypes {};
} // namespace detail

/// A component `T` given as the arguments of its constructor (build with `ecs::construct<T>`).
/// `Args` are references (`A&&`) for a value used at once, plain types for one that owns its copies.
template <typename T, typename... Args>
struct Construct {
    static_assert(std::is_same_v<T, std::remove_cv_t<std::remove_reference_t<T>>>,
                  "construct<T>: T must be a component type (no cv, no reference)");
    detail::ValuesOf<Args...> args;

    /// The arguments themselves (`construct<T>` passes them; `Args` are then `A&&`).
    template <typename... Vs, typename = std::enable_if_t<sizeof...(Vs) == sizeof...(Args)>>
    explicit Construct(detail::FromArguments, Vs&&... vs) : args(std::forward<Vs>(vs)...) {}
    /// An owning wrapper from a referring one: the arguments are moved (rvalues) or copied.
    template <typename... Bs, typename = std::enable_if_t<sizeof...(Bs) == sizeof...(Args) &&
                                                          !std::is_same_v<detail::ArgTypes<Bs...>, detail::ArgTypes<Args...>>>>
    Construct(Construct<T, Bs...>&& other) // NOLINT: converting by design
        : Construct(std::move(other), std::index_sequence_for<Args...>{}) {}
    template <typename... Bs, typename = std::enable_if_t<sizeof...(Bs) == sizeof...(Args) &&
                                                          !std::is_same_v<detail::ArgTypes<Bs...>, detail::ArgTypes<Args...>>>>
    Construct(const Construct<T, Bs...>& other) // NOLINT: converting by design
        : Construct(other, std::index_sequence_for<Args...>{}) {}

private:
    template <typename... Bs, size_t... Is>
    Construct(Construct<T, Bs...>&& other, std::index_sequence<Is...>)
        : args(static_cast<Bs&&>(other.args.template get<Is>())...) {}
    template <typename... Bs, size_t... Is>
    Construct(const Construct<T, Bs...>& other, std::index_sequence<Is...>) : args(other.args.template get<Is>()...) {}
};

/**
 * @brief `T` built from `args` in its final place: `world.create_with(Position{}, ecs::construct<Path>(a, b))`.
 *        An aggregate is brace-initialised (`T{args...}`) when no constructor takes the arguments.
 *        The arguments are referred to, not copied, until the receiving call builds `T`.
 */
template <typename T, typename... Args>
[[nodiscard]] Construct<T, Args&&...> construct(Args&&... args) noexcept {
    return Construct<T, Args&&...>(detail::FromArguments{}, std::forward<Args>(args)...);
}

namespace detail {

/// What a value argument stands for: the component type, and the type that owns a copy of it.
template <typename V>
struct ValueKind {
    using component = V;
    using owned = V;
    static constexpr bool is_construct = false;
    static constexpr bool nothrow = std::is_nothrow_move_constructible_v<V>;
};
template <typename T, typename... Args>
struct ValueKind<Construct<T, Args...>> {
    using component = T;
    using owned = Construct<T, std::decay_t<Args>...>;
    static constexpr bool is_construct = true;
    static constexpr bool nothrow = std::is_nothrow_constructible_v<T, Args...>;
};

template <typename V>
using plain_value_t = std::remove_cv_t<std::remove_reference_t<V>>;
/// The component type a value argument adds: `T` for `construct<T>(...)`, else the value's type.
template <typename V>
using component_t = typename ValueKind<plain_value_t<V>>::component;
/// A value of the same component that owns everything it refers to (the arguments of a construct).
template <typename V>
using owned_t = typename ValueKind<plain_value_t<V>>::owned;
template <typename V>
inline constexpr bool is_construct_v = ValueKind<plain_value_t<V>>::is_construct;

template <typename C, typename Void, typename... Args>
struct BraceBuildable : std::false_type {};
template <typename C, typename... Args>
struct BraceBuildable<std::void_t<decltype(C{std::declval<Args>()...})>, C, Args...> : std::true_type {};
/// True when `C` can be built from `Args`: by a constructor or by brace-initialisation.
template <typename C, typename... Args>
inline constexpr bool buildable_v = std::is_constructible_v<C, Args&&...> || BraceBuildable<void, C, Args...>::value;

/// `C` built at `at` from `args`: by a constructor when one takes them, else by brace-initialisation.
template <typename C, typename... Args>
ECS_FORCEINLINE C* make_at(void* at, Args&&... args) {
    static_assert(buildable_v<C, Args&&...>, "construct<T>(args...): T is not constructible from the arguments");
    if constexpr (std::is_constructible_v<C, Args&&...>) return ::new (at) C(std::forward<Args>(args)...);
    else return ::new (at) C{std::forward<Args>(args)...};
}

/// A `C` built from `args` and returned (elided into its destination), by constructor or braces.
template <typename C, typename... Args>
C make_value(Args&&... args) {
    static_assert(buildable_v<C, Args&&...>, "construct<T>(args...): T is not constructible from the arguments");
    if constexpr (std::is_constructible_v<C, Args&&...>) return C(std::forward<Args>(args)...);
    else return C{std::forward<Args>(args)...};
}

/// Builds component `C` at `at` from a value argument: moved or copied from a value, built from
/// the arguments of a construct.
template <typename C, typename V>
ECS_FORCEINLINE C* place(void* at, V&& value) {
    if constexpr (is_construct_v<V>) {
        return value.args.apply([at](auto&&... a) { return make_at<C>(at, std::forward<decltype(a)>(a)...); });
    } else {
        return ::new (at) C(std::forward<V>(value));
    }
}

/// Calls `fn(args...)` with a construct's arguments (forwarded), or `fn(value)` for a plain value.
template <typename V, typename Fn>
decltype(auto) with_arguments(V&& value, Fn&& fn) {
    if constexpr (is_construct_v<V>) return value.args.apply(std::forward<Fn>(fn));
    else return std::forward<Fn>(fn)(std::forward<V>(value));
}

/// Destroys `*old` and builds a `C` there from a value argument. A construct's arguments may refer
/// into the old value, so the new value is built before the old one goes (moved in), or, for a `C`
/// that cannot move, built from copies of the arguments taken before.
template <typename C, typename V>
void replace_at(C* old, V&& value) {
    if constexpr (is_construct_v<V>) {
        if constexpr (std::is_move_constructible_v<C>) {
            C local = with_arguments(std::move(value), [](auto&&... a) { return make_value<C>(std::forward<decltype(a)>(a)...); });
            old->~C();
            ::new (static_cast<void*>(old)) C(std::move(local));
        } else {
            typename ValueKind<plain_value_t<V>>::owned copies(std::move(value));
            old->~C();
            place<C>(static_cast<void*>(old), std::move(copies));
        }
    } else {
        if (static_cast<const void*>(old) == static_cast<const void*>(&value)) return; // already in place
        old->~C();
        ::new (static_cast<void*>(old)) C(std::forward<V>(value));
    }
}

/// True when building `C` from the value argument `V` cannot throw.
template <typename C, typename V>
inline constexpr bool nothrow_place_v = is_construct_v<V> ? ValueKind<plain_value_t<V>>::nothrow
                                                          : std::is_nothrow_constructible_v<C, V&&>;

} // namespace detail
} // namespace ecs
