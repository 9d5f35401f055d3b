// Model-based randomized test of the game loop's entity features, kept apart from test_model.cpp:
// a World and a plain reference model go through seeded random sequences of create,
// destroy_recursive, set_parent / remove_parent, observe (on one entity or on any; some observers
// register another while they run, which must wait for the emit to end), emit (direct and
// through a CommandBuffer), prefab trees, and adds / removes of a component with requirements.
// After every step each entity's components, values and parent must match the model, every emit
// must call exactly the observers the model predicts in its order, and check_invariants() holds.
#include <cstdlib>
#include <ecs/ecs.hpp>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "game_loop_types.hpp"

namespace {

struct GlPing {
    int v = 0;
};

using GlPos = gl_test::Pos;
using GlVel = gl_test::Vel;
using GlBody = gl_test::RigidBody; // requires Pos and Vel (and Vel requires Mass and Pos)

} // namespace

namespace {

struct ModelEntity {
    ecs::Entity parent = ecs::INVALID_ENTITY;
    std::vector<ecs::Entity> children;
    bool pos = false, vel = false, body = false;
    int pos_v = 0;
    std::vector<int> observers; ///< observer numbers registered on it, in order
};

struct Observer {
    bool stops = false;
    bool spawns = false; ///< registers one more observer (on the current entity) the first time it runs
    bool spawned = false;
};

struct GameLoopModel {
    ecs::World world;
    std::map<ecs::Entity, ModelEntity> model; // ordered by handle: deterministic picks
    std::vector<Observer> observers;           // by observer number
    std::vector<int> global;                   // observers of any entity, in order
    std::vector<std::pair<int, ecs::Entity>> log;
    std::mt19937 rng;

    explicit GameLoopModel(uint32_t seed) : rng(seed) {}

    ecs::Entity pick() {
        auto it = model.begin();
        std::advance(it, static_cast<long>(rng() % model.size()));
        return it->first;
    }
    bool is_ancestor(ecs::Entity a, ecs::Entity of) const { // a is `of` or above it
        for (ecs::Entity e = of; e != ecs::INVALID_ENTITY; e = model.at(e).parent)
            if (e == a) return true;
        return false;
    }
    void link(ecs::Entity child, ecs::Entity parent) {
        model[child].parent = parent;
        model[parent].children.push_back(child);
    }
    void unlink(ecs::Entity child) {
        ModelEntity& c = model[child];
        if (c.parent == ecs::INVALID_ENTITY) return;
        auto& siblings = model[c.parent].children;
        for (size_t i = 0; i < siblings.size(); ++i)
            if (siblings[i] == child) siblings.erase(siblings.begin() + static_cast<long>(i));
        c.parent = ecs::INVALID_ENTITY;
    }
    void forget_subtree(ecs::Entity e) {
        const std::vector<ecs::Entity> kids = model[e].children;
        for (ecs::Entity k : kids) forget_subtree(k);
        model.erase(e);
    }
    ecs::ObserverId observe(ecs::Entity e, bool stops, bool spawns = false) {
        const int n = static_cast<int>(observers.size());
        observers.push_back(Observer{stops, spawns, false});
        auto fn = [this, n, stops](ecs::World&, ecs::Entity target, GlPing& ping, ecs::Propagation& p) {
            log.emplace_back(n, target);
            ++ping.v;
            if (stops) p.stop();
            // Registered during the emit: the model lists it at once, but the emit's expected log
            // was computed before, so it must not run before the emit ends (it runs in later ones).
            if (observers[size_t(n)].spawns && !observers[size_t(n)].spawned) {
                observers[size_t(n)].spawned = true;
                observe(target, false);
            }
        };
        if (e == ecs::INVALID_ENTITY) {
            global.push_back(n);
            return world.observe<GlPing>(fn);
        }
        model[e].observers.push_back(n);
        return world.observe<GlPing>(e, fn);
    }
    std::vector<std::pair<int, ecs::Entity>> expected_emit(ecs::Entity target) const {
        std::vector<std::pair<int, ecs::Entity>> out;
        ecs::Entity cur = target;
        for (uint32_t depth = 0;; ++depth) {
            bool stopped = false;
            for (int n : model.at(cur).observers) {
                out.emplace_back(n, cur);
                stopped = stopped || observers[size_t(n)].stops;
            }
            for (int n : global) {
                out.emplace_back(n, cur);
                stopped = stopped || observers[size_t(n)].stops;
            }
            if (stopped || depth == ecs::MAX_PROPAGATION) break;
            const ecs::Entity up = model.at(cur).parent;
            if (up == ecs::INVALID_ENTITY) break;
            cur = up;
        }
        return out;
    }

