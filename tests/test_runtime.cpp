// Runtime components and untyped access (runtime.hpp): register_runtime_component, World::add_raw /
// remove_raw / get_raw / has_raw / each_raw, the raw hooks, prefab defaults by id, deferred raw
// commands, and every storage path a runtime type goes through (migration, swap-remove, growth,
// sort, snapshots, clone, each_component, describe, JSON). Lifetimes of the non-trivial runtime type
// are counted per address: every object constructed is destroyed exactly once.
#include <ecs/ecs.hpp>
#include <ecs/json.hpp>
#include <ecs/runtime.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <istream>
#include <new>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"

using ecs::ComponentTypeID;
using ecs::Entity;
using ecs::World;

namespace {

// ---- typed components used next to the runtime ones ------------------------------------------------

struct RtPos {
    float x = 0, y = 0;
};
struct RtVel {
    float x = 0, y = 0;
};
struct RtKey {
    int key = 0;
};
struct RtTypedTag {};

// ---- a plain-bytes runtime type with serialize functions and a field layout: "RtHealth" ------------

struct Health { // the layout the runtime ops describe (the library never sees this type)
    int32_t hp;
    float max;
};

void health_default(void* p) { std::memset(p, 0, sizeof(Health)); }
void health_copy(void* dst, const void* src) { std::memcpy(dst, src, sizeof(Health)); }
void health_write(std::ostream& out, const void* p) { out.write(static_cast<const char*>(p), sizeof(Health)); }
void health_read(std::istream& in, void* p) { in.read(static_cast<char*>(p), sizeof(Health)); }

const ecs::FieldInfo health_fields[] = {ecs::detail::describe<int32_t>("hp", offsetof(Health, hp)),
                                        ecs::detail::describe<float>("max", offsetof(Health, max))};

ecs::ComponentOps health_ops() {
    ecs::ComponentOps ops;
    ops.size = sizeof(Health);
    ops.align = alignof(Health);
    ops.default_construct = &health_default;
    ops.copy_construct = &health_copy;
    ops.serialize = &health_write;
    ops.deserialize = &health_read;
    return ops;
}

// ---- a non-trivial runtime type (a std::string), counted per address: "RtLabel" --------------------

struct Tally {
    long constructed = 0, destroyed = 0, copies = 0, moves = 0, bad = 0;
    std::set<const void*> live;
    long alive() const { return constructed - destroyed; }
    bool clean() const { return alive() == 0 && live.empty() && bad == 0; }
};
Tally& tally() {
    static Tally t;
    return t;
}
void born(const void* p) {
    ++tally().constructed;
    if (!tally().live.insert(p).second) ++tally().bad; // constructed over a live object
}
void gone(const void* p) {
    ++tally().destroyed;
    if (tally().live.erase(p) == 0) ++tally().bad; // destroyed twice, or never constructed
}
const std::string& label_of(const void* p) {
    if (tally().live.count(p) == 0) ++tally().bad; // read from a dead object
    return *static_cast<const std::string*>(p);
}

void label_default(void* p) {
    ::new (p) std::string();
    born(p);
}
void label_copy(void* dst, const void* src) { // `src` may be a caller's std::string: not counted
    ::new (dst) std::string(*static_cast<const std::string*>(src));
    ++tally().copies;
    born(dst);
}
void label_move(void* dst, void* src) {
    ::new (dst) std::string(std::move(*static_cast<std::string*>(src)));
    ++tally().moves;
    born(dst);
}
void label_destroy(void* p) {
    gone(p);
    static_cast<std::string*>(p)->~basic_string();
}
void label_write(std::ostream& out, const void* p) {
    const std::string& s = label_of(p);
    const uint32_t n = static_cast<uint32_t>(s.size());
    out.write(reinterpret_cast<const char*>(&n), 4);
    out.write(s.data(), static_cast<std::streamsize>(n));
}
void label_read(std::istream& in, void* p) {
    uint32_t n = 0;
    if (!in.read(reinterpret_cast<char*>(&n), 4) || n > 4096) {
        in.setstate(std::ios::failbit);
        return;
    }
    std::string s(n, '\0');
    if (n != 0 && !in.read(&s[0], static_cast<std::streamsize>(n))) return;
    ::new (p) std::string(std::move(s));
    born(p);
}

const ecs::FieldInfo label_fields[] = {ecs::detail::describe<std::string>("text", 0)};

ecs::ComponentOps label_ops() {
    ecs::ComponentOps ops;
    ops.size = sizeof(std::string);
    ops.align = alignof(std::string);
    ops.default_construct = &label_default;
    ops.copy_construct = &label_copy;
    ops.move_construct = &label_move;
    ops.destroy = &label_destroy;
    ops.serialize = &label_write;
    ops.deserialize = &label_read;
    return ops;
}

// ---- an over-aligned plain runtime type: "RtWide"; a runtime tag: "RtMark"; a move-only one -------

struct alignas(64) Wide {
    float lanes[16];
};
void wide_default(void* p) { std::memset(p, 0, sizeof(Wide)); }
void wide_copy(void* dst, const void* src) { std::memcpy(dst, src, sizeof(Wide)); }

ecs::ComponentOps wide_ops() {
    ecs::ComponentOps ops;
    ops.size = sizeof(Wide);
    ops.align = alignof(Wide);
    ops.default_construct = &wide_default;
    ops.copy_construct = &wide_copy;
    return ops;
}

ecs::ComponentOps mark_ops() {
    ecs::ComponentOps ops;
    ops.size = 0;
    ops.align = 1;
    return ops;
}

/// Move-only and without serialize functions: "RtHandle" (a heap int).
void handle_default(void* p) { ::new (p) int*(new int(0)); }
void handle_move(void* dst, void* src) {
    ::new (dst) int*(*static_cast<int**>(src));
    *static_cast<int**>(src) = nullptr;
}
void handle_destroy(void* p) { delete *static_cast<int**>(p); }

ecs::ComponentOps handle_ops() {
    ecs::ComponentOps ops;
    ops.size = sizeof(int*);
    ops.align = alignof(int*);
    ops.default_construct = &handle_default;
    ops.move_construct = &handle_move;
    ops.destroy = &handle_destroy;
    return ops;
}

struct Ids {
    ComponentTypeID health, label, wide, mark, handle;
};

/// Registers the runtime types (and names the typed ones) once for the whole file.
const Ids& ids() {
    static const Ids registered = [] {
        ecs::register_component<RtPos>("RtPos");
        ecs::register_component<RtVel>("RtVel");
        ecs::register_component<RtKey>("RtKey");
        ecs::register_component<RtTypedTag>("RtTypedTag");
        Ids r{};
        r.health = ecs::register_runtime_component("RtHealth", health_ops(), ecs::FieldView(health_fields, 2));
        r.label = ecs::register_runtime_component("RtLabel", label_ops(), ecs::FieldView(label_fields, 1));
        r.wide = ecs::register_runtime_component("RtWide", wide_ops());
        r.mark = ecs::register_runtime_component("RtMark", mark_ops());
        r.handle = ecs::register_runtime_component("RtHandle", handle_ops());
        return r;
    }();
    return registered;
}

Health health(int32_t hp, float max) { return Health{hp, max}; }
Health read_health(const void* p) {
    Health h;
    std::memcpy(&h, p, sizeof h);
    return h;
}

} // namespace

