/**
 * @file ecs/schedule.hpp
 * @brief Schedule: systems that declare what they read and write, run in waves of non-conflicting
 *        systems on an Executor, with the results of a sequential run (ROADMAP 1.0 E).
 *
 * ```cpp
 * ecs::Schedule s;
 * s.add<Position, const Velocity>("move", ecs::Without<Frozen>{}, move_fn);    // per-entity system
 * s.add("ai", ecs::Reads<Position>{}, ecs::Writes<Target>{}, ai_fn);           // fn(World&[, CommandBuffer&])
 * s.add("ui", ui_fn);                                                          // exclusive: runs alone
 * s.sync();                                                                    // a sync point
 * s.run(world);  s.run(world, pool);                                           // identical results
 * ```
 *
 * Kinds of system:
 * - per-entity, `add<Terms...>(name, Filters..., fn)`: `fn` has the forms of each (`fn(Entity,
 *   terms...)`, `fn(terms...)`), or either with a `CommandBuffer&` first. Access comes from the terms:
 *   `const T` / `Optional<const T>` read T, `T` / `Optional<T>` write T; With/Without read presence
 *   only and conflict with nothing. The entities run sequentially inside the system.
 * - declared world system, `add(name, Reads<Ts...>{}, Writes<Us...>{}, fn)` (either list may be
 *   omitted or repeated): `fn(World&)` or `fn(World&, CommandBuffer&)`. Resources are declared the
 *   same way (`Reads<Settings>`).
 * - exclusive, `add(name, fn)` with no declaration: runs alone, with full access to the world
 *   (structural changes included).
 *
 * Plan: between two sync points, each system depends on the earlier systems it conflicts with; two
 * systems conflict when one writes a type the other reads or writes, except two per-entity systems
 * whose filters make their entity sets disjoint (one requires a type the other excludes through
 * Without): they never touch the same row, so they may run together even if both write the same
 * component. Systems are placed in waves (a system's wave is one past the latest wave of what it
 * depends on); an exclusive system is a wave of its own that every later system follows. plan()
 * shows the waves. As far as anyone can observe, systems run in insertion order.
 *
 * Commands: each system records into its own CommandBuffer; all buffers are flushed at the next
 * sync point and at the end of run(), in system insertion order. run() ends with
 * world.update_events().
 *
 * The loop (ecs::Time, conditions, intervals, states, FixedStep):
 * ```cpp
 * s.add<Position, const Velocity>("move", fn).run_if([](const ecs::World& w) { return !w.resource<Paused>().on; });
 * s.add("spawn", spawn_fn).interval(0.5);      // at most once per 0.5 s of ecs::Time
 * s.on_enter(Game::Playing, "load", load_fn);  s.add("play", play_fn).run_if(ecs::in_state(Game::Playing));
 * s.run(world, dt);  s.run(world, dt, pool);   // Time {delta, elapsed, frame} set first; identical results
 * ecs::FixedStep step(1.0 / 60);  step.advance(world, physics, frame_dt);  step.alpha();
 * ```
 * - run_if / interval apply to the system added last (like sync()); several run_if on one system
 *   must all hold. Conditions and intervals are evaluated on the calling thread just before the
 *   system's wave starts, so they see the world as the earlier waves left it (commands are flushed
 *   at sync points only). A skipped system prepares nothing, records no commands and counts in
 *   stats().skipped.
 * - interval(t): the system runs when ecs::Time::elapsed reaches its due time (first t, then every t
 *   after the previous due time; when a frame jumps past several due times it runs once and the
 *   next due time is t after that frame). Without a Time resource elapsed is 0, so it never runs.
 * - A run starts by applying pending state transitions, for every State<S> the schedule knows (from
 *   on_enter / on_exit / in_state), in the order it learnt them: on_exit systems of the old value,
 *   then on_enter systems of the new one, each exclusive, in registration order, its commands
 *   flushed right after it. run(world) without a delta does the same but does not touch Time.
 *
 * Heavy systems: `s.add<Position, const Velocity>("physics", fn).multi_threaded();` lets a
 * per-entity system (no CommandBuffer) cut its rows across the executor, so its callback runs on
 * several threads at once, for different entities. Alone in its wave it runs through `each_par`;
 * beside other systems its rows become batches of the wave, listed after the whole systems, and
 * every thread takes tasks from that one list. Its stats() time is then its batches' time summed.
 * The debug access check covers the rows of batches too, but not the rows an alone system's
 * `each_par` hands to the workers.
 *
 * Thread-safety while a wave runs (every non-exclusive system, with run(world) too, so that both
 * runs behave alike): the calling thread holds the world's iteration guard for the whole wave.
 *
 * | from a system of a wave                                        | allowed                        |
 * |----------------------------------------------------------------|--------------------------------|
 * | get / try_get / each / each_no_entity / single / query / Query::each of declared components | yes (checked in debug builds) |
 * | resource / try_resource of declared resources                  | yes (checked in debug builds)  |
 * | has / alive / count / iterating / archetype_count              | yes (read presence only)       |
 * | the system's own CommandBuffer                                 | yes                            |
 * | create / destroy / add of a new type / remove / sort / flush   | no: refused (asserted)         |
 * | deferred(), set_resource, remove_resource, send, update_events, on_add / on_remove | no (not thread-safe) |
 *
 * A per-entity system's callback touches its own terms; reaching other entities through a captured
 * World is its own business (the plan cannot see it). A system that reads or writes a component it
 * did not declare is refused in debug builds (ECS_ASSERT_ENABLED): the assertion names the system
 * and the type, and the access returns nothing (nullptr, no iteration). Release builds do no check.
 */
