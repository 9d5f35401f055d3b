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
#include <utility>

namespace {
struct Pos {
    float x, y;
};
struct Hit {
    int damage;
};
template <size_t N>
struct Filler {};
template <size_t... Ns>
void take_ids(std::index_sequence<Ns...>) {
    ((void)ecs::component_id<Filler<Ns>>(), ...);
}
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

    // Every component id is taken before ecs::Parent asks for one: emit must not climb (no entity can
    // hold Parent), nor test a bit past the mask, and the observer still runs once.
    take_ids(std::make_index_sequence<ECS_MAX_COMPONENTS>{});
    int hits = 0;
    w.observe<Hit>(e, [&](ecs::World&, ecs::Entity, Hit& h, ecs::Propagation&) { hits += h.damage; });
    w.emit(e, Hit{3});
    const bool emit_ok = hits == 3 && ecs::component_id<ecs::Parent>() >= ECS_MAX_COMPONENTS;
    std::printf("emit with Parent's id past ECS_MAX_COMPONENTS: %s\n", emit_ok ? "ok" : "FAILED");
    return ok && emit_ok ? 0 : 1;
}