TEST_CASE("runtime: registration gives ids, names, sizes and a column like a typed component", "[runtime]") {
    const Ids& id = ids();
    std::set<ComponentTypeID> distinct{id.health, id.label, id.wide, id.mark, id.handle, ecs::component_id<RtPos>()};
    CHECK(distinct.size() == 6);
    for (ComponentTypeID t : distinct) CHECK(t < ECS_MAX_COMPONENTS);

    const ecs::ComponentInfo& h = ecs::component_info(id.health);
    CHECK(h.name == "RtHealth");
    CHECK(h.size == sizeof(Health));
    CHECK(h.align == alignof(Health));
    CHECK(h.id == id.health);
    CHECK(h.trivially_copyable);
    CHECK_FALSE(h.tag);
    CHECK(ecs::component_info(id.label).name == "RtLabel");
    CHECK_FALSE(ecs::component_info(id.label).trivially_copyable);
    CHECK(ecs::component_info(id.wide).align == 64);
    CHECK(ecs::component_info(id.mark).tag);

    CHECK(ecs::column_factory(id.health) != nullptr);
    const ecs::ComponentColumn c = ecs::column_factory(id.label)();
    CHECK(c.type_id == id.label);
    CHECK(c.elem_size == sizeof(std::string));
    CHECK_FALSE(c.trivially_relocatable);
    CHECK(c.copy != nullptr);
    CHECK(ecs::column_factory(id.handle)().copy == nullptr);

    // Names: the registry, the lock-free lookup and the serialization API agree.
    CHECK(ecs::component_id_by_name("RtHealth") == id.health);
    CHECK(ecs::component_name(id.handle) == "RtHandle"); // named although it has no snapshot functions
    CHECK(ecs::find_component("RtLabel") == id.label);
    CHECK(ecs::find_component("RtPos") == ecs::component_id<RtPos>());
    CHECK(ecs::find_component("no such component") == ecs::INVALID_COMPONENT_ID);
    CHECK(ecs::is_runtime_component(id.wide));
    CHECK_FALSE(ecs::is_runtime_component(ecs::component_id<RtPos>()));
    const ecs::ComponentOps* registered = ecs::runtime_component_ops(id.health);
    CHECK((registered != nullptr && *registered == health_ops()));

    // The same name with identical ops (and fields) is the same type.
    CHECK(ecs::register_runtime_component("RtHealth", health_ops(), ecs::FieldView(health_fields, 2)) == id.health);
    CHECK(ecs::register_runtime_component("RtWide", wide_ops()) == id.wide);

    // Fields: the layout is the type's reflection.
    CHECK(ecs::reflected(id.health));
    CHECK(ecs::fields(id.health).size() == 2);
    CHECK(ecs::fields(id.health)[1].name == "max");
    CHECK_FALSE(ecs::reflected(id.wide));
}

