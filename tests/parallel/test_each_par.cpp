// Parallel iteration (ROADMAP 1.0 E): each_par gives the result of a sequential each, for random
// worlds around the batch size; CommandBuffer callbacks leave the world as a sequential each with
// deferred commands; small queries run inline; the iteration guard holds for the whole run.
// Part of ecs_parallel_tests (run under ThreadSanitizer by the tsan preset).
#include <ecs/parallel.hpp>
#include <ecs/schedule.hpp>
#include <ecs/world.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <random>
#include <thread>
#include <tuple>
#include <vector>

#include "catch.hpp"

namespace {
struct SA;
struct SB;
} // namespace
template <>
struct ecs::component_traits<SA> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};
template <>
struct ecs::component_traits<SB> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};

namespace {

struct PA {
    int64_t v;
};
struct PB {
    double v;
};
struct PC {
    uint32_t v;
};
struct PTag {};
/// Sparse types (component_traits below): each_par over queries naming them.
struct SA {
    int64_t v;
};
struct SB {
    double v;
};

/// Reports a concurrency of 4 but runs every index in order on the calling thread: the batched
/// path, deterministically and without threads.
class SerialExecutor final : public ecs::Executor {
public:
    size_t concurrency() const override { return 4; }
    void parallel_for(size_t count, void (*task)(void*, size_t), void* context) override {
        ++calls;
        tasks += count;
        for (size_t i = 0; i < count; ++i) task(context, i);
    }
    size_t calls = 0;
    size_t tasks = 0;
};

/// Counts parallel_for calls on top of a ThreadPool.
class CountingPool final : public ecs::Executor {
public:
    explicit CountingPool(size_t threads) : pool_(threads) {}
    size_t concurrency() const override { return pool_.concurrency(); }
    void parallel_for(size_t count, void (*task)(void*, size_t), void* context) override {
        ++calls;
        pool_.parallel_for(count, task, context);
    }
    size_t calls = 0;

private:
    ecs::ThreadPool pool_;
};

/// Fills a world with a seeded random mix of archetypes; the same seed gives the same world.
void build(ecs::World& w, uint32_t seed, size_t max_per_archetype) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<size_t> count(0, max_per_archetype);
    for (int shape = 0; shape < 8; ++shape) {
        const size_t n = count(rng);
        for (size_t i = 0; i < n; ++i) {
            const int64_t a = static_cast<int64_t>(rng() % 1000);
            const double b = static_cast<double>(rng() % 1000) * 0.5;
            const uint32_t c = static_cast<uint32_t>(rng() % 1000u);
            switch (shape) {
            case 0: w.create_with(PA{a}); break;
            case 1: w.create_with(PA{a}, PB{b}); break;
            case 2: w.create_with(PA{a}, PB{b}, PC{c}); break;
            case 3: w.create_with(PA{a}, PC{c}, PTag{}); break;
            case 4: w.create_with(PB{b}, PC{c}); break;
            case 5: w.create_with(PA{a}, PB{b}, PTag{}); break;
            case 6: w.create_with(PC{c}); break;
            default: w.create_with(PA{a}, PC{c}); break;
            }
        }
    }
}

using Row = std::tuple<uint32_t, uint32_t, bool, int64_t, bool, double, bool, uint32_t, bool>;

/// Every live entity with all its component values, sorted by entity.
std::vector<Row> snapshot(ecs::World& w) {
    std::vector<Row> rows;
    w.each<ecs::Optional<const PA>, ecs::Optional<const PB>, ecs::Optional<const PC>, ecs::Optional<const PTag>>(
        [&](ecs::Entity e, const PA* a, const PB* b, const PC* c, const PTag* t) {
            rows.emplace_back(e.index, e.generation, a != nullptr, a ? a->v : 0, b != nullptr, b ? b->v : 0.0, c != nullptr,
                              c ? c->v : 0u, t != nullptr);
        });
    std::sort(rows.begin(), rows.end());
    return rows;
}

