// Tests for ecs/serialization.hpp: component registration and binary world snapshots (SPEC §3.10).
//
// The name registry is process-wide and tests run in random order in one process, so every type
// here has its own "ser."-prefixed name and registration is repeated (idempotently) by each test.

#include <ecs/serialization.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__unix__)
#  include <csignal>
#  include <sys/wait.h>
#  include <unistd.h>
#  define SER_HAVE_FORK 1
#else
#  define SER_HAVE_FORK 0
#endif

#include "catch.hpp"
#include "data/snapshot_v1.hpp" // format 1 bytes written by ecs 0.9

namespace {

// ---------------------------------------------------------------------------------------------------
// Component types
// ---------------------------------------------------------------------------------------------------

struct SerPos {
    float x, y, z;
    friend bool operator==(const SerPos& a, const SerPos& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
};
struct SerVel {
    float dx, dy;
    friend bool operator==(const SerVel& a, const SerVel& b) { return a.dx == b.dx && a.dy == b.dy; }
};
struct SerTag {};
// No padding (16 floats fill the 64 bytes): memcpy-serialized columns copy padding bytes as they are,
// so a padded type would make the "same bytes after reload" check read uninitialised memory.
struct alignas(64) SerAligned {
    float v[16];
    friend bool operator==(const SerAligned& a, const SerAligned& b) { return std::memcmp(a.v, b.v, sizeof a.v) == 0; }
};
struct SerText {
    std::string value;
    friend bool operator==(const SerText& a, const SerText& b) { return a.value == b.value; }
};
struct SerInts {
    std::vector<int> values;
    friend bool operator==(const SerInts& a, const SerInts& b) { return a.values == b.values; }
};
/// Trivially copyable, but registered with explicit functions (decimal text ended by ';').
struct SerHealth {
    int hp;
    friend bool operator==(const SerHealth& a, const SerHealth& b) { return a.hp == b.hp; }
};
/// Counts constructions and destructions, and notices a destructor run twice on the same object.
struct SerCounted {
    static constexpr uint32_t ALIVE = 0xC0FFEE11u;
    static constexpr uint32_t DEAD = 0xDEADBEEFu;
    static inline int constructed = 0;
    static inline int destroyed = 0;
    static inline int bad_destroys = 0;
    static int live() { return constructed - destroyed; }

    int value = 0;
    uint32_t state = ALIVE;

    explicit SerCounted(int v) : value(v) { ++constructed; }
    SerCounted(const SerCounted& o) : value(o.value) { ++constructed; }
    SerCounted(SerCounted&& o) noexcept : value(o.value) { ++constructed; }
    SerCounted& operator=(const SerCounted& o) {
        value = o.value;
        return *this;
    }
    SerCounted& operator=(SerCounted&& o) noexcept {
        value = o.value;
        return *this;
    }
    ~SerCounted() {
        if (state != ALIVE) ++bad_destroys;
        state = DEAD;
        ++destroyed;
    }
};
/// An empty type with user-written special members: not a tag, it keeps a one-byte column.
struct SerEmptyCounted {
    static inline int live = 0;
    SerEmptyCounted() { ++live; }
    SerEmptyCounted(const SerEmptyCounted&) { ++live; }
    SerEmptyCounted(SerEmptyCounted&&) noexcept { ++live; }
    SerEmptyCounted& operator=(const SerEmptyCounted&) = default;
    SerEmptyCounted& operator=(SerEmptyCounted&&) = default;
    ~SerEmptyCounted() { --live; }
};
/// Writes 8 bytes, reads back 4: its column always has bytes left over.
struct SerSloppy {
    uint32_t v;
};
/// Its serializer reports failure for negative values.
struct SerFailingWriter {
    int v;
};
/// Never registered.
struct SerUnregistered {
    int v;
};
/// Registered only (never used in a world before a snapshot brings it in).
struct SerFactoryOnly {
    int v;
};

// ---------------------------------------------------------------------------------------------------
// Little-endian helpers and the explicit (de)serializers
// ---------------------------------------------------------------------------------------------------

void put32(std::string& s, uint32_t v) {
    for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>(static_cast<unsigned char>(v >> (8 * i))));
}
void put64(std::string& s, uint64_t v) {
    for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>(static_cast<unsigned char>(v >> (8 * i))));
}
uint32_t get32(const std::string& s, size_t at) {
    uint32_t v = 0;
    for (size_t i = 4; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
    return v;
}
uint64_t get64(const std::string& s, size_t at) {
    uint64_t v = 0;
    for (size_t i = 8; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
    return v;
}

void write_u32(std::ostream& out, uint32_t v) {
    std::string s;
    put32(s, v);
    out.write(s.data(), 4);
}
bool read_u32(std::istream& in, uint32_t& v) {
    char b[4];
    if (!in.read(b, 4)) return false;
    v = get32(std::string(b, 4), 0);
    return true;
}

void text_serialize(std::ostream& out, const void* p) {
    const std::string& s = static_cast<const SerText*>(p)->value;
    write_u32(out, static_cast<uint32_t>(s.size()));
    out.write(s.data(), static_cast<std::streamsize>(s.size()));
}
// Reads in bounded chunks: a hostile length fails at the end of the data, not with a huge allocation.
void text_deserialize(std::istream& in, void* storage) {
    uint32_t length = 0;
    if (!read_u32(in, length)) return;
    std::string s;
    char chunk[256];
    while (length != 0) {
        const uint32_t n = std::min<uint32_t>(length, sizeof chunk);
        if (!in.read(chunk, n)) return;
        s.append(chunk, n);
        length -= n;
    }
    ::new (storage) SerText{std::move(s)};
}

void ints_serialize(std::ostream& out, const void* p) {
    const std::vector<int>& v = static_cast<const SerInts*>(p)->values;
    write_u32(out, static_cast<uint32_t>(v.size()));
    for (int x : v) write_u32(out, static_cast<uint32_t>(x));
}
void ints_deserialize(std::istream& in, void* storage) {
    uint32_t count = 0;
    if (!read_u32(in, count)) return;
    std::vector<int> v;
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t x = 0;
        if (!read_u32(in, x)) return;
        v.push_back(static_cast<int>(x));
    }
    ::new (storage) SerInts{std::move(v)};
}

void health_serialize(std::ostream& out, const void* p) { out << static_cast<const SerHealth*>(p)->hp << ';'; }
void health_deserialize(std::istream& in, void* storage) {
    std::string digits;
    for (;;) {
        const int c = in.get();
        if (c == std::char_traits<char>::eof()) return; // failbit already set by get()
        if (c == ';') break;
        if (digits.size() >= 11 || !((c >= '0' && c <= '9') || (c == '-' && digits.empty()))) {
            in.setstate(std::ios_base::failbit);
            return;
        }
        digits.push_back(static_cast<char>(c));
    }
    if (digits.empty() || digits == "-") {
        in.setstate(std::ios_base::failbit);
        return;
    }
    const long long v = std::stoll(digits);
    if (v < INT32_MIN || v > INT32_MAX) {
        in.setstate(std::ios_base::failbit);
        return;
    }
    ::new (storage) SerHealth{static_cast<int>(v)};
}

void counted_serialize(std::ostream& out, const void* p) {
    write_u32(out, static_cast<uint32_t>(static_cast<const SerCounted*>(p)->value));
}
void counted_deserialize(std::istream& in, void* storage) {
    uint32_t v = 0;
    if (!read_u32(in, v)) return;
    ::new (storage) SerCounted(static_cast<int>(v));
}

void empty_counted_serialize(std::ostream&, const void*) {}
void empty_counted_deserialize(std::istream&, void* storage) { ::new (storage) SerEmptyCounted(); }

void sloppy_serialize(std::ostream& out, const void* p) {
    write_u32(out, static_cast<const SerSloppy*>(p)->v);
    write_u32(out, 0);
}
void sloppy_deserialize(std::istream& in, void* storage) {
    uint32_t v = 0;
    if (!read_u32(in, v)) return;
    ::new (storage) SerSloppy{v};
}

void failing_serialize(std::ostream& out, const void* p) {
    const int v = static_cast<const SerFailingWriter*>(p)->v;
    if (v < 0) out.setstate(std::ios_base::failbit);
    else write_u32(out, static_cast<uint32_t>(v));
}
void failing_deserialize(std::istream& in, void* storage) {
    uint32_t v = 0;
    if (!read_u32(in, v)) return;
    ::new (storage) SerFailingWriter{static_cast<int>(v)};
}

void register_all() {
    ecs::register_component<SerPos>("ser.Position");
    ecs::register_component<SerVel>("ser.Velocity");
    ecs::register_component<SerTag>("ser.Tag");
    ecs::register_component<SerAligned>("ser.Aligned");
    ecs::register_component<SerText>("ser.Text", &text_serialize, &text_deserialize);
    ecs::register_component<SerInts>("ser.Ints", &ints_serialize, &ints_deserialize);
    ecs::register_component<SerHealth>("ser.Health", &health_serialize, &health_deserialize);
    ecs::register_component<SerCounted>("ser.Counted", &counted_serialize, &counted_deserialize);
    ecs::register_component<SerEmptyCounted>("ser.EmptyCounted", &empty_counted_serialize, &empty_counted_deserialize);
    ecs::register_component<SerSloppy>("ser.Sloppy", &sloppy_serialize, &sloppy_deserialize);
    ecs::register_component<SerFailingWriter>("ser.FailingWriter", &failing_serialize, &failing_deserialize);
}

// ---------------------------------------------------------------------------------------------------
// Snapshot helpers
// ---------------------------------------------------------------------------------------------------

std::string snapshot_of(const ecs::World& w) {
    std::ostringstream out(std::ios_base::binary);
    ecs::serialize(w, out);
    REQUIRE(out.good());
    return out.str();
}

/// The same world in format 1 (what ecs 0.9 wrote), through the library's version 1 writer.
std::string snapshot_v1_of(const ecs::World& w) {
    std::ostringstream out(std::ios_base::binary);
    ecs::detail::write_snapshot(w, out, 1);
    REQUIRE(out.good());
    return out.str();
}

ecs::DeserializeResult load(ecs::World& w, const std::string& bytes) {
    std::istringstream in(bytes, std::ios_base::binary);
    return ecs::deserialize(w, in);
}

/// The world is empty, consistent, and still usable.
void require_empty_and_usable(ecs::World& w) {
    REQUIRE(w.count() == 0);
    REQUIRE(w.check_invariants());
    const ecs::Entity e = w.create_with(SerPos{1, 2, 3}, SerText{"after"});
    REQUIRE(w.alive(e));
    REQUIRE(w.get<SerText>(e).value == "after");
    REQUIRE(w.check_invariants());
}

/// A stream that cannot seek and hands out its bytes a few at a time.
class OneWayBuf : public std::streambuf {
public:
    explicit OneWayBuf(std::string data) : data_(std::move(data)) {}

protected:
    int_type underflow() override {
        if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
        if (next_ >= data_.size()) return traits_type::eof();
        const size_t n = std::min<size_t>(7, data_.size() - next_);
        char* p = &data_[next_];
        setg(p, p, p + n);
        next_ += n;
        return traits_type::to_int_type(*gptr());
    }

private:
    std::string data_;
    size_t next_ = 0;
};

// Builder pieces for hand-made snapshots.
void header(std::string& s, uint32_t archetypes, uint32_t slots, uint32_t version = 1) {
    s.append("ECS", 4); // includes the terminating NUL
    put32(s, version);
    put32(s, archetypes);
    put32(s, slots);
}
void component(std::string& s, const std::string& name, uint32_t element_size) {
    put32(s, static_cast<uint32_t>(name.size()));
    s += name;
    put32(s, element_size);
}
void rows(std::string& s, const std::vector<ecs::Entity>& entities) {
    put32(s, static_cast<uint32_t>(entities.size()));
    for (ecs::Entity e : entities) {
        put32(s, e.index);
        put32(s, e.generation);
    }
}
void column(std::string& s, const std::string& bytes) {
    put64(s, bytes.size());
    s += bytes;
}
std::string pos_bytes(std::vector<SerPos> values) {
    return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(SerPos));
}
std::string counted_bytes(std::vector<int> values) {
    std::string s;
    for (int v : values) put32(s, static_cast<uint32_t>(v));
    return s;
}
std::string text_bytes(std::vector<std::string> values) {
    std::string s;
    for (const std::string& v : values) {
        put32(s, static_cast<uint32_t>(v.size()));
        s += v;
    }
    return s;
}
void table(std::string& s, const std::vector<uint32_t>& generations, const std::vector<uint32_t>& free_list) {
    for (uint32_t g : generations) put32(s, g);
    put32(s, static_cast<uint32_t>(free_list.size()));
    for (uint32_t f : free_list) put32(s, f);
}
/// One archetype {ser.Position} with the entities {1,1} and {3,1}; slot 2 free at generation 2.
std::string simple_snapshot() {
    std::string s;
    header(s, 1, 4);
    put32(s, 1);
    component(s, "ser.Position", sizeof(SerPos));
    rows(s, {{1, 1}, {3, 1}});
    column(s, pos_bytes({{1, 2, 3}, {4, 5, 6}}));
    table(s, {1, 1, 2, 1}, {2});
    return s;
}

