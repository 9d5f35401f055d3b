/**
 * @file ecs/events.hpp
 * @brief Events: typed, double-buffered message channels owned by a World, read through cursors.
 *
 * `world.send(E{...})` appends an event to the world's channel for `E` (created on the first send).
 * An `EventReader<E>` is a cursor: it remembers the sequence number of the next event it expects,
 * and `reader.read(world, fn)` calls `fn(const E&)` for every event of that channel it has not seen
 * yet, oldest first. `world.update_events()` ends an event frame: the events sent before the
 * previous update_events() are destroyed. So an event stays readable until the second
 * update_events() after it was sent, and a reader that reads once per frame sees every event
 * exactly once, whether it runs before or after the systems that send (bevy's `Events<T>`).
 * A reader that reads less often skips the events dropped in between; `missed()` counts them.
 *
 * Storage: per type, two buffers of fixed-size pages (the events of the previous frame and of the
 * current one). Pages never move, so events are constructed once (move from the argument), never
 * relocated, and destroyed once, when the frame that holds them is dropped or the world goes.
 * update_events() keeps the pages: in steady state sending allocates nothing. A world that never
 * sends an event pays one null pointer.
 *
 * Thread-safety (room rule): events belong to their World and follow its rule, one thread at a
 * time, with one exception: several threads may call `read(const World&, fn)` at once, each with
 * its own reader, while no thread sends, updates, moves or destroys that world (a const read writes
 * only to the reader).
 *
 * Process-wide state in this header: one id counter for event types (lock-free, first use
 * thread-safe), separate from component ids, so event types never use up ECS_MAX_COMPONENTS.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

#include "component.hpp"
#include "config.hpp"
#include "detail/atomic_slot.hpp"
#include "detail/dependent.hpp"
#include "detail/pod_array.hpp"

namespace ecs {

class World;

namespace detail {

// ---------------------------------------------------------------------------------------------------
// Event type ids: dense, per process, separate from component ids
// ---------------------------------------------------------------------------------------------------

inline AtomicSlot<uint32_t> next_event_type_id{0};

template <typename E>
struct EventIdSlot {
    static inline AtomicSlot<uint32_t> id{UNASSIGNED_ID};
};

#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline, cold))
#endif
inline uint32_t assign_event_type_id(AtomicSlot<uint32_t>& slot) noexcept {
    uint32_t expected = UNASSIGNED_ID;
    const uint32_t fresh = next_event_type_id.fetch_add(1, detail::order_relaxed);
    if (slot.compare_exchange_strong(expected, fresh, detail::order_relaxed)) return fresh;
    return expected; // another thread won; `fresh` stays unused
}

/// Dense id of event type `E` (a hole in the numbering is possible when two threads race).
template <typename E>
ECS_FORCEINLINE uint32_t event_type_id() noexcept {
    const uint32_t id = EventIdSlot<E>::id.load(detail::order_relaxed);
    if (ECS_LIKELY(id != UNASSIGNED_ID)) return id;
    return assign_event_type_id(EventIdSlot<E>::id);
}

// ---------------------------------------------------------------------------------------------------
// One channel per event type
// ---------------------------------------------------------------------------------------------------

/// What the registry knows about a channel without its type: two plain function pointers.
struct EventChannelBase {
    void (*update)(EventChannelBase*) noexcept = nullptr;  ///< drops the older frame, swaps frames
    void (*destroy)(EventChannelBase*) noexcept = nullptr; ///< destroys every event and the channel
};

/**
 * @brief The events of type `E` sent to one world: two frames, each a list of pages.
 *
 * Sequence numbers: the n-th event ever sent to the channel has id n. The older frame holds ids
 * [older.start, newer.start), the newer frame [newer.start, sent()). Readers keep the id they expect
 * next, so reading is a subtraction and an index, never a search.
 */
