/**
 * @file ecs/observers.hpp
 * @brief Observers: the value hooks of a world (on_add / on_remove / on_set, one list per component
 *        type), the query observers (on_enter / on_leave), their ids and their dispatch.
 *
 * A hook may change OTHER entities, structurally too. Dispatch therefore re-reads the entity's record
 * before every callback and holds no row, column pointer or reference across one (PITFALLS 5). With no
 * hook registered for a type, the cost on a structural change is one predictable branch on a flag
 * and a bit test (PITFALLS 6); with no query observer, one branch on a flag.
 *
 * Every registration returns an ObserverId; `disconnect(id)` marks the hook dead. Hooks live on the
 * heap and are freed only when no dispatch runs (compaction), so a hook may disconnect itself or
 * others, or register new ones, while it runs: a dead hook is skipped, the others keep their order.
 *
 * The dispatch functions are templates reached through one pointer that the first registration
 * sets (`Dispatch`), so a file that registers no observer does not compile them.
 *
 * Thread-safety: registration and dispatch need exclusive access to the world.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "archetype.hpp"
#include "component.hpp"
#include "detail/algorithms.hpp"
#include "detail/atomic_slot.hpp"
#include "detail/pod_array.hpp"
#include "detail/std_function.hpp"
#include "entity.hpp"
#include "entity_index.hpp"
#include "sparse.hpp"

namespace ecs {

class World;

/// @brief Names one registered observer (on_add, on_remove, on_set, on_enter, on_leave) for
/// World::disconnect. A default-constructed id names nothing.
struct ObserverId {
    uint32_t value = 0; ///< the observer's number in its world (0: none)
    uint32_t world = 0; ///< which world's observers issued it: disconnect on another world is false
    [[nodiscard]] constexpr bool valid() const noexcept { return value != 0; }
    friend constexpr bool operator==(ObserverId a, ObserverId b) noexcept { return a.value == b.value && a.world == b.world; }
    friend constexpr bool operator!=(ObserverId a, ObserverId b) noexcept { return !(a == b); }
};

namespace detail {
/// Process-wide serial of observer tables (one per World), so ids from one world never match another.
inline AtomicSlot<uint32_t> next_observers_serial{1};
} // namespace detail

namespace detail {

/**
 * @brief The observers of one world: per component id the on_add, on_remove and on_set lists in
 *        registration order, masks of the ids that have any, the query observers, and the slots
 *        whose on_remove hooks are running.
 */
class Observers {
public:
    /// Type-erased hook: receives the world, the entity and the component's address.
    using ErasedHook = std::function<void(World&, Entity, void*)>;
    /// Query observer callback.
    using EntityHook = std::function<void(World&, Entity)>;

    template <typename T>
    static ErasedHook erase(std::function<void(World&, Entity, T&)> fn) {
        return [f = std::move(fn)](World& w, Entity e, void* p) { f(w, e, *static_cast<T*>(p)); };
    }

    // Registration is a template (a defaulted parameter) and arms the dispatch (arm()): the code that
    // runs observers is compiled only in files that register one (see `Dispatch`).
    template <typename = void>
    ObserverId add_on_add(ComponentTypeID id, ErasedHook&& fn) {
        arm();
        return add_hook(t_->add, add_mask_, kinds_.add, id, std::move(fn));
    }
    template <typename = void>
    ObserverId add_on_remove(ComponentTypeID id, ErasedHook&& fn) {
        arm();
        return add_hook(t_->remove, remove_mask_, kinds_.remove, id, std::move(fn));
    }
    template <typename = void>
    ObserverId add_on_set(ComponentTypeID id, ErasedHook&& fn) {
        arm();
        return add_hook(t_->set, set_mask_, kinds_.set, id, std::move(fn));
    }
    /// A query observer over `include` / `exclude`; `enter` picks on_enter (else on_leave).
    template <typename = void>
    ObserverId add_query_observer(bool enter, const ComponentMask& include, const ComponentMask& exclude, bool impossible,
                                  EntityHook&& fn) {
        arm();
        auto hook = make_box<QueryHook>();
        hook->include = include;
        hook->exclude = exclude;
        hook->impossible = impossible;
        hook->fn = std::move(fn);
        hook->id = next_id_++;
        const ObserverId id{hook->id, serial_};
        (enter ? t_->enter : t_->leave).push_back(std::move(hook));
        kinds_.query = true;
        return id;
    }