/// Deserializes `bytes` into a fresh world, expects `error`, and checks nothing leaked or broke.
void expect_error(const std::string& bytes, ecs::DeserializeError error) {
    const int counted_before = SerCounted::live();
    const int empty_before = SerEmptyCounted::live;
    {
        ecs::World w;
        const ecs::DeserializeResult r = load(w, bytes);
        INFO("message: " << r.message);
        REQUIRE(!r);
        REQUIRE(r.error == error);
        REQUIRE(!r.message.empty());
        REQUIRE(r.offset <= bytes.size());
        REQUIRE(SerCounted::live() == counted_before);
        REQUIRE(SerEmptyCounted::live == empty_before);
        require_empty_and_usable(w);
    }
    REQUIRE(SerCounted::bad_destroys == 0);
}

// ---------------------------------------------------------------------------------------------------
// A world with a bit of everything
// ---------------------------------------------------------------------------------------------------

struct RichWorld {
    ecs::World world;
    std::vector<ecs::Entity> live;
    std::vector<ecs::Entity> dead;
};

std::string long_text(int i) { return std::string(200 + static_cast<size_t>(i % 7), static_cast<char>('a' + i % 26)); }

void fill_rich(RichWorld& rw, int n) {
    ecs::World& w = rw.world;
    for (int i = 0; i < n; ++i) {
        const float f = static_cast<float>(i);
        ecs::Entity e;
        switch (i % 9) {
        case 0: e = w.create_with(SerPos{f, f + 0.5f, -f}); break;
        case 1: e = w.create_with(SerPos{f, 1, 2}, SerVel{f * 2, f * 3}); break;
        case 2: e = w.create_with(SerPos{f, 0, 0}, SerText{i % 2 ? "s" : ""}); break;       // short strings
        case 3: e = w.create_with(SerText{long_text(i)}, SerCounted(i), SerTag{}); break;   // long strings
        case 4: e = w.create_with(SerInts{std::vector<int>(static_cast<size_t>(i % 5), -i)}, SerHealth{i * 7 - 100}); break;
        case 5: e = w.create_with(SerAligned{{f, f, f, f}}, SerTag{}); break;
        case 6: e = w.create(); break;                                                         // no components
        case 7: e = w.create_with(SerTag{}); break;                                            // tags only
        default: e = w.create_with(SerEmptyCounted{}, SerCounted(-i), SerVel{f, -f}); break;
        }
        rw.live.push_back(e);
    }
    // Destroy every third entity, and recycle a few slots so generations climb above 1.
    std::vector<ecs::Entity> keep;
    for (size_t i = 0; i < rw.live.size(); ++i) {
        if (i % 3 == 1) {
            w.destroy(rw.live[i]);
            rw.dead.push_back(rw.live[i]);
        } else {
            keep.push_back(rw.live[i]);
        }
    }
    rw.live = keep;
    for (int k = 0; k < 3 && !rw.dead.empty(); ++k) {
        const ecs::Entity again = w.create_with(SerPos{-1, -2, -3});
        w.destroy(again);
        rw.dead.push_back(again);
    }
}

template <typename T>
void require_same_component(ecs::World& a, ecs::World& b, ecs::Entity e) {
    REQUIRE(a.has<T>(e) == b.has<T>(e));
    if constexpr (!std::is_empty_v<T>) {
        if (a.has<T>(e)) REQUIRE(a.get<T>(e) == b.get<T>(e));
    }
}

void require_same_entities(ecs::World& a, ecs::World& b, const RichWorld& rw) {
    REQUIRE(a.count() == b.count());
    for (ecs::Entity e : rw.live) {
        REQUIRE(b.alive(e));
        require_same_component<SerPos>(a, b, e);
        require_same_component<SerVel>(a, b, e);
        require_same_component<SerTag>(a, b, e);
        require_same_component<SerAligned>(a, b, e);
        require_same_component<SerText>(a, b, e);
        require_same_component<SerInts>(a, b, e);
        require_same_component<SerHealth>(a, b, e);
        REQUIRE(a.has<SerEmptyCounted>(e) == b.has<SerEmptyCounted>(e));
        REQUIRE(a.has<SerCounted>(e) == b.has<SerCounted>(e));
        if (a.has<SerCounted>(e)) REQUIRE(a.get<SerCounted>(e).value == b.get<SerCounted>(e).value);
    }
    for (ecs::Entity e : rw.dead) REQUIRE(!b.alive(e));
}

void require_same_structure(const ecs::World& a, const ecs::World& b) {
    REQUIRE(a.count<SerPos>() == b.count<SerPos>());
    REQUIRE(a.count<SerPos, SerVel>() == b.count<SerPos, SerVel>());
    REQUIRE(a.count<SerPos, SerText>() == b.count<SerPos, SerText>());
    REQUIRE(a.count<SerText, SerCounted, SerTag>() == b.count<SerText, SerCounted, SerTag>());
    REQUIRE(a.count<SerInts, SerHealth>() == b.count<SerInts, SerHealth>());
    REQUIRE(a.count<SerAligned, SerTag>() == b.count<SerAligned, SerTag>());
    REQUIRE(a.count<SerTag>() == b.count<SerTag>());
    REQUIRE(a.count<SerEmptyCounted, SerCounted, SerVel>() == b.count<SerEmptyCounted, SerCounted, SerVel>());
    // Same non-empty archetypes, component for component, row count for row count.
    auto shapes = [](const ecs::World& w) {
        std::vector<std::pair<std::vector<std::string>, size_t>> out;
        for (const auto& arch : ecs::detail::WorldAccess::archetypes(w)) {
            if (arch->size() == 0) continue;
            std::vector<std::string> names;
            for (ecs::ComponentTypeID t : arch->types) names.push_back(ecs::component_name(t));
            std::sort(names.begin(), names.end());
            out.emplace_back(names, arch->size());
        }
        std::sort(out.begin(), out.end());
        return out;
    };
    REQUIRE(shapes(a) == shapes(b));
}

#if SER_HAVE_FORK && ECS_ASSERT_ENABLED
/// Runs `fn` in a child process and returns what it printed to stderr; requires that it aborted.
template <typename Fn>
std::string death_message(Fn fn) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        std::signal(SIGABRT, SIG_DFL); // not Catch2's handler: the child must just die
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        fn();
        _exit(0); // no assertion fired
    }
    close(fds[1]);
    std::string text;
    char buf[512];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
    close(fds[0]);
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    INFO("child stderr: " << text);
    REQUIRE(WIFSIGNALED(status));
    REQUIRE(WTERMSIG(status) == SIGABRT);
    return text;
}
#endif

} // namespace

// ===================================================================================================
// Registration
// ===================================================================================================

TEST_CASE("serialization: registered names and ids map both ways", "[serialization]") {
    register_all();
    register_all(); // idempotent: same name, same type
    REQUIRE(ecs::component_id_by_name("ser.Position") == ecs::component_id<SerPos>());
    REQUIRE(ecs::component_id_by_name("ser.Text") == ecs::component_id<SerText>());
    REQUIRE(ecs::component_name(ecs::component_id<SerVel>()) == "ser.Velocity");
    REQUIRE(ecs::component_name(ecs::component_id<const SerTag&>()) == "ser.Tag");
    REQUIRE(ecs::component_registered(ecs::component_id<SerCounted>()));
    REQUIRE(!ecs::component_registered(ecs::component_id<SerUnregistered>()));
    REQUIRE(!ecs::component_registered(ecs::INVALID_COMPONENT_ID));
    // The name reference is stable: it is the registry's own string.
    const std::string& a = ecs::component_name(ecs::component_id<SerPos>());
    register_all();
    REQUIRE(&a == &ecs::component_name(ecs::component_id<SerPos>()));
}

TEST_CASE("serialization: registration records the column factory", "[serialization]") {
    const ecs::ComponentTypeID id = ecs::component_id<SerFactoryOnly>();
    ecs::register_component<SerFactoryOnly>("ser.FactoryOnly");
    REQUIRE(ecs::column_factory(id) != nullptr);
    // A world that never named the type can load it from a snapshot.
    std::string s;
    header(s, 1, 2);
    put32(s, 1);
    component(s, "ser.FactoryOnly", sizeof(SerFactoryOnly));
    rows(s, {{1, 5}});
    column(s, counted_bytes({77}));
    table(s, {1, 5}, {});
    ecs::World w;
    REQUIRE(load(w, s));
    REQUIRE(w.get<SerFactoryOnly>(ecs::Entity{1, 5}).v == 77);
    REQUIRE(w.check_invariants());
}

TEST_CASE("serialization: registration is thread-safe", "[serialization]") {
    register_all();
    std::atomic<int> mismatches{0};
    auto work = [&mismatches](int t) {
        for (int round = 0; round < 200; ++round) {
            ecs::register_component<SerPos>("ser.Position");
            ecs::register_component<SerText>("ser.Text", &text_serialize, &text_deserialize);
            if (ecs::component_id_by_name("ser.Position") != ecs::component_id<SerPos>()) ++mismatches;
            if (ecs::component_name(ecs::component_id<SerText>()) != "ser.Text") ++mismatches;
            if (!ecs::component_registered(ecs::component_id<SerVel>())) ++mismatches;
            (void)t;
        }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) threads.emplace_back(work, t);
    for (std::thread& th : threads) th.join();
    REQUIRE(mismatches.load() == 0);
}

#if SER_HAVE_FORK && ECS_ASSERT_ENABLED
namespace {
struct SerConflict {
    int v;
};
struct SerNoFunctions {
    std::string s;
};
} // namespace

TEST_CASE("serialization: registration misuse asserts with a clear message", "[serialization]") {
    register_all();
    SECTION("a name taken by another type") {
        const std::string msg = death_message([] { ecs::register_component<SerConflict>("ser.Position"); });
        REQUIRE(msg.find("name already registered for another type") != std::string::npos);
    }
    SECTION("a type registered under another name") {
        const std::string msg = death_message([] { ecs::register_component<SerPos>("ser.Position.again"); });
        REQUIRE(msg.find("type already registered under another name") != std::string::npos);
    }
    SECTION("a non-trivially-copyable type without functions") {
        const std::string msg = death_message([] { ecs::register_component<SerNoFunctions>("ser.NoFunctions"); });
        REQUIRE(msg.find("not trivially copyable") != std::string::npos);
    }
    SECTION("only one of the two functions") {
        const std::string msg =
            death_message([] { ecs::register_component<SerConflict>("ser.OneFunction", &counted_serialize, nullptr); });
        REQUIRE(msg.find("both a serialize and a deserialize") != std::string::npos);
    }
    SECTION("an empty or too long name") {
        REQUIRE(death_message([] { ecs::register_component<SerConflict>(""); }).find("non-empty") != std::string::npos);
        const std::string msg = death_message([] {
            const std::string name(ecs::MAX_COMPONENT_NAME_LENGTH + 1, 'n');
            ecs::register_component<SerConflict>(name.c_str());
        });
        REQUIRE(msg.find("MAX_COMPONENT_NAME_LENGTH") != std::string::npos);
    }
    SECTION("lookups of unknown names and ids") {
        REQUIRE(death_message([] { (void)ecs::component_id_by_name("ser.NoSuchName"); }).find("component_id_by_name") !=
                std::string::npos);
        REQUIRE(death_message([] { (void)ecs::component_name(ecs::component_id<SerUnregistered>()); })
                    .find("component_name") != std::string::npos);
    }
    SECTION("serializing a world holding an unregistered type") {
        const std::string msg = death_message([] {
            ecs::World w;
            (void)w.create_with(SerUnregistered{1});
            std::ostringstream out;
            ecs::serialize(w, out);
        });
        REQUIRE(msg.find("never registered") != std::string::npos);
    }
    SECTION("deserializing into a world with live entities") {
        const std::string msg = death_message([] {
            ecs::World w;
            (void)w.create();
            (void)load(w, simple_snapshot());
        });
        REQUIRE(msg.find("target world must have no live entities") != std::string::npos);
    }
    // The parent registry is untouched by the children's attempts.
    REQUIRE(!ecs::component_registered(ecs::component_id<SerConflict>()));
    REQUIRE(ecs::component_name(ecs::component_id<SerPos>()) == "ser.Position");
}
#endif

