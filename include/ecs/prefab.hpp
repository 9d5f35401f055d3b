/**
 * @file ecs/prefab.hpp
 * @brief Prefabs: reusable entity templates holding default component values, and instantiate().
 *
 * A Prefab is data, not an entity: it lives outside every World, never shows up in a query and can
 * be instantiated into any number of worlds. Its defaults are kept type-erased in ONE flat byte
 * buffer, each value constructed in place at its own type's alignment (over-aligned types included:
 * the buffer is allocated with the strictest alignment of its types). Stored objects are never
 * relocated with memcpy: copying a prefab copy-constructs every default into a fresh buffer, moving
 * one hands the buffer over.
 *
 * instantiate() builds the entity directly in its final archetype (the prefab's types plus the types
 * of any extending overrides): no intermediate archetype, no migration. Every component is
 * constructed in place (defaults copy-constructed, overrides moved or copied), then `on_add` hooks
 * fire for every component. Sparse components (component_traits) are kept out of the archetype: their
 * defaults and overrides are copied or moved into the world's sparse sets.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "archetype.hpp"
#include "builtin/hierarchy.hpp"
#include "component.hpp"
#include "config.hpp"
#include "detail/atomic_slot.hpp"
#include "detail/pod_array.hpp"
#include "entity.hpp"
#include "world.hpp"

namespace ecs {

class Prefab;

namespace detail {
struct PrefabAccess;
} // namespace detail

/**
 * @brief A reusable entity template: a set of component types with a default value for each.
 *
 * Build one with Prefab::create(); spawn entities from it with instantiate(). Copyable (every
 * default is copy-constructed) and movable (the defaults are handed over, none is touched). A
 * default-constructed or moved-from Prefab is empty: it has no components and instantiates entities
 * without any.
 *
 * A const Prefab is never modified by instantiate(), so several threads may instantiate the same
 * prefab into different worlds at once.
 */
class Prefab {
public:
    /// Copy-constructs the default at `src` into uninitialised `dst`.
    using CopyFunc = void (*)(void* dst, const void* src);
    /// Runs the destructor of the default at `p`.
    using DestroyFunc = void (*)(void* p) noexcept;

    /// @brief An empty prefab (addition: lets prefabs live in containers and be assigned later).
    Prefab() noexcept = default;

    /**
     * @brief Builds a prefab whose defaults are `components`, copied from lvalues and moved from
     *        rvalues, each constructed once, in place, in the prefab's buffer.
     *
     * Every type must be copy-constructible (instantiate copies the defaults) and the types must be
     * distinct; both are checked at compile time. cv-qualifiers and references are ignored.
     * Argument order is remembered: it is the order in which instantiate() fires `on_add` hooks.
     * Complexity: O(n) constructions, one buffer allocation, O(n log n) to sort the type set.
     */
    template <typename... Ts>
    [[nodiscard]] static Prefab create(Ts&&... components) {
        static_assert(detail::distinct_v<Ts...>, "Prefab::create: component types must be distinct");
        static_assert((std::is_copy_constructible_v<detail::bare_t<Ts>> && ...),
                      "Prefab::create: every component type must be copy-constructible "
                      "(instantiate copy-constructs the defaults)");
        static_assert((std::is_move_constructible_v<detail::bare_t<Ts>> && ...),
                      "Prefab::create: every component type must be move-constructible (component requirement)");
        Prefab p;
        if constexpr (sizeof...(Ts) != 0) {
            size_t size = 0;
            size_t align = 1;
            const size_t offsets[] = {reserve_slot<detail::bare_t<Ts>>(size, align)...};
            p.allocate(size, align);
            p.entries_.reserve(sizeof...(Ts));
            p.types_.reserve(sizeof...(Ts));
            size_t i = 0;
            (p.emplace<detail::bare_t<Ts>>(offsets[i++], std::forward<Ts>(components)), ...);
            detail::insertion_sort(p.types_.data(), p.types_.size()); // a pack: as short as create_with's
        }
        if constexpr ((detail::has_requires_v<detail::bare_t<Ts>> || ...)) { // value-initialised requirements
            const ComponentTypeID ids[] = {component_id<Ts>()...};
            for (const ComponentTypeID id : ids) {
                const detail::RequiredList req = detail::required_of(id);
                for (size_t i = 0; i < req.count; ++i)
                    if (!p.has_raw(req.ids[i])) (void)p.add_raw(req.ids[i], nullptr);
            }
        }
        return p;
    }

