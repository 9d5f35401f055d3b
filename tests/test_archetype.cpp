// Storage (SPEC §2.2-§2.5): component ids, columns, chunk allocation, edges and bitsets.
#include <ecs/archetype.hpp>
#include <ecs/component.hpp>
#include <ecs/world.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "counting.hpp"

using ecs::Archetype;
using ecs::Entity;
using ecs::World;
using Access = ecs::detail::WorldAccess;

namespace {
struct Position {
    float x = 0, y = 0;
};
struct Velocity {
    float x = 0, y = 0;
};
struct Tag {};
struct OtherTag {};
struct alignas(64) Wide {
    float lanes[16];
};
struct alignas(32) Mid {
    double d[4];
};

Archetype& archetype_of(const World& w, Entity e) {
    return *Access::records(w)[e.index].archetype;
}
} // namespace

TEST_CASE("component: ids are unique per type and ignore cv/ref", "[component]") {
    const auto p = ecs::component_id<Position>();
    const auto v = ecs::component_id<Velocity>();
    CHECK(p != v);
    CHECK(ecs::component_id<const Position>() == p);
    CHECK(ecs::component_id<Position&>() == p);
    CHECK(ecs::component_id<const volatile Position&>() == p);
    CHECK(ecs::component_id<Position>() == p); // stable within the run
}

TEST_CASE("component: make_column captures size, alignment and operations", "[component]") {
    const ecs::ComponentColumn c = ecs::make_column<std::string>();
    CHECK(c.type_id == ecs::component_id<std::string>());
    CHECK(c.elem_size == sizeof(std::string));
    CHECK(c.elem_align == alignof(std::string));
    CHECK_FALSE(c.trivially_relocatable);
    CHECK(c.move != nullptr);
    CHECK(c.destroy != nullptr);
    CHECK(c.swap != nullptr);
    alignas(std::string) unsigned char a[sizeof(std::string)];
    alignas(std::string) unsigned char b[sizeof(std::string)];
    alignas(std::string) unsigned char m[sizeof(std::string)];
    auto* sa = ::new (static_cast<void*>(a)) std::string("short");
    auto* sb = ::new (static_cast<void*>(b)) std::string("another rather long string, on the heap");
    c.swap(a, b);
    CHECK(*sa == "another rather long string, on the heap");
    CHECK(*sb == "short");
    c.move(m, b); // move-construct; the source stays alive
    CHECK(*reinterpret_cast<std::string*>(m) == "short");
    c.destroy(a);
    c.destroy(b);
    c.destroy(m);

    const ecs::ComponentColumn t = ecs::make_column<Tag>();
    CHECK(t.is_tag);
    CHECK(t.elem_size == 0);
    CHECK(t.data != nullptr);
    const ecs::ComponentColumn e = ecs::make_column<ecs_test::CountedEmpty>();
    CHECK_FALSE(e.is_tag); // empty but with user-written special members: real storage
    CHECK(e.elem_size == sizeof(ecs_test::CountedEmpty));
}

TEST_CASE("component: the column factory registry builds columns from an id", "[component]") {
    struct Registered {
        int v;
    };
    const auto id = ecs::ensure_column_factory<Registered>();
    CHECK(id == ecs::component_id<Registered>());
    const ecs::ColumnFactory f = ecs::column_factory(id);
    REQUIRE(f != nullptr);
    CHECK(f().elem_size == sizeof(Registered));
    CHECK(ecs::ensure_column_factory<Registered>() == id); // idempotent
    CHECK(ecs::column_factory(ECS_MAX_COMPONENTS + 5) == nullptr);
}

TEST_CASE("archetype: type set is sorted and the bitset has one bit per type", "[archetype]") {
    World w;
    const Entity e = w.create_with(Velocity{}, Tag{}, Position{});
    const Archetype& a = archetype_of(w, e);
    CHECK(a.types.size() == 3);
    CHECK(std::is_sorted(a.types.begin(), a.types.end()));
    CHECK(a.mask.count() == 3);
    CHECK(a.mask.test(ecs::component_id<Position>()));
    CHECK(a.mask.test(ecs::component_id<Tag>()));
    CHECK(a.columns.size() == 3);
    for (size_t i = 0; i < a.types.size(); ++i) CHECK(a.columns[i].type_id == a.types[i]);
}