TEST_CASE("runtime: add_raw, get_raw, has_raw and remove_raw by id and by name", "[runtime]") {
    const Ids& id = ids();
    World w;
    const Entity e = w.create_with(RtPos{1, 2});
    CHECK_FALSE(w.has_raw(e, id.health));
    CHECK(w.get_raw(e, id.health) == nullptr);
    CHECK(w.get_raw(e, "RtHealth") == nullptr);

    const Health h = health(30, 100.f);
    void* p = w.add_raw(e, id.health, &h);
    REQUIRE(p != nullptr);
    CHECK(p == w.get_raw(e, id.health));
    CHECK(p == w.get_raw(e, "RtHealth"));
    CHECK(w.has_raw(e, id.health));
    CHECK(w.has_raw(e, "RtHealth"));
    const std::string name = "RtHealth";
    CHECK(w.get_raw(e, name) == p); // std::string and std::string_view work too
    CHECK(w.has_raw(e, std::string_view(name)));
    CHECK(read_health(p).hp == 30);
    CHECK(w.get<RtPos>(e).x == 1.f); // the typed component survived the migration

    // Overwrite in place: same address, no migration.
    const size_t archetypes = w.archetype_count();
    const Health h2 = health(7, 50.f);
    CHECK(w.add_raw(e, id.health, &h2) == p);
    CHECK(read_health(w.get_raw(e, id.health)).hp == 7);
    CHECK(w.archetype_count() == archetypes);

    // nullptr: value-initialised by default_construct.
    const Entity f = w.create();
    void* q = w.add_raw(f, id.health, nullptr);
    REQUIRE(q != nullptr);
    CHECK(read_health(q).hp == 0);
    CHECK(read_health(q).max == 0.f);

    // Tags: the address of the one shared object; has_raw works.
    CHECK(w.add_raw(e, id.mark, nullptr) != nullptr);
    CHECK(w.has_raw(e, "RtMark"));

    w.remove_raw(e, id.health);
    CHECK_FALSE(w.has_raw(e, id.health));
    CHECK(w.has_raw(e, id.mark));
    CHECK(w.get<RtPos>(e).y == 2.f);
    w.remove_raw(e, id.health); // absent: no-op
    w.remove_raw(e, id.mark);
    CHECK(w.check_invariants());

    // Dead entities: nullptr / false / no-op, no assertion.
    w.destroy(f);
    CHECK(w.get_raw(f, id.health) == nullptr);
    CHECK_FALSE(w.has_raw(f, "RtHealth"));
    CHECK(w.add_raw(f, id.health, &h) == nullptr);
    w.remove_raw(f, id.health);
    CHECK(w.count() == 1);

    // const World: read-only access.
    const World& cw = w;
    const Entity g = w.create();
    w.add_raw(g, id.health, &h);
    CHECK(cw.get_raw(g, id.health) == w.get_raw(g, id.health));
    CHECK(cw.get_raw(g, "RtHealth") != nullptr);
    CHECK(cw.get_raw(e, "RtHealth") == nullptr);
}

TEST_CASE("runtime: raw access to typed components equals typed access", "[runtime]") {
    (void)ids();
    World w;
    const ComponentTypeID pos = ecs::component_id<RtPos>();
    const ComponentTypeID vel = ecs::ensure_column_factory<RtVel>();
    const Entity e = w.create_with(RtPos{1, 2}, RtVel{3, 4});
    CHECK(w.get_raw(e, pos) == static_cast<void*>(&w.get<RtPos>(e)));
    CHECK(w.get_raw(e, vel) == static_cast<void*>(&w.get<RtVel>(e)));
    CHECK(w.get_raw(e, "RtPos") == static_cast<void*>(&w.get<RtPos>(e)));
    CHECK(w.has_raw(e, pos) == w.has<RtPos>(e));

    const RtKey key{42};
    void* k = w.add_raw(e, ecs::ensure_column_factory<RtKey>(), &key);
    REQUIRE(k != nullptr);
    CHECK(w.get<RtKey>(e).key == 42);
    CHECK(k == static_cast<void*>(&w.get<RtKey>(e)));
    CHECK(w.get<RtPos>(e).y == 2.f);

    // nullptr value-initialises a typed component (component_id<T> of a default-constructible T).
    const Entity f = w.create();
    w.add_raw(f, pos, nullptr);
    REQUIRE(w.has<RtPos>(f));
    CHECK(w.get<RtPos>(f).x == 0.f);
    w.add_raw(f, ecs::component_id<RtTypedTag>(), nullptr);
    CHECK(w.has<RtTypedTag>(f));

    w.remove_raw(e, vel);
    CHECK_FALSE(w.has<RtVel>(e));
    CHECK(w.get<RtKey>(e).key == 42);

    // Typed names of never-registered types resolve through component_info (the type name).
    struct Unregistered {
        int v = 5;
    };
    const Entity g = w.create_with(Unregistered{});
    const std::string name(ecs::component_info(ecs::component_id<Unregistered>()).name);
    CHECK(w.get_raw(g, name.c_str()) == static_cast<void*>(&w.get<Unregistered>(g)));
    CHECK(w.check_invariants());
}

