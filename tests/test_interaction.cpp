// Feature interaction: every storage kind (table, over-aligned table, sparse, over-aligned sparse,
// table tag, sparse tag, runtime component) reached every way the library offers: typed and untyped
// calls, queries (each<T> and each_raw), hooks (typed, raw) and query observers, deferred and
// CommandBuffer commands (typed and raw), prefabs (typed and Prefab::add_raw), snapshots, clone,
// JSON, enable bits, change tracking and relationships. Each cell checks that the typed and the
// untyped views agree, and that the counted objects balance (every constructed object destroyed
// exactly once, none destroyed twice, none read dead).
//
// A cell that does not apply to a kind (no typed API for a runtime component, no enable bit or
// change tracking by id) says so in `applies`; the table itself is the list of kinds below.
#include <ecs/command_buffer.hpp>
#include <ecs/ecs.hpp>
#include <ecs/json.hpp>
#include <ecs/runtime.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <istream>
#include <memory>
#include <new>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "lifetime.hpp"

using ecs::ComponentTypeID;
using ecs::Entity;
using ecs::World;

namespace {

struct TableTag {};
struct WideTag {};
struct SparseTag_ {};
struct SparseWideTag {};
struct RuntimeTag_ {};

/// Holds a short string (kept in the object: memcpy relocation would break it) and a counted object.
template <typename Tag>
struct Payload {
    std::string text;
    lifetime::Counted<Tag> counted;
    Payload() = default;
    explicit Payload(int v) : text(std::to_string(v)), counted(v) {}
};

struct IxTable : Payload<TableTag> {
    using Payload::Payload;
};
struct alignas(64) IxWide : Payload<WideTag> {
    using Payload::Payload;
};
struct IxSparse : Payload<SparseTag_> {
    using Payload::Payload;
};
struct alignas(64) IxSparseWide : Payload<SparseWideTag> {
    using Payload::Payload;
};
struct IxTag {};
struct IxSparseTag {};
struct IxOther { // a plain table component next to the kind under test
    int v = 0;
};
struct IxLikes {}; // a relationship
struct IxMark {};  // a table tag on some entities

} // namespace

template <>
struct ecs::component_traits<IxSparse> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};
template <>
struct ecs::component_traits<IxSparseWide> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};
template <>
struct ecs::component_traits<IxSparseTag> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};

ECS_REFLECT(IxTable, text)
ECS_REFLECT(IxWide, text)
ECS_REFLECT(IxSparse, text)
ECS_REFLECT(IxSparseWide, text)

