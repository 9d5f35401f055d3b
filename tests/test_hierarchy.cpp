// Tests for builtin/hierarchy.hpp and builtin/hierarchy_ops.hpp: every rule of SPEC §5.2.
// The assertion paths (self-parenting, cycles, calls during iteration) are in tests/assert/.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include <ecs/builtin/hierarchy.hpp>
#include <ecs/builtin/hierarchy_ops.hpp>
#include <ecs/builtin/transform.hpp>
#include <ecs/builtin/transform_propagation.hpp>
#include <ecs/world.hpp>

#include "catch.hpp"

using ecs::Children;
using ecs::Entity;
using ecs::Parent;
using ecs::World;

namespace {

struct Name {
    int id = 0;
};

std::vector<Entity> children_of(World& w, Entity e) {
    const Children* c = w.try_get<Children>(e);
    return c != nullptr ? c->entities : std::vector<Entity>{};
}

Entity parent_of(World& w, Entity e) {
    const Parent* p = w.try_get<Parent>(e);
    return p != nullptr ? p->entity : ecs::INVALID_ENTITY;
}

/// Checks the invariants the hierarchy functions promise for every live entity.
bool hierarchy_consistent(World& w) {
    bool ok = true;
    w.each<Parent>([&](Entity e, Parent& p) {
        const Children* c = w.try_get<Children>(p.entity);
        ok = ok && c != nullptr && std::count(c->entities.begin(), c->entities.end(), e) == 1;
    });
    w.each<Children>([&](Entity e, Children& c) { // may be empty: a parent whose children all left
        for (const Entity child : c.entities) ok = ok && parent_of(w, child) == e;
    });
    return ok && w.check_invariants();
}

} // namespace

TEST_CASE("hierarchy: the functions convert to plain function pointers", "[hierarchy]") {
    // They are templates with a defaulted parameter (no translation unit compiles them unless it calls
    // them); callers that store them as function pointers keep working.
    void (*link)(World&, Entity, Entity) = &ecs::set_parent;
    void (*unlink)(World&, Entity) = &ecs::remove_parent;
    void (*destroy_tree)(World&, Entity) = &ecs::destroy_recursive;
    void (*propagate)(World&) = &ecs::propagate_transforms;
    World w;
    const Entity root = w.create_with(ecs::LocalTransform{}, ecs::WorldTransform{});
    const Entity a = w.create_with(ecs::LocalTransform{}, ecs::WorldTransform{});
    const Entity b = w.create();
    link(w, a, root);
    link(w, b, a);
    propagate(w);
    CHECK(parent_of(w, b) == a);
    unlink(w, b);
    CHECK(parent_of(w, b) == ecs::INVALID_ENTITY);
    CHECK(children_of(w, a).empty());
    destroy_tree(w, root);
    CHECK_FALSE(w.alive(root));
    CHECK_FALSE(w.alive(a));
    CHECK(w.alive(b));
    CHECK(hierarchy_consistent(w));
}

TEST_CASE("hierarchy: set_parent links both sides and creates Children", "[hierarchy]") {
    World w;
    const Entity parent = w.create_with(Name{1});
    const Entity a = w.create_with(Name{2});
    const Entity b = w.create();
    CHECK(!w.has<Children>(parent));
    ecs::set_parent(w, a, parent);
    CHECK(parent_of(w, a) == parent);
    CHECK(children_of(w, parent) == std::vector<Entity>{a});
    ecs::set_parent(w, b, parent);
    CHECK(parent_of(w, b) == parent);
    CHECK(children_of(w, parent) == std::vector<Entity>{a, b}); // attachment order kept
    CHECK(w.get<Name>(parent).id == 1);                          // migration kept other components
    CHECK(w.get<Name>(a).id == 2);
    CHECK(!w.has<Parent>(parent));
    CHECK(hierarchy_consistent(w));
}

