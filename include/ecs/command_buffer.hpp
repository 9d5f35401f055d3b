/**
 * @file ecs/command_buffer.hpp
 * @brief CommandBuffer: a standalone queue of structural changes, flushed into a World on demand.
 *
 * Same recording API and storage as World::DeferredProxy, but owned by the caller, so commands can
 * be accumulated across systems or frames and flushed into any world. Payloads are constructed in
 * place in pages that never move; recording allocates nothing once the pages have grown. A buffer
 * destroyed, cleared or move-assigned over without a flush destroys its payloads exactly once.
 */
#pragma once

#include <cstddef>
#include <utility>

#include "detail/command_queue.hpp"
#include "world.hpp"

namespace ecs {

class CommandBuffer {
public:
    CommandBuffer() = default;
    CommandBuffer(const CommandBuffer&) = delete;
    CommandBuffer& operator=(const CommandBuffer&) = delete;
    CommandBuffer(CommandBuffer&&) noexcept = default;
    /// Destroys this buffer's unflushed payloads, then takes over `other`'s commands.
    CommandBuffer& operator=(CommandBuffer&&) noexcept = default;
    ~CommandBuffer() = default;

    /// Records destroy(e).
    void destroy(Entity e) { detail::CommandRecorder::destroy(queue_, e); }
    /// Records add(e, value); the value is moved (or copied) into the buffer now.
    template <typename T>
    void add(Entity e, T&& value) {
        detail::CommandRecorder::add(queue_, e, std::forward<T>(value));
    }
    /// Records add<T>(e) with a value-initialised T.
    template <typename T>
    void add(Entity e) {
        add(e, T{});
    }
    /// Records remove<T>(e).
    template <typename T>
    void remove(Entity e) {
        detail::CommandRecorder::remove<T>(queue_, e);
    }
    /// Records create_with(values...); the entity is created at flush.
    template <typename... Ts>
    void create_with(Ts&&... values) {
        detail::CommandRecorder::create_with(queue_, std::forward<Ts>(values)...);
    }

    // ---- [scripting] begin ----
    /// Records add_raw(e, id, value) (runtime.hpp): a copy of `*value` (nothing for nullptr) is taken now.
    void add_raw(Entity e, ComponentTypeID id, const void* value) {
        detail::RawCommandRecorder::add(queue_, "CommandBuffer::add_raw", e, id, value);
    }
    /// Records remove_raw(e, id).
    void remove_raw(Entity e, ComponentTypeID id) { detail::RawCommandRecorder::remove(queue_, "CommandBuffer::remove_raw", e, id); }
    // ---- [scripting] end ----

    /**
     * @brief Executes every command against `world` in recording order, then empties the buffer.
     * @pre `world` is not iterating (asserted; the buffer is then left untouched).
     */
    void flush(World& world) {
        if (!ECS_CHECK(!world.iterating(), "CommandBuffer::flush: called during iteration")) return;
        queue_.run_all(&world);
    }
    /// @brief Destroys every recorded payload without executing it (addition).
    void clear() noexcept { queue_.clear(); }

    /// @brief True when no command is recorded.
    [[nodiscard]] bool empty() const noexcept { return queue_.empty(); }
    /// @brief Number of recorded commands (addition).
    [[nodiscard]] size_t size() const noexcept { return queue_.size(); }

private:
    detail::CommandQueue queue_;
};

} // namespace ecs
