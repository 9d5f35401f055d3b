// Assertion tests for the preconditions of hierarchy_ops.hpp, prefab.hpp and serialization.hpp: each
// must fire (recorded, see recording_assert.hpp) and leave the world, the registry and the streams as
// they were.
#include "recording_assert.hpp" // first: defines ECS_ASSERT before any ecs header

#include "catch.hpp"

#include <ecs/builtin/hierarchy_ops.hpp>
#include <ecs/prefab.hpp>
#include <ecs/serialization.hpp>
#include <ecs/world.hpp>

#include <sstream>
#include <string>
#include <vector>

namespace {

struct XPos {
    float x;
};
struct XOther {
    int v;
};
struct XText {
    std::string s;
};
struct XUnregistered {
    int v;
};

// Ids before any test runs: the 257-types test (another file) cannot starve these types.
const bool types_registered = [] {
    (void)ecs::ensure_column_factory<XPos>();
    (void)ecs::ensure_column_factory<XOther>();
    (void)ecs::ensure_column_factory<XText>();
    (void)ecs::ensure_column_factory<XUnregistered>();
    (void)ecs::ensure_column_factory<ecs::Parent>();
    (void)ecs::ensure_column_factory<ecs::Children>();
    return true;
}();

/// Parent and Children of every entity in `es`, printed: the hierarchy state to compare.
std::string hierarchy_of(ecs::World& w, const std::vector<ecs::Entity>& es) {
    std::ostringstream out;
    out << "count=" << w.count() << " invariants=" << w.check_invariants() << "\n";
    for (ecs::Entity e : es) {
        out << e.index << ": alive=" << w.alive(e);
        if (const ecs::Parent* p = w.try_get<ecs::Parent>(e)) out << " parent=" << p->entity.index;
        if (const ecs::Children* c = w.try_get<ecs::Children>(e)) {
            out << " children=";
            for (ecs::Entity child : c->entities) out << child.index << ",";
        }
        out << "\n";
    }
    return out.str();
}

} // namespace

TEST_CASE("assert: set_parent refuses self-parenting and cycles", "[assert][hierarchy]") {
    REQUIRE(types_registered);
    ecs::World w;
    const ecs::Entity a = w.create_with(XPos{1});
    const ecs::Entity b = w.create_with(XPos{2});
    const ecs::Entity c = w.create_with(XPos{3});
    ecs::set_parent(w, b, a);
    ecs::set_parent(w, c, b);
    ecs_assert_test::reset();
    const std::vector<ecs::Entity> all{a, b, c};
    const std::string before = hierarchy_of(w, all);

    ecs::set_parent(w, a, a);
    CHECK(ecs_assert_test::fired_once_with("set_parent: an entity cannot be its own parent"));
    ecs_assert_test::reset();
    ecs::set_parent(w, b, b); // one that already has a parent
    CHECK(ecs_assert_test::fired_once_with("own parent"));

    ecs_assert_test::reset();
    ecs::set_parent(w, a, b); // a -> b -> a
    CHECK(ecs_assert_test::fired_once_with("set_parent: the new parent is a descendant of the child"));
    ecs_assert_test::reset();
    ecs::set_parent(w, a, c); // a -> b -> c -> a
    CHECK(ecs_assert_test::fired_once_with("would make a cycle"));
    CHECK(hierarchy_of(w, all) == before);

    // Legal re-parenting still works afterwards and fires nothing.
    ecs_assert_test::reset();
    ecs::set_parent(w, c, a);
    CHECK(ecs_assert_test::fired() == 0);
    CHECK(w.get<ecs::Parent>(c).entity == a);
    REQUIRE(w.has<ecs::Children>(b)); // its last child left: the list is empty, the component stays
    CHECK(w.get<ecs::Children>(b).entities.empty());
}

TEST_CASE("assert: hierarchy operations during iteration fire and change nothing", "[assert][hierarchy]") {
    ecs::World w;
    const ecs::Entity a = w.create_with(XPos{1});
    const ecs::Entity b = w.create_with(XPos{2});
    const ecs::Entity c = w.create_with(XOther{3});
    ecs::set_parent(w, b, a);
    ecs_assert_test::reset();
    const std::vector<ecs::Entity> all{a, b, c};
    const std::string before = hierarchy_of(w, all);

    bool ran = false;
    w.each<XOther>([&](ecs::Entity, XOther&) {
        ran = true;
        ecs::set_parent(w, c, a);
        ecs::remove_parent(w, b);
        ecs::destroy_recursive(w, a);
    });
    REQUIRE(ran);
    REQUIRE(ecs_assert_test::fired() == 3);
    CHECK(ecs_assert_test::failures()[0].message.find("set_parent: structural change during iteration") != std::string::npos);
    CHECK(ecs_assert_test::failures()[1].message.find("remove_parent: structural change during iteration") != std::string::npos);
    CHECK(ecs_assert_test::failures()[2].message.find("destroy_recursive: structural change during iteration") != std::string::npos);
    CHECK(hierarchy_of(w, all) == before);
}

