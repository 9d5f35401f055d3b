/**
 * @file bench/bench_access.cpp
 * @brief Random access by handle: get<Position>(e).x over every handle in a shuffled order, against
 *        random indexed reads of a plain vector.
 *
 * Four independent accumulators keep the float-add latency chain from hiding the memory cost.
 */
#include <cstdint>
#include <vector>

#include "common.hpp"

namespace bench {
namespace {

void BM_GetRandom(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    std::vector<ecs::Entity> handles = populate_pv(world, n);
    shuffle_fixed(handles);
    for (auto _ : state) {
        float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        size_t i = 0;
        for (; i + 4 <= n; i += 4) {
            s0 += world.get<Position>(handles[i]).x;
            s1 += world.get<Position>(handles[i + 1]).x;
            s2 += world.get<Position>(handles[i + 2]).x;
            s3 += world.get<Position>(handles[i + 3]).x;
        }
        for (; i < n; ++i) s0 += world.get<Position>(handles[i]).x;
        float sum = (s0 + s1) + (s2 + s3);
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_SCALING(BM_GetRandom);

/// Baseline: the same reads through shuffled indices into a plain vector.
void BM_Raw_GetRandom(benchmark::State& state) {
    const size_t n = arg_n(state);
    std::vector<Position> positions(n);
    for (size_t i = 0; i < n; ++i) positions[i] = position_of(i);
    const std::vector<uint32_t> order = shuffled_indices(n);
    for (auto _ : state) {
        const Position* p = positions.data();
        float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        size_t i = 0;
        for (; i + 4 <= n; i += 4) {
            s0 += p[order[i]].x;
            s1 += p[order[i + 1]].x;
            s2 += p[order[i + 2]].x;
            s3 += p[order[i + 3]].x;
        }
        for (; i < n; ++i) s0 += p[order[i]].x;
        float sum = (s0 + s1) + (s2 + s3);
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_SCALING(BM_Raw_GetRandom);

/// Second baseline (#20): what any handle-based store must do at least. The handles are indices into
/// an 8-byte record array {table, row} (ecs's EntityRecord layout) and the value is read from the
/// row the record names: two dependent random reads per get, hand-written for one table. The ratio
/// get / this is what ecs's lookup costs beyond the physical minimum of its design.
void BM_Raw_GetRandomTwoLevel(benchmark::State& state) {
    const size_t n = arg_n(state);
    struct Record {
        uint32_t table;
        uint32_t row;
    };
    std::vector<Position> positions(n);
    std::vector<Record> records(n);
    for (size_t i = 0; i < n; ++i) {
        positions[i] = position_of(i);
        records[i] = Record{0, static_cast<uint32_t>(i)};
    }
    const std::vector<uint32_t> handles = shuffled_indices(n);
    for (auto _ : state) {
        const Position* p = positions.data();
        const Record* r = records.data();
        float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        size_t i = 0;
        for (; i + 4 <= n; i += 4) {
            s0 += p[r[handles[i]].row].x;
            s1 += p[r[handles[i + 1]].row].x;
            s2 += p[r[handles[i + 2]].row].x;
            s3 += p[r[handles[i + 3]].row].x;
        }
        for (; i < n; ++i) s0 += p[r[handles[i]].row].x;
        float sum = (s0 + s1) + (s2 + s3);
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_SCALING(BM_Raw_GetRandomTwoLevel);

/// Third baseline (#31): the hand-written twin of a validating handle store. Handles carry an index
/// and a generation; a record holds {table, row, generation} (12 bytes) and is checked against the
/// handle before the value is read from its table's column (a stale handle reads a fallback).
/// Three dependent reads: the record, the table's column pointer, the value.
void BM_Raw_GetRandomValidated(benchmark::State& state) {
    const size_t n = arg_n(state);
    struct Record {
        uint32_t table;
        uint32_t row;
        uint32_t generation;
    };
    struct Handle {
        uint32_t index;
        uint32_t generation;
    };
    std::vector<Position> positions(n);
    std::vector<Record> records(n + 1);
    for (size_t i = 0; i < n; ++i) {
        positions[i] = position_of(i);
        records[i + 1] = Record{0, static_cast<uint32_t>(i), 1};
    }
    std::vector<Position*> tables{positions.data()};
    const std::vector<uint32_t> order = shuffled_indices(n);
    std::vector<Handle> handles(n);
    for (size_t i = 0; i < n; ++i) handles[i] = Handle{order[i] + 1, 1};
    static const Position fallback{};
    for (auto _ : state) {
        const Record* r = records.data();
        Position* const* t = tables.data();
        const auto read = [&](Handle h) -> const Position& {
            const Record& rec = r[h.index];
            if (ECS_UNLIKELY(rec.generation != h.generation)) return fallback;
            return t[rec.table][rec.row];
        };
        float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        size_t i = 0;
        for (; i + 4 <= n; i += 4) {
            s0 += read(handles[i]).x;
            s1 += read(handles[i + 1]).x;
            s2 += read(handles[i + 2]).x;
            s3 += read(handles[i + 3]).x;
        }
        for (; i < n; ++i) s0 += read(handles[i]).x;
        float sum = (s0 + s1) + (s2 + s3);
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_SCALING(BM_Raw_GetRandomValidated);

} // namespace
} // namespace bench