namespace {

// ---- the runtime kind: a counted short string behind ComponentOps -------------------------------------

using RuntimeCounted = lifetime::Counted<RuntimeTag_>;
struct RuntimeValue { // the layout the runtime ops describe (the library never sees this type)
    std::string text;
    RuntimeCounted counted;
};

// Snapshots hold the int each value was made from, as 4 bytes.
template <typename T>
void write_text(std::ostream& out, const void* p) {
    const int32_t v = static_cast<const T*>(p)->counted.value();
    out.write(reinterpret_cast<const char*>(&v), sizeof v);
}
template <typename T>
void read_text(std::istream& in, void* p) {
    int32_t v = 0;
    if (in.read(reinterpret_cast<char*>(&v), sizeof v)) ::new (p) T(v);
}
void runtime_read(std::istream& in, void* p) {
    int32_t v = 0;
    if (in.read(reinterpret_cast<char*>(&v), sizeof v)) ::new (p) RuntimeValue{std::to_string(v), RuntimeCounted(v)};
}

const ecs::FieldInfo runtime_fields[] = {ecs::detail::describe<std::string>("text", offsetof(RuntimeValue, text))};

ComponentTypeID runtime_id() {
    static const ComponentTypeID id = [] {
        ecs::ComponentOps ops;
        ops.size = sizeof(RuntimeValue);
        ops.align = alignof(RuntimeValue);
        ops.default_construct = [](void* p) { ::new (p) RuntimeValue(); };
        ops.copy_construct = [](void* d, const void* s) { ::new (d) RuntimeValue(*static_cast<const RuntimeValue*>(s)); };
        ops.move_construct = [](void* d, void* s) { ::new (d) RuntimeValue(std::move(*static_cast<RuntimeValue*>(s))); };
        ops.destroy = [](void* p) { static_cast<RuntimeValue*>(p)->~RuntimeValue(); };
        ops.serialize = &write_text<RuntimeValue>;
        ops.deserialize = &runtime_read;
        return ecs::register_runtime_component("ix.Runtime", ops, ecs::FieldView{runtime_fields, 1});
    }();
    return id;
}

void register_all() {
    static const bool done = [] {
        ecs::register_component<IxTable>("ix.Table", &write_text<IxTable>, &read_text<IxTable>);
        ecs::register_component<IxWide>("ix.Wide", &write_text<IxWide>, &read_text<IxWide>);
        ecs::register_component<IxSparse>("ix.Sparse", &write_text<IxSparse>, &read_text<IxSparse>);
        ecs::register_component<IxSparseWide>("ix.SparseWide", &write_text<IxSparseWide>, &read_text<IxSparseWide>);
        ecs::register_component<IxTag>("ix.Tag");
        ecs::register_component<IxSparseTag>("ix.SparseTag");
        ecs::register_component<IxOther>("ix.Other");
        ecs::register_relation<IxLikes>("ix.Likes");
        (void)runtime_id();
        return true;
    }();
    (void)done;
}

// ---- the table of kinds ----------------------------------------------------------------------------

/// One storage kind, type-erased: what every cell needs to drive and read it.
struct Kind {
    const char* name;
    ComponentTypeID (*id)();
    bool typed;  ///< a C++ type: typed calls, enable bits and change tracking apply
    bool tag;    ///< no value
    bool sparse; ///< expected storage
    size_t align;
    const char* json_name; ///< reflected: the key in to_json(world, e); nullptr otherwise
    /// Adds through the typed call (the untyped one for the runtime kind).
    void (*add_typed)(World&, Entity, int);
    void (*remove_typed)(World&, Entity);
    bool (*has_typed)(const World&, Entity);
    const void* (*try_get_typed)(const World&, Entity);
    size_t (*count_typed)(World&); ///< entities each<T> visits
    /// Constructs a value made from `v` at `storage` (destroy_value ends it); nothing for a tag.
    void (*make_value)(void* storage, int v);
    void (*destroy_value)(void* value);
    int (*read)(const void* value); ///< the int a value was made from; 0 for a tag
    bool (*clean)();                ///< counted objects balance
    long (*alive)();
    void (*disable)(World&, Entity);
    void (*track)(World&);
    /// A Changed<T> query handle: each call counts what changed since the previous call.
    std::function<size_t()> (*changed_counter)(World&);
    void (*deferred_add)(World&, Entity, int);
    void (*buffer_add)(ecs::CommandBuffer&, Entity, int);
    ecs::Prefab (*prefab)(int);
    void (*on_add_typed)(World&, long*);
    void (*on_enter)(World&, long*);
};

template <typename T>
int read_value(const void* p) {
    if constexpr (std::is_empty_v<T>) {
        (void)p;
        return 0;
    } else {
        return static_cast<const T*>(p)->counted.value();
    }
}

template <typename T>
T make(int v) {
    if constexpr (std::is_empty_v<T>) {
        (void)v;
        return T{};
    } else {
        return T(v);
    }
}

template <typename T>
bool counted_clean() {
    if constexpr (std::is_empty_v<T>) return true;
    else return decltype(T::counted)::tally().clean();
}
template <typename T>
long counted_alive() {
    if constexpr (std::is_empty_v<T>) return 0;
    else return decltype(T::counted)::tally().alive();
}

template <typename T>
Kind typed_kind(const char* name, const char* json) {
    Kind k{};
    k.name = name;
    k.id = [] { return ecs::component_id<T>(); };
    k.typed = true;
    k.tag = std::is_empty_v<T>;
    k.sparse = ecs::detail::is_sparse_v<T>;
    k.align = alignof(T);
    k.json_name = json;
    k.add_typed = [](World& w, Entity e, int v) { w.add(e, make<T>(v)); };
    k.remove_typed = [](World& w, Entity e) { w.remove<T>(e); };
    k.has_typed = [](const World& w, Entity e) { return w.has<T>(e); };
    k.try_get_typed = [](const World& w, Entity e) -> const void* { return w.try_get<T>(e); };
    k.count_typed = [](World& w) {
        size_t n = 0;
        w.each<const T>([&](Entity, const T&) { ++n; });
        return n;
    };
    k.make_value = [](void* storage, int v) { ::new (storage) T(make<T>(v)); };
    k.destroy_value = [](void* p) { static_cast<T*>(p)->~T(); };
    k.read = &read_value<T>;
    k.clean = &counted_clean<T>;
    k.alive = &counted_alive<T>;
    k.disable = [](World& w, Entity e) { w.disable<T>(e); };
    k.track = [](World& w) { w.track_changes<T>(); };
    k.changed_counter = [](World& w) -> std::function<size_t()> {
        auto q = std::make_shared<ecs::Query<const T>>(w.query<const T>(ecs::Changed<T>{}));
        return [q] {
            size_t n = 0;
            q->each([&](Entity, const T&) { ++n; });
            return n;
        };
    };
    k.deferred_add = [](World& w, Entity e, int v) { w.deferred().add(e, make<T>(v)); };
    k.buffer_add = [](ecs::CommandBuffer& cb, Entity e, int v) { cb.add(e, make<T>(v)); };
    k.prefab = [](int v) { return ecs::Prefab::create(make<T>(v), IxOther{v}); };
    k.on_add_typed = [](World& w, long* n) { w.on_add<T>([n](World&, Entity, T&) { ++*n; }); };
    k.on_enter = [](World& w, long* n) { w.on_enter<T>([n](World&, Entity) { ++*n; }); };
    return k;
}

Kind runtime_kind() {
    Kind k{};
    k.name = "runtime";
    k.id = &runtime_id;
    k.typed = false;
    k.tag = false;
    k.sparse = false; // register_runtime_component has no storage choice: always a table column
    k.align = alignof(RuntimeValue);
    k.json_name = "ix.Runtime";
    k.make_value = [](void* storage, int v) { ::new (storage) RuntimeValue{std::to_string(v), RuntimeCounted(v)}; };
    k.destroy_value = [](void* p) { static_cast<RuntimeValue*>(p)->~RuntimeValue(); };
    k.read = [](const void* p) { return static_cast<const RuntimeValue*>(p)->counted.value(); };
    k.add_typed = [](World& w, Entity e, int v) {
        RuntimeValue x{std::to_string(v), RuntimeCounted(v)};
        (void)w.add_raw(e, runtime_id(), &x);
    };
    k.remove_typed = [](World& w, Entity e) { w.remove_raw(e, runtime_id()); };
    k.has_typed = [](const World& w, Entity e) { return w.has_raw(e, runtime_id()); };
    k.try_get_typed = [](const World& w, Entity e) { return w.get_raw(e, runtime_id()); };
    k.count_typed = [](World& w) {
        size_t n = 0;
        const ComponentTypeID id = runtime_id();
        w.each_raw(&id, 1, [&](Entity, void* const*) { ++n; });
        return n;
    };
    k.clean = [] { return RuntimeCounted::tally().clean(); };
    k.alive = [] { return RuntimeCounted::tally().alive(); };
    k.deferred_add = [](World& w, Entity e, int v) {
        RuntimeValue x{std::to_string(v), RuntimeCounted(v)};
        w.deferred().add_raw(e, runtime_id(), &x);
    };
    k.buffer_add = [](ecs::CommandBuffer& cb, Entity e, int v) {
        RuntimeValue x{std::to_string(v), RuntimeCounted(v)};
        cb.add_raw(e, runtime_id(), &x);
    };
    k.prefab = [](int v) {
        ecs::Prefab p = ecs::Prefab::create(IxOther{v});
        RuntimeValue x{std::to_string(v), RuntimeCounted(v)};
        p.add_raw(runtime_id(), &x);
        return p;
    };
    return k;
}

const std::vector<Kind>& kinds() {
    register_all();
    static const std::vector<Kind> all = {
        typed_kind<IxTable>("table", "ix.Table"),
        typed_kind<IxWide>("table alignas(64)", "ix.Wide"),
        typed_kind<IxSparse>("sparse", "ix.Sparse"),
        typed_kind<IxSparseWide>("sparse alignas(64)", "ix.SparseWide"),
        typed_kind<IxTag>("table tag", nullptr),
        typed_kind<IxSparseTag>("sparse tag", nullptr),
        runtime_kind(),
    };
    return all;
}

/// A value of kind `k` made from `v`, outside any world (the source of add_raw and Prefab::add_raw).
struct Value {
    const Kind& k;
    alignas(64) unsigned char bytes[128];
    Value(const Kind& kind, int v) : k(kind) { k.make_value(bytes, v); }
    ~Value() { k.destroy_value(bytes); }
    Value(const Value&) = delete;
    Value& operator=(const Value&) = delete;
    const void* get() const { return bytes; }
};

/// The typed and untyped views of `e`'s component of kind `k` agree, and hold `expected` when present.
void check_views(const World& w, Entity e, const Kind& k, bool present, int expected) {
    INFO("kind " << k.name);
    const ComponentTypeID id = k.id();
    CHECK(k.has_typed(w, e) == present);
    CHECK(w.has_raw(e, id) == present);
    CHECK(w.has_raw(e, ecs::component_info(id).name) == present);
    const void* typed = k.try_get_typed(w, e);
    const void* untyped = w.get_raw(e, id);
    CHECK(typed == untyped);
    CHECK((untyped != nullptr) == present);
    if (present && untyped != nullptr) {
        CHECK(reinterpret_cast<uintptr_t>(untyped) % k.align == 0);
        if (!k.tag) CHECK(k.read(untyped) == expected);
    }
}

/// The entities each_raw over {k, IxOther} visits (and checks the values it hands out).
size_t count_raw_with_other(World& w, const Kind& k) {
    const ComponentTypeID ids[2] = {k.id(), ecs::component_id<IxOther>()};
    size_t n = 0;
    w.each_raw(ids, 2, [&](Entity e, void* const* c) {
        ++n;
        CHECK(c[0] == std::as_const(w).get_raw(e, ids[0]));
        CHECK(static_cast<const IxOther*>(c[1])->v == w.get<IxOther>(e).v);
    });
    return n;
}

size_t count_raw(World& w, const Kind& k) {
    const ComponentTypeID id = k.id();
    size_t n = 0;
    w.each_raw(&id, 1, [&](Entity, void* const*) { ++n; });
    return n;
}

/// Runs one cell for every kind, each in its own world; checks the counted objects balance after.
template <typename Cell>
void for_every_kind(Cell&& cell) {
    for (const Kind& k : kinds()) {
        INFO("kind " << k.name);
        {
            World w;
            cell(w, k);
            CHECK(w.check_invariants());
        }
        CHECK(k.clean());
    }
}

} // namespace

