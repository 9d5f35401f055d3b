/**
 * @file ecs/runtime_types.hpp
 * @brief Runtime components and untyped access: component types described at
 *        run time by a size, an alignment and a set of functions (ComponentOps), and access to every
 *        component, typed or not, by id or by name (`World::add_raw`, `get_raw`, `each_raw`, ...).
 *
 * A scripting language, an editor or a loader meets component types the C++ compiler never saw.
 * `register_runtime_component("Health", ops)` makes one a component like any other: it takes an id
 * from the same counter as `component_id<T>()`, gets a column in archetypes (migration, swap-remove,
 * growth, sort and clone go through its functions), a name (component_info, snapshots, describe,
 * `get_raw(e, "Health")`), hooks (`on_add_raw`, `on_remove_raw`, `on_set_raw`), prefab defaults
 * (`Prefab::add_raw`), deferred commands, and optionally a field layout (reflect.hpp: `fields(id)`,
 * JSON). The untyped World members work the same for typed components: `get_raw(e,
 * component_id<Position>())` is the address `&get<Position>(e)`.
 *
 * How a column calls the functions of a runtime type: ComponentColumn holds plain function pointers
 * that receive object addresses only (that keeps typed columns exactly as fast as before). Each
 * runtime type therefore gets a *slot* among ECS_MAX_RUNTIME_COMPONENTS, and the column functions
 * of slot S are instances of templates over S that find the type's ComponentOps in a process-wide
 * table. Typed components never pass through this room.
 *
 * Process-wide state (shared by every World, safe from several threads): the table of runtime
 * types, written under a spinlock by register_runtime_component and never changed afterwards, and
 * the component name registry (detail/component_registry.hpp), whose name lookups are lock-free.
 * World members follow the World's own rule: one thread at a time per world.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iosfwd>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "component.hpp"
#include "config.hpp"
#include "detail/atomic_slot.hpp"
#include "detail/component_registry.hpp"
#include "detail/message.hpp"
#include "query.hpp"
#include "reflect.hpp"

/// Highest number of runtime component types (register_runtime_component) one process may register.
/// Each costs five small functions instantiated from templates (the column's slot functions).
#ifndef ECS_MAX_RUNTIME_COMPONENTS
#  define ECS_MAX_RUNTIME_COMPONENTS 64
#endif

namespace ecs {

/**
 * @brief What the library needs to store a component type it knows only at run time.
 *
 * Every function receives object addresses only; a null pointer means the type cannot do that:
 * - `default_construct(storage)`: value-initialises an object in uninitialised, aligned storage.
 *   Needed by `add_raw(e, id, nullptr)` and `Prefab::add_raw(id, nullptr)`.
 * - `copy_construct(dst, src)`: copy-constructs into uninitialised `dst`. Needed by `add_raw` with
 *   a value, prefabs, deferred `add_raw` and `World::clone`.
 * - `move_construct(dst, src)`: move-constructs into uninitialised `dst`; `src` stays alive and is
 *   destroyed afterwards. **nullptr means the type is plain bytes**: it is relocated with memcpy
 *   and has no destructor (so `destroy` must be nullptr too).
 * - `destroy(object)`: runs the destructor; nullptr when there is nothing to run.
 * - `serialize(out, object)` and `deserialize(in, storage)`: as the functions of register_component
 *   (deserialize constructs into uninitialised storage, and on malformed input sets failbit and
 *   constructs nothing). Both or neither; without them `ecs::serialize` refuses a world holding the
 *   type, as it refuses an unregistered typed component.
 *
 * `size` is the stride of one object (a multiple of `align`, which is a power of two); `size == 0`
 * makes a tag, stored without bytes (no function is ever called for a tag).
 */
struct ComponentOps {
    size_t size = 0;
    size_t align = 1;
    void (*default_construct)(void* storage) = nullptr;
    void (*copy_construct)(void* dst, const void* src) = nullptr;
    void (*move_construct)(void* dst, void* src) = nullptr;
    void (*destroy)(void* object) = nullptr;
    void (*serialize)(std::ostream& out, const void* object) = nullptr;
    void (*deserialize)(std::istream& in, void* storage) = nullptr;

    /// Same size, alignment and functions.
    friend bool operator==(const ComponentOps& a, const ComponentOps& b) noexcept {
        return a.size == b.size && a.align == b.align && a.default_construct == b.default_construct &&
               a.copy_construct == b.copy_construct && a.move_construct == b.move_construct && a.destroy == b.destroy &&
               a.serialize == b.serialize && a.deserialize == b.deserialize;
    }
    friend bool operator!=(const ComponentOps& a, const ComponentOps& b) noexcept { return !(a == b); }
};