/// The per-entity update under test: reads const terms, writes the others, uses the entity.
void update(ecs::Entity e, PA& a, const PB& b, PC* c) {
    a.v = a.v * 3 + static_cast<int64_t>(b.v) + static_cast<int64_t>(e.index);
    if (c != nullptr) c->v = c->v * 7u + static_cast<uint32_t>(a.v & 0xff);
}

} // namespace

TEST_CASE("each_par: equals a sequential each on random worlds", "[parallel][each_par]") {
    ecs::ThreadPool pool(4);
    SerialExecutor serial;
    for (uint32_t seed = 1; seed <= 24; ++seed) {
        // Around the batch size: some archetypes below 1024 rows, some several batches long.
        const size_t max_rows = seed % 3 == 0 ? 700 : (seed % 3 == 1 ? 3000 : 9000);
        ecs::World expected, parallel, batched;
        build(expected, seed, max_rows);
        build(parallel, seed, max_rows);
        build(batched, seed, max_rows);
        expected.each<PA, const PB, ecs::Optional<PC>>(ecs::Without<PTag>{}, update);
        parallel.each_par<PA, const PB, ecs::Optional<PC>>(pool, ecs::Without<PTag>{}, update);
        batched.query<PA, const PB, ecs::Optional<PC>>(ecs::Without<PTag>{}).each_par(serial, update);
        INFO("seed " << seed);
        REQUIRE(snapshot(parallel) == snapshot(expected));
        REQUIRE(snapshot(batched) == snapshot(expected));
        CHECK(!parallel.iterating());

        // The entity-less form, and a tag term.
        auto bump = [](PA& a, PTag&) { a.v += 11; };
        expected.each<PA, PTag>(bump);
        parallel.each_par<PA, PTag>(pool, bump);
        REQUIRE(snapshot(parallel) == snapshot(expected));
    }
}

TEST_CASE("each_par: every entity is visited exactly once, in batches within one archetype", "[parallel][each_par]") {
    ecs::World w;
    build(w, 99, 9000);
    SerialExecutor serial;
    std::vector<ecs::Entity> seen;
    w.query<const PA>().each_par(serial, [&](ecs::Entity e, const PA&) { seen.push_back(e); });
    std::vector<ecs::Entity> sequential;
    w.each<const PA>([&](ecs::Entity e, const PA&) { sequential.push_back(e); });
    CHECK(seen == sequential); // batch order is archetype order, then row order
    CHECK(serial.calls == 1);
    CHECK(serial.tasks >= 4);
}

TEST_CASE("each_par: CommandBuffer callbacks end as a sequential each with deferred commands", "[parallel][each_par]") {
    ecs::ThreadPool pool(4);
    SerialExecutor serial;
    auto record = [](ecs::CommandBuffer& cb, ecs::Entity e, PA& a, const PC& c) {
        a.v += 1;
        switch ((a.v + c.v) % 5) {
        case 0: cb.destroy(e); break;
        case 1: cb.add(e, PB{static_cast<double>(a.v)}); break;
        case 2: cb.remove<PC>(e); break;
        case 3: cb.create_with(PA{a.v * 2}, PC{c.v}); break;
        default: break;
        }
    };
    for (uint32_t seed = 100; seed < 116; ++seed) {
        const size_t max_rows = seed % 2 == 0 ? 600 : 6000;
        ecs::World expected, parallel, batched;
        build(expected, seed, max_rows);
        build(parallel, seed, max_rows);
        build(batched, seed, max_rows);
        {
            ecs::CommandBuffer cb;
            expected.each<PA, const PC>([&](ecs::Entity e, PA& a, const PC& c) { record(cb, e, a, c); });
            cb.flush(expected);
        }
        parallel.each_par<PA, const PC>(pool, record);
        batched.query<PA, const PC>().each_par(serial, record);
        INFO("seed " << seed);
        REQUIRE(snapshot(parallel) == snapshot(expected));
        REQUIRE(snapshot(batched) == snapshot(expected));
        CHECK(parallel.check_invariants());
        // The next created entity takes the same slot: the free lists match too.
        CHECK(parallel.create() == expected.create());
    }
}