TEST_CASE("interaction: typed and untyped add, get, has, remove agree for every storage kind", "[interaction]") {
    for_every_kind([](World& w, const Kind& k) {
        const size_t archetypes = w.archetype_count();
        const Entity a = w.create();
        const Entity b = w.create();
        k.add_typed(w, a, 1);
        check_views(w, a, k, true, 1);
        {
            Value v(k, 2);
            void* at = w.add_raw(b, k.id(), k.tag ? nullptr : v.get());
            REQUIRE(at != nullptr);
            CHECK(at == std::as_const(w).get_raw(b, k.id()));
        }
        check_views(w, b, k, true, 2);
        if (k.sparse) CHECK(w.archetype_count() == archetypes); // no archetype holds a sparse type
        {
            Value v(k, 3); // an overwrite through the untyped call
            (void)w.add_raw(a, k.id(), k.tag ? nullptr : v.get());
        }
        check_views(w, a, k, true, 3);
        (void)w.add_raw(a, k.id(), std::as_const(w).get_raw(a, k.id())); // the value onto itself
        check_views(w, a, k, true, 3);
        w.remove_raw(a, k.id());
        check_views(w, a, k, false, 0);
        k.remove_typed(w, b);
        check_views(w, b, k, false, 0);
        if (!k.tag) { // value-initialised by add_raw(e, id, nullptr)
            REQUIRE(w.add_raw(a, k.id(), nullptr) != nullptr);
            check_views(w, a, k, true, 0);
        }
        w.destroy(a);
        check_views(w, a, k, false, 0);
    });
}