TEST_CASE("archetype: initial capacity is max(16, 16384 / row_size) and growth doubles", "[archetype]") {
    World w;
    const Entity e = w.create_with(Position{}, Velocity{}); // row_size 16
    Archetype& a = archetype_of(w, e);
    CHECK(a.row_size == 16);
    CHECK(a.capacity() == 16384 / 16);
    for (int i = 0; i < 1024; ++i) (void)w.create_with(Position{}, Velocity{});
    CHECK(a.capacity() == 2048);

    struct Huge {
        char bytes[4096];
    };
    const Entity h = w.create_with(Huge{});
    CHECK(archetype_of(w, h).capacity() == 16); // 16384 / 4096 = 4, floored at 16
}

TEST_CASE("archetype: one block, regions aligned to max(16, alignof)", "[archetype]") {
    World w;
    const Entity e = w.create_with(char{'a'}, Wide{}, Mid{}, Position{});
    for (int i = 0; i < 100; ++i) (void)w.create_with(char{'b'}, Wide{}, Mid{}, Position{});
    const Archetype& a = archetype_of(w, e);
    uintptr_t lo = UINTPTR_MAX;
    uintptr_t hi = 0;
    for (const ecs::ComponentColumn& c : a.columns) {
        const auto addr = reinterpret_cast<uintptr_t>(c.data);
        CHECK(addr % std::max<size_t>(16, c.elem_align) == 0);
        lo = std::min(lo, addr);
        hi = std::max(hi, addr + a.capacity() * c.elem_size);
    }
    CHECK(hi - lo <= a.block_bytes()); // all regions inside one block
    CHECK(a.block_bytes() >= a.capacity() * a.row_size);
}

TEST_CASE("archetype: plain-byte columns of mixed sizes keep every value across growth", "[archetype]") {
    // All trivially copyable and at most 16-aligned: the block grows with realloc and the columns
    // after the first shift within it (last first). Values are checked after every doubling.
    struct Byte {
        uint8_t v;
    };
    struct Triple {
        float a, b, c;
    };
    struct alignas(16) Quad {
        float v[4];
    };
    World w;
    std::vector<std::pair<Entity, size_t>> made; // entity, the number its values derive from
    const auto spawn = [&](size_t i) {
        const auto f = static_cast<float>(i);
        made.emplace_back(w.create_with(Byte{uint8_t(i * 7)}, double(i) * 0.5, Triple{f, f + 1, f + 2},
                                        Quad{{f, f, f, -f}}, Tag{}),
                          i);
    };
    const auto all_intact = [&] {
        bool ok = true;
        for (const auto& [e, i] : made) {
            const auto f = static_cast<float>(i);
            ok = ok && w.get<Byte>(e).v == uint8_t(i * 7) && w.get<double>(e) == double(i) * 0.5 &&
                 w.get<Triple>(e).c == f + 2 && w.get<Quad>(e).v[3] == -f && w.has<Tag>(e);
        }
        return ok;
    };
    const auto watch_growth = [&](size_t count, size_t first) {
        size_t capacity = archetype_of(w, made.front().first).capacity();
        for (size_t i = first; i < first + count; ++i) {
            spawn(i);
            const Archetype& a = archetype_of(w, made.front().first);
            if (a.capacity() == capacity) continue;
            capacity = a.capacity(); // just grew
            REQUIRE(all_intact());
            for (const ecs::ComponentColumn& c : a.columns)
                if (c.elem_size != 0) // a tag's data is its type's static object, not a region
                    CHECK(reinterpret_cast<uintptr_t>(c.data) % std::max<size_t>(16, c.elem_align) == 0);
        }
    };
    spawn(0);
    watch_growth(5000, 1);
    // Mostly emptied, then grown again from a non-empty state.
    for (size_t k = 0; k < 4000; ++k) w.destroy(made[k].first);
    made.erase(made.begin(), made.begin() + 4000);
    REQUIRE(all_intact());
    watch_growth(12000, 5000);
    CHECK(all_intact());
    CHECK(w.check_invariants());
}