TEST_CASE("each_par: small queries and concurrency 1 run inline", "[parallel][each_par]") {
    ecs::World w;
    for (int i = 0; i < 1000; ++i) w.create_with(PA{i});
    CountingPool pool(4);
    std::atomic<int> visited{0};
    const auto caller = std::this_thread::get_id();
    std::atomic<int> elsewhere{0};
    w.each_par<PA>(pool, [&](PA& a) {
        ++a.v;
        ++visited;
        if (std::this_thread::get_id() != caller) ++elsewhere;
    });
    CHECK(pool.calls == 0);
    CHECK(visited.load() == 1000);
    CHECK(elsewhere.load() == 0);

    ecs::InlineExecutor one;
    for (int i = 0; i < 20000; ++i) w.create_with(PA{i});
    w.each_par<PA>(one, [&](PA& a) { ++a.v; });
    int64_t sum = 0;
    w.each<const PA>([&](const PA& a) { sum += a.v; });
    CHECK(sum == (999 * 1000 / 2 + 2000) + (19999LL * 20000 / 2 + 20000));

    w.each_par<PA>(pool, [&](PA& a) { ++a.v; });
    CHECK(pool.calls == 1);
}

TEST_CASE("each_par: the iteration guard holds on every thread for the whole run", "[parallel][each_par]") {
    ecs::World w;
    build(w, 7, 9000);
    const size_t before = w.count();
    ecs::ThreadPool pool(4);
    std::atomic<size_t> not_iterating{0};
    std::atomic<size_t> nested_mismatch{0};
    const ecs::Entity probe = w.create_with(PB{1.5}, PC{3});
    w.each_par<const PA, ecs::Optional<const PC>>(pool, [&](ecs::Entity e, const PA&, const PC* c) {
        if (!w.iterating()) ++not_iterating;
        // Reads from workers: get/try_get, and a nested query (its cache is created under the lock).
        if (w.get<const PB>(probe).v != 1.5 || (c != nullptr && w.try_get<const PC>(e) != c)) ++nested_mismatch;
        if ((e.index & 1023u) == 0) {
            size_t n = 0;
            w.each<const PB, const PC>(ecs::Without<PA>{}, [&](const PB&, const PC&) { ++n; });
            if (n == 0) ++nested_mismatch;
        }
    });
    CHECK(not_iterating.load() == 0);
    CHECK(nested_mismatch.load() == 0);
    CHECK(!w.iterating());
    CHECK(w.count() == before + 1);
    CHECK(w.create() != ecs::INVALID_ENTITY); // the guard is released afterwards
}

TEST_CASE("each_par: a null query handle runs nothing", "[parallel][each_par]") {
    ecs::Query<PA> q;
    ecs::ThreadPool pool(2);
    int calls = 0;
    q.each_par(pool, [&](PA&) { ++calls; });
    CHECK(calls == 0);
}

TEST_CASE("each_par: an AnyOf filter gives the sequential result, with a Schedule per-entity system too",
          "[parallel][each_par][any_of]") {
    ecs::ThreadPool pool(4);
    for (uint32_t seed = 1; seed <= 6; ++seed) {
        ecs::World expected, parallel, scheduled;
        build(expected, seed, 5000);
        build(parallel, seed, 5000);
        build(scheduled, seed, 5000);
        // Some PB disabled: rows of {PA, PB, PTag} then pass AnyOf<PB, PTag> on PTag alone.
        for (ecs::World* w : {&expected, &parallel, &scheduled}) {
            std::vector<ecs::Entity> with_b;
            w->each<const PB>([&](ecs::Entity e, const PB&) { with_b.push_back(e); });
            for (size_t i = 0; i < with_b.size(); i += 3) w->disable<PB>(with_b[i]);
        }
        auto bump = [](ecs::Entity e, PA& a) { a.v = a.v * 5 + static_cast<int64_t>(e.index % 7); };
        expected.each<PA>(ecs::AnyOf<PB, PTag>{}, bump);
        parallel.each_par<PA>(pool, ecs::AnyOf<PB, PTag>{}, bump);
        ecs::Schedule s;
        s.add<PA>("bump", ecs::AnyOf<PB, PTag>{}, bump);
        s.run(scheduled, pool);
        INFO("seed " << seed);
        REQUIRE(snapshot(parallel) == snapshot(expected));
        REQUIRE(snapshot(scheduled) == snapshot(expected));
    }
}