TEST_CASE("interaction: each<T> and each_raw visit the same entities for every storage kind", "[interaction]") {
    for_every_kind([](World& w, const Kind& k) {
        std::vector<Entity> with_other;
        for (int i = 0; i < 40; ++i) {
            const Entity e = w.create();
            if (i % 2 == 0) k.add_typed(w, e, i);
            if (i % 3 == 0) w.add(e, IxOther{i});
            if (i % 5 == 0) w.add<IxMark>(e); // more archetypes
        }
        CHECK(k.count_typed(w) == 20);
        CHECK(count_raw(w, k) == 20);
        CHECK(count_raw_with_other(w, k) == 7); // multiples of 6 below 40
        if (k.typed) {
            size_t n = 0;
            w.each<const IxOther>([&](Entity e, const IxOther&) { n += k.has_typed(w, e) ? 1u : 0u; });
            CHECK(n == 7);
        }
        // Removed through the other view: both queries follow.
        size_t removed = 0;
        w.each<const IxOther>([&](Entity e, const IxOther&) {
            if (k.has_typed(w, e)) w.deferred().remove_raw(e, k.id()), ++removed;
        });
        w.flush_deferred();
        CHECK(removed == 7);
        CHECK(count_raw_with_other(w, k) == 0);
        CHECK(k.count_typed(w) == 13);
        CHECK(count_raw(w, k) == 13);
    });
}

