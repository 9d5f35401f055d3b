// visual_harness: a solar system and a particle swarm drawn with SDL2, running on the ecs library.
//
// The sun, planets and moons form hierarchies (Parent/Children through set_parent); each body's
// LocalTransform is a rotation about its parent followed by an offset, and propagate_transforms
// turns them into WorldTransforms every frame. A swarm of particles orbits the sun. Everything runs
// through an ecs::SystemRegistry; the on-screen readout shows the frame time and what the ECS costs.
//
// Keys: P add a planet (with moons)   M add a moon to a random planet   D destroy a random planet
//       with its moons (destroy_recursive)   R move a random moon to another planet (set_parent)
//       + / - add / remove 500 particles   SPACE pause   F12 screenshot.bmp   ESC quit
//
// Headless (no display needed; used by the test): --headless --frames N --screenshot FILE.bmp
// renders N frames into an off-screen surface with SDL's software renderer, pressing a few keys on
// the way, and saves the last frame as a BMP.
#define SDL_MAIN_HANDLED
#include <SDL.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <ecs/ecs.hpp>

#include "font.hpp"

// ---- remote inspector (--remote [PORT]; built when ecs::remote exists) ----
#if defined(ECS_HARNESS_REMOTE)
#  include <thread>
#  include <ecs/remote.hpp>
#endif

namespace {

constexpr int WIDTH = 960;
constexpr int HEIGHT = 640;
constexpr float TAU = 6.2831853f;
constexpr float GM = 2.0e6f; ///< the sun's gravity for particles (pixels^3 / s^2)

// ---- Components ----------------------------------------------------------------------------------

struct Body {
    float radius; ///< in pixels
    uint8_t r, g, b;
};
struct Orbit {
    float distance; ///< from the parent, in pixels
    float angle;    ///< radians
    float speed;    ///< radians per second
};
struct Sun {};
struct Planet {};
struct Moon {};
struct ParticlePos {
    float x, y;
};
struct ParticleVel {
    float x, y;
};
struct ParticleTint {
    uint8_t r, g, b;
};

// ---- Resources -----------------------------------------------------------------------------------

struct Sim {
    float dt = 1.0f / 60.0f;
    bool paused = false;
    float sun_x = WIDTH * 0.5f;
    float sun_y = HEIGHT * 0.5f;
};

class Rng {
public:
    explicit Rng(uint64_t seed) : state_(seed) {}
    uint64_t next() {
        uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    float uniform(float lo, float hi) {
        return lo + (hi - lo) * static_cast<float>(next() >> 40) * (1.0f / 16777216.0f);
    }
    size_t below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(next() % n); }

private:
    uint64_t state_;
};

// ---- remote inspector: field descriptions, so the inspector shows and edits the components ----
#if defined(ECS_HARNESS_REMOTE)
} // namespace
ECS_REFLECT(Body, radius, r, g, b);
ECS_REFLECT(Orbit, distance, angle, speed);
ECS_REFLECT(ParticlePos, x, y);
ECS_REFLECT(ParticleVel, x, y);
ECS_REFLECT(ParticleTint, r, g, b);
namespace {
#endif

// ---- The simulation ------------------------------------------------------------------------------

class SolarSystem {
public:
    explicit SolarSystem(uint64_t seed) : rng_(seed) {
        world_.set_resource(Sim{});
        sun_ = world_.create_with(Sun{}, Body{34, 255, 200, 60},
                                  ecs::LocalTransform{ecs::Mat4::translation(WIDTH * 0.5f, HEIGHT * 0.5f, 0)},
                                  ecs::WorldTransform{});
        const float distances[] = {70, 105, 150, 205, 265};
        for (const float d : distances) add_planet(d);
        add_particles(2500);

        systems_.add("orbits", [](ecs::World& w) {
            const Sim& sim = w.resource<Sim>();
            if (sim.paused) return;
            w.each_no_entity<ecs::LocalTransform, Orbit>([&sim](ecs::LocalTransform& local, Orbit& o) {
                o.angle += o.speed * sim.dt;
                local.matrix = ecs::Mat4::rotation_z(o.angle) * ecs::Mat4::translation(o.distance, 0, 0);
            });
        });
        systems_.add("propagate", [](ecs::World& w) { ecs::propagate_transforms(w); });
        systems_.add("swarm", [](ecs::World& w) {
            const Sim& sim = w.resource<Sim>();
            if (sim.paused) return;
            const float dt = sim.dt, sx = sim.sun_x, sy = sim.sun_y;
            w.each_no_entity<ParticlePos, ParticleVel>([=](ParticlePos& p, ParticleVel& v) {
                const float dx = sx - p.x, dy = sy - p.y;
                const float r2 = dx * dx + dy * dy + 400.0f; // softened: no slingshot at the centre
                const float a = GM / (r2 * std::sqrt(r2));
                v.x += dx * a * dt;
                v.y += dy * a * dt;
                p.x += v.x * dt;
                p.y += v.y * dt;
            });
        });
    }