TEST_CASE("runtime: a non-trivial runtime type through migration, swap-remove and growth", "[runtime]") {
    const Ids& id = ids();
    tally() = Tally{};
    {
        World w;
        std::vector<Entity> es;
        for (int i = 0; i < 600; ++i) { // several block growths; short strings (SSO) included
            const Entity e = w.create_with(RtKey{i});
            const std::string text = i % 3 == 0 ? std::string("s") + std::to_string(i)
                                                : std::string("a much longer label that lives on the heap #") + std::to_string(i);
            REQUIRE(w.add_raw(e, id.label, &text) != nullptr);
            es.push_back(e);
        }
        // Migrations in both directions with the label along.
        for (size_t i = 0; i < es.size(); i += 2) w.add(es[i], RtPos{float(i), 0});
        for (size_t i = 0; i < es.size(); i += 4) w.remove<RtKey>(es[i]);
        // Swap-removes from the middle of every archetype.
        for (size_t i = 1; i < es.size(); i += 5) w.destroy(es[i]);
        size_t checked = 0;
        for (size_t i = 0; i < es.size(); ++i) {
            if (!w.alive(es[i])) continue;
            const std::string expected = i % 3 == 0 ? std::string("s") + std::to_string(i)
                                                    : std::string("a much longer label that lives on the heap #") + std::to_string(i);
            REQUIRE(label_of(w.get_raw(es[i], id.label)) == expected);
            ++checked;
        }
        CHECK(checked == es.size() - es.size() / 5);
        // Overwrite a non-trivial value: the old one is destroyed, the new one copied in.
        const std::string replacement = "replaced";
        void* at = w.add_raw(es[0], id.label, &replacement);
        CHECK(label_of(at) == "replaced");
        // Self-assignment through the raw path.
        CHECK(w.add_raw(es[0], id.label, w.get_raw(es[0], id.label)) != nullptr);
        CHECK(label_of(w.get_raw(es[0], id.label)) == "replaced");
        // remove_raw destroys it.
        w.remove_raw(es[0], id.label);
        CHECK(w.check_invariants());
        CHECK(tally().bad == 0);
    }
    CHECK(tally().clean());
    CHECK(tally().constructed > 600);
}

TEST_CASE("runtime: over-aligned runtime columns and runtime tags", "[runtime]") {
    const Ids& id = ids();
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 100; ++i) {
        Wide v{};
        v.lanes[0] = float(i);
        const Entity e = i % 2 ? w.create_with(RtKey{i}) : w.create();
        void* p = w.add_raw(e, id.wide, &v);
        REQUIRE(p != nullptr);
        CHECK(reinterpret_cast<uintptr_t>(p) % 64 == 0);
        if (i % 3 == 0) w.add_raw(e, id.mark, nullptr);
        es.push_back(e);
    }
    for (int i = 0; i < 100; ++i) {
        const void* p = w.get_raw(es[size_t(i)], id.wide);
        REQUIRE(p != nullptr);
        CHECK(reinterpret_cast<uintptr_t>(p) % 64 == 0);
        CHECK(static_cast<const Wide*>(p)->lanes[0] == float(i));
        CHECK(w.has_raw(es[size_t(i)], id.mark) == (i % 3 == 0));
    }
    CHECK(w.check_invariants());
}

TEST_CASE("runtime: sort moves runtime columns with their rows", "[runtime]") {
    const Ids& id = ids();
    tally() = Tally{};
    {
        World w;
        std::vector<Entity> es;
        for (int i = 0; i < 50; ++i) {
            const Entity e = w.create_with(RtKey{(i * 37) % 50});
            const std::string text = "k" + std::to_string((i * 37) % 50);
            w.add_raw(e, id.label, &text);
            const Health h = health((i * 37) % 50, 1.f);
            w.add_raw(e, id.health, &h);
            es.push_back(e);
        }
        w.sort<RtKey>([](const RtKey& a, const RtKey& b) { return a.key < b.key; });
        int previous = -1;
        w.each<const RtKey>([&](Entity e, const RtKey& k) {
            CHECK(k.key > previous);
            previous = k.key;
            CHECK(label_of(w.get_raw(e, id.label)) == "k" + std::to_string(k.key));
            CHECK(read_health(w.get_raw(e, id.health)).hp == k.key);
        });
        CHECK(w.check_invariants());
        CHECK(tally().bad == 0);
    }
    CHECK(tally().clean());
}

