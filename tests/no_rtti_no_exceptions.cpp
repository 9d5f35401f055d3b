// Uses every public header, built with -fno-rtti -fno-exceptions (tests/CMakeLists.txt; a second
// build with NDEBUG comes from tests/headers/CMakeLists.txt). The library promises to need neither:
// this program proves it links and behaves. Exits 0 only when every result is right.
#include <ecs/archetype.hpp>
#include <ecs/builtin/hierarchy.hpp>
#include <ecs/builtin/hierarchy_ops.hpp>
#include <ecs/builtin/transform.hpp>
#include <ecs/builtin/transform_propagation.hpp>
#include <ecs/command_buffer.hpp>
#include <ecs/component.hpp>
#include <ecs/config.hpp>
#include <ecs/ecs.hpp>
#include <ecs/json.hpp>
#include <ecs/parallel.hpp>
#include <ecs/entity.hpp>
#include <ecs/events.hpp>
#include <ecs/executor.hpp>
#include <ecs/prefab.hpp>
#include <ecs/serialization.hpp>
#include <ecs/system.hpp>
#include <ecs/world.hpp>

#include <cstdint>
#include <cstdio>
#include <istream>
#include <ostream>
#include <sstream>
#include <atomic>
#include <string>
#include <unordered_set>
#include <vector>