    /// @brief Copy-constructs every default of `other` into a fresh buffer, at the same offsets.
    // Delegating to the default constructor makes this object fully constructed before any default is
    // copied, so a throwing copy constructor runs ~Prefab, which destroys the copies already made.
    Prefab(const Prefab& other) : Prefab() {
        types_ = other.types_;
        children_ = other.children_;
        mask_ = other.mask_;
        maskable_ = other.maskable_;
        archetype_hint_.store(other.hint(), detail::order_relaxed);
        allocate(other.size_, other.align_);
        entries_.reserve(other.entries_.size());
        for (const Entry& entry : other.entries_) {
            entry.copy_to(buffer_ + entry.offset, other.buffer_ + entry.offset);
            entries_.push_back(entry); // after the copy: the destructor only sees constructed defaults
        }
    }

    /// @brief Takes over `other`'s buffer; no default is copied, moved or destroyed. `other` is left
    ///        empty.
    Prefab(Prefab&& other) noexcept
        : entries_(std::move(other.entries_)), types_(std::move(other.types_)), mask_(other.mask_),
          maskable_(other.maskable_), buffer_(other.buffer_), size_(other.size_), align_(other.align_),
          archetype_hint_{other.hint()}, children_(std::move(other.children_)) {
        other.forget();
    }

    /**
     * @brief Replaces this prefab's defaults with copies of `other`'s. The copies are made first and
     *        this prefab's previous defaults are then destroyed (copy and swap), so self-assignment is
     *        safe and a throwing copy constructor leaves this prefab unchanged.
     */
    Prefab& operator=(const Prefab& other) {
        if (this != &other) {
            Prefab copy(other);
            swap(copy); // `copy` now owns the previous defaults and destroys them
        }
        return *this;
    }

    /// @brief Destroys this prefab's defaults, then takes over `other`'s buffer. `other` is left empty.
    Prefab& operator=(Prefab&& other) noexcept {
        if (this != &other) {
            release();
            entries_ = std::move(other.entries_);
            types_ = std::move(other.types_);
            mask_ = other.mask_;
            maskable_ = other.maskable_;
            buffer_ = other.buffer_;
            size_ = other.size_;
            align_ = other.align_;
            archetype_hint_.store(other.hint(), detail::order_relaxed);
            children_ = std::move(other.children_);
            other.forget();
        }
        return *this;
    }

    /// @brief Destroys every default exactly once and frees the buffer.
    ~Prefab() { release(); }

    /// @brief Exchanges the contents of two prefabs; no default is touched.
    void swap(Prefab& other) noexcept {
        children_.swap(other.children_);
        entries_.swap(other.entries_);
        types_.swap(other.types_);
        std::swap(mask_, other.mask_);
        std::swap(maskable_, other.maskable_);
        std::swap(buffer_, other.buffer_);
        std::swap(size_, other.size_);
        std::swap(align_, other.align_);
        const uint32_t mine = hint();
        archetype_hint_.store(other.hint(), detail::order_relaxed);
        other.archetype_hint_.store(mine, detail::order_relaxed);
    }
    friend void swap(Prefab& a, Prefab& b) noexcept { a.swap(b); }

    /// @brief True when the prefab has a default for component type `T` (cv and references ignored).
    template <typename T>
    [[nodiscard]] bool has() const noexcept {
        return find(component_id<T>()) != nullptr;
    }