    /// Marks the observer `id` dead. @return false when unknown or already disconnected.
    template <typename = void>
    bool disconnect(ObserverId id) {
        if (id.value == 0 || id.value >= next_id_ || id.world != serial_ || t_ == nullptr) return false;
        Tables& t = *t_;
        bool found = kill(t.add, id.value) || kill(t.remove, id.value) || kill(t.set, id.value) || kill_query(t.enter, id.value) ||
                     kill_query(t.leave, id.value);
        if (found) {
            garbage_ = true;
            if (dispatching_ == 0) compact<>();
        }
        return found;
    }

    /// True when some on_add hook exists (the one branch structural paths take when there is none).
    [[nodiscard]] ECS_FORCEINLINE bool any_add() const noexcept { return kinds_.add; }
    [[nodiscard]] ECS_FORCEINLINE bool any_remove() const noexcept { return kinds_.remove; }
    [[nodiscard]] ECS_FORCEINLINE bool any_set() const noexcept { return kinds_.set; }
    /// True when some on_enter / on_leave observer exists.
    [[nodiscard]] ECS_FORCEINLINE bool any_query() const noexcept { return kinds_.query; }
    /// True when any observer of any kind exists: one load and one test for the paths that have no
    /// hook to run (destroy's fast path).
    [[nodiscard]] ECS_FORCEINLINE bool any() const noexcept {
        uint32_t word;
        std::memcpy(&word, &kinds_, sizeof word);
        return word != 0;
    }
    /// True when an on_remove hook exists for one of the types of `mask`.
    [[nodiscard]] bool any_remove_in(const ComponentMask& mask) const noexcept { return mask.intersects(remove_mask_); }
    /// any_remove_in, counting the sparse components of entity slot `index` too.
    [[nodiscard]] bool any_remove_for(const ComponentMask& mask, uint32_t index) const noexcept {
        if (mask.intersects(remove_mask_)) return true;
        if (sparse_ == nullptr) return false;
        for (ComponentTypeID id : sparse_->ids())
            if (remove_mask_.test(id) && sparse_->member(id).contains(index)) return true;
        return false;
    }
    /// The world's sparse sets (hooks read sparse values through it); set once, when created.
    void attach_sparse(SparseRoom* room) noexcept { sparse_ = room; }

    /**
     * @brief What queries see of the entity at `row` of `a` (slot `index`): its archetype's types less the
     *        disabled ones, plus its enabled sparse components. @return false when the entity itself
     *        is disabled (it matches nothing).
     */
    static bool seen_mask(const Archetype& a, uint32_t row, uint32_t index, const SparseRoom* sparse,
                          ComponentMask& out) noexcept {
        if (!a.effective_mask(row, out)) return false;
        if (sparse != nullptr)
            for (ComponentTypeID type : sparse->ids()) {
                const SparseSet& set = sparse->member(type);
                if (set.contains(index) && !set.disabled(index)) out.set(type);
            }
        return true;
    }
    [[nodiscard]] bool has_remove(ComponentTypeID id) const noexcept { return remove_mask_.test(id); }
    /// True when an on_add / on_set hook exists for `id` (bulk operations pick their path with it).
    [[nodiscard]] bool has_add(ComponentTypeID id) const noexcept { return id < ECS_MAX_COMPONENTS && add_mask_.test(id); }
    [[nodiscard]] bool has_set(ComponentTypeID id) const noexcept { return id < ECS_MAX_COMPONENTS && set_mask_.test(id); }