#pragma once

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "command_buffer.hpp"
#include "each_par.hpp"
#include "executor.hpp"
#include "game_state.hpp"
#include "parallel.hpp"
#include "query.hpp"
#include "world.hpp"

namespace ecs {

/// Schedule declaration: the system reads `Ts` (components or resources).
template <typename... Ts>
struct Reads {};
/// Schedule declaration: the system writes (and reads) `Ts` (components or resources).
template <typename... Ts>
struct Writes {};

namespace detail {

template <typename T>
struct AccessDecl {
    static constexpr bool is_decl = false;
};
template <typename... Ts>
struct AccessDecl<Reads<Ts...>> {
    static constexpr bool is_decl = true;
    static void apply(ComponentMask& reads, ComponentMask&) {
        bool ignored = false;
        set_bits(reads, ignored, TypeList<bare_t<Ts>...>{});
    }
};
template <typename... Ts>
struct AccessDecl<Writes<Ts...>> {
    static constexpr bool is_decl = true;
    static void apply(ComponentMask&, ComponentMask& writes) {
        bool ignored = false;
        set_bits(writes, ignored, TypeList<bare_t<Ts>...>{});
    }
};

/// What a scheduled system does: prepare() on the calling thread before its wave, run() in it.
/// run_split() runs it with its rows cut across `executor` (Schedule::multi_threaded).
struct SystemBody {
    virtual ~SystemBody() = default;
    virtual void prepare(World&) {}
    virtual void run(World& world, CommandBuffer& commands) = 0;
    /// Whether run_split() may be used: a per-entity system whose callback takes no CommandBuffer.
    virtual bool can_split() const { return false; }
    virtual void run_split(World&, Executor&) {}
    /// In a wave beside other systems: cuts the rows into batches (calling thread, inside the
    /// wave's shared section); false when the system stays one task. Then run_batch(i), i < batches().
    virtual bool prepare_split(World&, size_t) { return false; }
    virtual size_t batches() const { return 0; }
    virtual void run_batch(size_t) {}
};

struct NoSplit {};

template <typename Func, typename Filters, typename... Terms>
struct PerEntityBody;
template <typename Func, typename... Filters, typename... Terms>
struct PerEntityBody<Func, TypeList<Filters...>, Terms...> final : SystemBody {
    explicit PerEntityBody(Func f) : fn(std::move(f)) {}
    void prepare(World& world) override { query = world.query<Terms...>(Filters{}...); }
    static constexpr bool splittable = !ParallelCallback<Func, Terms...>::buffer;
    bool can_split() const override { return splittable; }
    void run_split(World&, Executor& executor) override {
        if constexpr (splittable) query.each_par(executor, fn);
        else (void)executor;
    }
    bool prepare_split(World& world, size_t concurrency) override {
        if constexpr (splittable) {
            // Cascade<R> orders the rows (targets first): such a system stays one task, as each_par
            // keeps a run with filter values whole.
            if (filter_values(Filters{}...).active) return false;
            const ArchetypeGraph& graph = WorldAccess::graph(world);
            QueryCache& q = WorldAccess::queries(world).template cache<TypeList<Terms...>, TypeList<Filters...>>(graph);
            return split.prepare(graph, q, world, concurrency);
        } else {
            (void)world, (void)concurrency;
            return false;
        }
    }
    size_t batches() const override {
        if constexpr (splittable) return split.count();
        else return 0;
    }
    void run_batch(size_t i) override {
        if constexpr (splittable) split.run(i, fn);
        else (void)i;
    }
    void run(World&, CommandBuffer& commands) override {
        using Callback = ParallelCallback<Func, Terms...>;
        if constexpr (Callback::buffer) {
            if constexpr (Callback::entity) {
                query.each([&](Entity e, term_param_t<Terms>... terms) { fn(commands, e, terms...); });
            } else {
                query.each([&](term_param_t<Terms>... terms) { fn(commands, terms...); });
            }
        } else {
            (void)commands;
            query.each(fn);
        }
    }
    Func fn;
    Query<Terms...> query;
    std::conditional_t<splittable, SplitRows<Func, Terms...>, NoSplit> split; ///< multi_threaded() beside others
};

template <typename Func>
struct WorldBody final : SystemBody {
    explicit WorldBody(Func f) : fn(std::move(f)) {}
    void run(World& world, CommandBuffer& commands) override {
        if constexpr (std::is_invocable_v<Func&, World&, CommandBuffer&>) {
            fn(world, commands);
        } else {
            static_assert(std::is_invocable_v<Func&, World&>,
                          "Schedule::add: a world system must be callable as fn(World&) or fn(World&, CommandBuffer&)");
            (void)commands;
            fn(world);
        }
    }
    Func fn;
};

template <typename Term>
void add_term_access(ComponentMask& reads, ComponentMask& writes, ComponentMask& required) {
    bool ignored = false;
    using C = term_component_t<Term>;
    set_bits(TermTraits<Term>::read_only ? reads : writes, ignored, TypeList<C>{});
    if constexpr (!TermTraits<Term>::optional) set_bits(required, ignored, TypeList<C>{});
}

/// Installs a system's access on the running thread for the duration of its run (debug builds).
struct AccessScope {
#if ECS_ASSERT_ENABLED
    explicit AccessScope(const SystemAccess* access) noexcept : previous(current_access) { current_access = access; }
    ~AccessScope() { current_access = previous; }
    const SystemAccess* previous;
#else
    explicit AccessScope(const SystemAccess*) noexcept {}
#endif
    AccessScope(const AccessScope&) = delete;
    AccessScope& operator=(const AccessScope&) = delete;
};

} // namespace detail

/// @brief A list of systems with declared access, run in conflict-free waves. See the file comment.
class Schedule {
public:
    /// @brief One wave of the plan: systems that may run at the same time.
    struct Wave {
        std::vector<std::string> systems; ///< names, in insertion order
        bool exclusive = false;           ///< an exclusive system, alone
        bool sync_after = false;          ///< buffers are flushed after this wave
    };

