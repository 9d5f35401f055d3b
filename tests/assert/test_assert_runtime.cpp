// Assertion tests for runtime components and untyped access (runtime.hpp): every misuse fires once
// (recorded, see recording_assert.hpp), names the function, and leaves the world and the registry
// as they were.
#include "recording_assert.hpp" // first: defines ECS_ASSERT before any ecs header

#include "catch.hpp"

#include <ecs/command_buffer.hpp>
#include <ecs/prefab.hpp>
#include <ecs/runtime.hpp>
#include <ecs/serialization.hpp>
#include <ecs/world.hpp>

#include <cstring>
#include <istream>
#include <new>
#include <ostream>
#include <sstream>
#include <string>

namespace {

struct ArPos {
    float x, y;
};
struct ArOther {
    int v;
};

void pod_default(void* p) { std::memset(p, 0, 8); }
void pod_copy(void* dst, const void* src) { std::memcpy(dst, src, 8); }
void pod_write(std::ostream& out, const void* p) { out.write(static_cast<const char*>(p), 8); }
void pod_read(std::istream& in, void* p) { in.read(static_cast<char*>(p), 8); }

ecs::ComponentOps pod_ops(bool serializable) {
    ecs::ComponentOps ops;
    ops.size = 8;
    ops.align = 4;
    ops.default_construct = &pod_default;
    ops.copy_construct = &pod_copy;
    if (serializable) {
        ops.serialize = &pod_write;
        ops.deserialize = &pod_read;
    }
    return ops;
}

/// Move-only (no copy_construct) and not default-constructible.
void boxed_move(void* dst, void* src) {
    ::new (dst) int*(*static_cast<int**>(src));
    *static_cast<int**>(src) = nullptr;
}
void boxed_destroy(void* p) { delete *static_cast<int**>(p); }
void boxed_default(void* p) { ::new (p) int*(new int(1)); }

struct Ids {
    ecs::ComponentTypeID saved = ecs::INVALID_COMPONENT_ID;   ///< "ArSaved": plain, serializable
    ecs::ComponentTypeID unsaved = ecs::INVALID_COMPONENT_ID; ///< "ArUnsaved": plain, no serialize
    ecs::ComponentTypeID boxed = ecs::INVALID_COMPONENT_ID;   ///< "ArBoxed": move-only, no default
    ecs::ComponentTypeID unique = ecs::INVALID_COMPONENT_ID;  ///< "ArUnique": move-only, default
};

// Ids before any test runs: the 257-types test (another file) cannot starve these types.
const Ids ids = [] {
    ecs::register_component<ArPos>("ArPos");
    (void)ecs::ensure_column_factory<ArOther>();
    Ids r;
    r.saved = ecs::register_runtime_component("ArSaved", pod_ops(true));
    r.unsaved = ecs::register_runtime_component("ArUnsaved", pod_ops(false));
    ecs::ComponentOps boxed;
    boxed.size = sizeof(int*);
    boxed.align = alignof(int*);
    boxed.move_construct = &boxed_move;
    boxed.destroy = &boxed_destroy;
    r.boxed = ecs::register_runtime_component("ArBoxed", boxed);
    boxed.default_construct = &boxed_default;
    r.unique = ecs::register_runtime_component("ArUnique", boxed);
    return r;
}();

} // namespace

