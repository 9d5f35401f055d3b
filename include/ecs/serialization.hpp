/**
 * @file ecs/serialization.hpp
 * @brief Stable component names and binary world snapshots (SPEC §3.10).
 *
 * Component ids depend on the order in which a program first uses its types, so a snapshot names
 * its component types with strings given by register_component<T>(name). serialize() writes every
 * entity of a World (alive and dead slots, generations, free list, component values, archetype
 * structure) to a std::ostream; deserialize() rebuilds it in an empty World.
 *
 * The byte layout is described in SPEC.md §3.10.1 (format version 1) and its addition for version 2:
 * serialize() writes version 2, whose body (the version 1 layout plus a resource table) is framed by
 * its length and two CRC-32C checksums, so that any single flipped bit is rejected before the target
 * world is touched; deserialize() reads both versions. In short: every integer of the framing
 * is little-endian and fixed width on every host; component payloads are whatever the registered
 * serialize functions write. For trivially copyable types registered without functions, that is
 * the object representation (memcpy), written and read one column at a time: such snapshots move
 * between hosts that share the types' layout and byte order (in practice: any little-endian
 * 64-bit platform with the same compiler ABI).
 *
 * A malformed snapshot is data, not a precondition: deserialize() returns a DeserializeResult naming
 * the problem and its byte offset, and leaves the target world as it was (empty and valid).
 *
 * Process-wide state in this header: the component and resource name registries, shared by every
 * World and every thread. It is a function-local static guarded by a small spinlock (its critical sections are a
 * hash lookup or an insertion), so registration and lookups are safe from several threads at once
 * (registration is expected to be rare: at start-up).
 */
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ios>
#include <istream>
#include <new>
#include <ostream>
#include <streambuf>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "world.hpp"

namespace ecs {

/// Longest component name register_component() accepts and a snapshot may carry, in bytes.
inline constexpr size_t MAX_COMPONENT_NAME_LENGTH = 1024;

/// Snapshot format version written by serialize(); deserialize() reads this one and version 1.
/// **[Addition]** 2 (was 1): the body is framed by its length and CRC-32C checksums, and carries the
/// resources registered with register_resource().
inline constexpr uint32_t SNAPSHOT_FORMAT_VERSION = 2;

namespace detail {

/// What the registry knows about one component type.
struct ComponentRegistration {
    std::string name;
    ComponentColumn::SerializeFunc serialize = nullptr;     ///< nullptr for tags (no bytes)
    ComponentColumn::DeserializeFunc deserialize = nullptr; ///< nullptr for tags
    uint32_t element_size = 0; ///< column stride: sizeof(T), or 0 for tags
    bool bulk = false;         ///< the functions are the generated memcpy ones: columns move as one block
};

/// Minimal test-and-test-and-set lock guarding the registry: held only for a short table scan or
/// an insertion, and far cheaper to compile than <mutex>. Locks on construction, unlocks on
/// destruction (also when an insertion throws).
class RegistryLock {
public:
    explicit RegistryLock(std::atomic<bool>& flag) noexcept : flag_(flag) {
        while (flag_.exchange(true, std::memory_order_acquire))
            while (flag_.load(std::memory_order_relaxed)) {
            }
    }
    ~RegistryLock() { flag_.store(false, std::memory_order_release); }
    RegistryLock(const RegistryLock&) = delete;
    RegistryLock& operator=(const RegistryLock&) = delete;

private:
    std::atomic<bool>& flag_;
};

/**
 * Process-wide name <-> id table, indexed by component id (register_component only accepts ids
 * below ECS_MAX_COMPONENTS); a name lookup scans the registered ids. Entries are never removed or
 * modified after insertion, so a pointer or reference handed out stays valid (and needs no lock to
 * read) for the whole program.
 */
class ComponentRegistry {
public:
    enum class Outcome : uint8_t { added, unchanged, name_taken, type_has_other_name, id_out_of_range };

    ComponentRegistry() = default;
    ComponentRegistry(const ComponentRegistry&) = delete;
    ComponentRegistry& operator=(const ComponentRegistry&) = delete;
    ~ComponentRegistry() {
        for (ComponentRegistration* entry : by_id_) delete entry;
    }

    Outcome add(ComponentTypeID id, ComponentRegistration entry) {
        if (id >= ECS_MAX_COMPONENTS) return Outcome::id_out_of_range; // refused by register_component
        RegistryLock lock(locked_);
        if (const ComponentRegistration* existing = by_id_[id])
            return existing->name == entry.name ? Outcome::unchanged : Outcome::type_has_other_name;
        ComponentTypeID ignored = 0;
        if (find_locked(entry.name, ignored) != nullptr) return Outcome::name_taken;
        by_id_[id] = new ComponentRegistration(std::move(entry));
        if (id >= end_) end_ = id + 1;
        return Outcome::added;
    }

    /// Registration of `id`, or nullptr.
    [[nodiscard]] const ComponentRegistration* find(ComponentTypeID id) const {
        if (id >= ECS_MAX_COMPONENTS) return nullptr;
        RegistryLock lock(locked_);
        return by_id_[id];
    }

    /// Registration named `name` (its id in `id`), or nullptr.
    [[nodiscard]] const ComponentRegistration* find(const std::string& name, ComponentTypeID& id) const {
        RegistryLock lock(locked_);
        return find_locked(name, id);
    }

private:
    const ComponentRegistration* find_locked(const std::string& name, ComponentTypeID& id) const {
        for (ComponentTypeID i = 0; i < end_; ++i) {
            const ComponentRegistration* entry = by_id_[i];
            if (entry != nullptr && entry->name == name) {
                id = i;
                return entry;
            }
        }
        return nullptr;
    }