// ===================================================================================================
// Round trips
// ===================================================================================================

TEST_CASE("serialization: round trip preserves entities, values, generations and free list", "[serialization]") {
    register_all();
    const int counted_before = SerCounted::live();
    {
        RichWorld rw;
        fill_rich(rw, 300);
        ecs::World& a = rw.world;
        const std::string bytes = snapshot_of(a);

        ecs::World b;
        const ecs::DeserializeResult r = load(b, bytes);
        INFO(r.message);
        REQUIRE(r);
        REQUIRE(r.error == ecs::DeserializeError::none);
        REQUIRE(r.offset == bytes.size());
        REQUIRE(b.check_invariants());
        require_same_entities(a, b, rw);
        require_same_structure(a, b);

        // Serializing the loaded world gives the very same bytes.
        REQUIRE(snapshot_of(b) == bytes);

        // The free list kept its order: both worlds hand out the same handles next.
        for (int k = 0; k < 150; ++k) REQUIRE(a.create() == b.create());
        REQUIRE(b.check_invariants());
    }
    REQUIRE(SerCounted::live() == counted_before);
    REQUIRE(SerEmptyCounted::live == 0);
    REQUIRE(SerCounted::bad_destroys == 0);
}

TEST_CASE("serialization: the snapshot functions convert to plain function pointers", "[serialization]") {
    // serialize / deserialize / serialize_changes / apply_changes are function templates with a
    // defaulted parameter (their code is compiled only where used); a pointer of the spec's type
    // still binds to them, and calls through it do what direct calls do.
    void (*write)(const ecs::World&, std::ostream&) = ecs::serialize;
    ecs::DeserializeResult (*read)(ecs::World&, std::istream&) = ecs::deserialize;
    void (*write_changes)(const ecs::World&, uint32_t, std::ostream&) = ecs::serialize_changes;
    ecs::DeserializeResult (*read_changes)(ecs::World&, std::istream&) = ecs::apply_changes;
    register_all();
    RichWorld rw;
    fill_rich(rw, 20);
    std::stringstream through_pointer;
    write(rw.world, through_pointer);
    REQUIRE(through_pointer.str() == snapshot_of(rw.world));
    ecs::World copy;
    const ecs::DeserializeResult r = read(copy, through_pointer);
    INFO(r.message);
    REQUIRE(r);
    REQUIRE(copy.count() == rw.world.count());

    ecs::World sender;
    sender.track_changes<SerPos>();
    const ecs::Entity e = sender.create_with(SerPos{1, 2, 3});
    ecs::World replica;
    replica.copy_from(sender);
    const uint32_t since = replica.change_tick();
    sender.get<SerPos>(e).x = 5;
    std::stringstream delta;
    write_changes(sender, since, delta);
    const ecs::DeserializeResult applied = read_changes(replica, delta);
    INFO(applied.message);
    REQUIRE(applied);
    REQUIRE(replica.get<SerPos>(e).x == 5);
}

TEST_CASE("serialization: trivially copyable components round trip at scale", "[serialization]") {
    register_all();
    ecs::World a;
    std::vector<ecs::Entity> es;
    for (int i = 0; i < 20000; ++i) {
        const float f = static_cast<float>(i);
        es.push_back(i % 2 ? a.create_with(SerPos{f, -f, f * 0.25f}) : a.create_with(SerPos{f, 0, 1}, SerVel{f, f}));
    }
    for (size_t i = 0; i < es.size(); i += 7) a.destroy(es[i]);
    const std::string bytes = snapshot_of(a);
    ecs::World b;
    REQUIRE(load(b, bytes));
    REQUIRE(b.check_invariants());
    REQUIRE(b.count() == a.count());
    REQUIRE(b.count<SerPos, SerVel>() == a.count<SerPos, SerVel>());
    for (size_t i = 0; i < es.size(); ++i) {
        REQUIRE(b.alive(es[i]) == (i % 7 != 0));
        if (i % 7 == 0) continue;
        REQUIRE(b.get<SerPos>(es[i]) == a.get<SerPos>(es[i]));
        if (a.has<SerVel>(es[i])) REQUIRE(b.get<SerVel>(es[i]) == a.get<SerVel>(es[i]));
    }
    for (int k = 0; k < 10; ++k) REQUIRE(a.create() == b.create());
}

TEST_CASE("serialization: strings short and long, vectors and explicit functions", "[serialization]") {
    register_all();
    ecs::World a;
    const std::string long_one(5000, 'L');
    const ecs::Entity e1 = a.create_with(SerText{""}, SerInts{{}});
    const ecs::Entity e2 = a.create_with(SerText{"short"}, SerInts{{1, -2, 3}});
    const ecs::Entity e3 = a.create_with(SerText{long_one}, SerInts{std::vector<int>(1000, 42)});
    const ecs::Entity e4 = a.create_with(SerHealth{-2147483647 - 1});
    const ecs::Entity e5 = a.create_with(SerHealth{2147483647});
    ecs::World b;
    REQUIRE(load(b, snapshot_of(a)));
    REQUIRE(b.get<SerText>(e1).value.empty());
    REQUIRE(b.get<SerInts>(e1).values.empty());
    REQUIRE(b.get<SerText>(e2).value == "short");
    REQUIRE(b.get<SerInts>(e2).values == std::vector<int>{1, -2, 3});
    REQUIRE(b.get<SerText>(e3).value == long_one);
    REQUIRE(b.get<SerInts>(e3).values == std::vector<int>(1000, 42));
    REQUIRE(b.get<SerHealth>(e4).hp == -2147483647 - 1);
    REQUIRE(b.get<SerHealth>(e5).hp == 2147483647);
    // Short strings live inside the object: moving the loaded world around must keep them valid.
    for (int i = 0; i < 100; ++i) (void)b.create_with(SerText{"x"}, SerInts{{i}});
    REQUIRE(b.get<SerText>(e2).value == "short");
    REQUIRE(b.check_invariants());
}

TEST_CASE("serialization: tags carry no bytes and over-aligned components stay aligned", "[serialization]") {
    register_all();
    ecs::World a;
    std::vector<ecs::Entity> es;
    for (int i = 0; i < 100; ++i) {
        const float f = static_cast<float>(i);
        es.push_back(a.create_with(SerAligned{{f, f + 1, f + 2, f + 3}}, SerTag{}));
    }
    const ecs::Entity tag_only = a.create_with(SerTag{});
    const std::string bytes = snapshot_of(a);
    // {Aligned, Tag}: frame 20 + counts 8 + count 4 + two components + rows 4 + 100 entities + one column.
    const size_t first_block = 20 + 8;
    const size_t name_bytes = (4 + 11 + 4) + (4 + 7 + 4);
    REQUIRE(get32(bytes, first_block) == 2);
    REQUIRE(get64(bytes, first_block + 4 + name_bytes + 4 + 100 * 8) == 100 * sizeof(SerAligned));
    const size_t tag_block = first_block + 4 + name_bytes + 4 + 100 * 8 + 8 + 100 * sizeof(SerAligned);
    REQUIRE(get32(bytes, tag_block) == 1);                              // {Tag}
    REQUIRE(get32(bytes, tag_block + 4 + 4 + 7) == 0);                  // element size 0
    REQUIRE(get32(bytes, tag_block + 4 + 4 + 7 + 4) == 1);              // one row
    // No column bytes follow; then the entity table, no resources, the body checksum.
    REQUIRE(bytes.size() == tag_block + 4 + 15 + 4 + 8 + 4 * 102 + 4 + 4 + 4);

    ecs::World b;
    REQUIRE(load(b, bytes));
    REQUIRE(b.has<SerTag>(tag_only));
    REQUIRE(b.count<SerTag>() == 101);
    for (ecs::Entity e : es) {
        REQUIRE(b.get<SerAligned>(e) == a.get<SerAligned>(e));
        REQUIRE(reinterpret_cast<uintptr_t>(&b.get<SerAligned>(e)) % 64 == 0);
    }
    REQUIRE(b.check_invariants());
}

TEST_CASE("serialization: stale handles stay stale, live ones stay valid", "[serialization]") {
    register_all();
    ecs::World a;
    const ecs::Entity first = a.create_with(SerPos{1, 1, 1});
    a.destroy(first);
    const ecs::Entity reused = a.create_with(SerPos{2, 2, 2}); // same slot, next generation
    REQUIRE(reused.index == first.index);
    REQUIRE(reused.generation == first.generation + 1);
    const ecs::Entity gone = a.create();
    a.destroy(gone);
    ecs::World b;
    REQUIRE(load(b, snapshot_of(a)));
    REQUIRE(!b.alive(first));
    REQUIRE(b.alive(reused));
    REQUIRE(b.get<SerPos>(reused) == SerPos{2, 2, 2});
    REQUIRE(!b.alive(gone));
    REQUIRE(b.try_get<SerPos>(first) == nullptr);
    const ecs::Entity next = b.create();
    REQUIRE(next.index == gone.index);
    REQUIRE(next.generation == gone.generation + 1);
    REQUIRE(next == a.create());
}

TEST_CASE("serialization: an empty world round trips", "[serialization]") {
    register_all();
    ecs::World a;
    const std::string bytes = snapshot_of(a);
    REQUIRE(bytes.size() == 20 + 8 + 4 + 4 + 4 + 4); // frame, counts, slot 0, free list, resources, checksum
    ecs::World b;
    REQUIRE(load(b, bytes));
    REQUIRE(b.count() == 0);
    REQUIRE(b.check_invariants());
    REQUIRE(b.create() == a.create());
}

TEST_CASE("serialization: the header and framing are fixed-width little-endian", "[serialization]") {
    register_all();
    ecs::World w;
    const ecs::Entity dead = w.create();
    w.destroy(dead);
    const ecs::Entity e = w.create_with(SerPos{1.5f, -2, 8}); // reuses slot 1 at generation 2
    std::string s;
    size_t body_at = 0;
    SECTION("format 2 (serialize)") {
        s = snapshot_of(w);
        REQUIRE(std::memcmp(s.data(), "ECS\0", 4) == 0);
        REQUIRE(ecs::SNAPSHOT_FORMAT_VERSION == 2);
        REQUIRE(get32(s, 4) == 2);
        const uint64_t body = get64(s, 8);
        REQUIRE(s.size() == 20 + body + 4);
        REQUIRE(get32(s, 16) == ecs::detail::Crc32c::of(s.data(), 16));
        REQUIRE(get32(s, s.size() - 4) == ecs::detail::Crc32c::of(s.data() + 20, body));
        REQUIRE(get32(s, s.size() - 8) == 0); // no resources
        s.resize(s.size() - 8);               // the rest is format 1's body
        body_at = 20;
    }
    SECTION("format 1 (what ecs 0.9 wrote)") {
        std::ostringstream out(std::ios_base::binary);
        ecs::detail::write_snapshot(w, out, 1);
        s = out.str();
        REQUIRE(std::memcmp(s.data(), "ECS\0", 4) == 0);
        REQUIRE(get32(s, 4) == 1);
        body_at = 8;
    }
    REQUIRE(get32(s, body_at) == 1);     // one non-empty archetype
    REQUIRE(get32(s, body_at + 4) == 2); // slots 0 and 1
    size_t at = body_at + 8;
    REQUIRE(get32(s, at) == 1);
    REQUIRE(get32(s, at + 4) == 12);
    REQUIRE(s.compare(at + 8, 12, "ser.Position") == 0);
    REQUIRE(get32(s, at + 20) == sizeof(SerPos));
    REQUIRE(get32(s, at + 24) == 1);
    REQUIRE(get32(s, at + 28) == e.index);
    REQUIRE(get32(s, at + 32) == e.generation);
    REQUIRE(get64(s, at + 36) == sizeof(SerPos));
    SerPos stored{};
    std::memcpy(&stored, s.data() + at + 44, sizeof stored);
    REQUIRE(stored == SerPos{1.5f, -2, 8});
    at += 44 + sizeof(SerPos);
    REQUIRE(get32(s, at) == 1);     // slot 0
    REQUIRE(get32(s, at + 4) == 2); // slot 1
    REQUIRE(get32(s, at + 8) == 0); // empty free list
    REQUIRE(s.size() == at + 12);
}

