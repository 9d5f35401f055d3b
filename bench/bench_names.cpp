/**
 * @file bench/bench_names.cpp
 * @brief Entity names: lookup by name in a shuffled order (target: <= 50 ns at 100k names) against
 *        std::unordered_map<std::string, Entity> looked up with ready-made std::string keys, and
 *        naming fresh entities.
 */
#include <string>
#include <unordered_map>
#include <vector>

#include "common.hpp"

namespace bench {
namespace {

std::vector<std::string> make_names(size_t n) {
    std::vector<std::string> names;
    names.reserve(n);
    for (size_t i = 0; i < n; ++i) names.push_back("entity_" + std::to_string(i));
    return names;
}

/// The names in a fixed-seed random order, so lookups do not walk the table in insertion order.
std::vector<std::string> shuffled(const std::vector<std::string>& names) {
    std::vector<std::string> out;
    out.reserve(names.size());
    for (uint32_t i : shuffled_indices(names.size())) out.push_back(names[i]);
    return out;
}

void BM_LookupName(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    const std::vector<ecs::Entity> handles = populate_pv(world, n);
    const std::vector<std::string> names = make_names(n);
    for (size_t i = 0; i < n; ++i) world.set_name(handles[i], names[i]);
    const std::vector<std::string> order = shuffled(names);
    for (auto _ : state) {
        uint32_t sum = 0;
        for (const std::string& name : order) sum += world.lookup(name).index;
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_LookupName);

/// Baseline: std::unordered_map keyed by std::string, looked up with std::string keys (no
/// allocation; a std::string_view key would allocate a temporary string in C++17).
void BM_Raw_LookupName(benchmark::State& state) {
    const size_t n = arg_n(state);
    const std::vector<std::string> names = make_names(n);
    std::unordered_map<std::string, ecs::Entity> map;
    map.reserve(n);
    for (size_t i = 0; i < n; ++i) map.emplace(names[i], ecs::Entity{static_cast<uint32_t>(i + 1), 1});
    const std::vector<std::string> order = shuffled(names);
    for (auto _ : state) {
        uint32_t sum = 0;
        for (const std::string& name : order) {
            const auto it = map.find(name); // always found: `order` holds the map's own keys
            sum += it != map.end() ? it->second.index : 0;
        }
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_Raw_LookupName);

/// set_name on n fresh entities, then destroy them all (freeing every name); the naming is timed.
void BM_SetName(benchmark::State& state) {
    const size_t n = arg_n(state);
    const std::vector<std::string> names = make_names(n);
    for (auto _ : state) {
        ecs::World world;
        const std::vector<ecs::Entity> handles = populate_pv(world, n);
        PhaseTimer timer;
        for (size_t i = 0; i < n; ++i) world.set_name(handles[i], names[i]);
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(world.lookup(names[0]));
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE_MANUAL(BM_SetName);

} // namespace
} // namespace bench