TEST_CASE("assert: register_runtime_component refuses bad names and unsound ops", "[assert][runtime]") {
    REQUIRE(ids.saved != ecs::INVALID_COMPONENT_ID);
    struct Case {
        const char* name;
        ecs::ComponentOps ops;
        const char* needle;
    };
    ecs::ComponentOps bad_align = pod_ops(false);
    bad_align.align = 3;
    ecs::ComponentOps zero_align = pod_ops(false);
    zero_align.align = 0;
    ecs::ComponentOps odd_size = pod_ops(false);
    odd_size.size = 6;
    ecs::ComponentOps plain_with_destroy = pod_ops(false);
    plain_with_destroy.destroy = &boxed_destroy;
    ecs::ComponentOps half_serial = pod_ops(false);
    half_serial.serialize = &pod_write;
    ecs::ComponentOps wide_tag;
    wide_tag.size = 0;
    wide_tag.align = 128;
    const std::string long_name(ecs::MAX_COMPONENT_NAME_LENGTH + 1, 'n');
    const Case cases[] = {
        {nullptr, pod_ops(false), "name must be a non-empty string"},
        {"", pod_ops(false), "name must be a non-empty string"},
        {long_name.c_str(), pod_ops(false), "MAX_COMPONENT_NAME_LENGTH"},
        {"ArBadAlign", bad_align, "align must be a power of two"},
        {"ArZeroAlign", zero_align, "align must be a power of two"},
        {"ArOddSize", odd_size, "size must be a multiple of align"},
        {"ArPlainDestroy", plain_with_destroy, "cannot have destroy"},
        {"ArHalfSerial", half_serial, "both serialize and deserialize"},
        {"ArWideTag", wide_tag, "tag (size 0)"},
        {"ArSaved", pod_ops(false), "already registered with other ops"},
        {"ArPos", pod_ops(false), "registered for a typed component"},
    };
    const uint32_t next = ecs::detail::next_component_id.load();
    for (const Case& c : cases) {
        ecs_assert_test::reset();
        CHECK(ecs::register_runtime_component(c.name, c.ops) == ecs::INVALID_COMPONENT_ID);
        INFO(c.needle << " / " << ecs_assert_test::last_message());
        CHECK(ecs_assert_test::fired_once_with(c.needle));
        CHECK(ecs_assert_test::fired_once_with("register_runtime_component"));
    }
    CHECK(ecs::detail::next_component_id.load() == next); // no id was taken by a refused call
    CHECK(ecs::find_component("ArBadAlign") == ecs::INVALID_COMPONENT_ID);
    CHECK(ecs::component_info(ids.saved).size == 8); // the registered one is untouched
    // A typed registration of a runtime name is refused by register_component.
    ecs_assert_test::reset();
    ecs::register_component<ArOther>("ArUnsaved");
    CHECK(ecs_assert_test::fired_once_with("name already registered for another type"));
    CHECK(ecs::find_component("ArUnsaved") == ids.unsaved);
}

TEST_CASE("assert: untyped access refuses unknown ids and names", "[assert][runtime]") {
    ecs::World w;
    const ecs::Entity e = w.create_with(ArPos{1, 2});
    const ecs::ComponentTypeID unknown = ECS_MAX_COMPONENTS + 5;
    // An id below the limit not handed out (yet) in this program; when the 257-types test ran first,
    // every id is handed out and `unknown` stands in for it.
    const ecs::ComponentTypeID never =
        ecs::detail::next_component_id.load() < ECS_MAX_COMPONENTS ? ECS_MAX_COMPONENTS - 1 : unknown;
    const ArPos value{3, 4};

    ecs_assert_test::reset();
    CHECK(w.add_raw(e, unknown, &value) == nullptr);
    CHECK(ecs_assert_test::fired_once_with("World::add_raw: unknown component id"));
    ecs_assert_test::reset();
    CHECK(w.add_raw(e, never, &value) == nullptr);
    CHECK(ecs_assert_test::fired_once_with("World::add_raw: unknown component id"));
    ecs_assert_test::reset();
    CHECK(w.get_raw(e, unknown) == nullptr);
    CHECK(ecs_assert_test::fired_once_with("World::get_raw: unknown component id"));
    ecs_assert_test::reset();
    CHECK_FALSE(w.has_raw(e, never));
    CHECK(ecs_assert_test::fired_once_with("World::has_raw: unknown component id"));
    ecs_assert_test::reset();
    w.remove_raw(e, unknown);
    CHECK(ecs_assert_test::fired_once_with("World::remove_raw: unknown component id"));
    ecs_assert_test::reset();
    CHECK(w.get_raw(e, "NoSuchComponent") == nullptr);
    CHECK(ecs_assert_test::fired_once_with("World::get_raw: no component type is named \"NoSuchComponent\""));
    ecs_assert_test::reset();
    CHECK_FALSE(w.has_raw(e, "NoSuchComponent"));
    CHECK(ecs_assert_test::fired_once_with("World::has_raw: no component type is named"));
    ecs_assert_test::reset();
    CHECK(w.get_raw(e, static_cast<const char*>(nullptr)) == nullptr);
    CHECK(ecs_assert_test::fired_once_with("null pointer"));
    ecs_assert_test::reset();
    CHECK_FALSE(w.on_add_raw(unknown, [](ecs::World&, ecs::Entity, void*) {}).valid());
    CHECK(ecs_assert_test::fired_once_with("World::on_add_raw: unknown component id"));
    ecs_assert_test::reset();
    CHECK_FALSE(w.on_set_raw(never, [](ecs::World&, ecs::Entity, void*) {}).valid());
    CHECK_FALSE(w.on_remove_raw(never, [](ecs::World&, ecs::Entity, void*) {}).valid());
    CHECK(ecs_assert_test::fired() == 2);
    CHECK(w.get<ArPos>(e).x == 1.f);
    CHECK(w.archetype_count() == 2);
    CHECK(w.check_invariants());
}

