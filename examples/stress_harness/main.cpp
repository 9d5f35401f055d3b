// stress_harness: how many entities can this ECS run within one 16.6 ms (60 Hz) frame, here?
//
// Five scenes (flat, wide, trees, chain, churn; see scenes.hpp) each populate a World and run their
// systems through an ecs::Schedule (a run condition, a state, an ecs::FixedStep), frame after
// frame, with a fixed simulation step (so the simulated state depends only on --seed, never on
// timings). Every system is timed on its own.
//
// By default every scene "ramps": its entity count grows x1.5 per step until the median frame time
// exceeds the budget; the largest count that fits is the answer. Give --entities N for one run of
// fixed size instead. The run ends with a snapshot round trip (serialize, deserialize into a new
// world, compare) and exits non-zero if it fails.
//
// Modes that run nothing else: --changed (what change detection saves, changed_pass.hpp), --remote
// (a demo world served to the remote inspector, remote_mode.hpp), and --rollback N (a rollback
// netcode's worst case, rollback_mode.hpp: every frame, load the frame N back with ecs::Rollback and
// simulate the N frames since again; reports the cost per frame and checks that the re-simulated
// world equals the original).
//
// Run with --help for the options.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#if defined(_WIN32)
#  include <io.h>
#  define HARNESS_ISATTY(fd) _isatty(fd)
#else
#  include <time.h>
#  include <unistd.h>
#  define HARNESS_ISATTY(fd) isatty(fd)
#endif

#include <ecs/ecs.hpp>
#include <ecs/schedule.hpp>

#include "changed_pass.hpp"
#include "rollback_mode.hpp"
#include "scenes.hpp"
#include "snapshot_check.hpp"
// ---- remote inspector (--remote) ----
#if defined(ECS_HARNESS_REMOTE)
#  include "remote_mode.hpp"
#endif

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

/// Milliseconds of wall-clock time since an arbitrary origin.
double wall_ms() { return std::chrono::duration<double, std::milli>(Clock::now().time_since_epoch()).count(); }

#if defined(CLOCK_THREAD_CPUTIME_ID)
constexpr bool HAVE_CPU_CLOCK = true;
/// Milliseconds of CPU time consumed by this thread: time other processes take does not count.
double cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}
#else
constexpr bool HAVE_CPU_CLOCK = false;
double cpu_ms() { return wall_ms(); }
#endif

/// The clock all figures are measured with (see --wall).
double (*measure_ms)() = &cpu_ms;

/// Set per scene with --describe: the next run_scene prints ecs::describe of its built world.
bool describe_next_world = false;

// ---- Options -------------------------------------------------------------------------------------

struct Options {
    std::string scene = "all";
    size_t entities = 0; ///< 0: not given
    size_t frames = 0;   ///< 0: not given (60 for a fixed run, 10 per ramp step)
    bool ramp = false;
    uint64_t seed = 1;
    double budget_ms = 16.6;
    size_t max_entities = 8000000;
    bool wall = !HAVE_CPU_CLOCK;
    size_t threads = 1;
    std::string json;
    bool describe = false;
    std::string save; ///< --save FILE: the snapshot of the round trip's world
    std::string load; ///< --load FILE: load and check a snapshot instead of running scenes
    bool changed = false;    ///< --changed: the change-detection comparison instead of the scenes
    double changed_pct = 1.0; ///< --changed-pct P: percent of the bodies that move per frame
    bool remote = false;      ///< --remote [PORT]: serve a running demo to the remote inspector
    unsigned remote_port = 27750;
    size_t rollback = 0;      ///< --rollback N: re-simulate the last N frames every frame (0: off)
};

const char* const HELP = R"(stress_harness: how many entities can this ECS run within one frame, here?

