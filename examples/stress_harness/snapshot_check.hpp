// Snapshot round trip of the stress harness: serialize a world, deserialize it into a new one, and
// prove the copy equal: same entities (handles included), same counts per component, same values
// (an order-independent checksum), consistent hierarchy, same next handle, invariants intact.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>

#include <ecs/ecs.hpp>

#include "scenes.hpp"

namespace harness {

/// Registers every component the scenes use under a stable name (idempotent).
inline void register_snapshot_components() {
    ecs::register_component<Position>("Position");
    ecs::register_component<Velocity>("Velocity");
    ecs::register_component<Acceleration>("Acceleration");
    ecs::register_component<Mass>("Mass");
    ecs::register_component<Color>("Color");
    ecs::register_component<Rotation>("Rotation");
    ecs::register_component<Spin>("Spin");
    ecs::register_component<Scale>("Scale");
    ecs::register_component<Lifetime>("Lifetime");
    ecs::register_component<Orbit>("Orbit");
    ecs::register_component<Leader>("Leader");
    ecs::register_component<Dying>("Dying");
    ecs::register_component<ecs::LocalTransform>("ecs::LocalTransform");
    ecs::register_component<ecs::WorldTransform>("ecs::WorldTransform");
    ecs::register_component<ecs::Parent>("ecs::Parent");
    ecs::register_component<ecs::Children>("ecs::Children", &ecs::write_children, &ecs::read_children);
}

namespace detail {

inline uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xFF51AFD7ED558CCDull;
    return h ^ (h >> 33);
}
inline uint64_t hash_bytes(const void* data, size_t n, uint64_t h) {
    const unsigned char* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) h = mix(h, p[i]);
    return h;
}
inline uint64_t hash_entity(ecs::Entity e) { return mix(mix(17, e.index), e.generation); }

/// Sum over entities of hash(entity, value): independent of archetype and row order.
template <typename T>
void accumulate(ecs::World& world, uint64_t salt, uint64_t& checksum, size_t& count) {
    world.each<const T>([&](ecs::Entity e, const T& value) {
        uint64_t h = mix(hash_entity(e), salt);
        if constexpr (std::is_same_v<T, ecs::Children>) {
            for (const ecs::Entity c : value.entities) h = mix(h, hash_entity(c));
        } else if constexpr (!std::is_empty_v<T>) {
            static_assert(std::is_trivially_copyable_v<T>, "hash only padding-free trivially copyable types");
            h = hash_bytes(&value, sizeof(T), h);
        }
        checksum += h;
        ++count;
    });
}

} // namespace detail

struct WorldDigest {
    uint64_t checksum = 0;
    size_t components = 0; ///< component instances seen
    size_t entities = 0;
};

/// An order-independent digest of every entity and component value of the scenes' types.
inline WorldDigest digest(ecs::World& world) {
    WorldDigest d;
    d.entities = world.count();
    uint64_t salt = 1;
    detail::accumulate<Position>(world, salt++, d.checksum, d.components);
    detail::accumulate<Velocity>(world, salt++, d.checksum, d.components);
    detail::accumulate<Acceleration>(world, salt++, d.checksum, d.components);
    detail::accumulate<Mass>(world, salt++, d.checksum, d.components);
    detail::accumulate<Color>(world, salt++, d.checksum, d.components);
    detail::accumulate<Rotation>(world, salt++, d.checksum, d.components);
    detail::accumulate<Spin>(world, salt++, d.checksum, d.components);
    detail::accumulate<Scale>(world, salt++, d.checksum, d.components);
    detail::accumulate<Lifetime>(world, salt++, d.checksum, d.components);
    detail::accumulate<Orbit>(world, salt++, d.checksum, d.components);
    detail::accumulate<Leader>(world, salt++, d.checksum, d.components);
    detail::accumulate<Dying>(world, salt++, d.checksum, d.components);
    detail::accumulate<ecs::LocalTransform>(world, salt++, d.checksum, d.components);
    detail::accumulate<ecs::WorldTransform>(world, salt++, d.checksum, d.components);
    detail::accumulate<ecs::Parent>(world, salt++, d.checksum, d.components);
    detail::accumulate<ecs::Children>(world, salt++, d.checksum, d.components);
    return d;
}

/// True when every Parent is listed by its parent's Children and every Children entry points back.
inline bool hierarchy_consistent(ecs::World& world) {
    bool ok = true;
    world.each<const ecs::Parent>([&](ecs::Entity e, const ecs::Parent& p) {
        const ecs::Children* c = world.try_get<ecs::Children>(p.entity);
        bool listed = false;
        if (c != nullptr)
            for (const ecs::Entity x : c->entities) listed = listed || x == e;
        ok = ok && listed;
    });
    world.each<const ecs::Children>([&](ecs::Entity e, const ecs::Children& c) {
        for (const ecs::Entity x : c.entities) {
            const ecs::Parent* p = world.try_get<ecs::Parent>(x);
            ok = ok && p != nullptr && p->entity == e;
        }
    });
    return ok;
}