    /// @brief What stats() reports for one system (on_enter / on_exit systems follow the others).
    struct SystemStats {
        std::string name;
        uint64_t last_ns = 0; ///< duration of its latest run, nanoseconds
        double avg_ns = 0.0;  ///< mean duration over `runs`
        uint64_t runs = 0;    ///< times it ran
        uint64_t skipped = 0; ///< times a condition or its interval skipped it
    };

    Schedule() = default;
    Schedule(Schedule&&) noexcept = default;
    Schedule& operator=(Schedule&&) noexcept = default;
    Schedule(const Schedule&) = delete;
    Schedule& operator=(const Schedule&) = delete;

    /**
     * @brief Appends a system (see the file comment for the three forms):
     *        `add<Terms...>(name, Filters..., fn)`, `add(name, Reads<...>{}, Writes<...>{}, fn)`,
     *        `add(name, fn)`.
     */
    template <typename... Terms, typename... Args>
    Schedule& add(std::string name, Args&&... args) {
        // A per-entity system rebuilds its filters from their types: a target would be lost.
        if (!ECS_CHECK(detail::filter_values(args...).test_count == 0,
                       "Schedule::add: Related<R>{target} is not accepted in a per-entity system (Related<R>{} and "
                       "Cascade<R> are; use a world system for a target)"))
            return *this;
        add_impl<Terms...>(std::move(name), detail::init_t<Args...>{}, detail::last_arg(args...));
        return *this;
    }

    /// @brief A sync point: systems after it follow every system before it, whose buffers are flushed.
    Schedule& sync() {
        if (!systems_.empty()) systems_.back().sync_after = true;
        planned_ = false;
        return *this;
    }

    /**
     * @brief Run condition for the system added last: it runs only when `condition(const World&)`
     *        is true (several conditions: all of them). `ecs::in_state(v)` is one.
     * @pre A system was added (asserted and refused).
     */
    template <typename Condition>
    Schedule& run_if(Condition condition) {
        static_assert(std::is_invocable_r_v<bool, Condition&, const World&>,
                      "Schedule::run_if: the condition must be callable as bool(const ecs::World&)");
        System* s = last_added();
        if (!ECS_CHECK(s != nullptr, "Schedule::run_if: no system was added")) return *this;
        learn_state(static_cast<Condition*>(nullptr));
        s->conditions.emplace_back(std::move(condition));
        return *this;
    }

    /**
     * @brief Rate limit for the system added last: at most once per `seconds` of ecs::Time (see the
     *        file comment for the due times).
     * @pre A regular system was added last; `seconds` > 0 (asserted and refused).
     */
    Schedule& interval(double seconds) {
        System* s = last_added();
        if (!ECS_CHECK(s != nullptr && !last_is_transition_, "Schedule::interval: no system was added (on_enter / on_exit take none)"))
            return *this;
        if (!ECS_CHECK(seconds > 0.0, "Schedule::interval: the interval must be positive")) return *this;
        s->interval = seconds;
        s->next_due = seconds;
        return *this;
    }