    /**
     * @brief Appends `child` (copied or moved in) as a child template: instantiate() builds this
     *        prefab's entity, then one entity per child (each with its own children), each linked to
     *        its parent through Parent / Children as set_parent() would link it, children in the
     *        order they were appended. Returns this prefab, for chaining.
     * Complexity: O(1) amortised (a child is stored by value; copying a prefab copies its tree).
     */
    template <typename = void> // the list of children is compiled only where a child is appended
    Prefab& child(Prefab child) {
        children_.create().push_back(std::move(child));
        return *this;
    }
    /// @brief The child templates, in the order child() appended them.
    template <typename = void>
    [[nodiscard]] const std::vector<Prefab>& children() const noexcept {
        static const std::vector<Prefab> none;
        return children_.get() != nullptr ? *children_ : none;
    }

    /// @brief Number of component types in the prefab.
    [[nodiscard]] size_t component_count() const noexcept { return entries_.size(); }

    /// @brief True when the prefab has no component.
    [[nodiscard]] bool empty() const noexcept { return entries_.empty(); }

    /**
     * @brief The stored default of `T`, or nullptr when the prefab has no `T`.
     * Valid until the prefab is assigned to, moved from or destroyed. O(component_count()).
     */
    template <typename T>
    [[nodiscard]] const detail::bare_t<T>* try_get() const noexcept {
        const Entry* entry = find(component_id<T>());
        return entry ? std::launder(reinterpret_cast<const detail::bare_t<T>*>(buffer_ + entry->offset)) : nullptr;
    }

    /**
     * @brief The stored default of `T`.
     * @pre The prefab has `T` (asserted; when assertions are off or report without aborting, a
     *      reference to zeroed static storage is returned instead).
     * Valid until the prefab is assigned to, moved from or destroyed. O(component_count()).
     */
    template <typename T>
    const detail::bare_t<T>& get() const noexcept {
        using C = detail::bare_t<T>;
        const Entry* entry = find(component_id<C>());
        if (!ECS_CHECK(entry != nullptr, "Prefab::get: prefab does not have the component"))
            return detail::fallback_object<C>();
        return *std::launder(reinterpret_cast<const C*>(buffer_ + entry->offset));
    }

    /// @brief The prefab's component ids, sorted ascending and distinct: the TypeSet of the archetype
    /// that instantiate() without extending overrides puts entities in. Sparse
    ///        components are not listed (they are in no archetype).
    [[nodiscard]] const TypeSet& types() const noexcept { return types_; }

    // -- defaults by component id (runtime components too; runtime.hpp) ---------------------------

