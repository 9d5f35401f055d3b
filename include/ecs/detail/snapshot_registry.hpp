/**
 * @file ecs/detail/snapshot_registry.hpp
 * @brief What snapshots name things by, and what reading one can report: register_component,
 *        component_id_by_name, component_name, component_registered, register_resource (the
 *        process-wide name registries), SNAPSHOT_FORMAT_VERSION, DeserializeError and
 *        DeserializeResult.
 *
 * Public API reached through <ecs/serialization.hpp>; the snapshot section files, the loader and
 * the writer build on it.
 *
 * Process-wide state in this header: the component and resource name registries, shared by every
 * World and every thread. It is a function-local static guarded by a small spinlock (its critical sections are a
 * hash lookup or an insertion), so registration and lookups are safe from several threads at once
 * (registration is expected to be rare: at start-up).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../world.hpp"
#include "atomic_slot.hpp"
#include "component_registry.hpp" // names <-> ids, snapshot functions per type
#include "pod_array.hpp"
#include "stream.hpp"

namespace ecs {

/// Snapshot format version written by serialize(); deserialize() reads this one and version 1.
/// 2 (was 1): the body is framed by its length and CRC-32C checksums, and carries the
/// resources registered with register_resource().
inline constexpr uint32_t SNAPSHOT_FORMAT_VERSION = 2;

namespace detail {

/// Element-first forms of the functions (the argument order some code written against the spec
/// uses): `ser(component, out)` and `deser(object, in)`, where `object` is a value-initialised `T`.
using ElementFirstSerializeFunc = void (*)(const void* component, std::ostream& out);
using ElementFirstDeserializeFunc = void (*)(void* object, std::istream& in);

/// The element-first functions registered for `T` (first registration wins, like the registry);
/// `Kind` 0 for a component, 1 for a resource (the two registrations keep their own functions).
template <typename T, int Kind = 0>
struct ElementFirstFunctions {
    static inline detail::AtomicSlot<ElementFirstSerializeFunc> serialize{nullptr};
    static inline detail::AtomicSlot<ElementFirstDeserializeFunc> deserialize{nullptr};
};

template <typename T, int Kind = 0>
void element_first_serialize(Dependent<T, std::ostream>& out, const void* component) {
    ElementFirstFunctions<T, Kind>::serialize.load(detail::order_acquire)(component, out);
}

/// Value-initialises a `T` and lets the user function fill it; on failbit the object is destroyed
/// again, so a failed read leaves nothing constructed (the contract of DeserializeFunc).
template <typename T, int Kind = 0>
void element_first_deserialize(Dependent<T, std::istream>& in, void* storage) {
    T* object = ::new (storage) T();
    ElementFirstFunctions<T, Kind>::deserialize.load(detail::order_acquire)(object, in);
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
                entry.bulk = true; // its bytes are its value: no functions
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
 * @brief register_component with element-first functions: `ser(const void* component,
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
    detail::ElementFirstFunctions<T>::serialize.compare_exchange_strong(no_s, s, detail::order_acq_rel);
    detail::ElementFirstFunctions<T>::deserialize.compare_exchange_strong(no_d, d, detail::order_acq_rel);
    register_component<T>(name, &detail::element_first_serialize<T>, &detail::element_first_deserialize<T>);
}

/**
 * @brief Id of the component type registered as `name`.
 * @pre Such a type is registered (asserted; returns INVALID_COMPONENT_ID otherwise). Thread-safe.
 */
inline ComponentTypeID component_id_by_name(const std::string& name) {
    // The lock-free name index: runtime components (runtime.hpp) are found too
    const ComponentTypeID id = detail::component_registry().id_of(name);
    if (!ECS_CHECK(id != INVALID_COMPONENT_ID, "component_id_by_name: no component type is registered under this name"))
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
    const std::string* name = detail::component_registry().name_of(id); // runtime components' names too
    if (!ECS_CHECK(name != nullptr, "component_name: component type is not registered")) return unregistered;
    return *name;
}