    /**
     * @brief Lets the system added last cut its rows across the executor's threads, so a heavy
     *        system fills the pool: alone in its wave (the others skipped, or none planned beside
     *        it) its rows go through `each_par`; beside others they become batches of the wave,
     *        which the threads take after the whole systems. With too few rows to cut, an Up
     *        term, a Cascade filter (its order), or on run(world), it runs as one task.
     * @pre The system added last is a per-entity system whose callback takes no CommandBuffer
     *      (asserted and refused), and its callback may run concurrently for different entities.
     */
    Schedule& multi_threaded() {
        System* s = last_is_transition_ ? nullptr : (systems_.empty() ? nullptr : &systems_.back());
        if (!ECS_CHECK(s != nullptr && s->kind == Kind::PerEntity && s->body->can_split(),
                       "Schedule::multi_threaded: the system added last must be a per-entity system without a CommandBuffer"))
            return *this;
        s->multi_threaded = true;
        return *this;
    }

    /**
     * @brief Adds an exclusive system, `fn(World&)` or `fn(World&, CommandBuffer&)`, run when the
     *        world's State<S> enters `value` (at the start of a run, before any other system).
     */
    template <typename S, typename Func>
    Schedule& on_enter(S value, std::string name, Func&& fn) {
        add_transition<S>(true, std::move(value), std::move(name), std::forward<Func>(fn));
        return *this;
    }
    /// @brief Like on_enter, run when the world's State<S> leaves `value` (before the on_enter ones).
    template <typename S, typename Func>
    Schedule& on_exit(S value, std::string name, Func&& fn) {
        add_transition<S>(false, std::move(value), std::move(name), std::forward<Func>(fn));
        return *this;
    }

    /// @brief Runs every system on the calling thread (the same waves, one system at a time).
    /// @pre Not during iteration (asserted and refused).
    void run(World& world) {
        InlineExecutor executor;
        run(world, executor);
    }

    /**
     * @brief Runs every system, the systems of a wave concurrently through `executor`; flushes the
     *        buffers at sync points and at the end, then calls world.update_events().
     * @pre Not during iteration (asserted and refused). Systems do not throw.
     */
    void run(World& world, Executor& executor) {
        if (!ECS_CHECK(!world.iterating(), "Schedule::run: called during iteration")) return;
        run_frame(world, executor);
    }

    /**
     * @brief Advances the ecs::Time resource by `dt_seconds` (created when absent: delta = dt,
     *        elapsed += dt, frame += 1), then runs like run(world).
     * @pre Not during iteration; dt_seconds >= 0 and finite (asserted and refused).
     */
    void run(World& world, double dt_seconds) {
        InlineExecutor executor;
        run(world, dt_seconds, executor);
    }
    /// @brief run(world, dt) with the waves on `executor` (identical results).
    void run(World& world, double dt_seconds, Executor& executor) {
        if (!ECS_CHECK(!world.iterating(), "Schedule::run: called during iteration")) return;
        if (!ECS_CHECK(dt_seconds >= 0.0 && std::isfinite(dt_seconds), "Schedule::run: the delta must be finite and >= 0"))
            return;
        Time* time = world.try_resource<Time>();
        if (time == nullptr) {
            world.set_resource(Time{});
            time = world.try_resource<Time>();
        }
        time->delta = dt_seconds;
        time->elapsed += dt_seconds;
        ++time->frame;
        run_frame(world, executor);
    }

    /// @brief Per system, in insertion order, then the on_enter / on_exit systems: name, last_ns,
    ///        avg_ns, runs, skipped. Complexity: O(systems).
    [[nodiscard]] std::vector<SystemStats> stats() const {
        std::vector<SystemStats> out;
        out.reserve(systems_.size() + transitions_.size());
        auto one = [&](const System& s) {
            SystemStats st;
            st.name = s.name;
            st.last_ns = s.last_ns;
            st.runs = s.runs;
            st.skipped = s.skipped;
            st.avg_ns = s.runs == 0 ? 0.0 : static_cast<double>(s.total_ns) / static_cast<double>(s.runs);
            out.push_back(std::move(st));
        };
        for (const System& s : systems_) one(s);
        for (const Transition& t : transitions_) one(t.system);
        return out;
    }

    /// @brief The waves run() goes through, in order (computed on demand).
    [[nodiscard]] std::vector<Wave> plan() {
        ensure_plan();
        std::vector<Wave> waves;
        for (const Step& step : steps_) {
            Wave w;
            w.exclusive = step.exclusive;
            w.sync_after = step.sync_after;
            if (step.exclusive) w.systems.push_back(systems_[step.first].name);
            else
                for (size_t k = 0; k < step.count; ++k) w.systems.push_back(systems_[wave_members_[step.first + k]].name);
            waves.push_back(std::move(w));
        }
        return waves;
    }
    /// @brief The plan as text: `"[move, ai] [!ui] | [render]"` (`!`: exclusive, `|`: sync point).
    [[nodiscard]] std::string plan_string() {
        std::string out;
        for (const Wave& w : plan()) {
            if (!out.empty() && out.back() != ' ') out += ' ';
            out += '[';
            for (size_t i = 0; i < w.systems.size(); ++i) out += (i ? ", " : "") + std::string(w.exclusive ? "!" : "") + w.systems[i];
            out += ']';
            if (w.sync_after) out += " |";
        }
        return out;
    }