TEST_CASE("assert: instantiate during iteration fires and creates nothing", "[assert][prefab]") {
    ecs::World w;
    (void)w.create_with(XOther{1});
    const ecs::Prefab prefab = ecs::Prefab::create(XPos{5}, XText{"default"});
    ecs_assert_test::reset();
    const size_t archetypes = w.archetype_count();
    ecs::Entity made[3] = {{1, 1}, {1, 1}, {1, 1}};
    w.each<XOther>([&](ecs::Entity, XOther&) {
        made[0] = ecs::instantiate(w, prefab);
        made[1] = ecs::instantiate(w, prefab, XPos{6});              // override
        made[2] = ecs::instantiate(w, prefab, XOther{7}, XPos{8});   // extend + override
    });
    REQUIRE(ecs_assert_test::fired() == 3);
    for (const auto& f : ecs_assert_test::failures())
        CHECK(f.message.find("instantiate: structural change during iteration") != std::string::npos);
    for (ecs::Entity e : made) CHECK(e == ecs::INVALID_ENTITY);
    CHECK(w.count() == 1);
    CHECK(w.archetype_count() == archetypes);
    CHECK(w.check_invariants());
    CHECK(prefab.component_count() == 2);
}

TEST_CASE("assert: register_component refuses name conflicts and missing functions", "[assert][serialization]") {
    ecs_assert_test::reset();
    ecs::register_component<XPos>("assert.XPos");
    ecs::register_component<XPos>("assert.XPos"); // same name, same type: idempotent
    CHECK(ecs_assert_test::fired() == 0);
    const ecs::ComponentTypeID pos = ecs::component_id<XPos>();

    ecs::register_component<XOther>("assert.XPos"); // a name taken by another type
    CHECK(ecs_assert_test::fired_once_with("register_component: name already registered for another type"));
    CHECK(!ecs::component_registered(ecs::component_id<XOther>()));
    CHECK(ecs::component_id_by_name("assert.XPos") == pos);

    ecs_assert_test::reset();
    ecs::register_component<XPos>("assert.XPos.renamed"); // a type registered under another name
    CHECK(ecs_assert_test::fired_once_with("register_component: type already registered under another name"));
    CHECK(ecs::component_name(pos) == "assert.XPos");

    ecs_assert_test::reset();
    ecs::register_component<XText>("assert.XText"); // not trivially copyable: functions required
    CHECK(ecs_assert_test::fired_once_with("needs explicit serialize and deserialize functions"));
    CHECK(!ecs::component_registered(ecs::component_id<XText>()));

    ecs_assert_test::reset();
    ecs::register_component<XOther>("assert.XOther", [](std::ostream&, const void*) {}, nullptr);
    CHECK(ecs_assert_test::fired_once_with("pass both a serialize and a deserialize function, or neither"));
    CHECK(!ecs::component_registered(ecs::component_id<XOther>()));

    ecs_assert_test::reset();
    ecs::register_component<XOther>("");
    CHECK(ecs_assert_test::fired_once_with("name must be a non-empty string"));
    CHECK(!ecs::component_registered(ecs::component_id<XOther>()));
}

TEST_CASE("assert: name lookups of unregistered components fire", "[assert][serialization]") {
    ecs_assert_test::reset();
    CHECK(ecs::component_id_by_name("assert.no.such.component") == ecs::INVALID_COMPONENT_ID);
    CHECK(ecs_assert_test::fired_once_with("component_id_by_name: no component type is registered under this name"));
    ecs_assert_test::reset();
    CHECK(ecs::component_name(ecs::component_id<XUnregistered>()).empty());
    CHECK(ecs_assert_test::fired_once_with("component_name: component type is not registered"));
    CHECK(!ecs::component_registered(ecs::component_id<XUnregistered>()));
}

TEST_CASE("assert: serialize of a world holding an unregistered type writes nothing", "[assert][serialization]") {
    ecs::register_component<XPos>("assert.XPos");
    ecs::World w;
    (void)w.create_with(XPos{1});
    (void)w.create_with(XUnregistered{2});
    ecs_assert_test::reset();
    std::ostringstream out;
    ecs::serialize(w, out);
    CHECK(ecs_assert_test::fired_once_with("serialize: the world holds a component type that was never registered"));
    CHECK(out.fail());
    CHECK(out.str().empty());
    CHECK(w.count() == 2);
}

TEST_CASE("assert: deserialize into a non-empty or iterating world fires and touches nothing", "[assert][serialization]") {
    ecs::register_component<XPos>("assert.XPos");
    std::string snapshot;
    {
        ecs::World source;
        (void)source.create_with(XPos{4});
        std::ostringstream out;
        ecs::serialize(source, out);
        snapshot = out.str();
    }
    REQUIRE(!snapshot.empty());

    ecs::World w;
    const ecs::Entity e = w.create_with(XPos{9});
    ecs_assert_test::reset();
    std::istringstream in(snapshot);
    const ecs::DeserializeResult r = ecs::deserialize(w, in);
    CHECK(ecs_assert_test::fired_once_with("deserialize: target world must have no live entities"));
    CHECK(r.error == ecs::DeserializeError::target_not_empty);
    CHECK(!r);
    CHECK(in.tellg() == std::streampos(0)); // the stream was not read
    CHECK(w.count() == 1);
    CHECK(w.get<XPos>(e).x == 9);
    CHECK(w.check_invariants());

    ecs_assert_test::reset();
    ecs::DeserializeResult during;
    w.each<XPos>([&](ecs::Entity, XPos&) {
        std::istringstream again(snapshot);
        during = ecs::deserialize(w, again);
    });
    CHECK(ecs_assert_test::fired_once_with("deserialize: called during iteration"));
    CHECK(during.error == ecs::DeserializeError::target_iterating);
    CHECK(w.count() == 1);

    // A world whose entities were all destroyed is empty: loading into it is allowed.
    ecs_assert_test::reset();
    w.destroy(e);
    std::istringstream ok(snapshot);
    CHECK(ecs::deserialize(w, ok));
    CHECK(ecs_assert_test::fired() == 0);
    CHECK(w.count() == 1);
}
