// --rollback N: what a rollback netcode's worst case costs. Every frame a late input arrives for the
// frame N frames back, so the world is loaded from that frame (ecs::Rollback) and the N frames since
// are simulated again, each one saved anew.
//
// A scene (scenes.hpp, the --seed content of a fixed-size run) is built and run as the harness runs
// it: its systems, each followed by a flush of the deferred commands, in an ecs::Schedule on an
// ecs::FixedStep of DT, one step per frame. An ecs::Rollback ring of N + 1 frames holds frames F-N..F.
// Each measured frame F is timed in four parts:
//   step      the normal fixed-step update of frame F (what a game without rollback pays);
//   save      rb.save(F);
//   load      rb.load(F - N);
//   rollback  the load, then a step and a save for each of frames F-N+1..F (the late input's cost;
//             its N steps and N saves are also reported apart).
// The first N + 2 frames fill the ring and warm it up (every slot gets its archetypes and rows), untimed.
// Saves and loads still allocate for components that own heap memory: copy_from destroys and
// copy-constructs every row, so each ecs::Children (trees, chain, churn) allocates its vector again.
//
// The check: the simulation is deterministic (fixed step, the scenes' random draws kept in the
// world), so once frame F is simulated again the world must equal the one before the load. After the
// measured frames, as many further frames run the same way, untimed, each taking a digest of every
// live entity and every component value (snapshot_check.hpp: a hash keyed by entity handle,
// independent of row order) and the entity count before the load and after the re-simulation, and
// comparing them; the loaded frame must differ from frame F (else the check proves nothing). A
// mismatch fails the run (exit status 1). The checks do not run during measured frames: tens of
// milliseconds of other work just before a timed part made it up to 2x slower here (churn's step),
// which would have skewed the plain step against the re-simulated ones.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <ecs/ecs.hpp>
#include <ecs/rollback.hpp>
#include <ecs/schedule.hpp>

#include "scenes.hpp"
#include "snapshot_check.hpp"