TEST_CASE("archetype: tags occupy no column bytes", "[archetype]") {
    World w;
    const Entity plain = w.create_with(Position{});
    const Entity tagged = w.create_with(Position{}, Tag{}, OtherTag{});
    CHECK(archetype_of(w, tagged).row_size == archetype_of(w, plain).row_size);
    const Entity only_tags = w.create_with(Tag{});
    CHECK(archetype_of(w, only_tags).block_bytes() == 0);
    CHECK(w.has<Tag>(only_tags));
    w.add(plain, Tag{});
    CHECK(archetype_of(w, plain).row_size == sizeof(Position)); // adding a tag adds no bytes
    CHECK(w.get<Position>(plain).x == 0);
}

TEST_CASE("archetype: the edge cache links add and remove neighbours", "[archetype]") {
    World w;
    const Entity e = w.create_with(Position{});
    Archetype* p = &archetype_of(w, e);
    w.add(e, Velocity{});
    Archetype* pv = &archetype_of(w, e);
    const auto vid = ecs::component_id<Velocity>();
    CHECK(p->edge(vid).add == pv);
    CHECK(pv->edge(vid).remove == p);
    const size_t archetypes = w.archetype_count();
    const Entity f = w.create_with(Position{});
    w.add(f, Velocity{}); // through the cached edge: no new archetype
    CHECK(&archetype_of(w, f) == pv);
    w.remove<Velocity>(f);
    CHECK(&archetype_of(w, f) == p);
    CHECK(w.archetype_count() == archetypes);
}

namespace {
// Strides for the plain-byte migration path (#20): every one it copies inline, one wider than it
// copies (the general path), over-aligned ones and a tag.
struct B1 {
    uint8_t v[1];
};
struct B2 {
    uint16_t v[1];
};
struct B7 {
    char v[7];
};
struct B12 {
    float v[3];
};
struct B64 {
    uint64_t v[8];
};
struct B72 { // wider than Archetype::PLAIN_MAX_BYTES: no plan, the general path moves it
    uint64_t v[9];
};

template <typename T>
T stamped(uint32_t key) {
    T t{};
    if constexpr (std::is_same_v<T, Wide>) {
        for (size_t j = 0; j < 16; ++j) t.lanes[j] = float(key + j);
    } else if constexpr (std::is_same_v<T, Mid>) {
        for (size_t j = 0; j < 4; ++j) t.d[j] = double(key) * double(j + 1);
    } else if constexpr (std::is_same_v<T, Position> || std::is_same_v<T, Velocity>) {
        t.x = float(key);
        t.y = -float(key);
    } else {
        for (size_t j = 0; j < std::size(t.v); ++j) t.v[j] = static_cast<std::remove_reference_t<decltype(t.v[0])>>(key + j);
    }
    return t;
}

template <typename T>
bool carries(const T& t, uint32_t key) {
    const T want = stamped<T>(key);
    return std::memcmp(&t, &want, sizeof(T)) == 0;
}
} // namespace