TEST_CASE("assert: each_raw refuses duplicate, unknown and null ids", "[assert][runtime]") {
    ecs::World w;
    w.create_with(ArPos{1, 2});
    size_t visits = 0;
    const ecs::ComponentTypeID pos = ecs::component_id<ArPos>();
    const ecs::ComponentTypeID twice[] = {pos, pos};
    ecs_assert_test::reset();
    w.each_raw(twice, 2, [&](ecs::Entity, void* const*) { ++visits; });
    CHECK(ecs_assert_test::fired_once_with("World::each_raw: a component id is listed twice"));
    const ecs::ComponentTypeID bad[] = {pos, ECS_MAX_COMPONENTS + 1};
    ecs_assert_test::reset();
    w.each_raw(bad, 2, [&](ecs::Entity, void* const*) { ++visits; });
    CHECK(ecs_assert_test::fired_once_with("World::each_raw: unknown component id"));
    ecs_assert_test::reset();
    w.each_raw(nullptr, 1, [&](ecs::Entity, void* const*) { ++visits; });
    CHECK(ecs_assert_test::fired_once_with("World::each_raw: ids is a null pointer"));
    CHECK(visits == 0);
}

TEST_CASE("assert: add_raw refuses what the type cannot do, and migrations during iteration", "[assert][runtime]") {
    ecs::World w;
    const ecs::Entity e = w.create_with(ArPos{1, 2});
    const size_t archetypes = w.archetype_count();
    int* heap = nullptr;
    ecs_assert_test::reset();
    CHECK(w.add_raw(e, ids.boxed, &heap) == nullptr);
    CHECK(ecs_assert_test::fired_once_with("World::add_raw: the component type cannot be copied"));
    ecs_assert_test::reset();
    CHECK(w.add_raw(e, ids.boxed, nullptr) == nullptr);
    CHECK(ecs_assert_test::fired_once_with("World::add_raw: the component type is not default-constructible"));
    CHECK(w.archetype_count() == archetypes);
    CHECK_FALSE(w.has_raw(e, ids.boxed));

    // A migration inside iteration is refused; an overwrite is allowed.
    const char bytes[8] = {1, 0, 0, 0, 2, 0, 0, 0};
    const ecs::ComponentTypeID pos[] = {ecs::component_id<ArPos>()};
    ecs_assert_test::reset();
    w.each_raw(pos, 1, [&](ecs::Entity x, void* const*) {
        CHECK(w.add_raw(x, ids.saved, bytes) == nullptr);
        const ArPos moved{5, 6};
        CHECK(w.add_raw(x, pos[0], &moved) != nullptr);
        w.remove_raw(x, pos[0]);
    });
    CHECK(ecs_assert_test::fired() == 2);
    CHECK(ecs_assert_test::failures()[0].message.find("World::add: structural change during iteration") != std::string::npos);
    CHECK(w.get<ArPos>(e).x == 5.f);
    CHECK_FALSE(w.has_raw(e, ids.saved));
    CHECK(w.check_invariants());
}

