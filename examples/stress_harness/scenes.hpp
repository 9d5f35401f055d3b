// Scenes of the stress harness: components, a deterministic random generator, and five workloads,
// each a way to populate a World plus a list of named systems.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ecs/ecs.hpp>
#include <ecs/parallel.hpp> // each_par, for --threads

namespace harness {

// ---- Components ----------------------------------------------------------------------------------

struct Position {
    float x, y, z;
};
struct Velocity {
    float x, y, z;
};
struct Acceleration {
    float x, y, z;
};
struct Mass {
    float value;
};
struct Color {
    uint8_t r, g, b, a;
};
struct Rotation {
    float angle;
};
struct Spin {
    float speed;
};
struct Scale {
    float value;
};
struct Lifetime {
    float remaining;
    float total;
};
/// Moves a node around its parent (or the origin): local = rotation_z(angle) * translation(radius, 0, 0).
struct Orbit {
    float radius, angle, speed;
};
struct Leader {}; ///< tag: the head of a squad (churn)
struct Dying {};  ///< tag: added through deferred commands shortly before an entity is despawned (churn)

constexpr float DT = 1.0f / 60.0f; ///< fixed simulation step: results do not depend on timings

// ---- Deterministic random numbers (the same on every platform, unlike <random> distributions) ----

class Rng {
public:
    explicit Rng(uint64_t seed) : state_(seed) {}
    uint64_t next() {
        uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /// Uniform in [lo, hi).
    float uniform(float lo, float hi) {
        return lo + (hi - lo) * static_cast<float>(next() >> 40) * (1.0f / 16777216.0f);
    }
    uint8_t byte() { return static_cast<uint8_t>(next() >> 56); }

private:
    uint64_t state_;
};

using SystemList = std::vector<std::pair<std::string, std::function<void(ecs::World&)>>>;

/// A workload: fills a world with about `entities` entities and lists the systems of one frame.
class Scene {
public:
    virtual ~Scene() = default;
    virtual void populate(ecs::World& world, size_t entities) = 0;
    virtual SystemList systems() = 0;
    /// Called once the warm-up frames are done: scene counters restart here.
    virtual void begin_measurement() {}
    /// Extra facts for the report (e.g. spawns per frame); empty when there is nothing to add.
    virtual std::string notes(size_t frames) const {
        (void)frames;
        return {};
    }
};

struct SceneInfo {
    const char* name;
    const char* summary;
    size_t ramp_start; ///< first count of a ramp when --entities is not given
    std::unique_ptr<Scene> (*make)(uint64_t seed);
};

// ---- Shared systems ------------------------------------------------------------------------------

/// Where the per-entity update loops run (--threads N sets a ThreadPool); nullptr: sequential each.
/// Only loops that write nothing but their own terms use it, so results do not depend on it.
inline ecs::Executor* executor = nullptr;

/// A per-entity update loop: each_par on `executor` when set, else each_no_entity.
template <typename... Terms, typename Func>
void update(ecs::World& world, Func&& fn) {
    if (executor != nullptr) world.each_par<Terms...>(*executor, fn);
    else world.each_no_entity<Terms...>(fn);
}

inline void integrate(ecs::World& world) {
    update<Position, const Velocity>(world, [](Position& p, const Velocity& v) {
        p.x += v.x * DT;
        p.y += v.y * DT;
        p.z += v.z * DT;
    });
}

/// Sets every orbiting node's local matrix from its Orbit, advancing the angle.
inline void orbit(ecs::World& world) {
    update<ecs::LocalTransform, Orbit>(world, [](ecs::LocalTransform& local, Orbit& o) {
        o.angle += o.speed * DT;
        local.matrix = ecs::Mat4::rotation_z(o.angle) * ecs::Mat4::translation(o.radius, 0.0f, 0.0f);
    });
}

/// Reads every world transform (what a renderer's culling pass would do); keeps a bounding box.
struct Bounds {
    float min_x = 0, min_y = 0, max_x = 0, max_y = 0;
    void update(ecs::World& world) {
        min_x = min_y = 1e30f;
        max_x = max_y = -1e30f;
        world.each_no_entity<const ecs::WorldTransform>([this](const ecs::WorldTransform& w) {
            const float x = w.matrix.m[12], y = w.matrix.m[13];
            min_x = x < min_x ? x : min_x;
            max_x = x > max_x ? x : max_x;
            min_y = y < min_y ? y : min_y;
            max_y = y > max_y ? y : max_y;
        });
    }
};

// ---- flat: a swarm with 4 components -------------------------------------------------------------

class FlatScene final : public Scene {
public:
    explicit FlatScene(uint64_t seed) : rng_(seed) {}
    void populate(ecs::World& world, size_t entities) override {
        for (size_t i = 0; i < entities; ++i)
            world.create_with(Position{rng_.uniform(-100, 100), rng_.uniform(-100, 100), rng_.uniform(-100, 100)},
                              Velocity{rng_.uniform(-5, 5), rng_.uniform(-5, 5), rng_.uniform(-5, 5)},
                              Mass{rng_.uniform(0.5f, 4.0f)}, Color{rng_.byte(), rng_.byte(), rng_.byte(), 255});
    }
    SystemList systems() override {
        return {
            {"attract",
             [](ecs::World& w) {
                 // A spring pulling every particle towards the origin.
                 update<Velocity, const Position, const Mass>(w, 
                     [](Velocity& v, const Position& p, const Mass& m) {
                         const float k = DT / m.value;
                         v.x -= p.x * k;
                         v.y -= p.y * k;
                         v.z -= p.z * k;
                     });
             }},
            {"integrate", integrate},
            {"tint",
             [](ecs::World& w) {
                 update<Color, const Velocity>(w, [](Color& c, const Velocity& v) {
                     const float speed2 = v.x * v.x + v.y * v.y + v.z * v.z;
                     c.r = static_cast<uint8_t>(speed2 > 255.0f ? 255.0f : speed2);
                 });
             }},
        };
    }

private:
    Rng rng_;
};

// ---- wide: 8 components per entity -----------------------------------------------------------------

class WideScene final : public Scene {
public:
    explicit WideScene(uint64_t seed) : rng_(seed) {}
    void populate(ecs::World& world, size_t entities) override {
        for (size_t i = 0; i < entities; ++i) {
            const float total = rng_.uniform(1, 5);
            world.create_with(Position{rng_.uniform(-100, 100), rng_.uniform(-100, 100), 0},
                              Velocity{rng_.uniform(-5, 5), rng_.uniform(-5, 5), 0},
                              Acceleration{rng_.uniform(-1, 1), rng_.uniform(-1, 1), 0}, Rotation{0},
                              Spin{rng_.uniform(-3, 3)}, Scale{1}, Color{rng_.byte(), rng_.byte(), rng_.byte(), 255},
                              Lifetime{rng_.uniform(0, total), total});
        }
    }
    SystemList systems() override {
        return {
            {"accelerate",
             [](ecs::World& w) {
                 update<Velocity, const Acceleration>(w, [](Velocity& v, const Acceleration& a) {
                     v.x += a.x * DT;
                     v.y += a.y * DT;
                     v.z += a.z * DT;
                 });
             }},
            {"integrate", integrate},
            {"spin",
             [](ecs::World& w) {
                 update<Rotation, const Spin>(w, [](Rotation& r, const Spin& s) { r.angle += s.speed * DT; });
             }},
            {"age",
             [](ecs::World& w) {
                 // Lifetimes wrap around: the population stays constant here (see churn for despawns).
                 update<Lifetime>(w, [](Lifetime& l) {
                     l.remaining -= DT;
                     if (l.remaining < 0.0f) l.remaining += l.total;
                 });
             }},
            {"pulse",
             [](ecs::World& w) {
                 update<Scale, const Lifetime>(w, 
                     [](Scale& s, const Lifetime& l) { s.value = 0.5f + l.remaining / l.total; });
             }},
            {"tint",
             [](ecs::World& w) {
                 update<Color, const Rotation, const Lifetime>(w, 
                     [](Color& c, const Rotation& r, const Lifetime& l) {
                         c.g = static_cast<uint8_t>(static_cast<int>(r.angle * 40.0f) & 255);
                         c.a = static_cast<uint8_t>(255.0f * l.remaining / l.total);
                     });
             }},
            {"cull",
             [this](ecs::World& w) {
                 // Read-only pass over four components, as a renderer's visibility test would do.
                 size_t visible = 0;
                 w.each_no_entity<const Position, const Scale, const Rotation, const Color>(
                     [&visible](const Position& p, const Scale& s, const Rotation&, const Color& c) {
                         visible += (c.a > 8 && std::fabs(p.x) < 80.0f + s.value && std::fabs(p.y) < 60.0f + s.value);
                     });
                 visible_ = visible;
             }},
        };
    }

private:
    Rng rng_;
    size_t visible_ = 0;
};

// ---- trees: many small hierarchies (1 root, 4 children, 16 grandchildren) ---------------------------

class TreesScene final : public Scene {
public:
    static constexpr size_t TREE_SIZE = 21;
    explicit TreesScene(uint64_t seed) : rng_(seed) {}
    void populate(ecs::World& world, size_t entities) override {
        const size_t trees = entities / TREE_SIZE > 0 ? entities / TREE_SIZE : 1;
        for (size_t t = 0; t < trees; ++t) {
            const ecs::Entity root = node(world, rng_.uniform(10, 400), rng_.uniform(-0.2f, 0.2f));
            for (int c = 0; c < 4; ++c) {
                const ecs::Entity child = node(world, rng_.uniform(2, 6), rng_.uniform(-2, 2));
                ecs::set_parent(world, child, root);
                for (int g = 0; g < 4; ++g) ecs::set_parent(world, node(world, rng_.uniform(0.3f, 1), 3), child);
            }
        }
    }
    SystemList systems() override {
        return {
            {"orbit", orbit},
            {"propagate", [](ecs::World& w) { ecs::propagate_transforms(w); }},
            {"bounds", [this](ecs::World& w) { bounds_.update(w); }},
        };
    }

private:
    ecs::Entity node(ecs::World& world, float radius, float speed) {
        return world.create_with(ecs::LocalTransform{}, ecs::WorldTransform{},
                                 Orbit{radius, rng_.uniform(0, 6.2831853f), speed});
    }
    Rng rng_;
    Bounds bounds_;
};

// ---- chain: one hierarchy, as deep as there are entities ------------------------------------------

class ChainScene final : public Scene {
public:
    explicit ChainScene(uint64_t seed) : rng_(seed) {}
    void populate(ecs::World& world, size_t entities) override {
        std::vector<ecs::Entity> links;
        links.reserve(entities);
        for (size_t i = 0; i < entities; ++i)
            links.push_back(world.create_with(ecs::LocalTransform{}, ecs::WorldTransform{},
                                              Orbit{1.0f, rng_.uniform(-0.1f, 0.1f), rng_.uniform(-0.01f, 0.01f)}));
        // Linked bottom-up: each new parent has no parent yet, so set_parent's cycle check (a walk up
        // the new parent's ancestors) is O(1) and building the chain stays linear.
        for (size_t i = entities; i-- > 1;) ecs::set_parent(world, links[i], links[i - 1]);
    }
    SystemList systems() override {
        return {
            {"orbit", orbit},
            {"propagate", [](ecs::World& w) { ecs::propagate_transforms(w); }},
            {"bounds", [this](ecs::World& w) { bounds_.update(w); }},
        };
    }

private:
    Rng rng_;
    Bounds bounds_;
};

// ---- churn: spawns and despawns every frame -------------------------------------------------------

/**
 * A steady population with a high turnover: every entity lives 0.5 to 2 s. Despawns go through the
 * world's deferred queue (flushed after each system) and through
 * destroy_recursive for squads; spawns alternate between prefab instantiation and a standalone
 * CommandBuffer. One spawn in eight is a squad: a leader prefab with three member prefabs attached
 * by set_parent, kept in formation by propagate_transforms. The spawner's random generator is a
 * resource of the world, so everything the frames depend on is in the world (--rollback restores it).
 */
class ChurnScene final : public Scene {
public:
    explicit ChurnScene(uint64_t seed)
        : seed_(seed),
          drone_(ecs::Prefab::create(Position{0, 0, 0}, Velocity{0, 0, 0}, Lifetime{1, 1}, Color{80, 200, 255, 255})),
          leader_(ecs::Prefab::create(Position{0, 0, 0}, Velocity{0, 0, 0}, Lifetime{1, 1}, Leader{},
                                      ecs::LocalTransform{}, ecs::WorldTransform{})),
          member_(ecs::Prefab::create(Position{0, 0, 0}, ecs::LocalTransform{}, ecs::WorldTransform{},
                                      Color{255, 160, 40, 255})) {}