    /**
     * @brief Gives the prefab a default for component `id`: a copy of `*value`, or a value-initialised
     *        one when `value` is nullptr; replaces the default it has (same position in the hook
     *        order), else appends it (hooks fire last for it). Every default is copy-constructed into
     *        a new buffer (never moved with memcpy). `value` may point into this prefab.
     * @pre `id` names a component type with storage that can copy (and default-construct, for
     *      nullptr) (refused: returns false, the prefab unchanged). Complexity: O(component_count()).
     */
    bool add_raw(ComponentTypeID id, const void* value) {
        const ColumnFactory factory = column_factory(id);
        if (!ECS_CHECK(factory != nullptr, detail::format_message("Prefab::add_raw: unknown component id [id %u]", unsigned(id))))
            return false;
        const ComponentColumn c = factory();
        const detail::DefaultConstructFunc make = detail::default_constructors[id].load(detail::order_acquire);
        if (!ECS_CHECK(c.copy != nullptr && (value != nullptr || make != nullptr),
                       detail::typed_message("Prefab::add_raw: the component type cannot be copied (or default-constructed, for nullptr)",
                                             component_info(id).name)))
            return false;
        // Lay out the new buffer: every present default at its type's alignment, the new one too.
        const Entry* replaced = find(id);
        Prefab next;
        next.types_ = types_;
        next.mask_ = mask_;
        next.maskable_ = maskable_;
        next.entries_.reserve(entries_.size() + 1);
        detail::PodArray<size_t> offsets;
        offsets.resize(entries_.size() + 1, 0);
        size_t size = 0;
        size_t align = 1;
        auto place = [&](size_t type_size, size_t type_align) {
            const size_t offset = (size + type_align - 1) / type_align * type_align;
            size = offset + type_size;
            if (type_align > align) align = type_align;
            return offset;
        };
        for (size_t i = 0; i < entries_.size(); ++i) {
            const ComponentColumn ec = entries_[i].id == id ? c : column_factory(entries_[i].id)();
            offsets[i] = place(ec.type_size, ec.elem_align);
        }
        if (replaced == nullptr) offsets[entries_.size()] = place(c.type_size, c.elem_align);
        next.allocate(size, align);
        for (size_t i = 0; i <= entries_.size(); ++i) { // the ~Prefab of `next` undoes a throw midway
            Entry entry;
            if (i < entries_.size() && entries_[i].id != id) {
                entry = entries_[i];
                entry.offset = offsets[i];
                entry.copy_to(next.buffer_ + entry.offset, buffer_ + entries_[i].offset);
            } else if (i < entries_.size() || replaced == nullptr) {
                entry.id = id;
                entry.is_tag = c.is_tag;
                entry.sparse = is_sparse_id(id); // instantiation puts it in the world's set, as emplace<T>
                entry.offset = offsets[i];
                entry.copy = c.copy;
                entry.destroy = c.trivially_relocatable ? nullptr : c.destroy;
                if (value != nullptr) c.copy(next.buffer_ + entry.offset, value);
                else make(next.buffer_ + entry.offset);
            } else {
                continue; // replaced in place: nothing appended
            }
            next.entries_.push_back(entry);
        }
        if (replaced == nullptr && !is_sparse_id(id)) { // a sparse default is not part of the archetype
            detail::insert_sorted(next.types_, id);
            if (id < ECS_MAX_COMPONENTS) next.mask_.set(id);
            else next.maskable_ = false;
        }
        next.children_ = std::move(children_); // the swap gives them back
        swap(next); // `next` now holds the old defaults and destroys them
        archetype_hint_.store(NO_HINT, detail::order_relaxed);
        return true;
    }

    /// @brief The stored default of component `id`, or nullptr. Valid until the prefab changes.
    [[nodiscard]] const void* get_raw(ComponentTypeID id) const noexcept {
        const Entry* entry = find(id);
        return entry != nullptr ? static_cast<const void*>(buffer_ + entry->offset) : nullptr;
    }
    /// @brief True when the prefab has a default for component `id`.
    [[nodiscard]] bool has_raw(ComponentTypeID id) const noexcept { return find(id) != nullptr; }


private:
    friend struct detail::PrefabAccess;

    /// Metadata of one default. `destroy == nullptr` marks a trivially destructible type. `copy` is
    /// the type's own copy constructor even for trivially copyable types: a typed copy of a small
    /// object is a few moves, cheaper than a call to memcpy with a run-time size.
    struct Entry {
        ComponentTypeID id = INVALID_COMPONENT_ID;
        bool is_tag = false; ///< stored without bytes in archetypes (detail::is_tag_v)
        bool sparse = false; ///< stored in a sparse set, not in the archetype (not in types_)
        size_t offset = 0;   ///< byte offset in the buffer, a multiple of the type's alignment
        CopyFunc copy = nullptr;
        void (*destroy)(void*) = nullptr; ///< not DestroyFunc: columns' destroy functions fit too

        void copy_to(void* dst, const void* src) const { copy(dst, src); }
    };

    template <typename T>
    static size_t reserve_slot(size_t& size, size_t& align) noexcept {
        const size_t offset = (size + alignof(T) - 1) / alignof(T) * alignof(T);
        size = offset + sizeof(T);
        if (alignof(T) > align) align = alignof(T);
        return offset;
    }

    void allocate(size_t size, size_t align) {
        size_ = size;
        align_ = align;
        if (size != 0) buffer_ = static_cast<uint8_t*>(::operator new(size, std::align_val_t(align)));
    }

