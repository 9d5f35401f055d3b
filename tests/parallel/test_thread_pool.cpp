// ThreadPool and InlineExecutor (ROADMAP 1.0 E): every index exactly once, results visible to the
// caller, consecutive and nested calls, concurrent callers, construction and destruction.
// Built into its own executable (ecs_parallel_tests) so the ThreadSanitizer preset builds only this.
#include <ecs/parallel.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "catch.hpp"

namespace {

/// Runs parallel_for(count) on `ex` and checks that every index ran exactly once.
void check_each_index_once(ecs::Executor& ex, size_t count) {
    std::unique_ptr<std::atomic<uint32_t>[]> hits(new std::atomic<uint32_t>[count == 0 ? 1 : count]);
    for (size_t i = 0; i < count; ++i) hits[i].store(0, std::memory_order_relaxed);
    std::atomic<size_t> out_of_range{0}; // Catch2 assertions are not thread-safe: count, check after
    ecs::parallel_for(ex, count, [&](size_t i) {
        if (i >= count) out_of_range.fetch_add(1, std::memory_order_relaxed);
        else hits[i].fetch_add(1, std::memory_order_relaxed);
    });
    size_t wrong = 0;
    for (size_t i = 0; i < count; ++i)
        if (hits[i].load(std::memory_order_relaxed) != 1) ++wrong;
    INFO("count " << count << ", concurrency " << ex.concurrency());
    CHECK(out_of_range.load() == 0);
    CHECK(wrong == 0);
}

} // namespace

TEST_CASE("thread pool: every index runs exactly once", "[parallel]") {
    const size_t counts[] = {0, 1, 7, 1000, 1000000};
    SECTION("ThreadPool(4)") {
        ecs::ThreadPool pool(4);
        CHECK(pool.concurrency() == 4);
        for (size_t n : counts) check_each_index_once(pool, n);
    }
    SECTION("ThreadPool(2)") {
        ecs::ThreadPool pool(2);
        for (size_t n : counts) check_each_index_once(pool, n);
    }
    SECTION("ThreadPool(1)") {
        ecs::ThreadPool pool(1);
        for (size_t n : counts) check_each_index_once(pool, n);
    }
    SECTION("ThreadPool(0)") {
        ecs::ThreadPool pool;
        for (size_t n : counts) check_each_index_once(pool, n);
    }
    SECTION("InlineExecutor") {
        ecs::InlineExecutor inline_executor;
        for (size_t n : counts) check_each_index_once(inline_executor, n);
    }
}

TEST_CASE("thread pool: plain writes by the tasks are visible to the caller", "[parallel]") {
    ecs::ThreadPool pool(4);
    std::vector<uint64_t> out(100000, 0); // plain memory: TSan reports a missing happens-before
    for (int round = 0; round < 3; ++round) {
        ecs::parallel_for(pool, out.size(), [&](size_t i) { out[i] += uint64_t(i) * i; });
        bool all = true;
        for (size_t i = 0; i < out.size(); ++i)
            if (out[i] != uint64_t(round + 1) * i * i) all = false;
        CHECK(all);
    }
}

TEST_CASE("thread pool: many consecutive calls", "[parallel]") {
    ecs::ThreadPool pool(3);
    std::atomic<uint64_t> sum{0};
    uint64_t expected = 0;
    for (size_t call = 0; call < 3000; ++call) {
        const size_t n = call % 17; // 0 .. 16 indices: mostly fewer chunks than threads
        ecs::parallel_for(pool, n, [&](size_t i) { sum.fetch_add(i + 1, std::memory_order_relaxed); });
        expected += n * (n + 1) / 2;
    }
    CHECK(sum.load() == expected);
}

TEST_CASE("thread pool: nested calls run inline on the calling thread", "[parallel]") {
    ecs::ThreadPool pool(4);
    constexpr size_t outer = 64;
    constexpr size_t inner = 50;
    std::vector<uint32_t> hits(outer * inner, 0); // each written by exactly one (outer) task
    std::atomic<int> wrong_thread{0};
    std::atomic<int> out_of_order{0};
    ecs::parallel_for(pool, outer, [&](size_t o) {
        const std::thread::id me = std::this_thread::get_id();
        size_t expected = 0;
        ecs::parallel_for(pool, inner, [&](size_t i) {
            if (std::this_thread::get_id() != me) wrong_thread.fetch_add(1);
            if (i != expected++) out_of_order.fetch_add(1);
            ++hits[o * inner + i];
        });
    });
    CHECK(wrong_thread.load() == 0);
    CHECK(out_of_order.load() == 0);
    bool all_once = true;
    for (uint32_t h : hits)
        if (h != 1) all_once = false;
    CHECK(all_once);
}

