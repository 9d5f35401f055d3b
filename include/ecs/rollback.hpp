/**
 * @file ecs/rollback.hpp
 * @brief ecs::Rollback: a ring of the last N saved frames of one world, for rollback netcode.
 *
 * Each slot is a World that World::copy_from fills: saving copies the world into the slot, loading
 * copies the slot back. After the first laps the slots and the world hold the same archetypes with
 * room for the same rows, so the world's storage allocates nothing on save and load; values are
 * copy-constructed, so one that owns heap memory (a long std::string, a Children vector) allocates
 * in its copy constructor (see World::copy_from for what is copied and what is kept). Everything a
 * re-simulation depends on must live in the world (components and copyable resources): state kept
 * outside it (a random generator in a system, a FixedStep's accumulator) is not rolled back. A loaded frame equals the saved one in every handle and component value;
 * every event pending in the world when it loads is dropped (readers count them as missed).
 *
 * Thread-safety: as the world it saves (one thread at a time).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "config.hpp"
#include "world.hpp"

namespace ecs {

/**
 * @brief The last `frames` saved frames of one world; save(frame) and load(frame).
 *
 * Frames are numbered by the caller. Saving a frame already held overwrites its slot; saving a new
 * one evicts the oldest held frame once the ring is full. The world must outlive the Rollback.
 */
class Rollback {
public:
    /// @pre frames >= 1 (0 is taken as 1). A template so that a file that makes no Rollback
    /// compiles none of the ring's code.
    template <typename = void>
    Rollback(World& world, size_t frames) : world_(&world), slots_(frames == 0 ? 1 : frames) {
        frames_.assign(slots_.size(), 0);
        held_.assign(slots_.size(), 0);
    }
    Rollback(const Rollback&) = delete;
    Rollback& operator=(const Rollback&) = delete;

    /**
     * @brief Saves the world as frame `frame`. O(world) (World::copy_from into a slot).
     * @pre Not during iteration of the world. No live entity holds a type that is not copyable
     *      (refused, as copy_from: nothing is saved and the frame is not held).
     */
    template <typename Frame>
    void save(Frame frame) {
        static_assert(std::is_integral_v<Frame>, "Rollback::save: the frame number must be an integer");
        const int64_t f = static_cast<int64_t>(frame);
        size_t slot = find(f);
        if (slot == slots_.size()) {
            slot = next_;
            next_ = (next_ + 1) % slots_.size();
        }
        held_[slot] = 0; // held again only when the copy is made
        if (!copyable()) return;
        slots_[slot].copy_from(*world_);
        frames_[slot] = f;
        held_[slot] = 1;
    }

    /**
     * @brief Restores the world to frame `frame` and drops every pending event. O(world).
     * @return false (world unchanged) when that frame is not held (never saved, or evicted).
     * @pre Not during iteration of the world, nor while an EventReader reads it.
     */
    template <typename Frame>
    [[nodiscard]] bool load(Frame frame) {
        static_assert(std::is_integral_v<Frame>, "Rollback::load: the frame number must be an integer");
        const size_t slot = find(static_cast<int64_t>(frame));
        if (slot == slots_.size()) return false;
        world_->copy_from(slots_[slot]);
        world_->update_events(); // two updates drop both event frames
        world_->update_events();
        return true;
    }

    /// True when frame `frame` is held.
    template <typename Frame>
    [[nodiscard]] bool holds(Frame frame) const noexcept {
        return find(static_cast<int64_t>(frame)) != slots_.size();
    }
    /// The number of frames the ring holds at most.
    [[nodiscard]] size_t capacity() const noexcept { return slots_.size(); }

private:
    [[nodiscard]] size_t find(int64_t frame) const noexcept {
        for (size_t i = 0; i < slots_.size(); ++i)
            if (held_[i] != 0 && frames_[i] == frame) return i;
        return slots_.size();
    }
    /// Every value of the world can be copied (else copy_from reports the refusal).
    [[nodiscard]] bool copyable() const { return detail::WorldCloner::copyable(*world_, "Rollback::save", "the frame is not saved"); }

    World* world_;
    std::vector<World> slots_;
    std::vector<int64_t> frames_;
    std::vector<uint8_t> held_;
    size_t next_ = 0; ///< the slot the next new frame takes (the oldest once the ring is full)
};

} // namespace ecs
