/**
 * @file ecs/inspect.hpp
 * @brief `ecs::describe(world)`: a readable multi-line report of what a world holds and where its
 *        memory goes (for tools, logs and bug reports).
 *
 * The report lists the entities (alive, slots, free), every archetype (its component names, rows,
 * capacity, bytes), fragmentation (archetype count, empty archetypes, a histogram of rows per
 * archetype in power-of-two buckets), the cached queries, the memory of each room (their sum is
 * World::memory_bytes()), the names and the relationships (types, pairs, sources, targets). The text is for people: its layout may change between
 * versions, so do not parse it.
 *
 * Thread-safety: reads the world only; safe while nobody writes to it.
 */
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

#include "world.hpp"

namespace ecs {

namespace detail {

/// printf-style append to `out`.
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
inline void append_format(std::string& out, const char* format, ...) {
    char buffer[256];
    va_list args;
    va_start(args, format);
    const int n = std::vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    if (n > 0) out.append(buffer, static_cast<size_t>(n) < sizeof buffer ? static_cast<size_t>(n) : sizeof buffer - 1);
}

/// The power-of-two bucket of a row count: 0 -> 0, 1 -> 1, 2..3 -> 2, 4..7 -> 3, ...
inline size_t row_bucket(size_t rows) noexcept {
    size_t b = 0;
    while (rows != 0) {
        rows >>= 1;
        ++b;
    }
    return b;
}

/// The relationships part of describe(): the types holding pairs, with their pair, source and
/// target counts (names: the registered name of R when there is one, else type_name<R>()).
inline void describe_relations(std::string& out, const Relations& relations) {
    if (relations.pairs() == 0) {
        append_format(out, "relationships: none\n");
        return;
    }
    size_t types = 0;
    relations.each_index([&](const RelationIndex& index) { if (index.pairs() != 0) ++types; });
    append_format(out, "relationships: %zu types, %zu pairs\n", types, relations.pairs());
    relations.each_index([&](const RelationIndex& index) {
        if (index.pairs() == 0) return;
        size_t sources = 0;
        size_t targets = 0;
        for (uint32_t slot = 0; slot < index.slots(); ++slot) {
            if (index.target_count(slot) != 0) ++sources;
            if (!index.sources_of(slot)->empty()) ++targets;
        }
        const RelationTypeInfo& info = index.info();
        const std::string_view name = component_info(info.relation).name;
        append_format(out, "  %.*s (%s, %s): %zu pairs, %zu sources, %zu targets\n", static_cast<int>(name.size()), name.data(),
                      info.exclusive ? "exclusive" : "several targets",
                      info.on_delete_target == OnDeleteTarget::destroy_sources ? "destroy sources" : "unrelate",
                      index.pairs(), sources, targets);
    });
}

} // namespace detail

/**
 * @brief A readable multi-line report of `world`: entities, archetypes (component names, rows,
 *        capacity, bytes), fragmentation, cached queries, memory per room, names.
 * Complexity: O(archetypes x components + slots).
 */
inline std::string describe(const World& world) {
    using detail::append_format;
    using detail::WorldAccess;
    const auto& archetypes = WorldAccess::archetypes(world);
    const auto& records = WorldAccess::records(world);
    const size_t slots = records.size() - 1; // slot 0 is reserved
    std::string out;
    append_format(out, "ecs::World\n");
    append_format(out, "entities: %zu alive, %zu slots, %zu free\n", world.count(), slots, slots - world.count());

    // Archetypes, in creation order (the order queries visit them).
    size_t blocks = 0;
    size_t lists = 0;
    size_t empty = 0;
    size_t histogram[65] = {};
    size_t top_bucket = 0;
    append_format(out, "archetypes: %zu\n", archetypes.size());
    for (const Archetype* a : archetypes) {
        append_format(out, "  #%u [", static_cast<unsigned>(a->id));
        for (size_t c = 0; c < a->types.size(); ++c) {
            if (c != 0) out += ", ";
            const std::string_view name = component_info(a->types[c]).name;
            out.append(name.data(), name.size());
        }
        const size_t list_bytes = a->entities.capacity() * sizeof(Entity);
        const size_t capacity = a->row_size != 0 ? a->capacity() : a->entities.capacity();
        append_format(out, "] rows %zu, capacity %zu, bytes %zu (+%zu entity list)\n", a->size(), capacity,
                      a->block_bytes(), list_bytes);
        blocks += a->block_bytes();
        lists += list_bytes;
        if (a->size() == 0) ++empty;
        const size_t bucket = detail::row_bucket(a->size());
        ++histogram[bucket];
        if (bucket > top_bucket) top_bucket = bucket;
    }

    // Fragmentation: how the rows spread over the archetypes.
    append_format(out, "fragmentation: %zu archetypes, %zu empty; rows per archetype:", archetypes.size(), empty);
    for (size_t b = 0; b <= top_bucket; ++b) {
        if (histogram[b] == 0) continue;
        if (b <= 1) append_format(out, " [%zu] %zu", b, histogram[b]);
        else if (b == 2) append_format(out, " [2-3] %zu", histogram[b]);
        else append_format(out, " [%zu-%zu] %zu", size_t(1) << (b - 1), (size_t(1) << b) - 1, histogram[b]);
    }
    out += '\n';

    append_format(out, "cached queries: %zu\n", WorldAccess::queries(world).cached_count());

    // Memory per room; the parts add up to World::memory_bytes().
    const size_t record_bytes = records.capacity() * sizeof(EntityRecord);
    const size_t archetype_objects = archetypes.size() * sizeof(Archetype);
    const size_t deferred = WorldAccess::deferred_bytes(world);
    const size_t names = WorldAccess::names(world).memory_bytes();
    size_t ticks = 0;
    for (const Archetype* a : archetypes) ticks += a->ticks.memory_bytes();
    const size_t relations = WorldAccess::relations(world).memory_bytes();
    append_format(out,
                  "memory: %zu bytes (records %zu, archetype blocks %zu, entity lists %zu, archetype objects %zu, "
                  "change ticks %zu, deferred pages %zu, names %zu, relations %zu)\n",
                  world.memory_bytes(), record_bytes, blocks, lists, archetype_objects, ticks, deferred, names, relations);

    append_format(out, "names: %zu\n", WorldAccess::names(world).size());
    // Change detection: the types this world tracks (track_changes<T>()).
    const ArchetypeGraph& graph = WorldAccess::graph(world);
    size_t tracked = 0;
    out += "tracked types:";
    for (ComponentTypeID id = 0; id < ECS_MAX_COMPONENTS; ++id) {
        if (!graph.tracks(id)) continue;
        const std::string_view name = component_info(id).name;
        append_format(out, "%s %.*s", tracked++ == 0 ? "" : ",", int(name.size()), name.data());
    }
    if (tracked == 0) out += " none";
    out += '\n';
    describe_relations(out, WorldAccess::relations(world));
    return out;
}

} // namespace ecs
