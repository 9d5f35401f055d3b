// libFuzzer target: bytes -> one or more requests to the remote inspector's router (method, path
// with query, Authorization header, body) against a small world with reflected components, writes
// allowed. Must never crash, assert or leak. After each request the world holds its invariants, and
// a request answered with an error (status >= 400) has left the world exactly as it was (writes are
// all or nothing); every answer is a valid JSON document except the page and the snapshot.
//
// Input: requests separated by "\n\n"; in each, the first line is "METHOD TARGET", the second the
// Authorization header, the rest the body. The seed corpus is fuzz/corpus/fuzz_remote.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <ecs/builtin/hierarchy_ops.hpp>
#include <ecs/detail/remote_router.hpp>
#include <ecs/relation.hpp>

namespace {

struct Position {
    float x = 0;
    float y = 0;
};
struct Stats {
    int32_t hp = 10;
    uint8_t level = 1;
    bool alive = true;
    std::string label = "unit";
    float weights[3] = {1, 2, 3};
};
struct Link {
    ecs::Entity other;
    Position offset;
};
struct Secret {
    int value = 0;
};
struct Marker {};
struct ChildOf {};

} // namespace

ECS_REFLECT(Position, x, y);
ECS_REFLECT(Stats, hp, level, alive, label, weights);
ECS_REFLECT(Link, other, offset);

namespace {

[[noreturn]] void die(const char* what, const std::string& detail) {
    std::fprintf(stderr, "fuzz_remote: %s\n%s\n", what, detail.c_str());
    std::abort();
}

void build(ecs::World& w) {
    ecs::register_component<Position>("Position");
    ecs::register_component<Marker>("Marker");
    ecs::register_component<ecs::Parent>("Parent");
    ecs::register_component<ecs::Children>("Children", &ecs::write_children, &ecs::read_children);
    w.track_changes<Position>();
    const ecs::Entity root = w.create_with(Position{1, 2}, Stats{});
    w.set_name(root, "root");
    for (int i = 0; i < 6; ++i) {
        const ecs::Entity e = w.create_with(Position{float(i), 1});
        if (i % 2 == 0) w.add(e, Marker{});
        if (i % 3 == 0) w.add(e, Link{root, Position{}});
        if (i == 4) w.add(e, Secret{i});
        if (i < 3) ecs::set_parent(w, e, root);
        if (i == 5) w.relate<ChildOf>(e, root);
    }
    w.on_set<Stats>([](ecs::World& world, ecs::Entity e, Stats& s) {
        if (s.hp < -1000) world.destroy(e); // a hook that makes a structural change
    });
}

/// Every entity with its JSON, for the "an error changes nothing" check.
std::string dump(ecs::detail::RemoteRouter& r) {
    ecs::detail::RemoteRequest list{"GET", "/api/entities?limit=1000", "", "", ""};
    std::string out = r.handle(list).body;
    ecs::detail::RemoteRequest arch{"GET", "/api/archetypes", "", "", ""};
    out += r.handle(arch).body;
    return out;
}

std::string entity_dump(ecs::World& w, ecs::detail::RemoteRouter& r) {
    std::string out;
    std::vector<ecs::Entity> all;
    for (const ecs::Archetype* a : ecs::detail::WorldAccess::archetypes(w))
        for (size_t i = 0; i < a->size(); ++i) all.push_back(a->entities.data()[i]);
    for (const ecs::Entity e : all) {
        ecs::detail::RemoteRequest q{"GET", "/api/entity/" + std::to_string(e.index) + "." + std::to_string(e.generation), "", "", ""};
        out += r.handle(q).body;
    }
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 1 << 16) return 0;
    ecs::World w;
    build(w);
    ecs::RemoteOptions options;
    options.allow_writes = true;
    options.max_body = 4096;
    if (size > 0 && data[0] == 'T') options.token = "tok";
    ecs::detail::RemoteRouter router(w, options);
    ecs::Schedule schedule;
    schedule.add("tick", [](ecs::World&) {});
    router.attach(&schedule);

    std::string_view input(reinterpret_cast<const char*>(data), size);
    int requests = 0;
    while (!input.empty() && requests++ < 8) {
        const size_t end = input.find("\n\n");
        std::string_view one = input.substr(0, end);
        input = end == std::string_view::npos ? std::string_view{} : input.substr(end + 2);

        ecs::detail::RemoteRequest req;
        const size_t line = one.find('\n');
        std::string_view first = one.substr(0, line);
        one = line == std::string_view::npos ? std::string_view{} : one.substr(line + 1);
        const size_t space = first.find(' ');
        req.method = std::string(first.substr(0, space));
        req.path = space == std::string_view::npos ? std::string("/") : std::string(first.substr(space + 1));
        const size_t line2 = one.find('\n');
        req.authorization = std::string(one.substr(0, line2));
        req.body = line2 == std::string_view::npos ? std::string() : std::string(one.substr(line2 + 1));

        const std::string before = dump(router) + entity_dump(w, router);
        const ecs::detail::RemoteResponse res = router.handle(req);
        if (!w.check_invariants()) die("world invariants broken after", req.method + " " + req.path + "\n" + req.body);
        if (res.status >= 400) {
            const std::string after = dump(router) + entity_dump(w, router);
            if (after != before) die("an error response changed the world", req.method + " " + req.path + "\n" + req.body);
            if (res.body.rfind("{\"error\":", 0) != 0) die("error without an error object", res.body);
        }
        if (res.content_type == "application/json" && !res.body.empty()) {
            ecs::detail::RemoteJsonScanner scan(res.body);
            if (!scan.check_document()) die("answer is not JSON", res.body);
        }
        router.next_frame();
    }
    return 0;
}
