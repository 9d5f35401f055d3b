// The remote inspector's router, without sockets: every route's JSON keys, every error, writes all
// or nothing, token and write permission.
#include <sstream>

#include "catch.hpp"
#include "fixture.hpp"

using namespace remote_test;
using ecs::detail::RemoteRouter;

namespace {
bool has_key(const std::string& json, const char* key) { return json.find(std::string("\"") + key + "\":") != std::string::npos; }
ecs::RemoteOptions writable() {
    ecs::RemoteOptions o;
    o.allow_writes = true;
    return o;
}
} // namespace

TEST_CASE("remote: GET /api/world has its keys", "[remote]") {
    Scene s;
    RemoteRouter r(s.world, {});
    r.next_frame();
    const auto res = call(r, "GET", "/api/world");
    REQUIRE(res.status == 200);
    CHECK(res.content_type == "application/json");
    for (const char* k : {"entities", "archetypes", "components", "tracked", "memory_bytes", "frame"}) CHECK(has_key(res.body, k));
    CHECK(res.body.find("\"entities\":" + std::to_string(s.world.count())) != std::string::npos);
    CHECK(res.body.find("\"tracked\":1") != std::string::npos);
    CHECK(res.body.find("\"frame\":1") != std::string::npos);
}

TEST_CASE("remote: GET /api/components lists names, storage, counts and fields", "[remote]") {
    Scene s;
    RemoteRouter r(s.world, {});
    const auto res = call(r, "GET", "/api/components");
    REQUIRE(res.status == 200);
    REQUIRE(res.body.front() == '[');
    for (const char* k : {"id", "name", "size", "align", "storage", "tracked", "count", "fields", "type"}) CHECK(has_key(res.body, k));
    CHECK(res.body.find("\"name\":\"Position\",\"size\":8,\"align\":4,\"storage\":\"table\",\"tracked\":true") != std::string::npos);
    CHECK(res.body.find("\"count\":13,\"fields\":[{\"name\":\"x\",\"type\":\"float32\"},{\"name\":\"y\",\"type\":\"float32\"}]") != std::string::npos);
    CHECK(res.body.find("{\"name\":\"label\",\"type\":\"string\"}") != std::string::npos);
}

TEST_CASE("remote: GET /api/archetypes lists components, counts and bytes", "[remote]") {
    Scene s;
    RemoteRouter r(s.world, {});
    const auto res = call(r, "GET", "/api/archetypes");
    REQUIRE(res.status == 200);
    for (const char* k : {"id", "components", "count", "capacity", "bytes"}) CHECK(has_key(res.body, k));
    CHECK(res.body.find("\"components\":[\"Position\",\"Velocity\"],\"count\":10") != std::string::npos);
}

TEST_CASE("remote: GET /api/entities filters and pages", "[remote]") {
    Scene s;
    RemoteRouter r(s.world, {});
    auto res = call(r, "GET", "/api/entities");
    REQUIRE(res.status == 200);
    CHECK(res.body.find("{\"total\":" + std::to_string(s.world.count()) + ",\"entities\":[") == 0);
    CHECK(res.body.find("{\"id\":\"" + id_of(s.hero) + "\",\"name\":\"hero\",\"components\":[") != std::string::npos);
    CHECK(res.body.find("\"parent\":\"" + id_of(s.hero) + "\"}") != std::string::npos);

    res = call(r, "GET", "/api/entities?with=Position,Velocity&without=Health");
    CHECK(res.body.find("\"total\":10,") != std::string::npos);
    res = call(r, "GET", "/api/entities?with=Position&limit=2&offset=3");
    CHECK(res.body.find("\"total\":13,") != std::string::npos);
    CHECK(std::count(res.body.begin(), res.body.end(), '{') == 3);
    res = call(r, "GET", "/api/entities?name=ro");
    CHECK(res.body.find("\"total\":1,") != std::string::npos);
    CHECK(res.body.find("\"rock\"") != std::string::npos);
    CHECK(call(r, "GET", "/api/entities?with=Nope").status == 404);
    CHECK(call(r, "GET", "/api/entities?limit=x").status == 400);
    CHECK(call(r, "GET", "/api/entities?limit=%zz").status == 400);
}

