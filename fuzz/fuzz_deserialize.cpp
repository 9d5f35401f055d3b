// libFuzzer target: bytes -> deserialize() into a fresh World, through a seekable stream and through
// a non-seekable one (the two must agree). Must never crash or leak. On success the world must hold
// its invariants, survive use (queries, migration, creation, destruction) and round-trip: the
// snapshot of the loaded world loads again into the same snapshot. On failure the world must be
// left empty, valid and usable. Component kinds and snapshot functions: tests/test_model.cpp.
// Format 2 checksums reject nearly every mutation, so an input that looks like format 2 is also
// loaded once more with its frame repaired (body length and both checksums recomputed): mutations
// then reach the body parser, resource table included.
// The same bytes are also merge-loaded into a world that already holds entities (LoadMode::merge:
// all or nothing, nothing added on failure) and applied as a change stream (apply_changes) to the
// world change_base.hpp builds (on failure its snapshot must not change; change streams get their
// frame repaired the same way).
#define ECS_MODEL_NO_TESTS
#include "../tests/test_model.cpp"
#include "change_base.hpp"
#include "fuzz_resources.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <streambuf>
#include <string>

namespace {

/// Serves bytes from memory and cannot seek: deserialize() then reads the whole stream first.
class OneWayBuf : public std::streambuf {
public:
    OneWayBuf(const char* data, size_t size) {
        char* p = const_cast<char*>(data);
        setg(p, p, p + size);
    }
};

[[noreturn]] void die(const char* what, const std::string& detail = std::string()) {
    std::fprintf(stderr, "fuzz_deserialize: %s %s\n", what, detail.c_str());
    std::abort();
}

/// Reads every component of every entity, moves one entity through a migration, creates and
/// destroys: a loaded world must behave like any other.
void exercise(ecs::World& w) {
    size_t visited = 0;
    std::vector<ecs::Entity> entities;
    w.each<>(ecs::IncludeDisabled{}, [&](ecs::Entity e) { // disabled entities too (a change stream may disable)
        ++visited;
        entities.push_back(e);
    });
    if (visited != w.count()) die("each<> visits", std::to_string(visited) + " of " + std::to_string(w.count()));
    for (ecs::Entity e : entities) {
        if (!w.alive(e)) die("a visited entity is not alive");
        for_each_kind([&](auto* tag) {
            using T = std::remove_pointer_t<decltype(tag)>;
            if (const T* p = w.try_get<T>(e)) (void)Traits<T>::weight(*p);
        });
        if (const ecs::Children* c = w.try_get<ecs::Children>(e)) (void)c->entities.size();
    }
    if (!entities.empty()) {
        const ecs::Entity e = entities[entities.size() / 2];
        if (w.has<ModelPod>(e)) w.remove<ModelPod>(e);
        else w.add(e, ModelPod{1, 0.5f});
        w.add(e, std::string("migrated"));
        if (w.get<std::string>(e) != "migrated") die("a loaded entity lost a value after migration");
        w.destroy(entities.front());
    }
    const ecs::Entity fresh = w.create_with(ModelNoDefault(3), ModelTag{});
    if (!w.alive(fresh)) die("create_with after load failed");
    if (!w.check_invariants()) die("invariants broken after using a loaded world");
}

/// `bytes` with a change stream frame made valid ("ECSC", version 1, body length, both checksums).
std::string repaired_changes(const std::string& bytes) {
    if (bytes.size() < 24 || bytes.compare(0, 4, std::string("ECSC", 4)) != 0) return std::string();
    std::string s = bytes;
    unsigned char* p = reinterpret_cast<unsigned char*>(&s[0]);
    ecs::detail::put_u32(p + 4, ecs::CHANGE_STREAM_VERSION);
    const uint64_t body = s.size() - 24;
    ecs::detail::put_u64(p + 8, body);
    ecs::detail::put_u32(p + 16, ecs::detail::Crc32c::of(p, 16));
    ecs::detail::put_u32(p + 20 + body, ecs::detail::Crc32c::of(p + 20, static_cast<size_t>(body)));
    return s;
}

std::string snapshot_of(const ecs::World& w) {
    std::ostringstream out;
    ecs::serialize(w, out);
    return out.str();
}

/// Merge-loads `bytes` into a world holding entities of its own.
void check_merge(const std::string& bytes) {
    ecs::World host;
    const ecs::Entity mine = host.create_with(ModelPod{1, 1.0f}, std::string("host"));
    host.set_name(mine, "host");
    (void)host.create_with(ModelTag{});
    const size_t before = host.count();
    ecs::EntityMap map;
    std::istringstream in(bytes);
    const ecs::DeserializeResult r = ecs::deserialize(host, in, ecs::LoadMode::merge, map);
    if (!host.check_invariants()) die("invariants broken after a merge load");
    if (!r) {
        if (host.count() != before || !map.empty()) die("a failed merge load changed the world:", r.message);
    } else {
        if (host.count() != before + map.size()) die("a merge load added other than the mapped entities");
        map.each([&](ecs::Entity, ecs::Entity to) {
            if (!host.alive(to)) die("a mapped entity is not alive");
        });
        if (host.get<std::string>(mine) != "host") die("a merge load changed the host's entity");
    }
    exercise(host);
}

/// Applies `bytes` as a change stream to the base world.
void check_changes(const std::string& bytes) {
    ecs::World replica;
    (void)make_change_sender(replica);
    const std::string before = snapshot_of(replica);
    std::istringstream in(bytes);
    const ecs::DeserializeResult r = ecs::apply_changes(replica, in);
    if (!replica.check_invariants()) die("invariants broken after apply_changes");
    if (!r) {
        if (r.message.empty()) die("a refused change stream has no message");
        if (snapshot_of(replica) != before) die("a refused change stream changed the world:", r.message);
    }
    exercise(replica);
}

/// `bytes` with a format 2 frame made valid: version 2, body length = what lies between the frame
/// and the last 4 bytes, both checksums recomputed. Empty when too short to hold a frame.
std::string repaired_v2(const std::string& bytes) {
    if (bytes.size() < 24 || bytes.compare(0, 4, std::string("ECS", 4)) != 0) return std::string();
    std::string s = bytes;
    unsigned char* p = reinterpret_cast<unsigned char*>(&s[0]);
    ecs::detail::put_u32(p + 4, 2);
    const uint64_t body = s.size() - 24;
    ecs::detail::put_u64(p + 8, body);
    ecs::detail::put_u32(p + 16, ecs::detail::Crc32c::of(p, 16));
    ecs::detail::put_u32(p + 20 + body, ecs::detail::Crc32c::of(p + 20, static_cast<size_t>(body)));
    return s;
}

void check_one(const std::string& bytes);

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    register_model_components();
    register_fuzz_resources();
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    check_one(bytes);
    const std::string repaired = repaired_v2(bytes);
    if (!repaired.empty() && repaired != bytes) check_one(repaired);
    const ModelLife& life = model_life();
    const size_t live_before = life.live.size();
    check_merge(repaired.empty() ? bytes : repaired);
    check_changes(bytes);
    const std::string changes = repaired_changes(bytes);
    if (!changes.empty() && changes != bytes) check_changes(changes);
    if (life.live.size() != live_before || life.bad != 0) die("merge or change stream: component objects leaked or destroyed twice");
    return 0;
}

