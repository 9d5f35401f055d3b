// Tests for builtin/transform.hpp (Mat4, LocalTransform, WorldTransform) and
// builtin/transform_propagation.hpp (propagate_transforms).
#include <cmath>
#include <cstddef>
#include <type_traits>
#include <vector>

#include <ecs/builtin/hierarchy.hpp>
#include <ecs/builtin/hierarchy_ops.hpp>
#include <ecs/builtin/transform.hpp>
#include <ecs/builtin/transform_propagation.hpp>
#include <ecs/world.hpp>

#include "catch.hpp"

using ecs::Entity;
using ecs::LocalTransform;
using ecs::Mat4;
using ecs::Vec3;
using ecs::World;
using ecs::WorldTransform;

namespace {

bool near(float a, float b, float eps = 1e-5f) { return std::fabs(a - b) <= eps; }
bool near(const Vec3& a, const Vec3& b, float eps = 1e-5f) {
    return near(a.x, b.x, eps) && near(a.y, b.y, eps) && near(a.z, b.z, eps);
}

/// A matrix with small distinct integer entries: products of such matrices are exact in float.
Mat4 integer_matrix(int seed) {
    Mat4 r;
    for (int i = 0; i < 16; ++i) r.m[i] = static_cast<float>((i * 7 + seed * 3) % 11 - 5);
    return r;
}

Entity spawn(World& w, const Mat4& local) { return w.create_with(LocalTransform{local}, WorldTransform{}); }

Vec3 world_pos(World& w, Entity e) { return w.get<WorldTransform>(e).matrix.position(); }

} // namespace

TEST_CASE("transform: Mat4 default and identity()", "[transform]") {
    const Mat4 def;
    const Mat4 id = Mat4::identity();
    for (size_t r = 0; r < 4; ++r)
        for (size_t c = 0; c < 4; ++c) {
            CHECK(id.at(r, c) == (r == c ? 1.0f : 0.0f));
            CHECK(def.at(r, c) == id.at(r, c));
        }
    CHECK(def == id);
    CHECK(LocalTransform{}.matrix == id);
    CHECK(WorldTransform{}.matrix == id);
    STATIC_REQUIRE(std::is_trivially_copyable_v<Mat4>);
    STATIC_REQUIRE(std::is_trivially_copyable_v<LocalTransform>);
    STATIC_REQUIRE(std::is_aggregate_v<LocalTransform>);
}

TEST_CASE("transform: translation lives in m[12], m[13], m[14]", "[transform]") {
    const Mat4 t = Mat4::translation(1.0f, 2.0f, 3.0f);
    CHECK(t.m[12] == 1.0f);
    CHECK(t.m[13] == 2.0f);
    CHECK(t.m[14] == 3.0f);
    CHECK(t.m[15] == 1.0f);
    CHECK(t.m[0] == 1.0f);
    CHECK(t.m[3] == 0.0f);
    CHECK(t.at(0, 3) == 1.0f);
    CHECK(t.position() == Vec3{1.0f, 2.0f, 3.0f});
    CHECK(t.transform_point(Vec3{10.0f, 20.0f, 30.0f}) == Vec3{11.0f, 22.0f, 33.0f});
    CHECK(t.transform_vector(Vec3{10.0f, 20.0f, 30.0f}) == Vec3{10.0f, 20.0f, 30.0f});
    const LocalTransform local{Mat4::translation(1, 2, 3)};
    CHECK(local.matrix == t);
}

TEST_CASE("transform: multiply is this * rhs (rhs applied first)", "[transform]") {
    const Mat4 t = Mat4::translation(1.0f, 0.0f, 0.0f);
    const Mat4 s = Mat4::scale(2.0f, 3.0f, 4.0f);
    const Vec3 p{1.0f, 1.0f, 1.0f};
    // Scale first, then translate.
    CHECK((t * s).transform_point(p) == Vec3{3.0f, 3.0f, 4.0f});
    CHECK(t.multiply(s) == t * s);
    // Translate first, then scale.
    CHECK((s * t).transform_point(p) == Vec3{4.0f, 3.0f, 4.0f});
    CHECK(t * s != s * t);
    // Composition of translations adds them.
    CHECK(Mat4::translation(1, 2, 3) * Mat4::translation(10, 20, 30) == Mat4::translation(11, 22, 33));
}

