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
    template <typename = void> // like the members below: compiled only where called
    void destroy(Entity e) { detail::CommandRecorder::destroy(queue_, e); }
    /// Records add(e, value); the value is moved (or copied) into the buffer now.
    template <typename T>
    void add(Entity e, T&& value) {
        detail::CommandRecorder::add(queue_, e, std::forward<T>(value));
    }
    /// Records add<T>(e) with a value-initialised T.
    template <typename T>
    void add(Entity e) {
        add(e, construct<T>()); // built in place at the flush
    }
    /// Records add(e, a, b, ...): one migration at the flush.
    template <typename T, typename U, typename... Ts>
    void add(Entity e, T&& first, U&& second, Ts&&... rest) {
        detail::CommandRecorder::add_many(queue_, e, std::forward<T>(first), std::forward<U>(second), std::forward<Ts>(rest)...);
    }
    /// Records remove<T>(e).
    template <typename T>
    void remove(Entity e) {
        detail::CommandRecorder::remove<T>(queue_, e);
    }
    /// Records remove<A, B, ...>(e): one migration at the flush.
    template <typename T, typename U, typename... Ts>
    void remove(Entity e) {
        detail::CommandRecorder::remove_many<T, U, Ts...>(queue_, e);
    }
    /// Records emplace<T>(e, args...): the arguments are copied or moved into the buffer
    /// now and `T` is constructed from them in place at the flush; no-op if `e` is dead by then.
    template <typename T, typename... Args>
    void emplace(Entity e, Args&&... args) {
        detail::CommandRecorder::emplace<T>(queue_, e, std::forward<Args>(args)...);
    }
    /// Records `fn(World&)`, run at its place in the buffer at the flush.
    template <typename F>
    void call(F&& fn) {
        detail::CommandRecorder::call(queue_, std::forward<F>(fn));
    }
    /// Records emit(e, event): the event is moved (or copied) into the buffer now and emitted at the
    /// flush (a no-op if `e` is dead by then). The way to emit from inside iteration.
    template <typename E>
    void emit(Entity e, E&& event) {
        detail::CommandRecorder::call(queue_, [e, ev = detail::bare_t<E>(std::forward<E>(event))](World& w) mutable {
            w.emit(e, std::move(ev));
        });
    }
    /// Records create_with(values...); the entity is created at flush. Returns nothing: a buffer is
    /// not bound to a world, so no handle can be reserved.
    template <typename... Ts>
    void create_with(Ts&&... values) {
        detail::CommandRecorder::create_with(queue_, std::forward<Ts>(values)...);
    }
    // ---- ----
    /// Records relate<R>(source, target); at flush a no-op when either is dead by then.
    template <typename R>
    void relate(Entity source, Entity target) {
        detail::CommandRecorder::relate<R>(queue_, source, target);
    }
    /// Records unrelate<R>(source, target).
    template <typename R>
    void unrelate(Entity source, Entity target) {
        detail::CommandRecorder::unrelate<R>(queue_, source, target);
    }
    /// Records unrelate_all<R>(source).
    template <typename R>
    void unrelate_all(Entity source) {
        detail::CommandRecorder::unrelate_all<R>(queue_, source);
    }
    /// Records instantiate(prefab, overrides...); the entity is created at flush. The
    /// prefab is copied into the buffer. Needs ecs/prefab.hpp.
    template <typename P, typename... Os>
    void instantiate(const P& prefab, Os&&... overrides) {
        detail::CommandRecorder::instantiate(queue_, INVALID_ENTITY, prefab, std::forward<Os>(overrides)...);
    }

    /// Records add_raw(e, id, value) (runtime.hpp): a copy of `*value` (nothing for nullptr) is taken now.
    template <typename = void>
    void add_raw(Entity e, ComponentTypeID id, const void* value) {
        detail::RawCommandRecorder::add(queue_, "CommandBuffer::add_raw", e, id, value);
    }
    /// Records remove_raw(e, id).
    template <typename = void>
    void remove_raw(Entity e, ComponentTypeID id) { detail::RawCommandRecorder::remove(queue_, "CommandBuffer::remove_raw", e, id); }

    /**
     * @brief Executes every command against `world` in recording order, then empties the buffer.
     * @pre `world` is not iterating (asserted; the buffer is then left untouched).
     */
    void flush(World& world) {
        if (!ECS_CHECK(!world.iterating(), "CommandBuffer::flush: called during iteration")) return;
        queue_.run_all(&world);
    }
    /// @brief Destroys every recorded payload without executing it.
    void clear() noexcept { queue_.clear(); }

    /// @brief True when no command is recorded.
    [[nodiscard]] bool empty() const noexcept { return queue_.empty(); }
    /// @brief Number of recorded commands.
    [[nodiscard]] size_t size() const noexcept { return queue_.size(); }

private:
    detail::CommandQueue queue_;
};

} // namespace ecs