// -- queries naming sparse types ----------------------------------------------------------------------

namespace {

/// build(), then sparse values on a seeded share of the entities (some disabled, some entities
/// destroyed and re-created so that slots are reused).
void build_sparse(ecs::World& w, uint32_t seed, size_t max_per_archetype) {
    build(w, seed, max_per_archetype);
    std::mt19937 rng(seed * 7919u);
    std::vector<ecs::Entity> all;
    w.each<ecs::Optional<const PA>>([&](ecs::Entity e, const PA*) { all.push_back(e); });
    for (const ecs::Entity e : all) {
        if (rng() % 100u < 60) w.add(e, SA{static_cast<int64_t>(rng() % 1000)});
        if (rng() % 100u < 45) w.add(e, SB{static_cast<double>(rng() % 1000) * 0.25});
        if (rng() % 100u < 4) w.disable<SA>(e);
        if (rng() % 100u < 2) w.disable(e);
    }
    for (size_t i = 0; i < all.size(); i += 11) w.destroy(all[i]);
    for (size_t i = 0; i < all.size(); i += 13) w.create_with(PC{static_cast<uint32_t>(i)}, SA{static_cast<int64_t>(i)}, SB{1.5});
}

using SparseRow = std::tuple<uint32_t, uint32_t, bool, int64_t, bool, double>;

/// Every live entity's sparse values (and the table ones through snapshot()).
std::vector<SparseRow> sparse_snapshot(ecs::World& w) {
    std::vector<SparseRow> rows;
    w.each<ecs::Optional<const SA>, ecs::Optional<const SB>>(ecs::IncludeDisabled{}, [&](ecs::Entity e, const SA* a, const SB* b) {
        rows.emplace_back(e.index, e.generation, a != nullptr, a ? a->v : 0, b != nullptr, b ? b->v : 0.0);
    });
    std::sort(rows.begin(), rows.end());
    return rows;
}

void sparse_update(ecs::Entity e, SA& a, const SB& b) { a.v = a.v * 3 + static_cast<int64_t>(b.v) + static_cast<int64_t>(e.index); }
void mixed_update(ecs::Entity e, PA& a, const SA& s, SB* b) {
    a.v = a.v * 5 + s.v + static_cast<int64_t>(e.index % 13);
    if (b != nullptr) b->v = b->v * 0.5 + static_cast<double>(s.v);
}

} // namespace