namespace detail {

/// One registered runtime component type.
struct RuntimeComponent {
    ComponentOps ops;
    ComponentTypeID id = INVALID_COMPONENT_ID;
    const std::string* name = nullptr; ///< the registry's copy: lives for the whole program
    FieldView fields;                  ///< optional layout (reflect.hpp)
    bool plain = false;                ///< no move_construct: relocated with memcpy, nothing to destroy
};

/// The runtime types, by slot; a slot is written once, under the lock, before its column factory is
/// published (release), and never changed afterwards.
inline RuntimeComponent runtime_components[ECS_MAX_RUNTIME_COMPONENTS];
inline AtomicSlot<uint32_t> runtime_component_count{0};
inline detail::AtomicSlot<bool> runtime_components_locked{false};
/// Slot + 1 per component id (0: not a runtime component).
inline AtomicSlot<uint16_t> runtime_slot_of_id[ECS_MAX_COMPONENTS] = {};

/// The one object every row of a runtime tag (size 0) refers to.
alignas(64) inline unsigned char runtime_tag_storage[64] = {};

/// Swaps two live objects of a runtime type (sorting permutes rows by swaps).
inline void runtime_swap(const RuntimeComponent& rc, void* a, void* b) {
    const ComponentOps& o = rc.ops;
    if (rc.plain) { // plain bytes: swap them in place, 8 at a time
        auto* x = static_cast<unsigned char*>(a);
        auto* y = static_cast<unsigned char*>(b);
        size_t i = 0;
        for (; i + 8 <= o.size; i += 8) {
            uint64_t u, v;
            std::memcpy(&u, x + i, 8);
            std::memcpy(&v, y + i, 8);
            std::memcpy(x + i, &v, 8);
            std::memcpy(y + i, &u, 8);
        }
        for (; i < o.size; ++i) {
            const unsigned char t = x[i];
            x[i] = y[i];
            y[i] = t;
        }
        return;
    }
    alignas(64) unsigned char local[256];
    const bool heap = o.size > sizeof local || o.align > 64;
    void* tmp = heap ? ::operator new(o.size, std::align_val_t(o.align)) : static_cast<void*>(local);
    o.move_construct(tmp, a);
    if (o.destroy) o.destroy(a);
    o.move_construct(a, b);
    if (o.destroy) o.destroy(b);
    o.move_construct(b, tmp);
    if (o.destroy) o.destroy(tmp);
    if (heap) ::operator delete(tmp, std::align_val_t(o.align));
}

/// The column functions of runtime slot `Slot`: each finds the slot's ops and calls through them.
template <size_t Slot>
struct RuntimeSlot {
    static void move(void* dst, void* src) {
        const RuntimeComponent& rc = runtime_components[Slot];
        if (rc.plain) std::memcpy(dst, src, rc.ops.size);
        else rc.ops.move_construct(dst, src);
    }
    static void destroy(void* p) {
        const RuntimeComponent& rc = runtime_components[Slot];
        if (rc.ops.destroy != nullptr) rc.ops.destroy(p);
    }
    static void swap(void* a, void* b) { runtime_swap(runtime_components[Slot], a, b); }
    static void copy(void* dst, const void* src) { runtime_components[Slot].ops.copy_construct(dst, src); }
    static ComponentColumn column() noexcept;
};

inline void runtime_tag_copy(void*, const void*) {}
inline void runtime_tag_noop(void*) {}
inline void runtime_tag_move(void*, void*) {}
inline void runtime_tag_swap(void*, void*) {}

template <size_t Slot>
inline ComponentColumn RuntimeSlot<Slot>::column() noexcept {
    const RuntimeComponent& rc = runtime_components[Slot];
    ComponentColumn c;
    c.type_id = rc.id;
    c.elem_align = rc.ops.align;
    c.type_size = rc.ops.size;
    c.is_tag = rc.ops.size == 0;
    c.elem_size = rc.ops.size;
    if (c.is_tag) {
        c.data = runtime_tag_storage;
        c.trivially_relocatable = true;
        c.move = &runtime_tag_move;
        c.destroy = &runtime_tag_noop;
        c.swap = &runtime_tag_swap;
        c.copy = &runtime_tag_copy;
        return c;
    }
    c.trivially_relocatable = rc.plain;
    c.move = &move;
    c.destroy = &destroy;
    c.swap = &swap;
    if (rc.ops.copy_construct != nullptr) c.copy = &copy;
    return c;
}

template <size_t... Slots>
ColumnFactory runtime_column_factory(size_t slot, std::index_sequence<Slots...>) noexcept {
    static constexpr ColumnFactory factories[] = {&RuntimeSlot<Slots>::column...};
    return factories[slot];
}

/// The id of the component type named `name`: registered names first (register_component,
/// register_runtime_component; lock-free), then the names component_info reports (type names of
/// typed components never registered; a scan, for misses only). INVALID_COMPONENT_ID when none.
inline ComponentTypeID component_id_of_name(std::string_view name) noexcept {
    const ComponentTypeID id = component_registry().id_of(name);
    if (ECS_LIKELY(id != INVALID_COMPONENT_ID)) return id;
    const uint32_t end = next_component_id.load(detail::order_relaxed);
    for (uint32_t i = 0; i < end && i < ECS_MAX_COMPONENTS; ++i)
        if (column_factories[i].load(detail::order_acquire) != nullptr && component_infos[i].name == name) return i;
    return INVALID_COMPONENT_ID;
}

/// component_id_of_name for a World member named `function`: refuses an unknown name.
inline ComponentTypeID resolve_name(const char* function, std::string_view name) {
    const ComponentTypeID id = component_id_of_name(name);
    if (!ECS_CHECK(id != INVALID_COMPONENT_ID, format_message("%s: no component type is named \"%.*s\"", function,
                                                               static_cast<int>(name.size()), name.data())))
        return INVALID_COMPONENT_ID;
    return id;
}
/// resolve_name of a C string: refuses a null pointer too.
inline ComponentTypeID resolve_name(const char* function, const char* name) {
    if (!ECS_CHECK(name != nullptr, format_message("%s: the component name is a null pointer", function)))
        return INVALID_COMPONENT_ID;
    return resolve_name(function, std::string_view(name));
}

/**
 * Storage for one object of a component type outside the world: a local buffer for small types, the
 * heap for large or over-aligned ones. Destroys the object it holds (if any) when it goes away.
 */
class RawValue {
public:
    explicit RawValue(const ComponentColumn& c) noexcept : column_(c) {}
    RawValue(const RawValue&) = delete;
    RawValue& operator=(const RawValue&) = delete;
    ~RawValue() {
        if (live_) column_.destroy_at(ptr_);
        if (ptr_ != nullptr && ptr_ != static_cast<void*>(local_))
            ::operator delete(ptr_, std::align_val_t(column_.elem_align));
    }
    /// Uninitialised storage for one object.
    void* storage() {
        if (ptr_ == nullptr)
            ptr_ = column_.type_size <= sizeof local_ && column_.elem_align <= 64
                       ? static_cast<void*>(local_)
                       : ::operator new(column_.type_size, std::align_val_t(column_.elem_align));
        return ptr_;
    }
    /// The object was constructed in storage(): destroy it unless relocate_to() takes it.
    void set_live() noexcept { live_ = true; }
    /// Moves the object into uninitialised `dst` and ends its life here.
    void relocate_to(void* dst) noexcept {
        column_.relocate(dst, ptr_);
        live_ = false;
    }
    [[nodiscard]] const void* get() const noexcept { return ptr_; }

private:
    const ComponentColumn& column_;
    void* ptr_ = nullptr;
    bool live_ = false;
    alignas(64) unsigned char local_[256];
};

/// Makes `out` a copy of `*value`, or a value-initialised object when `value` is nullptr.
/// @return false (nothing constructed) when the type cannot.
inline bool make_raw_value(RawValue& out, const ComponentColumn& c, ComponentTypeID id, const void* value) {
    if (value != nullptr) {
        if (c.copy == nullptr) return false;
        c.copy(out.storage(), value);
    } else {
        const DefaultConstructFunc make = default_constructors[id].load(detail::order_acquire);
        if (make == nullptr) return false;
        make(out.storage());
    }
    out.set_live();
    return true;
}

/// each_raw's checks: `ids` is non-null when `count` is not 0, every id is known, none twice.
inline bool raw_ids_ok(const ComponentTypeID* ids, size_t count) {
    if (!ECS_CHECK(ids != nullptr || count == 0, "World::each_raw: ids is a null pointer")) return false;
    for (size_t i = 0; i < count; ++i) {
        if (!check_known_id("World::each_raw", ids[i])) return false;
        for (size_t j = 0; j < i; ++j)
            if (!ECS_CHECK(ids[j] != ids[i], "World::each_raw: a component id is listed twice")) return false;
    }
    return true;
}

/// What register_runtime_component found wrong with its arguments (nullptr: nothing).
inline const char* runtime_ops_problem(const char* name, const ComponentOps& ops) noexcept {
    if (name == nullptr || name[0] == '\0') return "register_runtime_component: name must be a non-empty string";
    if (std::strlen(name) > MAX_COMPONENT_NAME_LENGTH)
        return "register_runtime_component: name longer than MAX_COMPONENT_NAME_LENGTH bytes";
    if (ops.align == 0 || (ops.align & (ops.align - 1)) != 0)
        return "register_runtime_component: align must be a power of two";
    if (ops.size % ops.align != 0) return "register_runtime_component: size must be a multiple of align";
    if (ops.size > 0xFFFFFFFFu) return "register_runtime_component: component type larger than 4 GiB";
    if (ops.size == 0 && ops.align > 64) return "register_runtime_component: a tag (size 0) cannot be aligned beyond 64";
    if (ops.size != 0 && ops.move_construct == nullptr && ops.destroy != nullptr)
        return "register_runtime_component: a type without move_construct is plain bytes and cannot have destroy";
    if ((ops.serialize == nullptr) != (ops.deserialize == nullptr))
        return "register_runtime_component: pass both serialize and deserialize, or neither";
    return nullptr;
}

/// What register_runtime_component found wrong with a field layout (nullptr: nothing).
inline const char* runtime_fields_problem(const ComponentOps& ops, FieldView fields) noexcept {
    for (const FieldInfo& f : fields)
        if (f.name.empty() || f.offset > ops.size || f.size > ops.size - f.offset)
            return "register_runtime_component: a field is unnamed or lies outside the object";
    return nullptr;
}

inline FieldView runtime_field_views[ECS_MAX_RUNTIME_COMPONENTS];

/// register_runtime_component's work, under the runtime lock. `refusal` receives the message of a
/// refusal (reported by the caller once the lock is released).
template <typename = void>
inline ComponentTypeID register_runtime_locked(const char* name, const ComponentOps& ops, FieldView fields,
                                               const char*& refusal) {
    ComponentRegistry& registry = component_registry();
    const ComponentTypeID existing = registry.id_of(name);
    if (existing != INVALID_COMPONENT_ID) {
        const uint16_t slot = runtime_slot_of_id[existing].load(detail::order_acquire);
        if (slot == 0) {
            refusal = "register_runtime_component: name already registered for a typed component";
            return INVALID_COMPONENT_ID;
        }
        const RuntimeComponent& rc = runtime_components[slot - 1];
        if (rc.ops != ops || rc.fields != fields) {
            refusal = "register_runtime_component: name already registered with other ops or fields";
            return INVALID_COMPONENT_ID;
        }
        return existing; // the same registration again
    }
    const uint32_t slot = runtime_component_count.load(detail::order_relaxed);
    if (slot >= ECS_MAX_RUNTIME_COMPONENTS) {
        refusal = "register_runtime_component: more than ECS_MAX_RUNTIME_COMPONENTS runtime types (raise it)";
        return INVALID_COMPONENT_ID;
    }
    const ComponentTypeID id = next_component_id.fetch_add(1, detail::order_relaxed);
    if (id >= ECS_MAX_COMPONENTS) {
        refusal = "register_runtime_component: too many component types (raise ECS_MAX_COMPONENTS)";
        return INVALID_COMPONENT_ID;
    }
    ComponentRegistry::Outcome outcome;
    if (ops.serialize != nullptr || ops.size == 0) {
        ComponentRegistration entry;
        entry.name = name;
        entry.serialize = ops.size == 0 ? nullptr : ops.serialize;
        entry.deserialize = ops.size == 0 ? nullptr : ops.deserialize;
        entry.element_size = static_cast<uint32_t>(ops.size);
        outcome = registry.add(id, std::move(entry));
    } else {
        outcome = registry.add_name(id, name); // a name, but no snapshot functions
    }
    const std::string* stored = registry.name_of(id);
    if (outcome != ComponentRegistry::Outcome::added || stored == nullptr) { // a typed registration took the name meanwhile
        refusal = "register_runtime_component: name already registered for a typed component";
        return INVALID_COMPONENT_ID;
    }
    RuntimeComponent& rc = runtime_components[slot];
    rc.ops = ops;
    rc.id = id;
    rc.name = stored;
    rc.fields = fields;
    rc.plain = ops.move_construct == nullptr;

    ComponentInfo& info = component_infos[id];
    info.name = *rc.name;
    info.size = ops.size;
    info.align = ops.align;
    info.id = id;
    info.tag = ops.size == 0;
    info.trivially_copyable = rc.plain || ops.size == 0;
    if (ops.size == 0) default_constructors[id].store(&runtime_tag_noop, detail::order_relaxed);
    else default_constructors[id].store(ops.default_construct, detail::order_relaxed);
    if (!fields.empty()) {
        runtime_field_views[slot] = fields;
        runtime_fields_by_id[id].store(&runtime_field_views[slot], detail::order_release);
    }
    runtime_slot_of_id[id].store(static_cast<uint16_t>(slot + 1), detail::order_release);
    column_factories[id].store(runtime_column_factory(slot, std::make_index_sequence<ECS_MAX_RUNTIME_COMPONENTS>{}),
                               detail::order_release);
    runtime_component_count.store(slot + 1, detail::order_release);
    return id;
}

} // namespace detail