TEST_CASE("runtime: snapshots save and load runtime components by name", "[runtime]") {
    const Ids& id = ids();
    tally() = Tally{};
    {
        World w;
        std::vector<Entity> es;
        for (int i = 0; i < 40; ++i) {
            const Entity e = w.create_with(RtPos{float(i), float(-i)});
            if (i % 2 == 0) {
                const Health h = health(i, 2.f * float(i));
                w.add_raw(e, id.health, &h);
            }
            if (i % 3 == 0) {
                const std::string text = "label " + std::to_string(i);
                w.add_raw(e, id.label, &text);
            }
            if (i % 5 == 0) w.add_raw(e, id.mark, nullptr);
            es.push_back(e);
        }
        for (size_t i = 1; i < es.size(); i += 7) w.destroy(es[i]);

        std::stringstream snapshot;
        ecs::serialize(w, snapshot);
        REQUIRE(snapshot.good());
        World copy;
        const ecs::DeserializeResult r = ecs::deserialize(copy, snapshot);
        INFO(r.message);
        REQUIRE(r);
        CHECK(copy.count() == w.count());
        CHECK(copy.check_invariants());
        for (size_t i = 0; i < es.size(); ++i) {
            const Entity e = es[i];
            REQUIRE(copy.alive(e) == w.alive(e));
            if (!w.alive(e)) continue;
            CHECK(copy.get<RtPos>(e).x == float(i));
            CHECK(copy.has_raw(e, id.health) == w.has_raw(e, id.health));
            if (w.has_raw(e, id.health)) CHECK(read_health(copy.get_raw(e, id.health)).max == 2.f * float(i));
            CHECK(copy.has_raw(e, "RtLabel") == w.has_raw(e, "RtLabel"));
            if (w.has_raw(e, id.label)) CHECK(label_of(copy.get_raw(e, id.label)) == "label " + std::to_string(i));
            CHECK(copy.has_raw(e, id.mark) == (i % 5 == 0));
        }
        CHECK(tally().bad == 0);
    }
    CHECK(tally().clean());
}

TEST_CASE("runtime: a failed load destroys the runtime objects it constructed", "[runtime]") {
    const Ids& id = ids();
    tally() = Tally{};
    std::string bytes;
    {
        World w;
        for (int i = 0; i < 10; ++i) {
            const Entity e = w.create_with(RtPos{});
            const std::string text = "t" + std::to_string(i);
            w.add_raw(e, id.label, &text);
        }
        std::stringstream out;
        ecs::serialize(w, out);
        bytes = out.str();
    }
    CHECK(tally().clean());
    // Cut the snapshot short (format 2: the checksum catches it before anything is built), then
    // damage a label so that the deserializer itself fails halfway (a version 1 snapshot has no
    // checksum: write one).
    {
        World w;
        std::stringstream cut(bytes.substr(0, bytes.size() - 9));
        CHECK_FALSE(ecs::deserialize(w, cut));
        CHECK(w.count() == 0);
    }
    {
        World w;
        for (int i = 0; i < 10; ++i) {
            const Entity e = w.create_with(RtPos{});
            const std::string text = "t" + std::to_string(i);
            w.add_raw(e, id.label, &text);
        }
        std::stringstream v1;
        ecs::detail::write_snapshot(w, v1, 1);
        std::string damaged = v1.str();
        // The 6th label's length prefix becomes huge: its deserializer sets failbit.
        const size_t at = damaged.find(std::string("\x02\0\0\0t5", 6));
        REQUIRE(at != std::string::npos);
        damaged[at + 3] = '\x7f';
        World target;
        std::stringstream in(damaged);
        const ecs::DeserializeResult r = ecs::deserialize(target, in);
        CHECK_FALSE(r);
        CHECK(target.count() == 0);
        CHECK(target.check_invariants());
    }
    CHECK(tally().clean());
}