TEST_CASE("each_par: queries naming sparse types equal a sequential each, sparse-only and mixed",
          "[parallel][each_par][sparse]") {
    for (const size_t threads : {size_t(2), size_t(4)}) {
        CountingPool pool(threads);
        SerialExecutor serial;
        for (uint32_t seed = 1; seed <= 6; ++seed) {
            const size_t max_rows = seed % 2 == 0 ? 2500 : 7000;
            ecs::World expected, parallel, batched;
            build_sparse(expected, seed, max_rows);
            build_sparse(parallel, seed, max_rows);
            build_sparse(batched, seed, max_rows);
            INFO("threads " << threads << " seed " << seed);
            // Every required type sparse: the slots of the smallest set are cut into batches.
            const size_t calls = pool.calls;
            expected.each<SA, const SB>(sparse_update);
            parallel.each_par<SA, const SB>(pool, sparse_update);
            batched.query<SA, const SB>().each_par(serial, sparse_update);
            CHECK(pool.calls == calls + 1); // ran in parallel, not inline
            REQUIRE(sparse_snapshot(parallel) == sparse_snapshot(expected));
            REQUIRE(sparse_snapshot(batched) == sparse_snapshot(expected));
            // With a table filter and an Optional table term.
            auto bump = [](ecs::Entity e, SA& a, const PC* c) { a.v += c != nullptr ? static_cast<int64_t>(c->v) : -static_cast<int64_t>(e.index); };
            expected.each<SA, ecs::Optional<const PC>>(ecs::Without<PTag>{}, bump);
            parallel.each_par<SA, ecs::Optional<const PC>>(pool, ecs::Without<PTag>{}, bump);
            batched.query<SA, ecs::Optional<const PC>>(ecs::Without<PTag>{}).each_par(serial, bump);
            REQUIRE(sparse_snapshot(parallel) == sparse_snapshot(expected));
            REQUIRE(sparse_snapshot(batched) == sparse_snapshot(expected));
            // Mixed: a table term required, sparse values fetched per row in the workers.
            expected.each<PA, const SA, ecs::Optional<SB>>(mixed_update);
            parallel.each_par<PA, const SA, ecs::Optional<SB>>(pool, mixed_update);
            batched.query<PA, const SA, ecs::Optional<SB>>().each_par(serial, mixed_update);
            REQUIRE(snapshot(parallel) == snapshot(expected));
            REQUIRE(sparse_snapshot(parallel) == sparse_snapshot(expected));
            REQUIRE(snapshot(batched) == snapshot(expected));
            REQUIRE(sparse_snapshot(batched) == sparse_snapshot(expected));
            // The visited sets: entity sums and counts.
            std::atomic<uint64_t> sum{0};
            std::atomic<size_t> n{0};
            parallel.each_par<const SB>(pool, ecs::Without<SA>{}, [&](ecs::Entity e, const SB&) {
                sum += e.index;
                ++n;
            });
            uint64_t sum_seq = 0;
            size_t n_seq = 0;
            expected.each<const SB>(ecs::Without<SA>{}, [&](ecs::Entity e, const SB&) {
                sum_seq += e.index;
                ++n_seq;
            });
            CHECK(sum.load() == sum_seq);
            CHECK(n.load() == n_seq);
            CHECK(parallel.check_invariants());
            CHECK(!parallel.iterating());
        }
    }
}

TEST_CASE("each_par: Schedule systems over sparse-only queries run side by side in a wave", "[parallel][each_par][sparse]") {
    ecs::ThreadPool pool(4);
    ecs::World expected, scheduled;
    build_sparse(expected, 9, 6000);
    build_sparse(scheduled, 9, 6000);
    auto grow_a = [](ecs::Entity e, SA& a) { a.v = a.v * 3 + static_cast<int64_t>(e.index % 5); };
    auto grow_b = [](SB& b, const PB& p) { b.v = b.v * 0.5 + p.v; }; // mixed: PB is a table type
    expected.each<SA>(grow_a);
    expected.each<SB, const PB>(grow_b);
    ecs::Schedule s;
    s.add<SA>("grow_a", grow_a); // disjoint: one wave, two threads walking two sets
    s.add<SB, const PB>("grow_b", grow_b);
    s.run(scheduled, pool);
    REQUIRE(sparse_snapshot(scheduled) == sparse_snapshot(expected));
    CHECK(scheduled.check_invariants());
}