/**
 * @brief Makes a component type known only at run time: it gets an id from the same
 *        counter as `component_id<T>()` and works everywhere a typed component does (archetypes,
 *        hooks, prefabs, clone, describe, component_info, `get_raw(e, name)`, and snapshots when
 *        `ops` has serialize functions: they are saved and loaded by `name`).
 *
 * Registering the same name again with identical ops (and fields) returns the same id.
 * @param name copied; non-empty, at most MAX_COMPONENT_NAME_LENGTH bytes.
 * @param fields optional field layout (reflect.hpp): `fields(id)`, `to_json` and the Python
 *        bindings read the object through it. The FieldInfo table must outlive the program's use.
 * @pre `name` is not registered for another type (typed or runtime with other ops); `ops` is sound
 *      (see ComponentOps); fewer than ECS_MAX_RUNTIME_COMPONENTS runtime types and ECS_MAX_COMPONENTS
 *      types in all. A broken precondition is refused: asserts, returns INVALID_COMPONENT_ID.
 * Thread-safe.
 */
template <typename = void>
inline ComponentTypeID register_runtime_component(const char* name, const ComponentOps& ops, FieldView fields) {
    const char* problem = detail::runtime_ops_problem(name, ops);
    if (problem == nullptr) problem = detail::runtime_fields_problem(ops, fields);
    if (!ECS_CHECK(problem == nullptr, problem)) return INVALID_COMPONENT_ID;
    const char* refusal = nullptr;
    ComponentTypeID id = INVALID_COMPONENT_ID;
    {
        detail::RegistryLock lock(detail::runtime_components_locked);
        id = detail::register_runtime_locked(name, ops, fields, refusal);
    }
    // Checked outside the lock: a recording handler may call back into the registry.
    if (!ECS_CHECK(refusal == nullptr, refusal)) return INVALID_COMPONENT_ID;
    return id;
}

/// @brief register_runtime_component without a field layout.
template <typename = void>
inline ComponentTypeID register_runtime_component(const char* name, const ComponentOps& ops) {
    return register_runtime_component(name, ops, FieldView{});
}

/// @brief The ops `id` was registered with, or nullptr when `id` is not a runtime component.
[[nodiscard]] inline const ComponentOps* runtime_component_ops(ComponentTypeID id) noexcept {
    if (id >= ECS_MAX_COMPONENTS) return nullptr;
    const uint16_t slot = detail::runtime_slot_of_id[id].load(detail::order_acquire);
    return slot != 0 ? &detail::runtime_components[slot - 1].ops : nullptr;
}

/// @brief True when `id` was made by register_runtime_component.
[[nodiscard]] inline bool is_runtime_component(ComponentTypeID id) noexcept { return runtime_component_ops(id) != nullptr; }

/**
 * @brief The id of the component type named `name`, or INVALID_COMPONENT_ID: a name given by
 *        register_component or register_runtime_component, else the name component_info reports
 *        (the type name of a typed component used but never registered). Never asserts.
 */
[[nodiscard]] inline ComponentTypeID find_component(std::string_view name) noexcept {
    return detail::component_id_of_name(name);
}

} // namespace ecs