TEST_CASE("hierarchy: setting the same parent twice does not duplicate the child", "[hierarchy]") {
    World w;
    const Entity parent = w.create();
    const Entity child = w.create();
    ecs::set_parent(w, child, parent);
    ecs::set_parent(w, child, parent);
    ecs::set_parent(w, child, parent);
    CHECK(children_of(w, parent) == std::vector<Entity>{child});
    CHECK(hierarchy_consistent(w));

    SECTION("and keeps the child's place among its siblings") {
        const Entity later = w.create();
        ecs::set_parent(w, later, parent);
        ecs::set_parent(w, child, parent);
        CHECK(children_of(w, parent) == std::vector<Entity>{child, later});
    }
    SECTION("and repairs a Children entry removed by hand") {
        w.remove<Children>(parent);
        ecs::set_parent(w, child, parent);
        CHECK(children_of(w, parent) == std::vector<Entity>{child});
    }
}

TEST_CASE("hierarchy: re-parenting removes the child from the old parent", "[hierarchy]") {
    World w;
    const Entity old_parent = w.create();
    const Entity new_parent = w.create();
    const Entity child = w.create();
    const Entity sibling = w.create();
    ecs::set_parent(w, child, old_parent);
    ecs::set_parent(w, sibling, old_parent);

    ecs::set_parent(w, child, new_parent);
    CHECK(parent_of(w, child) == new_parent);
    CHECK(children_of(w, old_parent) == std::vector<Entity>{sibling});
    CHECK(children_of(w, new_parent) == std::vector<Entity>{child});
    CHECK(hierarchy_consistent(w));

    // Moving the last child away leaves the old parent an empty Children component (spec §5.2).
    ecs::set_parent(w, sibling, new_parent);
    REQUIRE(w.has<Children>(old_parent));
    CHECK(w.get<Children>(old_parent).entities.empty());
    CHECK(children_of(w, new_parent) == std::vector<Entity>{child, sibling});
    CHECK(hierarchy_consistent(w));
}

TEST_CASE("hierarchy: moving a subtree deeper into another subtree is allowed", "[hierarchy]") {
    World w;
    const Entity r = w.create();
    const Entity a = w.create();
    const Entity a1 = w.create();
    const Entity b = w.create();
    const Entity b1 = w.create();
    ecs::set_parent(w, a, r);
    ecs::set_parent(w, a1, a);
    ecs::set_parent(w, b, r);
    ecs::set_parent(w, b1, b);
    ecs::set_parent(w, a, b1); // a (with a1) under b1: no cycle
    CHECK(parent_of(w, a) == b1);
    CHECK(children_of(w, r) == std::vector<Entity>{b});
    CHECK(children_of(w, b1) == std::vector<Entity>{a});
    CHECK(parent_of(w, a1) == a);
    CHECK(hierarchy_consistent(w));
    // The reverse (b under a1, a descendant of b) would be a cycle: refused, see tests/assert/.
}

TEST_CASE("hierarchy: set_parent is a no-op when either entity is dead", "[hierarchy]") {
    World w;
    const Entity parent = w.create();
    const Entity child = w.create();
    const Entity dead = w.create();
    w.destroy(dead);

    ecs::set_parent(w, child, dead);
    CHECK(!w.has<Parent>(child));
    ecs::set_parent(w, dead, parent);
    CHECK(!w.has<Children>(parent));
    CHECK(!w.alive(dead));
    ecs::set_parent(w, ecs::INVALID_ENTITY, parent);
    ecs::set_parent(w, child, ecs::INVALID_ENTITY);
    CHECK(!w.has<Children>(parent));
    CHECK(!w.has<Parent>(child));

    // A stale handle whose slot was reused names nothing.
    const Entity reused = w.create();
    REQUIRE(reused.index == dead.index);
    ecs::set_parent(w, child, dead);
    CHECK(!w.has<Parent>(child));
    CHECK(!w.has<Children>(reused));

    // Existing links survive a refused re-parent.
    ecs::set_parent(w, child, parent);
    ecs::set_parent(w, child, dead);
    CHECK(parent_of(w, child) == parent);
    CHECK(children_of(w, parent) == std::vector<Entity>{child});
    CHECK(w.count() == 3);
}