    void populate(ecs::World& world, size_t entities) override {
        target_ = entities;
        world.set_resource(Random{Rng(seed_)});
        spawn_up_to(world, entities, true);
    }

    SystemList systems() override {
        return {
            {"move", integrate},
            {"age",
             [this](ecs::World& w) {
                 w.each<Lifetime>(ecs::Exclude<Leader>{}, [&w, this](ecs::Entity e, Lifetime& l) {
                     l.remaining -= DT;
                     if (l.remaining <= 0.0f) {
                         w.deferred().destroy(e);
                         ++despawned_;
                     } else if (l.remaining <= 0.25f && l.remaining + DT > 0.25f) {
                         w.deferred().add(e, Dying{}); // a migration, deferred like the rest
                     }
                 });
                 w.each<Lifetime, const Leader>([this](ecs::Entity e, Lifetime& l, const Leader&) {
                     l.remaining -= DT;
                     if (l.remaining <= 0.0f) dead_leaders_.push_back(e);
                 });
                 // Outside the loops: destroy each squad with its members.
                 for (const ecs::Entity e : dead_leaders_) {
                     const ecs::Children* members = w.try_get<ecs::Children>(e);
                     despawned_ += 1 + (members != nullptr ? members->entities.size() : 0);
                     ecs::destroy_recursive(w, e);
                 }
                 dead_leaders_.clear();
             }},
            {"spawn", [this](ecs::World& w) { spawn_up_to(w, target_, false); }},
            {"formation",
             [](ecs::World& w) {
                 w.each_no_entity<ecs::LocalTransform, const Position, const Leader>(
                     [](ecs::LocalTransform& t, const Position& p, const Leader&) {
                         t.matrix = ecs::Mat4::translation(p.x, p.y, p.z);
                     });
                 ecs::propagate_transforms(w);
                 w.each_no_entity<Position, const ecs::WorldTransform>(
                     ecs::Exclude<Leader>{}, [](Position& p, const ecs::WorldTransform& t) {
                         p = Position{t.matrix.m[12], t.matrix.m[13], t.matrix.m[14]};
                     });
             }},
        };
    }