TEST_CASE("serialization: a hand-written snapshot loads", "[serialization]") {
    register_all();
    ecs::World w;
    REQUIRE(load(w, simple_snapshot()));
    REQUIRE(w.count() == 2);
    REQUIRE(w.get<SerPos>(ecs::Entity{1, 1}) == SerPos{1, 2, 3});
    REQUIRE(w.get<SerPos>(ecs::Entity{3, 1}) == SerPos{4, 5, 6});
    REQUIRE(w.create() == ecs::Entity{2, 2});
    REQUIRE(w.create() == ecs::Entity{4, 1});
    REQUIRE(w.check_invariants());
}

TEST_CASE("serialization: deserialize fires no on_add hooks and keeps resources", "[serialization]") {
    register_all();
    ecs::World a;
    (void)a.create_with(SerPos{1, 2, 3});
    (void)a.create_with(SerPos{4, 5, 6}, SerCounted(9));
    ecs::World b;
    int fired = 0;
    b.on_add<SerPos>([&fired](ecs::World&, ecs::Entity, SerPos&) { ++fired; });
    b.set_resource(SerHealth{5});
    REQUIRE(load(b, snapshot_of(a)));
    REQUIRE(fired == 0);
    REQUIRE(b.resource<SerHealth>().hp == 5);
    (void)b.create_with(SerPos{});
    REQUIRE(fired == 1);
}

TEST_CASE("serialization: a world with only dead entities is a valid target", "[serialization]") {
    register_all();
    ecs::World a;
    (void)a.create_with(SerPos{7, 7, 7});
    ecs::World b;
    for (int i = 0; i < 10; ++i) b.destroy(b.create_with(SerCounted(i)));
    REQUIRE(b.count() == 0);
    REQUIRE(load(b, snapshot_of(a)));
    REQUIRE(b.check_invariants());
    REQUIRE(b.count() == 1);
    REQUIRE(b.create() == a.create());
}

// A loaded archetype keeps growing correctly: its entity list never holds more rows than its block.
// 24-byte rows start at 682 rows and double (1364, ...), so 1200 loaded rows sit in a 1364-row block;
// an entity list sized to the next power of two (2048) would let creation run past the block.
TEST_CASE("serialization: a loaded archetype grows like any other", "[serialization]") {
    register_all();
    ecs::World a;
    std::vector<ecs::Entity> es;
    for (int i = 0; i < 1200; ++i)
        es.push_back(a.create_with(SerPos{float(i), 0, 0}, SerVel{0, float(i)}, SerHealth{i}));
    ecs::World b;
    REQUIRE(load(b, snapshot_of(a)));
    for (int i = 1200; i < 1600; ++i)
        es.push_back(b.create_with(SerPos{float(i), 0, 0}, SerVel{0, float(i)}, SerHealth{i}));
    REQUIRE(b.count() == 1600);
    bool values_kept = true;
    for (int i = 0; i < 1600; ++i) {
        const ecs::Entity e = es[size_t(i)];
        values_kept = values_kept && b.get<SerPos>(e).x == float(i) && b.get<SerVel>(e).dy == float(i) &&
                      b.get<SerHealth>(e).hp == i;
    }
    CHECK(values_kept);
    CHECK(b.check_invariants());
}

TEST_CASE("serialization: streams that cannot seek, and data after the snapshot", "[serialization]") {
    register_all();
    RichWorld rw;
    fill_rich(rw, 40);
    const std::string bytes = snapshot_of(rw.world);
    SECTION("a one-way stream is read to its end") {
        OneWayBuf buf(bytes);
        std::istream in(&buf);
        ecs::World b;
        REQUIRE(ecs::deserialize(b, in));
        require_same_entities(rw.world, b, rw);
        OneWayBuf cut(bytes.substr(0, bytes.size() - 3));
        std::istream cut_in(&cut);
        ecs::World c;
        const ecs::DeserializeResult r = ecs::deserialize(c, cut_in);
        REQUIRE(r.error == ecs::DeserializeError::truncated);
        REQUIRE(cut_in.fail());
        require_empty_and_usable(c);
    }
    SECTION("a large one-way stream grows its buffer as data arrives") {
        ecs::World big;
        for (int i = 0; i < 30000; ++i) (void)big.create_with(SerPos{static_cast<float>(i), 0, 0}, SerCounted(i));
        const std::string big_bytes = snapshot_of(big);
        REQUIRE(big_bytes.size() > 4 * 65536);
        OneWayBuf buf(big_bytes);
        std::istream in(&buf);
        ecs::World b;
        REQUIRE(ecs::deserialize(b, in));
        REQUIRE(b.count() == 30000);
        REQUIRE(b.get<SerCounted>(ecs::Entity{29999, 1}).value == 29998);
        REQUIRE(snapshot_of(b) == big_bytes);
    }
    SECTION("back-to-back snapshots in one stream, then trailing bytes") {
        std::istringstream in(bytes + bytes + "trailing garbage", std::ios_base::binary);
        ecs::World b, c;
        REQUIRE(ecs::deserialize(b, in));
        REQUIRE(static_cast<size_t>(in.tellg()) == bytes.size());
        REQUIRE(ecs::deserialize(c, in));
        REQUIRE(static_cast<size_t>(in.tellg()) == 2 * bytes.size());
        require_same_entities(rw.world, b, rw);
        require_same_entities(rw.world, c, rw);
    }
    SECTION("a stream already failed") {
        std::istringstream in(bytes);
        in.setstate(std::ios_base::failbit);
        ecs::World b;
        REQUIRE(ecs::deserialize(b, in).error == ecs::DeserializeError::truncated);
        require_empty_and_usable(b);
    }
}

TEST_CASE("serialization: a failing serializer fails the output stream", "[serialization]") {
    register_all();
    ecs::World w;
    (void)w.create_with(SerFailingWriter{3});
    {
        ecs::World b;
        REQUIRE(load(b, snapshot_of(w)));
        REQUIRE(b.get<SerFailingWriter>(ecs::Entity{1, 1}).v == 3);
    }
    (void)w.create_with(SerFailingWriter{-1});
    std::ostringstream out;
    ecs::serialize(w, out);
    REQUIRE(out.fail());
}

// ===================================================================================================
// Bad input
// ===================================================================================================

TEST_CASE("serialization: malformed headers are reported", "[serialization]") {
    register_all();
    using E = ecs::DeserializeError;
    const std::string good = simple_snapshot();
    SECTION("bad magic") {
        std::string s = good;
        s[2] = 'X';
        expect_error(s, E::bad_magic);
        expect_error("hello world, this is not a snapshot", E::bad_magic);
    }
    SECTION("unsupported version") {
        std::string s = good;
        s[4] = 3;
        expect_error(s, E::unsupported_version);
        s[4] = 0;
        expect_error(s, E::unsupported_version);
        s[4] = 1;
        s[7] = 1; // 0x01000001
        expect_error(s, E::unsupported_version);
    }
    SECTION("a format 1 snapshot relabelled as format 2 fails its frame checksum") {
        std::string s = good;
        s[4] = 2;
        expect_error(s, E::checksum_mismatch);
    }
    SECTION("empty input") { expect_error("", E::truncated); }
    SECTION("slot count 0") {
        std::string s;
        header(s, 0, 0);
        table(s, {}, {});
        expect_error(s, E::bad_count);
    }
    SECTION("absurd slot count") {
        std::string s;
        header(s, 0, 0xFFFFFFFFu); // 64 GiB of records if believed
        table(s, {1}, {});
        expect_error(s, E::truncated);
    }
    SECTION("absurd archetype count") {
        std::string s;
        header(s, 0xFFFFFFFFu, 1);
        table(s, {1}, {});
        expect_error(s, E::truncated);
    }
}

TEST_CASE("serialization: malformed archetype blocks are reported", "[serialization]") {
    register_all();
    using E = ecs::DeserializeError;
    auto one_block = [](const std::string& name, uint32_t size, const std::string& payload) {
        std::string s;
        header(s, 1, 2);
        put32(s, 1);
        component(s, name, size);
        rows(s, {{1, 1}});
        column(s, payload);
        table(s, {1, 1}, {});
        return s;
    };
    const std::string one_pos = pos_bytes({{1, 2, 3}});
    REQUIRE(load(*std::make_unique<ecs::World>(), one_block("ser.Position", 12, one_pos))); // the control
    SECTION("unknown component name") {
        const std::string s = one_block("ser.NoSuchComponent", 12, one_pos);
        expect_error(s, E::unknown_component);
        ecs::World w;
        REQUIRE(load(w, s).message.find("ser.NoSuchComponent") != std::string::npos);
    }
    SECTION("element size mismatch") { expect_error(one_block("ser.Position", 16, one_pos), E::element_size_mismatch); }
    SECTION("tag with bytes") { expect_error(one_block("ser.Tag", 1, "x"), E::element_size_mismatch); }
    SECTION("name of length 0 or too long") {
        expect_error(one_block("", 12, one_pos), E::bad_name);
        expect_error(one_block(std::string(ecs::MAX_COMPONENT_NAME_LENGTH + 1, 'n'), 12, one_pos), E::bad_name);
        std::string s;
        header(s, 1, 2);
        put32(s, 1);
        put32(s, 0xFFFFFFFFu); // absurd name length
        s += std::string(64, '\0');
        expect_error(s, E::bad_name);
    }
    SECTION("bulk column byte length disagrees with the rows") {
        expect_error(one_block("ser.Position", 12, one_pos + one_pos), E::column_size_mismatch);
    }
    SECTION("same component twice in one archetype") {
        std::string s;
        header(s, 1, 2);
        put32(s, 2);
        component(s, "ser.Position", 12);
        component(s, "ser.Position", 12);
        rows(s, {{1, 1}});
        column(s, one_pos);
        column(s, one_pos);
        table(s, {1, 1}, {});
        expect_error(s, E::duplicate_component);
    }
    SECTION("same archetype twice") {
        std::string s;
        header(s, 2, 3);
        for (uint32_t i = 1; i <= 2; ++i) {
            put32(s, 1);
            component(s, "ser.Position", 12);
            rows(s, {{i, 1}});
            column(s, one_pos);
        }
        table(s, {1, 1, 1}, {});
        expect_error(s, E::duplicate_archetype);
    }
    SECTION("too many components") {
        std::string s;
        header(s, 1, 2);
        put32(s, ECS_MAX_COMPONENTS + 1);
        s += std::string(64, '\0');
        expect_error(s, E::bad_count);
    }
    SECTION("absurd row count") {
        std::string s;
        header(s, 1, 2);
        put32(s, 1);
        component(s, "ser.Counted", sizeof(SerCounted));
        put32(s, 0xFFFFFFFFu);
        put64(s, 0);
        expect_error(s, E::truncated);
    }
    SECTION("more rows than slots") {
        std::string s;
        header(s, 1, 2);
        put32(s, 1);
        component(s, "ser.Position", 12);
        rows(s, {{1, 1}, {1, 1}});
        column(s, one_pos + one_pos);
        table(s, {1, 1}, {});
        expect_error(s, E::bad_count);
    }
    SECTION("absurd column byte length") {
        std::string s;
        header(s, 1, 2);
        put32(s, 1);
        component(s, "ser.Text", sizeof(SerText));
        rows(s, {{1, 1}});
        put64(s, uint64_t(1) << 62);
        table(s, {1, 1}, {});
        expect_error(s, E::truncated);
    }
    SECTION("absurd length inside a payload stops at the column's end") {
        std::string payload;
        put32(payload, 0xFFFFFFF0u);
        payload += "abc";
        expect_error(one_block("ser.Text", sizeof(SerText), payload), E::deserializer_failed);
        std::string ints;
        put32(ints, 0xFFFFFFF0u);
        expect_error(one_block("ser.Ints", sizeof(SerInts), ints), E::deserializer_failed);
    }
    SECTION("a deserializer reports malformed data") {
        expect_error(one_block("ser.Health", sizeof(SerHealth), "12x;"), E::deserializer_failed);
        expect_error(one_block("ser.Health", sizeof(SerHealth), "99999999999;"), E::deserializer_failed);
    }
    SECTION("a deserializer that reads less than was written") {
        expect_error(one_block("ser.Sloppy", sizeof(SerSloppy), counted_bytes({5, 0})), E::column_size_mismatch);
    }
    SECTION("a deserializer that wants more than its column holds") {
        expect_error(one_block("ser.Counted", sizeof(SerCounted), "abc"), E::deserializer_failed);
    }
    SECTION("a block without rows must have empty columns") {
        std::string s;
        header(s, 1, 1);
        put32(s, 1);
        component(s, "ser.Position", 12);
        rows(s, {});
        column(s, "x");
        table(s, {1}, {});
        expect_error(s, E::column_size_mismatch);
    }
}