    // The dispatch below goes through `dispatch_`, set when the first observer was registered: a bit
    // of a mask or a kind flag is set only by a registration, so it is never null where it is called.
    void fire_on_add(World& w, EntityLookup index, Entity e, ComponentTypeID id) {
        if (add_mask_.test(id)) dispatch_->hooks(*this, t_->add, w, index, e, id);
    }
    void fire_on_remove(World& w, EntityLookup index, Entity e, ComponentTypeID id) {
        if (remove_mask_.test(id)) dispatch_->hooks(*this, t_->remove, w, index, e, id);
    }
    void fire_on_set(World& w, EntityLookup index, Entity e, ComponentTypeID id) {
        if (set_mask_.test(id)) dispatch_->hooks(*this, t_->set, w, index, e, id);
    }

    /**
     * Runs the on_enter observers that match `e`'s archetype and did not match `before` (nullptr: the
     * entity did not exist). Re-reads the record before each; stops when `e` dies.
     *
     * "Match" applies enable bits: `e`'s disabled types count as absent and a disabled entity
     * matches nothing. The types disabled on `e` now are taken out of `before` too, unless `exact`
     * says `before` already is what queries saw.
     */
    void fire_enter(World& w, EntityLookup index, Entity e, const ComponentMask* before, bool exact = false) {
        dispatch_->queries(*this, t_->enter, w, index, e, before, exact);
    }
    /**
     * Runs the on_leave observers that match `e`'s archetype and will not match `after` (nullptr: the
     * entity is destroyed), while its components are still readable. Enable bits as in fire_enter.
     */
    void fire_leave(World& w, EntityLookup index, Entity e, const ComponentMask* after, bool exact = false) {
        dispatch_->queries(*this, t_->leave, w, index, e, after, exact);
    }

    /**
     * Runs the on_remove hooks of every type of live entity `e` (its archetype's order), stopping if a
     * hook destroyed it. @return false when `e` is already being destroyed further up the stack (a
     * hook destroyed it again: that nested destroy must do nothing).
     */
    bool fire_all_on_remove(World& w, EntityLookup index, Entity e) { return dispatch_->remove_all(*this, w, index, e); }

    /// True while `e`'s destroy runs its hooks further up the stack.
    [[nodiscard]] bool dying(Entity e) const noexcept {
        return t_ != nullptr && detail::find_value(t_->dying.begin(), t_->dying.end(), e.index) != t_->dying.end();
    }

private:
    struct Hook {
        ErasedHook fn;
        uint32_t id = 0;
        bool alive = true;
    };
    struct QueryHook {
        ComponentMask include;
        ComponentMask exclude;
        EntityHook fn;
        uint32_t id = 0;
        bool alive = true;
        bool impossible = false; ///< a required type lies beyond the bitset
        [[nodiscard]] bool matches(const ComponentMask& m) const noexcept {
            return !impossible && m.contains(include) && !m.intersects(exclude);
        }
        /// True when the entity at `row` of `a` (slot `index`) matches now and did not match `other` (nullptr: no
        /// other state). Unless `exact`, `other` is an archetype mask: the entity's sparse components
        /// and disabled types are applied to it as they are now.
        [[nodiscard]] bool transition(const Archetype& a, uint32_t row, uint32_t index, const SparseRoom* sparse,
                                      const ComponentMask* other, bool exact) const noexcept {
            if (ECS_LIKELY(!a.enable.any() && sparse == nullptr))
                return matches(a.mask) && (other == nullptr || !matches(*other));
            ComponentMask now; // disabled types are absent; a disabled entity matches nothing
            if (!seen_mask(a, row, index, sparse, now) || !matches(now)) return false;
            if (other == nullptr) return true;
            if (exact) return !matches(*other);
            // `other` is an archetype mask: the disabled types and the sparse components as they are now
            return !matches((*other & ~(a.mask & ~now)) | (now & ~a.mask));
        }
    };
    /// Hooks stay at one address (Box) while their list grows; freed only by compact().
    using HookList = std::vector<Box<Hook>>;
    using HookTable = std::vector<HookList>; ///< by component id