    /// @brief Number of systems.
    [[nodiscard]] size_t size() const noexcept { return systems_.size(); }
    /// @brief Name of the i-th system in insertion order. @pre i < size()
    [[nodiscard]] const std::string& name(size_t i) const noexcept { return systems_[i].name; }

private:
    enum class Kind : unsigned char { PerEntity, Declared, Exclusive };

    struct System {
        std::string name;
        Kind kind = Kind::Exclusive;
        detail::SystemAccess access; ///< reads, writes (the debug check uses it too)
        ComponentMask required;      ///< per-entity: terms (not Optional) and With
        ComponentMask excluded;      ///< per-entity: Without
        bool sync_after = false;
        bool multi_threaded = false; ///< multi_threaded(): its rows split (whole wave or batches)
        bool split_now = false;      ///< run_wave(): cut into batches in the current wave
        std::unique_ptr<detail::SystemBody> body;
        std::vector<std::function<bool(const World&)>> conditions; ///< run_if: all must hold
        double interval = 0.0; ///< interval(): 0 when none
        double next_due = 0.0; ///< interval(): the Time::elapsed at which it may run next
        uint64_t last_ns = 0, total_ns = 0, runs = 0, skipped = 0; ///< stats()
    };

    /// An on_enter / on_exit system of one state value.
    struct Transition {
        ComponentTypeID state = INVALID_COMPONENT_ID; ///< component_id<State<S>>
        bool enter = true;
        std::function<bool(const void*)> matches; ///< takes a `const S*`
        System system;
    };
    /// Applies a pending State<S> of the world (one per S the schedule knows).
    struct StateDriver {
        ComponentTypeID state = INVALID_COMPONENT_ID;
        void (*apply)(Schedule&, World&) = nullptr;
    };

    /// A wave (or an exclusive system): `count` systems listed in wave_members_ from `first`, or
    /// the exclusive system `first`.
    struct Step {
        size_t first = 0;
        size_t count = 0;
        size_t last_system = 0; ///< highest insertion index in the step
        bool exclusive = false;
        bool sync_after = false;
    };

    /// One task of a wave: a whole system, or batch `batch` of a multi_threaded system split beside
    /// others (its time summed into split_ns[slot]).
    struct WaveTask {
        size_t id = 0;
        size_t batch = kWhole;
        size_t slot = 0;
    };
    static constexpr size_t kWhole = static_cast<size_t>(-1);

    struct WaveRun {
        Schedule* schedule;
        World* world;
        CommandBuffer* buffers;
        const WaveTask* tasks;
        std::atomic<uint64_t>* split_ns;
        static void task(void* context, size_t index) {
            auto& w = *static_cast<WaveRun*>(context);
            const WaveTask& t = w.tasks[index];
            System& s = w.schedule->systems_[t.id];
            detail::AccessScope scope(&s.access);
            const auto start = std::chrono::steady_clock::now();
            if (t.batch == kWhole) {
                s.body->run(*w.world, w.buffers[t.id]);
                record_time(s, start);
            } else {
                s.body->run_batch(t.batch);
                w.split_ns[t.slot].fetch_add(elapsed_ns(start), std::memory_order_relaxed);
            }
        }
    };

    static uint64_t elapsed_ns(std::chrono::steady_clock::time_point start) noexcept {
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
        return static_cast<uint64_t>(ns < 0 ? 0 : ns);
    }
    static void record_ns(System& s, uint64_t ns) noexcept {
        s.last_ns = ns;
        s.total_ns += ns;
        ++s.runs;
    }
    static void record_time(System& s, std::chrono::steady_clock::time_point start) noexcept { record_ns(s, elapsed_ns(start)); }