template <typename E>
class EventChannel final : public EventChannelBase {
public:
    /// Events per page: a power of two, pages of about 4 KiB (one event per page when larger).
    static constexpr size_t PAGE = [] {
        size_t n = 1;
        while (n * 2 * sizeof(E) <= 4096) n *= 2;
        return n;
    }();

    EventChannel() noexcept {
        update = [](EventChannelBase* self) noexcept { static_cast<EventChannel*>(self)->advance(); };
        destroy = [](EventChannelBase* self) noexcept { delete static_cast<EventChannel*>(self); };
    }
    EventChannel(const EventChannel&) = delete;
    EventChannel& operator=(const EventChannel&) = delete;
    ~EventChannel() {
        for (Frame& f : frames_) {
            destroy_range(f, f.start, end_of(f));
            for (E* page : f.pages) ::operator delete(page, std::align_val_t(alignof(E)));
        }
    }

    /// Constructs one event from `value` at the end of the newer frame.
    template <typename V>
    ECS_FORCEINLINE void push(V&& value) {
        if (ECS_UNLIKELY(write_ == write_end_)) next_page();
        ::new (static_cast<void*>(write_)) E(std::forward<V>(value));
        ++write_; // counted only once constructed: a throwing constructor leaves nothing behind
    }

    /**
     * @brief Visits the events with ids in [`next`, sent at the call), oldest first; advances `next`
     *        past them and adds the dropped ids it skipped to `missed`.
     *
     * Events that `fn` sends are not visited by this call (the end is taken on entry), so a handler
     * that answers an event with another of the same type cannot loop forever; the next read sees
     * them. Pages never move, so the reference `fn` holds stays valid while it sends.
     */
    template <typename Fn>
    size_t read(uint64_t& next, size_t& missed, Fn& fn) const {
        const Frame& older = frames_[newer_ ^ 1u];
        const uint64_t end = sent();
        if (next < older.start) {
            missed += static_cast<size_t>(older.start - next);
            next = older.start;
        }
        if (next >= end) return 0; // nothing new (or a cursor from another world: see EventReader)
        const uint64_t first = next;
        next = end; // before the callbacks: a read of this same cursor from inside fn finds nothing new
        const Frame& newer = frames_[newer_];
        const uint64_t split = newer.start; // fn may send, but never ends the frame (asserted)
        if (first < split) visit(older, first, split, fn);
        visit(newer, first < split ? split : first, end, fn);
        return static_cast<size_t>(end - first);
    }

    /// Number of events sent to this channel so far (the id the next one gets).
    [[nodiscard]] uint64_t sent() const noexcept {
        return page_id_ + static_cast<uint64_t>(write_ - page_begin_);
    }

private:
    struct Frame {
        PodArray<E*> pages; ///< kept across frames: steady state allocates nothing
        uint64_t start = 0; ///< id of the first event of the frame
    };

    [[nodiscard]] uint64_t end_of(const Frame& f) const noexcept {
        return &f == &frames_[newer_] ? sent() : frames_[newer_].start;
    }

    template <typename Fn>
    static void visit(const Frame& f, uint64_t from, uint64_t to, Fn& fn) {
        size_t offset = static_cast<size_t>(from - f.start);
        const size_t last = static_cast<size_t>(to - f.start);
        while (offset < last) {
            const size_t page_index = offset / PAGE;
            const size_t page_first = page_index * PAGE;
            const size_t stop = page_first + PAGE < last ? page_first + PAGE : last;
            const E* page = f.pages[page_index]; // re-read per page: fn may grow the page list
            for (size_t i = offset - page_first, n = stop - page_first; i < n; ++i) fn(page[i]);
            offset = stop;
        }
    }

    static void destroy_range(Frame& f, uint64_t from, uint64_t to) noexcept {
        if constexpr (!std::is_trivially_destructible_v<E>) {
            for (size_t i = static_cast<size_t>(from - f.start), n = static_cast<size_t>(to - f.start); i < n; ++i)
                f.pages[i / PAGE][i % PAGE].~E();
        } else {
            (void)f;
            (void)from;
            (void)to;
        }
    }