TEST_CASE("remote: GET /api/entity/{ref} by id and by name", "[remote]") {
    Scene s;
    RemoteRouter r(s.world, {});
    s.world.disable<Velocity>(s.hero);
    const auto byname = call(r, "GET", "/api/entity/hero");
    const auto byid = call(r, "GET", "/api/entity/" + id_of(s.hero));
    REQUIRE(byname.status == 200);
    CHECK(byname.body == byid.body);
    for (const char* k : {"id", "name", "components", "disabled", "relations", "parent", "children"}) CHECK(has_key(byname.body, k));
    CHECK(byname.body.find("\"Position\":{\"x\":1,\"y\":2}") != std::string::npos);
    CHECK(byname.body.find("\"Health\":{\"hp\":100,\"label\":\"ok\"}") != std::string::npos);
    CHECK(byname.body.find("\"disabled\":[\"Velocity\"]") != std::string::npos);
    CHECK(byname.body.find("\"children\":[\"" + id_of(s.child) + "\"]") != std::string::npos);
    CHECK(call(r, "GET", "/api/entity/" + id_of(s.child)).body.find("\"parent\":\"" + id_of(s.hero) + "\"") != std::string::npos);
    CHECK(call(r, "GET", "/api/entity/" + id_of(s.ghost)).body.find("\"Opaque\":null") != std::string::npos);
    CHECK(call(r, "GET", "/api/entity/nobody").status == 404);
    CHECK(call(r, "GET", "/api/entity/99999.1").status == 404);
    const ecs::Entity stale = s.ghost;
    s.world.destroy(s.ghost);
    CHECK(call(r, "GET", "/api/entity/" + id_of(stale)).status == 404);
}

TEST_CASE("remote: PUT sets fields as a write (on_set, change detection)", "[remote]") {
    Scene s;
    RemoteRouter r(s.world, writable());
    auto res = call(r, "PUT", "/api/entity/hero/Health", "{\"hp\":42}");
    REQUIRE(res.status == 200);
    CHECK(res.body == "{\"hp\":42,\"label\":\"ok\"}");
    CHECK(s.world.get<Health>(s.hero).hp == 42);
    CHECK(s.on_set_calls == 1);

    // Change detection: the PUT counts as a change of Position.
    auto changed_query = s.world.query<const Position>(ecs::Changed<Position>{});
    changed_query.each([](ecs::Entity, const Position&) {}); // everything counts as added once
    res = call(r, "PUT", "/api/entity/rock/Position", "{\"x\":9.5}");
    REQUIRE(res.status == 200);
    size_t changed = 0;
    ecs::Entity which{};
    changed_query.each([&](ecs::Entity e, const Position&) {
        ++changed;
        which = e;
    });
    CHECK(changed == 1);
    CHECK(which == s.rock);
    CHECK(s.world.get<Position>(s.rock).x == 9.5f);
}

TEST_CASE("remote: a write with one bad field changes nothing", "[remote]") {
    Scene s;
    RemoteRouter r(s.world, writable());
    const std::string before = call(r, "GET", "/api/entity/hero").body;
    auto res = call(r, "PUT", "/api/entity/hero/Health", "{\"hp\":5,\"label\":7}");
    CHECK(res.status == 400);
    CHECK(res.body.find("byte") != std::string::npos);
    res = call(r, "PUT", "/api/entity/hero/Position", "{\"x\":1,\"z\":2}");
    CHECK(res.status == 400);
    res = call(r, "PUT", "/api/entity/hero/Position", "{\"x\":1,");
    CHECK(res.status == 400);
    res = call(r, "POST", "/api/entity", "{\"name\":\"new\",\"components\":{\"Position\":{\"x\":1},\"Health\":{\"hp\":\"x\"}}}");
    CHECK(res.status == 400);
    res = call(r, "POST", "/api/entity", "{\"components\":{\"Position\":{},\"Nope\":{}}}");
    CHECK(res.status == 404);
    CHECK(s.world.lookup("new") == ecs::INVALID_ENTITY);
    CHECK(call(r, "GET", "/api/entity/hero").body == before);
    CHECK(s.on_set_calls == 0);
    CHECK(s.world.count() == 14);
}