    /// Counts running dispatches; the outermost one compacts what was disconnected meanwhile. A
    /// template, like compact(): only the files that dispatch compile them.
    template <typename = void>
    struct DispatchScope {
        explicit DispatchScope(Observers& o) noexcept : self(o) { ++self.dispatching_; }
        ~DispatchScope() {
            if (--self.dispatching_ == 0 && self.garbage_) self.template compact<>();
        }
        DispatchScope(const DispatchScope&) = delete;
        DispatchScope& operator=(const DispatchScope&) = delete;
        Observers& self;
    };

    template <typename = void>
    ObserverId add_hook(HookTable& table, ComponentMask& mask, bool& any, ComponentTypeID id, ErasedHook&& fn) {
        arm();
        if (id >= table.size()) table.resize(size_t(id) + 1);
        auto hook = make_box<Hook>();
        hook->fn = std::move(fn);
        hook->id = next_id_++;
        const ObserverId result{hook->id, serial_};
        table[id].push_back(std::move(hook));
        mask.set(id);
        any = true;
        return result;
    }

    static bool kill(HookTable& table, uint32_t id) noexcept {
        for (HookList& list : table)
            for (auto& h : list)
                if (h->id == id) {
                    if (!h->alive) return false;
                    h->alive = false;
                    return true;
                }
        return false;
    }
    static bool kill_query(std::vector<Box<QueryHook>>& list, uint32_t id) noexcept {
        for (auto& h : list)
            if (h->id == id) {
                if (!h->alive) return false;
                h->alive = false;
                return true;
            }
        return false;
    }

    /// Frees dead hooks and recomputes the masks and flags. Only when no dispatch runs.
    template <typename = void>
    void compact() {
        garbage_ = false;
        auto sweep = [](auto& list) {
            size_t kept = 0;
            for (size_t i = 0; i < list.size(); ++i)
                if (list[i]->alive) list[kept++] = std::move(list[i]);
            list.resize(kept);
        };
        auto sweep_table = [&](HookTable& table, ComponentMask& mask, bool& any) {
            mask.reset();
            for (size_t id = 0; id < table.size(); ++id) {
                sweep(table[id]);
                if (!table[id].empty()) mask.set(id);
            }
            any = mask.any();
        };
        Tables& t = *t_; // compact() runs only after a disconnect found a hook
        sweep_table(t.add, add_mask_, kinds_.add);
        sweep_table(t.remove, remove_mask_, kinds_.remove);
        sweep_table(t.set, set_mask_, kinds_.set);
        sweep(t.enter);
        sweep(t.leave);
        kinds_.query = !t.enter.empty() || !t.leave.empty();
    }

    /// Runs the live hooks of `id` on `e`, re-reading the record before each one: a hook may move rows
    /// of this archetype or grow its block, or register hooks (the table may grow: index it anew).
    /// Stops when `e` no longer has the component.
    template <typename = void>
    static void fire_hooks(Observers& self, HookTable& hooks, World& w, EntityLookup index, Entity e, ComponentTypeID id) {
        DispatchScope<> scope(self);
        for (size_t i = 0; i < hooks[id].size(); ++i) {
            Hook& h = *hooks[id][i];
            if (!h.alive) continue;
            if (!index.alive(e)) return;
            const EntityRecord& r = index[e.index];
            void* value = nullptr;
            Archetype& a = index.archetype(r);
            if (a.has(id)) value = a.column(id).at(r.row);
            else if (self.sparse_ != nullptr && self.sparse_->set(id) != nullptr) value = self.sparse_->set(id)->find(e.index);
            if (value == nullptr) return;
            h.fn(w, e, value);
        }
    }

    /// Runs the observers of `list` (the enter or leave list) whose query `e` enters or leaves (see fire_enter,
    /// fire_leave), re-reading the record before each; stops when `e` dies.
    template <typename = void>
    static void fire_queries(Observers& self, std::vector<Box<QueryHook>>& list, World& w, EntityLookup index, Entity e,
                             const ComponentMask* other, bool exact) {
        DispatchScope<> scope(self);
        for (size_t i = 0; i < list.size(); ++i) {
            QueryHook& h = *list[i];
            if (!h.alive) continue;
            if (!index.alive(e)) return;
            if (!h.transition(index.archetype(index[e.index]), index[e.index].row, e.index, self.sparse_, other, exact)) continue;
            h.fn(w, e);
        }
    }