TEST_CASE("serialization: entity tables that do not add up are reported", "[serialization]") {
    register_all();
    using E = ecs::DeserializeError;
    // Slots 0..3: entities in rows as given, table as given.
    auto snapshot = [](std::vector<ecs::Entity> pos_rows, std::vector<ecs::Entity> vel_rows, std::vector<uint32_t> gens,
                       std::vector<uint32_t> free_list, uint32_t slots = 4) {
        std::string s;
        header(s, 2, slots);
        put32(s, 1);
        component(s, "ser.Position", 12);
        rows(s, pos_rows);
        column(s, pos_bytes(std::vector<SerPos>(pos_rows.size(), SerPos{1, 1, 1})));
        put32(s, 1);
        component(s, "ser.Counted", sizeof(SerCounted));
        rows(s, vel_rows);
        column(s, counted_bytes(std::vector<int>(vel_rows.size(), 4)));
        table(s, gens, free_list);
        return s;
    };
    {
        ecs::World w; // the control
        REQUIRE(load(w, snapshot({{1, 1}}, {{3, 2}}, {1, 1, 5, 2}, {2})));
        REQUIRE(w.get<SerCounted>(ecs::Entity{3, 2}).value == 4);
    }
    SECTION("entity in two rows") {
        expect_error(snapshot({{1, 1}}, {{1, 1}}, {1, 1, 5, 2}, {2, 3}), E::duplicate_entity);
        expect_error(snapshot({{1, 1}, {1, 1}}, {}, {1, 1, 5, 2}, {2, 3}), E::duplicate_entity);
    }
    SECTION("row naming a slot out of range or slot 0") {
        expect_error(snapshot({{4, 1}}, {{3, 2}}, {1, 1, 5, 2}, {1, 2}), E::entity_out_of_range);
        expect_error(snapshot({{0, 1}}, {{3, 2}}, {1, 1, 5, 2}, {1, 2}), E::entity_out_of_range);
    }
    SECTION("live entity whose generation disagrees with the table") {
        expect_error(snapshot({{1, 1}}, {{3, 3}}, {1, 1, 5, 2}, {2}), E::bad_generation);
        expect_error(snapshot({{1, 0}}, {{3, 2}}, {1, 1, 5, 2}, {2}), E::bad_generation);
    }
    SECTION("generation 0, or slot 0 not at generation 1") {
        expect_error(snapshot({{1, 1}}, {{3, 2}}, {1, 1, 0, 2}, {2}), E::bad_generation);
        expect_error(snapshot({{1, 1}}, {{3, 2}}, {2, 1, 5, 2}, {2}), E::bad_generation);
    }
    SECTION("a generation beyond 16 bits: loaded, or refused by the compact-records build") {
        const auto wide = snapshot({{1, 1}}, {{3, 2}}, {1, 1, 70000, 2}, {2});
#if ECS_COMPACT_RECORDS
        expect_error(wide, E::bad_generation);
#else
        ecs::World w;
        REQUIRE(load(w, wide));
        CHECK(w.create().generation == 70000u); // slot 2, the free one, keeps its generation
#endif
    }
    SECTION("free list naming a live slot, a slot twice, slot 0 or a slot out of range") {
        expect_error(snapshot({{1, 1}}, {{3, 2}}, {1, 1, 5, 2}, {3}), E::bad_free_list);
        expect_error(snapshot({{1, 1}}, {}, {1, 1, 5, 2}, {2, 2}), E::bad_free_list);
        expect_error(snapshot({{1, 1}}, {{3, 2}}, {1, 1, 5, 2}, {0}), E::bad_free_list);
        expect_error(snapshot({{1, 1}}, {{3, 2}}, {1, 1, 5, 2}, {9}), E::bad_free_list);
    }
    SECTION("free list too short or too long") {
        expect_error(snapshot({{1, 1}}, {{3, 2}}, {1, 1, 5, 2}, {}), E::bad_count);
        expect_error(snapshot({{1, 1}}, {{3, 2}}, {1, 1, 5, 2}, {2, 2}), E::bad_count);
        std::string s = snapshot({{1, 1}}, {{3, 2}}, {1, 1, 5, 2}, {});
        s.resize(s.size() - 4);
        put32(s, 0xFFFFFFFFu); // absurd free count
        expect_error(s, E::bad_count);
    }
}

TEST_CASE("serialization: a failure half-way through an archetype destroys exactly what was built",
          "[serialization]") {
    register_all();
    using E = ecs::DeserializeError;
    const int counted_before = SerCounted::live();
    // Block 1: two Counted and two texts. Block 2: Counted, EmptyCounted and texts given by the caller.
    auto blocks = [](const std::string& second_texts) {
        std::string s;
        header(s, 2, 5);
        put32(s, 2);
        component(s, "ser.Counted", sizeof(SerCounted));
        component(s, "ser.Text", sizeof(SerText));
        rows(s, {{1, 1}, {2, 1}});
        column(s, counted_bytes({1, 2}));
        column(s, text_bytes({"a long string that does not fit in the small buffer of std::string", "b"}));
        put32(s, 3);
        component(s, "ser.Counted", sizeof(SerCounted));
        component(s, "ser.EmptyCounted", sizeof(SerEmptyCounted));
        component(s, "ser.Text", sizeof(SerText));
        rows(s, {{3, 1}, {4, 1}});
        column(s, counted_bytes({3, 4}));
        column(s, "");
        column(s, second_texts);
        return s;
    };

    // The second text of block 2 fails, after both Counted, both EmptyCounted and the first text
    // of that block were constructed (and block 1 completed).
    std::string texts = text_bytes({"constructed"});
    put32(texts, 50); // claims 50 bytes, has 3
    texts += "abc";
    std::string s = blocks(texts);
    table(s, {1, 1, 1, 1, 1}, {});
    expect_error(s, E::deserializer_failed);
    REQUIRE(SerCounted::live() == counted_before);
    REQUIRE(SerEmptyCounted::live == 0);
    REQUIRE(SerCounted::bad_destroys == 0);

    // A failure after every archetype was built (in the entity table) rolls all of them back.
    const std::string good_blocks = blocks(text_bytes({"constructed", "second"}));
    std::string late = good_blocks;
    table(late, {1, 1, 1, 1, 2}, {}); // entity {4, 1} disagrees with its slot
    expect_error(late, E::bad_generation);
    REQUIRE(SerCounted::live() == counted_before);
    REQUIRE(SerEmptyCounted::live == 0);

    // And the same blocks with a correct table load.
    std::string fine = good_blocks;
    table(fine, {1, 1, 1, 1, 1}, {});
    {
        ecs::World w;
        REQUIRE(load(w, fine));
        REQUIRE(w.get<SerText>(ecs::Entity{4, 1}).value == "second");
        REQUIRE(w.get<SerCounted>(ecs::Entity{2, 1}).value == 2);
        REQUIRE(w.has<SerEmptyCounted>(ecs::Entity{3, 1}));
        REQUIRE(SerCounted::live() == counted_before + 4);
        REQUIRE(SerEmptyCounted::live == 2);
    }
    REQUIRE(SerCounted::live() == counted_before);
    REQUIRE(SerEmptyCounted::live == 0);
}

// ===================================================================================================
// Corpus: every truncation and random corruption of a small valid snapshot
// ===================================================================================================

TEST_CASE("serialization: every truncated prefix is an error and leaks nothing", "[serialization]") {
    register_all();
    const int counted_before = SerCounted::live();
    std::string bytes;
    const int version = GENERATE(1, 2);
    {
        RichWorld rw;
        fill_rich(rw, 12);
        bytes = version == 1 ? snapshot_v1_of(rw.world) : snapshot_of(rw.world);
    }
    INFO("format " << version);
    REQUIRE(SerCounted::live() == counted_before);
    for (size_t n = 0; n < bytes.size(); ++n) {
        INFO("prefix length " << n << " of " << bytes.size());
        ecs::World w;
        const ecs::DeserializeResult r = load(w, bytes.substr(0, n));
        REQUIRE(!r);
        REQUIRE(r.error == ecs::DeserializeError::truncated);
        REQUIRE(w.count() == 0);
        REQUIRE(w.check_invariants());
        REQUIRE(SerCounted::live() == counted_before);
        REQUIRE(SerEmptyCounted::live == 0);
        const ecs::Entity e = w.create();
        REQUIRE(w.alive(e));
    }
    REQUIRE(SerCounted::bad_destroys == 0);
}

// Format 1 has no checksum: corruption reaches the parser, which must stay safe (format 1 input is
// still accepted, and a format 2 snapshot with forged checksums reaches the same parser). In format 2
// the checksums reject every one of these corruptions before anything is built.
TEST_CASE("serialization: random byte flips never crash or leak", "[serialization]") {
    register_all();
    const int counted_before = SerCounted::live();
    std::string bytes;
    const int version = GENERATE(1, 2);
    INFO("format " << version);
    {
        RichWorld rw;
        fill_rich(rw, 12);
        bytes = version == 1 ? snapshot_v1_of(rw.world) : snapshot_of(rw.world);
    }
    std::mt19937 rng(20261121u);
    int loaded = 0;
    int rejected = 0;
    for (int round = 0; round < 4000; ++round) {
        std::string s = bytes;
        const int flips = 1 + static_cast<int>(rng() % 4);
        for (int f = 0; f < flips; ++f) {
            const size_t at = rng() % s.size();
            s[at] = static_cast<char>(static_cast<unsigned char>(s[at]) ^ static_cast<unsigned char>(1 + rng() % 255));
        }
        INFO("round " << round);
        {
            ecs::World w;
            const ecs::DeserializeResult r = load(w, s);
            REQUIRE(w.check_invariants());
            if (r) {
                ++loaded;
                // Whatever loaded is a working world: it serializes again and accepts new entities.
                ecs::World again;
                REQUIRE(load(again, snapshot_of(w)));
                REQUIRE(again.count() == w.count());
                (void)w.create_with(SerText{"new"});
                REQUIRE(w.check_invariants());
            } else {
                ++rejected;
                REQUIRE(w.count() == 0);
                REQUIRE(SerCounted::live() == counted_before);
                REQUIRE(w.alive(w.create()));
            }
        }
        REQUIRE(SerCounted::live() == counted_before);
        REQUIRE(SerEmptyCounted::live == 0);
    }
    REQUIRE(SerCounted::bad_destroys == 0);
    REQUIRE(rejected > 0);
    if (version == 1) REQUIRE(loaded > 0); // flips in payload bytes (floats, text) load as other values
    else REQUIRE(loaded == 0);
}

// ---------------------------------------------------------------------------------------------------
// Audit against SPEC 0.9 §3.10 (round trip preserves archetype structure; queries on the target)
// ---------------------------------------------------------------------------------------------------

TEST_CASE("serialization: a query cached on the target before deserialize sees the loaded entities",
          "[serialization]") {
    register_all();
    ecs::World a;
    const ecs::Entity p = a.create_with(SerPos{1, 2, 3});
    const ecs::Entity pv = a.create_with(SerPos{4, 5, 6}, SerVel{7, 8});
    const ecs::Entity v = a.create_with(SerVel{9, 10});
    const std::string bytes = snapshot_of(a);

    ecs::World b;
    // Build both cache entries on the empty target first: they must not stay stale.
    int before = 0;
    b.each<SerPos>([&](ecs::Entity, SerPos&) { ++before; });
    CHECK(before == 0);
    CHECK(b.count<SerPos, SerVel>() == 0);

    REQUIRE(load(b, bytes));
    std::vector<ecs::Entity> seen;
    b.each<SerPos>([&](ecs::Entity e, SerPos&) { seen.push_back(e); });
    std::sort(seen.begin(), seen.end());
    CHECK(seen == std::vector<ecs::Entity>{p, pv});
    CHECK(b.count<SerPos, SerVel>() == 1);
    CHECK(b.count<SerVel>() == 2);
    CHECK(b.has<SerVel>(v));
    CHECK(b.check_invariants());
}