TEST_CASE("each_par: sparse-only CommandBuffer callbacks end as a sequential each", "[parallel][each_par][sparse]") {
    ecs::ThreadPool pool(4);
    SerialExecutor serial;
    auto record = [](ecs::CommandBuffer& cb, ecs::Entity e, SA& a, const SB& b) {
        a.v += 1;
        switch ((a.v + static_cast<int64_t>(b.v)) % 6) {
        case 0: cb.destroy(e); break;
        case 1: cb.add(e, PB{static_cast<double>(a.v)}); break;
        case 2: cb.remove<SA>(e); break;
        case 3: cb.create_with(PA{a.v * 2}, SA{a.v}); break;
        case 4: cb.add(e, SB{0.5}); break;
        default: break;
        }
    };
    for (uint32_t seed = 30; seed < 36; ++seed) {
        ecs::World expected, parallel, batched;
        build_sparse(expected, seed, 4000);
        build_sparse(parallel, seed, 4000);
        build_sparse(batched, seed, 4000);
        {
            ecs::CommandBuffer cb;
            expected.each<SA, const SB>([&](ecs::Entity e, SA& a, const SB& b) { record(cb, e, a, b); });
            cb.flush(expected);
        }
        parallel.each_par<SA, const SB>(pool, record);
        batched.query<SA, const SB>().each_par(serial, record);
        INFO("seed " << seed);
        REQUIRE(snapshot(parallel) == snapshot(expected));
        REQUIRE(sparse_snapshot(parallel) == sparse_snapshot(expected));
        REQUIRE(sparse_snapshot(batched) == sparse_snapshot(expected));
        CHECK(parallel.check_invariants());
        CHECK(parallel.create() == expected.create()); // the flush order was the sequential one
    }
}

TEST_CASE("each_par: change stamps of sparse and mixed queries are those of a sequential each", "[parallel][each_par][sparse][change]") {
    CountingPool pool(4);
    for (uint32_t seed = 50; seed < 53; ++seed) {
        ecs::World expected, parallel;
        for (ecs::World* w : {&expected, &parallel}) {
            build_sparse(*w, seed, 6000);
            w->track_changes<SA>();
            w->track_changes<PA>();
        }
        auto changed_sa = [](ecs::World& w) {
            std::vector<ecs::Entity> out;
            w.query<const SA>(ecs::Changed<SA>{}).each([&](ecs::Entity e, const SA&) { out.push_back(e); });
            std::sort(out.begin(), out.end(), [](ecs::Entity a, ecs::Entity b) { return a.index < b.index; });
            return out;
        };
        auto changed_pa = [](ecs::World& w) {
            std::vector<ecs::Entity> out;
            w.query<const PA>(ecs::Changed<PA>{}).each([&](ecs::Entity e, const PA&) { out.push_back(e); });
            std::sort(out.begin(), out.end(), [](ecs::Entity a, ecs::Entity b) { return a.index < b.index; });
            return out;
        };
        (void)changed_sa(expected);
        (void)changed_sa(parallel);
        (void)changed_pa(expected);
        (void)changed_pa(parallel);
        INFO("seed " << seed);
        // A mutable sparse term: each worker stamps the members it visits (one tick per slot).
        auto touch = [](SA& a, const SB&) { ++a.v; };
        expected.each<SA, const SB>(touch);
        parallel.each_par<SA, const SB>(pool, touch);
        const std::vector<ecs::Entity> stamped = changed_sa(expected);
        CHECK(!stamped.empty());
        CHECK(changed_sa(parallel) == stamped);
        // A mutable table term of a query naming a sparse type: only the rows passing the sparse test.
        auto table = [](PA& a, const SA& s) { a.v += s.v; };
        expected.each<PA, const SA>(ecs::Without<SB>{}, table);
        parallel.each_par<PA, const SA>(pool, ecs::Without<SB>{}, table);
        CHECK(changed_pa(parallel) == changed_pa(expected));
        // A mutable Optional table term of a tracked type runs on the calling thread (same result).
        const size_t calls = pool.calls;
        auto optional = [](const SA&, PA* a) {
            if (a != nullptr) a->v -= 1;
        };
        expected.each<const SA, ecs::Optional<PA>>(optional);
        parallel.each_par<const SA, ecs::Optional<PA>>(pool, optional);
        CHECK(pool.calls == calls);
        CHECK(changed_pa(parallel) == changed_pa(expected));
        REQUIRE(snapshot(parallel) == snapshot(expected));
    }
}
