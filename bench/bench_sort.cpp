/**
 * @file bench/bench_sort.cpp
 * @brief World::sort<Position> by x on shuffled data (both columns permuted in lockstep, records
 *        updated) against std::sort of a plain vector of Position of the same size.
 */
#include <algorithm>
#include <vector>

#include "common.hpp"

namespace bench {
namespace {

/// x values 0..n-1 in a fixed random order.
std::vector<float> shuffled_keys(size_t n) {
    const std::vector<uint32_t> order = shuffled_indices(n, 7u);
    std::vector<float> keys(n);
    for (size_t i = 0; i < n; ++i) keys[i] = static_cast<float>(order[i]);
    return keys;
}

bool by_x(const Position& a, const Position& b) { return a.x < b.x; }

void BM_Sort(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    populate_pv(world, n);
    const std::vector<float> keys = shuffled_keys(n);
    for (auto _ : state) {
        size_t row = 0; // untimed: reshuffle the keys in row order
        world.each_no_entity<Position>([&](Position& p) { p.x = keys[row++]; });
        const PhaseTimer timer;
        world.sort<Position>(by_x);
        state.SetIterationTime(timer.seconds());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE_MANUAL(BM_Sort);

void BM_Raw_Sort(benchmark::State& state) {
    const size_t n = arg_n(state);
    const std::vector<float> keys = shuffled_keys(n);
    std::vector<Position> positions(n);
    for (auto _ : state) {
        for (size_t i = 0; i < n; ++i) positions[i] = Position{keys[i], 1.0f};
        const PhaseTimer timer;
        std::sort(positions.begin(), positions.end(), by_x);
        state.SetIterationTime(timer.seconds());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE_MANUAL(BM_Raw_Sort);

} // namespace
} // namespace bench