TEST_CASE("runtime: prefabs hold runtime defaults and instantiate them", "[runtime]") {
    const Ids& id = ids();
    tally() = Tally{};
    {
        ecs::Prefab p = ecs::Prefab::create(RtPos{5, 6});
        const std::string text = "from the prefab";
        REQUIRE(p.add_raw(id.label, &text));
        const Health h = health(9, 90.f);
        REQUIRE(p.add_raw(id.health, &h));
        REQUIRE(p.add_raw(id.mark, nullptr));
        CHECK(p.component_count() == 4);
        CHECK(p.has_raw(id.label));
        CHECK(p.has<RtPos>());
        CHECK(p.get<RtPos>().x == 5.f);
        CHECK(label_of(p.get_raw(id.label)) == "from the prefab");

        // Replace a default in place (its value may come from the prefab itself).
        const std::string other = "replaced";
        REQUIRE(p.add_raw(id.label, &other));
        CHECK(p.component_count() == 4);
        REQUIRE(p.add_raw(id.label, p.get_raw(id.label)));
        CHECK(label_of(p.get_raw(id.label)) == "replaced");

        World w;
        std::vector<ComponentTypeID> added;
        w.on_add_raw(id.label, [&](World&, Entity, void* v) {
            added.push_back(id.label);
            CHECK(label_of(v) == "replaced");
        });
        const Entity e = ecs::instantiate(w, p);
        const Entity f = ecs::instantiate(w, p, RtVel{1, 1});
        for (Entity x : {e, f}) {
            CHECK(w.get<RtPos>(x).y == 6.f);
            CHECK(label_of(w.get_raw(x, id.label)) == "replaced");
            CHECK(read_health(w.get_raw(x, id.health)).hp == 9);
            CHECK(w.has_raw(x, id.mark));
        }
        CHECK(added.size() == 2);
        CHECK(w.has<RtVel>(f));

        ecs::Prefab copy = p; // copy-constructs the runtime defaults too
        CHECK(label_of(copy.get_raw(id.label)) == "replaced");
        ecs::Prefab moved = std::move(copy);
        CHECK(label_of(moved.get_raw(id.label)) == "replaced");
        CHECK(w.check_invariants());
        CHECK(tally().bad == 0);
    }
    CHECK(tally().clean());
}

TEST_CASE("runtime: raw hooks fire for runtime and typed components", "[runtime]") {
    const Ids& id = ids();
    World w;
    std::vector<std::string> log;
    w.on_add_raw(id.health, [&](World& world, Entity e, void* p) {
        CHECK(p == world.get_raw(e, id.health));
        log.push_back("add " + std::to_string(read_health(p).hp));
    });
    w.on_set_raw(id.health, [&](World&, Entity, void* p) { log.push_back("set " + std::to_string(read_health(p).hp)); });
    w.on_remove_raw(id.health, [&](World&, Entity, void* p) { log.push_back("remove " + std::to_string(read_health(p).hp)); });
    w.on_add_raw(ecs::component_id<RtPos>(), [&](World&, Entity, void* p) {
        log.push_back("add pos " + std::to_string(int(static_cast<RtPos*>(p)->x)));
    });
    const Entity e = w.create();
    const Health h1 = health(1, 0.f), h2 = health(2, 0.f);
    w.add_raw(e, id.health, &h1);
    w.add_raw(e, id.health, &h2);
    w.add(e, RtPos{3, 0});
    w.remove_raw(e, id.health);
    w.add_raw(e, id.health, &h1);
    w.destroy(e);
    const std::vector<std::string> expected{"add 1", "set 1", "set 2", "add pos 3", "remove 2", "add 1", "set 1", "remove 1"};
    CHECK(log == expected);
}

TEST_CASE("runtime: add_raw re-reads the row after hooks that create and destroy entities", "[runtime]") {
    const Ids& id = ids();
    tally() = Tally{};
    {
        World w;
        std::vector<Entity> others;
        for (int i = 0; i < 20; ++i) {
            const Entity o = w.create_with(RtKey{i});
            const std::string text = "o" + std::to_string(i);
            w.add_raw(o, id.label, &text);
            others.push_back(o);
        }
        // A hook that fills the archetype the entity lands in (growing its block) and destroys
        // another entity of it (swap-remove).
        size_t next = 0;
        w.on_add_raw(id.label, [&](World& world, Entity e, void*) {
            if (world.get<RtKey>(e).key < 1000) return; // only for the entity under test
            for (int i = 0; i < 40; ++i) {
                const Entity n = world.create_with(RtKey{100 + i});
                const std::string text = "n";
                world.add_raw(n, id.label, &text);
            }
            world.destroy(others[next++]);
        });
        const Entity e = w.create_with(RtKey{1000});
        const std::string text = "under test";
        void* p = w.add_raw(e, id.label, &text);
        REQUIRE(p != nullptr);
        CHECK(p == w.get_raw(e, id.label));
        CHECK(label_of(p) == "under test");
        for (size_t i = 1; i < others.size(); ++i) CHECK(label_of(w.get_raw(others[i], id.label)) == "o" + std::to_string(i));
        size_t visits = 0;
        const ComponentTypeID list[] = {id.label};
        w.each_raw(list, 1, [&](Entity, void* const*) { ++visits; });
        CHECK(visits == w.count());
        CHECK(w.check_invariants());
    }
    CHECK(tally().clean());
}