TEST_CASE("hierarchy: remove_parent orphans the child", "[hierarchy]") {
    World w;
    const Entity parent = w.create();
    const Entity a = w.create();
    const Entity b = w.create();
    ecs::set_parent(w, a, parent);
    ecs::set_parent(w, b, parent);

    ecs::remove_parent(w, a);
    CHECK(!w.has<Parent>(a));
    CHECK(children_of(w, parent) == std::vector<Entity>{b});
    CHECK(hierarchy_consistent(w));

    ecs::remove_parent(w, b);
    CHECK(!w.has<Parent>(b));
    REQUIRE(w.has<Children>(parent)); // spec §5.2: only the entry goes, the component stays
    CHECK(w.get<Children>(parent).entities.empty());
    CHECK(hierarchy_consistent(w));
    CHECK(w.count() == 3);
}

TEST_CASE("hierarchy: remove_parent is a no-op for dead or parentless entities", "[hierarchy]") {
    World w;
    const Entity parent = w.create();
    const Entity child = w.create();
    const Entity loner = w.create();
    ecs::set_parent(w, child, parent);
    ecs::remove_parent(w, loner);
    ecs::remove_parent(w, parent); // a root: nothing to do, keeps its children
    ecs::remove_parent(w, ecs::INVALID_ENTITY);
    const Entity dead = w.create();
    w.destroy(dead);
    ecs::remove_parent(w, dead);
    CHECK(children_of(w, parent) == std::vector<Entity>{child});
    CHECK(parent_of(w, child) == parent);
    CHECK(w.count() == 3);

    SECTION("a Parent naming a dead entity is simply removed") {
        w.destroy(parent);
        ecs::remove_parent(w, child);
        CHECK(!w.has<Parent>(child));
        CHECK(w.alive(child));
    }
}

TEST_CASE("hierarchy: destroy_recursive destroys the whole subtree and nothing else", "[hierarchy]") {
    World w;
    const Entity top = w.create();
    const Entity root = w.create();
    const Entity sibling = w.create();
    const Entity c1 = w.create();
    const Entity c2 = w.create();
    const Entity g1 = w.create();
    const Entity g2 = w.create();
    const Entity other = w.create();
    ecs::set_parent(w, root, top);
    ecs::set_parent(w, sibling, top);
    ecs::set_parent(w, c1, root);
    ecs::set_parent(w, c2, root);
    ecs::set_parent(w, g1, c1);
    ecs::set_parent(w, g2, c2);

    ecs::destroy_recursive(w, root);
    for (const Entity e : {root, c1, c2, g1, g2}) CHECK(!w.alive(e));
    for (const Entity e : {top, sibling, other}) CHECK(w.alive(e));
    CHECK(w.count() == 3);
    // The root is gone from its own parent's Children.
    CHECK(children_of(w, top) == std::vector<Entity>{sibling});
    CHECK(hierarchy_consistent(w));

    ecs::destroy_recursive(w, root); // dead: no-op
    CHECK(w.count() == 3);

    ecs::destroy_recursive(w, top);
    CHECK(w.count() == 1);
    CHECK(w.alive(other));
}