    void step() {
        const unsigned op = model.empty() ? 0u : static_cast<unsigned>(rng() % 12u);
        switch (op) {
        case 0:
        case 1: model[world.create()]; break;
        case 2: { // destroy a subtree
            const ecs::Entity e = pick();
            ecs::destroy_recursive(world, e);
            unlink(e);
            forget_subtree(e);
            break;
        }
        case 3: { // set_parent unless it would make a cycle
            const ecs::Entity c = pick(), p = pick();
            if (is_ancestor(c, p)) break;
            ecs::set_parent(world, c, p);
            if (model[c].parent == p) break; // already its child: the order stays
            unlink(c);
            link(c, p);
            break;
        }
        case 4: {
            const ecs::Entity c = pick();
            ecs::remove_parent(world, c);
            unlink(c);
            break;
        }
        case 5: {
            const ecs::Entity on = rng() % 4 == 0 ? ecs::INVALID_ENTITY : pick();
            const bool stops = rng() % 3 == 0;
            observe(on, stops, rng() % 4 == 0);
            break;
        }
        case 6:
        case 7: { // emit, directly or through a command buffer
            const ecs::Entity e = pick();
            const auto want = expected_emit(e);
            log.clear();
            if (op == 6) {
                world.emit(e, GlPing{});
            } else {
                ecs::CommandBuffer cb;
                world.each<const ecs::Parent>([&](ecs::Entity, const ecs::Parent&) {}); // iterating is fine for cb
                cb.emit(e, GlPing{});
                cb.flush(world);
            }
            REQUIRE(log == want);
            break;
        }
        case 8: { // add the requirer: GlPos and GlVel come along, a present GlPos keeps its value;
            // overwriting a present requirer is not an add: nothing comes along
            const ecs::Entity e = pick();
            world.add(e, GlBody{1});
            ModelEntity& m = model[e];
            if (m.body) break;
            m.body = true;
            if (!m.pos) m.pos_v = 0;
            m.pos = m.vel = true;
            break;
        }
        case 9: { // add or remove a required type by hand
            const ecs::Entity e = pick();
            ModelEntity& m = model[e];
            if (rng() % 2 == 0) {
                const int v = static_cast<int>(rng() % 100);
                world.add(e, GlPos{static_cast<float>(v), 0});
                m.pos = true;
                m.pos_v = v;
            } else {
                world.remove<GlPos>(e);
                m.pos = false;
            }
            break;
        }
        case 10: { // a prefab tree: body -> (pos -> pos), (vel)
            ecs::Prefab leaf = ecs::Prefab::create(GlPos{7, 0});
            ecs::Prefab mid = ecs::Prefab::create(GlPos{5, 0});
            mid.child(leaf);
            ecs::Prefab root = ecs::Prefab::create(GlBody{2});
            root.child(mid).child(ecs::Prefab::create(GlVel{1, 0})); // brings a Pos (and a Mass)
            const ecs::Entity r = ecs::instantiate(world, root);
            const auto& kids = world.get<ecs::Children>(r).entities;
            REQUIRE(kids.size() == 2);
            const ecs::Entity m1 = kids[0], v1 = kids[1];
            const ecs::Entity l1 = world.get<ecs::Children>(m1).entities.at(0);
            model[r] = ModelEntity{};
            model[r].body = model[r].pos = model[r].vel = true; // GlPos value-initialised: 0
            model[m1] = ModelEntity{};
            model[m1].pos = true;
            model[m1].pos_v = 5;
            model[l1] = ModelEntity{};
            model[l1].pos = true;
            model[l1].pos_v = 7;
            model[v1] = ModelEntity{};
            model[v1].vel = model[v1].pos = true;
            link(m1, r);
            link(v1, r);
            link(l1, m1);
            break;
        }
        default: { // remove the requirer: what it brought stays
            const ecs::Entity e = pick();
            world.remove<GlBody>(e);
            model[e].body = false;
            break;
        }
        }
    }

    void check() {
        REQUIRE(world.count() == model.size());
        for (const auto& [e, m] : model) {
            REQUIRE(world.alive(e));
            REQUIRE(world.has<GlBody>(e) == m.body);
            REQUIRE(world.has<GlPos>(e) == m.pos);
            REQUIRE(world.has<GlVel>(e) == m.vel);
            if (m.pos) REQUIRE(world.get<GlPos>(e).x == static_cast<float>(m.pos_v));
            const ecs::Parent* p = world.try_get<ecs::Parent>(e);
            REQUIRE((p != nullptr ? p->entity : ecs::INVALID_ENTITY) == m.parent);
            const ecs::Children* c = world.try_get<ecs::Children>(e);
            REQUIRE((c != nullptr ? c->entities : std::vector<ecs::Entity>{}) == m.children);
        }
        REQUIRE(world.check_invariants());
    }
};

} // namespace

TEST_CASE("model (game loop): emit/observe, prefab trees and required components against a reference model",
          "[model][entity_events][requires][prefab]") {
    // ECS_MODEL_SEEDS bounds the seeds (valgrind runs a few; the default build all 25).
    const char* seeds_env = std::getenv("ECS_MODEL_SEEDS");
    const long seeds = seeds_env != nullptr && *seeds_env != '\0' ? std::strtol(seeds_env, nullptr, 10) : 25;
    for (uint32_t seed = 1; seed <= static_cast<uint32_t>(seeds); ++seed) {
        INFO("seed " << seed);
        GameLoopModel m(seed);
        for (int i = 0; i < 400; ++i) {
            m.step();
            m.check();
        }
    }
}