struct SnapshotReport {
    bool ok = false;
    std::string failure; ///< empty when ok
    size_t entities = 0;
    size_t archetypes = 0;
    size_t bytes = 0;
    size_t components = 0;
    uint64_t checksum = 0;
    double write_ms = 0;
    double read_ms = 0;
};

/// One line naming the entity count, the count of every component of the scenes and the range of
/// Position.x (floored): `entities=N Position=P ... min_x=A max_x=B`. The Python example
/// examples/python/edit_snapshot.py computes the same line for the worlds it writes, so --load can
/// prove that C++ reads back exactly what Python wrote.
inline std::string snapshot_summary(ecs::World& world) {
    std::string s = "entities=" + std::to_string(world.count());
    auto add = [&](const char* name, size_t n) { s += std::string(" ") + name + "=" + std::to_string(n); };
    add("Position", world.count<Position>());
    add("Velocity", world.count<Velocity>());
    add("Acceleration", world.count<Acceleration>());
    add("Mass", world.count<Mass>());
    add("Color", world.count<Color>());
    add("Rotation", world.count<Rotation>());
    add("Spin", world.count<Spin>());
    add("Scale", world.count<Scale>());
    add("Lifetime", world.count<Lifetime>());
    add("Orbit", world.count<Orbit>());
    add("Leader", world.count<Leader>());
    add("Dying", world.count<Dying>());
    add("ecs::LocalTransform", world.count<ecs::LocalTransform>());
    add("ecs::WorldTransform", world.count<ecs::WorldTransform>());
    add("ecs::Parent", world.count<ecs::Parent>());
    add("ecs::Children", world.count<ecs::Children>());
    bool any = false;
    double lo = 0, hi = 0;
    world.each<const Position>([&](const Position& p) {
        const double x = static_cast<double>(p.x);
        lo = any ? std::min(lo, x) : x;
        hi = any ? std::max(hi, x) : x;
        any = true;
    });
    if (any)
        s += " min_x=" + std::to_string(static_cast<long long>(std::floor(lo))) +
             " max_x=" + std::to_string(static_cast<long long>(std::floor(hi)));
    else
        s += " min_x=none max_x=none";
    return s;
}

/// --save FILE: writes a snapshot of `world` to `path`. Returns an error text, empty on success.
inline std::string save_snapshot(const ecs::World& world, const std::string& path) {
    register_snapshot_components();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) return "cannot open " + path + " for writing";
    ecs::serialize(world, out);
    out.close();
    if (!out) return "writing " + path + " failed";
    return {};
}

/// --load FILE: loads the snapshot at `path` into `world` and checks it (hierarchy consistent,
/// invariants). Returns an error text, empty on success.
inline std::string load_snapshot(ecs::World& world, const std::string& path) {
    register_snapshot_components();
    std::ifstream in(path, std::ios::binary);
    if (!in) return "cannot open " + path;
    const ecs::DeserializeResult r = ecs::deserialize(world, in);
    if (!r) return "deserialize failed: " + r.message;
    if (!hierarchy_consistent(world)) return "hierarchy inconsistent after loading";
    if (!world.check_invariants()) return "world invariants broken after loading";
    return {};
}

/// Serializes `world`, loads the snapshot into a new world and compares the two. `world` keeps its
/// entities; one entity is created and destroyed in it at the end, to compare the next handle.
inline SnapshotReport snapshot_round_trip(ecs::World& world) {
    using Clock = std::chrono::steady_clock;
    SnapshotReport r;
    register_snapshot_components();

    std::stringstream stream;
    const auto t0 = Clock::now();
    ecs::serialize(world, stream);
    const auto t1 = Clock::now();
    r.bytes = stream.str().size();

    ecs::World copy;
    const auto t2 = Clock::now();
    const ecs::DeserializeResult result = ecs::deserialize(copy, stream);
    const auto t3 = Clock::now();
    r.write_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    r.read_ms = std::chrono::duration<double, std::milli>(t3 - t2).count();
    if (!result) {
        r.failure = "deserialize failed: " + result.message;
        return r;
    }

    const WorldDigest before = digest(world);
    const WorldDigest after = digest(copy);
    r.entities = before.entities;
    r.components = before.components;
    r.checksum = before.checksum;
    r.archetypes = copy.archetype_count();
    if (after.entities != before.entities) {
        r.failure = "entity count differs: " + std::to_string(before.entities) + " vs " + std::to_string(after.entities);
    } else if (after.components != before.components) {
        r.failure = "component count differs: " + std::to_string(before.components) + " vs " +
                    std::to_string(after.components);
    } else if (after.checksum != before.checksum) {
        r.failure = "component checksum differs";
    } else if (!hierarchy_consistent(copy)) {
        r.failure = "hierarchy inconsistent after loading";
    } else if (!copy.check_invariants()) {
        r.failure = "world invariants broken after loading";
    } else {
        // Free list and generations: both worlds must hand out the same next handle.
        const ecs::Entity a = world.create();
        const ecs::Entity b = copy.create();
        world.destroy(a);
        if (a != b) r.failure = "next created entity differs (free list or generations not preserved)";
    }
    r.ok = r.failure.empty();
    return r;
}

} // namespace harness