namespace harness {

/// The options of --rollback (main.cpp parses them).
struct RollbackSettings {
    std::string scene = "all"; ///< a scene name or "all"
    size_t back = 1;           ///< N: frames re-simulated per frame
    size_t entities = 100000;
    size_t frames = 60;        ///< measured frames per scene
    uint64_t seed = 1;
    double budget_ms = 16.6;
    double (*clock_ms)() = nullptr; ///< the harness's clock (CPU time unless --wall)
    bool wall = false;              ///< clock_ms is the wall clock (for the report's wording)
};

struct RollbackReport {
    std::string scene;
    size_t back = 0;
    size_t entities = 0; ///< live entities after the last frame
    size_t archetypes = 0;
    size_t memory_bytes = 0; ///< of the world; the ring holds N + 1 copies of about this size
    std::vector<double> step_ms, save_ms, load_ms, rollback_ms; ///< one sample per measured frame
    std::vector<double> resim_steps_ms, resim_saves_ms; ///< the N steps and the N saves of each rollback
    size_t checked = 0;        ///< frames whose re-simulated world was compared (after the measured ones)
    std::string failure;       ///< the first check that failed; empty when all passed
};

namespace detail {

inline double median(std::vector<double> samples) {
    if (samples.empty()) return 0.0;
    std::sort(samples.begin(), samples.end());
    const size_t n = samples.size();
    return n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

inline bool same(const WorldDigest& a, const WorldDigest& b) {
    return a.entities == b.entities && a.components == b.components && a.checksum == b.checksum;
}

inline std::string describe_digest(const WorldDigest& d) {
    char text[96];
    std::snprintf(text, sizeof text, "%zu entities, %zu components, checksum %016llx", d.entities, d.components,
                  static_cast<unsigned long long>(d.checksum));
    return text;
}

} // namespace detail

/// Builds `info`'s world from `seed` (already mixed with the scene's name, see scene_seed) and runs
/// N + 2 warm-up frames, `frames` measured ones and `frames` checked ones, each followed by a
/// rollback of `back` frames.
inline RollbackReport run_rollback_scene(const SceneInfo& info, size_t entities, size_t frames, size_t back,
                                         uint64_t seed, double (*clock_ms)()) {
    RollbackReport r;
    r.scene = info.name;
    r.back = back;
    ecs::World world;
    const std::unique_ptr<Scene> scene = info.make(seed);
    scene->populate(world, entities);

    const SystemList list = scene->systems();
    ecs::Schedule schedule;
    for (const auto& system : list) {
        const auto* fn = &system.second;
        schedule.add(system.first, [fn](ecs::World& w) {
            (*fn)(w);
            w.flush_deferred();
        });
    }
    ecs::FixedStep fixed(static_cast<double>(DT), 1);
    auto step = [&] { fixed.advance(world, schedule, static_cast<double>(DT)); };

    ecs::Rollback ring(world, back + 1);
    const int64_t n = static_cast<int64_t>(back);
    int64_t frame = 0; // the state right after populate is frame 0
    ring.save(frame);
    const size_t warmup = back + 2;
    for (size_t i = 0; i < warmup + 2 * frames && r.failure.empty(); ++i) {
        const bool measured = i >= warmup && i < warmup + frames;
        const bool checked = i >= warmup + frames;
        ++frame;
        const double t0 = clock_ms();
        step();
        const double t1 = clock_ms();
        ring.save(frame);
        const double t2 = clock_ms();
        if (!ring.holds(frame - n)) continue; // the ring is still filling
        WorldDigest before;
        if (checked) before = digest(world);

        const double t3 = clock_ms();
        if (!ring.load(frame - n)) {
            r.failure = "frame " + std::to_string(frame - n) + " was saved but load() did not find it";
            break;
        }
        const double t4 = clock_ms();
        if (checked && detail::same(digest(world), before)) {
            r.failure = "the loaded frame " + std::to_string(frame - n) + " equals frame " + std::to_string(frame) +
                        ": the scene does not change, the check would prove nothing";
            break;
        }
        double steps_ms = 0, saves_ms = 0;
        for (int64_t f = frame - n + 1; f <= frame; ++f) {
            const double s0 = clock_ms();
            step();
            const double s1 = clock_ms();
            ring.save(f);
            const double s2 = clock_ms();
            steps_ms += s1 - s0;
            saves_ms += s2 - s1;
        }
        if (measured) {
            r.step_ms.push_back(t1 - t0);
            r.save_ms.push_back(t2 - t1);
            r.load_ms.push_back(t4 - t3);
            r.rollback_ms.push_back((t4 - t3) + steps_ms + saves_ms);
            r.resim_steps_ms.push_back(steps_ms);
            r.resim_saves_ms.push_back(saves_ms);
        }
        if (!checked) continue;
        const WorldDigest after = digest(world);
        if (!detail::same(after, before)) {
            r.failure = "frame " + std::to_string(frame) + " simulated again differs: before the load " +
                        detail::describe_digest(before) + ", after " + detail::describe_digest(after);
            break;
        }
        ++r.checked;
    }
    r.entities = world.count();
    r.archetypes = world.archetype_count();
    r.memory_bytes = world.memory_bytes();
    return r;
}

/// --rollback N: runs the selected scenes, prints their figures and checks. Exit status 0, or 1 when
/// a re-simulated world differs from the original.
inline int run_rollback(const RollbackSettings& s) {
    std::printf("ecs %d.%d.%d stress harness --rollback %zu: every frame, load the frame %zu back and simulate "
                "%zu frames again\n",
                ECS_VERSION_MAJOR, ECS_VERSION_MINOR, ECS_VERSION_PATCH, s.back, s.back, s.back);
#if defined(NDEBUG)
    const char* build = "optimised build";
#else
    const char* build = "DEBUG build (assertions on): timings are not representative, use the release preset";
#endif
    std::printf("%s; %zu entities, %zu measured frames (after %zu warm-up, before %zu checked), seed %llu, ring of "
                "%zu frames\n",
                build, s.entities, s.frames, s.back + 2, s.frames, static_cast<unsigned long long>(s.seed), s.back + 1);
    std::printf("times are %s, median per frame\n", s.wall ? "wall-clock" : "this thread's CPU time");

    std::vector<RollbackReport> reports;
    for (const SceneInfo& info : scenes()) {
        if (s.scene != "all" && s.scene != info.name) continue;
        std::printf("\n[%s] %s\n", info.name, info.summary);
        std::fflush(stdout);
        RollbackReport r = run_rollback_scene(info, s.entities, s.frames, s.back, scene_seed(s.seed, info.name),
                                              s.clock_ms);
        const double step = detail::median(r.step_ms), save = detail::median(r.save_ms);
        const double load = detail::median(r.load_ms), rollback = detail::median(r.rollback_ms);
        const double late = step + save + rollback; // the frame a late input lands in
        auto times_step = [step](double ms) {
            char text[32];
            std::snprintf(text, sizeof text, "%.2fx the step", step > 0 ? ms / step : 0.0);
            return std::string(text);
        };
        auto row = [](const std::string& label, double ms, const std::string& note) {
            std::printf("  %-48s %9.3f ms%s%s\n", label.c_str(), ms, note.empty() ? "" : "  ", note.c_str());
        };
        std::printf("  %zu entities, %zu archetypes, %.1f MiB in the world (the ring holds %zu copies)\n", r.entities,
                    r.archetypes, static_cast<double>(r.memory_bytes) / (1024.0 * 1024.0), s.back + 1);
        row("step (one fixed-step update: the plain frame)", step, "");
        row("save (Rollback::save)", save, times_step(save));
        row("load (Rollback::load)", load, times_step(load));
        const std::string n = std::to_string(s.back);
        row("rollback (load + " + n + " steps + " + n + " saves)", rollback,
            times_step(rollback) + " (free saves and loads would make it " + n + "x)");
        const double steps = detail::median(r.resim_steps_ms), saves = detail::median(r.resim_saves_ms);
        const double per = static_cast<double>(s.back);
        std::printf("    of which %s steps %.3f ms (%.3f each) and %s saves %.3f ms (%.3f each)\n", n.c_str(), steps,
                    steps / per, n.c_str(), saves, saves / per);
        char budget[64];
        std::snprintf(budget, sizeof budget, ", %s the %.1f ms budget", late <= s.budget_ms ? "within" : "over",
                      s.budget_ms);
        row("frame with a late input (step + save + rollback)", late, times_step(late) + budget);
        if (r.failure.empty())
            std::printf("  rollback check OK: %zu of %zu frames equal after loading frame F-%zu and simulating %zu "
                        "frames again (%zu more frames, untimed)\n",
                        r.checked, s.frames, s.back, s.back, s.frames);
        else
            std::printf("  rollback check FAILED: %s\n", r.failure.c_str());
        std::fflush(stdout);
        reports.push_back(std::move(r));
    }

    if (reports.size() > 1) {
        std::printf("\nsummary: --rollback %zu, medians per frame (ms)\n", s.back);
        std::printf("  %-6s %10s %9s %9s %9s %10s %10s %7s\n", "scene", "entities", "step", "save", "load", "rollback",
                    "late frame", "ratio");
        for (const RollbackReport& r : reports) {
            const double step = detail::median(r.step_ms), save = detail::median(r.save_ms);
            const double rollback = detail::median(r.rollback_ms);
            std::printf("  %-6s %10zu %9.3f %9.3f %9.3f %10.3f %10.3f %6.2fx%s\n", r.scene.c_str(), r.entities, step,
                        save, detail::median(r.load_ms), rollback, step + save + rollback,
                        step > 0 ? rollback / step : 0.0, r.failure.empty() ? "" : "  check FAILED");
        }
        std::printf("  (ratio: rollback / step)\n");
    }
    bool ok = !reports.empty();
    for (const RollbackReport& r : reports) ok = ok && r.failure.empty();
    if (ok) std::printf("rollback check OK\n");
    else std::printf("rollback check FAILED\n");
    return ok ? 0 : 1;
}

} // namespace harness