TEST_CASE("remote: POST and DELETE components and entities, PUT enabled", "[remote]") {
    Scene s;
    RemoteRouter r(s.world, writable());
    auto res = call(r, "POST", "/api/entity/rock/Health", "{\"label\":\"stone\"}");
    REQUIRE(res.status == 201);
    CHECK(s.world.get<Health>(s.rock).label == "stone");
    CHECK(s.world.get<Health>(s.rock).hp == 100);
    CHECK(call(r, "POST", "/api/entity/rock/Health", "{}").status == 400); // already there
    CHECK(call(r, "POST", "/api/entity/rock/Opaque", "").status == 201);
    CHECK(s.world.has<Opaque>(s.rock));
    CHECK(call(r, "POST", "/api/entity/hero/Frozen", "{\"a\":1}").status == 400);
    CHECK(call(r, "POST", "/api/entity/hero/Frozen", "{}").status == 201);
    CHECK(s.world.has<Frozen>(s.hero));

    res = call(r, "DELETE", "/api/entity/rock/Frozen");
    CHECK(res.status == 200);
    CHECK(!s.world.has<Frozen>(s.rock));
    CHECK(call(r, "DELETE", "/api/entity/rock/Frozen").status == 404);

    res = call(r, "POST", "/api/entity", "{\"name\":\"made\",\"components\":{\"Position\":{\"x\":3},\"Frozen\":{}}}");
    REQUIRE(res.status == 201);
    const ecs::Entity made = s.world.lookup("made");
    REQUIRE(made != ecs::INVALID_ENTITY);
    CHECK(res.body == "{\"id\":\"" + id_of(made) + "\"}");
    CHECK(s.world.get<Position>(made).x == 3.0f);
    CHECK(s.world.has<Frozen>(made));
    CHECK(call(r, "POST", "/api/entity", "{\"name\":\"made\"}").status == 400); // name taken
    CHECK(call(r, "POST", "/api/entity", "").status == 201);

    CHECK(call(r, "PUT", "/api/entity/made/enabled", "false").status == 200);
    CHECK(!s.world.enabled(made));
    CHECK(call(r, "PUT", "/api/entity/made/enabled", " true ").status == 200);
    CHECK(s.world.enabled(made));
    CHECK(call(r, "PUT", "/api/entity/made/enabled", "1").status == 400);

    CHECK(call(r, "DELETE", "/api/entity/made").status == 200);
    CHECK(!s.world.alive(made));
    CHECK(call(r, "DELETE", "/api/entity/made").status == 404);
    CHECK(s.world.check_invariants());
}

TEST_CASE("remote: error codes", "[remote]") {
    Scene s;
    SECTION("404 unknown route, 405 wrong method") {
        RemoteRouter r(s.world, writable());
        for (const char* p : {"/api/nothing", "/nothing", "/api/entity/hero/Position/x", "/api//world", "/api"}) CHECK(call(r, "GET", p).status == 404);
        CHECK(call(r, "GET", "/api/").status == 404);
        CHECK(call(r, "POST", "/api/world").status == 405);
        CHECK(call(r, "PATCH", "/api/entity/hero/Position").status == 405);
        CHECK(call(r, "DELETE", "/api/entities").status == 405);
        const auto res = call(r, "GET", "/api/nothing");
        CHECK(res.body.find("{\"error\":") == 0);
        CHECK(res.content_type == "application/json");
    }
    SECTION("403 writes while allow_writes is false") {
        RemoteRouter r(s.world, {});
        CHECK(call(r, "PUT", "/api/entity/hero/Health", "{\"hp\":1}").status == 403);
        CHECK(call(r, "POST", "/api/entity", "{}").status == 403);
        CHECK(call(r, "DELETE", "/api/entity/hero").status == 403);
        CHECK(call(r, "PUT", "/api/entity/hero/enabled", "false").status == 403);
        CHECK(s.world.get<Health>(s.hero).hp == 100);
        CHECK(s.world.alive(s.hero));
    }
    SECTION("413 body over max_body") {
        ecs::RemoteOptions o = writable();
        o.max_body = 16;
        RemoteRouter r(s.world, o);
        CHECK(call(r, "PUT", "/api/entity/hero/Health", "{\"label\":\"" + std::string(32, 'a') + "\"}").status == 413);
        CHECK(s.world.get<Health>(s.hero).label == "ok");
    }
    SECTION("401 without the token") {
        ecs::RemoteOptions o;
        o.token = "s3cret";
        RemoteRouter r(s.world, o);
        CHECK(call(r, "GET", "/api/world").status == 401);
        CHECK(call(r, "GET", "/").status == 401);
        CHECK(call(r, "GET", "/api/world", "", "Bearer wrong").status == 401);
        CHECK(call(r, "GET", "/api/world", "", "Bearer s3cret").status == 200);
        CHECK(call(r, "GET", "/api/nothing", "", "Bearer s3cret").status == 404);
        CHECK(call(r, "GET", "/api/world?token=s3cret").status == 200);
    }
    SECTION("400 bad JSON names the byte offset") {
        RemoteRouter r(s.world, writable());
        const auto res = call(r, "PUT", "/api/entity/hero/Position", "{\"x\": tru}");
        CHECK(res.status == 400);
        CHECK(res.body.find("at byte 6") != std::string::npos);
        CHECK(call(r, "PUT", "/api/entity/" + id_of(s.ghost) + "/Opaque", "{}").status == 400); // not reflected
        CHECK(call(r, "PUT", "/api/entity/hero/Nope", "{}").status == 404);
        CHECK(call(r, "PUT", "/api/entity/hero/Position", "").status == 400);
        CHECK(call(r, "PUT", "/api/entity/" + id_of(s.ghost) + "/Position", "{}").status == 404);
    }
}

