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

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "command_buffer.hpp"
#include "each_par.hpp"
#include "executor.hpp"
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
struct SystemBody {
    virtual ~SystemBody() = default;
    virtual void prepare(World&) {}
    virtual void run(World& world, CommandBuffer& commands) = 0;
};

template <typename Func, typename Filters, typename... Terms>
struct PerEntityBody;
template <typename Func, typename... Filters, typename... Terms>
struct PerEntityBody<Func, TypeList<Filters...>, Terms...> final : SystemBody {
    explicit PerEntityBody(Func f) : fn(std::move(f)) {}
    void prepare(World& world) override { query = world.query<Terms...>(Filters{}...); }
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
        ensure_plan();
        for (System& s : systems_) s.access.system = s.name.c_str();
        std::vector<CommandBuffer> buffers(systems_.size());
        detail::QueryEngine& queries = detail::WorldAccess::queries(world);
        size_t flushed = 0; // systems before this one have had their buffers flushed
        for (const Step& step : steps_) {
            if (step.exclusive) {
                System& s = systems_[step.first];
                detail::AccessScope none(nullptr);
                s.body->prepare(world);
                s.body->run(world, buffers[step.first]);
            } else {
                for (size_t k = 0; k < step.count; ++k) systems_[wave_members_[step.first + k]].body->prepare(world);
                WaveRun wave{this, &world, buffers.data(), wave_members_.data() + step.first};
                queries.begin_shared(detail::WorldAccess::graph(world));
                if (step.count == 1) WaveRun::task(&wave, 0);
                else executor.parallel_for(step.count, &WaveRun::task, &wave);
                queries.end_shared();
            }
            if (step.sync_after) {
                for (; flushed < step.last_system + 1; ++flushed) buffers[flushed].flush(world);
            }
        }
        for (; flushed < systems_.size(); ++flushed) buffers[flushed].flush(world);
        world.update_events();
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
        std::unique_ptr<detail::SystemBody> body;
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

    struct WaveRun {
        Schedule* schedule;
        World* world;
        CommandBuffer* buffers;
        const size_t* members;
        static void task(void* context, size_t index) {
            auto& w = *static_cast<WaveRun*>(context);
            const size_t id = w.members[index];
            System& s = w.schedule->systems_[id];
            detail::AccessScope scope(&s.access);
            s.body->run(*w.world, w.buffers[id]);
        }
    };

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
        planned_ = false;
    }

    static bool conflict(const System& a, const System& b) {
        if (a.kind == Kind::PerEntity && b.kind == Kind::PerEntity &&
            ((a.required & b.excluded).any() || (b.required & a.excluded).any()))
            return false; // no entity matches both
        return (a.access.writes & (b.access.reads | b.access.writes)).any() || (b.access.writes & a.access.reads).any();
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
    bool planned_ = false;
};

} // namespace ecs