TEST_CASE("transform: multiply against a hand-computed product", "[transform]") {
    Mat4 a, b;
    for (int i = 0; i < 16; ++i) {
        a.m[i] = static_cast<float>(i + 1);  // column-major 1..16
        b.m[i] = static_cast<float>(16 - i); // column-major 16..1
    }
    const Mat4 p = a * b;
    for (size_t r = 0; r < 4; ++r)
        for (size_t c = 0; c < 4; ++c) {
            float expected = 0.0f;
            for (size_t k = 0; k < 4; ++k) expected += a.at(r, k) * b.at(k, c);
            CHECK(p.at(r, c) == expected);
        }
    // One element worked out by hand: row 0 of a is (1, 5, 9, 13), column 0 of b is (16, 15, 14, 13).
    CHECK(p.at(0, 0) == 1.0f * 16 + 5.0f * 15 + 9.0f * 14 + 13.0f * 13);
}

TEST_CASE("transform: identity is neutral and multiply is associative", "[transform]") {
    const Mat4 a = integer_matrix(1), b = integer_matrix(2), c = integer_matrix(5);
    CHECK(a * Mat4::identity() == a);
    CHECK(Mat4::identity() * a == a);
    CHECK((a * b) * c == a * (b * c));
    CHECK(a * b != b * a);
}

TEST_CASE("transform: rotations turn the axes the right-handed way", "[transform]") {
    const float quarter = 1.5707963267948966f;
    CHECK(near(Mat4::rotation_z(quarter).transform_point(Vec3{1, 0, 0}), Vec3{0, 1, 0}));
    CHECK(near(Mat4::rotation_x(quarter).transform_point(Vec3{0, 1, 0}), Vec3{0, 0, 1}));
    CHECK(near(Mat4::rotation_y(quarter).transform_point(Vec3{0, 0, 1}), Vec3{1, 0, 0}));
    CHECK(Mat4::rotation_z(0.0f) == Mat4::identity());
    // Orbit: rotate a translated point about the origin.
    const Mat4 orbit = Mat4::rotation_z(quarter) * Mat4::translation(5, 0, 0);
    CHECK(near(orbit.position(), Vec3{0, 5, 0}));
    // Rotations preserve length.
    const Vec3 v = Mat4::rotation_x(0.3f).multiply(Mat4::rotation_y(1.1f)).transform_vector(Vec3{3, 4, 12});
    CHECK(near(std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z), 13.0f, 1e-4f));
}

TEST_CASE("transform: propagation over a 3-level tree gives exact values", "[transform]") {
    World w;
    const Entity root = spawn(w, Mat4::translation(1, 0, 0) * Mat4::scale(2, 2, 2));
    const Entity child_a = spawn(w, Mat4::translation(1, 0, 0));
    const Entity child_b = spawn(w, Mat4::translation(0, 1, 0));
    const Entity grandchild = spawn(w, Mat4::translation(0, 0, 3));
    ecs::set_parent(w, child_a, root);
    ecs::set_parent(w, child_b, root);
    ecs::set_parent(w, grandchild, child_a);
    ecs::propagate_transforms(w);

    CHECK(w.get<WorldTransform>(root).matrix == Mat4::translation(1, 0, 0) * Mat4::scale(2, 2, 2));
    CHECK(world_pos(w, root) == Vec3{1, 0, 0});
    CHECK(world_pos(w, child_a) == Vec3{3, 0, 0}); // 1 + 2*1
    CHECK(world_pos(w, child_b) == Vec3{1, 2, 0}); // (1,0,0) + 2*(0,1,0)
    CHECK(world_pos(w, grandchild) == Vec3{3, 0, 6});
    CHECK(w.get<WorldTransform>(grandchild).matrix ==
          Mat4::translation(1, 0, 0) * Mat4::scale(2, 2, 2) * Mat4::translation(1, 0, 0) * Mat4::translation(0, 0, 3));
    // A point in the grandchild's space.
    CHECK(w.get<WorldTransform>(grandchild).matrix.transform_point(Vec3{1, 1, 1}) == Vec3{5, 2, 8});
}

