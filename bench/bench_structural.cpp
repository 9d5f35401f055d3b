/**
 * @file bench/bench_structural.cpp
 * @brief Structural changes: create, destroy, add + remove (archetype migration), each against the
 *        plain-vector baseline where one exists; multi-type add/remove (one migration for three
 *        types, read as a ratio to one single add/remove) and the bulk operations destroy_all and
 *        add_all / remove_all (per entity, against hand-written baselines).
 */
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "common.hpp"

namespace bench {
namespace {

// --- create: N x create_with<Position, Velocity> into a fresh world (world lifetime untimed) -------

void BM_Create(benchmark::State& state) {
    const size_t n = arg_n(state);
    for (auto _ : state) {
        ecs::World world;
        const PhaseTimer timer;
        for (size_t i = 0; i < n; ++i) {
            ecs::Entity e = world.create_with(position_of(i), velocity_of(i));
            benchmark::DoNotOptimize(e);
        }
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(world.count());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_SCALING_MANUAL(BM_Create);

/// Baseline: push_back into two fresh SoA vectors.
void BM_Raw_Create(benchmark::State& state) {
    const size_t n = arg_n(state);
    for (auto _ : state) {
        std::vector<Position> positions;
        std::vector<Velocity> velocities;
        const PhaseTimer timer;
        for (size_t i = 0; i < n; ++i) {
            positions.push_back(position_of(i));
            velocities.push_back(velocity_of(i));
        }
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(positions.data());
        benchmark::DoNotOptimize(velocities.data());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_SCALING_MANUAL(BM_Raw_Create);

// --- an empty entity: create() against a hand-written twin of EnTT's registry.create() ------------

/// create() n times into a fresh world: no component, the entity sits in the empty archetype.
void BM_CreateEmpty(benchmark::State& state) {
    const size_t n = arg_n(state);
    for (auto _ : state) {
        ecs::World world;
        const PhaseTimer timer;
        for (size_t i = 0; i < n; ++i) {
            ecs::Entity e = world.create();
            benchmark::DoNotOptimize(e);
        }
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(world.count());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_SCALING_MANUAL(BM_CreateEmpty);

/// Lower bound of EnTT's registry.create(): only the two writes a fresh identifier needs. EnTT's
/// entity storage is a sparse set: a packed vector of 32-bit identifiers (20-bit index, 12-bit
/// version) and a paged sparse array (4,096 entries a page, allocated on first touch) mapping an
/// index to its position; released identifiers wait past the live ones at the packed vector's end,
/// so a create first checks for one to recycle. BM_Raw_CreateEnttStorage below takes every step
/// EnTT takes; this one skips the slot look-up, the page fill and the swap into place.
void BM_Raw_CreateEnttLike(benchmark::State& state) {
    const size_t n = arg_n(state);
    constexpr uint32_t PAGE = 4096;
    for (auto _ : state) {
        std::vector<uint32_t> packed;
        std::vector<std::unique_ptr<uint32_t[]>> sparse;
        size_t in_use = 0;
        const PhaseTimer timer;
        for (size_t i = 0; i < n; ++i) {
            uint32_t entity;
            if (in_use < packed.size()) { // recycle a released identifier (none in this run)
                entity = packed[in_use];
            } else {
                entity = static_cast<uint32_t>(packed.size()); // version 0
                const uint32_t page = entity / PAGE;
                if (page >= sparse.size()) sparse.resize(page + 1);
                if (!sparse[page]) sparse[page].reset(new uint32_t[PAGE]);
                sparse[page][entity % PAGE] = static_cast<uint32_t>(packed.size());
                packed.push_back(entity);
            }
            ++in_use;
            benchmark::DoNotOptimize(entity);
        }
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(packed.data());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_SCALING_MANUAL(BM_Raw_CreateEnttLike);

/// Twins: every step EnTT's registry.create() takes for a fresh identifier, as its swap-only entity
/// storage (3.13 onward) runs them, written inline (no call layer, no virtual dispatch: kinder to
/// EnTT than the library itself). The twin above is a lower bound that skips half of them.
/// - Identifiers are 32 bits (a 20-bit index and a 12-bit version above it) or 64 (32 and 32).
///   `null` has every bit set; a slot whose version bits are all set (the tombstone version) holds
///   nothing.
/// - The packed vector keeps the live identifiers in [0, head) and the released ones after them.
///   A create recycles packed[head] when there is one.
/// - Otherwise the storage draws the next never-used index (`placeholder`), skipping any whose
///   sparse slot is in use (it looks the slot up: the page may not exist yet).
/// - Then it makes sure the sparse page exists (a new page is filled with `null`), appends the
///   identifier to the packed vector when its slot is null, and swaps it into position `head`
///   (both identifiers' sparse slots rewritten, even when the two positions are the same).
template <typename Id>
void raw_create_entt_storage(benchmark::State& state) {
    const size_t n = arg_n(state);
    constexpr Id PAGE = 4096;
    constexpr int INDEX_BITS = sizeof(Id) == 4 ? 20 : 32;
    constexpr Id INDEX_MASK = (Id(1) << INDEX_BITS) - 1;
    constexpr Id VERSION_BITS = Id(~INDEX_MASK);
    constexpr Id NULL_ID = Id(~Id(0));
    const auto combine = [](Id index_of, Id version_of) {
        return (index_of & INDEX_MASK) | (version_of & VERSION_BITS);
    };
    for (auto _ : state) {
        std::vector<Id> packed;
        std::vector<Id*> sparse;
        size_t head = 0;
        Id placeholder = 0;
        const auto slot_of = [&](Id id) -> Id& { return sparse[(id & INDEX_MASK) / PAGE][(id & INDEX_MASK) % PAGE]; };
        const PhaseTimer timer;
        for (size_t i = 0; i < n; ++i) {
            Id entity; // n < 2^INDEX_BITS (the index space; EnTT asserts past it)
            if (head != packed.size()) {
                entity = packed[head];
            } else {
                for (;;) { // the next index whose slot holds nothing
                    entity = combine(placeholder++, 0);
                    const size_t page = size_t((entity & INDEX_MASK) / PAGE);
                    const Id* slot = page < sparse.size() && sparse[page] != nullptr ? sparse[page] + (entity & INDEX_MASK) % PAGE : nullptr;
                    if (slot == nullptr || (*slot & VERSION_BITS) == VERSION_BITS || entity == NULL_ID) break;
                }
            }
            const size_t page = size_t((entity & INDEX_MASK) / PAGE);
            if (page >= sparse.size()) sparse.resize(size_t(page) + 1, nullptr);
            if (sparse[page] == nullptr) {
                sparse[page] = new Id[PAGE];
                std::fill_n(sparse[page], PAGE, NULL_ID);
            }
            Id& elem = sparse[page][(entity & INDEX_MASK) % PAGE];
            if (elem == NULL_ID) {
                packed.push_back(entity);
                elem = combine(static_cast<Id>(packed.size() - 1), entity);
            } else { // a recycled identifier takes its new version
                elem = combine(elem, entity);
                packed[elem & INDEX_MASK] = entity;
            }
            const size_t at = head++;
            const size_t from_pos = size_t(elem & INDEX_MASK);
            Id& from = packed[from_pos];
            Id& to = packed[at];
            slot_of(from) = combine(static_cast<Id>(at), from);
            slot_of(to) = combine(static_cast<Id>(from_pos), to);
            std::swap(from, to);
            entity = packed[at];
            benchmark::DoNotOptimize(entity);
        }
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(packed.data());
        const bool consistent = packed.size() == n && head == n && packed[n - 1] == n - 1 && (slot_of(packed[n - 1]) & INDEX_MASK) == n - 1;
        for (Id* p : sparse) delete[] p;
        if (!consistent) state.SkipWithError("BM_Raw_CreateEnttStorage: the storage lost an identifier");
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
/// EnTT's default 32-bit identifiers (20-bit index): 10k to 1M, the index space ends at 2^20.
void BM_Raw_CreateEnttStorage(benchmark::State& state) { raw_create_entt_storage<uint32_t>(state); }
ECS_BENCH_RANGE_MANUAL(BM_Raw_CreateEnttStorage);
/// 64-bit identifiers (32-bit index, 32-bit version), what EnTT needs past 2^20 entities: 10k to 10M.
void BM_Raw_CreateEnttStorage64(benchmark::State& state) { raw_create_entt_storage<uint64_t>(state); }
ECS_BENCH_SCALING_MANUAL(BM_Raw_CreateEnttStorage64);

// --- bulk creation: create_n against create_with of the same values in a loop ----------------------

/// create_with(Position, Velocity) n times with the same values (create_n's twin).
void BM_CreateWithLoop(benchmark::State& state) {
    const size_t n = arg_n(state);
    for (auto _ : state) {
        ecs::World world;
        const PhaseTimer timer;
        for (size_t i = 0; i < n; ++i) {
            ecs::Entity e = world.create_with(Position{1, 2}, Velocity{4, 5});
            benchmark::DoNotOptimize(e);
        }
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(world.count());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_SCALING_MANUAL(BM_CreateWithLoop);

/// create_n(n, Position, Velocity): one lookup, one growth, the handles returned in a vector.
void BM_CreateN(benchmark::State& state) {
    const size_t n = arg_n(state);
    for (auto _ : state) {
        ecs::World world;
        const PhaseTimer timer;
        std::vector<ecs::Entity> handles = world.create_n(n, Position{1, 2}, Velocity{4, 5});
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(handles.data());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_SCALING_MANUAL(BM_CreateN);

// --- destroy: N entities, in creation order (world build and teardown untimed) --------------------

void BM_Destroy(benchmark::State& state) {
    const size_t n = arg_n(state);
    for (auto _ : state) {
        ecs::World world;
        const std::vector<ecs::Entity> handles = populate_pv(world, n);
        const PhaseTimer timer;
        for (ecs::Entity e : handles) world.destroy(e);
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(world.count());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_SCALING_MANUAL(BM_Destroy);

/// Baseline: swap-remove from SoA vectors with a handle -> row table and a row -> handle list (the
/// least bookkeeping a destroy that keeps rows dense and handles valid can do).
void BM_Raw_Destroy(benchmark::State& state) {
    const size_t n = arg_n(state);
    for (auto _ : state) {
        std::vector<Position> positions(n);
        std::vector<Velocity> velocities(n);
        std::vector<uint32_t> row_of(n);
        std::vector<uint32_t> handle_at(n);
        for (size_t i = 0; i < n; ++i) {
            positions[i] = position_of(i);
            velocities[i] = velocity_of(i);
            row_of[i] = static_cast<uint32_t>(i);
            handle_at[i] = static_cast<uint32_t>(i);
        }
        const PhaseTimer timer;
        for (size_t h = 0; h < n; ++h) {
            const uint32_t row = row_of[h];
            const size_t last = positions.size() - 1;
            positions[row] = positions[last];
            velocities[row] = velocities[last];
            const uint32_t moved = handle_at[last];
            handle_at[row] = moved;
            row_of[moved] = row;
            positions.pop_back();
            velocities.pop_back();
            handle_at.pop_back();
        }
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(positions.size());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_SCALING_MANUAL(BM_Raw_Destroy);

// --- add_remove: per entity, add Health then remove it (two migrations; the world ends as it began) -

void BM_AddRemove(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    const std::vector<ecs::Entity> handles = populate_pv(world, n);
    for (ecs::Entity e : handles) { // warm-up: create the {P, V, Health} archetype and grow its block
        world.add(e, Health{100, 100});
    }
    for (ecs::Entity e : handles) world.remove<Health>(e);
    for (auto _ : state) {
        for (ecs::Entity e : handles) {
            world.add(e, Health{100, 100});
            world.remove<Health>(e);
        }
        benchmark::DoNotOptimize(world.count());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE(BM_AddRemove);

/// Baseline: the same two migrations written by hand for these three types. Two SoA tables
/// ({Position, Velocity} and {Position, Velocity, Health}) with row -> handle lists and a handle ->
/// (table, row) record; each step appends the row to the other table and swap-removes it from its
/// own. This is what an archetype migration costs when every type is known at compile time.
struct RawMigrations {
    struct Table {
        std::vector<Position> p;
        std::vector<Velocity> v;
        std::vector<Health> h; // empty in the {P, V} table
        std::vector<uint32_t> handle;
    };
    struct Record {
        uint32_t table;
        uint32_t row;
    };
    Table tables[2];
    std::vector<Record> records;

    explicit RawMigrations(size_t n) : records(n) {
        for (Table& t : tables) {
            t.p.reserve(n);
            t.v.reserve(n);
            t.h.reserve(n);
            t.handle.reserve(n);
        }
        for (size_t i = 0; i < n; ++i) {
            tables[0].p.push_back(position_of(i));
            tables[0].v.push_back(velocity_of(i));
            tables[0].handle.push_back(static_cast<uint32_t>(i));
            records[i] = Record{0, static_cast<uint32_t>(i)};
        }
    }
    /// Moves handle `e` from its table to table `to`, appending its row there and closing the hole.
    void migrate(uint32_t e, uint32_t to) {
        Record& r = records[e];
        Table& src = tables[r.table];
        Table& dst = tables[to];
        const uint32_t row = r.row;
        const size_t last = src.handle.size() - 1;
        dst.p.push_back(src.p[row]);
        dst.v.push_back(src.v[row]);
        dst.handle.push_back(e);
        src.p[row] = src.p[last];
        src.v[row] = src.v[last];
        src.p.pop_back();
        src.v.pop_back();
        if (!src.h.empty()) {
            src.h[row] = src.h[last];
            src.h.pop_back();
        }
        const uint32_t moved = src.handle[last];
        src.handle[row] = moved;
        records[moved].row = row;
        src.handle.pop_back();
        r = Record{to, static_cast<uint32_t>(dst.handle.size() - 1)};
    }
    /// migrate() as a call of its own, as World::add and World::remove are.
    ECS_NOINLINE void migrate_call(uint32_t e, uint32_t to) { migrate(e, to); }
};

/// `Separate`: each migration is a call of its own, as World::add and World::remove are. Otherwise
/// both are inlined into the loop body and the compiler may merge them (g++ -O3: 157 instructions a
/// pair inlined, 194 as two calls; World's add + remove: 293).
template <bool Separate>
void raw_add_remove(benchmark::State& state) {
    const size_t n = arg_n(state);
    RawMigrations m(n);
    for (auto _ : state) {
        for (size_t i = 0; i < n; ++i) {
            const auto e = static_cast<uint32_t>(i);
            if constexpr (Separate) m.migrate_call(e, 1);
            else m.migrate(e, 1);
            m.tables[1].h.push_back(Health{100, 100});
            if constexpr (Separate) m.migrate_call(e, 0);
            else m.migrate(e, 0);
        }
        benchmark::DoNotOptimize(m.tables[0].p.data());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
void BM_Raw_AddRemove(benchmark::State& state) { raw_add_remove<false>(state); }
ECS_BENCH_RANGE(BM_Raw_AddRemove);
void BM_Raw_AddRemoveCalls(benchmark::State& state) { raw_add_remove<true>(state); }
ECS_BENCH_RANGE(BM_Raw_AddRemoveCalls);

// --- multi-type add / remove: one migration for three types vs one single-type migration ----------
// Each pass moves every entity of {Position, Velocity} once; the opposite pass restores the world
// untimed. Read BM_AddThree / BM_AddOne and BM_RemoveThree / BM_RemoveOne (target <= 1.2).

enum class Pass { AddOne, AddThree, RemoveOne, RemoveThree };

template <Pass P>
void structural_pass(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    const std::vector<ecs::Entity> handles = populate_pv(world, n);
    constexpr bool three = P == Pass::AddThree || P == Pass::RemoveThree;
    constexpr bool adding = P == Pass::AddOne || P == Pass::AddThree;
    const auto add = [&] {
        for (ecs::Entity e : handles) {
            if constexpr (three) world.add(e, A{1.f}, B{2.f}, C{3.f});
            else world.add(e, A{1.f});
        }
    };
    const auto remove = [&] {
        for (ecs::Entity e : handles) {
            if constexpr (three) world.remove<A, B, C>(e);
            else world.remove<A>(e);
        }
    };
    add(); // warm-up: the destination archetype exists and its block has grown
    remove();
    for (auto _ : state) {
        if constexpr (adding) {
            const PhaseTimer timer;
            add();
            state.SetIterationTime(timer.seconds());
            remove();
        } else {
            add();
            const PhaseTimer timer;
            remove();
            state.SetIterationTime(timer.seconds());
        }
        benchmark::DoNotOptimize(world.count());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_AddOne(benchmark::State& state) { structural_pass<Pass::AddOne>(state); }
ECS_BENCH_RANGE_MANUAL(BM_AddOne);
void BM_AddThree(benchmark::State& state) { structural_pass<Pass::AddThree>(state); }
ECS_BENCH_RANGE_MANUAL(BM_AddThree);
void BM_RemoveOne(benchmark::State& state) { structural_pass<Pass::RemoveOne>(state); }
ECS_BENCH_RANGE_MANUAL(BM_RemoveOne);
void BM_RemoveThree(benchmark::State& state) { structural_pass<Pass::RemoveThree>(state); }
ECS_BENCH_RANGE_MANUAL(BM_RemoveThree);

// --- destroy_all: every entity of {Position, Velocity} at once (world build untimed) ---------------

void BM_DestroyAll(benchmark::State& state) {
    const size_t n = arg_n(state);
    for (auto _ : state) {
        ecs::World world;
        (void)populate_pv(world, n);
        const PhaseTimer timer;
        const size_t destroyed = world.destroy_all<Position>();
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(destroyed);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE_MANUAL(BM_DestroyAll);

/// Baseline: the least a bulk destroy that keeps handles valid can do: per entity one record
/// (16 bytes: table, row, generation) marked free with its generation bumped and linked into the
/// free list, then the table's rows dropped.
void BM_Raw_DestroyAll(benchmark::State& state) {
    const size_t n = arg_n(state);
    struct Record {
        void* table;
        uint32_t row;
        uint32_t generation;
    };
    for (auto _ : state) {
        std::vector<Position> positions(n);
        std::vector<Velocity> velocities(n);
        std::vector<uint32_t> handle_at(n);
        std::vector<Record> records(n + 1);
        for (size_t i = 0; i < n; ++i) {
            positions[i] = position_of(i);
            velocities[i] = velocity_of(i);
            handle_at[i] = static_cast<uint32_t>(i + 1);
            records[i + 1] = Record{&positions, static_cast<uint32_t>(i), 1};
        }
        const PhaseTimer timer;
        uint32_t free_head = 0;
        for (size_t row = 0; row < n; ++row) {
            Record& r = records[handle_at[row]];
            r.table = nullptr;
            r.row = free_head;
            ++r.generation;
            free_head = handle_at[row];
        }
        positions.clear();
        velocities.clear();
        handle_at.clear();
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(free_head);
        benchmark::DoNotOptimize(records.data());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE_MANUAL(BM_Raw_DestroyAll);

// --- add_all / remove_all: Health to / from every entity of {Position, Velocity} ------------------

void BM_AddAll(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    (void)populate_pv(world, n);
    (void)world.add_all(Health{100, 100}); // warm-up: {P, V, Health} exists and has grown
    (void)world.remove_all<Health>();
    for (auto _ : state) {
        const PhaseTimer timer;
        const size_t added = world.add_all(Health{100, 100});
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(added);
        (void)world.remove_all<Health>();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE_MANUAL(BM_AddAll);

void BM_RemoveAll(benchmark::State& state) {
    const size_t n = arg_n(state);
    ecs::World world;
    (void)populate_pv(world, n);
    for (auto _ : state) {
        (void)world.add_all(Health{100, 100});
        const PhaseTimer timer;
        const size_t removed = world.remove_all<Health>();
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(removed);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE_MANUAL(BM_RemoveAll);

/// Baseline for add_all: two SoA tables (arrays allocated once, with room for every row) with
/// row -> handle lists (8-byte handles: index and generation) and a handle -> (table, row,
/// generation) record of 16 bytes, as generational handles need (BM_Raw_DestroyAll has the same);
/// every row of the {P, V} table is appended to the {P, V, Health} table (one memcpy per column),
/// Health is filled in, and each record is pointed at its new row.
void BM_Raw_AddAll(benchmark::State& state) {
    const size_t n = arg_n(state);
    struct Handle {
        uint32_t index;
        uint32_t generation;
    };
    struct Table {
        std::unique_ptr<Position[]> p;
        std::unique_ptr<Velocity[]> v;
        std::unique_ptr<Health[]> h;
        std::unique_ptr<Handle[]> handle;
        size_t size = 0;
        explicit Table(size_t cap)
            : p(new Position[cap]), v(new Velocity[cap]), h(new Health[cap]), handle(new Handle[cap]) {}
    };
    struct Record {
        Table* table;
        uint32_t row;
        uint32_t generation;
    };
    Table from(n), to(n);
    std::vector<Record> records(n);
    for (auto _ : state) {
        for (size_t i = 0; i < n; ++i) {
            from.p[i] = position_of(i);
            from.v[i] = velocity_of(i);
            from.handle[i] = Handle{static_cast<uint32_t>(i), 1};
            records[i] = Record{&from, static_cast<uint32_t>(i), 1};
        }
        from.size = n;
        to.size = 0;
        const PhaseTimer timer;
        const size_t base = to.size;
        std::memcpy(to.p.get() + base, from.p.get(), n * sizeof(Position));
        std::memcpy(to.v.get() + base, from.v.get(), n * sizeof(Velocity));
        std::memcpy(to.handle.get() + base, from.handle.get(), n * sizeof(Handle));
        for (size_t i = 0; i < n; ++i) to.h[base + i] = Health{100, 100};
        for (size_t i = 0; i < n; ++i) {
            Record& r = records[to.handle[base + i].index];
            r.table = &to;
            r.row = static_cast<uint32_t>(base + i);
        }
        to.size = base + n;
        from.size = 0;
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(to.h.get());
        benchmark::DoNotOptimize(records.data());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
ECS_BENCH_RANGE_MANUAL(BM_Raw_AddAll);

} // namespace
} // namespace bench