    /// The newer frame's write position reached a page end (or the frame is fresh): continue on its
    /// next page, reusing one kept from an earlier frame when there is one.
    ECS_NOINLINE void next_page() {
        Frame& f = frames_[newer_];
        const uint64_t id = sent();
        const size_t index = static_cast<size_t>(id - f.start) / PAGE;
        if (index == f.pages.size()) {
            f.pages.reserve_more(1); // before allocating the page: nothing leaks if it fails
            f.pages.push_back_unchecked(static_cast<E*>(::operator new(PAGE * sizeof(E), std::align_val_t(alignof(E)))));
        }
        page_id_ = id;
        page_begin_ = write_ = f.pages[index];
        write_end_ = write_ + PAGE;
    }

    /// Ends a frame: the older frame's events are destroyed, it becomes the (empty) newer frame.
    void advance() noexcept {
        Frame& older = frames_[newer_ ^ 1u];
        destroy_range(older, older.start, frames_[newer_].start);
        older.start = sent();
        newer_ ^= 1u;
        page_id_ = older.start;
        page_begin_ = write_ = write_end_ = nullptr; // the next push starts on the frame's first page
    }

    Frame frames_[2];
    unsigned newer_ = 0;
    // The write position, all a send touches. The number of events sent so far is not stored: it
    // is page_id_ + (write_ - page_begin_).
    E* write_ = nullptr;      ///< next free slot of the newer frame's current page
    E* write_end_ = nullptr;  ///< end of that page
    E* page_begin_ = nullptr; ///< first slot of that page (nullptr before a frame's first send)
    uint64_t page_id_ = 0;    ///< id of the event in the page's first slot
};

/**
 * @brief A world's event channels, indexed by event type id. Empty (one null pointer) until the
 *        first send; moving it hands the channels over.
 */
class EventRegistry {
public:
    EventRegistry() noexcept = default;
    EventRegistry(const EventRegistry&) = delete;
    EventRegistry& operator=(const EventRegistry&) = delete;
    EventRegistry(EventRegistry&& other) noexcept : table_(other.table_), release_(other.release_) { other.table_ = nullptr; }
    EventRegistry& operator=(EventRegistry&& other) noexcept {
        if (this != &other) {
            release();
            table_ = other.table_;
            release_ = other.release_;
            other.table_ = nullptr;
        }
        return *this;
    }
    ~EventRegistry() { release(); }

    /// The channel of `E`, or nullptr when no `E` was ever sent to this world.
    template <typename E>
    [[nodiscard]] EventChannel<E>* find() const noexcept {
        const uint32_t id = event_type_id<E>();
        if (table_ == nullptr || id >= table_->channels.size()) return nullptr;
        return static_cast<EventChannel<E>*>(table_->channels[id]);
    }

    template <typename E, typename V>
    ECS_FORCEINLINE void send(V&& value) {
        EventChannel<E>* c = find<E>();
        if (ECS_UNLIKELY(c == nullptr)) c = create<E>();
        c->push(std::forward<V>(value));
    }

    /// Ends an event frame on every channel. @return false (and does nothing) during a read.
    bool update() noexcept {
        if (table_ == nullptr) return true;
        if (table_->reading != 0) return false;
        for (EventChannelBase* c : table_->channels)
            if (c != nullptr) c->update(c);
        return true;
    }

    /// Marks a read through a non-const World& for its duration, so that update() can refuse.
    class ReadScope {
    public:
        explicit ReadScope(const EventRegistry& r) noexcept : depth_(r.table_ ? &r.table_->reading : nullptr) {
            if (depth_ != nullptr) ++*depth_;
        }
        ~ReadScope() {
            if (depth_ != nullptr) --*depth_;
        }
        ReadScope(const ReadScope&) = delete;
        ReadScope& operator=(const ReadScope&) = delete;

