// Events room rule (events.hpp): several threads may read one world through `const World&` at
// once, each with its own reader, while nobody modifies it. Run under ThreadSanitizer by the tsan
// preset.
#include <ecs/parallel.hpp>
#include <ecs/world.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "catch.hpp"

namespace {
struct Spark {
    uint32_t value;
};
} // namespace

TEST_CASE("events: concurrent const reads with one reader per thread", "[parallel][events]") {
    ecs::World world;
    ecs::ThreadPool pool(4);
    constexpr size_t readers_count = 16;
    std::vector<ecs::EventReader<Spark>> readers(readers_count);
    std::vector<uint64_t> sums(readers_count, 0);
    uint64_t expected = 0;
    for (uint32_t frame = 0; frame < 5; ++frame) {
        for (uint32_t i = 0; i < 3000; ++i) world.send(Spark{frame * 3000 + i});
        for (uint32_t i = 0; i < 3000; ++i) expected += frame * 3000 + i;
        const ecs::World& shared = world;
        ecs::parallel_for(pool, readers_count, [&](size_t r) {
            readers[r].read(shared, [&](const Spark& s) { sums[r] += s.value; });
        });
        world.update_events();
    }
    bool all = true;
    for (size_t r = 0; r < readers_count; ++r)
        if (sums[r] != expected || readers[r].missed() != 0) all = false;
    CHECK(all);
}