    mutable std::atomic<bool> locked_{false};
    ComponentTypeID end_ = 0; ///< one past the highest registered id
    ComponentRegistration* by_id_[ECS_MAX_COMPONENTS] = {}; ///< owned; nullptr where unregistered
};

/// The one registry of the process (constructed on first use, thread-safe).
inline ComponentRegistry& component_registry() {
    static ComponentRegistry registry;
    return registry;
}

/// Generated serializer of trivially copyable `T`: its object representation.
template <typename T>
void memcpy_serialize(std::ostream& out, const void* component) {
    out.write(static_cast<const char*>(component), static_cast<std::streamsize>(sizeof(T)));
}

/// Generated deserializer of trivially copyable `T`; a short read sets failbit.
template <typename T>
void memcpy_deserialize(std::istream& in, void* storage) {
    in.read(static_cast<char*>(storage), static_cast<std::streamsize>(sizeof(T)));
}

/// Element-first forms of the functions (the argument order some code written against the spec
/// uses): `ser(component, out)` and `deser(object, in)`, where `object` is a value-initialised `T`.
using ElementFirstSerializeFunc = void (*)(const void* component, std::ostream& out);
using ElementFirstDeserializeFunc = void (*)(void* object, std::istream& in);

/// The element-first functions registered for `T` (first registration wins, like the registry);
/// `Kind` 0 for a component, 1 for a resource (the two registrations keep their own functions).
template <typename T, int Kind = 0>
struct ElementFirstFunctions {
    static inline std::atomic<ElementFirstSerializeFunc> serialize{nullptr};
    static inline std::atomic<ElementFirstDeserializeFunc> deserialize{nullptr};
};

template <typename T, int Kind = 0>
void element_first_serialize(std::ostream& out, const void* component) {
    ElementFirstFunctions<T, Kind>::serialize.load(std::memory_order_acquire)(component, out);
}

/// Value-initialises a `T` and lets the user function fill it; on failbit the object is destroyed
/// again, so a failed read leaves nothing constructed (the contract of DeserializeFunc).
template <typename T, int Kind = 0>
void element_first_deserialize(std::istream& in, void* storage) {
    T* object = ::new (storage) T();
    ElementFirstFunctions<T, Kind>::deserialize.load(std::memory_order_acquire)(object, in);
    if (in.fail()) object->~T();
}

template <typename S, typename D>
inline constexpr bool is_element_first_pair_v =
    !std::is_null_pointer_v<S> && !std::is_null_pointer_v<D> && std::is_convertible_v<S, ElementFirstSerializeFunc> &&
    std::is_convertible_v<D, ElementFirstDeserializeFunc> && !std::is_convertible_v<S, ComponentColumn::SerializeFunc>;

} // namespace detail

/**
 * @brief Gives component type `T` the stable name `name`, used by snapshots to identify it.
 *
 * Also records `T`'s column factory, so archetypes holding `T` can be built from its id alone.
 * Trivially copyable types may omit both functions: memcpy-based ones are generated, and columns of
 * such types are written and read as one block. Tags (empty types stored without bytes) need no
 * functions either. Re-registering the same name for the same type does nothing (the first
 * functions stay).
 *
 * @param name  Non-empty, at most MAX_COMPONENT_NAME_LENGTH bytes; copied.
 * @param ser   Writes one `T` to the stream; may set failbit to report an error.
 * @param deser Placement-constructs one `T` in uninitialised storage from the stream; on malformed
 *              input sets the stream's failbit and constructs nothing. It reads from a stream that
 *              ends where the column's bytes end, and must consume exactly what `ser` wrote. Data
 *              read from a snapshot may be hostile: read variable-length data in bounded chunks
 *              rather than trusting a length prefix with one big allocation.
 * @pre `name` is not used by another type, and `T` is not registered under another name.
 * @pre `T` is trivially copyable or a tag, or both `ser` and `deser` are given (never only one).
 * @pre Fewer than ECS_MAX_COMPONENTS component types are in use.
 * A broken precondition asserts; with a recording ECS_ASSERT the registration is refused.
 * Thread-safe.
 */
template <typename T>
void register_component(const char* name, ComponentColumn::SerializeFunc ser = nullptr,
                        ComponentColumn::DeserializeFunc deser = nullptr) {
    static_assert(std::is_same_v<T, detail::bare_t<T>>, "register_component: T must not be cv-qualified or a reference");
    static_assert(sizeof(T) <= 0xFFFFFFFFu, "register_component: component type larger than 4 GiB");
    const ComponentTypeID id = ensure_column_factory<T>();
    if (!ECS_CHECK(id < ECS_MAX_COMPONENTS, "register_component: too many component types (raise ECS_MAX_COMPONENTS)"))
        return;
    if (!ECS_CHECK(name != nullptr && name[0] != '\0', "register_component: name must be a non-empty string")) return;
    if (!ECS_CHECK(std::strlen(name) <= MAX_COMPONENT_NAME_LENGTH,
                   "register_component: name longer than MAX_COMPONENT_NAME_LENGTH bytes"))
        return;
    if (!ECS_CHECK((ser == nullptr) == (deser == nullptr),
                   "register_component: pass both a serialize and a deserialize function, or neither"))
        return;

    detail::ComponentRegistration entry;
    entry.name = name;
    if constexpr (detail::is_tag_v<T>) {
        entry.element_size = 0; // a tag's column has no bytes: nothing to (de)serialize
    } else {
        entry.element_size = static_cast<uint32_t>(sizeof(T));
        if (ser == nullptr) {
            if constexpr (std::is_trivially_copyable_v<T>) {
                ser = &detail::memcpy_serialize<T>;
                deser = &detail::memcpy_deserialize<T>;
                entry.bulk = true;
            } else {
                if (!ECS_CHECK(ser != nullptr, "register_component: T is not trivially copyable, so it needs explicit "
                                               "serialize and deserialize functions"))
                    return;
            }
        }
        entry.serialize = ser;
        entry.deserialize = deser;
    }
    using Outcome = detail::ComponentRegistry::Outcome;
    const Outcome outcome = detail::component_registry().add(id, std::move(entry));
    if (outcome == Outcome::added) // component_info(id).name: the registry's copy never moves or dies
        if (const detail::ComponentRegistration* added = detail::component_registry().find(id))
            detail::set_component_name(id, added->name);
    // Checks run outside the registry lock: a recording handler may call back into the registry.
    (void)ECS_CHECK(outcome != Outcome::name_taken, "register_component: name already registered for another type");
    (void)ECS_CHECK(outcome != Outcome::type_has_other_name,
                    "register_component: type already registered under another name");
}

/**
 * @brief **[Addition]** register_component with element-first functions: `ser(const void* component,
 *        std::ostream&)` and `deser(void* object, std::istream&)`, where `deser` fills an already
 *        value-initialised `T` (so `T` must be default-constructible). Captureless lambdas work.
 *        Otherwise as above; a failed read (failbit) destroys the object again.
 */
template <typename T, typename S, typename D, std::enable_if_t<detail::is_element_first_pair_v<S, D>, int> = 0>
void register_component(const char* name, S ser, D deser) {
    static_assert(std::is_default_constructible_v<T>,
                  "register_component: element-first deserialize functions fill a value-initialised T");
    const detail::ElementFirstSerializeFunc s = ser;
    const detail::ElementFirstDeserializeFunc d = deser;
    if (!ECS_CHECK(s != nullptr && d != nullptr, "register_component: pass both a serialize and a deserialize function"))
        return;
    detail::ElementFirstSerializeFunc no_s = nullptr;
    detail::ElementFirstDeserializeFunc no_d = nullptr;
    detail::ElementFirstFunctions<T>::serialize.compare_exchange_strong(no_s, s, std::memory_order_acq_rel);
    detail::ElementFirstFunctions<T>::deserialize.compare_exchange_strong(no_d, d, std::memory_order_acq_rel);
    register_component<T>(name, &detail::element_first_serialize<T>, &detail::element_first_deserialize<T>);
}

/**
 * @brief Id of the component type registered as `name`.
 * @pre Such a type is registered (asserted; returns INVALID_COMPONENT_ID otherwise). Thread-safe.
 */
inline ComponentTypeID component_id_by_name(const std::string& name) {
    ComponentTypeID id = INVALID_COMPONENT_ID;
    const bool found = detail::component_registry().find(name, id) != nullptr;
    if (!ECS_CHECK(found, "component_id_by_name: no component type is registered under this name"))
        return INVALID_COMPONENT_ID;
    return id;
}

/**
 * @brief Name under which component type `id` was registered. The reference stays valid for the
 *        rest of the program.
 * @pre `id` is registered (asserted; returns a reference to an empty string otherwise). Thread-safe.
 */
inline const std::string& component_name(ComponentTypeID id) {
    static const std::string unregistered;
    const detail::ComponentRegistration* entry = detail::component_registry().find(id);
    if (!ECS_CHECK(entry != nullptr, "component_name: component type is not registered")) return unregistered;
    return entry->name;
}

/// @brief True when component type `id` has been given a name by register_component. Thread-safe.
[[nodiscard]] inline bool component_registered(ComponentTypeID id) {
    return detail::component_registry().find(id) != nullptr;
}

// ---------------------------------------------------------------------------------------------------
// Resources (addition, 1.0)
// ---------------------------------------------------------------------------------------------------

namespace detail {

/// What the resource registry knows about one resource type. The functions are generated by
/// register_resource<T> and reach the World only through its public resource API.
struct ResourceRegistration {
    std::string name;
    ComponentTypeID id = INVALID_COMPONENT_ID; ///< component_id<T>(): the type's identity
    ComponentColumn::SerializeFunc serialize = nullptr;
    ComponentColumn::DeserializeFunc deserialize = nullptr;
    uint32_t element_size = 0; ///< sizeof(T)
    size_t align = 1;          ///< alignof(T)
    bool bulk = false;         ///< the functions are the generated memcpy ones
    const void* (*find)(const World&) = nullptr; ///< the world's T, or nullptr
    void (*install)(World&, void* object) = nullptr; ///< moves *object into the world, then destroys it
    void (*destroy)(void* object) noexcept = nullptr;
};

/// Process-wide list of registered resources, append-only (entries never move or change), guarded
/// like the component registry. Few entries: lookups scan.
class ResourceRegistry {
public:
    enum class Outcome : uint8_t { added, unchanged, name_taken, type_has_other_name };

    ResourceRegistry() = default;
    ResourceRegistry(const ResourceRegistry&) = delete;
    ResourceRegistry& operator=(const ResourceRegistry&) = delete;
    ~ResourceRegistry() {
        for (ResourceRegistration* entry : entries_) delete entry;
    }