    void step() {
        const auto t0 = std::chrono::steady_clock::now();
        systems_.run_all(world_);
        update_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }

    // -- edits (the keys) --

    void add_planet(float distance = 0) {
        if (distance <= 0) distance = rng_.uniform(60, 300);
        const Body body{rng_.uniform(6, 14), static_cast<uint8_t>(rng_.uniform(80, 255)),
                        static_cast<uint8_t>(rng_.uniform(80, 255)), static_cast<uint8_t>(rng_.uniform(120, 255))};
        const ecs::Entity planet = world_.create_with(
            Planet{}, body, Orbit{distance, rng_.uniform(0, TAU), 40.0f / distance * rng_.uniform(0.8f, 1.2f)},
            ecs::LocalTransform{}, ecs::WorldTransform{});
        ecs::set_parent(world_, planet, sun_);
        const size_t moons = rng_.below(3);
        for (size_t i = 0; i < moons; ++i) add_moon(planet);
    }

    void add_moon(ecs::Entity planet = ecs::INVALID_ENTITY) {
        if (planet == ecs::INVALID_ENTITY) planet = random_planet();
        if (!world_.alive(planet)) return;
        const float planet_radius = world_.get<Body>(planet).radius;
        const ecs::Entity moon = world_.create_with(
            Moon{}, Body{rng_.uniform(2, 4), 200, 200, 210},
            Orbit{planet_radius + rng_.uniform(6, 18), rng_.uniform(0, TAU), rng_.uniform(1.5f, 4.0f)},
            ecs::LocalTransform{}, ecs::WorldTransform{});
        ecs::set_parent(world_, moon, planet);
    }

    void destroy_planet() { ecs::destroy_recursive(world_, random_planet()); }

    /// Moves a random moon to another planet: set_parent updates both planets' Children.
    void reparent_moon() {
        std::vector<ecs::Entity> moons;
        world_.each<const Moon>([&moons](ecs::Entity e, const Moon&) { moons.push_back(e); });
        if (moons.empty()) return;
        const ecs::Entity moon = moons[rng_.below(moons.size())];
        const ecs::Entity target = random_planet();
        if (world_.alive(target)) ecs::set_parent(world_, moon, target);
    }

    void add_particles(size_t n) {
        const Sim& sim = world_.resource<Sim>();
        for (size_t i = 0; i < n; ++i) {
            const float r = rng_.uniform(90, 290), a = rng_.uniform(0, TAU);
            const float speed = std::sqrt(GM / r) * rng_.uniform(0.85f, 1.05f);
            const float x = sim.sun_x + r * std::cos(a), y = sim.sun_y + r * std::sin(a);
            // Ice-blue dust, with one grain in five a warm rock.
            const float shade = rng_.uniform(0.55f, 1.0f);
            const bool rock = rng_.below(5) == 0;
            const ParticleTint tint = rock ? ParticleTint{static_cast<uint8_t>(255 * shade), static_cast<uint8_t>(150 * shade), 60}
                                           : ParticleTint{static_cast<uint8_t>(110 * shade), static_cast<uint8_t>(190 * shade),
                                                          static_cast<uint8_t>(255 * shade)};
            world_.create_with(ParticlePos{x, y}, ParticleVel{-std::sin(a) * speed, std::cos(a) * speed}, tint);
        }
    }