TEST_CASE("archetype: add and remove move rows of every stride, over-aligned ones included", "[archetype]") {
    // Entities start with {Position, B1, B7, B12, Mid}; random adds and removes of seven more
    // types (strides 2, 8, 64, 64 over-aligned, 72, and a tag) move them between archetypes, most
    // through the plain-byte path, B72's archetypes through the general one. Every value is
    // compared with its expected bytes after every step of 100.
    World w;
    constexpr size_t kinds = 6; // B2, Velocity, B64, Wide, B72, Tag
    struct Model {
        Entity e;
        uint32_t key;
        std::array<uint32_t, kinds> extra; // 0: absent, else the key of the value
    };
    std::vector<Model> model;
    for (uint32_t i = 0; i < 300; ++i) {
        const uint32_t key = 1000 + i * 13;
        model.push_back(Model{w.create_with(stamped<Position>(key), stamped<B1>(key), stamped<B7>(key),
                                            stamped<B12>(key), stamped<Mid>(key)),
                              key,
                              {}});
    }
    const auto toggle = [&](Model& m, size_t kind, uint32_t key) {
        const bool add = m.extra[kind] == 0;
        m.extra[kind] = add ? key : 0;
        switch (kind) {
        case 0: add ? w.add(m.e, stamped<B2>(key)) : w.remove<B2>(m.e); break;
        case 1: add ? w.add(m.e, stamped<Velocity>(key)) : w.remove<Velocity>(m.e); break;
        case 2: add ? w.add(m.e, stamped<B64>(key)) : w.remove<B64>(m.e); break;
        case 3: add ? w.add(m.e, stamped<Wide>(key)) : w.remove<Wide>(m.e); break;
        case 4: add ? w.add(m.e, stamped<B72>(key)) : w.remove<B72>(m.e); break;
        default: add ? w.add(m.e, Tag{}) : w.remove<Tag>(m.e); break;
        }
    };
    const auto intact = [&] {
        bool ok = true;
        for (const Model& m : model) {
            ok = ok && carries(w.get<Position>(m.e), m.key) && carries(w.get<B1>(m.e), m.key) &&
                 carries(w.get<B7>(m.e), m.key) && carries(w.get<B12>(m.e), m.key) && carries(w.get<Mid>(m.e), m.key);
            ok = ok && (m.extra[0] == 0 ? !w.has<B2>(m.e) : carries(w.get<B2>(m.e), m.extra[0]));
            ok = ok && (m.extra[1] == 0 ? !w.has<Velocity>(m.e) : carries(w.get<Velocity>(m.e), m.extra[1]));
            ok = ok && (m.extra[2] == 0 ? !w.has<B64>(m.e) : carries(w.get<B64>(m.e), m.extra[2]));
            ok = ok && (m.extra[3] == 0 ? !w.has<Wide>(m.e) : carries(w.get<Wide>(m.e), m.extra[3]));
            ok = ok && (m.extra[4] == 0 ? !w.has<B72>(m.e) : carries(w.get<B72>(m.e), m.extra[4]));
            ok = ok && (m.extra[5] != 0) == w.has<Tag>(m.e);
        }
        return ok;
    };
    uint32_t state = 12345;
    const auto next = [&state] {
        state = state * 1664525u + 1013904223u;
        return state >> 8;
    };
    for (uint32_t step = 1; step <= 4000; ++step) {
        toggle(model[next() % model.size()], next() % kinds, 50000 + step);
        if (step % 100 == 0) REQUIRE(intact());
    }
    CHECK(w.check_invariants());

    // The plans themselves: an edge between plain archetypes has one, an edge leaving an archetype
    // with B72 (too wide) or a non-trivial type has none.
    const Entity plain = w.create_with(Position{});
    Archetype& p = archetype_of(w, plain);
    w.add(plain, B64{});
    CHECK(p.edge(ecs::component_id<B64>()).add_plan.first != 0);
    CHECK(archetype_of(w, plain).edge(ecs::component_id<B64>()).remove_plan.first != 0);
    w.add(plain, B72{});
    CHECK(archetype_of(w, plain).edge(ecs::component_id<B72>()).remove_plan.first == 0);
    const Entity text = w.create_with(std::string("a string too long for the small-string buffer"));
    w.add(text, Position{1, 2});
    CHECK(archetype_of(w, text).edge(ecs::component_id<Position>()).remove_plan.first == 0);
    w.remove<Position>(text);
    CHECK(w.get<std::string>(text) == "a string too long for the small-string buffer");
}

TEST_CASE("archetype: entity vector and columns stay parallel, records consistent", "[archetype]") {
    World w;
    std::vector<Entity> es;
    for (int i = 0; i < 500; ++i) {
        es.push_back(w.create_with(Position{float(i), 0}));
        if (i % 3 == 0) w.add(es.back(), Velocity{});
        if (i % 7 == 0) w.destroy(es[size_t(i / 2)]);
    }
    for (const auto& a : Access::archetypes(w)) {
        for (size_t row = 0; row < a->size(); ++row) {
            const ecs::EntityRecord& r = Access::records(w)[a->entities[row].index];
            CHECK(r.archetype == &*a);
            CHECK(r.row == row);
        }
    }
    CHECK(w.check_invariants());
}