/// @brief True when component type `id` has been given a name by register_component. Thread-safe.
[[nodiscard]] inline bool component_registered(ComponentTypeID id) {
    return detail::component_registry().find(id) != nullptr;
}

// ---------------------------------------------------------------------------------------------------
// Resources
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
    bool bulk = false;         ///< trivially copyable, registered without functions (both null): a value is its bytes
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
    /// Every registration, in registration order (a template: compiled where a snapshot needs it).
    template <typename = void>
    [[nodiscard]] std::vector<const ResourceRegistration*> all() const {
        RegistryLock lock(locked_);
        return std::vector<const ResourceRegistration*>(entries_.begin(), entries_.end());
    }

private:
    mutable detail::AtomicSlot<bool> locked_{false};
    PodArray<ResourceRegistration*> entries_; ///< owned
};

/// The one resource registry of the process (constructed on first use, thread-safe).
inline ResourceRegistry& resource_registry() {
    static ResourceRegistry registry;
    return registry;
}

} // namespace detail

/**
 * @brief Gives resource type `T` the stable name `name`: from then on, a `T` resource
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
            entry.bulk = true; // its bytes are its value: no functions
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
 * @brief register_resource with element-first functions `ser(const void* resource,
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
    detail::ElementFirstFunctions<T, 1>::serialize.compare_exchange_strong(no_s, s, detail::order_acq_rel);
    detail::ElementFirstFunctions<T, 1>::deserialize.compare_exchange_strong(no_d, d, detail::order_acq_rel);
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
    bad_count,             ///< counts that do not add up (slot count 0, rows or free slots vs slots...,
                           ///< bytes after the resource table that are not a known section)
    entity_out_of_range,   ///< a row names slot 0 or a slot beyond the slot count
    duplicate_entity,      ///< two rows name the same slot
    bad_generation,        ///< generation 0, slot 0 not at 1, or a row disagreeing with the slot table
    bad_free_list,         ///< the free list names slot 0, a slot out of range, a live slot or a slot twice
    column_size_mismatch,  ///< a column's byte length disagrees with its rows
    deserializer_failed,   ///< a component's (or resource's) deserialize function set failbit
    // Format version 2:
    checksum_mismatch,     ///< a CRC-32C of the frame or of the body disagrees with the bytes
    unknown_resource,      ///< a resource name no type is registered under (register_resource)
    duplicate_resource,    ///< the resource table lists the same resource twice
    bad_section,           ///< an extension section with an unknown tag, a bad length or bad contents
    // Relationships:
    unknown_relation,      ///< a relationship name no relationship type is registered under
    dangling_relation,     ///< a pair names an entity that is not alive in the snapshot
    bad_relation,          ///< pairs that cannot be (listed twice, several targets of an exclusive type,
                           ///< bad positions, a HasRelation tag without pairs or pairs without it)
    // Loading into a live world (LoadMode::merge) and change streams (apply_changes):
    name_taken,            ///< merge: a loaded entity's name is already another entity's in the target
    base_mismatch,         ///< apply_changes: the stream was made against a state the target is not in
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
    case DeserializeError::bad_section: return "bad section";
    case DeserializeError::unknown_relation: return "unknown relationship";
    case DeserializeError::dangling_relation: return "dangling relationship";
    case DeserializeError::bad_relation: return "bad relationship";
    case DeserializeError::name_taken: return "name taken";
    case DeserializeError::base_mismatch: return "base mismatch";
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
    /// apply_changes on success: the sender's clock when it wrote the stream (the `since` of the
    /// next delta). 0 otherwise.
    uint32_t tick = 0;

    explicit operator bool() const noexcept { return error == DeserializeError::none; }
};

namespace detail {
/// Records a refused load in `result`: the error, its byte offset, and the message with the offset
/// appended. Returns false, so a reader can `return load_failure(...)`.
inline bool load_failure(DeserializeResult& result, DeserializeError error, uint64_t at, const std::string& what) {
    result.error = error;
    result.offset = at;
    result.message = what + " (at byte " + std::to_string(at) + ")";
    return false;
}
} // namespace detail

} // namespace ecs
