/**
 * @file ecs/reflect.hpp
 * @brief Field reflection: `ECS_REFLECT(Type, field...)` records each field's
 *        name, offset, kind and size, readable as `ecs::fields<T>()` or, from a component id alone,
 *        `ecs::fields(id)`.
 *
 * @code
 * struct Position { float x, y; };
 * ECS_REFLECT(Position, x, y)
 *
 * for (const ecs::FieldInfo& f : ecs::fields<Position>())
 *     std::printf("%.*s at %zu\n", int(f.name.size()), f.name.data(), f.offset);
 * @endcode
 *
 * Where the macro may be written: at namespace scope, after the type's definition and after the
 * ECS_REFLECT of every reflected type it holds, either
 * - in the global namespace (`ECS_REFLECT(Position, x, y)`, `ECS_REFLECT(game::Player, hp)`), or
 * - in the namespace that declares the type (`namespace game { ECS_REFLECT(Player, hp) }`), also an
 *   unnamed one.
 * It defines one inline function found by argument-dependent lookup, so it may not appear in a
 * third namespace, inside a class or inside a function. A type whose name contains a comma (a
 * template specialisation such as `Pair<int, float>`) is reflected through an alias. Write it once
 * per type, in the header that defines the type, so every translation unit sees the same fields.
 * It takes at most 32 fields; `ECS_REFLECT(Tag)` (no fields) marks a type as reflected with none.
 * The type must be standard-layout (fields are located with `offsetof`).
 *
 * Field types: `bool`; every integer type, by width and signedness (plain `char` as int8 or uint8
 * as the platform's char is signed or not); enumerations, as their underlying integer; `float`;
 * `double`; `std::string`; `ecs::Entity`; a type with its own ECS_REFLECT (nested); `std::array<E, N>`
 * and `E[N]` of any of these, arrays of arrays included. Anything else (pointers, references, `const`
 * fields, other containers) stops compilation with a message.
 *
 * Process-wide state in this header: a table from component id to field view, filled during
 * static initialisation by every ECS_REFLECT (one atomic pointer per id, constant-initialised, so it
 * is safe from several threads and from other static initialisers). `fields<T>()` does not depend on
 * it. Types whose component id is at or above ECS_MAX_COMPONENTS are not entered in the table.
 */
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "component.hpp"
#include "detail/atomic_slot.hpp"
#include "entity.hpp"

/// Anchor in the global namespace: it makes argument-dependent lookup search the global namespace for
/// the functions ECS_REFLECT defines there (for types declared in another namespace). Not for users.
struct ecs_reflect_global_scope {};

namespace ecs {

/// What a reflected field holds.
enum class FieldKind : uint8_t {
    boolean, ///< bool
    int8, int16, int32, int64,     ///< signed integers (and enums with such an underlying type)
    uint8, uint16, uint32, uint64, ///< unsigned integers (and enums with such an underlying type)
    float32, ///< float
    float64, ///< double
    string,  ///< std::string
    entity,  ///< ecs::Entity
    nested,  ///< another reflected type: see FieldInfo::nested()
    array,   ///< std::array<E, N> or E[N]: see FieldInfo::element
};

/// Lower-case name of a kind ("bool", "int32", "float64", "string", "entity", "nested", "array").
[[nodiscard]] constexpr std::string_view field_kind_name(FieldKind kind) noexcept {
    switch (kind) {
    case FieldKind::boolean: return "bool";
    case FieldKind::int8: return "int8";
    case FieldKind::int16: return "int16";
    case FieldKind::int32: return "int32";
    case FieldKind::int64: return "int64";
    case FieldKind::uint8: return "uint8";
    case FieldKind::uint16: return "uint16";
    case FieldKind::uint32: return "uint32";
    case FieldKind::uint64: return "uint64";
    case FieldKind::float32: return "float32";
    case FieldKind::float64: return "float64";
    case FieldKind::string: return "string";
    case FieldKind::entity: return "entity";
    case FieldKind::nested: return "nested";
    case FieldKind::array: return "array";
    }
    return "?";
}

class FieldView;

/**
 * @brief One reflected field. For an array, `element` describes one element (name empty, offset 0),
 *        so arrays of arrays are walked the same way; element i lies at `offset + i * element_size`.
 */
struct FieldInfo {
    std::string_view name;          ///< as written in ECS_REFLECT
    size_t offset = 0;              ///< bytes from the start of the enclosing object
    size_t size = 0;                ///< sizeof the field
    FieldKind kind = FieldKind::boolean;
    FieldKind element_kind = FieldKind::boolean; ///< arrays: the element's kind; otherwise `kind`
    size_t element_count = 1;       ///< arrays: N; otherwise 1
    size_t element_size = 0;        ///< arrays: sizeof one element; otherwise `size`
    const FieldInfo* element = nullptr; ///< arrays: the element's description; otherwise nullptr
    /// nested (or array whose innermost element is nested): the nested type's fields; else nullptr.
    FieldView (*nested_fields)() noexcept = nullptr;