    void begin_measurement() override { spawned_ = despawned_ = 0; }

    std::string notes(size_t frames) const override {
        if (frames == 0) return {};
        char text[128];
        std::snprintf(text, sizeof text, "%.0f spawns + %.0f despawns per frame",
                      static_cast<double>(spawned_) / static_cast<double>(frames),
                      static_cast<double>(despawned_) / static_cast<double>(frames));
        return text;
    }

private:
    /// Spawns until the world holds `target` entities. The initial population (`initial`) starts at
    /// random ages, so that deaths are spread evenly over time from the first frame on.
    void spawn_up_to(ecs::World& world, size_t target, bool initial) {
        Rng& rng = world.resource<Random>().rng;
        size_t live = world.count();
        while (live < target) {
            const Position p{rng.uniform(-100, 100), rng.uniform(-100, 100), 0};
            const Velocity v{rng.uniform(-10, 10), rng.uniform(-10, 10), 0};
            const float total = rng.uniform(0.5f, 2.0f);
            const Lifetime life{initial ? rng.uniform(DT, total) : total, total};
            const uint64_t kind = rng.next() % 8;
            if (kind == 0 && target - live >= 4) {
                const ecs::Entity leader = ecs::instantiate(world, leader_, p, v, life);
                for (int i = 0; i < 3; ++i) {
                    const float angle = 2.0943951f * static_cast<float>(i);
                    const ecs::Entity m = ecs::instantiate(
                        world, member_,
                        ecs::LocalTransform{ecs::Mat4::rotation_z(angle) * ecs::Mat4::translation(2, 0, 0)});
                    ecs::set_parent(world, m, leader);
                }
                live += 4;
                spawned_ += 4;
            } else if (kind % 2 == 0) {
                ecs::instantiate(world, drone_, p, v, life);
                ++live;
                ++spawned_;
            } else {
                buffer_.create_with(p, v, life);
                ++live;
                ++spawned_;
            }
        }
        buffer_.flush(world);
    }