TEST_CASE("thread pool: a single index may use the pool itself", "[parallel]") {
    ecs::ThreadPool pool(3);
    std::atomic<size_t> ran{0};
    ecs::parallel_for(pool, 1, [&](size_t) {
        ecs::parallel_for(pool, 1000, [&](size_t) { ran.fetch_add(1, std::memory_order_relaxed); });
    });
    CHECK(ran.load() == 1000);
}

TEST_CASE("thread pool: workers that watch for the next job between calls", "[parallel]") {
    // ThreadPool(2) has no more threads than the machine (when it has two or more), so its worker
    // watches for the next job for a while before sleeping, and the caller watches for the worker
    // to leave: calls back to back, calls spaced past the watch, plain writes read back each time.
    ecs::ThreadPool pool(2);
    std::vector<uint64_t> out(4096, 0); // plain memory: TSan reports a missing happens-before
    for (int call = 0; call < 2000; ++call) {
        const size_t n = call % 3 == 0 ? 2 : out.size(); // a two-index call ends before the worker joins
        ecs::parallel_for(pool, n, [&](size_t i) { out[i] += 1; });
        if (call % 500 == 499) std::this_thread::sleep_for(std::chrono::milliseconds(1)); // past the watch
    }
    uint64_t expected_front = 0, expected_back = 0;
    for (int call = 0; call < 2000; ++call) {
        expected_front += 1;
        expected_back += call % 3 == 0 ? 0 : 1;
    }
    CHECK(out[0] == expected_front);
    CHECK(out[1] == expected_front);
    bool back = true;
    for (size_t i = 2; i < out.size(); ++i)
        if (out[i] != expected_back) back = false;
    CHECK(back);
    for (int i = 0; i < 20; ++i) { // destroyed while its worker watches
        ecs::ThreadPool watched(2);
        std::atomic<int> ran{0};
        ecs::parallel_for(watched, 8, [&](size_t) { ran.fetch_add(1); });
        CHECK(ran.load() == 8);
    }
}

TEST_CASE("thread pool: calls from several threads are serialized", "[parallel]") {
    ecs::ThreadPool pool(3);
    std::atomic<uint64_t> sum{0};
    auto caller = [&] {
        for (int call = 0; call < 200; ++call)
            ecs::parallel_for(pool, 100, [&](size_t i) { sum.fetch_add(i, std::memory_order_relaxed); });
    };
    std::thread a(caller);
    std::thread b(caller);
    caller();
    a.join();
    b.join();
    CHECK(sum.load() == 3u * 200u * (99u * 100u / 2u));
}

TEST_CASE("thread pool: construction and destruction while idle", "[parallel]") {
    for (int i = 0; i < 50; ++i) {
        ecs::ThreadPool never_used(4);
        CHECK(never_used.concurrency() == 4);
    }
    for (int i = 0; i < 50; ++i) {
        ecs::ThreadPool used(3);
        std::atomic<int> n{0};
        ecs::parallel_for(used, 10, [&](size_t) { n.fetch_add(1); });
        CHECK(n.load() == 10);
    } // destroyed right after a call returns: workers may still be on their way back to sleep
}

TEST_CASE("thread pool: ThreadPool(1) runs everything inline, in order", "[parallel]") {
    ecs::ThreadPool pool(1);
    CHECK(pool.concurrency() == 1);
    const std::thread::id me = std::this_thread::get_id();
    std::vector<size_t> order;
    bool same_thread = true;
    ecs::parallel_for(pool, 100, [&](size_t i) {
        if (std::this_thread::get_id() != me) same_thread = false;
        order.push_back(i);
    });
    CHECK(same_thread);
    REQUIRE(order.size() == 100);
    bool ascending = true;
    for (size_t i = 0; i < order.size(); ++i)
        if (order[i] != i) ascending = false;
    CHECK(ascending);
}

TEST_CASE("thread pool: ThreadPool(0) uses the hardware concurrency", "[parallel]") {
    ecs::ThreadPool pool(0);
    const size_t hw = std::thread::hardware_concurrency();
    CHECK(pool.concurrency() == (hw == 0 ? 1 : hw));
    ecs::ThreadPool defaulted;
    CHECK(defaulted.concurrency() == pool.concurrency());
}

TEST_CASE("thread pool: usable through Executor&, with a raw task function", "[parallel]") {
    ecs::ThreadPool pool(2);
    ecs::Executor& ex = pool;
    std::vector<int> values(1000, 1);
    struct Context {
        std::vector<int>* values;
    } context{&values};
    ex.parallel_for(values.size(), [](void* c, size_t i) { (*static_cast<Context*>(c)->values)[i] *= 3; }, &context);
    bool all = true;
    for (int v : values)
        if (v != 3) all = false;
    CHECK(all);
    ecs::InlineExecutor inline_executor;
    CHECK(inline_executor.concurrency() == 1);
}