Usage: stress_harness [options]

  --scene NAME        flat | wide | trees | chain | churn | all        (default: all)
                        flat   swarm, 4 components, 3 systems
                        wide   8 components per entity, 7 systems
                        trees  hierarchies of 21 entities + propagate_transforms
                        chain  one hierarchy as deep as the entity count
                        churn  spawns and despawns every frame (deferred commands,
                               CommandBuffer, prefabs, destroy_recursive)
  --entities N        run exactly N entities (one fixed-size run per scene)
  --ramp              grow the entity count x1.5 per step until the median frame
                      exceeds the budget; report the largest count that fits.
                      This is the default when --entities is not given; with
                      --entities, the ramp starts at N.
  --frames N          measured frames per run (default 60) or per ramp step
                      (default 10); 2 warm-up frames are run first, untimed
  --budget MS         frame budget in milliseconds (default 16.6)
  --max-entities N    stop ramps at this count (default 8000000)
  --seed N            seed of the simulated content (default 1); all output but
                      the timings is a function of the seed
  --wall              measure wall-clock time instead of this thread's CPU time.
                      CPU time (the default) leaves out the time other processes
                      take on a busy machine; on an idle one both agree
  --threads N         run the per-entity update loops with each_par on a
                      ThreadPool(N) (results are identical); implies --wall, and
                      each scene is run again on one thread at the size reached
                      to report the speed-up (default 1: no pool)
  --json FILE         also write every figure as JSON to FILE
  --describe          print ecs::describe(world) for each scene once its world is
                      built (archetypes, fragmentation, queries, memory per room)
  --save FILE         also write the snapshot of the final round trip (a churn
                      world: prefabs, hierarchies, tags) to FILE
  --load FILE         run nothing: load the snapshot FILE (written by --save, or
                      edited by examples/python/edit_snapshot.py), check it and
                      print its summary line; exit status 1 if it does not load
  --changed           run nothing else: measure what change detection saves. N
                      bodies (--entities, default 1000000) in one archetype, of
                      which a scattered --changed-pct percent move each frame
                      (stamped changed by a mutable get); a system mirrors
                      every Position (a GPU upload) twice: through a
                      Changed<Position> query handle and with a full pass.
                      Prints both times per frame, entities processed vs
                      total, and checks that the two mirrors are equal (exit
                      status 1 if not). --frames as for a run (default 60)
  --changed-pct P     percent of the bodies moving per frame (default 1)
  --remote [PORT]     run nothing else: a demo world (flat + trees scenes,
                      --entities, default 2000) runs at 60 frames per second and
                      is served to the remote inspector on 127.0.0.1:PORT (default
                      27750, 0: a free port), writes allowed; the URL is printed.
                      Runs until killed, or for --frames N frames when given.
  --rollback N        run nothing else: a rollback netcode's worst case. Each
                      --scene (default all) is built with --entities (default
                      100000) and an ecs::Rollback ring of N+1 frames; every
                      frame F is simulated and saved, then frame F-N is loaded
                      and frames F-N+1..F are simulated and saved again.
                      Prints the medians of the step, save, load and rollback
                      (load + N steps + N saves) per frame and their ratios to
                      the step. Then as many frames again, untimed, check
                      that each re-simulated world equals the original (a
                      digest of every entity and component value; exit
                      status 1 if not). --frames as for a run (default 60),
                      N+2 warm-up frames first; figures are printed only
                      (--json is ignored)
  --help              this text

Output: per scene, the ramp steps (or the run), then a table of systems with
the median and 95th percentile of their time per frame, entity-frames per
second, archetype count and memory in use; then a summary and a snapshot round
trip check ("snapshot round trip: OK ..."). Exit status: 0 on success, 1 if the
snapshot check fails, 2 on bad options.
)";

bool parse_size(const char* text, size_t& out) {
    if (text == nullptr || *text == '\0') return false;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (*end != '\0' || text[0] == '-') return false;
    out = static_cast<size_t>(v);
    return true;
}