TEST_CASE("runtime: deferred and command-buffer add_raw / remove_raw", "[runtime]") {
    const Ids& id = ids();
    tally() = Tally{};
    {
        World w;
        const Entity e = w.create_with(RtPos{});
        const Entity f = w.create();
        {
            const std::string text = "deferred";
            w.deferred().add_raw(e, id.label, &text); // copied now
        }
        w.deferred().add_raw(f, id.health, nullptr);
        w.deferred().add_raw(f, id.mark, nullptr);
        CHECK_FALSE(w.has_raw(e, id.label));
        w.flush_deferred();
        CHECK(label_of(w.get_raw(e, id.label)) == "deferred");
        CHECK(read_health(w.get_raw(f, id.health)).hp == 0);
        CHECK(w.has_raw(f, id.mark));
        w.deferred().remove_raw(e, id.label);
        w.flush_deferred();
        CHECK_FALSE(w.has_raw(e, id.label));

        // Inside iteration: recorded, applied after.
        const ComponentTypeID pos[] = {ecs::component_id<RtPos>()};
        const std::string text = "from each_raw";
        w.each_raw(pos, 1, [&](Entity x, void* const*) { w.deferred().add_raw(x, id.label, &text); });
        w.flush_deferred();
        CHECK(label_of(w.get_raw(e, id.label)) == "from each_raw");

        ecs::CommandBuffer buffer;
        const std::string buffered = "buffered";
        buffer.add_raw(f, id.label, &buffered);
        buffer.remove_raw(f, id.health);
        buffer.flush(w);
        CHECK(label_of(w.get_raw(f, id.label)) == "buffered");
        CHECK_FALSE(w.has_raw(f, id.health));

        // Dropped unflushed: the copied payloads are destroyed, exactly once.
        ecs::CommandBuffer dropped;
        dropped.add_raw(f, id.label, &buffered);
        w.deferred().add_raw(e, id.label, &buffered);
        dropped.clear();
        w.destroy(e);
        w.flush_deferred(); // e is dead: the command does nothing, its payload is destroyed
        CHECK(tally().bad == 0);
    }
    CHECK(tally().clean());
}

TEST_CASE("runtime: clone copies runtime components through copy_construct", "[runtime]") {
    const Ids& id = ids();
    tally() = Tally{};
    {
        World w;
        const Entity e = w.create_with(RtPos{1, 1});
        const std::string text = "cloned";
        w.add_raw(e, id.label, &text);
        const Health h = health(4, 4.f);
        w.add_raw(e, id.health, &h);
        w.add_raw(e, id.mark, nullptr);
        const long copies = tally().copies;
        World c = w.clone();
        CHECK(tally().copies == copies + 1);
        CHECK(label_of(c.get_raw(e, id.label)) == "cloned");
        CHECK(c.get_raw(e, id.label) != w.get_raw(e, id.label));
        CHECK(read_health(c.get_raw(e, id.health)).hp == 4);
        CHECK(c.has_raw(e, id.mark));
        CHECK(c.check_invariants());
    }
    CHECK(tally().clean());
}

TEST_CASE("runtime: each_component, describe and JSON see runtime components", "[runtime]") {
    const Ids& id = ids();
    World w;
    const Entity e = w.create_with(RtPos{1, 2});
    const Health h = health(12, 34.5f);
    w.add_raw(e, id.health, &h);
    const std::string text = "json";
    w.add_raw(e, id.label, &text);

    std::vector<ComponentTypeID> seen;
    w.each_component(e, [&](ComponentTypeID t, void* p) {
        seen.push_back(t);
        CHECK(p == w.get_raw(e, t));
    });
    CHECK(seen.size() == 3);
    CHECK(std::find(seen.begin(), seen.end(), id.health) != seen.end());

    const std::string report = ecs::describe(w);
    CHECK(report.find("RtHealth") != std::string::npos);
    CHECK(report.find("RtLabel") != std::string::npos);

    const std::string json = ecs::to_json(w, e);
    CHECK(json.find("\"RtHealth\":{\"hp\":12,\"max\":34.5}") != std::string::npos);
    CHECK(json.find("\"RtLabel\":{\"text\":\"json\"}") != std::string::npos);
    REQUIRE(ecs::from_json(w, e, R"({"RtHealth":{"hp":99}})"));
    CHECK(read_health(w.get_raw(e, id.health)).hp == 99);
    CHECK(read_health(w.get_raw(e, id.health)).max == 34.5f);
}