    /// Runs the active systems of a wave (two or more, or one that stays whole) through `executor`:
    /// a multi_threaded system whose rows can be cut becomes batches, listed after the whole systems.
    void run_wave(World& world, Executor& executor, CommandBuffer* buffers) {
        tasks_.clear();
        const size_t concurrency = executor.concurrency();
        size_t split = 0;
        if (concurrency > 1)
            for (const size_t id : active_) {
                System& s = systems_[id];
                s.split_now = s.multi_threaded && s.body->prepare_split(world, concurrency);
                split += s.split_now ? 1 : 0;
            }
        for (const size_t id : active_)
            if (concurrency <= 1 || !systems_[id].split_now) tasks_.push_back(WaveTask{id, kWhole, 0});
        std::unique_ptr<std::atomic<uint64_t>[]> split_ns;
        if (split != 0) {
            split_ns.reset(new std::atomic<uint64_t>[split]);
            size_t slot = 0;
            for (const size_t id : active_) {
                if (!systems_[id].split_now) continue;
                split_ns[slot].store(0, std::memory_order_relaxed);
                for (size_t b = 0, n = systems_[id].body->batches(); b < n; ++b) tasks_.push_back(WaveTask{id, b, slot});
                ++slot;
            }
        }
        WaveRun wave{this, &world, buffers, tasks_.data(), split_ns.get()};
        if (tasks_.size() == 1) WaveRun::task(&wave, 0);
        else if (!tasks_.empty()) executor.parallel_for(tasks_.size(), &WaveRun::task, &wave);
        size_t slot = 0;
        for (const size_t id : active_) {
            System& s = systems_[id];
            if (!s.split_now) continue;
            record_ns(s, split_ns[slot++].load(std::memory_order_relaxed)); // its batches' time, summed
            s.split_now = false;
        }
    }

    /// The system run_if / interval apply to: the one added last (a transition system included).
    System* last_added() noexcept {
        if (last_is_transition_) return transitions_.empty() ? nullptr : &transitions_.back().system;
        return systems_.empty() ? nullptr : &systems_.back();
    }

    /// Conditions and interval of `s`, on the calling thread; counts a skip.
    bool should_run(System& s, const World& world) {
        for (auto& condition : s.conditions)
            if (!condition(world)) {
                ++s.skipped;
                return false;
            }
        if (s.interval > 0.0) {
            const Time* time = world.try_resource<Time>();
            const double now = time != nullptr ? time->elapsed : 0.0;
            // A tolerance, so that a due time reached by summing deltas (10 x 0.1 s) counts.
            if (now + 1e-9 * (s.interval > 1.0 ? s.interval : 1.0) < s.next_due) {
                ++s.skipped;
                return false;
            }
            s.next_due += s.interval;
            if (s.next_due <= now) s.next_due = now + s.interval; // behind: once, then t after now
        }
        return true;
    }

    /// One run, Time already set: state transitions, then the waves, then the flushes and events.
    void run_frame(World& world, Executor& executor) {
        for (const StateDriver& d : drivers_) d.apply(*this, world);
        ensure_plan();
        for (System& s : systems_) s.access.system = s.name.c_str();
        std::vector<CommandBuffer> buffers(systems_.size());
        detail::QueryEngine& queries = detail::WorldAccess::queries(world);
        size_t flushed = 0; // systems before this one have had their buffers flushed
        for (const Step& step : steps_) {
            if (step.exclusive) {
                System& s = systems_[step.first];
                if (should_run(s, world)) {
                    detail::AccessScope none(nullptr);
                    const auto start = std::chrono::steady_clock::now();
                    s.body->prepare(world);
                    s.body->run(world, buffers[step.first]);
                    record_time(s, start);
                }
            } else {
                active_.clear();
                for (size_t k = 0; k < step.count; ++k) {
                    const size_t id = wave_members_[step.first + k];
                    if (should_run(systems_[id], world)) active_.push_back(id);
                }
                for (const size_t id : active_) systems_[id].body->prepare(world);
                if (active_.size() == 1 && systems_[active_[0]].multi_threaded && executor.concurrency() > 1) {
                    // Alone in its wave: its rows go through each_par (which opens its own shared section).
                    System& s = systems_[active_[0]];
                    detail::AccessScope scope(&s.access);
                    const auto start = std::chrono::steady_clock::now();
                    s.body->run_split(world, executor);
                    record_time(s, start);
                } else if (!active_.empty()) {
                    queries.begin_shared(detail::WorldAccess::graph(world));
                    run_wave(world, executor, buffers.data());
                    queries.end_shared();
                }
            }
            if (step.sync_after) {
                for (; flushed < step.last_system + 1; ++flushed) buffers[flushed].flush(world);
            }
        }
        for (; flushed < systems_.size(); ++flushed) buffers[flushed].flush(world);
        world.update_events();
    }

    /// Registers the driver of State<S> once (on_enter, on_exit, run_if(in_state)).
    template <typename Condition>
    void learn_state(Condition*) {}
    template <typename S>
    void learn_state(InState<S>*) {
        learn_state_type<S>();
    }
    template <typename S>
    void learn_state_type() {
        const ComponentTypeID id = component_id<State<S>>();
        for (const StateDriver& d : drivers_)
            if (d.state == id) return;
        drivers_.push_back(StateDriver{id, &apply_state<S>});
    }

    /// A pending State<S>: on_exit systems of the old value, then on_enter of the new one.
    template <typename S>
    static void apply_state(Schedule& schedule, World& world) {
        State<S>* state = world.try_resource<State<S>>();
        if (state == nullptr || !state->pending()) return;
        const S previous = state->apply();
        const S current = state->current(); // copies: a system may replace or remove the resource
        const ComponentTypeID id = component_id<State<S>>();
        schedule.run_transitions(world, id, false, &previous);
        schedule.run_transitions(world, id, true, &current);
    }