/// Returns 0 to continue, 1 to exit successfully (--help), 2 on a bad option.
int parse_options(int argc, char** argv, Options& o) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
        auto need_size = [&](size_t& out, size_t min) {
            if (!parse_size(value, out) || out < min) {
                std::fprintf(stderr, "stress_harness: %s needs a number >= %zu\n", arg.c_str(), min);
                return false;
            }
            ++i;
            return true;
        };
        if (arg == "--help" || arg == "-h") {
            std::fputs(HELP, stdout);
            return 1;
        } else if (arg == "--scene" && value != nullptr) {
            o.scene = value;
            ++i;
        } else if (arg == "--entities") {
            if (!need_size(o.entities, 1)) return 2;
        } else if (arg == "--frames") {
            if (!need_size(o.frames, 1)) return 2;
        } else if (arg == "--max-entities") {
            if (!need_size(o.max_entities, 1)) return 2;
        } else if (arg == "--seed") {
            size_t seed = 0;
            if (!need_size(seed, 0)) return 2;
            o.seed = seed;
        } else if (arg == "--budget" && value != nullptr) {
            o.budget_ms = std::atof(value);
            ++i;
            if (!(o.budget_ms > 0.0)) {
                std::fprintf(stderr, "stress_harness: --budget needs a positive number of milliseconds\n");
                return 2;
            }
        } else if (arg == "--ramp") {
            o.ramp = true;
        } else if (arg == "--threads") {
            if (!need_size(o.threads, 1)) return 2;
        } else if (arg == "--wall") {
            o.wall = true;
        } else if (arg == "--describe") {
            o.describe = true;
        } else if (arg == "--json" && value != nullptr) {
            o.json = value;
            ++i;
        } else if (arg == "--save" && value != nullptr) {
            o.save = value;
            ++i;
        } else if (arg == "--remote") {
            o.remote = true;
            if (value != nullptr && value[0] >= '0' && value[0] <= '9') {
                size_t port = 0;
                if (!parse_size(value, port) || port > 65535) {
                    std::fprintf(stderr, "--remote: bad port %s\n", value);
                    return 2;
                }
                o.remote_port = static_cast<unsigned>(port);
                ++i;
            }
        } else if (arg == "--rollback") {
            if (!need_size(o.rollback, 1)) return 2;
        } else if (arg == "--changed") {
            o.changed = true;
        } else if (arg == "--changed-pct" && value != nullptr) {
            o.changed_pct = std::atof(value);
            ++i;
            if (!(o.changed_pct >= 0.0 && o.changed_pct <= 100.0)) {
                std::fprintf(stderr, "stress_harness: --changed-pct needs a percentage in [0, 100]\n");
                return 2;
            }
        } else if (arg == "--load" && value != nullptr) {
            o.load = value;
            ++i;
        } else {
            std::fprintf(stderr, "stress_harness: unknown or incomplete option '%s' (see --help)\n", arg.c_str());
            return 2;
        }
    }
    if (o.entities == 0) o.ramp = true;
    if (o.threads > 1) o.wall = true; // a thread's CPU time would leave out the workers
    measure_ms = o.wall ? &wall_ms : &cpu_ms;
    bool known = o.scene == "all";
    for (const harness::SceneInfo& s : harness::scenes()) known = known || o.scene == s.name;
    if (!known) {
        std::fprintf(stderr, "stress_harness: unknown scene '%s' (see --help)\n", o.scene.c_str());
        return 2;
    }
    return 0;
}

// ---- Measurements --------------------------------------------------------------------------------

struct Stats {
    double median = 0;
    double p95 = 0;
    double mean = 0;
};

Stats summarize(std::vector<double> samples) {
    Stats s;
    if (samples.empty()) return s;
    std::sort(samples.begin(), samples.end());
    const size_t n = samples.size();
    s.median = n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
    s.p95 = samples[std::min(n - 1, static_cast<size_t>(std::ceil(0.95 * static_cast<double>(n))) - 1)];
    double total = 0;
    for (const double v : samples) total += v;
    s.mean = total / static_cast<double>(n);
    return s;
}

struct SystemResult {
    std::string name;
    Stats ms;
};

struct RunResult {
    std::string scene;
    size_t requested = 0; ///< the entity count asked for
    size_t entities = 0;  ///< live entities after the last frame
    size_t frames = 0;
    double setup_ms = 0;
    Stats frame;      ///< in the measuring clock (CPU time unless --wall)
    Stats frame_wall; ///< wall-clock frame time, for reference
    Stats overhead;   ///< frame time not spent inside a system: deferred flushes, registry
    std::vector<SystemResult> systems;
    size_t archetypes = 0;
    size_t memory_bytes = 0;
    std::string notes;

    [[nodiscard]] double entity_frames_per_second() const {
        return frame.median > 0 ? static_cast<double>(entities) * 1000.0 / frame.median : 0.0;
    }
};

class Progress {
public:
    Progress() : enabled_(HARNESS_ISATTY(2) != 0) {}
    void show(const char* scene, size_t entities, size_t frame, size_t frames) {
        if (!enabled_) return;
        std::fprintf(stderr, "\r  [%s] %zu entities: frame %zu/%zu   ", scene, entities, frame, frames);
        std::fflush(stderr);
    }
    void clear() {
        if (!enabled_) return;
        std::fprintf(stderr, "\r%60s\r", "");
        std::fflush(stderr);
    }

private:
    bool enabled_;
};

