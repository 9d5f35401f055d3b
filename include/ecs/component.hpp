/**
 * @file ecs/component.hpp
 * @brief Component type identity and type-erased column storage.
 *
 * Any C++ type that is move-constructible and destructible can be a component: no base class, no
 * registration macro, no RTTI. `component_id<T>()` hands out a dense id per type on first use, and
 * `make_column<T>()` captures the operations the world needs (move, destroy, swap) as plain function
 * pointers, so archetype code manipulates columns without knowing their types and without virtual
 * dispatch.
 *
 * Process-wide state in this header (shared by every World, safe to use from several threads):
 * the id counter and the column factory registry. Both are lock-free.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iosfwd>
#include <new>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "config.hpp"
#include "construct.hpp"
#include "detail/algorithms.hpp"
#include "detail/atomic_slot.hpp"

namespace ecs {

/// Dense id of a component type; see component_id().
using ComponentTypeID = uint32_t;

/// Returned by lookups that find no component type.
inline constexpr ComponentTypeID INVALID_COMPONENT_ID = 0xFFFFFFFFu;

/**
 * @brief Where a component type's values live.
 *
 * - `table`: in the archetype's columns (the default): fastest iteration; adding or removing the
 *   type moves the entity to another archetype.
 * - `sparse`: in a per-type sparse set (ecs/sparse.hpp): adding or removing never moves the entity
 *   (its archetype, row and other components stay where they are), and the value's address is stable
 *   until it is removed or the entity destroyed. Iteration fetches it per row.
 */
enum class Storage : uint8_t { table, sparse };

/**
 * @brief Required components: `template <> struct ecs::component_traits<RigidBody> { using requires =
 *        ecs::Requires<Position, Velocity>; };` (C++17; `using required = ...` works in every
 *        language version, `requires` being a keyword from C++20 on).
 *
 * Adding the requirer (add, multi-type add, emplace, create_with, raw add, prefabs, deferred
 * commands, bulk add) also adds each required type the entity lacks, value-initialised, in the SAME
 * migration (the archetype graph puts them in the destination); present values are kept. It is
 * transitive (a required type's own requirements follow) and a cycle is a compile error. Removing a
 * required component leaves the requirer in place. Required types must be table-stored and
 * default-constructible; a sparse type cannot require others (both checked at compile time).
 */
template <typename... Ts>
struct Requires {};

/**
 * @brief Per-type options. Specialise it to choose sparse storage:
 *        `template <> struct ecs::component_traits<Poisoned> { static constexpr ecs::Storage storage = ecs::Storage::sparse; };`
 *        The specialisation must be visible wherever the type is used as a component.
 */
template <typename T>
struct component_traits {
    static constexpr Storage storage = Storage::table;
};

namespace detail {

inline AtomicSlot<uint32_t> next_component_id{0};

inline constexpr uint32_t UNASSIGNED_ID = 0xFFFFFFFFu;

/// Per-type id slot, constant-initialised (no guard variable to test on every lookup).
template <typename T>
struct TypeIdSlot {
    static inline AtomicSlot<uint32_t> id{UNASSIGNED_ID};
};

/// First use of a type: takes the next id; compare-exchange keeps one id per type when threads race.
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline, cold))
#endif
inline uint32_t assign_type_id(AtomicSlot<uint32_t>& slot) noexcept {
    uint32_t expected = UNASSIGNED_ID;
    const uint32_t fresh = next_component_id.fetch_add(1, detail::order_relaxed);
    if (slot.compare_exchange_strong(expected, fresh, detail::order_relaxed)) return fresh;
    return expected; // another thread won; `fresh` stays unused
}

template <typename T>
ECS_FORCEINLINE ComponentTypeID type_id() noexcept {
    const uint32_t id = TypeIdSlot<T>::id.load(detail::order_relaxed);
    if (ECS_LIKELY(id != UNASSIGNED_ID)) return id;
    return assign_type_id(TypeIdSlot<T>::id);
}

/// The plain type a query, getter or id lookup is about: `const Position&` names `Position`.
template <typename T>
using bare_t = std::remove_cv_t<std::remove_reference_t<T>>;

