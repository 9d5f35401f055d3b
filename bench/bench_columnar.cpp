/**
 * @file bench/bench_columnar.cpp
 * @brief Recording history (#27): ecs::Recorder in full mode over N {Position, Velocity} entities,
 *        against BM_Raw_ColumnarCopy, a hand-written copy of the same columns into column buffers.
 *
 * - BM_Columnar_Record: record() alone (the rows into the recorder's buffers); the flush that writes
 *   and empties them runs untimed between iterations.
 * - BM_Columnar_RecordWrite: record() + flush(): Parquet encoding and the file written, synced and
 *   published (to the temp folder; its files are removed untimed).
 * - BM_Raw_ColumnarCopy: the physical floor of record(): the same nine columns (world_id and run_id
 *   as offsets + bytes, entity id, tick, is_active, four floats) written into std::vector columns
 *   that keep their capacity, sized once, floats by memcpy.
 * Read them as ratios to the raw copy, at the same N.
 */
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <ecs/parquet.hpp>
#include <ecs/world.hpp>

#include "common.hpp"

namespace {

struct ColumnarPos {
    float x = 0, y = 0;
};
ECS_REFLECT(ColumnarPos, x, y)
struct ColumnarVel {
    float x = 0, y = 0;
};
ECS_REFLECT(ColumnarVel, x, y)

void populate(ecs::World& w, size_t n) {
    for (size_t i = 0; i < n; ++i) w.create_with(ColumnarPos{static_cast<float>(i), 1}, ColumnarVel{1, 0.5f});
}

std::filesystem::path bench_root() { return std::filesystem::temp_directory_path() / "ecs_bench_columnar"; }

void BM_Columnar_Record(benchmark::State& state) {
    const size_t n = bench::arg_n(state);
    ecs::World w;
    populate(w, n);
    std::error_code ec;
    std::filesystem::remove_all(bench_root(), ec);
    ecs::RecorderOptions o;
    o.root = bench_root().string();
    o.ticks_per_file = 0;
    ecs::Recorder rec(w, o);
    int64_t tick = 0;
    for (auto _ : state) {
        bench::PhaseTimer t;
        rec.record(tick++);
        state.SetIterationTime(t.seconds());
        rec.flush();
        std::filesystem::remove_all(bench_root(), ec);
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
}
ECS_BENCH_RANGE_MANUAL(BM_Columnar_Record);

void BM_Columnar_RecordWrite(benchmark::State& state) {
    const size_t n = bench::arg_n(state);
    ecs::World w;
    populate(w, n);
    std::error_code ec;
    std::filesystem::remove_all(bench_root(), ec);
    ecs::RecorderOptions o;
    o.root = bench_root().string();
    o.ticks_per_file = 1;
    ecs::Recorder rec(w, o);
    int64_t tick = 0;
    size_t bytes = 0;
    for (auto _ : state) {
        bench::PhaseTimer t;
        rec.record(tick++);
        state.SetIterationTime(t.seconds());
        bytes = rec.stats().bytes;
        std::filesystem::remove_all(bench_root(), ec);
    }
    state.counters["bytes_per_row"] = static_cast<double>(bytes) / static_cast<double>(tick) / static_cast<double>(n);
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
}
ECS_BENCH_RANGE_MANUAL(BM_Columnar_RecordWrite);

void BM_Raw_ColumnarCopy(benchmark::State& state) {
    const size_t n = bench::arg_n(state);
    // The same data in plain SoA arrays, as a hand-written recorder would find it.
    std::vector<uint64_t> ids(n);
    std::vector<float> px(n), py(n), vx(n), vy(n);
    for (size_t i = 0; i < n; ++i) {
        ids[i] = i;
        px[i] = static_cast<float>(i);
        py[i] = 1;
        vx[i] = 1;
        vy[i] = 0.5f;
    }
    const std::string world_id = "world", run_id = "run";
    std::vector<char> world_chars, run_chars;
    std::vector<int32_t> world_offsets, run_offsets;
    std::vector<int64_t> entity, ticks;
    std::vector<uint8_t> active;
    std::vector<float> cpx, cpy, cvx, cvy;
    int64_t tick = 0;
    for (auto _ : state) {
        active.clear();
        // Sized once, then filled: the stamp strings copied per row, ids widened, tick and flag spread.
        world_chars.resize(n * world_id.size());
        run_chars.resize(n * run_id.size());
        world_offsets.resize(n + 1);
        run_offsets.resize(n + 1);
        entity.resize(n);
        ticks.resize(n);
        for (size_t i = 0; i < n; ++i) {
            std::memcpy(world_chars.data() + i * world_id.size(), world_id.data(), world_id.size());
            world_offsets[i + 1] = static_cast<int32_t>((i + 1) * world_id.size());
            std::memcpy(run_chars.data() + i * run_id.size(), run_id.data(), run_id.size());
            run_offsets[i + 1] = static_cast<int32_t>((i + 1) * run_id.size());
            entity[i] = static_cast<int64_t>(ids[i]);
            ticks[i] = tick;
        }
        active.resize(n, 1);
        for (auto [dst, src] : {std::pair{&cpx, &px}, std::pair{&cpy, &py}, std::pair{&cvx, &vx}, std::pair{&cvy, &vy}}) {
            dst->resize(n);
            std::memcpy(dst->data(), src->data(), n * sizeof(float));
        }
        ++tick;
        benchmark::DoNotOptimize(world_chars.data());
        benchmark::DoNotOptimize(cvy.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
}
ECS_BENCH_RANGE(BM_Raw_ColumnarCopy);

} // namespace