    template <typename T, typename V>
    void emplace(size_t offset, V&& value) {
        Entry entry;
        entry.id = ensure_column_factory<T>();
        entry.is_tag = detail::is_tag_v<T>;
        entry.sparse = detail::is_sparse_v<T>;
        entry.offset = offset;
        entry.copy = [](void* dst, const void* src) { ::new (dst) T(*static_cast<const T*>(src)); };
        if constexpr (!std::is_trivially_destructible_v<T>)
            entry.destroy = [](void* p) noexcept { static_cast<T*>(p)->~T(); };
        ::new (static_cast<void*>(buffer_ + offset)) T(std::forward<V>(value));
        entries_.push_back(entry); // capacity reserved: cannot throw
        if (entry.sparse) return;  // not part of the archetype
        types_.push_back(entry.id);
        if (entry.id < ECS_MAX_COMPONENTS) mask_.set(entry.id);
        else maskable_ = false;
    }

    [[nodiscard]] const Entry* find(ComponentTypeID id) const noexcept {
        for (const Entry& entry : entries_)
            if (entry.id == id) return &entry;
        return nullptr;
    }

    /// Destroys every default once (in reverse construction order) and frees the buffer.
    void release() noexcept {
        for (size_t i = entries_.size(); i-- > 0;)
            if (entries_[i].destroy) entries_[i].destroy(buffer_ + entries_[i].offset);
        if (buffer_) ::operator delete(buffer_, std::align_val_t(align_));
        forget();
    }

    /// Drops ownership without destroying anything (after a move or a release).
    void forget() noexcept {
        entries_.clear();
        types_.clear();
        mask_.reset();
        maskable_ = true;
        buffer_ = nullptr;
        size_ = 0;
        align_ = 1;
        archetype_hint_.store(NO_HINT, detail::order_relaxed);
    }

    [[nodiscard]] uint32_t hint() const noexcept { return archetype_hint_.load(detail::order_relaxed); }

    static constexpr uint32_t NO_HINT = 0xFFFFFFFFu;

    std::vector<Entry> entries_; ///< in creation order (the order hooks fire in)
    TypeSet types_;              ///< sorted ids of entries_
    ComponentMask mask_;         ///< bits of types_ (those below ECS_MAX_COMPONENTS)
    bool maskable_ = true;       ///< every id is below ECS_MAX_COMPONENTS, so mask_ names types_ exactly
    uint8_t* buffer_ = nullptr;  ///< allocated with std::align_val_t(align_); nullptr when size_ == 0
    size_t size_ = 0;
    size_t align_ = 1;
    /// Position, in the world's archetype list, where the archetype of types_ was found last time.
    /// Only a hint, checked before use (see PrefabAccess::hinted): any world, any thread, any value
    /// is safe. Atomic so that threads instantiating one const prefab into different worlds do not
    /// race.
    mutable detail::AtomicSlot<uint32_t> archetype_hint_{NO_HINT};
    /// Child templates (child()), instantiated under this one; made by the first child(), so a
    /// program without prefab trees never compiles the list's copy and destruction.
    detail::LazyCopyBox<std::vector<Prefab>> children_;
};

namespace detail {

/// Implementation of instantiate(); reaches into Prefab's metadata and the World's internals.
struct PrefabAccess {
    template <typename... Os>
    static Entity instantiate(World& world, const Prefab& prefab, Os&&... overrides) {
        return instantiate_at(world, INVALID_ENTITY, prefab, std::forward<Os>(overrides)...);
    }

    static bool has_children(const Prefab& prefab) noexcept {
        return prefab.children_.get() != nullptr && !prefab.children_->empty();
    }

    /// instantiate() at a new slot (`slot` is INVALID_ENTITY) or at the reserved handle `slot`
    /// (World::DeferredProxy::instantiate; nothing is created when it is no longer reserved), then
    /// the prefab's child templates under it.
    template <typename... Os>
    static Entity instantiate_at(World& world, Entity slot, const Prefab& prefab, Os&&... overrides) {
        const Entity root = instantiate_node(world, slot, prefab, std::forward<Os>(overrides)...);
        if (has_children(prefab) && root != INVALID_ENTITY) build_children(world, root, prefab);
        return root;
    }

