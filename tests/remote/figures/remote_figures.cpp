// The figures of notes/remote.md (not built by CMake; a release build of one file):
//   g++ -std=c++17 -O2 -DNDEBUG -Iinclude $(pkg-config --cflags cpp-httplib) tests/remote/figures/remote_figures.cpp \
//       $(pkg-config --libs cpp-httplib) -pthread -o remote_figures && ./remote_figures
#include <ecs/remote.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
struct P { float x, y; };
ECS_REFLECT(P, x, y);
struct V { float x, y; };
ECS_REFLECT(V, x, y);
using clk = std::chrono::steady_clock;
int main() {
  ecs::register_component<P>("P"); ecs::register_component<V>("V");
  ecs::World w;
  for (int i = 0; i < 100000; ++i) { auto e = w.create_with(P{float(i), 0}); if (i % 2) w.add(e, V{1, 1}); }
  ecs::RemoteOptions o; o.port = 0;
  ecs::RemoteServer s(w, o); s.start();
  for (int i = 0; i < 1000; ++i) s.poll();
  auto t0 = clk::now(); for (int i = 0; i < 10000000; ++i) s.poll();
  double ns = std::chrono::duration<double, std::nano>(clk::now() - t0).count() / 1e7;
  std::printf("poll idle: %.2f ns/call\n", ns);
  ecs::detail::RemoteRouter r(w, o);
  auto time_route = [&](const char* path, int n) {
    ecs::detail::RemoteRequest q{"GET", path, "", "", ""};
    auto a = clk::now(); size_t bytes = 0; for (int i = 0; i < n; ++i) bytes += r.handle(q).body.size();
    std::printf("%-45s %.3f ms (%zu bytes)\n", path, std::chrono::duration<double, std::milli>(clk::now() - a).count() / n, bytes / size_t(n));
  };
  time_route("/api/world", 100);
  time_route("/api/entities?limit=100", 10);
  time_route("/api/entities?with=V&limit=100", 10);
  time_route("/api/entity/5.1", 1000);
  time_route("/api/query?expr=P,V&limit=100", 10);
  time_route("/api/snapshot", 5);
  std::atomic<bool> done{false}; int n = 0;
  std::thread c([&] { httplib::Client cl("127.0.0.1", s.port()); auto a = clk::now();
    while (clk::now() - a < std::chrono::seconds(2)) { if (cl.Get("/api/world")) ++n; } done = true; });
  while (!done) s.poll_for(std::chrono::milliseconds(1));
  c.join();
  std::printf("GET /api/world round trips over loopback (main thread in poll_for(1 ms)): %.0f per second, %.1f us each\n", n / 2.0, 2e6 / n);
}
