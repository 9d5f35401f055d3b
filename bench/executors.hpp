/**
 * @file bench/executors.hpp
 * @brief Two executors the parallel benchmarks compare ecs::ThreadPool against.
 *
 * - SpinExecutor: the hand-written twin of a thread pool. Its workers spin (with a yield) on a job
 *   counter instead of sleeping, and index i always goes to thread i % T: no wake-up, no lock, no
 *   shared claim counter. A Schedule run on it shows what the waves cost when dispatch is free, and a
 *   loop over plain arrays run on it is the physical limit of the machine at T threads.
 * - TracingExecutor: wraps another executor and records, for each task of each parallel_for, which
 *   thread ran it and when it started and ended. Its totals say where a wave loses its time: late
 *   wake-ups (the last task's start), an unlucky split (one thread running two tasks), or slower
 *   tasks (the slowest task against the mean).
 */
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>
#include <ecs/executor.hpp>

namespace bench {

class SpinExecutor final : public ecs::Executor {
public:
    explicit SpinExecutor(size_t threads) : threads_(threads == 0 ? 1 : threads) {
        for (size_t j = 1; j < threads_; ++j) workers_.emplace_back([this, j] { loop(j); });
    }
    SpinExecutor(const SpinExecutor&) = delete;
    SpinExecutor& operator=(const SpinExecutor&) = delete;
    ~SpinExecutor() override {
        stop_.store(true, std::memory_order_relaxed);
        for (std::thread& t : workers_) t.join();
    }

    size_t concurrency() const override { return threads_; }

    void parallel_for(size_t count, void (*task)(void*, size_t), void* context) override {
        task_ = task;
        context_ = context;
        count_ = count;
        done_.store(0, std::memory_order_relaxed);
        generation_.fetch_add(1, std::memory_order_release);
        run_share(0);
        while (done_.load(std::memory_order_acquire) != threads_ - 1) std::this_thread::yield();
    }

private:
    void run_share(size_t j) const {
        for (size_t i = j; i < count_; i += threads_) task_(context_, i);
    }

    void loop(size_t j) {
        uint64_t seen = 0;
        for (;;) {
            uint64_t now = generation_.load(std::memory_order_acquire);
            while (now == seen) {
                if (stop_.load(std::memory_order_relaxed)) return;
                std::this_thread::yield();
                now = generation_.load(std::memory_order_acquire);
            }
            seen = now;
            run_share(j);
            done_.fetch_add(1, std::memory_order_release);
        }
    }

    size_t threads_;
    void (*task_)(void*, size_t) = nullptr;
    void* context_ = nullptr;
    size_t count_ = 0;
    alignas(64) std::atomic<uint64_t> generation_{0};
    alignas(64) std::atomic<size_t> done_{0};
    std::atomic<bool> stop_{false};
    std::vector<std::thread> workers_;
};

class TracingExecutor final : public ecs::Executor {
public:
    using Clock = std::chrono::steady_clock;

    /// Totals over every parallel_for since construction (times in ns).
    struct Totals {
        uint64_t waves = 0;
        double wave_ns = 0;          ///< parallel_for, entry to return
        double last_start_ns = 0;    ///< the latest task start after entry (wake-up latency)
        double slowest_task_ns = 0;  ///< the wave's slowest task
        double mean_task_ns = 0;     ///< the wave's mean task
        uint64_t doubled_waves = 0;  ///< waves in which one thread ran two tasks or more
        size_t max_tasks_one_thread = 0;
        double busiest_thread_ns = 0; ///< the busiest thread's tasks, summed
        double mean_thread_ns = 0;    ///< the tasks' sum over the threads that ran any
    };

    explicit TracingExecutor(ecs::Executor& inner) : inner_(inner) {}

    size_t concurrency() const override { return inner_.concurrency(); }

    void parallel_for(size_t count, void (*task)(void*, size_t), void* context) override {
        records_.assign(count, Record{});
        Call call{this, task, context};
        start_ = Clock::now();
        inner_.parallel_for(count, &trampoline, &call);
        const double wave = ns(Clock::now() - start_);
        ++totals_.waves;
        totals_.wave_ns += wave;
        double last = 0, slowest = 0, sum = 0;
        std::vector<size_t> per_thread;
        std::vector<double> busy;
        for (const Record& r : records_) {
            last = r.start > last ? r.start : last;
            slowest = r.end - r.start > slowest ? r.end - r.start : slowest;
            sum += r.end - r.start;
            if (per_thread.size() <= r.thread) {
                per_thread.resize(r.thread + 1, 0);
                busy.resize(r.thread + 1, 0.0);
            }
            ++per_thread[r.thread];
            busy[r.thread] += r.end - r.start;
        }
        size_t most = 0, used = 0;
        double busiest = 0;
        for (size_t k = 0; k < per_thread.size(); ++k) {
            most = per_thread[k] > most ? per_thread[k] : most;
            busiest = busy[k] > busiest ? busy[k] : busiest;
            if (per_thread[k] > 0) ++used;
        }
        totals_.busiest_thread_ns += busiest;
        totals_.mean_thread_ns += used == 0 ? 0 : sum / static_cast<double>(used);
        totals_.last_start_ns += last;
        totals_.slowest_task_ns += slowest;
        totals_.mean_task_ns += count == 0 ? 0 : sum / static_cast<double>(count);
        if (most > 1) ++totals_.doubled_waves;
        totals_.max_tasks_one_thread = most > totals_.max_tasks_one_thread ? most : totals_.max_tasks_one_thread;
    }

    const Totals& totals() const { return totals_; }

private:
    struct Record {
        size_t thread = 0;
        double start = 0;
        double end = 0;
    };
    struct Call {
        TracingExecutor* self;
        void (*task)(void*, size_t);
        void* context;
    };

    static double ns(Clock::duration d) { return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count()); }

    static size_t thread_slot() {
        static std::atomic<size_t> next{0};
        thread_local size_t slot = next.fetch_add(1, std::memory_order_relaxed);
        return slot;
    }

    static void trampoline(void* context, size_t index) {
        const Call& call = *static_cast<const Call*>(context);
        Record& r = call.self->records_[index];
        r.thread = thread_slot();
        r.start = ns(Clock::now() - call.self->start_);
        call.task(call.context, index);
        r.end = ns(Clock::now() - call.self->start_);
    }

    ecs::Executor& inner_;
    std::vector<Record> records_;
    Clock::time_point start_;
    Totals totals_;
};

/// Per parallel_for, as counters: its length (wave_ms), the last task's start after entry
/// (last_start_us: wake-ups), the slowest and the mean task, the share of calls in which one
/// thread ran two tasks or more (doubled_waves), and the busiest thread's work against the mean
/// thread's (an uneven split).
inline void report_trace(benchmark::State& state, const TracingExecutor::Totals& t) {
    const double waves = t.waves == 0 ? 1.0 : static_cast<double>(t.waves);
    state.counters["wave_ms"] = t.wave_ns / waves / 1e6;
    state.counters["last_start_us"] = t.last_start_ns / waves / 1e3;
    state.counters["slowest_task_ms"] = t.slowest_task_ns / waves / 1e6;
    state.counters["mean_task_ms"] = t.mean_task_ns / waves / 1e6;
    state.counters["doubled_waves"] = static_cast<double>(t.doubled_waves) / waves;
    state.counters["busiest_thread_ms"] = t.busiest_thread_ns / waves / 1e6;
    state.counters["mean_thread_ms"] = t.mean_thread_ns / waves / 1e6;
}

} // namespace bench