/// Builds a world for `info` with `entities` entities and runs `frames` timed frames (after 2
/// untimed warm-up frames). The world is handed back through `keep` when non-null.
RunResult run_scene(const harness::SceneInfo& info, size_t entities, size_t frames, uint64_t seed,
                    Progress& progress, std::unique_ptr<ecs::World>* keep = nullptr) {
    RunResult r;
    r.scene = info.name;
    r.requested = entities;
    r.frames = frames;

    auto world = std::make_unique<ecs::World>();
    std::unique_ptr<harness::Scene> scene = info.make(harness::scene_seed(seed, info.name));
    const Clock::time_point setup = Clock::now();
    scene->populate(*world, entities);
    r.setup_ms = ms_since(setup);
    if (describe_next_world) {
        describe_next_world = false;
        std::printf("  ecs::describe after building the scene (%zu entities):\n", entities);
        const std::string report = ecs::describe(*world);
        size_t begin = 0; // indent every line of the report
        while (begin < report.size()) {
            const size_t end = report.find('\n', begin);
            const size_t stop = end == std::string::npos ? report.size() : end;
            std::printf("    %.*s\n", static_cast<int>(stop - begin), report.c_str() + begin);
            begin = stop + 1;
        }
    }

    // The game loop: every system is an exclusive system of one Schedule, wrapped in a timer and
    // followed by a flush of the deferred commands; it runs only while the harness is not paused (a
    // run condition). A State goes from WarmUp to Measured after the warm-up frames: its on_enter
    // system restarts the samples and the scene counters. The schedule runs on a FixedStep of DT,
    // advanced by DT per frame, so each frame is exactly one step and results never depend on timings.
    const harness::SystemList list = scene->systems();
    std::vector<std::vector<double>> samples(list.size());
    std::vector<double> frame_ms, frame_wall_ms, overhead_ms;
    double in_systems = 0;
    enum class Phase { WarmUp, Measured };
    struct Paused {
        bool on = false;
    };
    world->set_resource(ecs::State<Phase>{Phase::WarmUp});
    world->set_resource(Paused{});
    ecs::Schedule schedule;
    schedule.on_enter(Phase::Measured, "begin_measurement", [&](ecs::World&) {
        for (auto& s : samples) s.clear();
        scene->begin_measurement(); // scene counters cover timed frames only
    });
    for (size_t i = 0; i < list.size(); ++i) {
        schedule.add(list[i].first, [&, i](ecs::World& w) {
            const double t0 = measure_ms();
            list[i].second(w);
            w.flush_deferred();
            const double ms = measure_ms() - t0;
            samples[i].push_back(ms);
            in_systems += ms;
        }).run_if([](const ecs::World& w) { return !w.resource<Paused>().on; });
    }
    ecs::FixedStep step(static_cast<double>(harness::DT), 1);

    constexpr size_t WARMUP = 2;
    for (size_t f = 0; f < WARMUP + frames; ++f) {
        if (f == WARMUP) world->resource<ecs::State<Phase>>().set_next(Phase::Measured);
        in_systems = 0;
        const double w0 = wall_ms();
        const double t0 = measure_ms();
        step.advance(*world, schedule, static_cast<double>(harness::DT));
        const double ms = measure_ms() - t0;
        const double wall = wall_ms() - w0;
        if (f >= WARMUP) {
            frame_ms.push_back(ms);
            frame_wall_ms.push_back(wall);
            overhead_ms.push_back(std::max(0.0, ms - in_systems));
        }
        progress.show(info.name, entities, f + 1, WARMUP + frames);
    }
    progress.clear();

    r.frame = summarize(frame_ms);
    r.frame_wall = summarize(frame_wall_ms);
    r.overhead = summarize(overhead_ms);
    for (size_t i = 0; i < list.size(); ++i) r.systems.push_back(SystemResult{list[i].first, summarize(samples[i])});
    r.entities = world->count();
    r.archetypes = world->archetype_count();
    r.memory_bytes = world->memory_bytes();
    r.notes = scene->notes(frames);
    if (keep != nullptr) *keep = std::move(world);
    return r;
}

// ---- Reporting -----------------------------------------------------------------------------------

std::string human_count(double v) {
    char text[32];
    if (v >= 1e9) std::snprintf(text, sizeof text, "%.2f G", v / 1e9);
    else if (v >= 1e6) std::snprintf(text, sizeof text, "%.1f M", v / 1e6);
    else if (v >= 1e3) std::snprintf(text, sizeof text, "%.1f k", v / 1e3);
    else std::snprintf(text, sizeof text, "%.0f", v);
    return text;
}