/// component_traits<T>::storage, or table when the specialisation names none (one that only
/// names requirements, say).
template <typename T, typename = void>
struct StorageOf {
    static constexpr Storage value = Storage::table;
};
template <typename T>
struct StorageOf<T, std::void_t<decltype(component_traits<T>::storage)>> {
    static constexpr Storage value = component_traits<T>::storage;
};

/// True when `T` (cv and references ignored) is stored sparse (component_traits).
template <typename T>
inline constexpr bool is_sparse_v = StorageOf<bare_t<T>>::value == Storage::sparse;

/**
 * Empty types whose move and destruction do nothing are stored without bytes: their column has
 * stride 0 and every row refers to one static object. Empty types with user-written special
 * members keep a one-byte-per-row column so every constructor call is matched by its destructor.
 */
template <typename T>
inline constexpr bool is_tag_v = std::is_empty_v<T> && std::is_trivially_destructible_v<T> &&
                                 std::is_trivially_move_constructible_v<T>;

/// The single address every row of a tag column refers to.
template <typename T>
struct TagStorage {
    alignas(T) static inline unsigned char bytes[sizeof(T)] = {};
};

/// Builds a `T` at `dst` from `src`, which the caller destroys next: moved, or copied for a type
/// that deletes its move constructor (rows relocate on migration, growth and swap-removal).
template <typename T>
ECS_FORCEINLINE void relocate_construct(void* dst, T& src) {
    if constexpr (std::is_move_constructible_v<T>) ::new (dst) T(std::move(src));
    else ::new (dst) T(static_cast<const T&>(src));
}

template <typename T>
void swap_via_moves(T& a, T& b) noexcept {
    if constexpr (std::is_move_assignable_v<T> && std::is_swappable_v<T>) {
        using std::swap;
        swap(a, b);
    } else {
        // Types without move assignment are swapped through (move or copy) construction alone.
        alignas(T) unsigned char tmp_bytes[sizeof(T)] = {}; // zeroed: quiets a g++ -O2 false positive
        relocate_construct<T>(tmp_bytes, a);
        T* tmp = std::launder(reinterpret_cast<T*>(tmp_bytes));
        a.~T();
        relocate_construct<T>(&a, b);
        b.~T();
        relocate_construct<T>(&b, *tmp);
        tmp->~T();
    }
}

/// Containers report a copy constructor whatever their elements (`std::vector<std::unique_ptr<X>>`
/// says it is copy-constructible, then fails to compile when copied): look at `value_type` too.
template <typename T, typename = void>
struct is_copyable : std::is_copy_constructible<T> {};
template <typename T>
struct is_copyable<T, std::void_t<typename T::value_type>>
    : std::conjunction<std::is_copy_constructible<T>,
                       std::disjunction<std::is_same<typename T::value_type, T>, is_copyable<typename T::value_type>>> {};
template <typename A, typename B>
struct is_copyable<std::pair<A, B>> : std::conjunction<is_copyable<A>, is_copyable<B>> {}; // map elements
/// True when World::clone can copy a `T` (copy-constructible, elements of containers included).
template <typename T>
inline constexpr bool is_copyable_v = is_copyable<T>::value;

} // namespace detail

/**
 * @brief Unique id of component type `T`, assigned on first call from a process-wide counter.
 *
 * cv-qualifiers and references are ignored: `component_id<const T&>() == component_id<T>()`. Ids are
 * deterministic for one run of one program but not stable across builds: serialization uses names
 * (register_component) instead.
 */
template <typename T>
[[nodiscard]] ComponentTypeID component_id() noexcept {
    return detail::type_id<detail::bare_t<T>>();
}

/**
 * @brief Type-erased storage of one component type inside an archetype.
 *
 * A non-owning view of a region of the archetype's block (the archetype allocates, grows and frees
 * the block). The function pointers are captured from the concrete type by make_column<T>().
 */