    void remove_particles(size_t n) {
        world_.each<const ParticlePos>([&](ecs::Entity e, const ParticlePos&) {
            if (n > 0) {
                world_.deferred().destroy(e); // structural change during iteration: deferred
                --n;
            }
        });
        world_.flush_deferred();
    }

    void toggle_pause() { world_.resource<Sim>().paused = !world_.resource<Sim>().paused; }

    ecs::World& world() { return world_; }
    [[nodiscard]] double update_ms() const { return update_ms_; }

private:
    ecs::Entity random_planet() {
        std::vector<ecs::Entity> planets;
        world_.each<const Planet>([&planets](ecs::Entity e, const Planet&) { planets.push_back(e); });
        return planets.empty() ? ecs::INVALID_ENTITY : planets[rng_.below(planets.size())];
    }

    ecs::World world_;
    ecs::SystemRegistry systems_;
    Rng rng_;
    ecs::Entity sun_;
    double update_ms_ = 0;
};

// ---- Drawing -------------------------------------------------------------------------------------

void fill_circle(SDL_Renderer* r, float cx, float cy, float radius) {
    const int rad = static_cast<int>(radius + 0.5f);
    for (int dy = -rad; dy <= rad; ++dy) {
        const float half = std::sqrt(std::max(0.0f, radius * radius - static_cast<float>(dy * dy)));
        SDL_RenderDrawLine(r, static_cast<int>(cx - half), static_cast<int>(cy) + dy, static_cast<int>(cx + half),
                           static_cast<int>(cy) + dy);
    }
}

void ring(SDL_Renderer* r, float cx, float cy, float radius) {
    const int steps = std::max(24, static_cast<int>(radius * 0.5f));
    SDL_Point points[1024];
    const int n = std::min(steps, 1023);
    for (int i = 0; i <= n; ++i) {
        const float a = TAU * static_cast<float>(i) / static_cast<float>(n);
        points[i] = SDL_Point{static_cast<int>(cx + radius * std::cos(a)), static_cast<int>(cy + radius * std::sin(a))};
    }
    SDL_RenderDrawLines(r, points, n + 1);
}

void text(SDL_Renderer* r, const std::string& s, int x, int y, int scale) {
    font::draw(s.c_str(), 0, 0, [&](int px, int py) {
        const SDL_Rect rect{x + px * scale, y + py * scale, scale, scale};
        SDL_RenderFillRect(r, &rect);
    });
}

struct Hud {
    double frame_ms = 0;  ///< smoothed wall time of a whole frame
    double update_ms = 0; ///< smoothed time in the ECS systems
    double render_ms = 0; ///< smoothed time spent drawing
    void smooth(double frame, double update, double render) {
        const double k = frame_ms == 0 ? 1.0 : 0.1;
        frame_ms += k * (frame - frame_ms);
        update_ms += k * (update - update_ms);
        render_ms += k * (render - render_ms);
    }
};

std::vector<SDL_Point> make_stars(uint64_t seed) {
    Rng rng(seed ^ 0xABCDEFull);
    std::vector<SDL_Point> stars(220);
    for (SDL_Point& p : stars)
        p = SDL_Point{static_cast<int>(rng.uniform(0, WIDTH)), static_cast<int>(rng.uniform(0, HEIGHT))};
    return stars;
}

void render(SDL_Renderer* r, SolarSystem& sim, const Hud& hud, const std::vector<SDL_Point>& stars) {
    ecs::World& w = sim.world();
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND);
    SDL_SetRenderDrawColor(r, 6, 8, 20, 255);
    SDL_RenderClear(r);
    SDL_SetRenderDrawColor(r, 90, 90, 120, 255);
    SDL_RenderDrawPoints(r, stars.data(), static_cast<int>(stars.size()));

    // Orbit rings: each orbiting body's ring is centred on its parent's world position.
    SDL_SetRenderDrawColor(r, 40, 50, 90, 255);
    w.each<const Orbit, const ecs::Parent>([&](ecs::Entity, const Orbit& o, const ecs::Parent& p) {
        if (const ecs::WorldTransform* parent = w.try_get<ecs::WorldTransform>(p.entity))
            ring(r, parent->matrix.m[12], parent->matrix.m[13], o.distance);
    });