TEST_CASE("serialization: row order within an archetype survives a round trip (a sort stays sorted)",
          "[serialization]") {
    register_all();
    ecs::World a;
    std::vector<ecs::Entity> es;
    for (int i = 0; i < 12; ++i) es.push_back(a.create_with(SerPos{float((i * 7) % 12), 0, 0}, SerVel{float(i), 0}));
    a.sort<SerPos>([](const SerPos& l, const SerPos& r) { return l.x < r.x; });
    std::vector<ecs::Entity> order_a;
    a.each<SerPos>([&](ecs::Entity e, SerPos&) { order_a.push_back(e); });

    ecs::World b;
    REQUIRE(load(b, snapshot_of(a)));
    std::vector<ecs::Entity> order_b;
    float last = -1;
    bool sorted = true;
    b.each<SerPos, SerVel>([&](ecs::Entity e, SerPos& pos, SerVel& vel) {
        order_b.push_back(e);
        sorted = sorted && pos.x > last;
        last = pos.x;
        // the columns are still row-parallel: each entity kept its own pair of values
        CHECK(vel.dx == float(std::find(es.begin(), es.end(), e) - es.begin()));
    });
    CHECK(sorted);
    CHECK(order_b == order_a);
}

namespace {
/// Non-trivially copyable, counted, registered with element-first functions (value, stream).
struct SerElemFirst {
    std::vector<int> values;
    static inline int live = 0;
    SerElemFirst() { ++live; }
    SerElemFirst(std::vector<int> v) : values(std::move(v)) { ++live; }
    SerElemFirst(const SerElemFirst& o) : values(o.values) { ++live; }
    SerElemFirst(SerElemFirst&& o) noexcept : values(std::move(o.values)) { ++live; }
    SerElemFirst& operator=(const SerElemFirst&) = default;
    SerElemFirst& operator=(SerElemFirst&&) = default;
    ~SerElemFirst() { --live; }
};
/// Same shape, but its reader rejects any list longer than 3 (sets failbit after filling the object).
struct SerElemFirstPicky {
    std::vector<int> values;
};
using ElemFirstWrite = void (*)(const void*, std::ostream&);
using ElemFirstRead = void (*)(void*, std::istream&);
template <typename T, typename S, typename D, typename = void>
struct can_register_with : std::false_type {};
template <typename T, typename S, typename D>
struct can_register_with<T, S, D,
                         std::void_t<decltype(ecs::register_component<T>("", std::declval<S>(), std::declval<D>()))>>
    : std::true_type {};

void write_int_list(const std::vector<int>& v, std::ostream& out) {
    const auto n = static_cast<uint32_t>(v.size());
    out.write(reinterpret_cast<const char*>(&n), sizeof n);
    for (int x : v) out.write(reinterpret_cast<const char*>(&x), sizeof x);
}
void read_int_list(std::vector<int>& v, std::istream& in, uint32_t limit) {
    uint32_t n = 0;
    if (!in.read(reinterpret_cast<char*>(&n), sizeof n)) return;
    for (uint32_t i = 0; i < n && i <= limit; ++i) {
        int x = 0;
        if (!in.read(reinterpret_cast<char*>(&x), sizeof x)) return;
        v.push_back(x);
    }
    if (n > limit) in.setstate(std::ios_base::failbit);
}
} // namespace

// SPEC §3.10 passes custom functions without spelling out their parameter order; code written
// against it (the Children example of the implementation it came from) uses element-first functions
// `void(const void* elem, std::ostream&)` / `void(void* elem, std::istream&)` that fill an existing
// object. Both forms are accepted; the element-first reader gets a value-initialised T.
TEST_CASE("serialization: register_component accepts element-first (elem, stream) functions", "[serialization]") {
    register_all();
    CHECK(can_register_with<SerElemFirst, ecs::ComponentColumn::SerializeFunc,
                            ecs::ComponentColumn::DeserializeFunc>::value); // the stream-first form keeps working
    CHECK(can_register_with<SerElemFirst, ElemFirstWrite, ElemFirstRead>::value);
    ecs::register_component<SerElemFirst>(
        "ser.ElemFirst",
        [](const void* elem, std::ostream& out) { write_int_list(static_cast<const SerElemFirst*>(elem)->values, out); },
        [](void* elem, std::istream& in) { read_int_list(static_cast<SerElemFirst*>(elem)->values, in, 1000); });
    ecs::register_component<SerElemFirstPicky>(
        "ser.ElemFirstPicky",
        [](const void* elem, std::ostream& out) { write_int_list(static_cast<const SerElemFirstPicky*>(elem)->values, out); },
        [](void* elem, std::istream& in) { read_int_list(static_cast<SerElemFirstPicky*>(elem)->values, in, 3); });
    REQUIRE(ecs::component_registered(ecs::component_id<SerElemFirst>()));
    const int live_before = SerElemFirst::live;
    {
        ecs::World a;
        const ecs::Entity x = a.create_with(SerElemFirst{{1, 2, 3}}, SerPos{1, 2, 3});
        const ecs::Entity y = a.create_with(SerElemFirst{{}});
        ecs::World b;
        REQUIRE(load(b, snapshot_of(a)));
        REQUIRE(b.count() == 2);
        CHECK(b.get<SerElemFirst>(x).values == std::vector<int>{1, 2, 3});
        CHECK(b.get<SerPos>(x).z == 3);
        CHECK(b.get<SerElemFirst>(y).values.empty());
        CHECK(SerElemFirst::live == live_before + 4);
    }
    CHECK(SerElemFirst::live == live_before); // every object constructed by the loader was destroyed once

    SECTION("a reader that sets failbit fails the load and leaves the target empty") {
        ecs::World a;
        a.create_with(SerElemFirst{{7}}, SerElemFirstPicky{{1, 2}});
        a.create_with(SerElemFirst{{8}}, SerElemFirstPicky{{1, 2, 3, 4, 5}}); // too long for its reader
        ecs::World b;
        const ecs::DeserializeResult r = load(b, snapshot_of(a));
        CHECK_FALSE(r);
        CHECK(b.count() == 0);
        CHECK(b.check_invariants());
    }
    CHECK(SerElemFirst::live == live_before);
}

// ===================================================================================================
// Format 2 (addition, 1.0): checksums, format 1 compatibility, resources
// ===================================================================================================

namespace {

struct SerGravity { // trivially copyable resource: memcpy
    float x, y, z;
};
struct SerSettings { // resource with stream-first functions; short strings live in the object (PITFALLS 2)
    std::string title;
    int level = 0;
};
struct SerScore { // resource with element-first functions
    int points = 0;
    std::string who;
};
struct SerNotSaved { // never registered as a resource
    int v;
};
constexpr SerGravity kGravity{1.5f, -9.75f, 0.125f};

void settings_serialize(std::ostream& out, const void* p) {
    const SerSettings& s = *static_cast<const SerSettings*>(p);
    write_u32(out, static_cast<uint32_t>(s.level));
    write_u32(out, static_cast<uint32_t>(s.title.size()));
    out.write(s.title.data(), static_cast<std::streamsize>(s.title.size()));
}
void settings_deserialize(std::istream& in, void* storage) {
    uint32_t level = 0, length = 0;
    if (!read_u32(in, level) || !read_u32(in, length)) return;
    if (length > 4096) {
        in.setstate(std::ios_base::failbit);
        return;
    }
    std::string title(length, '\0');
    if (length != 0 && !in.read(&title[0], length)) return;
    ::new (storage) SerSettings{std::move(title), static_cast<int>(level)};
}

void register_resources() {
    ecs::register_resource<SerGravity>("ser.res.Gravity");
    ecs::register_resource<SerSettings>("ser.res.Settings", &settings_serialize, &settings_deserialize);
    ecs::register_resource<SerScore>(
        "ser.res.Score",
        [](const void* p, std::ostream& out) {
            const SerScore& s = *static_cast<const SerScore*>(p);
            write_u32(out, static_cast<uint32_t>(s.points));
            write_u32(out, static_cast<uint32_t>(s.who.size()));
            out.write(s.who.data(), static_cast<std::streamsize>(s.who.size()));
        },
        [](void* p, std::istream& in) {
            SerScore& s = *static_cast<SerScore*>(p);
            uint32_t points = 0, length = 0;
            if (!read_u32(in, points) || !read_u32(in, length)) return;
            if (length > 4096) {
                in.setstate(std::ios_base::failbit);
                return;
            }
            s.who.resize(length);
            if (length != 0) in.read(&s.who[0], length);
            s.points = static_cast<int>(points);
        });
    // The counting type doubles as a resource, to prove loaded-then-dropped resources are destroyed once.
    ecs::register_resource<SerCounted>("ser.res.Counted", &counted_serialize, &counted_deserialize);
}

/// Wraps a format 1 body (everything after its version) in format 2's frame, with valid checksums
/// and the resource table `resources` (count included).
std::string frame_v2(const std::string& body_v1, const std::string& resources) {
    const std::string body = body_v1 + resources;
    std::string s("ECS", 4);
    put32(s, 2);
    put64(s, body.size());
    put32(s, ecs::detail::Crc32c::of(s.data(), 16));
    s += body;
    put32(s, ecs::detail::Crc32c::of(body.data(), body.size()));
    return s;
}
void resource_entry(std::string& s, const std::string& name, uint32_t element_size, const std::string& payload) {
    component(s, name, element_size);
    put64(s, payload.size());
    s += payload;
}

/// The world tests/data/snapshot_v1.hpp was written from (keep in sync with its generator).
void build_v1_fixture_world(ecs::World& w) {
    const ecs::Entity e1 = w.create_with(SerPos{1, 2, 3});
    const ecs::Entity e2 = w.create_with(SerPos{4, 5, 6}, SerVel{7, 8});
    (void)w.create_with(SerVel{-1, -2}, SerTag{});
    (void)w.create_with(SerHealth{-42}, SerCounted(17), SerTag{});
    const ecs::Entity e5 = w.create();
    (void)w.create_with(SerPos{9, 9, 9}, SerVel{0.5f, 0.25f});
    w.destroy(e5);
    w.destroy(e2);
    (void)w.create_with(SerTag{});
    (void)w.create_with(SerHealth{123456});
    (void)e1;
}

} // namespace

TEST_CASE("serialization: CRC-32C matches its check value", "[serialization]") {
    CHECK(ecs::detail::Crc32c::of("123456789", 9) == 0xE3069283u);
    CHECK(ecs::detail::Crc32c::of("", 0) == 0u);
    // Incremental updates in odd pieces equal one pass.
    std::string data(1000, '\0');
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7 + 3);
    ecs::detail::Crc32c crc;
    for (size_t at = 0, step = 1; at < data.size(); at += step, step = step % 13 + 1)
        crc.update(data.data() + at, std::min(step, data.size() - at));
    CHECK(crc.value() == ecs::detail::Crc32c::of(data.data(), data.size()));
    // Long inputs (the interleaved hardware path, where the CPU has one) against a bitwise reference.
    std::string big(3 * 4096 * 5 + 77, '\0');
    for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 2654435761u) >> 13);
    uint32_t reference = 0xFFFFFFFFu;
    for (char ch : big) {
        reference ^= static_cast<unsigned char>(ch);
        for (int k = 0; k < 8; ++k) reference = (reference >> 1) ^ (0x82F63B78u & (0u - (reference & 1u)));
    }
    CHECK(ecs::detail::Crc32c::of(big.data(), big.size()) == (reference ^ 0xFFFFFFFFu));
    for (size_t offset = 1; offset < 8; ++offset) { // unaligned starts, several lengths
        const std::string part = big.substr(offset, big.size() - 3 * offset);
        uint32_t r = 0xFFFFFFFFu;
        for (char ch : part) {
            r ^= static_cast<unsigned char>(ch);
            for (int k = 0; k < 8; ++k) r = (r >> 1) ^ (0x82F63B78u & (0u - (r & 1u)));
        }
        CHECK(ecs::detail::Crc32c::of(part.data(), part.size()) == (r ^ 0xFFFFFFFFu));
    }
}