double mib(size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

void print_systems(const RunResult& r) {
    std::printf("  %-28s %10s %10s %6s\n", "system", "median ms", "p95 ms", "share");
    const double total = r.frame.median > 0 ? r.frame.median : 1.0;
    for (const SystemResult& s : r.systems)
        std::printf("  %-28s %10.3f %10.3f %5.0f%%\n", s.name.c_str(), s.ms.median, s.ms.p95,
                    100.0 * s.ms.median / total);
    std::printf("  %-28s %10.3f %10.3f %5.0f%%\n", "(deferred flush + registry)", r.overhead.median, r.overhead.p95,
                100.0 * r.overhead.median / total);
    std::printf("  %-28s %10.3f %10.3f\n", "frame", r.frame.median, r.frame.p95);
    if (measure_ms != &wall_ms)
        std::printf("  %-28s %10.3f %10.3f\n", "frame (wall clock)", r.frame_wall.median, r.frame_wall.p95);
    std::printf("  %zu entities, %s entity-frames/s, %zu archetypes, %.1f MiB in use, setup %.0f ms\n", r.entities,
                human_count(r.entity_frames_per_second()).c_str(), r.archetypes, mib(r.memory_bytes), r.setup_ms);
    if (!r.notes.empty()) std::printf("  %s\n", r.notes.c_str());
}

struct SceneOutcome {
    std::string scene;
    bool ramped = false;
    bool fits = false;       ///< a measured count fits in the budget
    bool hit_ceiling = false; ///< the ramp stopped at --max-entities while still fitting
    RunResult chosen;        ///< the largest run that fits (or the only / first run)
    std::vector<RunResult> steps;
    double speedup = 0.0;     ///< --threads N: frame median on 1 thread / on N (0: not measured)
};

SceneOutcome ramp_scene(const harness::SceneInfo& info, const Options& o, Progress& progress) {
    SceneOutcome out;
    out.scene = info.name;
    out.ramped = true;
    const size_t frames = o.frames != 0 ? o.frames : 10;
    size_t n = o.entities != 0 ? o.entities : info.ramp_start;
    n = std::min(n, o.max_entities);
    std::printf("  %12s %11s %10s %10s %10s\n", "entities", "median ms", "p95 ms", "wall ms", "setup ms");
    for (;;) {
        RunResult r = run_scene(info, n, frames, o.seed, progress);
        const bool fits = r.frame.median <= o.budget_ms;
        std::printf("  %12zu %11.3f %10.3f %10.3f %10.0f  %s\n", r.entities, r.frame.median, r.frame.p95,
                    r.frame_wall.median, r.setup_ms, fits ? "fits" : "over budget");
        std::fflush(stdout);
        out.steps.push_back(r);
        if (!fits) {
            if (!out.fits) out.chosen = r;
            break;
        }
        out.fits = true;
        out.chosen = r;
        if (n >= o.max_entities) {
            out.hit_ceiling = true;
            break;
        }
        n = std::min(o.max_entities, static_cast<size_t>(std::ceil(static_cast<double>(n) * 1.5)));
    }
    if (out.fits)
        std::printf("  largest count that fits in %.1f ms: %zu entities (median frame %.2f ms)%s\n", o.budget_ms,
                    out.chosen.entities, out.chosen.frame.median,
                    out.hit_ceiling ? " -- stopped at --max-entities" : "");
    else
        std::printf("  largest count that fits in %.1f ms: none -- %zu entities already take %.2f ms\n", o.budget_ms,
                    out.chosen.entities, out.chosen.frame.median);
    return out;
}

void json_stats(std::FILE* f, const Stats& s) {
    std::fprintf(f, "{\"median\": %.6f, \"p95\": %.6f, \"mean\": %.6f}", s.median, s.p95, s.mean);
}

void json_run(std::FILE* f, const RunResult& r, const char* indent) {
    std::fprintf(f, "{\"requested\": %zu, \"entities\": %zu, \"frames\": %zu, \"setup_ms\": %.3f, \"frame_ms\": ",
                 r.requested, r.entities, r.frames, r.setup_ms);
    json_stats(f, r.frame);
    std::fprintf(f, ", \"frame_wall_ms\": ");
    json_stats(f, r.frame_wall);
    std::fprintf(f, ",\n%s \"overhead_ms\": ", indent);
    json_stats(f, r.overhead);
    std::fprintf(f, ",\n%s \"systems\": [", indent);
    for (size_t i = 0; i < r.systems.size(); ++i) {
        std::fprintf(f, "%s{\"name\": \"%s\", \"ms\": ", i == 0 ? "" : ", ", r.systems[i].name.c_str());
        json_stats(f, r.systems[i].ms);
        std::fprintf(f, "}");
    }
    std::fprintf(f, "],\n%s \"entity_frames_per_second\": %.1f, \"archetypes\": %zu, \"memory_bytes\": %zu, "
                    "\"notes\": \"%s\"}",
                 indent, r.entity_frames_per_second(), r.archetypes, r.memory_bytes, r.notes.c_str());
}

bool write_json(const std::string& path, const Options& o, const std::vector<SceneOutcome>& outcomes,
                const harness::SnapshotReport& snap, double total_s) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) return false;
    std::fprintf(f, "{\n  \"ecs_version\": \"%d.%d.%d\",\n  \"seed\": %llu,\n  \"budget_ms\": %.4f,\n",
                 ECS_VERSION_MAJOR, ECS_VERSION_MINOR, ECS_VERSION_PATCH, static_cast<unsigned long long>(o.seed),
                 o.budget_ms);