TEST_CASE("interaction: hooks and query observers fire alike for typed and untyped changes", "[interaction]") {
    for_every_kind([](World& w, const Kind& k) {
        long raw_added = 0, raw_removed = 0, raw_set = 0, typed_added = 0, entered = 0;
        const ComponentTypeID id = k.id();
        w.on_add_raw(id, [&](World& world, Entity e, void* p) {
            ++raw_added;
            CHECK(p == std::as_const(world).get_raw(e, id)); // the hook sees the value in place
        });
        w.on_remove_raw(id, [&](World& world, Entity e, void* p) {
            ++raw_removed;
            CHECK(world.has_raw(e, id)); // still there while on_remove runs
            CHECK(p == std::as_const(world).get_raw(e, id));
        });
        w.on_set_raw(id, [&](World&, Entity, void*) { ++raw_set; });
        if (k.on_add_typed) k.on_add_typed(w, &typed_added);
        if (k.on_enter) k.on_enter(w, &entered);
        const Entity a = w.create();
        const Entity b = w.create();
        k.add_typed(w, a, 1);
        {
            Value v(k, 2);
            (void)w.add_raw(b, id, k.tag ? nullptr : v.get());
        }
        CHECK(raw_added == 2);
        CHECK(raw_set == 2);
        if (k.typed) {
            CHECK(typed_added == 2);
            CHECK(entered == 2);
        }
        {
            Value v(k, 3);
            (void)w.add_raw(b, id, k.tag ? nullptr : v.get()); // an overwrite: on_set only
        }
        CHECK(raw_added == 2);
        CHECK(raw_set == 3);
        k.remove_typed(w, a);
        w.remove_raw(b, id);
        CHECK(raw_removed == 2);
        const Entity c = w.create();
        k.add_typed(w, c, 4);
        w.destroy(c); // on_remove on destruction, for sparse values too
        CHECK(raw_removed == 3);
    });
}

TEST_CASE("interaction: deferred and CommandBuffer commands, typed and raw, land where the direct calls do",
          "[interaction]") {
    for_every_kind([](World& w, const Kind& k) {
        const Entity a = w.create();
        const Entity b = w.create();
        const Entity c = w.create();
        k.deferred_add(w, a, 1);
        {
            Value v(k, 2);
            w.deferred().add_raw(b, k.id(), k.tag ? nullptr : v.get());
        }
        ecs::CommandBuffer cb;
        k.buffer_add(cb, c, 3);
        check_views(w, a, k, false, 0);
        w.flush_deferred();
        cb.flush(w);
        check_views(w, a, k, true, 1);
        check_views(w, b, k, true, 2);
        check_views(w, c, k, true, 3);
        CHECK(count_raw(w, k) == 3);
        cb.remove_raw(a, k.id());
        w.deferred().remove_raw(b, k.id());
        w.flush_deferred();
        cb.flush(w);
        check_views(w, a, k, false, 0);
        check_views(w, b, k, false, 0);
        CHECK(count_raw(w, k) == 1);
        CHECK(k.count_typed(w) == 1);
        ecs::CommandBuffer unflushed; // dropped with its payload: destroyed once
        k.buffer_add(unflushed, c, 9);
    });
}

