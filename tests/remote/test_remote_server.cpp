// RemoteServer over real sockets: a client thread talks HTTP while the main thread polls.
#include <atomic>
#include <chrono>
#include <thread>

#include <ecs/remote.hpp>

#include "alloc_count.hpp"
#include "catch.hpp"
#include "fixture.hpp"

using namespace remote_test;
using namespace std::chrono_literals;

namespace {
/// Polls `server` on this thread until `done` (the client thread's work) is set.
template <typename Client>
void serve_while(ecs::RemoteServer& server, Client&& client) {
    std::atomic<bool> done{false};
    std::thread t([&] {
        client();
        done = true;
    });
    while (!done) server.poll_for(5ms);
    t.join();
}
} // namespace

TEST_CASE("remote server: port 0, a client thread, the main thread polls", "[remote][server]") {
    Scene s;
    ecs::RemoteOptions o;
    o.port = 0;
    o.allow_writes = true;
    ecs::RemoteServer server(s.world, o);
    REQUIRE(server.start());
    REQUIRE(server.port() != 0);
    int world_status = 0, put_status = 0, page_status = 0, missing_status = 0;
    std::string world_body, page_type;
    serve_while(server, [&] {
        httplib::Client c("127.0.0.1", server.port());
        if (auto r = c.Get("/api/world")) {
            world_status = r->status;
            world_body = r->body;
        }
        if (auto r = c.Put("/api/entity/hero/Health", "{\"hp\":7}", "application/json")) put_status = r->status;
        if (auto r = c.Get("/")) {
            page_status = r->status;
            page_type = r->get_header_value("Content-Type");
        }
        if (auto r = c.Get("/api/none")) missing_status = r->status;
    });
    CHECK(world_status == 200);
    CHECK(world_body.find("\"entities\":14") != std::string::npos);
    CHECK(put_status == 200);
    CHECK(s.world.get<Health>(s.hero).hp == 7);
    CHECK(page_status == 200);
    CHECK(page_type.find("text/html") == 0);
    CHECK(missing_status == 404);
    server.stop();
    CHECK(!server.running());
}

TEST_CASE("remote server: token, 403 and 413 over HTTP", "[remote][server]") {
    Scene s;
    ecs::RemoteOptions o;
    o.port = 0;
    o.token = "t0k";
    o.max_body = 64;
    ecs::RemoteServer server(s.world, o);
    REQUIRE(server.start());
    int no_token = 0, with_token = 0, write = 0, big = 0;
    serve_while(server, [&] {
        httplib::Client c("127.0.0.1", server.port());
        if (auto r = c.Get("/api/world")) no_token = r->status;
        httplib::Headers h = {{"Authorization", "Bearer t0k"}};
        if (auto r = c.Get("/api/world", h)) with_token = r->status;
        if (auto r = c.Put("/api/entity/hero/Health", h, "{\"hp\":1}", "application/json")) write = r->status;
        if (auto r = c.Put("/api/entity/hero/Health", h, std::string(1000, ' '), "application/json")) big = r->status;
    });
    CHECK(no_token == 401);
    CHECK(with_token == 200);
    CHECK(write == 403);
    CHECK(big == 413);
    CHECK(s.world.get<Health>(s.hero).hp == 100);
}

TEST_CASE("remote server: a request nobody polls for gets 503", "[remote][server]") {
    Scene s;
    ecs::RemoteOptions o;
    o.port = 0;
    ecs::RemoteServer server(s.world, o);
    server.set_answer_timeout(200ms);
    REQUIRE(server.start());
    httplib::Client c("127.0.0.1", server.port());
    auto r = c.Get("/api/world");
    REQUIRE(r);
    CHECK(r->status == 503);
    CHECK(r->body.find("\"error\"") != std::string::npos);
    server.poll(); // the abandoned request is not answered again
}

TEST_CASE("remote server: a write that got 503 never reaches the world", "[remote][server]") {
    Scene s;
    ecs::RemoteOptions o;
    o.port = 0;
    o.allow_writes = true;
    ecs::RemoteServer server(s.world, o);
    server.set_answer_timeout(200ms);
    REQUIRE(server.start());
    httplib::Client c("127.0.0.1", server.port());
    auto r = c.Put("/api/entity/hero/Health", "{\"hp\":1}", "application/json");
    REQUIRE(r);
    CHECK(r->status == 503);
    server.poll();
    CHECK(s.world.get<Health>(s.hero).hp == 100);
    CHECK(s.on_set_calls == 0);
}

TEST_CASE("remote server: a taken port fails start() with an error", "[remote][server]") {
    Scene s;
    ecs::RemoteOptions o;
    o.port = 0;
    ecs::RemoteServer first(s.world, o);
    REQUIRE(first.start());
    o.port = first.port();
    ecs::RemoteServer second(s.world, o);
    CHECK(!second.start());
    CHECK(!second.error().empty());
    CHECK(second.port() == 0);
}

TEST_CASE("remote server: poll() with nothing queued allocates nothing", "[remote][server]") {
    Scene s;
    ecs::RemoteOptions o;
    o.port = 0;
    ecs::RemoteServer server(s.world, o);
    REQUIRE(server.start());
    server.poll();
    count_allocations(true);
    for (int i = 0; i < 1000; ++i) server.poll();
    count_allocations(false);
    CHECK(allocations_counted() == 0);
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 1000000; ++i) server.poll();
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
    WARN("poll() with nothing queued: " << double(ns) / 1e6 << " ns per call");
}

TEST_CASE("remote server: /api/watch streams events after polls", "[remote][server]") {
    Scene s;
    ecs::RemoteOptions o;
    o.port = 0;
    ecs::RemoteServer server(s.world, o);
    REQUIRE(server.start());
    std::string received;
    std::atomic<int> events{0};
    std::atomic<bool> done{false};
    std::thread t([&] {
        httplib::Client c("127.0.0.1", server.port());
        c.set_read_timeout(5, 0);
        c.Get("/api/watch?expr=Health", [&](const char* data, size_t n) {
            received.append(data, n);
            size_t count = 0;
            for (size_t at = received.find("data: "); at != std::string::npos; at = received.find("data: ", at + 1)) ++count;
            events = int(count);
            return count < 2; // stop after two events
        });
        done = true;
    });
    bool changed = false;
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!done && std::chrono::steady_clock::now() < deadline) {
        server.poll_for(5ms);
        if (events >= 1 && !changed) {
            s.world.get<Health>(s.hero).hp = 3;
            changed = true;
        }
    }
    server.stop();
    t.join();
    CHECK(events >= 2);
    CHECK(received.find("\"hp\":100") != std::string::npos);
    CHECK(received.find("\"hp\":3") != std::string::npos);
}
