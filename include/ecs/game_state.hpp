/**
 * @file ecs/game_state.hpp
 * @brief The loop's resources: ecs::Time (frame time), ecs::State<S> (a state machine value with a
 *        pending next state) and ecs::in_state(value), a run condition for Schedule::run_if.
 *
 * They are ordinary resources: `world.set_resource(ecs::State<Game>{Game::Menu})`, read from a
 * condition through `const World&` (`w.resource<ecs::Time>()`). Schedule (schedule.hpp) writes Time
 * on run(world, dt) and applies a pending state at the start of a run; this header only holds the
 * values, so it may be included without the schedule.
 *
 * Thread-safety: plain values; a Schedule writes them on the calling thread between waves only.
 */
#pragma once

#include <cstdint>
#include <type_traits>

#include "world.hpp"

namespace ecs {

/// @brief Frame time, set by Schedule::run(world, dt) before any system runs (a resource).
struct Time {
    double delta = 0.0;   ///< seconds since the previous run(world, dt): the `dt` given
    double elapsed = 0.0; ///< sum of every `dt` given so far
    uint64_t frame = 0;   ///< number of run(world, dt) calls so far, this one included
};

/**
 * @brief The current value of a state machine `S` and the value it goes to next (a resource).
 *
 * `set_next(v)` only records `v`; a Schedule that knows `S` (through on_enter / on_exit / in_state)
 * applies it at the start of its next run: the on_exit systems of the old value, then the on_enter
 * systems of the new one, before any other system. Setting it twice before a run keeps the last
 * value. A transition to the current value still runs on_exit then on_enter (like bevy's
 * NextState::set).
 */
template <typename S>
class State {
public:
    static_assert(std::is_copy_constructible_v<S>, "ecs::State<S>: S must be copy-constructible");
    /// @brief A state machine at `initial`, with no pending transition.
    explicit State(S initial) : current_(initial), next_(initial) {}
    /// @brief The current value.
    [[nodiscard]] const S& current() const noexcept { return current_; }
    /// @brief True when the current value is `value`.
    [[nodiscard]] bool is(const S& value) const { return current_ == value; }
    /// @brief Asks for a transition to `value` at the start of the next run (the last call wins).
    void set_next(S value) {
        next_ = value;
        pending_ = true;
    }
    /// @brief True when a transition waits for the next run.
    [[nodiscard]] bool pending() const noexcept { return pending_; }
    /// @brief The value the pending transition goes to. @pre pending()
    [[nodiscard]] const S& next() const noexcept { return next_; }
    /// @brief Makes the pending value current and returns the previous one (the Schedule calls it).
    S apply() {
        S previous = current_;
        current_ = next_;
        pending_ = false;
        return previous;
    }

private:
    S current_;
    S next_;
    bool pending_ = false;
};

/// @brief A run condition: true while the world's `State<S>` is at `value` (false without one).
template <typename S>
struct InState {
    S value;
    [[nodiscard]] bool operator()(const World& world) const {
        const State<S>* state = world.try_resource<State<S>>();
        return state != nullptr && state->current() == value;
    }
};

/// @brief `s.add(...).run_if(ecs::in_state(Game::Playing))`: run only in that state.
template <typename S>
[[nodiscard]] InState<S> in_state(S value) {
    return InState<S>{value};
}

} // namespace ecs