    void run_transitions(World& world, ComponentTypeID state, bool enter, const void* value) {
        for (size_t i = 0; i < transitions_.size(); ++i) { // by index: nothing is added while running
            Transition& t = transitions_[i];
            if (t.state != state || t.enter != enter || !t.matches(value)) continue;
            if (!should_run(t.system, world)) continue;
            CommandBuffer commands;
            detail::AccessScope none(nullptr);
            const auto start = std::chrono::steady_clock::now();
            t.system.body->run(world, commands);
            record_time(t.system, start);
            commands.flush(world);
        }
    }

    template <typename S, typename Func>
    void add_transition(bool enter, S value, std::string name, Func&& fn) {
        using F = std::decay_t<Func>;
        learn_state_type<S>();
        Transition t;
        t.state = component_id<State<S>>();
        t.enter = enter;
        t.matches = [value](const void* v) { return *static_cast<const S*>(v) == value; };
        t.system.name = std::move(name);
        t.system.body.reset(new detail::WorldBody<F>(std::forward<Func>(fn)));
        transitions_.push_back(std::move(t));
        last_is_transition_ = true;
    }

    template <typename... Terms, typename... Filters, typename Func>
    void add_impl(std::string name, detail::TypeList<Filters...>, Func& fn) {
        using F = std::decay_t<Func>;
        System s;
        s.name = std::move(name);
        if constexpr (sizeof...(Terms) > 0) {
            using Check = detail::QueryCheck<detail::TypeList<Terms...>, detail::TypeList<Filters...>>;
            static_assert(Check::check(), "ecs query check");
            static_assert(!Check::change_filtered,
                          "Schedule::add: a per-entity system cannot use Changed/Added (write a world system with a "
                          "query handle kept across runs)");
            (void)detail::ParallelCallback<F, Terms...>::entity; // a readable error for a bad callback
            s.kind = Kind::PerEntity;
            (detail::add_term_access<Terms>(s.access.reads, s.access.writes, s.required), ...);
            bool ignored = false;
            detail::set_bits(s.required, ignored, typename Check::required{});
            detail::set_bits(s.excluded, ignored, typename Check::excluded{});
            s.body.reset(new detail::PerEntityBody<F, detail::TypeList<Filters...>, Terms...>(std::forward<Func>(fn)));
        } else {
            static_assert((detail::AccessDecl<Filters>::is_decl && ...),
                          "Schedule::add: the arguments between the name and a world system's callback must be "
                          "ecs::Reads<...>{} / ecs::Writes<...>{}");
            s.kind = sizeof...(Filters) == 0 ? Kind::Exclusive : Kind::Declared;
            (detail::AccessDecl<Filters>::apply(s.access.reads, s.access.writes), ...);
            s.body.reset(new detail::WorldBody<F>(std::forward<Func>(fn)));
        }
        systems_.push_back(std::move(s));
        last_is_transition_ = false;
        planned_ = false;
    }

    static bool conflict(const System& a, const System& b) {
        if (a.kind == Kind::PerEntity && b.kind == Kind::PerEntity &&
            (a.required.intersects(b.excluded) || b.required.intersects(a.excluded)))
            return false; // no entity matches both
        return a.access.writes.intersects(b.access.reads | b.access.writes) || b.access.writes.intersects(a.access.reads);
    }

    /// Levels per segment (between sync points), then one step per level.
    void ensure_plan() {
        if (planned_) return;
        steps_.clear();
        wave_members_.clear();
        size_t begin = 0;
        while (begin < systems_.size()) {
            size_t end = begin;
            while (end < systems_.size() && !systems_[end].sync_after) ++end;
            if (end < systems_.size()) ++end; // the system carrying the sync point is in the segment
            std::vector<size_t> level(end - begin, 0);
            size_t barrier = 0; // waves up to this one precede everything after the last exclusive
            size_t top = 0;     // highest level so far
            for (size_t i = begin; i < end; ++i) {
                size_t l = barrier + 1;
                if (systems_[i].kind == Kind::Exclusive) {
                    l = top + 1;
                    barrier = l;
                } else {
                    for (size_t j = begin; j < i; ++j)
                        if (conflict(systems_[i], systems_[j]) && level[j - begin] + 1 > l) l = level[j - begin] + 1;
                }
                level[i - begin] = l;
                if (l > top) top = l;
            }
            for (size_t l = 1; l <= top; ++l) {
                Step step;
                step.first = wave_members_.size();
                for (size_t i = begin; i < end; ++i) {
                    if (level[i - begin] != l) continue;
                    if (systems_[i].kind == Kind::Exclusive) {
                        step.exclusive = true;
                        step.first = i;
                    } else {
                        wave_members_.push_back(i);
                    }
                    ++step.count;
                    step.last_system = i;
                }
                if (step.count == 0) continue;
                steps_.push_back(step);
            }
            if (!steps_.empty() && systems_[end - 1].sync_after) {
                steps_.back().sync_after = true;
                // The flush covers the whole segment, whichever wave its last system ran in.
                steps_.back().last_system = end - 1;
            }
            begin = end;
        }
        planned_ = true;
    }