#if defined(NDEBUG)
    std::fprintf(f, "  \"optimized\": true,\n");
#else
    std::fprintf(f, "  \"optimized\": false,\n");
#endif
    std::fprintf(f, "  \"clock\": \"%s\",\n", measure_ms == &wall_ms ? "wall" : "thread_cpu");
    std::fprintf(f, "  \"hardware_threads\": %u,\n  \"scenes\": [\n", std::thread::hardware_concurrency());
    for (size_t s = 0; s < outcomes.size(); ++s) {
        const SceneOutcome& out = outcomes[s];
        std::fprintf(f, "    {\"scene\": \"%s\", \"ramp\": %s, \"fits_in_budget\": %s, \"largest_fitting_entities\": %zu,\n",
                     out.scene.c_str(), out.ramped ? "true" : "false", out.fits ? "true" : "false",
                     out.fits ? out.chosen.entities : size_t(0));
        std::fprintf(f, "     \"threads\": %zu, \"speedup\": %.3f,\n", o.threads, out.speedup);
        std::fprintf(f, "     \"result\": ");
        json_run(f, out.chosen, "     ");
        std::fprintf(f, ",\n     \"steps\": [");
        for (size_t i = 0; i < out.steps.size(); ++i) {
            const RunResult& r = out.steps[i];
            std::fprintf(f, "%s{\"entities\": %zu, \"median_ms\": %.6f, \"p95_ms\": %.6f}", i == 0 ? "" : ", ",
                         r.entities, r.frame.median, r.frame.p95);
        }
        std::fprintf(f, "]}%s\n", s + 1 < outcomes.size() ? "," : "");
    }
    std::fprintf(f, "  ],\n  \"snapshot\": {\"ok\": %s, \"entities\": %zu, \"components\": %zu, \"archetypes\": %zu, "
                    "\"bytes\": %zu, \"write_ms\": %.3f, \"read_ms\": %.3f, \"checksum\": \"%016llx\"},\n",
                 snap.ok ? "true" : "false", snap.entities, snap.components, snap.archetypes, snap.bytes, snap.write_ms,
                 snap.read_ms, static_cast<unsigned long long>(snap.checksum));
    std::fprintf(f, "  \"total_seconds\": %.3f\n}\n", total_s);
    return std::fclose(f) == 0;
}

const char* compiler() {
#if defined(__clang__)
    return "clang++ " __clang_version__;
#elif defined(__GNUC__)
    return "g++ " __VERSION__;
#elif defined(_MSC_VER)
    return "MSVC";
#else
    return "unknown compiler";
#endif
}