    Outcome add(ResourceRegistration entry) {
        RegistryLock lock(locked_);
        for (const ResourceRegistration* existing : entries_) {
            if (existing->id == entry.id)
                return existing->name == entry.name ? Outcome::unchanged : Outcome::type_has_other_name;
            if (existing->name == entry.name) return Outcome::name_taken;
        }
        entries_.push_back(new ResourceRegistration(std::move(entry)));
        return Outcome::added;
    }
    /// Registration named `name`, or nullptr.
    [[nodiscard]] const ResourceRegistration* find(const std::string& name) const {
        RegistryLock lock(locked_);
        for (const ResourceRegistration* entry : entries_)
            if (entry->name == name) return entry;
        return nullptr;
    }
    /// Every registration, in registration order.
    [[nodiscard]] std::vector<const ResourceRegistration*> all() const {
        RegistryLock lock(locked_);
        return std::vector<const ResourceRegistration*>(entries_.begin(), entries_.end());
    }

private:
    mutable std::atomic<bool> locked_{false};
    std::vector<ResourceRegistration*> entries_; ///< owned
};

/// The one resource registry of the process (constructed on first use, thread-safe).
inline ResourceRegistry& resource_registry() {
    static ResourceRegistry registry;
    return registry;
}

} // namespace detail

/**
 * @brief **[Addition]** Gives resource type `T` the stable name `name`: from then on, a `T` resource
 *        present in a World is saved by serialize() and restored by deserialize().
 *
 * The serialization options are those of register_component: trivially copyable types may omit
 * both functions (their object representation is written); other types pass `ser` (writes one `T`)
 * and `deser` (placement-constructs one `T` in uninitialised storage, sets failbit on bad input and
 * then constructs nothing; it reads from a stream that ends where the resource's bytes end and must
 * consume exactly what `ser` wrote), or the element-first pair of the next overload. Resource names
 * are a namespace of their own (a resource may share its name with a component). Resources not
 * registered are not saved. Re-registering the same name for the same type does nothing.
 *
 * @param name Non-empty, at most MAX_COMPONENT_NAME_LENGTH bytes; copied.
 * @pre `name` is not used by another resource type, and `T` is not registered under another name.
 * @pre `T` is trivially copyable, or both `ser` and `deser` are given (never only one).
 * A broken precondition is refused (asserts; the refusal handler hears of it). Thread-safe.
 */
template <typename T>
void register_resource(const char* name, ComponentColumn::SerializeFunc ser = nullptr,
                       ComponentColumn::DeserializeFunc deser = nullptr) {
    static_assert(std::is_same_v<T, detail::bare_t<T>>, "register_resource: T must not be cv-qualified or a reference");
    static_assert(std::is_move_constructible_v<T> && std::is_destructible_v<T>,
                  "register_resource: a resource must be move-constructible and destructible");
    static_assert(sizeof(T) <= 0xFFFFFFFFu, "register_resource: resource type larger than 4 GiB");
    if (!ECS_CHECK(name != nullptr && name[0] != '\0', "register_resource: name must be a non-empty string")) return;
    if (!ECS_CHECK(std::strlen(name) <= MAX_COMPONENT_NAME_LENGTH,
                   "register_resource: name longer than MAX_COMPONENT_NAME_LENGTH bytes"))
        return;
    if (!ECS_CHECK((ser == nullptr) == (deser == nullptr),
                   "register_resource: pass both a serialize and a deserialize function, or neither"))
        return;
    detail::ResourceRegistration entry;
    if (ser == nullptr) {
        if constexpr (std::is_trivially_copyable_v<T>) {
            ser = &detail::memcpy_serialize<T>;
            deser = &detail::memcpy_deserialize<T>;
            entry.bulk = true;
        } else {
            if (!ECS_CHECK(ser != nullptr, "register_resource: T is not trivially copyable, so it needs explicit "
                                           "serialize and deserialize functions"))
                return;
        }
    }
    entry.name = name;
    entry.id = component_id<T>();
    entry.serialize = ser;
    entry.deserialize = deser;
    entry.element_size = static_cast<uint32_t>(sizeof(T));
    entry.align = alignof(T);
    entry.find = [](const World& w) -> const void* { return w.try_resource<T>(); };
    entry.install = [](World& w, void* object) {
        T* value = static_cast<T*>(object);
        w.set_resource(std::move(*value));
        value->~T();
    };
    entry.destroy = [](void* object) noexcept { static_cast<T*>(object)->~T(); };
    using Outcome = detail::ResourceRegistry::Outcome;
    const Outcome outcome = detail::resource_registry().add(std::move(entry));
    (void)ECS_CHECK(outcome != Outcome::name_taken, "register_resource: name already registered for another type");
    (void)ECS_CHECK(outcome != Outcome::type_has_other_name,
                    "register_resource: type already registered under another name");
}

/**
 * @brief **[Addition]** register_resource with element-first functions `ser(const void* resource,
 *        std::ostream&)` and `deser(void* object, std::istream&)`, where `deser` fills an already
 *        value-initialised `T` (so `T` must be default-constructible). Otherwise as above.
 */
template <typename T, typename S, typename D, std::enable_if_t<detail::is_element_first_pair_v<S, D>, int> = 0>
void register_resource(const char* name, S ser, D deser) {
    static_assert(std::is_default_constructible_v<T>,
                  "register_resource: element-first deserialize functions fill a value-initialised T");
    const detail::ElementFirstSerializeFunc s = ser;
    const detail::ElementFirstDeserializeFunc d = deser;
    if (!ECS_CHECK(s != nullptr && d != nullptr, "register_resource: pass both a serialize and a deserialize function"))
        return;
    detail::ElementFirstSerializeFunc no_s = nullptr;
    detail::ElementFirstDeserializeFunc no_d = nullptr;
    detail::ElementFirstFunctions<T, 1>::serialize.compare_exchange_strong(no_s, s, std::memory_order_acq_rel);
    detail::ElementFirstFunctions<T, 1>::deserialize.compare_exchange_strong(no_d, d, std::memory_order_acq_rel);
    register_resource<T>(name, &detail::element_first_serialize<T, 1>, &detail::element_first_deserialize<T, 1>);
}

// ---------------------------------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------------------------------

/// What deserialize() found wrong. `none` means success.
enum class DeserializeError : uint8_t {
    none = 0,
    target_not_empty,      ///< the target world has live entities (precondition; also asserted)
    target_iterating,      ///< called during a query on the target world (precondition; also asserted)
    truncated,             ///< the input ends (or is unreadable) before the snapshot does
    bad_magic,             ///< the first four bytes are not "ECS\0"
    unsupported_version,   ///< a format version this build cannot read
    bad_name,              ///< a component name of length 0 or above MAX_COMPONENT_NAME_LENGTH
    unknown_component,     ///< a component name no type is registered under
    element_size_mismatch, ///< a component's element size differs from the registered type's
    duplicate_component,   ///< one archetype lists the same component twice
    duplicate_archetype,   ///< two archetype blocks with the same component set
    bad_count,             ///< counts that do not add up (slot count 0, rows or free slots vs slots...)
    entity_out_of_range,   ///< a row names slot 0 or a slot beyond the slot count
    duplicate_entity,      ///< two rows name the same slot
    bad_generation,        ///< generation 0, slot 0 not at 1, or a row disagreeing with the slot table
    bad_free_list,         ///< the free list names slot 0, a slot out of range, a live slot or a slot twice
    column_size_mismatch,  ///< a column's byte length disagrees with its rows
    deserializer_failed,   ///< a component's (or resource's) deserialize function set failbit
    // Additions (1.0), format version 2:
    checksum_mismatch,     ///< a CRC-32C of the frame or of the body disagrees with the bytes
    unknown_resource,      ///< a resource name no type is registered under (register_resource)
    duplicate_resource,    ///< the resource table lists the same resource twice
};

/// @brief Short English name of `error` ("truncated", ...).
[[nodiscard]] constexpr const char* to_string(DeserializeError error) noexcept {
    switch (error) {
    case DeserializeError::none: return "none";
    case DeserializeError::target_not_empty: return "target world not empty";
    case DeserializeError::target_iterating: return "target world is iterating";
    case DeserializeError::truncated: return "truncated";
    case DeserializeError::bad_magic: return "bad magic";
    case DeserializeError::unsupported_version: return "unsupported version";
    case DeserializeError::bad_name: return "bad component name";
    case DeserializeError::unknown_component: return "unknown component";
    case DeserializeError::element_size_mismatch: return "element size mismatch";
    case DeserializeError::duplicate_component: return "duplicate component";
    case DeserializeError::duplicate_archetype: return "duplicate archetype";
    case DeserializeError::bad_count: return "bad count";
    case DeserializeError::entity_out_of_range: return "entity out of range";
    case DeserializeError::duplicate_entity: return "duplicate entity";
    case DeserializeError::bad_generation: return "bad generation";
    case DeserializeError::bad_free_list: return "bad free list";
    case DeserializeError::column_size_mismatch: return "column size mismatch";
    case DeserializeError::deserializer_failed: return "deserializer failed";
    case DeserializeError::checksum_mismatch: return "checksum mismatch";
    case DeserializeError::unknown_resource: return "unknown resource";
    case DeserializeError::duplicate_resource: return "duplicate resource";
    }
    return "unknown error";
}

/**
 * @brief Outcome of deserialize(): converts to true on success.
 *
 * Not [[nodiscard]]: code written against the spec's `void deserialize(...)` keeps compiling.
 */
struct DeserializeResult {
    DeserializeError error = DeserializeError::none;
    /// On error: offset (from the snapshot's first byte) of the item found wrong.
    /// On success: the snapshot's size in bytes.
    uint64_t offset = 0;
    /// On error: what is wrong, with the offset, in English. Empty on success.
    std::string message;