struct ComponentColumn {
    /// Move-constructs the object at `dst` (uninitialised) from the one at `src`; `src` stays alive
    /// (moved-from) and must still be destroyed.
    using MoveFunc = void (*)(void* dst, void* src);
    /// Runs the destructor of the object at `p`.
    using DestroyFunc = void (*)(void* p);
    /// Swaps two live objects.
    using SwapFunc = void (*)(void* a, void* b);
    /// Copy-constructs the object at `dst` (uninitialised) from the one at `src` (World::clone).
    using CopyFunc = void (*)(void* dst, const void* src);
    /// Writes one component to a snapshot stream.
    using SerializeFunc = void (*)(std::ostream& out, const void* component);
    /// Constructs one component in uninitialised `storage` from a snapshot stream; reports malformed
    /// input by setting the stream's failbit (and then constructs nothing).
    using DeserializeFunc = void (*)(std::istream& in, void* storage);

    // Hot fields first: migration and swap-remove read only these (one cache line per column).
    uint8_t* data = nullptr;          ///< first element; for tags, the type's single static object
    size_t elem_size = 0;             ///< stride in bytes (0 for tags)
    ComponentTypeID type_id = INVALID_COMPONENT_ID;
    bool trivially_relocatable = false; ///< moves may be memcpy and destruction is a no-op
    bool is_tag = false;                ///< stored without bytes (see detail::is_tag_v)
    MoveFunc move = nullptr;
    DestroyFunc destroy = nullptr;
    SwapFunc swap = nullptr;
    size_t elem_align = 1;            ///< alignof(T)
    size_t type_size = 0;             ///< sizeof(T) (differs from elem_size only for tags)
    CopyFunc copy = nullptr;          ///< nullptr when T is not copy-constructible (detail::is_copyable_v)

    /// Address of row `row`.
    [[nodiscard]] void* at(size_t row) const noexcept { return data + row * elem_size; }

    /// Moves the object at `src` into uninitialised `dst` and ends the life of `src`.
    void relocate(void* dst, void* src) const noexcept {
        if (trivially_relocatable) {
            copy_bytes(dst, src, elem_size);
        } else {
            move(dst, src);
            destroy(src);
        }
    }
    /// memcpy of one element, with the common strides spelled out so the compiler inlines them. An
    /// ordinary branch chain, most common stride first: a jump table's indirect jump costs a
    /// migration more than the copies (measured: add + remove of an 8-byte component ~10% slower).
    static ECS_FORCEINLINE void copy_bytes(void* dst, const void* src, size_t n) noexcept {
        if (ECS_LIKELY(n == 8)) std::memcpy(dst, src, 8);
        else if (n == 4) std::memcpy(dst, src, 4);
        else if (n == 16) std::memcpy(dst, src, 16);
        else if (n == 12) std::memcpy(dst, src, 12);
        else if (n != 0) std::memcpy(dst, src, n);
    }

    /// Runs the destructor at `p` unless the type has nothing to destroy.
    void destroy_at(void* p) const noexcept {
        if (!trivially_relocatable) destroy(p);
    }
};

/// Builds a column descriptor for `T` (no storage attached).
template <typename T>
[[nodiscard]] ComponentColumn make_column() noexcept {
    static_assert(std::is_same_v<T, detail::bare_t<T>>, "component type must not be cv-qualified or a reference");
    static_assert(!std::is_array_v<T>, "component type must not be a C array: wrap it in a struct");
    static_assert(std::is_move_constructible_v<T> || std::is_copy_constructible_v<T>,
                  "component must be move- or copy-constructible: rows relocate");
    static_assert(std::is_destructible_v<T>, "component must be destructible");
    ComponentColumn c;
    c.type_id = component_id<T>();
    c.elem_align = alignof(T);
    c.type_size = sizeof(T);
    c.is_tag = detail::is_tag_v<T>;
    c.elem_size = c.is_tag ? 0 : sizeof(T);
    if (c.is_tag) c.data = detail::TagStorage<T>::bytes;
    c.trivially_relocatable = std::is_trivially_copyable_v<T> || c.is_tag;
    c.move = [](void* dst, void* src) { detail::relocate_construct<T>(dst, *static_cast<T*>(src)); };
    c.destroy = [](void* p) { static_cast<T*>(p)->~T(); };
    c.swap = [](void* a, void* b) { detail::swap_via_moves(*static_cast<T*>(a), *static_cast<T*>(b)); };
    if constexpr (detail::is_copyable_v<T>)
        c.copy = [](void* dst, const void* src) { ::new (dst) T(*static_cast<const T*>(src)); };
    return c;
}