    std::vector<System> systems_;
    std::vector<Step> steps_;
    std::vector<size_t> wave_members_;
    std::vector<size_t> active_;          ///< run(): the members of the current wave that run
    std::vector<WaveTask> tasks_;         ///< run(): the tasks of the current wave
    std::vector<Transition> transitions_; ///< on_enter / on_exit systems, in registration order
    std::vector<StateDriver> drivers_;    ///< the State<S> types the schedule applies, in the order learnt
    bool last_is_transition_ = false;     ///< run_if applies to transitions_.back()
    bool planned_ = false;
    friend class FixedStep;
};

/**
 * @brief A fixed timestep: advance(world, schedule, frame_dt) adds frame_dt to an accumulator and
 *        runs the schedule once per whole `step` it holds, at most max_steps times (default 8); time
 *        beyond that is dropped, so a slow frame does not make the next ones slower (the spiral).
 *
 * During its runs the world's ecs::Time holds the fixed clock ({step, fixed elapsed, fixed frame}:
 * intervals of the fixed schedule count fixed time); afterwards the frame's Time is put back (or
 * removed if there was none). alpha() is the leftover fraction of a step, for interpolation.
 */
class FixedStep {
public:
    /// @pre step_seconds > 0 and finite, max_steps >= 1 (asserted: the step becomes 1/60, max 8).
    explicit FixedStep(double step_seconds, size_t max_steps = 8) : step_(step_seconds), max_steps_(max_steps) {
        if (!ECS_CHECK(step_seconds > 0.0 && std::isfinite(step_seconds), "FixedStep: the step must be positive"))
            step_ = 1.0 / 60.0;
        if (!ECS_CHECK(max_steps >= 1, "FixedStep: max_steps must be at least 1")) max_steps_ = 8;
    }

    /// @brief Runs `schedule` once per whole step accumulated (at most max_steps); returns how many.
    /// @pre Not during iteration; frame_dt >= 0 and finite (asserted and refused: returns 0).
    size_t advance(World& world, Schedule& schedule, double frame_dt) {
        InlineExecutor executor;
        return advance(world, schedule, frame_dt, executor);
    }
    /// @brief advance() with the waves on `executor` (identical results).
    size_t advance(World& world, Schedule& schedule, double frame_dt, Executor& executor) {
        if (!ECS_CHECK(!world.iterating(), "FixedStep::advance: called during iteration")) return 0;
        if (!ECS_CHECK(frame_dt >= 0.0 && std::isfinite(frame_dt), "FixedStep::advance: the delta must be finite and >= 0"))
            return 0;
        accumulator_ += frame_dt;
        size_t n = 0;
        // A tolerance, so that 60 frames of 1/60 s make 60 steps despite rounding.
        const double eps = step_ * 1e-9;
        while (accumulator_ + eps >= step_ && n < max_steps_) {
            accumulator_ -= step_;
            if (accumulator_ < 0.0) accumulator_ = 0.0;
            ++n;
        }
        if (accumulator_ + eps >= step_) accumulator_ = std::fmod(accumulator_, step_); // dropped: max_steps reached
        if (n == 0) return 0;
        const Time* frame_time = world.try_resource<Time>();
        const bool had_time = frame_time != nullptr;
        const Time saved = had_time ? *frame_time : Time{};
        for (size_t i = 0; i < n; ++i) {
            elapsed_ += step_;
            ++frames_;
            world.set_resource(Time{step_, elapsed_, frames_});
            schedule.run_frame(world, executor);
        }
        if (had_time) world.set_resource(saved);
        else world.remove_resource<Time>();
        return n;
    }

    /// @brief The leftover fraction of a step, in [0, 1): state = previous + alpha * (current - previous).
    [[nodiscard]] double alpha() const noexcept { return accumulator_ / step_; }
    /// @brief The fixed delta, seconds.
    [[nodiscard]] double step() const noexcept { return step_; }
    /// @brief Most runs per advance().
    [[nodiscard]] size_t max_steps() const noexcept { return max_steps_; }
    /// @brief Sets the most runs per advance(). @pre n >= 1 (asserted and refused).
    void set_max_steps(size_t n) {
        if (ECS_CHECK(n >= 1, "FixedStep::set_max_steps: must be at least 1")) max_steps_ = n;
    }
    /// @brief Fixed time run so far (steps x step).
    [[nodiscard]] double elapsed() const noexcept { return elapsed_; }

private:
    double step_;
    size_t max_steps_;
    double accumulator_ = 0.0;
    double elapsed_ = 0.0;
    uint64_t frames_ = 0;
};

} // namespace ecs