namespace {

void check_one(const std::string& bytes) {
    const ModelLife& life = model_life();
    const size_t live_before = life.live.size();
    const long empty_before = life.empty_constructed - life.empty_destroyed;
    {
        ecs::World seekable_world;
        std::istringstream seekable(bytes);
        const ecs::DeserializeResult r = ecs::deserialize(seekable_world, seekable);

        ecs::World one_way_world;
        OneWayBuf buf(bytes.data(), bytes.size());
        std::istream one_way(&buf);
        const ecs::DeserializeResult r2 = ecs::deserialize(one_way_world, one_way);
        if (r.error != r2.error || (!r && r.offset != r2.offset))
            die("seekable and non-seekable streams disagree:", r.message + " / " + r2.message);

        if (!r) {
            if (seekable_world.count() != 0 || !seekable_world.check_invariants()) die("a failed load changed the world");
            if (r.message.empty()) die("a failed load has no message");
            exercise(seekable_world);
        } else {
            if (!seekable_world.check_invariants()) die("invariants broken after a successful load");
            if (seekable_world.count() != one_way_world.count()) die("the two loads differ");
            std::ostringstream first;
            ecs::serialize(seekable_world, first);
            ecs::World again;
            std::istringstream in(first.str());
            const ecs::DeserializeResult r3 = ecs::deserialize(again, in);
            if (!r3) die("a snapshot of a loaded world does not load:", r3.message);
            std::ostringstream second;
            ecs::serialize(again, second);
            if (second.str() != first.str()) die("snapshot -> load -> snapshot is not stable");
            exercise(seekable_world);
        }
    }
    if (life.live.size() != live_before || life.bad != 0 || life.empty_constructed - life.empty_destroyed != empty_before)
        die("component objects leaked or destroyed twice");
}

} // namespace