// -------------------------------------------------------------------------------------------------
// Introspection: type names without RTTI, and what the library knows of each type
// -------------------------------------------------------------------------------------------------

namespace detail {

template <typename T>
constexpr std::string_view raw_type_name() noexcept {
#if defined(__clang__) || defined(__GNUC__)
    return __PRETTY_FUNCTION__; // "... [with T = Position; ...]" (g++) or "... [T = Position]" (clang++)
#else
    return __FUNCSIG__;         // "... raw_type_name<struct Position>(void) noexcept"
#endif
}

/// The type's spelling cut out of raw_type_name's signature, without a leading anonymous namespace.
constexpr std::string_view trim_type_name(std::string_view s) noexcept {
#if defined(__clang__) || defined(__GNUC__)
    size_t begin = s.find("T = ");
    if (begin == std::string_view::npos) return s;
    begin += 4;
    size_t end = s.find(';', begin);
    if (end == std::string_view::npos) end = s.rfind(']');
#else
    size_t begin = s.find("raw_type_name<");
    if (begin == std::string_view::npos) return s;
    begin += 14;
    const size_t end = s.rfind(">(");
    for (std::string_view kw : {std::string_view("struct "), std::string_view("class "), std::string_view("enum ")})
        if (s.substr(begin, kw.size()) == kw) begin += kw.size();
#endif
    s = s.substr(begin, end - begin);
    for (std::string_view anon : {std::string_view("{anonymous}::"), std::string_view("(anonymous namespace)::"),
                                  std::string_view("`anonymous namespace'::")})
        if (s.substr(0, anon.size()) == anon) s.remove_prefix(anon.size());
    return s;
}

template <typename T>
inline constexpr std::string_view type_name_v = trim_type_name(raw_type_name<T>());

} // namespace detail

/**
 * @brief The name of `T` as the compiler spells it (no RTTI): `"Position"`, `"game::Player"`,
 *        `"std::vector<int>"`. A leading anonymous namespace is left out. The text depends on the
 *        compiler (g++ and clang++ differ in spacing inside template arguments): use it for messages
 *        and tools, and register_component names for anything stored.
 */
template <typename T>
[[nodiscard]] constexpr std::string_view type_name() noexcept {
    return detail::type_name_v<T>;
}

/**
 * @brief What the library knows of one component type.
 *
 * `name` is the name given to register_component when there is one, else type_name<T>(); it is
 * empty for an id never used as a component (nor registered).
 */
struct ComponentInfo {
    std::string_view name;
    size_t size = 0;  ///< sizeof(T)
    size_t align = 0; ///< alignof(T)
    ComponentTypeID id = INVALID_COMPONENT_ID;
    bool tag = false;                ///< stored without bytes (an empty type with trivial members)
    bool trivially_copyable = false; ///< moved and snapshotted as plain bytes
    bool sparse = false;             ///< Storage::sparse (component_traits)
};

namespace detail {
/// One entry per component id, written when the type first becomes a component (its column factory
/// is recorded) and when a name is registered; never removed.
inline ComponentInfo component_infos[ECS_MAX_COMPONENTS] = {};

/// Sets the registered name of `id` (serialization's register_component). `name` must outlive the
/// program's use of it (the name registry never frees its entries).
inline void set_component_name(ComponentTypeID id, std::string_view name) noexcept {
    if (id < ECS_MAX_COMPONENTS) component_infos[id].name = name;
}
} // namespace detail

/**
 * @brief What is known of the component type with id `id`: name, size, alignment.
 * @pre `id < ECS_MAX_COMPONENTS` (asserted; an empty info is returned otherwise).
 */
[[nodiscard]] inline const ComponentInfo& component_info(ComponentTypeID id) noexcept {
    static const ComponentInfo unknown{};
    if (!ECS_CHECK(id < ECS_MAX_COMPONENTS, "ecs::component_info: id out of range")) return unknown;
    return detail::component_infos[id];
}

/// Signature of an entry of the column factory registry.
using ColumnFactory = ComponentColumn (*)() noexcept;

