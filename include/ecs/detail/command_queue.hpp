/**
 * @file ecs/detail/command_queue.hpp
 * @brief Type-erased, allocation-free (in steady state) queue of recorded commands.
 *
 * Each record is a small header (two function pointers and the offset of the next record) followed
 * by its payload, constructed in place at the payload type's own alignment. Records live in pages
 * that never move once allocated, so payloads are never relocated with memcpy (a short std::string
 * stays valid) and no record needs a relocation function. Pages are kept after a flush and reused.
 *
 * The queue knows nothing of the World: a record's run function receives an opaque context pointer.
 * A payload with a `drop(Context*)` member is told when it is destroyed WITHOUT having run: with the
 * context of the flush when records are dropped during one (a command threw, or clear() was called by
 * a running command), with nullptr otherwise (the queue is cleared or destroyed, its owner with it).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

#include "../config.hpp"
#include "pod_array.hpp"

namespace ecs::detail {

class CommandQueue {
public:
    /// Executes the command in `payload` against `context`, then destroys the payload.
    using RunFn = void (*)(void* context, void* payload);
    /// Destroys the payload without executing it; `context` is the running flush's, or nullptr.
    using DropFn = void (*)(void* context, void* payload) noexcept;

    static constexpr size_t PAGE_BYTES = 16 * 1024;

    CommandQueue() = default;
    CommandQueue(const CommandQueue&) = delete;
    CommandQueue& operator=(const CommandQueue&) = delete;
    CommandQueue(CommandQueue&& other) noexcept
        : pages_(static_cast<PodArray<Page>&&>(other.pages_)), current_(other.current_), count_(other.count_) {
        other.current_ = 0;
        other.count_ = 0;
    }
    /// Drops this queue's unexecuted payloads (destroying them) before taking over `other`'s.
    CommandQueue& operator=(CommandQueue&& other) noexcept {
        if (this != &other) {
            clear();
            free_pages();
            pages_ = static_cast<PodArray<Page>&&>(other.pages_);
            current_ = other.current_;
            count_ = other.count_;
            other.current_ = 0;
            other.count_ = 0;
        }
        return *this;
    }
    ~CommandQueue() {
        clear();
        free_pages();
    }

    [[nodiscard]] bool empty() const noexcept { return count_ == 0; }
    /// Number of recorded, not yet executed commands.
    [[nodiscard]] size_t size() const noexcept { return count_; }

    /// Constructs a `P` from `args` in the queue. `P` must have `void run(Context&)`.
    template <typename Context, typename P, typename... Args>
    void emplace(Args&&... args) {
        static_assert(std::is_nothrow_destructible_v<P>, "command payloads must have a noexcept destructor");
        void* mem = nullptr;
        if (ECS_LIKELY(!pages_.empty()))
            mem = try_place(pages_[current_], sizeof(P), alignof(P), &run_thunk<Context, P>, &drop_thunk<Context, P>);
        if (ECS_UNLIKELY(mem == nullptr)) mem = allocate(sizeof(P), alignof(P), &run_thunk<Context, P>, &drop_thunk<Context, P>);
        ::new (mem) P(std::forward<Args>(args)...);
        ++count_;
    }

    /**
     * Executes every record in recording order, including records appended while running, then
     * resets the queue (keeping its pages). A call made while this queue is already running returns
     * at once: the outer run picks up whatever was appended.
     */
    void run_all(void* context) {
        if (running_) return;
        running_ = true;
        run_context_ = context;
        // If a command (or a hook it fires) throws, the records not yet run are dropped and the queue
        // is reset, so it stays usable and leaks nothing.
        struct Unwind {
            CommandQueue& q;
            ~Unwind() {
                if (q.running_) q.drop_from(q.run_page_, q.run_offset_, q.run_context_);
                q.running_ = false;
                q.run_context_ = nullptr;
            }
        } unwind{*this};
        for (run_page_ = 0; run_page_ < pages_.size() && run_page_ <= current_; ++run_page_) {
            run_offset_ = align_offset(pages_[run_page_].memory, 0, alignof(Header));
            while (run_offset_ < pages_[run_page_].used) {
                uint8_t* base = pages_[run_page_].memory;
                const Header header = *reinterpret_cast<Header*>(base + run_offset_);
                run_offset_ = header.next;
                --count_;
                header.run(context, base + header.payload);
            }
        }
        reset();
        running_ = false;
        run_context_ = nullptr;
    }

    /**
     * Destroys every unexecuted payload without executing it; keeps the pages. Called by a command of
     * this very queue while it runs, it drops only the records after the running one; records made
     * afterwards still run in this flush.
     */
    void clear() noexcept {
        if (!running_) {
            drop_from(0, 0, nullptr);
            return;
        }
        drop_range(run_page_, run_offset_, run_context_);
        pages_[run_page_].used = run_offset_;
        for (size_t p = run_page_ + 1; p < pages_.size(); ++p) pages_[p].used = 0;
        current_ = run_page_;
        count_ = 0;
    }

    /// Bytes of page memory held (for diagnostics).
    [[nodiscard]] size_t capacity_bytes() const noexcept {
        size_t total = 0;
        for (const Page& p : pages_) total += p.capacity;
        return total;
    }

