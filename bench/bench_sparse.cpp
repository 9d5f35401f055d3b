/**
 * @file bench/bench_sparse.cpp
 * @brief Queries over sparse components (Storage::sparse), sequential and parallel.
 *
 * - BM_SparseOnly_Each / _EachEntity / _Count: N entities spread over 64 archetypes, every hundredth
 *   holding a sparse `Mark`; `each<Mark>` walks the members of the set, not the N rows. Twin:
 *   BM_Raw_SparseOnly, the same body over a std::vector of N / 100 values. Items are the members
 *   (N / 100), so the ns/item of the three are comparable.
 * - BM_SparseTwo_Each: the same world where a member also holds a second sparse type, the query
 *   naming both (the smaller set drives, the other is looked up per member). Same twin.
 * - BM_Parallel_SparseEach / BM_Parallel_SparseEachPar2: N entities holding two sparse types
 *   (`SparseWork`, `SparseSeed`), ~50 ns of dependent arithmetic per entity, sequential each vs
 *   each_par on ThreadPool(2). Speed-up = SparseEach / SparseEachPar2 (bar: >= 1.8 on two cores).
 * - BM_Parallel_MixedEach / BM_Parallel_MixedEachPar2: a table term and a sparse term (archetype
 *   batches, the sparse value fetched per row), same body and the same comparison.
 * - BM_Parallel_SparseEachPool/n/T, BM_Parallel_MixedEachPool/n/T: the same on ThreadPool(T), for
 *   the scaling run on a many-core machine (#31: >= 0.9 x T at 1M).
 * Wall-clock timed (UseRealTime) where workers run: the calling thread's CPU time would hide them.
 */
#include <cstddef>
#include <cstdint>
#include <vector>

#include <ecs/parallel.hpp>

#include "common.hpp"
#include "executors.hpp"

namespace bench {
/// The sparse component of the all-sparse queries.
struct Mark {
    float v;
};
/// A second sparse type on the same members.
struct MarkTwo {
    float w;
};
/// The two sparse terms of the parallel benchmarks.
struct SparseWork {
    float x;
};
struct SparseSeed {
    float k;
};
/// Table types that spread the world over 64 archetypes.
template <int I>
struct Shard {
    int32_t v;
};
} // namespace bench

template <>
struct ecs::component_traits<bench::Mark> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};
template <>
struct ecs::component_traits<bench::MarkTwo> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};
template <>
struct ecs::component_traits<bench::SparseWork> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};
template <>
struct ecs::component_traits<bench::SparseSeed> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};