    /// One entity per child template of `prefab`, created with Parent{parent} in place (no migration),
    /// each followed by its own subtree; then `parent`'s Children lists them, after any it had.
    template <typename = void> // compiled only where a prefab is instantiated
    static void build_children(World& world, Entity parent, const Prefab& prefab) {
        std::vector<Entity> made;
        made.reserve(prefab.children_->size());
        for (const Prefab& child : *prefab.children_) {
            const Entity e = instantiate_node(world, INVALID_ENTITY, child, Parent{parent});
            if (e == INVALID_ENTITY) continue;
            made.push_back(e);
            if (has_children(child)) build_children(world, e, child);
        }
        if (made.empty() || !world.alive(parent)) return; // a hook may have destroyed it
        if (Children* list = world.try_get<Children>(parent)) list->entities.insert(list->entities.end(), made.begin(), made.end());
        else world.add(parent, Children{std::move(made)});
    }

    /// One entity from `prefab`'s own defaults and `overrides` (no children).
    template <typename... Os>
    static Entity instantiate_node(World& world, Entity slot, const Prefab& prefab, Os&&... overrides) {
        static_assert(distinct_v<Os...>, "instantiate: override types must be distinct");
        if constexpr ((std::is_lvalue_reference_v<Os> || ...)) {
            // Copy first: an argument may refer into a column this call is about to grow.
            return instantiate_node(world, slot, prefab, owned_t<Os>(std::forward<Os>(overrides))...);
        } else {
            if (slot != INVALID_ENTITY && !WorldAccess::reserved(world, slot)) return INVALID_ENTITY;
            if (!ECS_CHECK(!WorldAccess::iterating(world),
                           "instantiate: structural change during iteration (use a deferred path)"))
                return INVALID_ENTITY;
            constexpr size_t N = sizeof...(Os);
            // One trailing element keeps the arrays non-empty when there are no overrides.
            const ComponentTypeID ids[N + 1] = {ensure_column_factory<component_t<Os>>()..., INVALID_COMPONENT_ID};
            bool extends[N + 1] = {(prefab.find(component_id<component_t<Os>>()) == nullptr)..., false};
            // extending sparse overrides are not part of the archetype
            bool table_extends[N + 1] = {(prefab.find(component_id<component_t<Os>>()) == nullptr && !is_sparse_v<component_t<Os>>)..., false};
            bool extended = false;
            for (size_t i = 0; i < N; ++i) extended = extended || table_extends[i];

            Archetype* arch = !extended
                                  ? hinted(world, prefab.archetype_hint_, prefab, ids, table_extends, 0)
                                  : hinted(world, pack_hint<component_t<Os>...>(), prefab, ids, table_extends, N);
            if (arch == nullptr) return INVALID_ENTITY;
            if constexpr (N != 0) {
                if (ECS_UNLIKELY(arch->full())) {
                    // The block is about to move, and an rvalue override may live in it: move them out first.
                    return place<component_t<Os>...>(world, slot, prefab, *arch, ids, extends, owned_t<Os>(std::move(overrides))...);
                }
            }
            return place<component_t<Os>...>(world, slot, prefab, *arch, ids, extends, std::move(overrides)...);
        }
    }

private:
    /// Spawns the entity in `arch`, constructs defaults and overrides at its row, fires the hooks.
    template <typename... Os, typename... Vs>
    static Entity place(World& world, Entity slot, const Prefab& prefab, Archetype& arch, const ComponentTypeID* ids,
                        const bool* extends, Vs&&... overrides) {
        constexpr size_t N = sizeof...(Os);
        Entity e = slot;
        WorldAccess::commit_created(
            world, e,
            [&] {
                uint32_t row = 0;
                e = slot == INVALID_ENTITY ? WorldAccess::spawn(world, arch, row)
                                           : WorldAccess::spawn_reserved(world, slot, arch, row);
                // Defaults first (those not overridden), then every override, all at `row`. Nothing
                // here calls user code other than constructors, so `arch`'s block cannot move meanwhile.
                for (const Prefab::Entry& entry : prefab.entries_) {
                    if (entry.sparse || entry.is_tag || overridden(entry.id, ids, N)) continue;
                    entry.copy_to(arch.column(entry.id).at(row), prefab.buffer_ + entry.offset);
                }
                for (const Prefab::Entry& entry : prefab.entries_) { // sparse defaults into the world's sets
                    if (!entry.sparse || overridden(entry.id, ids, N)) continue;
                    void* storage = WorldAccess::sparse_set(world, entry.id).insert(e);
                    if (!entry.is_tag) entry.copy_to(storage, prefab.buffer_ + entry.offset);
                }
                (construct_override<Os>(world, e, arch, row, std::forward<Vs>(overrides)), ...);
            },
            [&] {
                // Hooks: prefab order, then extending overrides in argument order. A hook may change
                // the world (and even the prefab, although it must not): re-read the sizes each time.
                for (size_t i = 0; i < prefab.entries_.size(); ++i) WorldAccess::fire_on_add(world, e, prefab.entries_[i].id);
                for (size_t i = 0; i < N; ++i)
                    if (extends[i]) WorldAccess::fire_on_add(world, e, ids[i]);
            });
        return e;
    }

