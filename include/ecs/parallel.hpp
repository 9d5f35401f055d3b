/**
 * @file ecs/parallel.hpp
 * @brief ThreadPool: a small work-sharing Executor on std::thread; also brings in parallel iteration
 *        (each_par.hpp: `q.each_par(pool, fn)`, `world.each_par<Terms...>(pool, Filters..., fn)`).
 *
 * Not included by ecs/ecs.hpp: it pulls in <thread>, <mutex> and <condition_variable>. Include it
 * where you create the pool; code that only takes an `Executor&` needs ecs/executor.hpp. Link with
 * the platform's thread library (CMake: `Threads::Threads`); the `ecs` target does not add it.
 *
 * How it works: `ThreadPool(n)` gives a concurrency of n, the calling thread included, so it starts
 * n - 1 worker threads (ThreadPool(1) starts none and runs everything inline on the caller;
 * ThreadPool(0) uses std::thread::hardware_concurrency()). parallel_for publishes the job, wakes the
 * workers and takes part itself; every participant claims chunks of indices from one atomic counter
 * until none are left, and the call returns once every claimed index has run.
 *
 * Between jobs a worker first watches for the next one for a short while (kSpinMicroseconds,
 * yielding its core on every check), then sleeps on a condition variable. Waves of a Schedule and
 * consecutive each_par calls often follow each other within microseconds; a sleeping worker takes
 * 20-200 us to wake up (measured: bench/README "16 cores"). A pool with more threads than the
 * machine has hardware threads never watches: its workers would take cores from the others.
 *
 * Thread-safety (room rule):
 * - parallel_for may be called from any thread; calls from several threads at once are serialized
 *   (one job at a time, the others wait for it), never interleaved.
 * - A parallel_for issued from inside a task (of this pool or of any other ThreadPool) runs inline
 *   on the calling thread, in index order: nesting never deadlocks, and the outer call already
 *   keeps every thread busy.
 * - The destructor joins every worker. @pre No parallel_for is running on the pool while it is
 *   destroyed (the workers are idle).
 * - Tasks must not throw: an exception escaping a task ends the program (std::terminate).
 */
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "each_par.hpp" // q.each_par / world.each_par (ROADMAP 1.0 E)
#include "executor.hpp"

