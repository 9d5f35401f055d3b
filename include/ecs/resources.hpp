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

} // namespace ecs::detail