namespace detail {
inline AtomicSlot<ColumnFactory> column_factories[ECS_MAX_COMPONENTS] = {};

/// Value-initialises a component in uninitialised storage (World::add_raw with no value).
using DefaultConstructFunc = void (*)(void* storage);
/// Per component id: how to value-initialise one, or nullptr (not default-constructible).
/// Typed components are entered by ensure_column_factory, runtime ones by register_runtime_component.
inline AtomicSlot<DefaultConstructFunc> default_constructors[ECS_MAX_COMPONENTS] = {};

template <typename T>
void value_initialise(void* storage) {
    ::new (storage) T();
}
} // namespace detail

namespace detail {
/// The transitive requirements of one component id, sorted and without duplicates.
struct RequiredList {
    const ComponentTypeID* ids = nullptr;
    size_t count = 0;
};
/// Per component id: its requirements (component_traits<T>::requires), or nullptr. Written once by
/// ensure_column_factory<T>, before any archetype can hold the type.
inline AtomicSlot<const RequiredList*> required_lists[ECS_MAX_COMPONENTS] = {};

/// The requirements of `id`; empty when it has none.
[[nodiscard]] inline RequiredList required_of(ComponentTypeID id) noexcept {
    if (id >= ECS_MAX_COMPONENTS) return {};
    const RequiredList* list = required_lists[id].load(detail::order_acquire);
    return list != nullptr ? *list : RequiredList{};
}

/// Inserts into the sorted type set `types` every requirement of `id` it lacks.
inline void widen_by_required(std::vector<ComponentTypeID>& types, ComponentTypeID id) {
    const RequiredList req = required_of(id);
    for (size_t i = 0; i < req.count; ++i) {
        auto at = upper_bound_value(types.begin(), types.end(), req.ids[i]);
        if (at != types.begin() && *(at - 1) == req.ids[i]) continue;
        insert_at(types, static_cast<size_t>(at - types.begin()), req.ids[i]);
    }
}
using WidenFunc = void (*)(std::vector<ComponentTypeID>& types, ComponentTypeID id);
/// widen_by_required, stored by the first type that has requirements (ensure_column_factory). The
/// archetype graph calls it through here, so a program whose types require nothing never compiles it.
inline AtomicSlot<WidenFunc> widen_required{nullptr};

template <typename... Ts>
struct RequireList {};

/// The direct requirements of T: component_traits<T>::required, else ::requires (C++17), else none.
/// Two primary templates: compilers may treat two void_t partial specialisations of one template as
/// the same one.
template <typename T, typename = void>
struct KeywordRequires {
    using type = RequireList<>;
};
#if __cplusplus < 202002L
template <typename T>
struct KeywordRequires<T, std::void_t<typename component_traits<T>::requires>> {
    using type = typename component_traits<T>::requires;
};
#endif
template <typename T, typename = void>
struct DirectRequires {
    using type = typename KeywordRequires<T>::type;
};
template <typename T>
struct DirectRequires<T, std::void_t<typename component_traits<T>::required>> {
    using type = typename component_traits<T>::required;
};
template <typename T>
inline constexpr bool has_requires_v = !std::is_same_v<typename DirectRequires<T>::type, RequireList<>> &&
                                       !std::is_same_v<typename DirectRequires<T>::type, Requires<>>;

template <typename T, typename... Path>
inline constexpr bool on_path_v = (std::is_same_v<T, Path> || ...);

/// Flattens the requirement graph under T depth first (duplicates kept; the registry dedups).
/// `Path` is the chain that led here: meeting a type of it again is a cycle.
template <typename Path, typename Reqs>
struct ExpandRequires;
template <typename... Path, typename... Rs>
struct ExpandRequires<RequireList<Path...>, Requires<Rs...>> {
    template <typename R>
    static constexpr auto one() {
        static_assert(!on_path_v<R, Path...>, "ecs::Requires: the required components form a cycle");
        static_assert(std::is_default_constructible_v<R>, "ecs::Requires: a required component must be default-constructible");
        static_assert(StorageOf<R>::value == Storage::table, "ecs::Requires: a required component must be table-stored");
        if constexpr (on_path_v<R, Path...>) return RequireList<>{};
        else return concat(RequireList<R>{}, ExpandRequires<RequireList<Path..., R>, typename DirectRequires<R>::type>::list());
    }
    template <typename... As, typename... Bs>
    static constexpr auto concat(RequireList<As...>, RequireList<Bs...>) {
        return RequireList<As..., Bs...>{};
    }
    template <typename... As, typename... Bs, typename... Cs>
    static constexpr auto concat(RequireList<As...> a, RequireList<Bs...> b, Cs... rest) {
        return concat(concat(a, b), rest...);
    }
    static constexpr auto list() {
        if constexpr (sizeof...(Rs) == 0) return RequireList<>{};
        else return concat(one<Rs>()..., RequireList<>{});
    }
};
template <typename... Path>
struct ExpandRequires<RequireList<Path...>, RequireList<>> {
    static constexpr auto list() { return RequireList<>{}; }
};

template <typename T>
const RequiredList* make_required_list();
} // namespace detail