TEST_CASE("runtime: each_raw visits the matching entities in typed each order", "[runtime]") {
    const Ids& id = ids();
    World w;
    for (int i = 0; i < 30; ++i) {
        const Entity e = w.create_with(RtPos{float(i), 0});
        if (i % 2) w.add(e, RtVel{1, 0});
        if (i % 3) {
            const Health h = health(i, 0.f);
            w.add_raw(e, id.health, &h);
        }
    }
    std::vector<Entity> typed;
    w.each<RtPos>([&](Entity e, RtPos&) { typed.push_back(e); });
    std::vector<Entity> raw;
    const ComponentTypeID pos[] = {ecs::component_id<RtPos>()};
    w.each_raw(pos, 1, [&](Entity e, void* const* c) {
        raw.push_back(e);
        CHECK(c[0] == w.get_raw(e, pos[0]));
    });
    CHECK(raw == typed);

    // Two ids (typed + runtime): components[i] follows ids[i].
    const ComponentTypeID two[] = {id.health, ecs::component_id<RtPos>()};
    size_t n = 0;
    w.each_raw(two, 2, [&](Entity e, void* const* c) {
        ++n;
        CHECK(read_health(c[0]).hp == int32_t(static_cast<RtPos*>(c[1])->x));
        static_cast<RtPos*>(c[1])->y = 7; // mutable
        CHECK(c[0] == w.get_raw(e, id.health));
    });
    CHECK(n == 20);
    CHECK(w.count<RtPos, RtVel>() == 15);
    // Three ids: the general loop.
    const ComponentTypeID three[] = {ecs::component_id<RtVel>(), id.health, ecs::component_id<RtPos>()};
    size_t m = 0;
    w.each_raw(three, 3, [&](Entity e, void* const* c) {
        ++m;
        CHECK(c[2] == static_cast<void*>(&w.get<RtPos>(e)));
        CHECK(c[0] == static_cast<void*>(&w.get<RtVel>(e)));
        CHECK(static_cast<RtPos*>(c[2])->y == 7.f);
    });
    CHECK(m == 10);
    // No id: every entity.
    size_t all = 0;
    w.each_raw(nullptr, 0, [&](Entity, void* const*) { ++all; });
    CHECK(all == w.count());
    // Structural changes inside are refused like in each: (deferred works, see above). The cache is
    // reused: a second run creates no new one.
    const size_t before = w.archetype_count();
    w.each_raw(two, 2, [&](Entity, void* const*) {});
    CHECK(w.archetype_count() == before);
    // Archetypes created after the first run are seen by the next.
    const Entity late = w.create();
    const Health h = health(5, 0.f);
    w.add_raw(late, id.health, &h);
    w.add(late, RtPos{5, 0});
    w.add_raw(late, id.mark, nullptr);
    size_t seen_late = 0;
    w.each_raw(two, 2, [&](Entity e, void* const*) { seen_late += e == late; });
    CHECK(seen_late == 1);
}

TEST_CASE("runtime: mutable raw access counts as a change for tracked types", "[runtime]") {
    (void)ids();
    World w;
    w.track_changes<RtPos>();
    const Entity a = w.create_with(RtPos{});
    const Entity b = w.create_with(RtPos{});
    auto q = w.query<const RtPos>(ecs::Changed<RtPos>{});
    size_t n = 0;
    q.each([&](const RtPos&) { ++n; });
    CHECK(n == 2); // both added
    n = 0;
    q.each([&](const RtPos&) { ++n; });
    CHECK(n == 0);
    (void)w.get_raw(a, ecs::component_id<RtPos>()); // mutable: a change
    const World& cw = w;
    (void)cw.get_raw(b, ecs::component_id<RtPos>()); // const: not a change
    std::vector<Entity> changed;
    q.each([&](Entity e, const RtPos&) { changed.push_back(e); });
    CHECK(changed == std::vector<Entity>{a});
    const RtPos value{3, 3};
    w.add_raw(b, ecs::component_id<RtPos>(), &value); // overwrite: a change
    changed.clear();
    q.each([&](Entity e, const RtPos&) { changed.push_back(e); });
    CHECK(changed == std::vector<Entity>{b});
    const ComponentTypeID pos[] = {ecs::component_id<RtPos>()};
    w.each_raw(pos, 1, [](Entity, void* const*) {}); // every visited row counts as changed
    n = 0;
    q.each([&](const RtPos&) { ++n; });
    CHECK(n == 2);
}

TEST_CASE("runtime: a runtime type that cannot copy still works where no copy is needed", "[runtime]") {
    const Ids& id = ids();
    World w;
    const Entity e = w.create_with(RtKey{1});
    void* p = w.add_raw(e, id.handle, nullptr); // default-constructed: a heap int
    REQUIRE(p != nullptr);
    **static_cast<int**>(p) = 77;
    for (int i = 0; i < 50; ++i) w.create_with(RtKey{i}); // other rows, growth
    w.add(e, RtPos{});                                     // migration through move_construct
    w.remove<RtKey>(e);
    CHECK(**static_cast<int**>(w.get_raw(e, id.handle)) == 77);
    w.sort<RtPos>([](const RtPos& a, const RtPos& b) { return a.x < b.x; });
    CHECK(**static_cast<int**>(w.get_raw(e, "RtHandle")) == 77);
    w.destroy(e); // destroy frees the heap int (LeakSanitizer would notice otherwise)
    CHECK(w.check_invariants());
}