namespace {
template <int N>
struct ThreadProbe {
    int v = N;
};

template <int... Ns>
std::vector<ecs::ComponentTypeID> probe_ids(std::integer_sequence<int, Ns...>) {
    return {ecs::component_id<ThreadProbe<Ns>>()...};
}

template <int... Ns>
size_t fill_world(World& w, std::integer_sequence<int, Ns...>) {
    for (int i = 0; i < 50; ++i) (void)w.create_with(ThreadProbe<Ns>{}...);
    return w.count<ThreadProbe<Ns>...>();
}
} // namespace

TEST_CASE("component: ids and column factories are consistent when several threads meet new types",
          "[component][threads]") {
    // PITFALLS #18: the process-wide registries must hand one id per type and one factory per id,
    // whichever thread gets there first, while worlds are created in parallel.
    using Seq = std::make_integer_sequence<int, 24>;
    std::vector<std::vector<ecs::ComponentTypeID>> seen(4);
    std::vector<size_t> counts(4, 0);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < 4; ++t) {
        threads.emplace_back([t, &seen, &counts] {
            World w;
            seen[t] = probe_ids(Seq{});
            counts[t] = fill_world(w, Seq{});
        });
    }
    for (std::thread& th : threads) th.join();
    for (size_t t = 1; t < 4; ++t) CHECK(seen[t] == seen[0]);
    std::vector<ecs::ComponentTypeID> sorted = seen[0];
    std::sort(sorted.begin(), sorted.end());
    CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()); // distinct ids
    for (size_t t = 0; t < 4; ++t) CHECK(counts[t] == 50);
    for (ecs::ComponentTypeID id : seen[0]) {
        const ecs::ColumnFactory f = ecs::column_factory(id);
        REQUIRE(f != nullptr);
        CHECK(f().type_id == id);
        CHECK(f().elem_size == sizeof(int));
    }
}

#if ECS_COMPACT_RECORDS
TEST_CASE("archetype: the compact-records arena hands out 16383 slots and takes them back", "[archetype]") {
    auto& ids = ecs::detail::archetype_ids;
    ecs::World w; // its empty archetype holds an id
    const ecs::Entity e = w.create_with<int>(1);
    {
        ecs::Archetype outside(ecs::TypeSet{}, 98); // not made by new: no slot, no id
        CHECK(outside.registry_id == 0);
    }
    auto* made = new ecs::Archetype(ecs::TypeSet{}, 99);
    REQUIRE(made != nullptr);
    CHECK(made->registry_id != 0);
    CHECK(ecs::ArchetypeRef(made).get() == made); // the record's two bytes lead back to it
    CHECK(ecs::ArchetypeRef(nullptr).get() == nullptr);
    // Take every id left: then new gives no archetype (the graph refuses to create one).
    std::vector<uint16_t> taken;
    for (uint16_t id; (id = ids.acquire()) != 0;) taken.push_back(id);
    CHECK(taken.size() < 16383u);
    CHECK(new ecs::Archetype(ecs::TypeSet{}, 100) == nullptr);
    for (uint16_t id : taken) ids.release(id);
    delete made;
    // Released ids are reused, and the world's records still name their archetypes.
    auto* again = new ecs::Archetype(ecs::TypeSet{}, 101);
    REQUIRE(again != nullptr);
    CHECK(again->registry_id != 0);
    delete again;
    CHECK(w.get<int>(e) == 1);
    const ecs::Entity f = w.create_with<int, double>(2, 3.0);
    CHECK(w.get<double>(f) == 3.0);
    CHECK(w.check_invariants());
}
#endif

// -- the internal arrays under the archetype graph and the registries (detail/pod_array.hpp) --------