TEST_CASE("hierarchy: destroy_recursive destroys leaves first", "[hierarchy]") {
    World w;
    // Every entity carries a Name; the hook checks, when a node goes, that all its children are
    // already dead and its parent is still alive.
    std::vector<int> order;
    bool children_dead_first = true;
    bool parent_alive_meanwhile = true;
    w.on_remove<Name>(std::function<void(World&, Entity, Name&)>([&](World& world, Entity e, Name& n) {
        order.push_back(n.id);
        for (const Entity c : children_of(world, e)) children_dead_first = children_dead_first && !world.alive(c);
        const Entity p = parent_of(world, e);
        if (p != ecs::INVALID_ENTITY && n.id != 0) parent_alive_meanwhile = parent_alive_meanwhile && world.alive(p);
    }));
    std::vector<Entity> nodes;
    for (int i = 0; i < 15; ++i) {
        nodes.push_back(w.create_with(Name{i}));
        if (i > 0) ecs::set_parent(w, nodes.back(), nodes[static_cast<size_t>(i - 1) / 2]); // binary tree
    }
    ecs::destroy_recursive(w, nodes[0]);
    CHECK(w.count() == 0);
    CHECK(order.size() == 15);
    CHECK(order.back() == 0);
    CHECK(children_dead_first);
    CHECK(parent_alive_meanwhile);
    // Deepest level (7..14) goes before any inner node.
    CHECK(*std::min_element(order.begin(), order.begin() + 8) == 7);
}

TEST_CASE("hierarchy: destroy_recursive handles deep and wide trees", "[hierarchy][scale]") {
    World w;
    const Entity keep = w.create();
    SECTION("1000-deep chain") {
        Entity prev = w.create();
        const Entity root = prev;
        for (int i = 1; i < 1000; ++i) {
            const Entity e = w.create();
            ecs::set_parent(w, e, prev);
            prev = e;
        }
        CHECK(w.count() == 1001);
        ecs::destroy_recursive(w, root);
    }
    SECTION("10000 children") {
        const Entity root = w.create();
        for (int i = 0; i < 10000; ++i) ecs::set_parent(w, w.create(), root);
        CHECK(w.count() == 10002);
        ecs::destroy_recursive(w, root);
    }
    CHECK(w.count() == 1);
    CHECK(w.alive(keep));
    CHECK(w.check_invariants());
}

TEST_CASE("hierarchy: destroy_recursive follows only genuine Children entries", "[hierarchy]") {
    World w;
    const Entity root = w.create();
    const Entity child = w.create();
    const Entity elsewhere_parent = w.create();
    const Entity stranger = w.create();
    ecs::set_parent(w, child, root);
    ecs::set_parent(w, stranger, elsewhere_parent);
    // Hand edits: root lists `stranger` (whose Parent is elsewhere) and itself; child lists root.
    w.get<Children>(root).entities.push_back(stranger);
    w.get<Children>(root).entities.push_back(root);
    w.add(child, Children{{root}});
    ecs::destroy_recursive(w, root);
    CHECK(!w.alive(root));
    CHECK(!w.alive(child));
    CHECK(w.alive(stranger));
    CHECK(w.alive(elsewhere_parent));
    CHECK(w.count() == 2);
}

TEST_CASE("hierarchy: destroy_recursive may be re-entered from an on_remove hook", "[hierarchy]") {
    struct Trigger {
        Entity other_root;
    };
    World w;
    w.on_remove<Trigger>(std::function<void(World&, Entity, Trigger&)>(
        [](World& world, Entity, Trigger& t) { ecs::destroy_recursive(world, t.other_root); }));
    const Entity tree_b = w.create();
    for (int i = 0; i < 5; ++i) ecs::set_parent(w, w.create(), tree_b);
    const Entity tree_a = w.create();
    std::vector<Entity> a_nodes;
    for (int i = 0; i < 5; ++i) {
        a_nodes.push_back(w.create());
        ecs::set_parent(w, a_nodes.back(), tree_a);
    }
    w.add(a_nodes[2], Trigger{tree_b});
    const Entity survivor = w.create();
    ecs::destroy_recursive(w, tree_a);
    CHECK(w.count() == 1);
    CHECK(w.alive(survivor));
    for (const Entity e : a_nodes) CHECK(!w.alive(e));
}