    // Particles.
    w.each_no_entity<const ParticlePos, const ParticleTint>([r](const ParticlePos& p, const ParticleTint& t) {
        SDL_SetRenderDrawColor(r, t.r, t.g, t.b, 210);
        const SDL_Rect dot{static_cast<int>(p.x), static_cast<int>(p.y), 2, 2};
        SDL_RenderFillRect(r, &dot);
    });

    // The sun's glow, then every body at its world position.
    const Sim& s = w.resource<Sim>();
    for (int i = 4; i >= 1; --i) {
        SDL_SetRenderDrawColor(r, 255, 170, 40, static_cast<uint8_t>(14 * (5 - i)));
        fill_circle(r, s.sun_x, s.sun_y, 34.0f + 9.0f * static_cast<float>(i));
    }
    w.each_no_entity<const Body, const ecs::WorldTransform>([r](const Body& b, const ecs::WorldTransform& t) {
        SDL_SetRenderDrawColor(r, b.r, b.g, b.b, 255);
        fill_circle(r, t.matrix.m[12], t.matrix.m[13], b.radius);
    });

    // Readout.
    char lines[3][160];
    std::snprintf(lines[0], sizeof lines[0], "FRAME %.2f MS (%.0f FPS)", hud.frame_ms,
                  hud.frame_ms > 0 ? 1000.0 / hud.frame_ms : 0.0);
    std::snprintf(lines[1], sizeof lines[1], "ECS UPDATE %.3f MS  DRAW %.2f MS", hud.update_ms, hud.render_ms);
    std::snprintf(lines[2], sizeof lines[2], "%zu ENTITIES: %zu PLANETS, %zu MOONS, %zu PARTICLES", w.count(),
                  w.count<Planet>(), w.count<Moon>(), w.count<ParticlePos>());
    const int panel_w = 16 + std::max({static_cast<int>(std::strlen(lines[0])) * 12, static_cast<int>(std::strlen(lines[1])) * 8,
                                       static_cast<int>(std::strlen(lines[2])) * 8});
    SDL_SetRenderDrawColor(r, 0, 0, 0, 160);
    const SDL_Rect panel{8, 8, panel_w, 64};
    SDL_RenderFillRect(r, &panel);
    SDL_SetRenderDrawColor(r, 120, 255, 140, 255);
    text(r, lines[0], 16, 16, 3);
    SDL_SetRenderDrawColor(r, 230, 230, 230, 255);
    text(r, lines[1], 16, 38, 2);
    text(r, lines[2], 16, 54, 2);
    SDL_SetRenderDrawColor(r, 150, 150, 190, 255);
    text(r, "P PLANET  M MOON  D DESTROY  R REPARENT  +/- PARTICLES  SPACE PAUSE  F12 SHOT  ESC QUIT", 10,
         HEIGHT - 16, 2);
    if (s.paused) {
        SDL_SetRenderDrawColor(r, 255, 220, 120, 255);
        text(r, "PAUSED", WIDTH / 2 - 36, 90, 3);
    }
}

bool handle_key(SDL_Keycode key, SolarSystem& sim) {
    switch (key) {
    case SDLK_ESCAPE:
    case SDLK_q: return false;
    case SDLK_p: sim.add_planet(); break;
    case SDLK_m: sim.add_moon(); break;
    case SDLK_d:
    case SDLK_BACKSPACE:
    case SDLK_DELETE: sim.destroy_planet(); break;
    case SDLK_r: sim.reparent_moon(); break;
    case SDLK_PLUS:
    case SDLK_EQUALS:
    case SDLK_KP_PLUS: sim.add_particles(500); break;
    case SDLK_MINUS:
    case SDLK_KP_MINUS: sim.remove_particles(500); break;
    case SDLK_SPACE: sim.toggle_pause(); break;
    default: break;
    }
    return true;
}

/// Frames a run nobody can watch (headless, dummy video driver) renders when --frames is absent.
constexpr int DEFAULT_UNATTENDED_FRAMES = 300;

