/**
 * @file ecs/resources.hpp
 * @brief Resources: one value per type per world (a clock, an input state, a spatial grid), stored
 *        outside every archetype.
 *
 * Each resource is one heap object at its own alignment, found by indexing a table with the type's
 * component id: no hashing. Replacing a resource keeps its address.
 *
 * Thread-safety: reads of distinct resources may run concurrently; insertion and removal need
 * exclusive access.
 */
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

#include "component.hpp"
#include "detail/pod_array.hpp"

namespace ecs::detail {

/// The resources of one world, indexed by component id.
class Resources {
public:
    /// Inserts the resource of type `R`, or replaces it in place (the old value is destroyed first).
    template <typename R>
    void set(R&& value) {
        ResourceRecord& slot = slot_of(component_id<R>());
        if (slot.object) {
            R* old = static_cast<R*>(slot.object);
            if (old == &value) return; // set_resource(std::move(resource<R>())): already in place
            old->~R(); // the old value is destroyed; the new one takes its storage
            ::new (static_cast<void*>(old)) R(std::move(value));
        } else {
            void* storage = ::operator new(sizeof(R), std::align_val_t(alignof(R)));
            ::new (storage) R(std::move(value));
            slot.object = storage;
            slot.destroy = [](void* p) noexcept {
                static_cast<R*>(p)->~R();
                ::operator delete(p, std::align_val_t(alignof(R)));
            };
            if constexpr (std::is_copy_constructible_v<R>)
                slot.clone = [](const void* from) -> void* {
                    void* copy = ::operator new(sizeof(R), std::align_val_t(alignof(R)));
                    struct Free { // a throwing copy constructor leaves no storage behind
                        void* p;
                        ~Free() { if (p) ::operator delete(p, std::align_val_t(alignof(R))); }
                    } guard{copy};
                    ::new (copy) R(*static_cast<const R*>(from));
                    guard.p = nullptr;
                    return copy;
                };
            if constexpr (std::is_copy_assignable_v<R>)
                slot.assign = [](void* to, const void* from) { *static_cast<R*>(to) = *static_cast<const R*>(from); };
        }
    }
    /**
     * @brief Destroys the copyable resources (World::copy_from from a world that holds none); the
     *        others stay.
     */
    void drop_copyable() noexcept {
        for (size_t id = 0; id < table_.size(); ++id)
            if (table_[id].object != nullptr && table_[id].clone != nullptr) table_.reset(id);
    }
    /**
     * @brief Makes the copyable resources equal to `other`'s (World::copy_from): each copyable
     *        resource of `other` is copy-assigned over this one's (no allocation) or copied into a new
     *        object; a copyable resource `other` lacks is destroyed. Resources that cannot be copied
     *        (here or in `other`) are left as they are.
     */
    void copy_from(const Resources& other) {
        const size_t n = other.table_.size() > table_.size() ? other.table_.size() : table_.size();
        for (size_t id = 0; id < n; ++id) {
            const ResourceRecord* from = id < other.table_.size() ? &other.table_[id] : nullptr;
            if (from == nullptr || from->object == nullptr) {
                if (id < table_.size() && table_[id].object != nullptr && table_[id].clone != nullptr) table_.reset(id);
                continue;
            }
            if (from->clone == nullptr) continue; // not copyable: this world's own value (if any) stays
            ResourceRecord& slot = slot_of(static_cast<ComponentTypeID>(id));
            if (slot.object != nullptr && slot.assign != nullptr) {
                slot.assign(slot.object, from->object);
                continue;
            }
            void* copy = from->clone(from->object);
            table_.reset(id);
            slot = *from;
            slot.object = copy;
        }
    }
    /// The resource with component id `id`, or nullptr.
    [[nodiscard]] void* find(ComponentTypeID id) noexcept {
        return id < table_.size() ? table_[id].object : nullptr;
    }
    /// Destroys the resource with component id `id`; no-op when absent.
    void remove(ComponentTypeID id) noexcept {
        if (id < table_.size()) table_.reset(id);
    }
    /// Number of slots (one past the highest id ever used).
    [[nodiscard]] size_t slots() const noexcept { return table_.size(); }

private:
    ResourceRecord& slot_of(ComponentTypeID id) {
        if (id >= table_.size()) table_.resize(size_t(id) + 1);
        return table_[id];
    }
    ResourceTable table_;
};

/// World::copy_from's step for the resources: `to` (made if needed) takes `from`'s copyable
/// resources; when `from` was never made, `to` drops its copyable ones. (A template: compiled only
/// where a world is copied.)
template <class R = Resources>
inline void copy_resources(LazyBox<R>& to, const LazyBox<R>& from) {
    if (from != nullptr) to.create().copy_from(*from);
    else if (to != nullptr) to->drop_copyable();
}

} // namespace ecs::detail