namespace bench {
namespace {

template <int I>
void add_shard_if(ecs::World& w, ecs::Entity e, size_t bits) {
    if ((bits >> I) & 1u) w.add(e, Shard<I>{I});
}

/// N entities with Position and the shards of (i % 64): 64 archetypes, mixed in creation order;
/// every hundredth gets a `Mark` (and a `MarkTwo` when `two`).
void build_sharded(ecs::World& w, size_t n, bool two) {
    for (size_t i = 0; i < n; ++i) {
        const ecs::Entity e = w.create_with(Position{float(i), 0.0f});
        const size_t bits = i % 64;
        add_shard_if<0>(w, e, bits);
        add_shard_if<1>(w, e, bits);
        add_shard_if<2>(w, e, bits);
        add_shard_if<3>(w, e, bits);
        add_shard_if<4>(w, e, bits);
        add_shard_if<5>(w, e, bits);
        if (i % 100 == 0) {
            w.add(e, Mark{float(i % 7)});
            if (two) w.add(e, MarkTwo{0.5f});
        }
    }
}

inline float step(float v) { return v * 0.999f + 1.0f; }

void BM_SparseOnly_Each(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World w;
    build_sharded(w, n, false);
    for (auto _ : state) {
        w.each<Mark>([](Mark& m) { m.v = step(m.v); });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>((n + 99) / 100));
}
ECS_BENCH_RANGE(BM_SparseOnly_Each);

void BM_SparseOnly_EachEntity(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World w;
    build_sharded(w, n, false);
    uint64_t sum = 0;
    for (auto _ : state) {
        w.each<Mark>([&](ecs::Entity e, Mark& m) {
            m.v = step(m.v);
            sum += e.index;
        });
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>((n + 99) / 100));
}
ECS_BENCH_RANGE(BM_SparseOnly_EachEntity);

void BM_SparseOnly_Count(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World w;
    build_sharded(w, n, false);
    for (auto _ : state) benchmark::DoNotOptimize(w.count<Mark>());
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>((n + 99) / 100));
}
ECS_BENCH_RANGE(BM_SparseOnly_Count);

void BM_SparseTwo_Each(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World w;
    build_sharded(w, n, true);
    for (auto _ : state) {
        w.each<Mark, const MarkTwo>([](Mark& m, const MarkTwo& t) { m.v = step(m.v) + t.w; });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>((n + 99) / 100));
}
ECS_BENCH_RANGE(BM_SparseTwo_Each);

/// The twin: the members' values in a std::vector, the same body.
void BM_Raw_SparseOnly(benchmark::State& state) {
    const size_t n = arg_n(state);
    std::vector<Mark> values;
    for (size_t i = 0; i < n; i += 100) values.push_back(Mark{float(i % 7)});
    for (auto _ : state) {
        for (Mark& m : values) m.v = step(m.v);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(values.size()));
}
ECS_BENCH_RANGE(BM_Raw_SparseOnly);

// --- parallel ---------------------------------------------------------------------------------------

/// About 50 ns per entity: 60 dependent multiply-adds (bench_parallel.cpp's body).
inline float burn(float x, float k) {
    for (int i = 0; i < 60; ++i) x = x * k + 0.5f;
    return x;
}

void fill_sparse(ecs::World& w, size_t n) {
    for (size_t i = 0; i < n; ++i) w.create_with(Position{}, SparseWork{float(i % 100)}, SparseSeed{0.999f});
}

void BM_Parallel_SparseEach(benchmark::State& state) {
    ecs::World w;
    fill_sparse(w, arg_n(state));
    for (auto _ : state) {
        w.each<SparseWork, const SparseSeed>([](SparseWork& p, const SparseSeed& s) { p.x = burn(p.x, s.k); });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Parallel_SparseEach)->UseRealTime();

void BM_Parallel_SparseEachPar2(benchmark::State& state) {
    ecs::World w;
    fill_sparse(w, arg_n(state));
    ecs::ThreadPool pool(2);
    for (auto _ : state) {
        w.each_par<SparseWork, const SparseSeed>(pool, [](SparseWork& p, const SparseSeed& s) { p.x = burn(p.x, s.k); });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Parallel_SparseEachPar2)->UseRealTime();

void pool_args(benchmark::internal::Benchmark* b) {
    b->Args({10000, 2}); // the smoke test's size
    for (const int64_t t : {1, 2, 4, 8, 16}) b->Args({1000000, t});
}

void BM_Parallel_SparseEachPool(benchmark::State& state) {
    ecs::World w;
    fill_sparse(w, arg_n(state));
    ecs::ThreadPool pool(static_cast<size_t>(state.range(1)));
    for (auto _ : state) {
        w.each_par<SparseWork, const SparseSeed>(pool, [](SparseWork& p, const SparseSeed& s) { p.x = burn(p.x, s.k); });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Parallel_SparseEachPool)->Apply(pool_args)->Unit(benchmark::kMillisecond)->UseRealTime();

/// The same on ThreadPool(T) wrapped in TracingExecutor: how the batches spread over the threads.
void BM_Parallel_SparseEachTraced(benchmark::State& state) {
    ecs::World w;
    fill_sparse(w, arg_n(state));
    ecs::ThreadPool pool(static_cast<size_t>(state.range(1)));
    TracingExecutor traced(pool);
    for (auto _ : state) {
        w.each_par<SparseWork, const SparseSeed>(traced, [](SparseWork& p, const SparseSeed& s) { p.x = burn(p.x, s.k); });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
    report_trace(state, traced.totals());
}
BENCHMARK(BM_Parallel_SparseEachTraced)->Apply(pool_args)->Unit(benchmark::kMillisecond)->UseRealTime();

void fill_mixed(ecs::World& w, size_t n) {
    for (size_t i = 0; i < n; ++i) w.create_with(Position{float(i % 100), 0.0f}, SparseSeed{0.999f});
}

void BM_Parallel_MixedEach(benchmark::State& state) {
    ecs::World w;
    fill_mixed(w, arg_n(state));
    for (auto _ : state) {
        w.each<Position, const SparseSeed>([](Position& p, const SparseSeed& s) { p.x = burn(p.x, s.k); });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Parallel_MixedEach)->UseRealTime();

void BM_Parallel_MixedEachPar2(benchmark::State& state) {
    ecs::World w;
    fill_mixed(w, arg_n(state));
    ecs::ThreadPool pool(2);
    for (auto _ : state) {
        w.each_par<Position, const SparseSeed>(pool, [](Position& p, const SparseSeed& s) { p.x = burn(p.x, s.k); });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Parallel_MixedEachPar2)->UseRealTime();

void BM_Parallel_MixedEachPool(benchmark::State& state) {
    ecs::World w;
    fill_mixed(w, arg_n(state));
    ecs::ThreadPool pool(static_cast<size_t>(state.range(1)));
    for (auto _ : state) {
        w.each_par<Position, const SparseSeed>(pool, [](Position& p, const SparseSeed& s) { p.x = burn(p.x, s.k); });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Parallel_MixedEachPool)->Apply(pool_args)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace
} // namespace bench