/**
 * @brief Records make_column<T> in the process-wide factory registry (idempotent, thread-safe), so
 *        archetypes holding `T` can be built from its id alone (migration, snapshots).
 * @return component_id<T>().
 */
template <typename T>
ComponentTypeID ensure_column_factory() noexcept {
    // Registered once per type (thread-safe static initialisation); later calls cost a guard check.
    static const ComponentTypeID id = [] {
        const ComponentTypeID tid = component_id<T>();
        if (tid < ECS_MAX_COMPONENTS) {
            ComponentInfo& info = detail::component_infos[tid];
            if (info.name.empty()) info.name = type_name<T>();
            info.size = sizeof(T);
            info.align = alignof(T);
            info.id = tid;
            info.tag = detail::is_tag_v<T>;
            info.trivially_copyable = std::is_trivially_copyable_v<T>;
            if constexpr (std::is_default_constructible_v<T>) // World::add_raw(e, id, nullptr)
                detail::default_constructors[tid].store(&detail::value_initialise<T>, detail::order_relaxed);
            info.sparse = detail::is_sparse_v<T>;
            if constexpr (detail::has_requires_v<T>) {
                static_assert(!detail::is_sparse_v<T>, "ecs::Requires: a sparse component cannot require others");
                detail::widen_required.store(&detail::widen_by_required, detail::order_release);
                detail::required_lists[tid].store(detail::make_required_list<T>(), detail::order_release);
            }
            detail::column_factories[tid].store(&make_column<T>, detail::order_release);
        }
        return tid;
    }();
    return id;
}

namespace detail {
template <typename... Rs>
const RequiredList* required_list_of(RequireList<Rs...>) {
    static const ComponentTypeID raw[sizeof...(Rs) + 1] = {ensure_column_factory<Rs>()..., INVALID_COMPONENT_ID};
    static ComponentTypeID ids[sizeof...(Rs) + 1] = {};
    static const RequiredList list = [] {
        size_t n = 0;
        for (size_t i = 0; i < sizeof...(Rs); ++i) {
            bool seen = false;
            for (size_t j = 0; j < n; ++j) seen = seen || ids[j] == raw[i];
            if (!seen) ids[n++] = raw[i];
        }
        for (size_t i = 1; i < n; ++i) // insertion sort: a handful of ids
            for (size_t j = i; j > 0 && ids[j - 1] > ids[j]; --j) {
                const ComponentTypeID t = ids[j];
                ids[j] = ids[j - 1];
                ids[j - 1] = t;
            }
        return RequiredList{ids, n};
    }();
    return &list;
}
/// The registry entry of T: its requirements, closed transitively, each registered as a component.
template <typename T>
const RequiredList* make_required_list() {
    return required_list_of(ExpandRequires<RequireList<T>, typename DirectRequires<T>::type>::list());
}
} // namespace detail

/// True when component type `id` is stored sparse (known once the type was used as a component).
[[nodiscard]] inline bool is_sparse_id(ComponentTypeID id) noexcept {
    return id < ECS_MAX_COMPONENTS && detail::component_infos[id].sparse;
}

/// The factory registered for `id`, or nullptr when the type was never used as a component.
[[nodiscard]] inline ColumnFactory column_factory(ComponentTypeID id) noexcept {
    if (id >= ECS_MAX_COMPONENTS) return nullptr;
    return detail::column_factories[id].load(detail::order_acquire);
}

} // namespace ecs