TEST_CASE("pod arrays: PodArray grows, moves and swaps; PodRows grows rows zero-filled", "[archetype][pod]") {
    using ecs::detail::PodArray;
    using ecs::detail::PodRows;
    struct alignas(16) Wide { uint64_t a, b; }; // the largest alignment malloc promises
    PodArray<Wide> a;
    CHECK(a.empty());
    for (uint64_t i = 0; i < 1000; ++i) a.push_back(Wide{i, ~i});
    REQUIRE(a.size() == 1000);
    CHECK(a.capacity() >= 1000);
    CHECK(reinterpret_cast<uintptr_t>(a.data()) % alignof(Wide) == 0);
    bool in_order = true;
    for (uint64_t i = 0; i < 1000; ++i) in_order = in_order && a[i].a == i && a[i].b == ~i;
    CHECK(in_order);

    PodArray<Wide> b;
    const Wide three[3] = {{1, 2}, {3, 4}, {5, 6}};
    b.append(three, 3);
    a.swap(b);
    REQUIRE(a.size() == 3);
    REQUIRE(b.size() == 1000);
    CHECK(a[2].b == 6);
    CHECK(b[999].a == 999);

    PodArray<Wide> c(static_cast<PodArray<Wide>&&>(b)); // move: b keeps nothing
    CHECK(b.empty());
    CHECK(b.data() == nullptr);
    CHECK(c.size() == 1000);
    c = static_cast<PodArray<Wide>&&>(a); // move-assign frees c's buffer (ASan: no leak)
    CHECK(c.size() == 3);
    c.resize(5, Wide{7, 7});
    CHECK(c[4].a == 7);
    c.assign(three, 2);
    CHECK(c.size() == 2);
    c.pop_back();
    CHECK(c.size() == 1);
    c.clear();
    CHECK(c.empty());

    PodRows<uint32_t> rows;
    CHECK(rows.size() == 0);
    rows.at_grown(3, 5) = 42; // rows 0..3 made, row 3 grown to six slots
    REQUIRE(rows.size() == 4);
    CHECK(rows[0].size() == 0);
    REQUIRE(rows[3].size() == 6);
    CHECK(rows[3][5] == 42);
    CHECK(rows[3][0] == 0); // zero-filled
    rows.at_grown(3, 9) = 7;
    CHECK(rows[3][5] == 42); // kept across growth
    CHECK(rows[3][8] == 0);
    PodRows<uint32_t> moved(static_cast<PodRows<uint32_t>&&>(rows));
    CHECK(moved.size() == 4);
    PodRows<uint32_t> other;
    other.at_grown(0, 0) = 1;
    other = static_cast<PodRows<uint32_t>&&>(moved); // frees other's rows
    CHECK(other[3][9] == 7);
}

namespace {
/// A value whose constructions and destructions are counted; `text` is a short string (SSO).
struct CountedItem {
    static inline int live = 0;
    std::string text;
    explicit CountedItem(std::string t = "x") : text(std::move(t)) { ++live; }
    CountedItem(const CountedItem& o) : text(o.text) { ++live; }
    ~CountedItem() { --live; }
};
} // namespace

TEST_CASE("pod arrays: LazyCopyBox makes its object on first use and copies it through a stored function", "[archetype][pod]") {
    using ecs::detail::LazyCopyBox;
    using Items = std::vector<CountedItem>;
    {
        LazyCopyBox<Items> a;
        CHECK(a.get() == nullptr);
        LazyCopyBox<Items> empty_copy(a); // nothing made, nothing to copy
        CHECK(empty_copy.get() == nullptr);
        a.create().emplace_back("one");
        a.create().emplace_back("two"); // the same object
        REQUIRE(a.get() != nullptr);
        CHECK(a->size() == 2);
        CHECK(CountedItem::live == 2);

        LazyCopyBox<Items> b(a); // a deep copy
        REQUIRE(b.get() != nullptr);
        CHECK(b.get() != a.get());
        CHECK((*b)[1].text == "two");
        CHECK(CountedItem::live == 4);

        LazyCopyBox<Items> c;
        c.create().emplace_back("three");
        CHECK(CountedItem::live == 5);
        c = b; // copy-assign: two copies made, c's old item destroyed
        CHECK(CountedItem::live == 6);
        CHECK(c->size() == 2);
        const LazyCopyBox<Items>& same = c;
        c = same; // self-assignment keeps it
        CHECK(c->size() == 2);
        CHECK(CountedItem::live == 6);

        LazyCopyBox<Items> d(std::move(c)); // moves the pointer
        CHECK(c.get() == nullptr);
        CHECK(CountedItem::live == 6);
        d.swap(a); // a holds c's former list, d a's
        CHECK((*d)[0].text == "one");
        CHECK(CountedItem::live == 6);
        a = std::move(empty_copy); // a's list destroyed, a now empty
        CHECK(a.get() == nullptr);
        CHECK(CountedItem::live == 4);
        d.reset();
        CHECK(d.get() == nullptr);
        CHECK(CountedItem::live == 2); // b's copies
    }
    CHECK(CountedItem::live == 0);
}