    private:
        uint32_t* depth_;
    };

private:
    struct Table {
        PodArray<EventChannelBase*> channels; ///< by event type id; nullptr for types never sent
        uint32_t reading = 0;                 ///< reads running through a non-const World&
    };

    template <typename E>
    ECS_NOINLINE EventChannel<E>* create() {
        if (table_ == nullptr) {
            table_ = new Table();
            release_ = &release_table<>; // compiled where events are sent, not by every World
        }
        const uint32_t id = event_type_id<E>();
        if (id >= table_->channels.size()) table_->channels.resize(size_t(id) + 1, nullptr);
        auto* c = new EventChannel<E>();
        table_->channels[id] = c;
        return c;
    }

    void release() noexcept {
        if (table_ == nullptr) return;
        Table* const t = table_;
        table_ = nullptr;
        release_(t);
    }
    template <typename = void>
    static void release_table(Table* t) noexcept {
        for (EventChannelBase* c : t->channels)
            if (c != nullptr) c->destroy(c);
        delete t;
    }

    Table* table_ = nullptr;
    void (*release_)(Table*) noexcept = nullptr; ///< release_table<>, set with the table
};

/// World's registry for EventReader. A template, so World needs to be complete only where a read
/// is instantiated (world.hpp includes this header before it defines World).
struct EventAccess {
    template <typename W>
    static auto& registry(W& world) noexcept {
        return world.events_;
    }
};

} // namespace detail

/**
 * @brief A cursor over the events of type `E` of a world: reads each event once.
 *
 * Default-constructible and copyable: a copy continues from the same position, independently. A
 * new reader starts at the first event ever sent: its first read visits everything still buffered,
 * and the events already dropped count as missed.
 *
 * A reader carries no reference to a world: using one reader with two worlds mixes their sequence
 * numbers (nothing is visited twice or out of bounds, but events are skipped or missed counts are
 * meaningless). Use one reader per world.
 */
template <typename E>
class EventReader {
    static_assert(std::is_same_v<E, detail::bare_t<E>>, "EventReader: event type must not be cv-qualified or a reference");

public:
    EventReader() noexcept = default;

    /**
     * @brief Calls `fn(const E&)` for each `E` sent to `world` since this reader's last read,
     *        oldest first, and moves the cursor past them.
     *
     * `fn` may send events (of any type); those of type `E` are not visited by this call but by the
     * next. `fn` may read with other readers.
     * @pre `fn` does not call `world.update_events()` (asserted and refused).
     * @return the number of events visited. Complexity: O(events visited).
     */
    template <typename Fn>
    size_t read(World& world, Fn&& fn) {
        using W = typename detail::DependentType<Fn, World>::type; // World is complete by now
        const detail::EventRegistry& events = detail::EventAccess::registry(static_cast<W&>(world));
        const detail::EventChannel<E>* channel = events.template find<E>();
        if (channel == nullptr) return 0;
        const detail::EventRegistry::ReadScope scope(events);
        return channel->read(next_, missed_, fn);
    }

    /**
     * @brief Same, on a const world: several threads may read one world at once this way, each
     *        with its own reader, while nobody modifies the world.
     * @pre `fn` does not modify the world (not checked).
     */
    template <typename Fn>
    size_t read(const World& world, Fn&& fn) {
        using W = typename detail::DependentType<Fn, World>::type;
        const detail::EventChannel<E>* channel =
            detail::EventAccess::registry(static_cast<const W&>(world)).template find<E>();
        if (channel == nullptr) return 0;
        return channel->read(next_, missed_, fn);
    }

    /// @brief Events dropped by update_events() before this reader read them (cumulative).
    [[nodiscard]] size_t missed() const noexcept { return missed_; }

private:
    uint64_t next_ = 0;  ///< sequence number of the next event this reader expects
    size_t missed_ = 0;
};

} // namespace ecs