    /// The spawner's random generator, kept in the world (a resource) with the rest of the simulated
    /// state: a world restored by ecs::Rollback draws the same numbers again (--rollback).
    struct Random {
        Rng rng;
    };
    uint64_t seed_;
    ecs::Prefab drone_;
    ecs::Prefab leader_;
    ecs::Prefab member_;
    ecs::CommandBuffer buffer_;
    std::vector<ecs::Entity> dead_leaders_;
    size_t target_ = 0;
    size_t spawned_ = 0;
    size_t despawned_ = 0;
};

/// Seed of a scene's content: the user's seed mixed with the scene's name (every mode that builds a
/// scene from --seed builds the same world).
inline uint64_t scene_seed(uint64_t seed, const char* name) {
    uint64_t h = seed * 0x100000001B3ull + 0xCBF29CE484222325ull;
    for (const char* p = name; *p != '\0'; ++p) h = (h ^ static_cast<unsigned char>(*p)) * 0x100000001B3ull;
    return h;
}

template <typename S>
std::unique_ptr<Scene> make(uint64_t seed) {
    return std::make_unique<S>(seed);
}

/// The scenes, in the order `--scene all` runs them.
inline const std::vector<SceneInfo>& scenes() {
    static const std::vector<SceneInfo> list = {
        {"flat", "swarm, 4 components (Position, Velocity, Mass, Color), 3 systems", 20000, &make<FlatScene>},
        {"wide", "8 components per entity, 7 systems", 10000, &make<WideScene>},
        {"trees", "hierarchies of 21 (root, 4 children, 16 grandchildren), propagate_transforms", 10500,
         &make<TreesScene>},
        {"chain", "one hierarchy as deep as the entity count, propagate_transforms", 5000, &make<ChainScene>},
        {"churn", "steady population living 0.5-2 s: deferred despawns, prefab + CommandBuffer spawns, squads",
         10000, &make<ChurnScene>},
    };
    return list;
}

} // namespace harness