private:
    /// Destroys the payloads of every record from (page, offset) on, then resets the queue.
    void drop_from(size_t first_page, size_t first_offset, void* context) noexcept {
        drop_range(first_page, first_offset, context);
        reset();
    }

    /// Destroys the payloads of every record from (page, offset) on; the bookkeeping is the caller's.
    void drop_range(size_t first_page, size_t first_offset, void* context) noexcept {
        for (size_t p = first_page; p < pages_.size() && p <= current_; ++p) {
            const size_t start = align_offset(pages_[p].memory, 0, alignof(Header));
            size_t offset = p == first_page && first_offset > start ? first_offset : start;
            while (offset < pages_[p].used) {
                uint8_t* base = pages_[p].memory;
                const Header header = *reinterpret_cast<Header*>(base + offset);
                header.drop(context, base + header.payload);
                offset = header.next;
            }
        }
    }

    struct Header {
        RunFn run;
        DropFn drop;
        uint32_t payload; ///< offset of the payload within the page
        uint32_t next;    ///< offset of the next record's (aligned) header within the page
    };
    struct Page {
        uint8_t* memory = nullptr; ///< owned (new[]), freed by free_pages()
        size_t capacity = 0;
        size_t used = 0;
    };
    void free_pages() noexcept {
        for (Page& p : pages_) delete[] p.memory;
        pages_.clear();
    }

    template <typename Context, typename P>
    static void run_thunk(void* context, void* payload) {
        struct Destroy {
            P* p;
            ~Destroy() { p->~P(); } // also when run() throws
        } guard{static_cast<P*>(payload)};
        guard.p->run(*static_cast<Context*>(context));
    }
    template <typename P, typename Context, typename = void>
    struct HasDrop : std::false_type {};
    template <typename P, typename Context>
    struct HasDrop<P, Context, std::void_t<decltype(std::declval<P&>().drop(static_cast<Context*>(nullptr)))>>
        : std::true_type {};

    template <typename Context, typename P>
    static void drop_thunk(void* context, void* payload) noexcept {
        P* p = static_cast<P*>(payload);
        if constexpr (HasDrop<P, Context>::value) p->drop(static_cast<Context*>(context));
        else (void)context;
        p->~P();
    }

    /// `offset` advanced so that `base + offset` is a multiple of `align` (a power of two).
    static size_t align_offset(const uint8_t* base, size_t offset, size_t align) noexcept {
        const auto addr = reinterpret_cast<uintptr_t>(base) + offset;
        return offset + ((0 - addr) & (align - 1));
    }

    /// Writes a header for a `size`-byte payload at `align` in `page` and returns the payload address,
    /// or nullptr when the page has no room. Inlined into emplace, where size and align are constants.
    ECS_FORCEINLINE static void* try_place(Page& page, size_t size, size_t align, RunFn run, DropFn drop) noexcept {
        uint8_t* base = page.memory;
        const size_t header_at = align_offset(base, page.used, alignof(Header));
        const size_t payload_at = align_offset(base, header_at + sizeof(Header), align);
        const size_t end = payload_at + size;
        if (end > page.capacity) return nullptr;
        // `next` is where the following record's header will start (aligned), not the end of this
        // payload: readers compare it with `used` and read a header only below it.
        const size_t next = align_offset(base, end, alignof(Header));
        ::new (base + header_at) Header{run, drop, static_cast<uint32_t>(payload_at), static_cast<uint32_t>(next)};
        page.used = end;
        return base + payload_at;
    }

    /// Reserves a header plus `size` bytes at `align`; returns the payload address.
    void* allocate(size_t size, size_t align, RunFn run, DropFn drop) {
        const size_t worst = sizeof(Header) + alignof(Header) + align + size;
        if (pages_.empty()) add_page(worst);
        for (;;) {
            if (void* payload = try_place(pages_[current_], size, align, run, drop)) return payload;
            // Move on to the next page that can hold the record, allocating one when none can.
            if (current_ + 1 < pages_.size() && pages_[current_ + 1].capacity >= worst) {
                ++current_;
            } else {
                if (current_ + 1 < pages_.size()) {
                    // A kept page too small for this record: put a larger page in its place.
                    delete[] pages_[current_ + 1].memory;
                    for (size_t i = current_ + 2; i < pages_.size(); ++i) pages_[i - 1] = pages_[i];
                    pages_.pop_back();
                }
                add_page(worst, current_ + 1);
                ++current_;
            }
        }
    }

    void add_page(size_t min_bytes, size_t at = 0) {
        Page page;
        page.capacity = min_bytes > PAGE_BYTES ? min_bytes : PAGE_BYTES;
        ECS_ASSERT(page.capacity <= 0xFFFFFFFFu, "CommandQueue: payload larger than 4 GiB");
        if (pages_.size() == pages_.capacity()) pages_.reserve(pages_.capacity() * 2 + 4); // nothing to leak if it throws
        page.memory = new uint8_t[page.capacity];
        pages_.push_back(page);
        for (size_t i = pages_.size() - 1; i > at; --i) pages_[i] = pages_[i - 1];
        pages_[at] = page;
    }

    void reset() noexcept {
        for (Page& p : pages_) p.used = 0;
        current_ = 0;
        count_ = 0;
    }

    PodArray<Page> pages_;
    size_t current_ = 0;
    size_t count_ = 0;
    bool running_ = false;
    size_t run_page_ = 0;   ///< position of the next record to run, while running
    size_t run_offset_ = 0;
    void* run_context_ = nullptr; ///< the running flush's context (what drops during it receive)
};

} // namespace ecs::detail