    static bool overridden(ComponentTypeID id, const ComponentTypeID* ids, size_t n) noexcept {
        for (size_t i = 0; i < n; ++i)
            if (ids[i] == id) return true;
        return false;
    }

    template <typename O, typename V>
    static void construct_override(World& world, Entity e, Archetype& arch, uint32_t row, V&& value) {
        using C = bare_t<O>;
        if constexpr (is_sparse_v<C>) { // into the world's set
            (void)arch;
            (void)row;
            void* storage = WorldAccess::sparse_set(world, component_id<C>()).insert(e);
            if constexpr (!is_tag_v<C>) detail::place<C>(storage, std::forward<V>(value));
            else (void)value;
        } else if constexpr (!is_tag_v<C>) {
            (void)world;
            (void)e;
            detail::place<C>(arch.column(component_id<C>()).at(row), std::forward<V>(value));
        } else {
            (void)world;
            (void)e;
            (void)arch;
            (void)row;
            (void)value;
        }
    }

    /// Archetype hint of calls extending prefabs with the override pack `Os...` (shared by every
    /// prefab: a miss only costs the hash lookup).
    template <typename... Os>
    static detail::AtomicSlot<uint32_t>& pack_hint() noexcept {
        static detail::AtomicSlot<uint32_t> hint{Prefab::NO_HINT};
        return hint;
    }