TEST_CASE("transform: propagation order does not depend on creation order", "[transform]") {
    // Children created before their parents, so archetype row order is leaf-first.
    World w;
    const Entity leaf = spawn(w, Mat4::translation(0, 0, 1));
    const Entity mid = spawn(w, Mat4::translation(0, 1, 0));
    const Entity root = spawn(w, Mat4::translation(1, 0, 0));
    ecs::set_parent(w, leaf, mid);
    ecs::set_parent(w, mid, root);
    ecs::propagate_transforms(w);
    CHECK(world_pos(w, leaf) == Vec3{1, 1, 1});
    // Move the root: one call is enough for the whole tree.
    w.get<LocalTransform>(root).matrix = Mat4::translation(5, 0, 0);
    ecs::propagate_transforms(w);
    CHECK(world_pos(w, mid) == Vec3{5, 1, 0});
    CHECK(world_pos(w, leaf) == Vec3{5, 1, 1});
}

TEST_CASE("transform: a 1000-deep chain propagates without recursion", "[transform]") {
    World w;
    std::vector<Entity> chain;
    chain.push_back(spawn(w, Mat4::translation(1, 0, 0)));
    for (int i = 1; i < 1000; ++i) {
        chain.push_back(spawn(w, Mat4::translation(1, 0, 0)));
        ecs::set_parent(w, chain.back(), chain[chain.size() - 2]);
    }
    ecs::propagate_transforms(w);
    bool all_exact = true;
    for (size_t i = 0; i < chain.size(); ++i)
        all_exact = all_exact && world_pos(w, chain[i]) == Vec3{static_cast<float>(i + 1), 0, 0};
    CHECK(all_exact);
    CHECK(world_pos(w, chain.back()) == Vec3{1000, 0, 0});
}

TEST_CASE("transform: a wide tree propagates to every child", "[transform][scale]") {
    World w;
    const Entity root = spawn(w, Mat4::translation(0, 0, 7));
    std::vector<Entity> kids;
    for (int i = 0; i < 5000; ++i) {
        kids.push_back(spawn(w, Mat4::translation(static_cast<float>(i), 0, 0)));
        ecs::set_parent(w, kids.back(), root);
    }
    ecs::propagate_transforms(w);
    bool all_exact = true;
    for (size_t i = 0; i < kids.size(); ++i)
        all_exact = all_exact && world_pos(w, kids[i]) == Vec3{static_cast<float>(i), 0, 7};
    CHECK(all_exact);
}

TEST_CASE("transform: re-parenting then propagating uses the new parent", "[transform]") {
    World w;
    const Entity a = spawn(w, Mat4::translation(10, 0, 0));
    const Entity b = spawn(w, Mat4::translation(0, 20, 0));
    const Entity child = spawn(w, Mat4::translation(1, 1, 1));
    const Entity grandchild = spawn(w, Mat4::translation(0, 0, 1));
    ecs::set_parent(w, child, a);
    ecs::set_parent(w, grandchild, child);
    ecs::propagate_transforms(w);
    CHECK(world_pos(w, grandchild) == Vec3{11, 1, 2});

    ecs::set_parent(w, child, b);
    ecs::propagate_transforms(w);
    CHECK(world_pos(w, child) == Vec3{1, 21, 1});
    CHECK(world_pos(w, grandchild) == Vec3{1, 21, 2});

    SECTION("orphaned child becomes a root") {
        ecs::remove_parent(w, child);
        ecs::propagate_transforms(w);
        CHECK(world_pos(w, child) == Vec3{1, 1, 1});
        CHECK(world_pos(w, grandchild) == Vec3{1, 1, 2});
    }
    SECTION("a destroyed subtree is no longer visited") {
        ecs::destroy_recursive(w, child);
        ecs::propagate_transforms(w);
        CHECK(w.count() == 2);
        CHECK(world_pos(w, b) == Vec3{0, 20, 0});
    }
}