TEST_CASE("assert: deferred add_raw and Prefab::add_raw refuse what cannot be copied", "[assert][runtime]") {
    ecs::World w;
    const ecs::Entity e = w.create();
    int* heap = nullptr;
    ecs_assert_test::reset();
    w.deferred().add_raw(e, ids.boxed, &heap);
    CHECK(ecs_assert_test::fired_once_with("add_raw: component type ArBoxed cannot be copied"));
    ecs_assert_test::reset();
    w.deferred().add_raw(e, ids.boxed, nullptr);
    CHECK(ecs_assert_test::fired_once_with("is not default-constructible"));
    ecs_assert_test::reset();
    w.deferred().remove_raw(e, ECS_MAX_COMPONENTS + 2);
    CHECK(ecs_assert_test::fired_once_with("World::deferred().remove_raw: unknown component id"));
    ecs::CommandBuffer buffer;
    ecs_assert_test::reset();
    buffer.add_raw(e, ECS_MAX_COMPONENTS + 2, nullptr);
    CHECK(ecs_assert_test::fired_once_with("CommandBuffer::add_raw: unknown component id"));
    CHECK(w.deferred_count() == 0);
    CHECK(buffer.empty());

    ecs::Prefab p = ecs::Prefab::create(ArPos{1, 1});
    ecs_assert_test::reset();
    CHECK_FALSE(p.add_raw(ids.boxed, &heap));
    CHECK(ecs_assert_test::fired_once_with("Prefab::add_raw: the component type cannot be copied"));
    CHECK(ecs_assert_test::last_message().find(std::string(ecs::component_info(ids.boxed).name)) != std::string::npos);
    ecs_assert_test::reset();
    CHECK_FALSE(p.add_raw(ECS_MAX_COMPONENTS + 3, nullptr));
    CHECK(ecs_assert_test::fired_once_with("Prefab::add_raw: unknown component id"));
    CHECK(p.component_count() == 1);
}

TEST_CASE("assert: serialize refuses a runtime type without serialize functions; clone one that cannot copy",
          "[assert][runtime]") {
    ecs::World w;
    const ecs::Entity e = w.create_with(ArPos{1, 2});
    const char bytes[8] = {};
    REQUIRE(w.add_raw(e, ids.saved, bytes) != nullptr);
    {
        std::stringstream ok;
        ecs_assert_test::reset();
        ecs::serialize(w, ok);
        CHECK(ecs_assert_test::fired() == 0);
        CHECK(ok.good());
    }
    REQUIRE(w.add_raw(e, ids.unsaved, bytes) != nullptr);
    std::stringstream out;
    ecs_assert_test::reset();
    ecs::serialize(w, out);
    CHECK(ecs_assert_test::fired_once_with("serialize: the world holds a component type that was never registered"));
    CHECK(out.fail());
    CHECK(out.str().empty());

    ecs_assert_test::reset();
    ecs::World copy = w.clone();
    CHECK(ecs_assert_test::fired() == 0);
    CHECK(copy.has_raw(e, ids.unsaved));

    // A runtime type without copy_construct: clone is refused, naming it.
    REQUIRE(w.add_raw(e, ids.unique, nullptr) != nullptr);
    ecs_assert_test::reset();
    ecs::World refused = w.clone();
    CHECK(ecs_assert_test::fired_once_with("World::clone: component type ArUnique is not copy-constructible"));
    CHECK(refused.count() == 0);
    CHECK(w.check_invariants());
}