    /**
     * The archetype of the prefab's types plus the `flagged` ids among the first `n` of `extra`
     * (none of them in the prefab). First tries the archetype at index `hint` of this world, which
     * is the right one when its mask equals the wanted set's (ids are distinct and below
     * ECS_MAX_COMPONENTS, so equal masks mean equal sets). The check reads only live archetypes of
     * `world`, so a hint left by another world, or by another prefab, is harmless. On a miss, looks
     * the set up by hash (creating the archetype if needed) and updates the hint.
     */
    static Archetype* hinted(World& world, detail::AtomicSlot<uint32_t>& hint, const Prefab& prefab,
                             const ComponentTypeID* extra, const bool* flagged, size_t n) {
        const auto& archetypes = WorldAccess::archetypes(world);
        const uint32_t h = hint.load(detail::order_relaxed);
        bool maskable = prefab.maskable_;
        if (n == 0) {
            if (ECS_LIKELY(h < archetypes.size() && maskable) && archetypes[h]->mask == prefab.mask_)
                return archetypes[h];
            Archetype* found = WorldAccess::find_or_create_archetype(world, prefab.types_);
            if (found != nullptr) hint.store(found->id, detail::order_relaxed);
            return found;
        }
        ComponentMask wanted = prefab.mask_;
        for (size_t i = 0; i < n; ++i) {
            if (!flagged[i]) continue;
            if (extra[i] < ECS_MAX_COMPONENTS) wanted.set(extra[i]);
            else maskable = false;
        }
        if (ECS_LIKELY(h < archetypes.size() && maskable) && archetypes[h]->mask == wanted) return archetypes[h];
        // The union is built in a per-thread scratch TypeSet that keeps its capacity: a miss on a
        // warm thread allocates nothing either.
        thread_local TypeSet scratch;
        scratch = prefab.types_; // keeps the scratch's capacity
        for (size_t i = 0; i < n; ++i)
            if (flagged[i]) detail::insert_sorted(scratch, extra[i]);
        Archetype* found = WorldAccess::find_or_create_archetype(world, scratch);
        if (found != nullptr) hint.store(found->id, detail::order_relaxed);
        return found;
    }
};

/// The deferred instantiate (declared in detail/commands.hpp): a copy of the prefab and the
/// overrides, instantiated at the flush, at the reserved handle `slot` when there is one.
template <typename P, typename... Os>
struct InstantiateCommand {
    template <typename... Vs>
    InstantiateCommand(Entity reserved_slot, const P& source, Vs&&... vs)
        : slot(reserved_slot), prefab(source), overrides(std::forward<Vs>(vs)...) {}
    void run(World& w) {
        overrides.apply([&](Os&&... os) { (void)PrefabAccess::instantiate_at(w, slot, prefab, std::move(os)...); });
        if (slot != INVALID_ENTITY) WorldAccess::cancel_reservation(w, slot); // no-op once created
    }
    /// Dropped without running during a flush: the reserved slot is released (see ReservedCreateCommand).
    void drop(World* w) noexcept {
        if (w != nullptr && slot != INVALID_ENTITY) WorldAccess::cancel_reservation(*w, slot);
    }
    Entity slot;
    P prefab;
    ValuesOf<Os...> overrides;
};

} // namespace detail

/**
 * @brief Creates an entity in `world` with a copy of every default of `prefab`.
 *
 * The entity is created directly in the archetype of prefab.types() (no migration), every non-tag
 * default is copy-constructed into place, then `on_add` hooks fire for every component in the order
 * the components were given to Prefab::create(); get<T>(e) works inside them.
 * @pre Not called during iteration (asserted; refused with INVALID_ENTITY).
 * @return the new entity, or INVALID_ENTITY when refused.
 * Invalidates references into the target archetype. Complexity: O(component_count()) plus one
 * archetype lookup (a hash of the type set).
 */
template <typename = void> // a template: its code is compiled only where a program instantiates a prefab
inline Entity instantiate(World& world, const Prefab& prefab) {
    return detail::PrefabAccess::instantiate(world, prefab);
}

/**
 * @brief Creates an entity from `prefab` with `overrides` applied.
 *
 * An override whose type is in the prefab replaces that default: the override is constructed in
 * place (moved from rvalues, copied from lvalues) and the default is not copied at all. An override
 * of any other type extends the entity. The entity is created directly in the archetype of the union
 * of both type sets (no intermediate archetype, no migration). `on_add` fires for every component:
 * first the prefab's components in Prefab::create() order (overridden ones at their prefab position),
 * then the extending overrides in argument order. Lvalue overrides may refer into the world (they are
 * copied before the world changes).
 * @pre Not called during iteration (asserted; refused with INVALID_ENTITY). Override types are
 *      distinct (checked at compile time).
 * @return the new entity, or INVALID_ENTITY when refused.
 */
template <typename Override, typename... Overrides>
Entity instantiate(World& world, const Prefab& prefab, Override&& override_value, Overrides&&... overrides) {
    return detail::PrefabAccess::instantiate(world, prefab, std::forward<Override>(override_value),
                                             std::forward<Overrides>(overrides)...);
}

} // namespace ecs