    /// Fields of the nested type (also for arrays of nested types); empty for other kinds.
    [[nodiscard]] FieldView nested() const noexcept;
};

/**
 * @brief A read-only view of a type's reflected fields, in declaration order: a pointer and a
 *        count into a table with static storage duration (views stay valid for the whole program
 *        and are cheap to copy). Empty for a type without ECS_REFLECT.
 */
class FieldView {
public:
    constexpr FieldView() noexcept = default;
    constexpr FieldView(const FieldInfo* data, size_t count) noexcept : data_(data), size_(count) {}

    [[nodiscard]] constexpr const FieldInfo* begin() const noexcept { return data_; }
    [[nodiscard]] constexpr const FieldInfo* end() const noexcept { return data_ + size_; }
    [[nodiscard]] constexpr const FieldInfo* data() const noexcept { return data_; }
    [[nodiscard]] constexpr size_t size() const noexcept { return size_; }
    [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }
    /// @pre `i < size()`.
    [[nodiscard]] constexpr const FieldInfo& operator[](size_t i) const noexcept { return data_[i]; }
    /// The field called `name`, or nullptr. O(size()).
    [[nodiscard]] constexpr const FieldInfo* find(std::string_view name) const noexcept;

    /// Views are equal when they describe the same table (the same type), or are both empty.
    [[nodiscard]] friend constexpr bool operator==(FieldView a, FieldView b) noexcept {
        return a.size_ == b.size_ && (a.size_ == 0 || a.data_ == b.data_);
    }
    [[nodiscard]] friend constexpr bool operator!=(FieldView a, FieldView b) noexcept { return !(a == b); }

private:
    const FieldInfo* data_ = nullptr;
    size_t size_ = 0;
};

inline FieldView FieldInfo::nested() const noexcept {
    return nested_fields != nullptr ? nested_fields() : FieldView{};
}

constexpr const FieldInfo* FieldView::find(std::string_view name) const noexcept {
    for (size_t i = 0; i < size_; ++i)
        if (data_[i].name == name) return data_ + i;
    return nullptr;
}

namespace detail {

/// Argument type of the function ECS_REFLECT defines; `Anchor` adds the global namespace to ADL.
template <typename T, typename Anchor>
struct ReflectTag {};

template <typename T>
using reflect_tag_t = ReflectTag<T, ::ecs_reflect_global_scope>;

template <typename T, typename = void>
struct HasReflection : std::false_type {};
template <typename T>
struct HasReflection<T, std::void_t<decltype(ecs_reflect_fields(reflect_tag_t<T>{}))>> : std::true_type {};

template <typename T>
struct ArrayTraits {
    static constexpr bool is_array = false;
};
template <typename E, size_t N>
struct ArrayTraits<E[N]> {
    static constexpr bool is_array = true;
    using element = E;
    static constexpr size_t count = N;
};
template <typename E, size_t N>
struct ArrayTraits<std::array<E, N>> {
    static constexpr bool is_array = true;
    using element = E;
    static constexpr size_t count = N;
};

template <typename T>
constexpr FieldKind integer_kind() noexcept {
    constexpr bool s = std::is_signed_v<T>;
    if constexpr (sizeof(T) == 1) return s ? FieldKind::int8 : FieldKind::uint8;
    else if constexpr (sizeof(T) == 2) return s ? FieldKind::int16 : FieldKind::uint16;
    else if constexpr (sizeof(T) == 4) return s ? FieldKind::int32 : FieldKind::uint32;
    else {
        static_assert(sizeof(T) == 8, "ECS_REFLECT: integer fields wider than 64 bits are not supported");
        return s ? FieldKind::int64 : FieldKind::uint64;
    }
}

template <typename T>
constexpr FieldKind kind_of() noexcept;

template <typename T>
constexpr FieldInfo describe(std::string_view name, size_t offset) noexcept;

/// Description of one array element of type `E` (name empty, offset 0): the target of FieldInfo::element.
template <typename E>
inline constexpr FieldInfo element_info = describe<E>(std::string_view{}, 0);

} // namespace detail

/// True when `T` (cv and references ignored) has an ECS_REFLECT visible here.
template <typename T>
inline constexpr bool is_reflected_v = detail::HasReflection<detail::bare_t<T>>::value;

/// Same as is_reflected_v<T>.
template <typename T>
[[nodiscard]] constexpr bool reflected() noexcept {
    return is_reflected_v<T>;
}

/**
 * @brief The reflected fields of `T` in declaration order; an empty view when `T` has no ECS_REFLECT.
 *        cv-qualifiers and references are ignored. Does not depend on static initialisation order.
 */
template <typename T>
[[nodiscard]] FieldView fields() noexcept {
    using U = detail::bare_t<T>;
    if constexpr (is_reflected_v<U>) return ecs_reflect_fields(detail::reflect_tag_t<U>{});
    else return FieldView{};
}

namespace detail {

template <typename T>
constexpr FieldKind kind_of() noexcept {
    static_assert(!std::is_reference_v<T>, "ECS_REFLECT: reference fields are not supported");
    static_assert(!std::is_const_v<T> && !std::is_volatile_v<T>,
                  "ECS_REFLECT: const or volatile fields are not supported (from_json could not write them)");
    if constexpr (std::is_same_v<T, bool>) return FieldKind::boolean;
    else if constexpr (std::is_enum_v<T>) return integer_kind<std::underlying_type_t<T>>();
    else if constexpr (std::is_integral_v<T>) return integer_kind<T>();
    else if constexpr (std::is_same_v<T, float>) return FieldKind::float32;
    else if constexpr (std::is_same_v<T, double>) return FieldKind::float64;
    else if constexpr (std::is_same_v<T, std::string>) return FieldKind::string;
    else if constexpr (std::is_same_v<T, Entity>) return FieldKind::entity;
    else if constexpr (ArrayTraits<T>::is_array) return FieldKind::array;
    else if constexpr (is_reflected_v<T>) return FieldKind::nested;
    else {
        static_assert(is_reflected_v<T>,
                      "ECS_REFLECT: unsupported field type; supported: bool, integers, enums, float, double, "
                      "std::string, ecs::Entity, types with their own ECS_REFLECT (written before this one), "
                      "and std::array / C arrays of those");
        return FieldKind::nested;
    }
}

/// The function whose address FieldInfo::nested_fields holds for `T` (nullptr when nothing nested).
template <typename T>
constexpr FieldView (*nested_fields_of() noexcept)() noexcept {
    if constexpr (ArrayTraits<T>::is_array) return nested_fields_of<typename ArrayTraits<T>::element>();
    else if constexpr (kind_of<T>() == FieldKind::nested) return &fields<T>;
    else return nullptr;
}

template <typename T>
constexpr FieldInfo describe(std::string_view name, size_t offset) noexcept {
    FieldInfo f;
    f.name = name;
    f.offset = offset;
    f.size = sizeof(T);
    f.kind = kind_of<T>();
    if constexpr (ArrayTraits<T>::is_array) {
        using E = typename ArrayTraits<T>::element;
        static_assert(sizeof(T) == sizeof(E) * ArrayTraits<T>::count, "ECS_REFLECT: array with padding");
        f.element_kind = kind_of<E>();
        f.element_count = ArrayTraits<T>::count;
        f.element_size = sizeof(E);
        f.element = &element_info<E>;
    } else {
        f.element_kind = f.kind;
        f.element_count = 1;
        f.element_size = sizeof(T);
    }
    f.nested_fields = nested_fields_of<T>();
    return f;
}

/// Process-wide table from component id to the fields of its type (nullptr where not reflected).
inline AtomicSlot<FieldView (*)() noexcept> reflected_fields_by_id[ECS_MAX_COMPONENTS] = {};

/// Enters `T` in the table; run once per type during static initialisation (see reflection_registered).
template <typename T>
bool register_reflection() noexcept {
    const ComponentTypeID id = component_id<T>();
    if (id < ECS_MAX_COMPONENTS) reflected_fields_by_id[id].store(&fields<T>, detail::order_release);
    return true;
}

/// Referenced by the function ECS_REFLECT defines, which instantiates it: its dynamic initialisation
/// registers `T` before main (once per program: it is an inline variable).
template <typename T>
inline const bool reflection_registered = register_reflection<T>();

} // namespace detail

namespace detail {
/// Fields of runtime components (runtime.hpp: register_runtime_component with a field
/// layout), by component id: a view with static storage duration, published once.
inline AtomicSlot<const FieldView*> runtime_fields_by_id[ECS_MAX_COMPONENTS] = {};
} // namespace detail

/**
 * @brief The fields of the type whose component id is `id`: equal to `fields<T>()` for a type with
 *        ECS_REFLECT, the layout given to register_runtime_component for a runtime component, an
 *        empty view otherwise (also for ids that name no type). Thread-safe.
 */
[[nodiscard]] inline FieldView fields(ComponentTypeID id) noexcept {
    if (id >= ECS_MAX_COMPONENTS) return FieldView{};
    FieldView (*get)() noexcept = detail::reflected_fields_by_id[id].load(detail::order_acquire);
    if (get != nullptr) return get();
    const FieldView* runtime = detail::runtime_fields_by_id[id].load(detail::order_acquire);
    return runtime != nullptr ? *runtime : FieldView{};
}

/// True when the type whose component id is `id` has an ECS_REFLECT (possibly with no fields), or
/// is a runtime component registered with a field layout.
[[nodiscard]] inline bool reflected(ComponentTypeID id) noexcept {
    return id < ECS_MAX_COMPONENTS && (detail::reflected_fields_by_id[id].load(detail::order_acquire) != nullptr ||
                                       detail::runtime_fields_by_id[id].load(detail::order_acquire) != nullptr);
}

} // namespace ecs