TEST_CASE("transform: a child lacking transform components is skipped with its subtree", "[transform]") {
    World w;
    const Entity root = spawn(w, Mat4::translation(1, 0, 0));
    const Entity bare = w.create(); // no transform at all
    const Entity below = spawn(w, Mat4::translation(0, 1, 0));
    const Entity local_only = w.create_with(LocalTransform{Mat4::translation(0, 0, 1)});
    const Entity sibling = spawn(w, Mat4::translation(0, 0, 2));
    ecs::set_parent(w, bare, root);
    ecs::set_parent(w, below, bare);
    ecs::set_parent(w, local_only, root);
    ecs::set_parent(w, sibling, root);

    w.get<WorldTransform>(below).matrix = Mat4::translation(9, 9, 9); // sentinel: must stay
    ecs::propagate_transforms(w);
    CHECK(world_pos(w, sibling) == Vec3{1, 0, 2});
    CHECK(world_pos(w, below) == Vec3{9, 9, 9});
    CHECK(!w.has<WorldTransform>(local_only));
}

TEST_CASE("transform: roots need both components and no Parent", "[transform]") {
    World w;
    const Entity local_only = w.create_with(LocalTransform{Mat4::translation(1, 2, 3)});
    const Entity world_only = w.create_with(WorldTransform{Mat4::translation(4, 5, 6)});
    const Entity orphan = spawn(w, Mat4::translation(7, 0, 0));
    const Entity gone = w.create();
    ecs::set_parent(w, orphan, gone);
    w.get<WorldTransform>(orphan).matrix = Mat4::translation(0, 0, 42);
    w.destroy(gone); // orphan's Parent now names a dead entity: it is not a root
    ecs::propagate_transforms(w);
    CHECK(w.get<LocalTransform>(local_only).matrix == Mat4::translation(1, 2, 3));
    CHECK(world_pos(w, world_only) == Vec3{4, 5, 6});
    CHECK(world_pos(w, orphan) == Vec3{0, 0, 42});
}

TEST_CASE("transform: Children entries that disagree with Parent are ignored", "[transform]") {
    World w;
    const Entity root = spawn(w, Mat4::translation(1, 0, 0));
    const Entity other = spawn(w, Mat4::translation(0, 5, 0));
    const Entity real = spawn(w, Mat4::translation(0, 0, 1));
    const Entity stranger = spawn(w, Mat4::translation(0, 0, 2));
    ecs::set_parent(w, real, root);
    ecs::set_parent(w, stranger, other);
    const Entity dead = w.create();
    w.destroy(dead);
    // Hand edits: root lists a dead entity, `stranger` (whose parent is `other`) and itself.
    w.get<ecs::Children>(root).entities.push_back(dead);
    w.get<ecs::Children>(root).entities.push_back(stranger);
    w.get<ecs::Children>(root).entities.push_back(root);
    ecs::propagate_transforms(w);
    CHECK(world_pos(w, real) == Vec3{1, 0, 1});
    CHECK(world_pos(w, stranger) == Vec3{0, 5, 2});
    CHECK(world_pos(w, root) == Vec3{1, 0, 0});
}