struct Options {
    bool headless = false;
    int frames = 0; ///< 0: until quit
    std::string screenshot;
    uint64_t seed = 1;
    bool remote = false; ///< --remote [PORT]: serve the world to the remote inspector
    unsigned remote_port = 27750;
};

int usage(const char* problem) {
    if (problem != nullptr) std::fprintf(stderr, "visual_harness: %s\n", problem);
    std::fprintf(problem != nullptr ? stderr : stdout,
                 "Usage: visual_harness [--headless] [--frames N] [--screenshot FILE.bmp] [--seed N] [--remote [PORT]]\n"
                 "  --headless      render off-screen (no display needed)\n"
                 "  --frames N      stop after N frames (saving the screenshot, if asked); default: until\n"
                 "                  Esc, Q or closing the window, or 300 frames when headless or under\n"
                 "                  SDL_VIDEODRIVER=dummy/offscreen\n"
                 "  --screenshot F  save the last frame as a BMP file\n"
                 "  --seed N        seed of the generated system (default 1)\n"
                 "  --remote [PORT] serve the running world to the remote inspector on 127.0.0.1:PORT\n"
                 "                  (default 27750, 0: a free port; writes allowed); runs until quit\n");
    return problem != nullptr ? 2 : 0;
}

bool save_screenshot(SDL_Renderer* r, const std::string& path) {
    SDL_Surface* shot = SDL_CreateRGBSurfaceWithFormat(0, WIDTH, HEIGHT, 32, SDL_PIXELFORMAT_ARGB8888);
    if (shot == nullptr) return false;
    const bool ok = SDL_RenderReadPixels(r, nullptr, SDL_PIXELFORMAT_ARGB8888, shot->pixels, shot->pitch) == 0 &&
                    SDL_SaveBMP(shot, path.c_str()) == 0;
    SDL_FreeSurface(shot);
    return ok;
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--headless") o.headless = true;
        else if (arg == "--frames" && has_value) o.frames = std::atoi(argv[++i]);
        else if (arg == "--screenshot" && has_value) o.screenshot = argv[++i];
        else if (arg == "--seed" && has_value) o.seed = std::strtoull(argv[++i], nullptr, 10);
        else if (arg == "--help" || arg == "-h") return usage(nullptr);
        else if (arg == "--remote") { // [PORT]: remote inspector on 127.0.0.1, writes allowed
            o.remote = true;
            if (has_value && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9') o.remote_port = unsigned(std::strtoul(argv[++i], nullptr, 10));
        }
        else return usage(("unknown option " + arg).c_str());
    }
    // Runs nobody can watch stop by themselves: --headless, or SDL's dummy/offscreen video driver.
    const char* driver = std::getenv("SDL_VIDEODRIVER");
    const bool unattended = o.headless || (driver != nullptr && (std::strcmp(driver, "dummy") == 0 ||
                                                                 std::strcmp(driver, "offscreen") == 0));
    if (unattended && o.frames <= 0 && !o.remote) { // a served run goes on until killed
        o.frames = DEFAULT_UNATTENDED_FRAMES;
        std::printf("visual_harness: no display to close, stopping after %d frames (--frames N to change)\n", o.frames);
    }

    SDL_SetMainReady();
    SDL_Window* window = nullptr;
    SDL_Surface* target = nullptr;
    SDL_Renderer* renderer = nullptr;
    if (o.headless) {
        // No window at all: SDL's software renderer draws into a plain surface.
        if (SDL_Init(0) != 0) {
            std::fprintf(stderr, "visual_harness: SDL_Init failed: %s\n", SDL_GetError());
            return 1;
        }
        target = SDL_CreateRGBSurfaceWithFormat(0, WIDTH, HEIGHT, 32, SDL_PIXELFORMAT_ARGB8888);
        renderer = target != nullptr ? SDL_CreateSoftwareRenderer(target) : nullptr;
    } else {
        if (SDL_Init(SDL_INIT_VIDEO) != 0) {
            std::fprintf(stderr, "visual_harness: SDL_Init failed: %s (try --headless --frames N)\n", SDL_GetError());
            return 1;
        }
        window = SDL_CreateWindow("ecs visual harness", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, WIDTH, HEIGHT, 0);
        if (window != nullptr) {
            renderer = SDL_CreateRenderer(window, -1, SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC);
            if (renderer == nullptr) renderer = SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE);
        }
    }
    if (renderer == nullptr) {
        std::fprintf(stderr, "visual_harness: cannot create a renderer: %s\n", SDL_GetError());
        SDL_Quit();
        return 1;
    }

    if (o.frames <= 0) std::printf("visual_harness: press Esc or Q, or close the window, to quit\n");
    SolarSystem sim(o.seed);
    const std::vector<SDL_Point> stars = make_stars(o.seed);
    Hud hud;
    // Headless runs press a few keys on the way, so the test exercises every edit.
    const SDL_Keycode script[] = {SDLK_p, SDLK_m, SDLK_r, SDLK_d, SDLK_MINUS, SDLK_PLUS, SDLK_p, SDLK_m};
    size_t scripted = 0;
