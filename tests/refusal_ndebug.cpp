// The refusal handler fires in release builds too: this program is compiled with NDEBUG (so
// ECS_ASSERT is compiled out) and checks that refused operations still report to the handler.
// (World::get is unchecked in such builds: its precondition is asserted only where assertions are on,
// so only refusals checked in every build, like structural changes during iteration, reach it.)
// Built as its own small executable (tests/CMakeLists.txt: ecs_refusal_ndebug).
#ifndef NDEBUG
#    define NDEBUG
#endif
#include <ecs/world.hpp>

#include <cstdio>
#include <cstring>

namespace {
struct Pos {
    float x, y;
};
int calls = 0;
const char* last = "";
void handler(const char* message) {
    ++calls;
    last = message;
}
} // namespace

int main() {
    static_assert(ECS_ASSERT_ENABLED == 0, "this program checks a build without assertions");
    if (ecs::set_refusal_handler(&handler) != nullptr) return 1;
    ecs::World w;
    const ecs::Entity e = w.create_with(Pos{1, 2});
    int refused_inside = 0;
    w.each<Pos>([&](ecs::Entity self, Pos&) {
        w.destroy(self); // refused: no assertion in this build, but the handler hears of it
        refused_inside += w.create() == ecs::INVALID_ENTITY ? 1 : 0;
    });
    const bool ok =
        calls == 2 && refused_inside == 1 && std::strstr(last, "World::create") == last && w.alive(e) && w.count() == 1;
    std::printf("refusal handler under NDEBUG: %d calls, last \"%s\": %s\n", calls, last, ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