    /// fire_all_on_remove's work (see there).
    template <typename = void>
    static bool fire_remove_all(Observers& self, World& w, EntityLookup index, Entity e) {
        detail::PodArray<uint32_t>& dying = self.t_->dying; // armed: the tables exist
        if (detail::find_value(dying.begin(), dying.end(), e.index) != dying.end()) return false;
        dying.push_back(e.index);
        struct Unmark { // also when a hook throws
            detail::PodArray<uint32_t>& dying;
            uint32_t slot;
            ~Unmark() {
                uint32_t* at = detail::find_value(dying.begin(), dying.end(), slot);
                for (uint32_t* next = at + 1; next != dying.end(); ++next) next[-1] = *next;
                dying.pop_back();
            }
        } unmark{dying, e.index};
        const Archetype* arch = &index.archetype(index[e.index]);
        for (size_t i = 0; i < arch->types.size(); ++i) {
            const ComponentTypeID id = arch->types[i];
            if (!self.remove_mask_.test(id)) continue;
            fire_hooks(self, self.t_->remove, w, index, e, id); // `arch` stays valid: archetypes are never freed
            if (!index.alive(e)) return true;
        }
        if (self.sparse_ != nullptr) // then the sparse components, in id order
            for (size_t i = 0; i < self.sparse_->ids().size(); ++i) {
                const ComponentTypeID id = self.sparse_->ids()[i];
                if (!self.remove_mask_.test(id) || !self.sparse_->member(id).contains(e.index)) continue;
                fire_hooks(self, self.t_->remove, w, index, e, id);
                if (!index.alive(e)) return true;
            }
        return true;
    }

    /**
     * The dispatch code, reached through one pointer: a structural change calls it only when a mask
     * or a flag says an observer exists, and only a registration sets those, after arm(). So the
     * functions it names are instantiated only where a program registers an observer, not in every
     * file that creates entities (compile cost: bench/README, "Compile time").
     */
    struct Dispatch {
        void (*hooks)(Observers&, HookTable&, World&, EntityLookup, Entity, ComponentTypeID);
        void (*queries)(Observers&, std::vector<Box<QueryHook>>&, World&, EntityLookup, Entity, const ComponentMask*, bool);
        bool (*remove_all)(Observers&, World&, EntityLookup, Entity);
    };
    template <typename = void>
    void arm() {
        t_.create();
        static constexpr Dispatch table{&fire_hooks<>, &fire_queries<>, &fire_remove_all<>};
        dispatch_ = &table;
    }

    /// The hook lists: made by the first registration (arm) and destroyed through the function it
    /// stores, so a world without observers compiles neither their construction nor their destruction.
    struct Tables {
        HookTable add;
        HookTable remove;
        HookTable set;
        std::vector<Box<QueryHook>> enter;
        std::vector<Box<QueryHook>> leave;
        PodArray<uint32_t> dying; ///< slots whose on_remove hooks are running (nested destroys)
    };
    LazyBox<Tables> t_;
    ComponentMask add_mask_;
    ComponentMask remove_mask_;
    ComponentMask set_mask_;
    struct Kinds { ///< which kinds of observer exist (four bytes: any() reads them at once)
        bool add = false;
        bool remove = false;
        bool set = false;
        bool query = false;
    } kinds_;
    static_assert(sizeof(Kinds) == sizeof(uint32_t), "Observers::any() reads the four flags as one word");
    bool garbage_ = false;      ///< some hook was disconnected and not freed yet
    uint32_t dispatching_ = 0;  ///< nested dispatch depth
    uint32_t next_id_ = 1;
    uint32_t serial_ = next_observers_serial.fetch_add(1, detail::order_relaxed); ///< see ObserverId::world
    SparseRoom* sparse_ = nullptr; ///< the world's sparse sets (owned by its archetype graph)
    const Dispatch* dispatch_ = nullptr; ///< set by the first registration (arm)
};

} // namespace detail
} // namespace ecs
