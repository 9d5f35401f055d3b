// hierarchy: parent/child relations and transform propagation with the builtin components.
//
// Parent and Children are ordinary components; set_parent, remove_parent and destroy_recursive keep
// both sides in sync. propagate_transforms computes every WorldTransform from the LocalTransforms:
// a child's world matrix is its parent's world matrix times its own local matrix.
#include <cmath>
#include <cstdio>

#include <ecs/ecs.hpp>

using ecs::Entity;
using ecs::LocalTransform;
using ecs::Mat4;
using ecs::WorldTransform;

struct Name {
    const char* text = "";
};

namespace {

Entity make_body(ecs::World& world, const char* name, const Mat4& local) {
    return world.create_with(Name{name}, LocalTransform{local}, WorldTransform{});
}

/// Rounds away float noise (cos of a quarter turn is not exactly 0) so "-0.0" is never printed.
double tidy(float v) { return std::fabs(v) < 1e-4f ? 0.0 : static_cast<double>(v); }

void print_tree(ecs::World& world, Entity e, int depth) {
    const ecs::Vec3 p = world.get<WorldTransform>(e).matrix.position();
    std::printf("%*s%-6s world position (%.1f, %.1f, %.1f)\n", depth * 2, "", world.get<Name>(e).text, tidy(p.x),
                tidy(p.y), tidy(p.z));
    if (const ecs::Children* children = world.try_get<ecs::Children>(e))
        for (const Entity c : children->entities) print_tree(world, c, depth + 1);
}

} // namespace

int main() {
    ecs::World world;
    const float quarter_turn = 1.5707963f;

    // A sun at (10, 0, 0); an earth 4 units from the sun, a quarter turn around it; a moon 1 unit
    // from the earth. Local matrices compose right to left: rotate about the parent, then offset.
    // Mat4::compose(position, rotation, scale) builds the same kind of matrix from its parts: the earth
    // sits at (0, 4, 0) from the sun, turned a quarter about z, so its moon ends up at (0, 5, 0).
    const Entity sun = make_body(world, "sun", Mat4::translation(10, 0, 0));
    const ecs::Quat quarter_about_z = ecs::Quat::from_axis_angle(ecs::Vec3{0, 0, 1}, quarter_turn);
    const Entity earth =
        make_body(world, "earth", Mat4::compose(ecs::Vec3{0, 4, 0}, quarter_about_z, ecs::Vec3{1, 1, 1}));
    const Entity moon = make_body(world, "moon", Mat4::translation(1, 0, 0));
    const Entity mars = make_body(world, "mars", Mat4::translation(7, 0, 0));

    ecs::set_parent(world, earth, sun); // sun gets a Children component, earth a Parent
    ecs::set_parent(world, moon, earth);
    ecs::set_parent(world, mars, sun);
    ecs::propagate_transforms(world);
    std::printf("-- solar system\n");
    print_tree(world, sun, 0);

    // Moving the sun moves everything below it at the next propagation.
    world.get<LocalTransform>(sun).matrix = Mat4::translation(0, 0, 5);
    ecs::propagate_transforms(world);
    std::printf("-- sun moved to (0, 0, 5)\n");
    print_tree(world, sun, 0);

    // Re-parenting: the moon leaves the earth for mars (removed from earth's Children on the way).
    ecs::set_parent(world, moon, mars);
    ecs::propagate_transforms(world);
    std::printf("-- moon now orbits mars\n");
    print_tree(world, sun, 0);
    // The Children component stays, emptied: set_parent and remove_parent edit the list only.
    std::printf("earth has children? %s\n", world.get<ecs::Children>(earth).entities.empty() ? "no" : "yes");

    // remove_parent makes an entity a root again: its local transform becomes its world transform.
    ecs::remove_parent(world, moon);
    ecs::propagate_transforms(world);
    std::printf("-- moon set free\n");
    print_tree(world, moon, 0);

    // destroy_recursive removes a whole subtree, deepest entities first.
    ecs::set_parent(world, moon, earth);
    ecs::destroy_recursive(world, earth);
    std::printf("-- earth destroyed with its moon: %zu entities left\n", world.count());
    print_tree(world, sun, 0);
    return 0;
}

// Output:
// -- solar system
// sun    world position (10.0, 0.0, 0.0)
//   earth  world position (10.0, 4.0, 0.0)
//     moon   world position (10.0, 5.0, 0.0)
//   mars   world position (17.0, 0.0, 0.0)
// -- sun moved to (0, 0, 5)
// sun    world position (0.0, 0.0, 5.0)
//   earth  world position (0.0, 4.0, 5.0)
//     moon   world position (0.0, 5.0, 5.0)
//   mars   world position (7.0, 0.0, 5.0)
// -- moon now orbits mars
// sun    world position (0.0, 0.0, 5.0)
//   earth  world position (0.0, 4.0, 5.0)
//   mars   world position (7.0, 0.0, 5.0)
//     moon   world position (8.0, 0.0, 5.0)
// earth has children? no
// -- moon set free
// moon   world position (1.0, 0.0, 0.0)
// -- earth destroyed with its moon: 2 entities left
// sun    world position (0.0, 0.0, 5.0)
//   mars   world position (7.0, 0.0, 5.0)