TEST_CASE("remote: GET / is the self-contained explorer page", "[remote]") {
    Scene s;
    RemoteRouter r(s.world, {});
    const auto res = call(r, "GET", "/");
    REQUIRE(res.status == 200);
    CHECK(res.content_type.find("text/html") == 0);
    CHECK(res.body.find("<html") != std::string::npos);
    CHECK(res.body.find("src=\"http") == std::string::npos);
    CHECK(res.body.find("href=\"http") == std::string::npos);
}

TEST_CASE("remote: /api/systems shows the attached plan and recorded timings", "[remote]") {
    Scene s;
    RemoteRouter r(s.world, {});
    CHECK(call(r, "GET", "/api/systems").body == "{\"plan\":\"\",\"systems\":[]}");
    ecs::Schedule schedule;
    schedule.add<Position, const Velocity>("move", [](Position& p, const Velocity& v) { p.x += v.dx; });
    schedule.add("ui", [](ecs::World&) {});
    r.attach(&schedule);
    r.record_system("move", 1000);
    r.record_system("move", 3000);
    const auto res = call(r, "GET", "/api/systems");
    CHECK(res.body.find("\"plan\":\"[move] [!ui]\"") != std::string::npos);
    CHECK(res.body.find("{\"name\":\"move\",\"last_ns\":3000,\"avg_ns\":2000,\"runs\":2}") != std::string::npos);
    CHECK(res.body.find("{\"name\":\"ui\",\"last_ns\":0,\"avg_ns\":0,\"runs\":0}") != std::string::npos);
}

TEST_CASE("remote: GET /api/snapshot is a snapshot that loads back", "[remote]") {
    Scene s;
    RemoteRouter r(s.world, {});
    const auto res = call(r, "GET", "/api/snapshot");
    REQUIRE(res.status == 200);
    CHECK(res.content_type == "application/octet-stream");
    ecs::World copy;
    std::istringstream in(res.body);
    REQUIRE(ecs::deserialize(copy, in));
    CHECK(copy.count() == s.world.count());
    CHECK(copy.get<Position>(s.hero).y == 2.0f);
}

TEST_CASE("remote: /api/query and watch events", "[remote]") {
    Scene s;
    RemoteRouter r(s.world, writable());
    auto res = call(r, "GET", "/api/query?expr=Health&values=1");
    REQUIRE(res.status == 200);
    CHECK(res.body == "{\"total\":1,\"rows\":[{\"id\":\"" + id_of(s.hero) + "\",\"values\":{\"Health\":{\"hp\":100,\"label\":\"ok\"}}}]}");
    res = call(r, "GET", "/api/query?expr=Position&limit=1");
    CHECK(res.body.find("\"total\":13,") != std::string::npos);
    res = call(r, "GET", "/api/query?expr=Position%2C%20!Velocity%2C%20%3FHealth&values=0");
    CHECK(res.body.find("\"total\":2,") != std::string::npos); // rock and child: the others have Velocity
    CHECK(res.body.find("values") == std::string::npos);
    res = call(r, "GET", "/api/query?expr=Nope");
    CHECK(res.status == 400);
    CHECK(res.body.find("byte") != std::string::npos);
    CHECK(call(r, "GET", "/api/query").status == 400);

    // Looking is not writing: a query of a tracked type stamps nothing changed.
    auto changed = s.world.query<const Position>(ecs::Changed<Position>{});
    changed.each([](ecs::Entity, const Position&) {});
    CHECK(call(r, "GET", "/api/query?expr=Position").status == 200);
    size_t stamped = 0;
    changed.each([&](ecs::Entity, const Position&) { ++stamped; });
    CHECK(stamped == 0);

    ecs::detail::RemoteWatchState w;
    w.expr = "Health";
    std::string ev = r.watch_event(w);
    CHECK(ev.find("\"rows\":[{\"id\":\"" + id_of(s.hero) + "\"") != std::string::npos);
    CHECK(r.watch_event(w).empty()); // nothing changed
    s.world.get<Health>(s.hero).hp = 1;
    ev = r.watch_event(w);
    CHECK(ev.find("\"hp\":1,") != std::string::npos);
    s.world.add<Health>(s.rock, Health{});
    ev = r.watch_event(w);
    CHECK(ev.find(id_of(s.rock)) != std::string::npos);
    CHECK(ev.find(id_of(s.hero)) == std::string::npos);
    s.world.destroy(s.hero);
    ev = r.watch_event(w);
    CHECK(ev.find("\"left\":[\"" + id_of(s.hero) + "\"]") != std::string::npos);
}