TEST_CASE("interaction: prefabs built typed or with Prefab::add_raw give entities both views agree on", "[interaction]") {
    for_every_kind([](World& w, const Kind& k) {
        const ecs::Prefab typed = k.prefab(5);
        ecs::Prefab raw = ecs::Prefab::create(IxOther{6});
        {
            Value v(k, 6);
            REQUIRE(raw.add_raw(k.id(), k.tag ? nullptr : v.get()));
        }
        CHECK(raw.has_raw(k.id()));
        const Entity a = ecs::instantiate(w, typed);
        const Entity b = ecs::instantiate(w, raw);
        check_views(w, a, k, true, 5);
        check_views(w, b, k, true, 6);
        CHECK(count_raw_with_other(w, k) == 2);
        CHECK(k.count_typed(w) == 2);
        if (k.sparse) {
            // The sparse default is not in the entity's archetype: removing it moves nothing.
            const size_t archetypes = w.archetype_count();
            w.remove_raw(b, k.id());
            CHECK(w.archetype_count() == archetypes);
            check_views(w, b, k, false, 0);
        }
    });
}

TEST_CASE("interaction: snapshots, clone and JSON carry every storage kind", "[interaction]") {
    for_every_kind([](World& w, const Kind& k) {
        std::vector<Entity> es;
        for (int i = 0; i < 6; ++i) {
            const Entity e = w.create_with(IxOther{i});
            if (i % 2 == 1) {
                Value v(k, 10 + i);
                (void)w.add_raw(e, k.id(), k.tag ? nullptr : v.get());
            }
            es.push_back(e);
        }
        std::ostringstream out;
        ecs::serialize(w, out);
        REQUIRE(out.good());
        {
            World loaded;
            std::istringstream in(out.str());
            const ecs::DeserializeResult r = ecs::deserialize(loaded, in);
            INFO(r.message);
            REQUIRE(r);
            for (int i = 0; i < 6; ++i) check_views(loaded, es[size_t(i)], k, i % 2 == 1, 10 + i);
            CHECK(count_raw(loaded, k) == 3);
            CHECK(k.count_typed(loaded) == 3);
        }
        {
            World copy = w.clone();
            for (int i = 0; i < 6; ++i) check_views(copy, es[size_t(i)], k, i % 2 == 1, 10 + i);
            CHECK(count_raw_with_other(copy, k) == 3);
        }
        if (k.json_name != nullptr) {
            const std::string text = ecs::to_json(w, es[1]);
            CHECK(text.find(std::string("\"") + k.json_name + "\":{\"text\":\"11\"}") != std::string::npos);
            const std::string patch = std::string("{\"") + k.json_name + "\":{\"text\":\"x\"}}";
            REQUIRE(ecs::from_json(w, es[1], patch));
            const void* p = std::as_const(w).get_raw(es[1], k.id());
            REQUIRE(p != nullptr);
            CHECK(*static_cast<const std::string*>(p) == "x"); // every payload starts with its text
            CHECK(ecs::to_json(w, es[0]).find(k.json_name) == std::string::npos);
        }
    });
}

TEST_CASE("interaction: enable bits hide a component from each_raw as from each", "[interaction]") {
    for_every_kind([](World& w, const Kind& k) {
        if (!k.typed) return; // enable bits are set through disable<T>: no call takes an id
        const Entity a = w.create_with(IxOther{1});
        const Entity b = w.create_with(IxOther{2});
        k.add_typed(w, a, 1);
        k.add_typed(w, b, 2);
        k.disable(w, a);
        check_views(w, a, k, true, 1); // still held: has and get see it
        CHECK(k.count_typed(w) == 1);
        CHECK(count_raw(w, k) == 1);
        CHECK(count_raw_with_other(w, k) == 1);
        w.disable(b); // a disabled entity is skipped too
        CHECK(count_raw(w, k) == 0);
        CHECK(k.count_typed(w) == 0);
    });
}

TEST_CASE("interaction: a mutable untyped access is a change, as a mutable get", "[interaction]") {
    for_every_kind([](World& w, const Kind& k) {
        if (!k.typed || k.tag) return; // track_changes<T> takes a type
        k.track(w);
        const Entity a = w.create();
        const Entity b = w.create();
        k.add_typed(w, a, 1);
        k.add_typed(w, b, 2);
        const std::function<size_t()> changed = k.changed_counter(w);
        CHECK(changed() == 2); // both added since the handle began
        CHECK(changed() == 0);
        (void)w.get_raw(b, k.id()); // mutable
        CHECK(changed() == 1);
        (void)std::as_const(w).get_raw(a, k.id()); // const: not a change
        CHECK(changed() == 0);
        const ComponentTypeID id = k.id();
        w.each_raw(&id, 1, [](Entity, void* const*) {}); // every visited value is handed out mutable
        CHECK(changed() == 2);
        Value v(k, 9);
        (void)w.add_raw(a, id, v.get()); // an overwrite
        CHECK(changed() == 1);
    });
}