TEST_CASE("transform: propagation is repeatable and leaves the world consistent", "[transform]") {
    World w;
    std::vector<Entity> nodes;
    for (int i = 0; i < 200; ++i) {
        nodes.push_back(spawn(w, Mat4::translation(1, 0, 0) * Mat4::rotation_z(0.01f * static_cast<float>(i))));
        if (i > 0) ecs::set_parent(w, nodes.back(), nodes[static_cast<size_t>(i - 1) / 3]);
    }
    ecs::propagate_transforms(w);
    std::vector<Mat4> first;
    for (const Entity e : nodes) first.push_back(w.get<WorldTransform>(e).matrix);
    ecs::propagate_transforms(w);
    bool same = true;
    for (size_t i = 0; i < nodes.size(); ++i) same = same && w.get<WorldTransform>(nodes[i]).matrix == first[i];
    CHECK(same);
    // Each child's world matrix is its parent's times its local one.
    bool composed = true;
    for (size_t i = 1; i < nodes.size(); ++i) {
        const Entity parent = w.get<ecs::Parent>(nodes[i]).entity;
        composed = composed && w.get<WorldTransform>(nodes[i]).matrix ==
                                   w.get<WorldTransform>(parent).matrix * w.get<LocalTransform>(nodes[i]).matrix;
    }
    CHECK(composed);
    CHECK(w.check_invariants());
}

// ---------------------------------------------------------------------------------------------------
// Math (addition, 1.0): Vec2, Vec3, Quat and Mat4::compose / rotation / scale / translation
// ---------------------------------------------------------------------------------------------------

namespace {

using ecs::Quat;
using ecs::Vec2;

constexpr float kPi = 3.14159265358979323846f;

bool near(const Quat& a, const Quat& b, float eps = 1e-5f) {
    return near(a.x, b.x, eps) && near(a.y, b.y, eps) && near(a.z, b.z, eps) && near(a.w, b.w, eps);
}
bool near(const Mat4& a, const Mat4& b, float eps = 1e-5f) {
    for (size_t i = 0; i < 16; ++i)
        if (!near(a.m[i], b.m[i], eps)) return false;
    return true;
}

// Plain data, laid out like glm::vec2/vec3/quat and XMFLOAT2/3/4.
static_assert(std::is_standard_layout_v<Vec2> && std::is_trivially_copyable_v<Vec2>, "Vec2 is plain data");
static_assert(std::is_standard_layout_v<Vec3> && std::is_trivially_copyable_v<Vec3>, "Vec3 is plain data");
static_assert(std::is_standard_layout_v<Quat> && std::is_trivially_copyable_v<Quat>, "Quat is plain data");
static_assert(sizeof(Vec2) == 2 * sizeof(float) && alignof(Vec2) == alignof(float), "Vec2 layout");
static_assert(sizeof(Vec3) == 3 * sizeof(float) && alignof(Vec3) == alignof(float), "Vec3 layout");
static_assert(sizeof(Quat) == 4 * sizeof(float) && alignof(Quat) == alignof(float), "Quat layout");
static_assert(offsetof(Vec2, x) == 0 && offsetof(Vec2, y) == 4, "Vec2 members in order");
static_assert(offsetof(Vec3, x) == 0 && offsetof(Vec3, y) == 4 && offsetof(Vec3, z) == 8, "Vec3 members in order");
static_assert(offsetof(Quat, x) == 0 && offsetof(Quat, y) == 4 && offsetof(Quat, z) == 8 && offsetof(Quat, w) == 12,
              "Quat stored x, y, z, w");
static_assert(Quat::identity() == Quat{0, 0, 0, 1} && Quat{} == Quat::identity(), "default Quat is the identity");
static_assert(ecs::cross(Vec3{1, 0, 0}, Vec3{0, 1, 0}) == Vec3{0, 0, 1}, "right-handed cross product");
static_assert(Mat4::compose(Vec3{}, Quat{}, Vec3{1, 1, 1}) == Mat4::identity(), "compose of nothing is the identity");

} // namespace