TEST_CASE("serialization: every single flipped bit of a format 2 snapshot is rejected, the target untouched",
          "[serialization]") {
    register_all();
    register_resources();
    const int counted_before = SerCounted::live();
    ecs::World a;
    const ecs::Entity dead = a.create_with(SerPos{0, 0, 0});
    (void)a.create_with(SerPos{1, 2, 3}, SerVel{4, 5});
    (void)a.create_with(SerText{"ab"}, SerCounted(3), SerTag{});
    (void)a.create_with(SerHealth{-7}, SerPos{6, 7, 8});
    a.destroy(dead);
    a.set_resource(SerGravity{0, -9.8f, 0});
    a.set_resource(SerSettings{"hi", 2});
    const std::string bytes = snapshot_of(a);
    REQUIRE(bytes.size() < 600);

    ecs::World target; // not pristine: dead slots, archetypes, a resource of a type the snapshot holds
    target.destroy(target.create_with(SerPos{1, 1, 1}, SerVel{1, 1}));
    target.set_resource(SerSettings{"mine", 1});
    const size_t archetypes_before = ecs::detail::WorldAccess::archetypes(target).size();
    size_t checksum_errors = 0;
    for (size_t bit = 0; bit < bytes.size() * 8; ++bit) {
        std::string s = bytes;
        s[bit / 8] = static_cast<char>(static_cast<unsigned char>(s[bit / 8]) ^ (1u << (bit % 8)));
        const ecs::DeserializeResult r = load(target, s);
        INFO("bit " << bit << ": " << r.message);
        REQUIRE(!r);
        REQUIRE((r.error == ecs::DeserializeError::checksum_mismatch || r.error == ecs::DeserializeError::bad_magic ||
                 r.error == ecs::DeserializeError::unsupported_version));
        checksum_errors += r.error == ecs::DeserializeError::checksum_mismatch ? 1 : 0;
        // Verified before anything is built: not even an archetype was created.
        REQUIRE(ecs::detail::WorldAccess::archetypes(target).size() == archetypes_before);
        REQUIRE(target.count() == 0);
        REQUIRE(target.resource<SerSettings>().title == "mine");
        REQUIRE(!target.has_resource<SerGravity>());
        REQUIRE(SerCounted::live() == counted_before + 1); // a's one
    }
    CHECK(checksum_errors == bytes.size() * 8 - 8 * 8); // all but the magic's and the version's bits
    REQUIRE(target.check_invariants());
    // And the intact snapshot still loads into that same target.
    REQUIRE(load(target, bytes));
    REQUIRE(target.count() == 3);
    REQUIRE(target.resource<SerSettings>().title == "hi");
    REQUIRE(target.resource<SerGravity>().y == -9.8f);
}

TEST_CASE("serialization: every CRC-32C path gives the bitwise result at every length and alignment",
          "[serialization]") {
    using Path = ecs::detail::Crc32c::Path;
    std::string data(3 * 4096 * 3 + 1100, '\0');
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>((i * 2654435761u) >> 11);
    const auto bitwise = [](const char* p, size_t n) {
        uint32_t r = 0xFFFFFFFFu;
        for (size_t i = 0; i < n; ++i) {
            r ^= static_cast<unsigned char>(p[i]);
            for (int k = 0; k < 8; ++k) r = (r >> 1) ^ (0x82F63B78u & (0u - (r & 1u)));
        }
        return r ^ 0xFFFFFFFFu;
    };
    // Around each path's thresholds: 8-byte steps, the 256-byte folds (512 to start), 3 x 4096 lanes.
    const size_t lengths[] = {0, 1, 7, 8, 9, 255, 256, 257, 511, 512, 513, 767, 768, 769, 1000, 4096,
                              12287, 12288, 12289, 3 * 12288 + 1000};
    for (const Path path : {Path::table, Path::sse42, Path::vpclmul})
        for (const size_t n : lengths)
            for (size_t offset = 0; offset < 9; ++offset) {
                INFO("path " << int(path) << " length " << n << " offset " << offset);
                CHECK(ecs::detail::Crc32c::of(data.data() + offset, n, path) == bitwise(data.data() + offset, n));
            }
    // Pieces checksummed separately combine in order: reg(A B) = shift(reg(A), |B|) ^ extend(0, B).
    using Crc = ecs::detail::Crc32c;
    for (const size_t split : {size_t(0), size_t(1), size_t(13), size_t(4096), size_t(20000), data.size()}) {
        const uint32_t a = Crc::extend(0xFFFFFFFFu, data.data(), split);
        const uint32_t b = Crc::extend(0, data.data() + split, data.size() - split);
        CHECK((Crc::shift(a, data.size() - split) ^ b ^ 0xFFFFFFFFu) == bitwise(data.data(), data.size()));
    }
    CHECK(Crc::shift_piece(0x12345678u) == Crc::shift(0x12345678u, Crc::PIECE));
    // Incremental updates across the fast path's blocks equal one pass.
    ecs::detail::Crc32c crc;
    for (size_t at = 0, step = 700; at < data.size(); at += step, step = step * 3 % 5000 + 1)
        crc.update(data.data() + at, std::min(step, data.size() - at));
    CHECK(crc.value() == bitwise(data.data(), data.size()));
}

TEST_CASE("serialization: a format 1 snapshot written by ecs 0.9 still loads with identical content",
          "[serialization]") {
    register_all();
    const std::string v1(reinterpret_cast<const char*>(fixture::snapshot_v1), sizeof fixture::snapshot_v1);
    REQUIRE(get32(v1, 4) == 1);
    ecs::World expected;
    build_v1_fixture_world(expected);
    {
        ecs::World w;
        const ecs::DeserializeResult r = load(w, v1);
        INFO(r.message);
        REQUIRE(r);
        REQUIRE(r.offset == v1.size());
        REQUIRE(w.check_invariants());
        REQUIRE(w.count() == expected.count());
        const ecs::Entity e1{1, 1}, e3{3, 1}, e4{4, 1}, e6{6, 1}, tag{2, 2}, health{5, 2};
        REQUIRE(w.get<SerPos>(e1) == SerPos{1, 2, 3});
        REQUIRE(!w.has<SerVel>(e1));
        REQUIRE(w.get<SerVel>(e3) == SerVel{-1, -2});
        REQUIRE(w.has<SerTag>(e3));
        REQUIRE(w.get<SerHealth>(e4).hp == -42);
        REQUIRE(w.get<SerCounted>(e4).value == 17);
        REQUIRE(w.get<SerPos>(e6) == SerPos{9, 9, 9});
        REQUIRE(w.get<SerVel>(e6) == SerVel{0.5f, 0.25f});
        REQUIRE(w.has<SerTag>(tag));
        REQUIRE(w.get<SerHealth>(health).hp == 123456);
        REQUIRE(!w.alive(ecs::Entity{2, 1}));
        REQUIRE(!w.alive(ecs::Entity{5, 1}));
        // Byte for byte the same world: same archetypes in the same order, slots, generations, free list.
        REQUIRE(snapshot_of(w) == snapshot_of(expected));
        REQUIRE(snapshot_v1_of(w) == v1); // and the version 1 writer still writes what 0.9 wrote
        REQUIRE(w.create() == expected.create());
    }
    // A format 1 snapshot has no checksum: a flipped payload bit loads as another value (why 2 exists).
    std::string damaged = v1;
    damaged[damaged.size() - 40] = static_cast<char>(damaged[damaged.size() - 40] ^ 1);
    ecs::World w;
    (void)load(w, damaged); // whatever happens, nothing breaks
    REQUIRE(w.check_invariants());
}

TEST_CASE("serialization: registered resources round trip, others are not saved", "[serialization]") {
    register_all();
    register_resources();
    const int counted_before = SerCounted::live();
    {
        ecs::World a;
        const ecs::Entity e = a.create_with(SerPos{1, 2, 3});
        a.set_resource(SerGravity{0.5f, -9.81f, 0.25f});
        a.set_resource(SerSettings{"ab", 3});                                          // short string
        a.set_resource(SerScore{42, std::string(100, 'w')});                            // long string
        a.set_resource(SerCounted(77));
        a.set_resource(SerNotSaved{5});
        const std::string bytes = snapshot_of(a);

        ecs::World b;
        b.set_resource(SerSettings{"old", 1}); // replaced
        b.set_resource(SerNotSaved{9});        // left alone
        const ecs::DeserializeResult r = load(b, bytes);
        INFO(r.message);
        REQUIRE(r);
        REQUIRE(b.get<SerPos>(e) == SerPos{1, 2, 3});
        REQUIRE(b.resource<SerGravity>().x == 0.5f);
        REQUIRE(b.resource<SerGravity>().y == -9.81f);
        REQUIRE(b.resource<SerGravity>().z == 0.25f);
        REQUIRE(b.resource<SerSettings>().title == "ab");
        REQUIRE(b.resource<SerSettings>().level == 3);
        REQUIRE(b.resource<SerScore>().points == 42);
        REQUIRE(b.resource<SerScore>().who == std::string(100, 'w'));
        REQUIRE(b.resource<SerCounted>().value == 77);
        REQUIRE(b.resource<SerNotSaved>().v == 9);
        REQUIRE(SerCounted::live() == counted_before + 2); // a's and b's, the loaded copy destroyed once

        ecs::World c;
        REQUIRE(load(c, bytes));
        REQUIRE(!c.has_resource<SerNotSaved>());
        REQUIRE(c.resource<SerSettings>().title == "ab");
        // Moving the loaded short string must not leave it pointing into freed storage (PITFALLS 2).
        c.set_resource(SerSettings{"xy", 4});
        REQUIRE(c.resource<SerSettings>().title == "xy");

        // Format 1 carries no resources.
        ecs::World d;
        REQUIRE(load(d, snapshot_v1_of(a)));
        REQUIRE(!d.has_resource<SerGravity>());
        REQUIRE(d.get<SerPos>(e) == SerPos{1, 2, 3});
    }
    REQUIRE(SerCounted::live() == counted_before);
    REQUIRE(SerCounted::bad_destroys == 0);
}

TEST_CASE("serialization: bad resource tables are reported and leak nothing", "[serialization]") {
    register_all();
    register_resources();
    using E = ecs::DeserializeError;
    const std::string body = simple_snapshot().substr(8); // format 1 body after magic and version
    SECTION("a well-formed hand-built format 2 snapshot loads") {
        std::string res;
        put32(res, 2);
        const std::string gravity(reinterpret_cast<const char*>(&kGravity), sizeof kGravity);
        resource_entry(res, "ser.res.Gravity", sizeof(SerGravity), gravity);
        resource_entry(res, "ser.res.Counted", sizeof(SerCounted), counted_bytes({5}));
        ecs::World w;
        const ecs::DeserializeResult r = load(w, frame_v2(body, res));
        INFO(r.message);
        REQUIRE(r);
        REQUIRE(w.count() == 2);
        REQUIRE(w.resource<SerGravity>().y == kGravity.y);
        REQUIRE(w.resource<SerCounted>().value == 5);
    }
    auto with_resources = [&](uint32_t count, std::initializer_list<std::string> entries) {
        std::string res;
        put32(res, count);
        for (const std::string& e : entries) res += e;
        return frame_v2(body, res);
    };
    auto entry = [](const std::string& name, uint32_t size, const std::string& payload) {
        std::string s;
        resource_entry(s, name, size, payload);
        return s;
    };
    const std::string counted = entry("ser.res.Counted", sizeof(SerCounted), counted_bytes({5}));
    SECTION("unknown resource name") {
        expect_error(with_resources(2, {counted, entry("ser.res.Nope", 4, "abcd")}), E::unknown_resource);
    }
    SECTION("the same resource twice") { expect_error(with_resources(2, {counted, counted}), E::duplicate_resource); }
    SECTION("element size mismatch") {
        expect_error(with_resources(1, {entry("ser.res.Gravity", 8, "12345678")}), E::element_size_mismatch);
    }
    SECTION("memcpy resource with the wrong byte length") {
        expect_error(with_resources(1, {entry("ser.res.Gravity", sizeof(SerGravity), "1234")}),
                     E::column_size_mismatch);
    }
    SECTION("a resource deserializer that fails, after another was constructed") {
        expect_error(with_resources(2, {counted, entry("ser.res.Settings", sizeof(SerSettings), "\x01")}),
                     E::deserializer_failed);
    }
    SECTION("a resource deserializer that leaves bytes unread") {
        std::string payload = counted_bytes({1});
        payload += "xx";
        expect_error(with_resources(1, {entry("ser.res.Counted", sizeof(SerCounted), payload)}),
                     E::column_size_mismatch);
    }
    SECTION("bad name length") { expect_error(with_resources(1, {entry("", 4, "abcd")}), E::bad_name); }
    SECTION("count above what the body holds") { expect_error(with_resources(1000, {counted}), E::truncated); }
    // Since 1.0, bytes after the resource table are extension sections (tag, u64 length, bytes).
    SECTION("bytes after the resource table: a cut-short section") {
        expect_error(with_resources(1, {counted, "junk"}), E::truncated);
    }
    SECTION("bytes after the resource table: an unknown section") {
        expect_error(with_resources(1, {counted, std::string("junk\0\0\0\0\0\0\0\0", 12)}), E::bad_section);
    }
    SECTION("missing resource table") { expect_error(frame_v2(body, ""), E::truncated); }
    REQUIRE(SerCounted::bad_destroys == 0);
}