namespace {

int failures = 0;

/// Records a failed check and carries on: the program reports every wrong result, then fails.
#define NRNE_CHECK(...)                                                                   \
    do {                                                                                  \
        if (!(__VA_ARGS__)) {                                                             \
            std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #__VA_ARGS__); \
            ++failures;                                                                   \
        }                                                                                 \
    } while (0)

struct Position {
    float x = 0.0f;
    float y = 0.0f;
};
struct Velocity {
    float dx = 0.0f;
    float dy = 0.0f;
};
struct Frozen {};

/// Non-trivial component (short string: lives in the small-string buffer) that counts lifetimes.
struct Name {
    static inline int live = 0;
    std::string text;
    explicit Name(std::string t) : text(std::move(t)) { ++live; }
    Name(const Name& other) : text(other.text) { ++live; }
    Name(Name&& other) noexcept : text(std::move(other.text)) { ++live; }
    Name& operator=(const Name&) = default;
    Name& operator=(Name&&) noexcept = default;
    ~Name() { --live; }
};

struct DeltaTime {
    float seconds = 0.0f;
};

// -- serialization functions for Name (Children has the library's own) -----------------------------

void write_u32(std::ostream& out, uint32_t v) {
    unsigned char b[4] = {static_cast<unsigned char>(v), static_cast<unsigned char>(v >> 8),
                          static_cast<unsigned char>(v >> 16), static_cast<unsigned char>(v >> 24)};
    out.write(reinterpret_cast<const char*>(b), 4);
}
bool read_u32(std::istream& in, uint32_t& v) {
    unsigned char b[4] = {};
    if (!in.read(reinterpret_cast<char*>(b), 4)) return false;
    v = uint32_t(b[0]) | (uint32_t(b[1]) << 8) | (uint32_t(b[2]) << 16) | (uint32_t(b[3]) << 24);
    return true;
}

void write_name(std::ostream& out, const void* component) {
    const std::string& text = static_cast<const Name*>(component)->text;
    write_u32(out, static_cast<uint32_t>(text.size()));
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
}
void read_name(std::istream& in, void* storage) {
    uint32_t size = 0;
    if (!read_u32(in, size) || size > 4096) {
        in.setstate(std::ios_base::failbit);
        return;
    }
    std::string text(size, '\0');
    if (!in.read(&text[0], static_cast<std::streamsize>(size))) return;
    ::new (storage) Name(std::move(text));
}

// -- the parts of the API, one function each ------------------------------------------------------------

void core_world() {
    ecs::World world;
    NRNE_CHECK(!world.alive(ecs::INVALID_ENTITY));
    const ecs::Entity a = world.create_with(Position{1.0f, 2.0f}, Velocity{1.0f, 1.0f});
    const ecs::Entity b = world.create_with(Position{5.0f, 0.0f}, Velocity{0.0f, 1.0f}, Frozen{});
    const ecs::Entity c = world.create();
    world.add(c, Position{9.0f, 9.0f});
    world.add(c, Name("c"));
    NRNE_CHECK(world.count() == 3 && world.count<Position>() == 3 && world.count<Position, Velocity>() == 2);
    NRNE_CHECK(world.has<Frozen>(b) && !world.has<Frozen>(a) && world.try_get<Velocity>(c) == nullptr);

    world.each<Position, const Velocity>(ecs::Exclude<Frozen>{}, [](ecs::Entity, Position& p, const Velocity& v) {
        p.x += v.dx;
        p.y += v.dy;
    });
    NRNE_CHECK(world.get<Position>(a).x == 2.0f && world.get<Position>(a).y == 3.0f);
    NRNE_CHECK(world.get<Position>(b).x == 5.0f);

    float sum = 0.0f;
    world.each_no_entity<const Position>([&sum](const Position& p) { sum += p.x; });
    NRNE_CHECK(sum == 2.0f + 5.0f + 9.0f);

    int singles = 0;
    world.single<Name>([&](ecs::Entity e, Name& n) {
        singles += (e == c && n.text == "c") ? 1 : 100;
    });
    NRNE_CHECK(singles == 1);

    // Sort: rows follow x descending, all columns in lockstep, records updated.
    ecs::World sorted;
    const float keys[] = {3.0f, 7.0f, 1.0f, 5.0f};
    ecs::Entity handles_by_key[4];
    for (int i = 0; i < 4; ++i) handles_by_key[i] = sorted.create_with(Position{keys[i], 0.0f}, Velocity{keys[i] * 2.0f, 0.0f});
    sorted.sort<Position>([](const Position& l, const Position& r) { return l.x > r.x; });
    std::vector<float> xs;
    sorted.each<const Position, const Velocity>([&xs](ecs::Entity, const Position& p, const Velocity& v) {
        xs.push_back(p.x == v.dx / 2.0f ? p.x : -1.0f);
    });
    NRNE_CHECK(xs == (std::vector<float>{7.0f, 5.0f, 3.0f, 1.0f}));
    for (int i = 0; i < 4; ++i) NRNE_CHECK(sorted.get<Position>(handles_by_key[i]).x == keys[i]);
    NRNE_CHECK(sorted.check_invariants());

    world.remove<Velocity>(a);
    NRNE_CHECK(!world.has<Velocity>(a) && world.get<Position>(a).x == 2.0f);
    world.destroy(b);
    NRNE_CHECK(!world.alive(b) && world.count() == 2);
    const ecs::Entity d = world.create();
    NRNE_CHECK(d.index == b.index && d.generation != b.generation && !world.alive(b));

    std::unordered_set<ecs::Entity> handles{a, c, d};
    NRNE_CHECK(handles.size() == 3 && ecs::EntityHash{}(a) == std::hash<ecs::Entity>{}(a));
    NRNE_CHECK(ecs::component_id<const Position&>() == ecs::component_id<Position>());
    NRNE_CHECK(world.archetype_count() >= 4 && world.check_invariants());
}

void deferred_and_command_buffer() {
    ecs::World world;
    for (int i = 0; i < 8; ++i) (void)world.create_with(Position{float(i), 0.0f});

    // Structural changes queued during iteration, applied at the flush, in recording order.
    world.each<Position>([&world](ecs::Entity e, Position& p) {
        if (static_cast<int>(p.x) % 2 == 0) world.deferred().destroy(e);
        else world.deferred().add(e, Name("odd"));
    });
    world.deferred().create_with(Position{100.0f, 0.0f}, Name("new"));
    NRNE_CHECK(world.count() == 8 && world.deferred_count() == 9);
    world.flush_deferred();
    NRNE_CHECK(world.count() == 5 && world.count<Name>() == 5 && world.deferred_count() == 0);

    ecs::CommandBuffer buffer;
    NRNE_CHECK(buffer.empty());
    ecs::Entity victim = ecs::INVALID_ENTITY;
    world.each<Name>([&](ecs::Entity e, Name& n) {
        if (n.text == "new") victim = e;
    });
    buffer.remove<Name>(victim);
    buffer.add(victim, Velocity{3.0f, 0.0f});
    buffer.create_with(Name("buffered"));
    NRNE_CHECK(!buffer.empty() && buffer.size() == 3);
    buffer.flush(world);
    NRNE_CHECK(buffer.empty() && !world.has<Name>(victim) && world.get<Velocity>(victim).dx == 3.0f);
    NRNE_CHECK(world.count() == 6 && world.count<Name>() == 5);

    // An unflushed buffer destroys its payloads exactly once.
    ecs::CommandBuffer dropped;
    dropped.create_with(Name("never"));
    dropped.add(victim, Name("never either"));
    dropped.clear();
    NRNE_CHECK(dropped.empty() && world.check_invariants());
}

void resources_and_observers() {
    ecs::World world;
    NRNE_CHECK(!world.has_resource<DeltaTime>() && world.try_resource<DeltaTime>() == nullptr);
    world.set_resource(DeltaTime{0.5f});
    world.set_resource(DeltaTime{0.25f}); // overwrite
    NRNE_CHECK(world.has_resource<DeltaTime>() && world.resource<DeltaTime>().seconds == 0.25f);
    world.set_resource(Name("resource")); // same type as a component: separate storage
    world.remove_resource<DeltaTime>();
    NRNE_CHECK(!world.has_resource<DeltaTime>() && world.resource<Name>().text == "resource");

    int added = 0;
    int removed = 0;
    float seen_x = 0.0f;
    world.on_add<Position>([&](ecs::World& w, ecs::Entity e, Position& p) {
        ++added;
        seen_x += p.x + w.get<Position>(e).x; // the record is already updated
    });
    world.on_remove<Position>([&](ecs::World&, ecs::Entity, Position& p) {
        ++removed;
        seen_x -= p.x;
    });
    const ecs::Entity e = world.create_with(Position{2.0f, 0.0f});
    world.add(e, Position{3.0f, 0.0f}); // overwrite: no hook
    const ecs::Entity f = world.create();
    world.add(f, Position{1.0f, 0.0f});
    NRNE_CHECK(added == 2 && seen_x == 6.0f);
    world.remove<Position>(f);
    world.destroy(e);
    NRNE_CHECK(removed == 2 && seen_x == 6.0f - 1.0f - 3.0f);
}

void prefabs() {
    ecs::World world;
    int hooks = 0;
    world.on_add<Name>([&hooks](ecs::World&, ecs::Entity, Name&) { ++hooks; });
    const ecs::Prefab enemy = ecs::Prefab::create(Position{0.0f, 0.0f}, Velocity{1.0f, 0.0f}, Name("enemy"));
    NRNE_CHECK(enemy.component_count() == 3 && enemy.has<Name>() && !enemy.has<Frozen>());
    const ecs::Prefab copy = enemy; // copies every default
    const ecs::Entity plain = ecs::instantiate(world, copy);
    const ecs::Entity moved = ecs::instantiate(world, enemy, Position{10.0f, 5.0f});
    const ecs::Entity extended = ecs::instantiate(world, enemy, Velocity{5.0f, 0.0f}, Frozen{});
    NRNE_CHECK(world.get<Name>(plain).text == "enemy" && world.get<Position>(plain).x == 0.0f);
    NRNE_CHECK(world.get<Position>(moved).x == 10.0f && world.get<Velocity>(moved).dx == 1.0f);
    NRNE_CHECK(world.get<Velocity>(extended).dx == 5.0f && world.has<Frozen>(extended) && world.has<Name>(extended));
    NRNE_CHECK(hooks == 3 && world.count<Name>() == 3 && world.check_invariants());
}

void serialization_round_trip() {
    ecs::register_component<Position>("nrne::Position");
    ecs::register_component<Velocity>("nrne::Velocity");
    ecs::register_component<Frozen>("nrne::Frozen");
    ecs::register_component<Name>("nrne::Name", &write_name, &read_name);
    ecs::register_component<Position>("nrne::Position"); // same name and type again: no-op
    NRNE_CHECK(ecs::component_registered(ecs::component_id<Name>()) &&
               !ecs::component_registered(ecs::component_id<DeltaTime>()));
    NRNE_CHECK(ecs::component_id_by_name("nrne::Velocity") == ecs::component_id<Velocity>());
    NRNE_CHECK(ecs::component_name(ecs::component_id<Name>()) == "nrne::Name");

    ecs::World world;
    const ecs::Entity a = world.create_with(Position{1.0f, 2.0f}, Name("a"));
    const ecs::Entity b = world.create_with(Position{3.0f, 4.0f}, Velocity{5.0f, 6.0f}, Frozen{});
    const ecs::Entity dead = world.create();
    world.destroy(dead);

    std::stringstream bytes;
    ecs::serialize(world, bytes);
    NRNE_CHECK(static_cast<bool>(bytes));
    const std::string snapshot = bytes.str();

    ecs::World restored;
    const ecs::DeserializeResult result = ecs::deserialize(restored, bytes);
    NRNE_CHECK(static_cast<bool>(result) && result.error == ecs::DeserializeError::none);
    NRNE_CHECK(restored.count() == 2 && restored.alive(a) && restored.alive(b) && !restored.alive(dead));
    NRNE_CHECK(restored.get<Name>(a).text == "a" && restored.get<Position>(b).y == 4.0f &&
               restored.get<Velocity>(b).dy == 6.0f && restored.has<Frozen>(b));
    const ecs::Entity reused = restored.create(); // the free list survived: the dead slot comes back
    NRNE_CHECK(reused.index == dead.index && reused.generation != dead.generation);
    NRNE_CHECK(restored.check_invariants());

    // Bad data is an error value, not an exception, and leaves the target empty.
    std::stringstream truncated(snapshot.substr(0, snapshot.size() / 2));
    ecs::World target;
    const ecs::DeserializeResult bad = ecs::deserialize(target, truncated);
    NRNE_CHECK(!bad && bad.error != ecs::DeserializeError::none && !bad.message.empty());
    NRNE_CHECK(target.count() == 0 && target.check_invariants());
    std::stringstream garbage(std::string(256, 'x'));
    NRNE_CHECK(ecs::deserialize(target, garbage).error == ecs::DeserializeError::bad_magic);
}

void systems() {
    ecs::World world;
    const ecs::Entity e = world.create_with(Position{0.0f, 0.0f}, Velocity{1.0f, 2.0f});
    world.set_resource(DeltaTime{2.0f});
    ecs::SystemRegistry registry;
    registry.add("move", [](ecs::World& w) {
        const float dt = w.resource<DeltaTime>().seconds;
        w.each<Position, const Velocity>([dt](ecs::Entity, Position& p, const Velocity& v) {
            p.x += v.dx * dt;
            p.y += v.dy * dt;
        });
    });
    registry.add("spawn", [](ecs::World& w) {
        w.each<const Position>([&w](ecs::Entity, const Position& p) {
            if (p.x > 1.0f) w.deferred().create_with(Name("spawned"));
        });
    });
    registry.add("count", [](ecs::World& w) {
        // The previous system's deferred commands are flushed before this one runs.
        w.set_resource(static_cast<int>(w.count<Name>()));
    });
    NRNE_CHECK(registry.size() == 3 && registry.name(1) == "spawn");
    registry.run_all(world);
    NRNE_CHECK(world.get<Position>(e).x == 2.0f && world.get<Position>(e).y == 4.0f);
    NRNE_CHECK(world.resource<int>() == 1 && world.count<Name>() == 1);
}

void hierarchy_and_transforms() {
    ecs::register_component<ecs::Parent>("nrne::Parent");
    ecs::register_component<ecs::Children>("nrne::Children", &ecs::write_children, &ecs::read_children);
    ecs::register_component<ecs::LocalTransform>("nrne::LocalTransform");
    ecs::register_component<ecs::WorldTransform>("nrne::WorldTransform");

    ecs::World world;
    auto node = [&world](float x) {
        return world.create_with(ecs::LocalTransform{ecs::Mat4::translation(x, 0.0f, 0.0f)}, ecs::WorldTransform{});
    };
    const ecs::Entity root = node(1.0f);
    const ecs::Entity child = node(10.0f);
    const ecs::Entity grandchild = node(100.0f);
    const ecs::Entity other = node(1000.0f);
    ecs::set_parent(world, child, root);
    ecs::set_parent(world, grandchild, child);
    ecs::set_parent(world, other, root);
    NRNE_CHECK(world.get<ecs::Parent>(grandchild).entity == child);
    NRNE_CHECK(world.get<ecs::Children>(root).entities.size() == 2);

    ecs::propagate_transforms(world);
    NRNE_CHECK(world.get<ecs::WorldTransform>(grandchild).matrix.position() == (ecs::Vec3{111.0f, 0.0f, 0.0f}));
    NRNE_CHECK(world.get<ecs::WorldTransform>(other).matrix.position().x == 1001.0f);
    const ecs::Mat4 product = ecs::Mat4::translation(1.0f, 0.0f, 0.0f) * ecs::Mat4::translation(10.0f, 0.0f, 0.0f);
    NRNE_CHECK(product == world.get<ecs::WorldTransform>(child).matrix);
    NRNE_CHECK(ecs::Mat4::identity().multiply(product) == product);

    // The hierarchy survives a snapshot (handles are preserved, so Parent/Children stay valid).
    std::stringstream bytes;
    ecs::serialize(world, bytes);
    ecs::World restored;
    NRNE_CHECK(static_cast<bool>(ecs::deserialize(restored, bytes)));
    NRNE_CHECK(restored.get<ecs::Parent>(child).entity == root &&
               restored.get<ecs::Children>(child).entities.size() == 1 &&
               restored.get<ecs::Children>(child).entities[0] == grandchild);

    ecs::remove_parent(world, other);
    NRNE_CHECK(!world.has<ecs::Parent>(other) && world.get<ecs::Children>(root).entities.size() == 1);
    ecs::propagate_transforms(world); // `other` is a root now
    NRNE_CHECK(world.get<ecs::WorldTransform>(other).matrix.position().x == 1000.0f);

    ecs::destroy_recursive(world, root);
    NRNE_CHECK(!world.alive(root) && !world.alive(child) && !world.alive(grandchild) && world.alive(other));
    NRNE_CHECK(world.count() == 1 && world.check_invariants());
}

} // namespace