// ---------------------------------------------------------------------------------------------------
// ECS_REFLECT(Type, field...): see the file comment. The machinery counts the arguments (type
// included, 1..33) and applies ECS_DETAIL_REFLECT_FIELD to each field name.
// ---------------------------------------------------------------------------------------------------

#define ECS_DETAIL_EXPAND(x) x
#define ECS_DETAIL_CAT(a, b) ECS_DETAIL_CAT_(a, b)
#define ECS_DETAIL_CAT_(a, b) a##b
#define ECS_DETAIL_FIRST(...) ECS_DETAIL_EXPAND(ECS_DETAIL_FIRST_(__VA_ARGS__, unused))
#define ECS_DETAIL_FIRST_(first, ...) first
#define ECS_DETAIL_COUNT(...)                                                                       \
    ECS_DETAIL_EXPAND(ECS_DETAIL_COUNT_(__VA_ARGS__, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, \
                                        20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0))
#define ECS_DETAIL_COUNT_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, \
                          a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31, a32,  \
                          a33, n, ...)                                                                \
    n

/// One table entry; `ecs_reflect_type` is the alias ECS_REFLECT's function declares.
#define ECS_DETAIL_REFLECT_FIELD(field)                                                                  \
    ::ecs::detail::describe<decltype(ecs_reflect_type::field)>(#field, offsetof(ecs_reflect_type, field)),

// ECS_DETAIL_FIELDS_<n>(Type, f1, ..., f(n-1)): one entry per field (the type itself is skipped).
#define ECS_DETAIL_FIELDS_1(t)
#define ECS_DETAIL_FIELDS_2(t, f) ECS_DETAIL_REFLECT_FIELD(f)
#define ECS_DETAIL_FIELDS_3(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_2(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_4(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_3(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_5(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_4(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_6(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_5(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_7(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_6(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_8(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_7(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_9(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_8(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_10(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_9(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_11(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_10(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_12(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_11(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_13(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_12(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_14(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_13(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_15(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_14(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_16(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_15(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_17(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_16(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_18(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_17(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_19(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_18(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_20(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_19(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_21(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_20(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_22(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_21(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_23(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_22(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_24(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_23(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_25(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_24(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_26(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_25(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_27(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_26(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_28(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_27(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_29(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_28(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_30(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_29(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_31(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_30(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_32(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_31(t, __VA_ARGS__))
#define ECS_DETAIL_FIELDS_33(t, f, ...) ECS_DETAIL_REFLECT_FIELD(f) ECS_DETAIL_EXPAND(ECS_DETAIL_FIELDS_32(t, __VA_ARGS__))

/**
 * @brief Reflects `Type`'s fields: `ECS_REFLECT(Position, x, y)`. At namespace scope (see the file
 *        comment for which namespaces); a trailing semicolon is optional. Up to 32 fields.
 *
 * Defines `ecs_reflect_fields(ecs::detail::ReflectTag<Type, ...>)`, an inline function holding the
 * constant table of FieldInfo (plus an empty sentinel entry, so a type with no fields is valid C++),
 * and instantiates ecs::detail::reflection_registered<Type>, which enters the type in the component
 * id table during static initialisation.
 */
#define ECS_REFLECT(...) ECS_DETAIL_EXPAND(ECS_DETAIL_REFLECT(ECS_DETAIL_FIRST(__VA_ARGS__), __VA_ARGS__))
#define ECS_DETAIL_REFLECT(Type, ...)                                                                   \
    static_assert(::std::is_class_v<Type>, "ECS_REFLECT: the first argument must be a class type");     \
    static_assert(::std::is_standard_layout_v<Type>,                                                    \
                  "ECS_REFLECT: the type must be standard-layout (its fields are located with offsetof)"); \
    inline ::ecs::FieldView ecs_reflect_fields(::ecs::detail::reflect_tag_t<Type>) noexcept {           \
        using ecs_reflect_type = Type;                                                                  \
        static constexpr ::ecs::FieldInfo table[] = {ECS_DETAIL_EXPAND(                                 \
            ECS_DETAIL_CAT(ECS_DETAIL_FIELDS_, ECS_DETAIL_COUNT(__VA_ARGS__))(__VA_ARGS__))::ecs::FieldInfo{}}; \
        static_cast<void>(::ecs::detail::reflection_registered<ecs_reflect_type>);                      \
        return ::ecs::FieldView(table, sizeof(table) / sizeof(table[0]) - 1);                           \
    }
