// libFuzzer target: bytes -> query text -> ecs::query_expr against a small world holding table,
// tag and sparse components, an exclusive and a non-exclusive relationship, a Parent cycle, named
// entities and disabled components and entities. Must never crash, assert, leak or allocate without
// bound. A text that parses must agree with itself: count() equals the visits of each(), every
// required value is non-null and lies in its entity's component, and the world keeps its invariants.
// A text that does not parse must name an offset inside the text.
#include <ecs/builtin/hierarchy.hpp>
#include <ecs/query_expr.hpp>
#include <ecs/world.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

struct Position {
    float x = 0, y = 0;
};
struct Velocity {
    float x = 0, y = 0;
};
struct Health {
    int hp = 0;
};
struct Frozen {};
struct Player {};
struct Mark { // sparse
    int v = 0;
};
struct ChildOf {};
struct Likes {};

[[noreturn]] void die(const char* what, std::string_view text) {
    std::fprintf(stderr, "fuzz_query_expr: %s for text \"%.*s\"\n", what, static_cast<int>(text.size()), text.data());
    std::abort();
}

ecs::World& fixture() {
    static ecs::World* world = [] {
        auto* w = new ecs::World();
        ecs::Entity prev = ecs::INVALID_ENTITY;
        for (int i = 0; i < 40; ++i) {
            const ecs::Entity e = w->create();
            if (i % 2 == 0) w->add(e, Position{float(i), 0});
            if (i % 3 == 0) w->add(e, Velocity{0, float(i)});
            if (i % 5 == 0) w->add(e, Health{i});
            if (i % 7 == 0) w->add(e, Frozen{});
            if (i % 4 == 1) w->add(e, Player{});
            if (i % 6 == 2) w->add(e, Mark{i});
            if (prev != ecs::INVALID_ENTITY && i % 3 != 2) w->relate<ChildOf>(e, prev);
            if (prev != ecs::INVALID_ENTITY && i % 4 == 0) w->relate<Likes>(prev, e);
            if (i == 10) w->set_name(e, "alpha");
            if (i == 11) w->set_name(e, "beta");
            if (i % 9 == 4) w->disable<Position>(e);
            if (i == 13) w->disable(e);
            if (i % 11 == 3) w->disable<Mark>(e);
            prev = e;
        }
        const ecs::Entity a = w->create_with(Position{}, Health{});
        const ecs::Entity b = w->create_with(Velocity{});
        w->add(a, ecs::Parent{b}); // a cycle: up must end it
        w->add(b, ecs::Parent{a});
        return w;
    }();
    return *world;
}

} // namespace

template <>
struct ecs::component_traits<Mark> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};
template <>
struct ecs::relation_traits<ChildOf> {
    static constexpr bool exclusive = true;
};

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 4096) return 0;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    ecs::World& w = fixture();
    ecs::DynamicQuery q = ecs::query_expr(w, text);
    if (!q) {
        if (q.error().empty()) die("an invalid query without a message", text);
        if (q.error_offset() > size) die("an error offset past the text", text);
        if (!q.terms().empty() || q.count() != 0) die("an invalid query with terms or matches", text);
        return 0;
    }
    size_t visits = 0;
    q.each([&](ecs::Entity e, void* const* values) {
        ++visits;
        if (!w.alive(e) || !w.iterating()) die("each visited a dead entity or outside an iteration scope", text);
        for (const ecs::QueryTerm& t : q.terms()) {
            if (t.value < 0) continue;
            const void* v = values[t.value];
            const bool required = t.kind == ecs::TermKind::with || t.kind == ecs::TermKind::in;
            if (required && v == nullptr) die("a required value is null", text);
            if (required && !ecs::component_info(t.id).sparse && v != w.get_raw(e, t.id)) die("a required value is not the entity's component", text);
        }
    });
    if (visits != q.count()) die("count() disagrees with each()", text);
    if (w.iterating()) die("the iteration scope stayed open", text);
    ecs::DynamicQuery moved = std::move(q);
    if (moved.count() != visits) die("a moved query counts differently", text);
    if (!w.check_invariants()) die("the world lost its invariants", text);
    return 0;
}