TEST_CASE("interaction: relationships leave every storage kind in place", "[interaction]") {
    for_every_kind([](World& w, const Kind& k) {
        const Entity target = w.create();
        const Entity a = w.create_with(IxOther{1});
        k.add_typed(w, a, 7);
        w.relate<IxLikes>(a, target); // a migration for the table kinds
        check_views(w, a, k, true, 7);
        CHECK(count_raw_with_other(w, k) == 1);
        w.destroy(target); // unrelates: another migration
        check_views(w, a, k, true, 7);
        CHECK(count_raw(w, k) == 1);
    });
}

// ---- the multi-type calls and the reproduction ---------------------------------------------

TEST_CASE("interaction: has<A, B, C> answers for sparse types and add(e, a, b, c) makes no archetype for them",
          "[interaction]") {
    register_all();
    {
        World w;
        std::vector<std::string> log;
        w.on_add<IxTable>([&](World&, Entity, IxTable&) { log.push_back("add Table"); });
        w.on_add<IxSparse>([&](World&, Entity, IxSparse&) { log.push_back("add Sparse"); });
        w.on_add<IxOther>([&](World&, Entity, IxOther&) { log.push_back("add Other"); });
        w.on_remove<IxTable>([&](World&, Entity, IxTable&) { log.push_back("remove Table"); });
        w.on_remove<IxSparse>([&](World&, Entity, IxSparse&) { log.push_back("remove Sparse"); });
        w.on_remove<IxOther>([&](World&, Entity, IxOther&) { log.push_back("remove Other"); });
        const Entity e = w.create();
        const size_t before = w.archetype_count();
        w.add(e, IxTable{1}, IxSparse{2}, IxOther{3});
        CHECK(w.archetype_count() - before == 1); // {IxTable, IxOther} only
        CHECK(w.has<IxTable>(e));
        CHECK(w.has<IxSparse>(e));
        CHECK((w.has<IxTable, IxSparse, IxOther>(e)));
        CHECK((w.has<IxSparse, IxSparseTag>(e)) == false);
        // The rule: the table values first (one migration, argument order), then the sparse ones.
        CHECK(log == std::vector<std::string>{"add Table", "add Other", "add Sparse"});
        log.clear();
        w.add(e, IxSparse{4}, IxOther{5}); // overwrites: no archetype, no on_add
        CHECK(w.get<IxSparse>(e).counted.value() == 4);
        CHECK(log.empty());
        w.remove<IxSparse, IxTable, IxOther>(e);
        CHECK(log == std::vector<std::string>{"remove Table", "remove Other", "remove Sparse"});
        CHECK_FALSE((w.has<IxTable>(e) || w.has<IxSparse>(e) || w.has<IxOther>(e)));
        CHECK(w.check_invariants());
    }
    CHECK(lifetime::Counted<TableTag>::tally().clean());
    CHECK(lifetime::Counted<SparseTag_>::tally().clean());
}

TEST_CASE("interaction: untyped access to a sparse component, as reported", "[interaction]") {
    register_all();
    {
        World w;
        const Entity e = w.create();
        w.add(e, IxSparse{2});
        CHECK(w.has<IxSparse>(e));
        CHECK(w.has_raw(e, ecs::component_id<IxSparse>()));
        CHECK(w.get_raw(e, ecs::component_id<IxSparse>()) == &w.get<IxSparse>(e));
        CHECK(w.get_raw(e, "ix.Sparse") == &w.get<IxSparse>(e));
        const Entity f = w.create();
        const IxSparse p{1};
        const size_t archetypes = w.archetype_count();
        REQUIRE(w.add_raw(f, ecs::component_id<IxSparse>(), &p) != nullptr);
        CHECK(w.has<IxSparse>(f));
        CHECK(w.archetype_count() == archetypes);
        CHECK(w.count<IxSparse>() == 2);
    }
    CHECK(lifetime::Counted<SparseTag_>::tally().clean());
}