#if defined(ECS_HARNESS_REMOTE)
    ecs::RemoteOptions remote_options;
    remote_options.port = static_cast<uint16_t>(o.remote_port);
    remote_options.allow_writes = true; // loopback only
    ecs::RemoteServer remote(sim.world(), remote_options);
    if (o.remote) {
        if (!remote.start()) {
            std::fprintf(stderr, "visual_harness --remote: %s\n", remote.error().c_str());
            return 1;
        }
        std::printf("remote inspector: http://127.0.0.1:%u/ (writes allowed)\n", unsigned(remote.port()));
        std::fflush(stdout);
    }
#else
    if (o.remote) {
        std::fprintf(stderr, "visual_harness: --remote needs a build with cpp-httplib (ecs::remote)\n");
        return 2;
    }
#endif

    bool running = true;
    int frame = 0;
    double render_ms = 0;
    auto last = std::chrono::steady_clock::now();
    while (running) {
        SDL_Event ev;
        while (SDL_PollEvent(&ev) != 0) {
            if (ev.type == SDL_QUIT) running = false;
            if (ev.type == SDL_KEYDOWN) {
                if (ev.key.keysym.sym == SDLK_F12) {
                    const bool saved = save_screenshot(renderer, "screenshot.bmp");
                    std::printf("screenshot.bmp %s\n", saved ? "saved" : "could not be saved");
                } else {
                    running = handle_key(ev.key.keysym.sym, sim) && running;
                }
            }
        }
        if (o.headless && frame % 10 == 5 && scripted < sizeof script / sizeof script[0])
            handle_key(script[scripted++], sim);

        sim.step();
#if defined(ECS_HARNESS_REMOTE)
        if (o.remote) {
            remote.poll();
            if (o.headless) std::this_thread::sleep_for(std::chrono::milliseconds(16)); // about 60 frames per second
        }
#endif
        const auto r0 = std::chrono::steady_clock::now();
        render(renderer, sim, hud, stars);
        SDL_RenderPresent(renderer);
        const auto now = std::chrono::steady_clock::now();
        render_ms = std::chrono::duration<double, std::milli>(now - r0).count();
        hud.smooth(std::chrono::duration<double, std::milli>(now - last).count(), sim.update_ms(), render_ms);
        last = now;

        ++frame;
        if (o.frames > 0 && frame >= o.frames) running = false;
    }

    int status = 0;
    if (!o.screenshot.empty()) {
        if (save_screenshot(renderer, o.screenshot)) {
            std::printf("screenshot written to %s\n", o.screenshot.c_str());
        } else {
            std::fprintf(stderr, "visual_harness: cannot write %s: %s\n", o.screenshot.c_str(), SDL_GetError());
            status = 1;
        }
    }
    ecs::World& w = sim.world();
    std::printf("visual_harness: %d frames, %zu entities (%zu planets, %zu moons, %zu particles), %zu archetypes\n",
                frame, w.count(), w.count<Planet>(), w.count<Moon>(), w.count<ParticlePos>(), w.archetype_count());

    SDL_DestroyRenderer(renderer);
    if (target != nullptr) SDL_FreeSurface(target);
    if (window != nullptr) SDL_DestroyWindow(window);
    SDL_Quit();
    return status;
}