namespace {
// Checks a BitMask<N> bit by bit against a plain bool array driven by the same operations.
template <size_t N>
void check_mask_against_bools() {
    using Mask = ecs::BitMask<N>;
    Mask a, b;
    bool ra[N] = {}, rb[N] = {};
    uint32_t seed = 12345u + static_cast<uint32_t>(N);
    auto next = [&seed] { return seed = seed * 1664525u + 1013904223u; };
    for (int i = 0; i < 200; ++i) {
        const size_t pos = next() % N;
        switch (next() % 4) {
        case 0: a.set(pos); ra[pos] = true; break;
        case 1: a.reset(pos); ra[pos] = false; break;
        case 2: a.flip(pos); ra[pos] = !ra[pos]; break;
        default: b.set(pos, (next() & 1u) != 0); rb[pos] = b.test(pos); break;
        }
    }
    size_t count_a = 0;
    bool any_common = false, a_contains_b = true;
    for (size_t i = 0; i < N; ++i) {
        REQUIRE(a.test(i) == ra[i]);
        REQUIRE(a[i] == ra[i]);
        REQUIRE(b.test(i) == rb[i]);
        REQUIRE((a & b).test(i) == (ra[i] && rb[i]));
        REQUIRE((a | b).test(i) == (ra[i] || rb[i]));
        REQUIRE((a ^ b).test(i) == (ra[i] != rb[i]));
        REQUIRE((~a).test(i) == !ra[i]);
        count_a += ra[i] ? 1 : 0;
        any_common = any_common || (ra[i] && rb[i]);
        a_contains_b = a_contains_b && (!rb[i] || ra[i]);
    }
    REQUIRE(a.count() == count_a);
    REQUIRE((~a).count() == N - count_a); // the bits past N stay clear
    REQUIRE(a.intersects(b) == any_common);
    REQUIRE(a.contains(b) == a_contains_b);
    REQUIRE(((a & b) == b) == a_contains_b);
    REQUIRE(a != ~a);

    Mask all;
    REQUIRE(all.none());
    REQUIRE_FALSE(all.any());
    all.set();
    REQUIRE(all.all());
    REQUIRE(all.count() == N);
    REQUIRE((~all).none());
    all.reset(N - 1);
    REQUIRE_FALSE(all.all());
    all.flip();
    REQUIRE(all.count() == 1);
    REQUIRE(all.test(N - 1));
    all.reset();
    REQUIRE(all.none());
}
} // namespace

TEST_CASE("component masks: BitMask matches a bool array, keeps the bits past its size clear, ignores positions past it", "[archetype][mask]") {
    check_mask_against_bools<1>();
    check_mask_against_bools<64>();
    check_mask_against_bools<100>(); // a partial last word
    check_mask_against_bools<ECS_MAX_COMPONENTS>();
    STATIC_REQUIRE(std::is_same_v<ecs::ComponentMask, ecs::BitMask<ECS_MAX_COMPONENTS>>);
    STATIC_REQUIRE(ecs::ComponentMask::size() == ECS_MAX_COMPONENTS);

    ecs::BitMask<100> m;
    m.set(100).set(1000).flip(5000); // past the size: ignored, no exception, no write
    REQUIRE(m.none());
    REQUIRE_FALSE(m.test(100));
    REQUIRE_FALSE(m[1u << 20]);
    m.set(99);
    REQUIRE(m.count() == 1);
    REQUIRE((m | ecs::BitMask<100>{}).test(99));

    constexpr ecs::BitMask<70> folded = ecs::BitMask<70>{}.set(3).set(69); // usable in constant expressions
    STATIC_REQUIRE(folded.test(69));
    STATIC_REQUIRE(!folded.test(4));

    // An archetype's mask has exactly its types' bits.
    World world;
    const Entity e = world.create_with(Position{}, Velocity{});
    const Archetype& arch = archetype_of(world, e);
    REQUIRE(arch.mask.count() == 2);
    REQUIRE(arch.mask.test(ecs::component_id<Position>()));
    REQUIRE(arch.mask.test(ecs::component_id<Velocity>()));
}