    explicit operator bool() const noexcept { return error == DeserializeError::none; }
};

namespace detail {

#if (defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) || \
    defined(_WIN32)
/// Framing integers may be copied as blocks (they are already little-endian in memory).
inline constexpr bool host_little_endian = true;
#else
/// Unknown or big-endian host: framing integers are encoded one by one (always correct).
inline constexpr bool host_little_endian = false;
#endif

static_assert(sizeof(Entity) == 8 && offsetof(Entity, index) == 0 && offsetof(Entity, generation) == 4,
              "serialization: Entity must be two packed uint32_t");

inline void put_u32(unsigned char* p, uint32_t v) noexcept {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
inline void put_u64(unsigned char* p, uint64_t v) noexcept {
    for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
inline uint32_t get_u32(const unsigned char* p) noexcept {
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}
inline uint64_t get_u64(const unsigned char* p) noexcept {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

/**
 * CRC-32C (Castagnoli polynomial, reflected 0x82F63B78; init and final xor 0xFFFFFFFF), the checksum
 * of snapshot format 2. Detects every error burst up to 32 bits long, so every single flipped bit.
 * Portable: table-driven, eight bytes per step ("slicing by 8"; tables built once, thread-safe).
 * x86-64 with g++/clang++: the SSE4.2 crc32 instruction where the CPU has it (same polynomial,
 * same result), chosen at run time, no compiler flag needed; three interleaved streams hide the
 * instruction's latency, and are joined with the "append LANE zero bytes" operator (the CRC
 * register is linear: crc(A B) = shift_|B|(crc(A)) ^ crc_from_0(B)).
 */
class Crc32c {
public:
    void update(const void* data, size_t n) noexcept {
        state_ = step(state_, static_cast<const unsigned char*>(data), n);
    }
    [[nodiscard]] uint32_t value() const noexcept { return state_ ^ 0xFFFFFFFFu; }

    /// CRC-32C of `n` bytes.
    [[nodiscard]] static uint32_t of(const void* data, size_t n) noexcept {
        Crc32c crc;
        crc.update(data, n);
        return crc.value();
    }

private:
    static constexpr uint32_t POLY = 0x82F63B78u;
    static constexpr size_t LANE = 4096; ///< bytes per stream and round of the interleaved loop

    /// `matrix` (32 columns over GF(2)) applied to `v`.
    static uint32_t times(const uint32_t* matrix, uint32_t v) noexcept {
        uint32_t sum = 0;
        for (size_t i = 0; v != 0; ++i, v >>= 1)
            if (v & 1u) sum ^= matrix[i];
        return sum;
    }

    struct Tables {
        uint32_t t[8][256];
        uint32_t shift_lane[32]; ///< the register after LANE zero bytes, as a matrix
        Tables() noexcept {
            for (uint32_t i = 0; i < 256; ++i) {
                uint32_t c = i;
                for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (POLY & (0u - (c & 1u)));
                t[0][i] = c;
            }
            for (uint32_t i = 0; i < 256; ++i)
                for (size_t k = 1; k < 8; ++k) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFFu];
            // One zero bit, then squared: 2, 4, ... bits, until LANE bytes.
            uint32_t a[32], b[32];
            a[0] = POLY;
            for (size_t n = 1; n < 32; ++n) a[n] = 1u << (n - 1);
            uint32_t* from = a;
            uint32_t* to = b;
            for (size_t bits = 1; bits < LANE * 8; bits *= 2) {
                for (size_t n = 0; n < 32; ++n) to[n] = times(from, from[n]);
                uint32_t* swap = from;
                from = to;
                to = swap;
            }
            for (size_t n = 0; n < 32; ++n) shift_lane[n] = from[n];
        }
    };
    static const Tables& tables() noexcept {
        static const Tables instance;
        return instance;
    }

    static uint32_t step_table(uint32_t crc, const unsigned char* p, size_t n) noexcept {
        const Tables& tb = tables();
        for (; n >= 8; p += 8, n -= 8) {
            const uint32_t lo = crc ^ get_u32(p);
            const uint32_t hi = get_u32(p + 4);
            crc = tb.t[7][lo & 0xFFu] ^ tb.t[6][(lo >> 8) & 0xFFu] ^ tb.t[5][(lo >> 16) & 0xFFu] ^ tb.t[4][lo >> 24] ^
                  tb.t[3][hi & 0xFFu] ^ tb.t[2][(hi >> 8) & 0xFFu] ^ tb.t[1][(hi >> 16) & 0xFFu] ^ tb.t[0][hi >> 24];
        }
        for (; n != 0; ++p, --n) crc = tb.t[0][(crc ^ *p) & 0xFFu] ^ (crc >> 8);
        return crc;
    }

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __attribute__((target("sse4.2"))) static uint32_t step_sse42(uint32_t crc, const unsigned char* p,
                                                                  size_t n) noexcept {
        if (n >= 3 * LANE) {
            const uint32_t* shift = tables().shift_lane;
            for (; n >= 3 * LANE; p += 3 * LANE, n -= 3 * LANE) {
                unsigned long long c0 = crc, c1 = 0, c2 = 0;
                for (size_t i = 0; i < LANE; i += 8) {
                    unsigned long long v0, v1, v2;
                    std::memcpy(&v0, p + i, 8);
                    std::memcpy(&v1, p + LANE + i, 8);
                    std::memcpy(&v2, p + 2 * LANE + i, 8);
                    c0 = __builtin_ia32_crc32di(c0, v0);
                    c1 = __builtin_ia32_crc32di(c1, v1);
                    c2 = __builtin_ia32_crc32di(c2, v2);
                }
                crc = times(shift, static_cast<uint32_t>(c0)) ^ static_cast<uint32_t>(c1);
                crc = times(shift, crc) ^ static_cast<uint32_t>(c2);
            }
        }
        unsigned long long c = crc;
        for (; n >= 8; p += 8, n -= 8) {
            unsigned long long v;
            std::memcpy(&v, p, 8);
            c = __builtin_ia32_crc32di(c, v);
        }
        uint32_t c32 = static_cast<uint32_t>(c);
        for (; n != 0; ++p, --n) c32 = __builtin_ia32_crc32qi(c32, *p);
        return c32;
    }
    static bool have_sse42() noexcept {
        static const bool have = __builtin_cpu_supports("sse4.2") != 0;
        return have;
    }
    static uint32_t step(uint32_t crc, const unsigned char* p, size_t n) noexcept {
        return have_sse42() ? step_sse42(crc, p, n) : step_table(crc, p, n);
    }
#else
    static uint32_t step(uint32_t crc, const unsigned char* p, size_t n) noexcept { return step_table(crc, p, n); }
#endif

    uint32_t state_ = 0xFFFFFFFFu;
};

/// Largest single transfer handed to a stream (keeps std::streamsize conversions in range).
inline constexpr uint64_t MAX_STREAM_CHUNK = uint64_t(1) << 30;

/// Little-endian writer over an ostream. Stream failures surface in the stream's state. Counts
/// the bytes it writes and, while checksumming (format 2's body), folds them into a CRC-32C: in
/// steps of 64 KiB, so a large column is checksummed while it is still in cache for the write.
class SnapshotWriter {
public:
    explicit SnapshotWriter(std::ostream& out) noexcept : out_(out) {}

    void raw(const void* data, uint64_t n) {
        const char* p = static_cast<const char*>(data);
        written_ += n;
        while (n != 0) {
            const uint64_t step = detail::min_of(n, checksumming_ ? uint64_t(1) << 16 : MAX_STREAM_CHUNK);
            if (checksumming_) crc_.update(p, static_cast<size_t>(step));
            out_.write(p, static_cast<std::streamsize>(step));
            p += step;
            n -= step;
        }
    }
    /// Starts a fresh checksum and byte count (the body of a format 2 snapshot).
    void begin_checksum() noexcept {
        crc_ = Crc32c();
        written_ = 0;
        checksumming_ = true;
    }
    /// The checksum of everything written since begin_checksum(); stops checksumming.
    [[nodiscard]] uint32_t end_checksum() noexcept {
        checksumming_ = false;
        return crc_.value();
    }
    [[nodiscard]] uint64_t written() const noexcept { return written_; }
    void u32(uint32_t v) {
        unsigned char b[4];
        put_u32(b, v);
        raw(b, 4);
    }
    void u64(uint64_t v) {
        unsigned char b[8];
        put_u64(b, v);
        raw(b, 8);
    }
    void u32_array(const uint32_t* values, size_t n) {
        if constexpr (host_little_endian) {
            raw(values, uint64_t(n) * 4);
        } else {
            unsigned char buf[4096];
            for (size_t i = 0; i < n;) {
                size_t k = 0;
                for (; k < sizeof(buf) / 4 && i < n; ++k, ++i) put_u32(buf + 4 * k, values[i]);
                raw(buf, uint64_t(k) * 4);
            }
        }
    }
    void entities(const PodArray<Entity>& list) {
        if constexpr (host_little_endian) {
            raw(list.data(), uint64_t(list.size()) * sizeof(Entity));
        } else {
            unsigned char buf[4096];
            for (size_t i = 0; i < list.size();) {
                size_t k = 0;
                for (; k < sizeof(buf) / 8 && i < list.size(); ++k, ++i) {
                    put_u32(buf + 8 * k, list[i].index);
                    put_u32(buf + 8 * k + 4, list[i].generation);
                }
                raw(buf, uint64_t(k) * 8);
            }
        }
    }

private:
    std::ostream& out_;
    Crc32c crc_;
    uint64_t written_ = 0;
    bool checksumming_ = false;
};

/// Growable in-memory output buffer: collects one column written element by element, so the
/// column's byte length can precede it without seeking the real stream.
class ByteSink : public std::streambuf {
public:
    void clear() noexcept { bytes_.clear(); }
    [[nodiscard]] const char* data() const noexcept { return bytes_.data(); }
    [[nodiscard]] size_t size() const noexcept { return bytes_.size(); }

protected:
    int_type overflow(int_type ch) override {
        if (!traits_type::eq_int_type(ch, traits_type::eof())) bytes_.push_back(traits_type::to_char_type(ch));
        return traits_type::not_eof(ch);
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        bytes_.append(s, static_cast<size_t>(n));
        return n;
    }

private:
    std::string bytes_; ///< a string: its members are compiled into the standard library
};

/// Read-only view of bytes already in memory (used when the input stream cannot tell its size).
/// Seekable, so the checksum pass of format 2 can go back to the body.
class MemoryStreamBuf : public std::streambuf {
public:
    void view(char* begin, size_t n) noexcept { setg(begin, begin, begin + n); }

protected:
    pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode which) override {
        if ((which & std::ios_base::in) == 0) return pos_type(off_type(-1));
        char* base = dir == std::ios_base::beg ? eback() : dir == std::ios_base::cur ? gptr() : egptr();
        const off_type target = off_type(base - eback()) + off;
        if (target < 0 || target > off_type(egptr() - eback())) return pos_type(off_type(-1));
        setg(eback(), eback() + target, egptr());
        return pos_type(target);
    }
    pos_type seekpos(pos_type pos, std::ios_base::openmode which) override {
        return seekoff(off_type(pos), std::ios_base::beg, which);
    }
};

/**
 * Input view that ends after `limit` bytes of `source`: a component deserializer reading past its
 * column fails instead of desynchronising the rest of the snapshot. Reads ahead in small chunks,
 * never beyond the limit.
 */
class LimitedStreamBuf : public std::streambuf {
public:
    LimitedStreamBuf(std::streambuf* source, uint64_t limit) noexcept : source_(source), left_(limit) {}
    /// Every byte of the limit was pulled from the source and handed to the reader.
    [[nodiscard]] bool exhausted() const noexcept { return left_ == 0 && gptr() == egptr(); }
    /// The source ended before the limit did.
    [[nodiscard]] bool source_short() const noexcept { return source_short_; }

protected:
    int_type underflow() override {
        if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
        if (left_ == 0) return traits_type::eof();
        const uint64_t want = detail::min_of<uint64_t>(left_, sizeof(buffer_));
        const std::streamsize got = source_->sgetn(buffer_, static_cast<std::streamsize>(want));
        if (got <= 0) {
            source_short_ = true;
            return traits_type::eof();
        }
        left_ -= static_cast<uint64_t>(got);
        setg(buffer_, buffer_, buffer_ + got);
        return traits_type::to_int_type(*gptr());
    }

private:
    std::streambuf* source_;
    uint64_t left_;
    bool source_short_ = false;
    char buffer_[4096];
};

/// The get area of any streambuf (the bytes it already holds in memory), read through pointers to
/// its protected members: naming them through a derived class is what the language allows.
struct GetArea : std::streambuf {
    static const char* next(std::streambuf* sb) noexcept { return (sb->*&GetArea::gptr)(); }
    static const char* end(std::streambuf* sb) noexcept { return (sb->*&GetArea::egptr)(); }
};

/// Little-endian reader over a streambuf whose remaining size is known: every read is checked
/// against it before anything is allocated for it.
class SnapshotReader {
public:
    SnapshotReader(std::streambuf* source, uint64_t remaining) noexcept : source_(source), remaining_(remaining) {}

    /// Ends the input `n` bytes from here until unlimit() (a format 2 body). @pre n <= remaining().
    void limit(uint64_t n) noexcept {
        held_back_ = remaining_ - n;
        remaining_ = n;
    }
    /// Gives back the bytes held back by limit().
    void unlimit() noexcept {
        remaining_ += held_back_;
        held_back_ = 0;
    }

    [[nodiscard]] uint64_t offset() const noexcept { return offset_; }
    [[nodiscard]] uint64_t remaining() const noexcept { return remaining_; }
    [[nodiscard]] std::streambuf* source() const noexcept { return source_; }

    [[nodiscard]] bool raw(void* dst, uint64_t n) {
        if (n > remaining_) return false;
        char* p = static_cast<char*>(dst);
        for (uint64_t left = n; left != 0;) {
            const uint64_t step = detail::min_of(left, MAX_STREAM_CHUNK);
            const std::streamsize got = source_->sgetn(p, static_cast<std::streamsize>(step));
            if (got <= 0) {
                remaining_ = 0; // the stream lied about its size: nothing more can be trusted
                return false;
            }
            p += got;
            left -= static_cast<uint64_t>(got);
        }
        consumed(n);
        return true;
    }
    [[nodiscard]] bool u32(uint32_t& v) {
        unsigned char b[4];
        if (!raw(b, 4)) return false;
        v = get_u32(b);
        return true;
    }
    [[nodiscard]] bool u64(uint64_t& v) {
        unsigned char b[8];
        if (!raw(b, 8)) return false;
        v = get_u64(b);
        return true;
    }
    /// Reads `n` u32 into `values`. @pre n * 4 <= remaining() was checked by the caller or not: both work.
    [[nodiscard]] bool u32_array(uint32_t* values, size_t n) {
        if (uint64_t(n) * 4 > remaining_) return false;
        if constexpr (host_little_endian) {
            return raw(values, uint64_t(n) * 4);
        } else {
            unsigned char buf[4096];
            for (size_t i = 0; i < n;) {
                const size_t k = detail::min_of(sizeof(buf) / 4, n - i);
                if (!raw(buf, uint64_t(k) * 4)) return false;
                for (size_t j = 0; j < k; ++j, ++i) values[i] = get_u32(buf + 4 * j);
            }
            return true;
        }
    }
    [[nodiscard]] bool entities(Entity* list, size_t n) {
        if (uint64_t(n) * 8 > remaining_) return false;
        if constexpr (host_little_endian) {
            return raw(list, uint64_t(n) * 8);
        } else {
            unsigned char buf[4096];
            for (size_t i = 0; i < n;) {
                const size_t k = detail::min_of(sizeof(buf) / 8, n - i);
                if (!raw(buf, uint64_t(k) * 8)) return false;
                for (size_t j = 0; j < k; ++j, ++i) list[i] = Entity{get_u32(buf + 8 * j), get_u32(buf + 8 * j + 4)};
            }
            return true;
        }
    }
    /// Accounts for `n` bytes consumed from the source by someone else (a LimitedStreamBuf).
    void consumed(uint64_t n) noexcept {
        offset_ += n;
        remaining_ -= n;
    }

private:
    std::streambuf* source_;
    uint64_t remaining_;
    uint64_t offset_ = 0;
    uint64_t held_back_ = 0;
};

/**
 * Everything left in a stream that cannot tell its size, read into one uninitialised buffer that
 * grows with the data actually received. The first allocation is sized by in_avail(): bytes the
 * stream already holds in memory, so trusting it costs nothing a hostile input could inflate.
 */
class SlurpedInput {
public:
    SlurpedInput() = default;
    SlurpedInput(const SlurpedInput&) = delete;
    SlurpedInput& operator=(const SlurpedInput&) = delete;
    ~SlurpedInput() { delete[] bytes_; }

    void read_all(std::streambuf& sb) {
        const std::streamsize buffered = sb.in_avail();
        size_t capacity = detail::max_of<size_t>(size_t(1) << 16, buffered > 0 ? static_cast<size_t>(buffered) + 4096 : 0);
        delete[] bytes_; // (a second call starts over)
        bytes_ = nullptr;
        size_ = 0;
        bytes_ = new char[capacity];
        for (;;) {
            if (size_ == capacity) {
                capacity *= 2;
                char* bigger = new char[capacity];
                std::memcpy(bigger, bytes_, size_);
                delete[] bytes_;
                bytes_ = bigger;
            }
            const uint64_t want = detail::min_of<uint64_t>(capacity - size_, MAX_STREAM_CHUNK);
            const std::streamsize got = sb.sgetn(bytes_ + size_, static_cast<std::streamsize>(want));
            if (got <= 0) break;
            size_ += static_cast<size_t>(got);
        }
    }
    [[nodiscard]] char* data() noexcept { return bytes_; }
    [[nodiscard]] size_t size() const noexcept { return size_; }

private:
    char* bytes_ = nullptr; ///< owned (new[]); uninitialised beyond size_
    size_t size_ = 0;
};

/// Bytes between the current read position of `sb` and its end, when the buffer can seek.
inline bool stream_remaining(std::streambuf& sb, uint64_t& remaining) {
    using Pos = std::streambuf::pos_type;
    const Pos invalid = Pos(std::streambuf::off_type(-1));
    const Pos here = sb.pubseekoff(0, std::ios_base::cur, std::ios_base::in);
    if (here == invalid) return false;
    const Pos end = sb.pubseekoff(0, std::ios_base::end, std::ios_base::in);
    if (end == invalid) return false;
    if (sb.pubseekpos(here, std::ios_base::in) != here) return false;
    const std::streamoff size = std::streamoff(end) - std::streamoff(here);
    if (size < 0) return false;
    remaining = static_cast<uint64_t>(size);
    return true;
}

/**
 * Parses one snapshot into a World. Components are constructed directly in the archetypes' column
 * storage; rows become visible (entities assigned to the archetype) only once all their columns are
 * constructed, and records / free list are written only after everything validated. Until commit(),
 * the destructor undoes everything: completed archetypes are cleared (each of their objects
 * destroyed once) and the columns of a half-built archetype are destroyed up to exactly the rows
 * constructed, so the world is left with no entities, as it was.
 */
class SnapshotLoader {
public:
    SnapshotLoader(World& world, SnapshotReader& reader) noexcept : world_(world), in_(reader) {}
    SnapshotLoader(const SnapshotLoader&) = delete;
    SnapshotLoader& operator=(const SnapshotLoader&) = delete;
    ~SnapshotLoader() {
        if (!committed_) roll_back();
    }

    DeserializeResult run() {
        if (!read_header()) return std::move(result_);
        if (version_ >= 2) in_.limit(body_length_); // verified: the body ends exactly there
        if (!read_counts() || !read_archetypes() || !read_entity_table()) return std::move(result_);
        if (version_ >= 2 && !read_trailer()) return std::move(result_);
        commit();
        result_.offset = in_.offset();
        return std::move(result_);
    }

private:
    enum : uint8_t { SLOT_UNSEEN = 0, SLOT_LIVE = 1, SLOT_FREE = 2 };

    bool fail(DeserializeError error, uint64_t at, const std::string& what) {
        result_.error = error;
        result_.offset = at;
        result_.message = what + " (at byte " + std::to_string(at) + ")";
        return false;
    }
    bool truncated(uint64_t at, const char* what) {
        return fail(DeserializeError::truncated, at, std::string("snapshot truncated: ") + what);
    }

    /// Magic and version; for format 2 also the frame (body length, frame checksum) and the body
    /// checksum, verified in a first pass over the body before anything is built.
    bool read_header() {
        unsigned char magic[4];
        if (!in_.raw(magic, 4)) return truncated(0, "missing magic");
        if (std::memcmp(magic, "ECS\0", 4) != 0) return fail(DeserializeError::bad_magic, 0, "not an ecs snapshot (bad magic)");
        uint32_t version = 0;
        if (!in_.u32(version)) return truncated(4, "missing format version");
        if (version == 1) {
            version_ = 1;
            return true;
        }
        if (version != 2)
            return fail(DeserializeError::unsupported_version, 4,
                        "unsupported snapshot format version " + std::to_string(version) + " (this build reads 1 and " +
                            std::to_string(SNAPSHOT_FORMAT_VERSION) + ")");
        version_ = 2;
        if (!in_.u64(body_length_)) return truncated(8, "missing body length");
        uint32_t frame_checksum = 0;
        if (!in_.u32(frame_checksum)) return truncated(16, "missing frame checksum");
        unsigned char frame[16];
        std::memcpy(frame, "ECS\0", 4);
        put_u32(frame + 4, version);
        put_u64(frame + 8, body_length_);
        if (Crc32c::of(frame, sizeof frame) != frame_checksum)
            return fail(DeserializeError::checksum_mismatch, 16,
                        "frame checksum mismatch (magic, version or body length damaged)");
        if (body_length_ > in_.remaining() || in_.remaining() - body_length_ < 4)
            return truncated(8, "body length and checksum need more bytes than the input holds");
        return verify_body();
    }

    /// Reads the body and its checksum once, compares, and seeks back to the body's first byte.
    /// The source is seekable here: deserialize() measured it, or copied it into a MemoryStreamBuf.
    /// When the stream already holds the whole body in memory (std::istringstream, a snapshot read
    /// from a pipe, any buffer over memory), the checksum runs over that memory: no copy, no seek.
    bool verify_body() {
        using Pos = std::streambuf::pos_type;
        std::streambuf* sb = in_.source();
        const uint64_t body_at = in_.offset();
        const char* next = GetArea::next(sb);
        if (uint64_t(GetArea::end(sb) - next) >= body_length_ + 4 && body_length_ + 4 > body_length_) {
            const uint32_t stored = get_u32(reinterpret_cast<const unsigned char*>(next) + body_length_);
            if (Crc32c::of(next, static_cast<size_t>(body_length_)) != stored)
                return fail(DeserializeError::checksum_mismatch, body_at + body_length_,
                            "body checksum mismatch (the snapshot is damaged)");
            return true;
        }
        const Pos here = sb->pubseekoff(0, std::ios_base::cur, std::ios_base::in);
        if (here == Pos(std::streambuf::off_type(-1))) return truncated(body_at, "input cannot seek back to the body");
        Crc32c crc;
        char buffer[16384];
        for (uint64_t left = body_length_; left != 0;) {
            const uint64_t want = detail::min_of<uint64_t>(left, sizeof buffer);
            const std::streamsize got = sb->sgetn(buffer, static_cast<std::streamsize>(want));
            if (got != static_cast<std::streamsize>(want)) return truncated(body_at, "body cut short");
            crc.update(buffer, static_cast<size_t>(want));
            left -= want;
        }
        unsigned char stored[4];
        if (sb->sgetn(reinterpret_cast<char*>(stored), 4) != 4)
            return truncated(body_at + body_length_, "missing body checksum");
        if (sb->pubseekpos(here, std::ios_base::in) != here)
            return truncated(body_at, "input cannot seek back to the body");
        if (crc.value() != get_u32(stored))
            return fail(DeserializeError::checksum_mismatch, body_at + body_length_,
                        "body checksum mismatch (the snapshot is damaged)");
        return true;
    }

    /// Format 2, after the entity table: the resource table, which must end the body exactly, then
    /// the body checksum (already verified).
    bool read_trailer() {
        if (!read_resources()) return false;
        if (in_.remaining() != 0)
            return fail(DeserializeError::bad_count, in_.offset(),
                        "the body holds " + std::to_string(in_.remaining()) + " bytes after its resource table");
        in_.unlimit();
        unsigned char stored[4];
        if (!in_.raw(stored, 4)) return truncated(in_.offset(), "missing body checksum");
        return true;
    }

    bool read_counts() {
        const uint64_t at = in_.offset();
        if (!in_.u32(archetype_count_)) return truncated(at, "missing archetype count");
        if (!in_.u32(slot_count_)) return truncated(at + 4, "missing entity slot count");
        if (slot_count_ == 0)
            return fail(DeserializeError::bad_count, at + 4, "entity slot count is 0 (slot 0 is always reserved)");
        // Every archetype block takes at least 8 bytes, the entity table 4 per slot plus 4.
        if (uint64_t(archetype_count_) * 8 + uint64_t(slot_count_) * 4 + 4 > in_.remaining())
            return truncated(at, "archetype and slot counts need more bytes than the input holds");
        slot_state_.resize(slot_count_, SLOT_UNSEEN); // a fresh loader: every slot starts unseen
        return true;
    }

    bool read_archetypes() {
        for (uint32_t i = 0; i < archetype_count_; ++i)
            if (!read_archetype()) return false;
        return true;
    }

    bool read_archetype() {
        const uint64_t block_at = in_.offset();
        uint32_t component_count = 0;
        if (!in_.u32(component_count)) return truncated(block_at, "missing archetype component count");
        if (component_count > ECS_MAX_COMPONENTS)
            return fail(DeserializeError::bad_count, block_at,
                        "archetype lists " + std::to_string(component_count) + " components (more than ECS_MAX_COMPONENTS)");
        plans_.clear();
        plan_ids_.clear();
        TypeSet types; // sorted as it is built (a few ids: insertion beats a sort)
        bool duplicate = false;
        uint64_t bytes_per_row = sizeof(Entity); // entity list + bulk payloads: known before reading them
        uint64_t fixed_bytes = 0;                // one u64 byte length per column that has bytes
        for (uint32_t k = 0; k < component_count; ++k) {
            const uint64_t name_at = in_.offset();
            uint32_t length = 0;
            if (!in_.u32(length)) return truncated(name_at, "missing component name length");
            if (length == 0 || length > MAX_COMPONENT_NAME_LENGTH)
                return fail(DeserializeError::bad_name, name_at,
                            "component name length " + std::to_string(length) + " is 0 or above MAX_COMPONENT_NAME_LENGTH");
            std::string name(length, '\0');
            if (!in_.raw(&name[0], length)) return truncated(name_at, "component name cut short");
            ComponentTypeID id = INVALID_COMPONENT_ID;
            const ComponentRegistration* registration = component_registry().find(name, id);
            if (registration == nullptr)
                return fail(DeserializeError::unknown_component, name_at, "unknown component name \"" + name + "\"");
            const uint64_t size_at = in_.offset();
            uint32_t element_size = 0;
            if (!in_.u32(element_size)) return truncated(size_at, "missing component element size");
            if (element_size != registration->element_size)
                return fail(DeserializeError::element_size_mismatch, size_at,
                            "component \"" + name + "\" has element size " + std::to_string(element_size) +
                                " in the snapshot but " + std::to_string(registration->element_size) +
                                " in this program");
            if (element_size != 0) {
                fixed_bytes += 8;
                if (registration->bulk) bytes_per_row += element_size;
            }
            plans_.push_back(registration);
            plan_ids_.push_back(id);
            const auto at = detail::upper_bound_value(types.begin(), types.end(), id);
            if (at != types.begin() && *(at - 1) == id) duplicate = true; // reported once all names are read
            types.insert(at, id);
        }
        if (duplicate)
            return fail(DeserializeError::duplicate_component, block_at, "archetype lists the same component twice");

        const uint64_t rows_at = in_.offset();
        uint32_t rows = 0;
        if (!in_.u32(rows)) return truncated(rows_at, "missing archetype row count");
        if (fixed_bytes > in_.remaining() || rows > (in_.remaining() - fixed_bytes) / bytes_per_row)
            return truncated(rows_at, "archetype row count needs more bytes than the input holds");
        if (rows > slot_count_ - 1 - live_)
            return fail(DeserializeError::bad_count, rows_at, "archetype rows outnumber the unused entity slots");

        const uint64_t entities_at = in_.offset();
        PodArray<Entity> entities;
        entities.resize(rows); // bounded: rows * 8 bytes are known to be in the input
        if (!in_.entities(entities.data(), rows)) return truncated(entities_at, "entity list cut short");
        for (uint32_t r = 0; r < rows; ++r) {
            const Entity e = entities[r];
            const uint64_t at = entities_at + uint64_t(r) * 8;
            if (e.index == 0 || e.index >= slot_count_)
                return fail(DeserializeError::entity_out_of_range, at,
                            "row names entity slot " + std::to_string(e.index) + " (slot count " +
                                std::to_string(slot_count_) + ", slot 0 reserved)");
            if (e.generation == 0) return fail(DeserializeError::bad_generation, at + 4, "live entity has generation 0");
            if (slot_state_[e.index] != SLOT_UNSEEN)
                return fail(DeserializeError::duplicate_entity, at,
                            "entity slot " + std::to_string(e.index) + " appears in two rows");
            slot_state_[e.index] = SLOT_LIVE;
        }
        live_ += rows;

        if (rows == 0) return skip_empty_columns(); // empty blocks create no archetype

        Archetype* arch = WorldAccess::find_or_create_archetype(world_, types);
        if (arch == nullptr) return fail(DeserializeError::unknown_component, block_at, "component type cannot be stored");
        if (arch->id >= archetype_used_.size()) archetype_used_.resize(size_t(arch->id) + 1, 0);
        if (archetype_used_[arch->id] != 0)
            return fail(DeserializeError::duplicate_archetype, block_at, "two archetype blocks have the same component set");
        archetype_used_[arch->id] = 1;
        if (arch->size() != 0) // cannot happen: the world had no live entity
            return fail(DeserializeError::target_not_empty, block_at, "target archetype already holds rows");

        arch->reserve(rows);
        partial_ = arch;
        partial_rows_.assign(arch->columns.size(), 0);
        for (size_t k = 0; k < plans_.size(); ++k)
            if (!read_column(*arch, plan_ids_[k], *plans_[k], rows)) return false;
        arch->entities.assign(entities.data(), entities.size()); // every column is complete: the rows become real
        arch->sync_ticks(); // change detection: loaded rows count as added now
        partial_ = nullptr;
        filled_.push_back(arch);
        filled_offsets_.push_back(entities_at);
        return true;
    }

    /// Columns of a block without rows must be empty.
    bool skip_empty_columns() {
        for (const ComponentRegistration* registration : plans_) {
            if (registration->element_size == 0) continue;
            const uint64_t at = in_.offset();
            uint64_t bytes = 0;
            if (!in_.u64(bytes)) return truncated(at, "missing column byte length");
            if (bytes != 0)
                return fail(DeserializeError::column_size_mismatch, at,
                            "column of \"" + registration->name + "\" holds bytes but its archetype has no rows");
        }
        return true;
    }

    bool read_column(Archetype& arch, ComponentTypeID id, const ComponentRegistration& reg, uint32_t rows) {
        if (reg.element_size == 0) return true; // tag: no bytes
        const size_t column = arch.column_index[id];
        ComponentColumn& c = arch.columns[column];
        const uint64_t at = in_.offset();
        uint64_t bytes = 0;
        if (!in_.u64(bytes)) return truncated(at, "missing column byte length");
        if (reg.bulk) {
            if (bytes != uint64_t(rows) * c.elem_size)
                return fail(DeserializeError::column_size_mismatch, at,
                            "column of \"" + reg.name + "\" has " + std::to_string(bytes) + " bytes for " +
                                std::to_string(rows) + " rows");
            if (!in_.raw(c.data, bytes)) return truncated(at + 8, "column data cut short");
            partial_rows_[column] = rows;
            return true;
        }
        if (bytes > in_.remaining()) return truncated(at, "column byte length exceeds the bytes left in the input");
        LimitedStreamBuf limited(in_.source(), bytes);
        std::istream element_in(&limited);
        for (uint32_t r = 0; r < rows; ++r) {
            reg.deserialize(element_in, c.at(r));
            if (element_in.fail()) {
                if (limited.source_short()) return truncated(at + 8, "column data cut short");
                return fail(DeserializeError::deserializer_failed, at + 8,
                            "deserializer of \"" + reg.name + "\" failed at row " + std::to_string(r));
            }
            partial_rows_[column] = r + 1;
        }
        if (!limited.exhausted())
            return fail(DeserializeError::column_size_mismatch, at,
                        "deserializer of \"" + reg.name + "\" read fewer bytes than its column holds");
        in_.consumed(bytes);
        return true;
    }

    bool read_entity_table() {
        const uint64_t generations_at = in_.offset();
        generations_.resize(slot_count_); // bounded: checked against the input size in read_header
        if (!in_.u32_array(generations_.data(), slot_count_)) return truncated(generations_at, "generation table cut short");
        if (generations_[0] != 1) return fail(DeserializeError::bad_generation, generations_at, "slot 0 must have generation 1");
        for (uint32_t i = 1; i < slot_count_; ++i)
            if (generations_[i] == 0)
                return fail(DeserializeError::bad_generation, generations_at + uint64_t(i) * 4,
                            "slot " + std::to_string(i) + " has generation 0");
        for (size_t a = 0; a < filled_.size(); ++a) {
            const PodArray<Entity>& list = filled_[a]->entities;
            for (size_t r = 0; r < list.size(); ++r)
                if (generations_[list[r].index] != list[r].generation)
                    return fail(DeserializeError::bad_generation, filled_offsets_[a] + uint64_t(r) * 8 + 4,
                                "entity in slot " + std::to_string(list[r].index) +
                                    " has a generation other than its slot's");
        }

        const uint64_t free_at = in_.offset();
        uint32_t free_count = 0;
        if (!in_.u32(free_count)) return truncated(free_at, "missing free list length");
        const uint64_t not_live = uint64_t(slot_count_) - 1 - live_;
        if (free_count != not_live)
            return fail(DeserializeError::bad_count, free_at,
                        "free list has " + std::to_string(free_count) + " slots but " + std::to_string(not_live) +
                            " slots are neither live nor reserved");
        free_list_.resize(free_count); // bounded by the slot count
        if (!in_.u32_array(free_list_.data(), free_count)) return truncated(free_at + 4, "free list cut short");
        for (uint32_t i = 0; i < free_count; ++i) {
            const uint32_t slot = free_list_[i];
            const uint64_t at = free_at + 4 + uint64_t(i) * 4;
            if (slot == 0 || slot >= slot_count_)
                return fail(DeserializeError::bad_free_list, at, "free list names slot " + std::to_string(slot) +
                                                                     " (reserved or out of range)");
            if (slot_state_[slot] == SLOT_LIVE)
                return fail(DeserializeError::bad_free_list, at, "free list names live slot " + std::to_string(slot));
            if (slot_state_[slot] == SLOT_FREE)
                return fail(DeserializeError::bad_free_list, at, "free list names slot " + std::to_string(slot) + " twice");
            slot_state_[slot] = SLOT_FREE;
        }
        return true;
    }

    /// Format 2: the resource table. Each resource is constructed in storage of its own and moved
    /// into the world only by commit().
    bool read_resources() {
        const uint64_t table_at = in_.offset();
        uint32_t count = 0;
        if (!in_.u32(count)) return truncated(table_at, "missing resource count");
        // Every resource takes at least 17 bytes: name length, a 1-byte name, element size, byte length.
        if (uint64_t(count) * 17 > in_.remaining())
            return truncated(table_at, "resource count needs more bytes than the input holds");
        for (uint32_t i = 0; i < count; ++i)
            if (!read_resource()) return false;
        return true;
    }

    bool read_resource() {
        const uint64_t name_at = in_.offset();
        uint32_t length = 0;
        if (!in_.u32(length)) return truncated(name_at, "missing resource name length");
        if (length == 0 || length > MAX_COMPONENT_NAME_LENGTH)
            return fail(DeserializeError::bad_name, name_at,
                        "resource name length " + std::to_string(length) + " is 0 or above MAX_COMPONENT_NAME_LENGTH");
        std::string name(length, '\0');
        if (!in_.raw(&name[0], length)) return truncated(name_at, "resource name cut short");
        const ResourceRegistration* reg = resource_registry().find(name);
        if (reg == nullptr)
            return fail(DeserializeError::unknown_resource, name_at, "unknown resource name \"" + name + "\"");
        for (const PendingResource& p : resources_)
            if (p.registration == reg)
                return fail(DeserializeError::duplicate_resource, name_at, "resource \"" + name + "\" listed twice");
        const uint64_t size_at = in_.offset();
        uint32_t element_size = 0;
        if (!in_.u32(element_size)) return truncated(size_at, "missing resource element size");
        if (element_size != reg->element_size)
            return fail(DeserializeError::element_size_mismatch, size_at,
                        "resource \"" + name + "\" has element size " + std::to_string(element_size) +
                            " in the snapshot but " + std::to_string(reg->element_size) + " in this program");
        const uint64_t at = in_.offset();
        uint64_t bytes = 0;
        if (!in_.u64(bytes)) return truncated(at, "missing resource byte length");
        if (bytes > in_.remaining()) return truncated(at, "resource byte length exceeds the bytes left in the input");
        if (reg->bulk && bytes != reg->element_size)
            return fail(DeserializeError::column_size_mismatch, at,
                        "resource \"" + name + "\" has " + std::to_string(bytes) + " bytes for one object of " +
                            std::to_string(reg->element_size));
        void* storage = ::operator new(reg->element_size, std::align_val_t(reg->align));
        resources_.push_back(PendingResource{reg, storage, false});
        PendingResource& pending = resources_.back();
        if (reg->bulk) {
            if (!in_.raw(pending.storage, bytes)) return truncated(at + 8, "resource data cut short");
            pending.constructed = true;
            return true;
        }
        LimitedStreamBuf limited(in_.source(), bytes);
        std::istream object_in(&limited);
        reg->deserialize(object_in, pending.storage);
        if (object_in.fail()) {
            if (limited.source_short()) return truncated(at + 8, "resource data cut short");
            return fail(DeserializeError::deserializer_failed, at + 8,
                        "deserializer of resource \"" + name + "\" failed");
        }
        pending.constructed = true;
        if (!limited.exhausted())
            return fail(DeserializeError::column_size_mismatch, at,
                        "deserializer of resource \"" + name + "\" read fewer bytes than the resource holds");
        in_.consumed(bytes);
        return true;
    }

    void commit() {
        auto& records = WorldAccess::records(world_);
        records.assign(slot_count_, EntityRecord{});
        for (uint32_t i = 0; i < slot_count_; ++i) records[i].generation = generations_[i];
        for (Archetype* arch : filled_) {
            const auto& list = arch->entities;
            for (size_t r = 0; r < list.size(); ++r) {
                records[list[r].index].archetype = arch;
                records[list[r].index].row = static_cast<uint32_t>(r);
            }
        }
        WorldAccess::set_free_list(world_, free_list_);
        WorldAccess::alive_count(world_) = live_;
        committed_ = true;
        for (PendingResource& p : resources_) {
            p.registration->install(world_, p.storage); // moves the value in, destroys the loaded one
            ::operator delete(p.storage, std::align_val_t(p.registration->align));
        }
        resources_.clear();
    }

    void roll_back() noexcept {
        if (partial_ != nullptr) {
            for (size_t k = 0; k < partial_->columns.size(); ++k) {
                const ComponentColumn& c = partial_->columns[k];
                for (size_t r = 0; r < partial_rows_[k]; ++r) c.destroy_at(c.at(r));
            }
            partial_ = nullptr;
        }
        for (Archetype* arch : filled_) arch->clear();
        filled_.clear();
        for (PendingResource& p : resources_) {
            if (p.constructed) p.registration->destroy(p.storage);
            ::operator delete(p.storage, std::align_val_t(p.registration->align));
        }
        resources_.clear();
    }

    /// A resource read from the snapshot, waiting for commit().
    struct PendingResource {
        const ResourceRegistration* registration;
        void* storage;    ///< ::operator new(element_size, align)
        bool constructed; ///< storage holds a live object
    };

    World& world_;
    SnapshotReader& in_;
    DeserializeResult result_;
    uint32_t version_ = 0;
    uint64_t body_length_ = 0;            ///< format 2
    std::vector<PendingResource> resources_; ///< format 2, in snapshot order
    uint32_t archetype_count_ = 0;
    uint32_t slot_count_ = 0;
    size_t live_ = 0;
    std::vector<uint8_t> slot_state_;    ///< SLOT_* per slot
    std::vector<uint8_t> archetype_used_; ///< by archetype id: filled by this snapshot
    std::vector<const ComponentRegistration*> plans_; ///< the current block's components, in snapshot order
    TypeSet plan_ids_;                                ///< their ids, same order
    std::vector<Archetype*> filled_;                  ///< archetypes completed by this snapshot
    std::vector<uint64_t> filled_offsets_;            ///< where each one's entity list starts in the snapshot
    Archetype* partial_ = nullptr;        ///< archetype whose columns are being constructed
    std::vector<uint32_t> partial_rows_;  ///< per column of partial_: rows constructed so far
    std::vector<uint32_t> generations_;
    std::vector<uint32_t> free_list_;
    bool committed_ = false;
};

} // namespace detail

// ---------------------------------------------------------------------------------------------------
// Snapshots
// ---------------------------------------------------------------------------------------------------

namespace detail {

/**
 * Writes a snapshot of `world` in format `version`: 2 (what serialize() writes) or 1 (what ecs 0.9
 * wrote: no frame, no checksum, no resources; kept so tests, benchmarks and tools can produce
 * version 1 input). Payloads of types with functions are serialized into memory first, all of them:
 * their lengths precede them, and format 2 states the body's length before the body. Bulk columns
 * go from the archetypes to the stream directly, checksummed on the way.
 */
inline void write_snapshot(const World& world, std::ostream& out, uint32_t version) {
    const auto& archetypes = WorldAccess::archetypes(world);
    const auto& records = WorldAccess::records(world);
    const auto& free_list = WorldAccess::free_list(world);

    // Resolve every name before writing a byte: an unregistered type leaves the stream untouched.
    std::vector<const ComponentRegistration*> registrations;
    uint32_t blocks = 0;
    for (const auto& arch : archetypes) {
        if (arch->size() == 0) continue;
        ++blocks;
        for (ComponentTypeID t : arch->types) {
            const ComponentRegistration* reg = component_registry().find(t);
            if (!ECS_CHECK(reg != nullptr, "serialize: the world holds a component type that was never registered "
                                           "(call register_component<T>(name) first)")) {
                out.setstate(std::ios_base::failbit);
                return;
            }
            registrations.push_back(reg);
        }
    }
    std::vector<std::pair<const ResourceRegistration*, const void*>> resources; // registered and present
    if (version >= 2)
        for (const ResourceRegistration* reg : resource_registry().all())
            if (const void* value = reg->find(world)) resources.emplace_back(reg, value);

    // Measure the body; serialize what only functions can write into `pending`, one length per
    // column or resource in `pending_sizes`, in the order the body lists them.
    ByteSink pending;
    std::ostream pending_out(&pending);
    std::vector<uint64_t> pending_sizes;
    auto write_pending = [&](ComponentColumn::SerializeFunc fn, const void* value) {
        fn(pending_out, value);
        if (!pending_out.fail()) return true;
        out.setstate(std::ios_base::failbit);
        return false;
    };
    uint64_t body = 8; // archetype count, slot count
    size_t next = 0;
    for (const auto& arch_ptr : archetypes) {
        const Archetype& arch = *arch_ptr;
        if (arch.size() == 0) continue;
        const ComponentRegistration* const* regs = registrations.data() + next;
        next += arch.types.size();
        const uint64_t rows = arch.size();
        body += 4 + 4 + rows * 8; // component count, row count, rows
        for (size_t k = 0; k < arch.types.size(); ++k) body += 8 + regs[k]->name.size();
        for (size_t k = 0; k < arch.columns.size(); ++k) {
            const ComponentColumn& c = arch.columns[k];
            if (c.elem_size == 0) continue; // tags: no column
            body += 8;
            if (regs[k]->bulk) {
                body += rows * c.elem_size;
                continue;
            }
            const size_t before = pending.size();
            for (size_t r = 0; r < rows; ++r)
                if (!write_pending(regs[k]->serialize, c.at(r))) return;
            pending_sizes.push_back(pending.size() - before);
            body += pending_sizes.back();
        }
    }
    body += uint64_t(records.size()) * 4 + 4 + uint64_t(free_list.size()) * 4;
    if (version >= 2) {
        body += 4;
        for (const auto& item : resources) {
            const ResourceRegistration& reg = *item.first;
            body += 4 + reg.name.size() + 4 + 8;
            if (reg.bulk) {
                body += reg.element_size;
                continue;
            }
            const size_t before = pending.size();
            if (!write_pending(reg.serialize, item.second)) return;
            pending_sizes.push_back(pending.size() - before);
            body += pending_sizes.back();
        }
    }

    SnapshotWriter w(out);
    unsigned char frame[16];
    std::memcpy(frame, "ECS\0", 4);
    put_u32(frame + 4, version);
    put_u64(frame + 8, body);
    if (version >= 2) {
        w.raw(frame, 16);
        w.u32(Crc32c::of(frame, 16));
        w.begin_checksum();
    } else {
        w.raw(frame, 8);
    }
    w.u32(blocks);
    w.u32(static_cast<uint32_t>(records.size()));

    size_t pending_at = 0;   // next unwritten byte of `pending`
    size_t pending_item = 0; // next entry of `pending_sizes`
    auto write_next_pending = [&] {
        const uint64_t bytes = pending_sizes[pending_item++];
        w.u64(bytes);
        w.raw(pending.data() + pending_at, bytes);
        pending_at += static_cast<size_t>(bytes);
    };
    next = 0;
    for (const auto& arch_ptr : archetypes) {
        const Archetype& arch = *arch_ptr;
        if (arch.size() == 0) continue;
        const ComponentRegistration* const* regs = registrations.data() + next;
        next += arch.types.size();
        const uint32_t rows = static_cast<uint32_t>(arch.size());

        w.u32(static_cast<uint32_t>(arch.types.size()));
        for (size_t k = 0; k < arch.types.size(); ++k) {
            w.u32(static_cast<uint32_t>(regs[k]->name.size()));
            w.raw(regs[k]->name.data(), regs[k]->name.size());
            w.u32(regs[k]->element_size);
        }
        w.u32(rows);
        w.entities(arch.entities);
        for (size_t k = 0; k < arch.columns.size(); ++k) {
            const ComponentColumn& c = arch.columns[k];
            if (c.elem_size == 0) continue; // tags: no bytes
            if (regs[k]->bulk) {
                w.u64(uint64_t(rows) * c.elem_size);
                w.raw(c.data, uint64_t(rows) * c.elem_size);
            } else {
                write_next_pending();
            }
        }
    }

    // Entity table: one generation per slot, then the free list bottom to top.
    uint32_t generations[1024];
    for (size_t i = 0; i < records.size();) {
        size_t k = 0;
        for (; k < 1024 && i < records.size(); ++k, ++i) generations[k] = records[i].generation;
        w.u32_array(generations, k);
    }
    w.u32(static_cast<uint32_t>(free_list.size()));
    w.u32_array(free_list.data(), free_list.size());
    if (version < 2) return;

    // Resource table, then the body's checksum.
    w.u32(static_cast<uint32_t>(resources.size()));
    for (const auto& item : resources) {
        const ResourceRegistration& reg = *item.first;
        w.u32(static_cast<uint32_t>(reg.name.size()));
        w.raw(reg.name.data(), reg.name.size());
        w.u32(reg.element_size);
        if (reg.bulk) {
            w.u64(reg.element_size);
            w.raw(item.second, reg.element_size);
        } else {
            write_next_pending();
        }
    }
    ECS_ASSERT(w.written() == body, "serialize: body length miscounted (library bug)");
    w.u32(w.end_checksum());
}

} // namespace detail

/**
 * @brief Writes a binary snapshot of `world` to `out` (format version 2: SPEC.md §3.10.1 and its
 *        1.0 addition).
 *
 * Captures every entity slot (live and dead), generations, the free list in order, archetype
 * structure, component values and **[Addition]** the resources whose types were given a name by
 * register_resource(). Archetypes without rows are skipped. Other resources, observers and deferred
 * commands are not written. Columns of types registered without functions (memcpy) are written with
 * one stream write each (checksummed in 64 KiB steps on the way); values of types with functions are
 * serialized into a memory buffer first (their lengths precede them, and the body's length is written
 * before the body), so writing holds those serialized bytes in memory once.
 *
 * @pre Every component type present in `world` is registered (asserted; otherwise nothing is
 *      written and `out`'s failbit is set). A SerializeFunc that sets failbit also stops the
 *      snapshot (before anything is written) and sets `out`'s failbit. Check `out` for write errors.
 * Complexity: O(entities + slots) plus the bytes of the components and resources.
 */
inline void serialize(const World& world, std::ostream& out) {
    detail::write_snapshot(world, out, SNAPSHOT_FORMAT_VERSION);
}

/**
 * @brief Rebuilds the world stored in a snapshot read from `in` into `world`.
 *
 * On success the world holds exactly the snapshot's entities: the same handles (a handle live before
 * serialize is live again, a stale one stays stale), component values, archetype structure, slot
 * generations and free list order (the next create() returns what it would have returned in the
 * serialized world). **[Addition]** Resources the snapshot holds (format 2: registered with
 * register_resource) are set in `world`, replacing a resource of the same type; its other resources,
 * observers and deferred commands are left alone. `on_add` hooks do NOT fire for the loaded
 * components: a snapshot restores state, it does not replay its creation.
 *
 * **[Addition]** Formats 1 and 2 are read. In format 2 the frame checksum is verified first, then
 * the body's checksum in a first pass over the body (the stream is read twice: a seekable one is
 * sought back; any other is in memory anyway, see below), before anything is built: a damaged
 * snapshot (any single flipped bit included) is `checksum_mismatch` and the world is not touched
 * at all.
 *
 * Bad input is reported, never asserted: the result names the problem and its byte offset, and the
 * world is left as it was (no live entities; check_invariants() holds; components constructed along
 * the way are destroyed exactly once; archetypes created along the way stay, empty). Allocations
 * are bounded by the input: every count is checked against the bytes left in the stream before
 * anything is allocated for it.
 *
 * The stream: when it can seek, its remaining size is measured and it is left just after the
 * snapshot on success (bytes after the snapshot are not an error: snapshots can be embedded).
 * A stream that cannot seek (a pipe, a streambuf without seekoff) is first read to its end into
 * memory: one more copy of the input, so prefer a seekable stream (std::ifstream,
 * std::istringstream, a streambuf overriding seekoff/seekpos) where speed matters. On error the
 * stream's position is unspecified and its failbit is set.
 *
 * @pre `world` has no live entities and is not iterating (asserted; returns target_not_empty /
 *      target_iterating without touching the world or the stream). Dead slots of `world` are
 *      replaced by the snapshot's on success.
 * Complexity: O(entities + slots) plus the bytes of the components and resources.
 */
inline DeserializeResult deserialize(World& world, std::istream& in) {
    using detail::WorldAccess;
    DeserializeResult refused;
    if (!ECS_CHECK(!WorldAccess::iterating(world), "deserialize: called during iteration")) {
        refused.error = DeserializeError::target_iterating;
        refused.message = "deserialize: target world is iterating";
        return refused;
    }
    if (!ECS_CHECK(world.count() == 0, "deserialize: target world must have no live entities")) {
        refused.error = DeserializeError::target_not_empty;
        refused.message = "deserialize: target world has live entities";
        return refused;
    }
    std::streambuf* source = in.rdbuf();
    if (source == nullptr || in.fail()) {
        refused.error = DeserializeError::truncated;
        refused.message = "input stream is not readable (no buffer or failbit set) (at byte 0)";
        return refused;
    }

    uint64_t remaining = 0;
    detail::SlurpedInput memory;
    detail::MemoryStreamBuf memory_buf;
    if (!detail::stream_remaining(*source, remaining)) {
        memory.read_all(*source);
        memory_buf.view(memory.data(), memory.size());
        source = &memory_buf;
        remaining = memory.size();
    }

    detail::SnapshotReader reader(source, remaining);
    DeserializeResult result;
    {
        detail::SnapshotLoader loader(world, reader);
        result = loader.run();
    } // a failed load is rolled back here
    if (!result) in.setstate(std::ios_base::failbit);
    return result;
}

} // namespace ecs