/// --changed: the Changed<Position> mirror pass against a full one (changed_pass.hpp).
int run_changed(const Options& o) {
    const size_t n = o.entities != 0 ? o.entities : 1000000;
    const size_t frames = o.frames != 0 ? o.frames : 60;
    std::printf("ecs %d.%d.%d stress harness --changed: %zu bodies, %.3g%% of them (scattered) move per frame, %zu frames\n",
                ECS_VERSION_MAJOR, ECS_VERSION_MINOR, ECS_VERSION_PATCH, n, o.changed_pct, frames);
    std::printf("times are %s, median per frame\n", o.wall ? "wall-clock" : "this thread's CPU time");
    const harness::ChangedPassReport r = harness::run_changed_pass(n, frames, o.changed_pct, o.seed, measure_ms);
    const Stats move = summarize(r.move_ms), changed = summarize(r.changed_ms), full = summarize(r.full_ms);
    std::printf("  move (mutable get<Position> per mover)    %9.3f ms\n", move.median);
    std::printf("  mirror, Changed<Position> handle          %9.3f ms  %.0f of %zu entities processed (%.2f%%)\n",
                changed.median, r.changed_rows_per_frame, n,
                n != 0 ? 100.0 * r.changed_rows_per_frame / static_cast<double>(n) : 0.0);
    std::printf("  mirror, full pass                         %9.3f ms  %zu of %zu entities processed\n", full.median, n, n);
    std::printf("  Changed pass / full pass: %.3fx the time, %.2fx the entities\n",
                full.median > 0 ? changed.median / full.median : 0.0,
                n != 0 ? r.changed_rows_per_frame / static_cast<double>(n) : 0.0);
    std::printf("mirrors equal: %s\n", r.mirrors_equal ? "yes" : "NO (the Changed pass missed a change)");
    return r.mirrors_equal ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    const int parsed = parse_options(argc, argv, o);
    if (parsed == 1) return 0;
    if (parsed == 2) return 2;

    if (!o.load.empty()) {
        ecs::World world;
        const std::string problem = harness::load_snapshot(world, o.load);
        if (!problem.empty()) {
            std::printf("snapshot check: FAILED: %s\n", problem.c_str());
            return 1;
        }
        std::printf("loaded %s: %s\n", o.load.c_str(), harness::snapshot_summary(world).c_str());
        std::printf("snapshot check: OK (hierarchy consistent, invariants hold)\n");
        return 0;
    }

    if (o.changed) return run_changed(o);
    if (o.rollback != 0) {
        if (!o.json.empty()) std::fprintf(stderr, "stress_harness: --rollback prints its figures only; --json is ignored\n");
        harness::RollbackSettings settings;
        settings.scene = o.scene;
        settings.back = o.rollback;
        settings.entities = o.entities != 0 ? o.entities : 100000;
        settings.frames = o.frames != 0 ? o.frames : 60;
        settings.seed = o.seed;
        settings.budget_ms = o.budget_ms;
        settings.clock_ms = measure_ms;
        settings.wall = measure_ms == &wall_ms;
        return harness::run_rollback(settings);
    }
    if (o.remote) {
#if defined(ECS_HARNESS_REMOTE)
        return harness::run_remote(static_cast<uint16_t>(o.remote_port), o.entities != 0 ? o.entities : 2000, o.frames, o.seed);
#else
        std::fprintf(stderr, "--remote: this build has no remote inspector (cpp-httplib was not found)\n");
        return 2;
#endif
    }

    const Clock::time_point start = Clock::now();
    Progress progress;
    std::printf("ecs %d.%d.%d stress harness: how many entities fit in one %.1f ms frame on this machine?\n",
                ECS_VERSION_MAJOR, ECS_VERSION_MINOR, ECS_VERSION_PATCH, o.budget_ms);
#if defined(NDEBUG)
    const char* build = "optimised build";
#else
    const char* build = "DEBUG build (assertions on): timings are not representative, use the release preset";
#endif
    std::unique_ptr<ecs::ThreadPool> pool;
    if (o.threads > 1) {
        pool = std::make_unique<ecs::ThreadPool>(o.threads);
        harness::executor = pool.get();
    }
    std::printf("%s, %s, %u hardware threads (%zu used), seed %llu\n", compiler(), build,
                std::thread::hardware_concurrency(), o.threads, static_cast<unsigned long long>(o.seed));
    std::printf("times are %s\n", o.wall ? "wall-clock" : "this thread's CPU time (other processes do not count; --wall for wall-clock)");
    if (o.ramp)
        std::printf("each scene grows x1.5 per step until its median frame exceeds %.1f ms\n", o.budget_ms);

    std::vector<SceneOutcome> outcomes;
    for (const harness::SceneInfo& info : harness::scenes()) {
        if (o.scene != "all" && o.scene != info.name) continue;
        std::printf("\n[%s] %s\n", info.name, info.summary);
        describe_next_world = o.describe; // the scene's first world only (not every ramp step)
        SceneOutcome out;
        if (o.ramp) {
            out = ramp_scene(info, o, progress);
        } else {
            out.scene = info.name;
            out.chosen = run_scene(info, o.entities, o.frames != 0 ? o.frames : 60, o.seed, progress);
            out.fits = out.chosen.frame.median <= o.budget_ms;
            out.steps.push_back(out.chosen);
            std::printf("  %zu entities, %zu frames: median %.3f ms, p95 %.3f ms (%s the %.1f ms budget)\n",
                        out.chosen.entities, out.chosen.frames, out.chosen.frame.median, out.chosen.frame.p95,
                        out.fits ? "within" : "over", o.budget_ms);
        }
        print_systems(out.chosen);
        if (pool != nullptr) {
            // The same size on one thread: the speed-up the pool gives this scene.
            harness::executor = nullptr;
            const RunResult one = run_scene(info, out.chosen.requested, out.chosen.frames, o.seed, progress);
            harness::executor = pool.get();
            out.speedup = out.chosen.frame.median > 0.0 ? one.frame.median / out.chosen.frame.median : 0.0;
            std::printf("  speed-up with %zu threads: %.2fx (median frame %.3f ms on 1 thread, %.3f ms on %zu)\n",
                        o.threads, out.speedup, one.frame.median, out.chosen.frame.median, o.threads);
        }
        std::fflush(stdout);
        outcomes.push_back(std::move(out));
    }

    std::printf("\nsummary: entities within a %.1f ms frame%s\n", o.budget_ms, o.ramp ? "" : " (fixed-size runs)");
    std::printf("  %-6s %12s %10s %10s %12s %11s %10s\n", "scene", "entities", "median ms", "ns/entity",
                "entity-fr/s", "archetypes", "MiB");
    for (const SceneOutcome& out : outcomes) {
        const RunResult& r = out.chosen;
        char count[32];
        if (out.fits) std::snprintf(count, sizeof count, "%zu%s", r.entities, out.hit_ceiling ? "+" : "");
        else std::snprintf(count, sizeof count, "<%zu", r.entities);
        std::printf("  %-6s %12s %10.3f %10.1f %12s %11zu %10.1f\n", out.scene.c_str(), count, r.frame.median,
                    r.entities != 0 ? r.frame.median * 1e6 / static_cast<double>(r.entities) : 0.0,
                    human_count(r.entity_frames_per_second()).c_str(), r.archetypes, mib(r.memory_bytes));
    }

    // Snapshot round trip on a churn world of fixed size (so its checksum depends only on the seed):
    // it holds prefab instances, hierarchies, tags, transforms and a free list full of dead slots.
    const size_t snapshot_entities = o.entities != 0 ? std::min<size_t>(o.entities, 200000) : 20000;
    std::unique_ptr<ecs::World> snapshot_world;
    const harness::SceneInfo& churn = harness::scenes().back();
    run_scene(churn, snapshot_entities, 30, o.seed, progress, &snapshot_world);
    const harness::SnapshotReport snap = harness::snapshot_round_trip(*snapshot_world);
    const double total_s = ms_since(start) / 1000.0;
    if (snap.ok)
        std::printf("\nsnapshot round trip: OK (%zu entities, %zu components, %zu archetypes, %.1f MiB, write %.1f ms, "
                    "read %.1f ms, checksum %016llx)\n",
                    snap.entities, snap.components, snap.archetypes, mib(snap.bytes), snap.write_ms, snap.read_ms,
                    static_cast<unsigned long long>(snap.checksum));
    else
        std::printf("\nsnapshot round trip: FAILED: %s\n", snap.failure.c_str());
    if (!o.save.empty()) {
        const std::string problem = harness::save_snapshot(*snapshot_world, o.save);
        if (!problem.empty()) {
            std::fprintf(stderr, "stress_harness: %s\n", problem.c_str());
            return 1;
        }
        std::printf("snapshot saved to %s: %s\n", o.save.c_str(), harness::snapshot_summary(*snapshot_world).c_str());
    }

    if (!o.json.empty()) {
        if (write_json(o.json, o, outcomes, snap, total_s)) {
            std::printf("figures written to %s\n", o.json.c_str());
        } else {
            std::fprintf(stderr, "stress_harness: cannot write %s\n", o.json.c_str());
            return 1;
        }
    }
    std::printf("total time %.1f s\n", total_s);
    return snap.ok ? 0 : 1;
}