TEST_CASE("math: Vec2 and Vec3 arithmetic, dot, cross, length, normalized", "[transform][math]") {
    const Vec3 a{1, 2, 3}, b{4, -5, 6};
    CHECK(a + b == Vec3{5, -3, 9});
    CHECK(a - b == Vec3{-3, 7, -3});
    CHECK(-a == Vec3{-1, -2, -3});
    CHECK(a * 2.0f == Vec3{2, 4, 6});
    CHECK(2.0f * a == Vec3{2, 4, 6});
    CHECK(b / 2.0f == Vec3{2, -2.5f, 3});
    Vec3 c = a;
    c += b;
    c -= Vec3{1, 1, 1};
    c *= 0.5f;
    CHECK(c == Vec3{2, -2, 4});
    CHECK(ecs::dot(a, b) == 12.0f);
    CHECK(ecs::cross(a, b) == Vec3{27, 6, -13});
    CHECK(ecs::dot(ecs::cross(a, b), a) == 0.0f); // perpendicular to both
    CHECK(Vec3{3, 4, 12}.length() == 13.0f);
    CHECK(ecs::length(Vec3{3, 4, 12}) == 13.0f);
    CHECK(near(Vec3{3, 4, 12}.normalized(), Vec3{3.0f / 13, 4.0f / 13, 12.0f / 13}));
    CHECK(near(ecs::normalized(Vec3{0, 0, -7}), Vec3{0, 0, -1}));
    CHECK(Vec3{}.normalized() == Vec3{}); // zero stays zero, no NaN

    const Vec2 p{3, 4}, q{-1, 2};
    CHECK(p + q == Vec2{2, 6});
    CHECK(p - q == Vec2{4, 2});
    CHECK(p * 2.0f == Vec2{6, 8});
    CHECK(0.5f * p == Vec2{1.5f, 2});
    CHECK(ecs::dot(p, q) == 5.0f);
    CHECK(p.length() == 5.0f);
    CHECK(ecs::length(p) == 5.0f);
    CHECK(p.normalized() == Vec2{0.6f, 0.8f});
    CHECK(Vec2{}.normalized() == Vec2{});
    CHECK(Vec2{} == Vec2{0, 0});
}

TEST_CASE("math: quaternion rotation of vectors matches known values", "[transform][math]") {
    const float quarter = kPi / 2;
    const Quat z90 = Quat::from_axis_angle(Vec3{0, 0, 1}, quarter);
    CHECK(near(z90, Quat{0, 0, std::sqrt(0.5f), std::sqrt(0.5f)}));
    CHECK(near(z90.rotate(Vec3{1, 0, 0}), Vec3{0, 1, 0})); // 90 degrees about z maps x to y
    CHECK(near(z90.rotate(Vec3{0, 1, 0}), Vec3{-1, 0, 0}));
    CHECK(near(z90.rotate(Vec3{0, 0, 1}), Vec3{0, 0, 1}));
    CHECK(near(Quat::from_axis_angle(Vec3{1, 0, 0}, quarter).rotate(Vec3{0, 1, 0}), Vec3{0, 0, 1}));
    CHECK(near(Quat::from_axis_angle(Vec3{0, 1, 0}, quarter).rotate(Vec3{0, 0, 1}), Vec3{1, 0, 0}));
    // The axis need not be unit length; a zero axis is the identity.
    CHECK(near(Quat::from_axis_angle(Vec3{0, 0, 5}, quarter), z90));
    CHECK(Quat::from_axis_angle(Vec3{}, 1.0f) == Quat::identity());
    // 120 degrees about (1,1,1) cycles the axes.
    const Quat cycle = Quat::from_axis_angle(Vec3{1, 1, 1}, 2 * kPi / 3);
    CHECK(near(cycle.rotate(Vec3{1, 0, 0}), Vec3{0, 1, 0}));
    CHECK(near(cycle.rotate(Vec3{0, 1, 0}), Vec3{0, 0, 1}));
    // Rotations keep lengths.
    CHECK(near(cycle.rotate(Vec3{3, -4, 12}).length(), 13.0f, 1e-4f));
}