namespace ecs {

namespace detail {
/// True on a thread while it runs a ThreadPool task (and on every worker thread): nested
/// parallel_for calls then run inline.
inline thread_local bool in_pool_task = false;
} // namespace detail

/// @brief Work-sharing thread pool; see the file comment for its rules.
class ThreadPool final : public Executor {
public:
    /**
     * @brief Starts `threads - 1` worker threads; the thread calling parallel_for is the last one.
     * @param threads total concurrency, caller included; 0 means std::thread::hardware_concurrency()
     *        (1 when unknown).
     */
    explicit ThreadPool(size_t threads = 0) {
        const size_t hardware = std::thread::hardware_concurrency();
        if (threads == 0) threads = hardware;
        if (threads == 0) threads = 1;
        watch_ = hardware != 0 && threads <= hardware;
        workers_.reserve(threads - 1);
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
        try {
            for (size_t i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
        } catch (...) {
            stop(); // joins the threads already started: a joinable std::thread must not be destroyed
            throw;
        }
#else
        for (size_t i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
#endif
    }
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;
    /// @brief Stops and joins the workers. @pre No parallel_for is running on this pool.
    ~ThreadPool() override { stop(); }

    /// @brief Worker threads + 1 (the caller).
    size_t concurrency() const override { return workers_.size() + 1; }

    /**
     * @brief Calls `task(context, i)` once for each i in [0, count) on the workers and the calling
     *        thread; returns when all calls returned. Inline (in order) when the pool has no worker,
     *        when count is 1, or when called from inside a task.
     */
    void parallel_for(size_t count, void (*task)(void* context, size_t index), void* context) override {
        if (count == 0) return;
        if (workers_.empty() || count == 1 || detail::in_pool_task) {
            // No job is published, so a task run here may itself use the pool (count == 1).
            for (size_t i = 0; i < count; ++i) task(context, i);
            return;
        }
        // Several chunks per thread: balance when indices cost unequal time, few atomic operations.
        size_t chunk = count / (concurrency() * 8);
        if (chunk == 0) chunk = 1;
        const Job job{task, context, count, chunk};

        const std::lock_guard<std::mutex> one_job_at_a_time(submit_);
        settle();
        {
            std::unique_lock<std::mutex> lock(mutex_);
            // A worker that joined the previous job late may still hold its copy: it must leave
            // before the counter is reset, or it would claim indices of this job for the old task.
            idle_.wait(lock, [this] { return active_ == 0; });
            job_ = job;
            next_.store(0, std::memory_order_relaxed);
            ++generation_;
            published_.store(generation_, std::memory_order_relaxed);
        }
        wake_.notify_all();
        {
            const TaskScope scope;
            run(job);
        }
        // Every index is claimed; the workers still running claimed ones are counted in active_.
        settle();
        std::unique_lock<std::mutex> lock(mutex_);
        idle_.wait(lock, [this] { return active_ == 0; });
    }

private:
    struct Job {
        void (*task)(void*, size_t) = nullptr;
        void* context = nullptr;
        size_t count = 0;
        size_t chunk = 1;
    };

    /// Marks the current thread as running a task for its lifetime (restores the previous state).
    struct TaskScope {
        TaskScope() noexcept : previous(detail::in_pool_task) { detail::in_pool_task = true; }
        ~TaskScope() { detail::in_pool_task = previous; }
        TaskScope(const TaskScope&) = delete;
        TaskScope& operator=(const TaskScope&) = delete;
        bool previous;
    };

    /// Claims chunks of `job` until none are left, and runs them.
    void run(const Job& job) noexcept {
        for (;;) {
            const size_t begin = next_.fetch_add(job.chunk, std::memory_order_relaxed);
            if (begin >= job.count) return;
            const size_t end = job.count - begin < job.chunk ? job.count : begin + job.chunk;
            for (size_t i = begin; i < end; ++i) job.task(job.context, i);
        }
    }

    /// How long a worker watches for the next job before it sleeps.
    static constexpr int64_t kSpinMicroseconds = 50;

    /// Watches `published_` (without the lock) until it moves past `seen`, a stop is asked for, or
    /// kSpinMicroseconds pass. Only a hint: the caller then waits on the condition variable as usual.
    void watch(uint64_t seen) const noexcept {
        const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicroseconds);
        while (published_.load(std::memory_order_relaxed) == seen && !stopping_.load(std::memory_order_relaxed)) {
            std::this_thread::yield();
            if (std::chrono::steady_clock::now() >= until) return;
        }
    }

    /// Before the caller sleeps until active_ drops to 0: watches it for a while (when workers watch
    /// too), since workers leave a job within microseconds of its last index. Only a hint: the
    /// caller then waits on idle_ under the lock, which is what orders the tasks' writes before it.
    void settle() const noexcept {
        if (!watch_ || active_.load(std::memory_order_relaxed) == 0) return;
        const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicroseconds);
        while (active_.load(std::memory_order_relaxed) != 0) {
            std::this_thread::yield();
            if (std::chrono::steady_clock::now() >= until) return;
        }
    }

    /// A worker thread's loop: wait for a new job (or stop), take part in it, report, repeat.
    void work() noexcept {
        detail::in_pool_task = true;
        uint64_t seen = 0;
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            if (watch_ && !stop_ && generation_ == seen) {
                lock.unlock();
                watch(seen);
                lock.lock();
            }
            wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            const Job job = job_;
            active_.fetch_add(1, std::memory_order_relaxed);
            lock.unlock();
            run(job);
            lock.lock();
            if (active_.fetch_sub(1, std::memory_order_relaxed) == 1) idle_.notify_all();
        }
    }

    void stop() noexcept {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
            stopping_.store(true, std::memory_order_relaxed);
        }
        wake_.notify_all();
        for (std::thread& t : workers_) t.join();
        workers_.clear();
    }

    std::mutex submit_;             ///< held by the caller for a whole parallel_for
    std::mutex mutex_;              ///< guards everything below except next_
    std::condition_variable wake_;  ///< workers: a new job, or stop
    std::condition_variable idle_;  ///< callers: active_ dropped to 0
    Job job_;
    uint64_t generation_ = 0;       ///< number of jobs published
    std::atomic<size_t> active_{0}; ///< workers holding a copy of job_ (changed under mutex_ only)
    bool stop_ = false;
    bool watch_ = false;            ///< workers watch for the next job before sleeping (set once)
    std::atomic<uint64_t> published_{0}; ///< generation_, readable without the lock (watch())
    std::atomic<bool> stopping_{false};  ///< stop_, readable without the lock (watch())
    std::atomic<size_t> next_{0};   ///< first index not yet claimed in the current job
    std::vector<std::thread> workers_;
};

} // namespace ecs
