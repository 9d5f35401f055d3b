/**
 * @file bench/op_cost.cpp
 * @brief `ecs_op_cost`: instructions per operation, for finding where the time of the hot paths goes
 *        (create_with, get of a random entity, add + remove, destroy) and the resident bytes per
 *        entity of a {Position, Velocity} world.
 *
 * Run it under callgrind; only the measured loop is instrumented (callgrind client requests), so
 * the instruction count divided by N is the cost of one operation, including its twin in plain code:
 *
 *     valgrind --tool=callgrind --instr-atstart=no build/release/bench/ecs_op_cost get 100000
 *     callgrind_annotate callgrind.out.<pid> | head -30
 *
 * Without valgrind the same binary prints the bytes per entity (`memory N`): resident set growth
 * (from /proc/self/statm) while N entities are created, and World::memory_bytes() / N.
 */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <ecs/world.hpp>

#include "components.hpp"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define ECS_OP_START() CALLGRIND_START_INSTRUMENTATION
#define ECS_OP_STOP() CALLGRIND_STOP_INSTRUMENTATION
#endif
#endif
#ifndef ECS_OP_START
#define ECS_OP_START() ((void)0)
#define ECS_OP_STOP() ((void)0)
#endif

namespace {

using bench::Health;
using bench::Position;
using bench::Velocity;

/// Resident bytes of this process (Linux; 0 elsewhere).
size_t resident_bytes() {
    size_t pages_total = 0, pages_resident = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%zu %zu", &pages_total, &pages_resident) != 2) pages_resident = 0;
        std::fclose(f);
    }
    return pages_resident * 4096u;
}

std::vector<ecs::Entity> populate(ecs::World& world, size_t n) {
    std::vector<ecs::Entity> handles;
    handles.reserve(n);
    for (size_t i = 0; i < n; ++i)
        handles.push_back(world.create_with(Position{static_cast<float>(i), 1.0f}, Velocity{1.0f, 0.5f}));
    return handles;
}

// Each operation's loop is a function of its own, kept out of main: what the compiler inlines into
// one loop then does not change the code (registers, spills) of another.

[[gnu::noinline]] void op_create(ecs::World& world, size_t n) {
    ECS_OP_START();
    for (size_t i = 0; i < n; ++i) world.create_with(Position{static_cast<float>(i), 1.0f}, Velocity{1.0f, 0.5f});
    ECS_OP_STOP();
}

[[gnu::noinline]] float op_raw_create(size_t n) {
    std::vector<Position> p;
    std::vector<Velocity> v;
    ECS_OP_START();
    for (size_t i = 0; i < n; ++i) {
        p.push_back(Position{static_cast<float>(i), 1.0f});
        v.push_back(Velocity{1.0f, 0.5f});
    }
    ECS_OP_STOP();
    return p.back().x + v.back().x;
}

[[gnu::noinline]] float op_get(ecs::World& world, size_t n) {
    std::vector<ecs::Entity> handles = populate(world, n);
    std::shuffle(handles.begin(), handles.end(), std::mt19937(7));
    float s = 0;
    ECS_OP_START();
    for (ecs::Entity e : handles) s += world.get<Position>(e).x;
    ECS_OP_STOP();
    return s;
}

[[gnu::noinline]] void op_add_remove(ecs::World& world, size_t n) {
    const std::vector<ecs::Entity> handles = populate(world, n);
    for (ecs::Entity e : handles) world.add(e, Health{1, 1}); // warm: archetype and its capacity
    for (ecs::Entity e : handles) world.remove<Health>(e);
    ECS_OP_START();
    for (ecs::Entity e : handles) {
        world.add(e, Health{100, 100});
        world.remove<Health>(e);
    }
    ECS_OP_STOP();
}

[[gnu::noinline]] void op_destroy(ecs::World& world, size_t n) {
    const std::vector<ecs::Entity> handles = populate(world, n);
    ECS_OP_START();
    for (ecs::Entity e : handles) world.destroy(e);
    ECS_OP_STOP();
}

} // namespace

int main(int argc, char** argv) {
    const char* op = argc > 1 ? argv[1] : "memory";
    const size_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000000;
    volatile float sink = 0;
    ecs::World world;
    if (std::strcmp(op, "create") == 0) {
        op_create(world, n);
    } else if (std::strcmp(op, "raw_create") == 0) {
        sink = op_raw_create(n);
    } else if (std::strcmp(op, "get") == 0) {
        sink = op_get(world, n);
    } else if (std::strcmp(op, "add_remove") == 0) {
        op_add_remove(world, n);
    } else if (std::strcmp(op, "destroy") == 0) {
        op_destroy(world, n);
    } else if (std::strcmp(op, "memory") == 0) {
        const size_t before = resident_bytes();
        const std::vector<ecs::Entity> handles = populate(world, n);
        size_t after = resident_bytes();
        const size_t before_trim = after;
#if defined(__GLIBC__)
        malloc_trim(0); // give back the heap pages of blocks freed while growing (not the world's)
        after = resident_bytes();
#endif
        const double handles_bytes = static_cast<double>(handles.capacity() * sizeof(ecs::Entity));
        std::printf("entities %zu: resident %.2f bytes/entity (%.2f before malloc_trim; handle list of the driver "
                    "excluded), World::memory_bytes %.2f bytes/entity (capacity included)\n",
                    n, (static_cast<double>(after - before) - handles_bytes) / static_cast<double>(n),
                    (static_cast<double>(before_trim - before) - handles_bytes) / static_cast<double>(n),
                    static_cast<double>(world.memory_bytes()) / static_cast<double>(n));
    } else {
        std::fprintf(stderr, "usage: ecs_op_cost create|raw_create|get|add_remove|destroy|memory [N]\n");
        return 2;
    }
    std::printf("%s %zu done (%zu alive)\n", op, n, world.count());
    return static_cast<int>(sink) == 12345 ? 1 : 0;
}