void events() {
    ecs::World world;
    ecs::EventReader<Name> reader;
    world.send(Name("first"));
    world.update_events();
    world.send(Name("second"));
    std::string seen;
    NRNE_CHECK(reader.read(world, [&](const Name& n) { seen += n.text; }) == 2 && seen == "firstsecond");
    world.update_events();
    world.update_events();
    world.send(Name("dropped"));
    world.update_events();
    world.update_events();
    NRNE_CHECK(reader.read(world, [&](const Name&) {}) == 0 && reader.missed() == 1);
    world.send(Name("left for the world's destructor"));
    ecs::InlineExecutor executor;
    size_t sum = 0;
    ecs::parallel_for(executor, 5, [&](size_t i) { sum += i; });
    NRNE_CHECK(sum == 10 && executor.concurrency() == 1);
}


// ---- 1.0 additions: queries, introspection, reflection and JSON, a thread pool ----
namespace nrne {
struct Speed {
    float v;
};
struct Still {};
} // namespace nrne
ECS_REFLECT(nrne::Speed, v)

void queries_reflection_and_pool() {
    ecs::World w;
    for (int i = 0; i < 10; ++i) {
        const ecs::Entity e = w.create_with(nrne::Speed{float(i)});
        if (i % 2) w.add<nrne::Still>(e);
    }
    auto q = w.query<const nrne::Speed>(ecs::Without<nrne::Still>{});
    size_t rows = 0;
    q.each_chunk([&](ecs::Chunk& c) { rows += c.size(); });
    NRNE_CHECK(rows == 5 && q.count() == 5);
    size_t optional = 0;
    w.each<ecs::Optional<nrne::Still>>([&](nrne::Still* s) { optional += s != nullptr; });
    NRNE_CHECK(optional == 5);
    NRNE_CHECK(ecs::type_name<nrne::Speed>() == "nrne::Speed");
    const std::string json = ecs::to_json(w, q.first());
    NRNE_CHECK(json.find("\"v\":0") != std::string::npos);
    ecs::ThreadPool pool(2);
    std::atomic<int> sum{0};
    ecs::parallel_for(pool, 100, [&](size_t i) { sum += int(i); });
    NRNE_CHECK(sum == 4950);
}

int main() {
    queries_reflection_and_pool();
    core_world();
    deferred_and_command_buffer();
    resources_and_observers();
    prefabs();
    serialization_round_trip();
    systems();
    hierarchy_and_transforms();
    events();
    NRNE_CHECK(Name::live == 0); // every Name constructed anywhere above was destroyed exactly once

    std::printf("ecs %d.%d.%d without RTTI and exceptions (assertions %s): %s\n", ECS_VERSION_MAJOR,
                ECS_VERSION_MINOR, ECS_VERSION_PATCH, ECS_ASSERT_ENABLED ? "on" : "off",
                failures == 0 ? "ok" : "FAILED");
    return failures == 0 ? 0 : 1;
}