TEST_CASE("math: identity, composition, conjugate and normalized", "[transform][math]") {
    const Quat a = Quat::from_axis_angle(Vec3{0, 0, 1}, 0.7f);
    const Quat b = Quat::from_axis_angle(Vec3{1, 2, -1}, -1.3f);
    const Vec3 v{0.5f, -2, 3};
    CHECK(Quat::identity().rotate(v) == v);
    CHECK(Quat::identity() * a == a);
    CHECK(a * Quat::identity() == a);
    // Composition: b first, then a.
    CHECK(near((a * b).rotate(v), a.rotate(b.rotate(v))));
    // Two quarter turns about z are a half turn.
    const Quat z90 = Quat::from_axis_angle(Vec3{0, 0, 1}, kPi / 2);
    CHECK(near((z90 * z90).rotate(Vec3{1, 0, 0}), Vec3{-1, 0, 0}));
    Quat acc = Quat::identity();
    acc *= z90;
    acc *= z90;
    CHECK(near(acc, z90 * z90));
    // The conjugate undoes a rotation.
    CHECK(near((a.conjugate() * a), Quat::identity()));
    CHECK(near(b.conjugate().rotate(b.rotate(v)), v));
    // normalized() restores unit length; zero gives the identity.
    const Quat drifted{0, 0, 2, 2};
    CHECK(near(drifted.normalized(), z90));
    CHECK(near(ecs::normalized(drifted).length(), 1.0f));
    CHECK(near(ecs::length(a), 1.0f));
    CHECK(near(ecs::dot(a, a), 1.0f));
    CHECK(Quat{0, 0, 0, 0}.normalized() == Quat::identity());
}

TEST_CASE("math: compose equals translation * rotation * scale", "[transform][math]") {
    const Vec3 position{3, -1, 7};
    const Quat rotation = Quat::from_axis_angle(Vec3{1, 2, 3}, 0.9f);
    const Vec3 scale{2, 0.5f, -3};
    const Mat4 composed = Mat4::compose(position, rotation, scale);
    const Mat4 product = Mat4::translation(position) * Mat4::rotation(rotation) * Mat4::scale(scale);
    CHECK(near(composed, product));
    // Applied to a point: scale, then rotate, then translate.
    const Vec3 p{1, 2, 3};
    const Vec3 expected = rotation.rotate(Vec3{p.x * scale.x, p.y * scale.y, p.z * scale.z}) + position;
    CHECK(near(composed.transform_point(p), expected, 1e-4f));
    CHECK(composed.position() == position);
    // The Vec3 factors equal the float ones.
    CHECK(Mat4::translation(position) == Mat4::translation(3, -1, 7));
    CHECK(Mat4::scale(scale) == Mat4::scale(2, 0.5f, -3));
    // rotation(Quat) agrees with the axis rotations and with Quat::rotate.
    CHECK(near(Mat4::rotation(Quat::from_axis_angle(Vec3{0, 0, 1}, 0.4f)), Mat4::rotation_z(0.4f)));
    CHECK(near(Mat4::rotation(Quat::from_axis_angle(Vec3{1, 0, 0}, -1.1f)), Mat4::rotation_x(-1.1f)));
    CHECK(near(Mat4::rotation(Quat::from_axis_angle(Vec3{0, 1, 0}, 2.5f)), Mat4::rotation_y(2.5f)));
    CHECK(near(Mat4::rotation(rotation).transform_vector(p), rotation.rotate(p)));
    CHECK(Mat4::rotation(Quat::identity()) == Mat4::identity());
    // Composition of quaternions is the product of their matrices.
    const Quat other = Quat::from_axis_angle(Vec3{-1, 0, 2}, 1.7f);
    CHECK(near(Mat4::rotation(rotation * other), Mat4::rotation(rotation) * Mat4::rotation(other)));
}

TEST_CASE("math: a LocalTransform built from position, rotation and scale propagates", "[transform][math]") {
    World w;
    const Entity parent = w.create_with(
        LocalTransform{Mat4::compose(Vec3{10, 0, 0}, Quat::from_axis_angle(Vec3{0, 0, 1}, kPi / 2), Vec3{2, 2, 2})},
        WorldTransform{});
    const Entity child = w.create_with(LocalTransform{Mat4::translation(Vec3{1, 0, 0})}, WorldTransform{});
    ecs::set_parent(w, child, parent);
    ecs::propagate_transforms(w);
    CHECK(near(world_pos(w, child), Vec3{10, 2, 0}));
}