TEST_CASE("serialization: format 2 round trips through one-way streams and back to back", "[serialization]") {
    register_all();
    register_resources();
    RichWorld rw;
    fill_rich(rw, 40);
    rw.world.set_resource(SerSettings{"s", 1});
    const std::string bytes = snapshot_of(rw.world);
    OneWayBuf buf(bytes + bytes);
    std::istream in(&buf);
    ecs::World b, c;
    REQUIRE(ecs::deserialize(b, in)); // the whole stream is read into memory; the first snapshot loads
    require_same_entities(rw.world, b, rw);
    REQUIRE(b.resource<SerSettings>().title == "s");
    std::string damaged = bytes;
    damaged[damaged.size() / 2] = static_cast<char>(damaged[damaged.size() / 2] ^ 0x10);
    OneWayBuf bad(damaged);
    std::istream bad_in(&bad);
    REQUIRE(ecs::deserialize(c, bad_in).error == ecs::DeserializeError::checksum_mismatch);
    require_empty_and_usable(c);
}

namespace {
/// A seekable stream that holds only a few bytes in memory at a time (like a file stream): format 2
/// is then checked in a pass of its own and the stream sought back, instead of in memory.
class SeekableChunkBuf : public std::streambuf {
public:
    explicit SeekableChunkBuf(std::string data) : data_(std::move(data)) { setg(&data_[0], &data_[0], &data_[0]); }

protected:
    int_type underflow() override {
        if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
        const size_t at = static_cast<size_t>(gptr() - &data_[0]);
        if (at >= data_.size()) return traits_type::eof();
        setg(&data_[0], &data_[0] + at, &data_[0] + std::min<size_t>(at + 61, data_.size()));
        return traits_type::to_int_type(*gptr());
    }
    pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode) override {
        const off_type base = dir == std::ios_base::beg ? 0
                              : dir == std::ios_base::cur ? off_type(gptr() - &data_[0])
                                                           : off_type(data_.size());
        const off_type target = base + off;
        if (target < 0 || target > off_type(data_.size())) return pos_type(off_type(-1));
        setg(&data_[0], &data_[0] + target, &data_[0] + target); // nothing buffered after a seek
        return pos_type(target);
    }
    pos_type seekpos(pos_type pos, std::ios_base::openmode which) override {
        return seekoff(off_type(pos), std::ios_base::beg, which);
    }

private:
    std::string data_;
};
} // namespace

TEST_CASE("serialization: format 2 loads the same from memory (checked in one pass) and from a chunked stream",
          "[serialization]") {
    register_all();
    RichWorld rw;
    fill_rich(rw, 300);
    const std::string bytes = snapshot_of(rw.world);
    ecs::World from_memory, from_chunks, from_v1;
    REQUIRE(load(from_memory, bytes)); // istringstream: the checksum pass copies entity lists and generations
    SeekableChunkBuf buf(bytes);
    std::istream in(&buf);
    REQUIRE(ecs::deserialize(from_chunks, in)); // checksum pass of its own, then the stream sought back
    std::stringstream v1;
    ecs::detail::write_snapshot(rw.world, v1, 1);
    REQUIRE(load(from_v1, v1.str())); // format 1: no checksum pass
    for (ecs::World* w : {&from_memory, &from_chunks, &from_v1}) {
        require_same_entities(rw.world, *w, rw);
        require_same_structure(rw.world, *w);
        REQUIRE(w->check_invariants());
    }
    // Same slots and free list order: the next handles agree.
    for (int i = 0; i < 5; ++i) {
        const ecs::Entity a = from_memory.create(), b = from_chunks.create(), c = from_v1.create();
        REQUIRE(a == b);
        REQUIRE(a == c);
    }
    // A damaged body through the chunked stream: refused, nothing built.
    std::string damaged = bytes;
    damaged[damaged.size() / 3] = static_cast<char>(damaged[damaged.size() / 3] ^ 0x04);
    SeekableChunkBuf bad(damaged);
    std::istream bad_in(&bad);
    ecs::World target;
    const size_t archetypes_before = ecs::detail::WorldAccess::archetypes(target).size();
    REQUIRE(ecs::deserialize(target, bad_in).error == ecs::DeserializeError::checksum_mismatch);
    REQUIRE(ecs::detail::WorldAccess::archetypes(target).size() == archetypes_before);
    require_empty_and_usable(target);
}

TEST_CASE("serialization: format 2 with large columns (checksummed last, in pieces) loads, and a flip there is caught",
          "[serialization]") {
    register_all();
    ecs::World a;
    std::vector<ecs::Entity> made;
    // Two SerPos columns of 576,000 bytes: the first left for the end whole (two pieces and a partial
    // one), the second only in part (the 1 MiB budget), then the rest of it in order.
    for (int i = 0; i < 120000; ++i)
        made.push_back(i % 2 ? a.create_with(SerPos{float(i), 1, 2}, SerVel{3, float(i)}) : a.create_with(SerPos{float(i), 0, 0}));
    for (size_t i = 0; i < made.size(); i += 5) a.destroy(made[i]);
    const std::string bytes = snapshot_of(a);
    ecs::World b;
    REQUIRE(load(b, bytes));
    REQUIRE(b.count() == a.count());
    for (size_t i = 0; i < made.size(); ++i) {
        REQUIRE(b.alive(made[i]) == a.alive(made[i]));
        if (!a.alive(made[i])) continue;
        REQUIRE(b.get<SerPos>(made[i]) == a.get<SerPos>(made[i]));
        REQUIRE(b.has<SerVel>(made[i]) == a.has<SerVel>(made[i]));
    }
    REQUIRE(b.check_invariants());
    for (const size_t at : {size_t(100), bytes.size() / 4, bytes.size() / 2, bytes.size() * 3 / 4, bytes.size() - 10}) {
        std::string damaged = bytes;
        damaged[at] = static_cast<char>(damaged[at] ^ 0x20);
        ecs::World c;
        INFO("byte " << at);
        REQUIRE(load(c, damaged).error == ecs::DeserializeError::checksum_mismatch);
        REQUIRE(c.count() == 0);
    }
}

// ---- Entity names in snapshots (1.0): the "NAME" extension section ---------------------------------

namespace {
/// Re-frames a format 2 snapshot whose body was edited: new length, new checksums.
std::string reseal_v2(const std::string& snapshot, const std::string& new_body) {
    std::string s("ECS", 4);
    put32(s, 2);
    put64(s, new_body.size());
    put32(s, ecs::detail::Crc32c::of(s.data(), 16));
    s += new_body;
    put32(s, ecs::detail::Crc32c::of(new_body.data(), new_body.size()));
    (void)snapshot;
    return s;
}
std::string body_of(const std::string& snapshot) { return snapshot.substr(20, snapshot.size() - 24); }
} // namespace

TEST_CASE("serialization: entity names round-trip, with the handles they name", "[serialization][names]") {
    register_all();
    ecs::World w;
    const ecs::Entity a = w.create_with(SerPos{1, 2, 3});
    const ecs::Entity b = w.create_with(SerVel{4, 5});
    const ecs::Entity c = w.create_with(SerPos{0, 0, 0}, SerVel{0, 0});
    w.destroy(w.create()); // a dead slot in between
    w.set_name(a, "player");
    w.set_name(b, "a name longer than the short-string buffer of any std::string");
    w.set_name(c, "x");
    std::stringstream ss;
    ecs::serialize(w, ss);
    ecs::World loaded;
    const ecs::DeserializeResult r = ecs::deserialize(loaded, ss);
    REQUIRE(r);
    CHECK(loaded.lookup("player") == a);
    CHECK(loaded.name(b) == "a name longer than the short-string buffer of any std::string");
    CHECK(loaded.lookup("x") == c);
    CHECK(loaded.check_invariants());
    // The loaded names behave like set ones: destroy frees them.
    loaded.destroy(a);
    CHECK(loaded.lookup("player") == ecs::INVALID_ENTITY);
}

TEST_CASE("serialization: a world without names writes no names section", "[serialization][names]") {
    register_all();
    ecs::World w;
    (void)w.create_with(SerPos{1, 2, 3});
    std::stringstream plain;
    ecs::serialize(w, plain);
    w.set_name(w.create_with(SerPos{}), "n");
    std::stringstream named;
    ecs::serialize(w, named);
    CHECK(plain.str().find("NAME") == std::string::npos);
    CHECK(named.str().find("NAME") != std::string::npos);
}

TEST_CASE("serialization: bad names sections are rejected and leave the world untouched", "[serialization][names]") {
    register_all();
    ecs::World w;
    const ecs::Entity a = w.create_with(SerPos{1, 2, 3});
    const ecs::Entity b = w.create_with(SerPos{4, 5, 6});
    w.set_name(a, "alpha");
    w.set_name(b, "beta!");
    std::stringstream ss;
    ecs::serialize(w, ss);
    const std::string good = ss.str();
    const std::string body = body_of(good);
    const size_t section = body.rfind("NAME");
    REQUIRE(section != std::string::npos);
    // Section layout: tag, u64 length, u32 count, then (u32 slot, u32 size, bytes) per name.
    const size_t first_entry = section + 4 + 8 + 4;

    auto expect_rejected = [&](std::string edited, const char* what) {
        INFO(what);
        std::stringstream in(reseal_v2(good, edited));
        ecs::World target;
        const ecs::DeserializeResult r = ecs::deserialize(target, in);
        CHECK(!r);
        CHECK(r.error == ecs::DeserializeError::bad_section);
        CHECK(target.count() == 0);
        CHECK(target.lookup("alpha") == ecs::INVALID_ENTITY);
        CHECK(target.check_invariants());
    };
    {
        std::string e = body; // second name equal to the first: "beta!" -> "alpha"
        const size_t at = e.find("beta!", section);
        REQUIRE(at != std::string::npos);
        e.replace(at, 5, "alpha");
        expect_rejected(e, "duplicate name");
    }
    {
        std::string e = body; // a name for a dead (never used) slot
        uint32_t slot = 1000;
        std::memcpy(&e[first_entry], &slot, 4);
        expect_rejected(e, "slot out of range");
    }
    {
        std::string e = body; // both names for one slot
        std::string first_slot = e.substr(first_entry, 4);
        const size_t second_entry = first_entry + 8 + 5;
        e.replace(second_entry, 4, first_slot);
        expect_rejected(e, "one slot named twice");
    }
    {
        std::string e = body; // an unknown section tag
        e.replace(section, 4, "ZZZZ");
        expect_rejected(e, "unknown tag");
    }
    {
        std::string e = body; // a section length that disagrees with its contents
        e.insert(e.size(), "junk");
        uint64_t len = 0;
        std::memcpy(&len, &e[section + 4], 8);
        len += 4;
        std::memcpy(&e[section + 4], &len, 8);
        expect_rejected(e, "length longer than the contents");
    }
    {
        std::string e = body; // an empty name
        uint32_t zero = 0;
        std::memcpy(&e[first_entry + 4], &zero, 4);
        expect_rejected(e, "empty name");
    }
    {
        std::string e = body; // the names section twice: the second would rename slot by slot
        const std::string whole = e.substr(section);
        e += whole;
        INFO("a section appears twice");
        std::stringstream in(reseal_v2(good, e));
        ecs::World target;
        const ecs::DeserializeResult r = ecs::deserialize(target, in);
        CHECK(r.error == ecs::DeserializeError::bad_section);
        CHECK(target.count() == 0);
    }
    // The untouched snapshot still loads after all that.
    std::stringstream in(good);
    ecs::World ok;
    REQUIRE(ecs::deserialize(ok, in));
    CHECK(ok.lookup("beta!") == b);
}
