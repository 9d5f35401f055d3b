/**
 * @file ecs/detail/value_pack.hpp
 * @brief `ValuePack`: a fixed list of values of any types (references included), each built in
 *        place, read back by index or handed to a function all at once.
 *
 * Internal. It stands for std::tuple and std::apply in the headers `<ecs/ecs.hpp>` includes: the
 * values a command records, the arguments of `construct<T>(args...)`, the column pointers of a row
 * loop. <tuple> would cost every translation unit about 1,300 more lines to parse; this is the part
 * the library uses.
 */
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace ecs::detail {

/// One value of a ValuePack (the index tells equal types apart).
template <size_t I, typename T>
struct PackValue {
    PackValue() = default;
    template <typename V>
    explicit PackValue(V&& v) : value(std::forward<V>(v)) {}
    T value;
};

/// Values, each constructed in place from the constructor's arguments (in order).
/// `get<I>()` reads one; `apply(f)` calls `f(values&&...)` (moved out), or `f(const values&...)` on
/// a const pack. A reference type `A&&` holds the reference and `apply` forwards it as `A&&`.
template <typename Indices, typename... Ts>
struct ValuePack;
template <size_t... Is, typename... Ts>
struct ValuePack<std::index_sequence<Is...>, Ts...> : PackValue<Is, Ts>... {
    static constexpr size_t size = sizeof...(Ts);

    ValuePack() = default;
    template <typename... Vs,
              typename = std::enable_if_t<sizeof...(Vs) == sizeof...(Ts) && sizeof...(Ts) != 0 &&
                                          !(std::is_same_v<std::remove_cv_t<std::remove_reference_t<Vs>>, ValuePack> || ...)>>
    explicit ValuePack(Vs&&... vs) : PackValue<Is, Ts>(std::forward<Vs>(vs))... {}

    template <size_t I>
    [[nodiscard]] auto& get() noexcept {
        return static_cast<PackValue<I, type_at<I>>&>(*this).value;
    }
    template <size_t I>
    [[nodiscard]] const auto& get() const noexcept {
        return static_cast<const PackValue<I, type_at<I>>&>(*this).value;
    }
    template <typename F>
    decltype(auto) apply(F&& f) {
        return std::forward<F>(f)(static_cast<Ts&&>(static_cast<PackValue<Is, Ts>&>(*this).value)...);
    }
    template <typename F>
    decltype(auto) apply(F&& f) const {
        return std::forward<F>(f)(static_cast<const PackValue<Is, Ts>&>(*this).value...);
    }

private:
    template <size_t I, typename T>
    static T type_of(const PackValue<I, T>*);
    template <size_t I>
    using type_at = decltype(type_of<I>(static_cast<const ValuePack*>(nullptr)));
};
template <typename... Ts>
using ValuesOf = ValuePack<std::index_sequence_for<Ts...>, Ts...>;

} // namespace ecs::detail