TEST_CASE("hierarchy: random edits keep both sides in sync", "[hierarchy]") {
    World w;
    std::vector<Entity> pool;
    for (int i = 0; i < 64; ++i) pool.push_back(w.create_with(Name{i}));
    uint32_t state = 12345u;
    auto next = [&state](size_t n) {
        state = state * 1664525u + 1013904223u;
        return static_cast<size_t>((state >> 8) % n);
    };
    auto is_descendant = [&w](Entity node, Entity ancestor) {
        for (Entity p = parent_of(w, node); p != ecs::INVALID_ENTITY; p = parent_of(w, p))
            if (p == ancestor) return true;
        return false;
    };
    for (int step = 0; step < 3000; ++step) {
        const Entity a = pool[next(pool.size())];
        const Entity b = pool[next(pool.size())];
        switch (next(10)) {
        case 0:
            ecs::remove_parent(w, a);
            break;
        case 1:
            if (w.alive(a) && next(4) == 0) {
                ecs::destroy_recursive(w, a);
                for (Entity& e : pool)
                    if (!w.alive(e)) e = w.create_with(Name{step});
            }
            break;
        default:
            if (a != b && !is_descendant(b, a)) ecs::set_parent(w, a, b); // valid path only
            break;
        }
        if (step % 100 == 0) REQUIRE(hierarchy_consistent(w));
    }
    CHECK(hierarchy_consistent(w));
}

TEST_CASE("hierarchy: Children snapshot functions round-trip and reject truncation", "[hierarchy]") {
    const Children original{{Entity{3, 1}, Entity{70000, 9}, Entity{5, 0xFFFFFFFFu}}};
    std::stringstream stream;
    ecs::write_children(stream, &original);
    const std::string bytes = stream.str();
    CHECK(bytes.size() == 4 + 3 * 8);
    CHECK(bytes[0] == 3); // little-endian count

    alignas(Children) unsigned char storage[sizeof(Children)];
    {
        std::istringstream in(bytes);
        ecs::read_children(in, storage);
        REQUIRE(!in.fail());
        Children* restored = std::launder(reinterpret_cast<Children*>(storage));
        CHECK(restored->entities == original.entities);
        restored->~Children();
    }
    for (size_t cut = 0; cut < bytes.size(); ++cut) {
        std::istringstream in(bytes.substr(0, cut));
        ecs::read_children(in, storage); // constructs nothing on failure: nothing to destroy
        CHECK(in.fail());
    }
    // A huge count with no entries behind it fails without allocating for the count.
    std::istringstream huge(std::string("\xFF\xFF\xFF\xFF", 4));
    ecs::read_children(huge, storage);
    CHECK(huge.fail());
}

// ---------------------------------------------------------------------------------------------------
// Audit against SPEC 0.9 §5.2
// ---------------------------------------------------------------------------------------------------

// SPEC §5.2: remove_parent "Orphan child: remove from parent's Children, remove Parent component";
// set_parent "Handles re-parenting (removes from old parent's Children)". Two changes, no third: the
// parent keeps its Children component, emptied, so `get<Children>(parent).entities.empty()` holds.
TEST_CASE("hierarchy: remove_parent and re-parenting leave the parent's Children, emptied",
          "[hierarchy]") {
    World w;
    SECTION("remove_parent") {
        const Entity parent = w.create();
        const Entity child = w.create();
        ecs::set_parent(w, child, parent);
        ecs::remove_parent(w, child);
        CHECK_FALSE(w.has<Parent>(child));
        const Children* children = w.try_get<Children>(parent);
        REQUIRE(children != nullptr);
        CHECK(children->entities.empty());
    }
    SECTION("re-parenting") {
        const Entity a = w.create();
        const Entity b = w.create();
        const Entity child = w.create();
        ecs::set_parent(w, child, a);
        ecs::set_parent(w, child, b);
        CHECK(w.get<Parent>(child).entity == b);
        REQUIRE(w.has<Children>(b));
        CHECK(w.get<Children>(b).entities == std::vector<Entity>{child});
        const Children* old_children = w.try_get<Children>(a);
        REQUIRE(old_children != nullptr);
        CHECK(old_children->entities.empty());
    }
}
