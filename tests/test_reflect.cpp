// Tests for ecs/reflect.hpp (ECS_REFLECT, fields<T>(), fields(id)) and ecs/json.hpp (to_json,
// from_json). The reflection table is process-wide; every type here is used by this file only.

#include <ecs/json.hpp>
#include <ecs/world.hpp>
#include <ecs/reflect.hpp>

#include <array>
#include <atomic>
#include <clocale>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"

// ---------------------------------------------------------------------------------------------------
// Reflected types: in the global namespace, qualified names at global scope, and in their own namespace
// ---------------------------------------------------------------------------------------------------

struct RflPos {
    float x = 0, y = 0;
};
ECS_REFLECT(RflPos, x, y)

enum class RflColour : uint16_t { red = 1, green = 2 };

struct RflScalars {
    bool flag = false;
    int8_t i8 = 0;
    int16_t i16 = 0;
    int32_t i32 = 0;
    int64_t i64 = 0;
    uint8_t u8 = 0;
    uint16_t u16 = 0;
    uint32_t u32 = 0;
    uint64_t u64 = 0;
    float f32 = 0;
    double f64 = 0;
    RflColour colour = RflColour::red;
};
ECS_REFLECT(RflScalars, flag, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, colour);

namespace rfl_game {
struct Player {
    std::string name;
    ecs::Entity target;
    RflPos pos;
    std::array<RflPos, 2> waypoints{};
    int32_t grid[2][3] = {};
    std::array<std::string, 2> tags;
    double c_array[3] = {};
};
struct Inner {
    uint8_t level = 0;
};
ECS_REFLECT(Inner, level) // in the type's own namespace
} // namespace rfl_game
ECS_REFLECT(rfl_game::Player, name, target, pos, waypoints, grid, tags, c_array) // qualified, at global scope

namespace {
struct AnonHolder {
    rfl_game::Inner inner;
    int32_t value = 0;
};
ECS_REFLECT(AnonHolder, inner, value)

struct NotReflected {
    int a = 0;
};

struct RflTag {};
ECS_REFLECT(RflTag)

struct Wide {
    int32_t f0 = 0, f1 = 0, f2 = 0, f3 = 0, f4 = 0, f5 = 0, f6 = 0, f7 = 0, f8 = 0, f9 = 0;
    int32_t f10 = 0, f11 = 0, f12 = 0, f13 = 0, f14 = 0, f15 = 0, f16 = 0, f17 = 0, f18 = 0, f19 = 0;
    int32_t f20 = 0, f21 = 0, f22 = 0, f23 = 0, f24 = 0, f25 = 0, f26 = 0, f27 = 0, f28 = 0, f29 = 0;
    int32_t f30 = 0, f31 = 0;
};
ECS_REFLECT(Wide, f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19,
            f20, f21, f22, f23, f24, f25, f26, f27, f28, f29, f30, f31)

struct Text {
    std::string s;
    friend bool operator==(const Text& a, const Text& b) { return a.s == b.s; }
};
ECS_REFLECT(Text, s)

struct Deep {
    std::array<std::array<int32_t, 1>, 1> a{};
};
ECS_REFLECT(Deep, a)

} // namespace

// Comparisons: in the global namespace (internal linkage) so Catch finds them by ADL.
static bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }
static bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

static bool operator==(const RflPos& a, const RflPos& b) { return same_bits(a.x, b.x) && same_bits(a.y, b.y); }

static bool operator==(const RflScalars& a, const RflScalars& b) {
    return a.flag == b.flag && a.i8 == b.i8 && a.i16 == b.i16 && a.i32 == b.i32 && a.i64 == b.i64 && a.u8 == b.u8 &&
           a.u16 == b.u16 && a.u32 == b.u32 && a.u64 == b.u64 && same_bits(a.f32, b.f32) && same_bits(a.f64, b.f64) &&
           a.colour == b.colour;
}

namespace rfl_game {
static bool operator==(const Player& a, const Player& b) {
    return a.name == b.name && a.target == b.target && a.pos == b.pos && a.waypoints[0] == b.waypoints[0] &&
           a.waypoints[1] == b.waypoints[1] && std::memcmp(a.grid, b.grid, sizeof(a.grid)) == 0 && a.tags == b.tags &&
           std::memcmp(a.c_array, b.c_array, sizeof(a.c_array)) == 0;
}
} // namespace rfl_game

namespace {

rfl_game::Player sample_player() {
    rfl_game::Player p;
    p.name = "Ada \"the\" Explorer\n\t\\ caf\xC3\xA9 \xF0\x9F\x9A\x80";
    p.target = ecs::Entity{42, 7};
    p.pos = {1.5f, -2.25f};
    p.waypoints = {RflPos{0.1f, 0.2f}, RflPos{-1e30f, 3.0e-38f}};
    int32_t v = -3;
    for (auto& row : p.grid)
        for (int32_t& c : row) c = v++;
    p.tags = {"", std::string(300, 'x') + "\x01\x1f"};
    p.c_array[0] = 0.1;
    p.c_array[1] = -1e308;
    p.c_array[2] = 5e-324;
    return p;
}

/// Runs from_json on a copy and checks it failed and left the copy equal to the original.
template <typename T>
ecs::JsonResult expect_rejected(const T& original, std::string_view text) {
    T copy = original;
    ecs::JsonResult r = ecs::from_json(copy, text);
    CHECK_FALSE(r);
    CHECK_FALSE(r.ok);
    CHECK_FALSE(r.error.empty());
    CHECK(r.offset <= text.size());
    CHECK(copy == original);
    return r;
}

bool contains(const std::string& haystack, const char* needle) { return haystack.find(needle) != std::string::npos; }

} // namespace

// ---------------------------------------------------------------------------------------------------
// Reflection
// ---------------------------------------------------------------------------------------------------

TEST_CASE("reflect: POD field names, offsets, sizes and kinds", "[reflect]") {
    const ecs::FieldView f = ecs::fields<RflPos>();
    REQUIRE(f.size() == 2);
    CHECK(f[0].name == "x");
    CHECK(f[0].offset == offsetof(RflPos, x));
    CHECK(f[0].size == sizeof(float));
    CHECK(f[0].kind == ecs::FieldKind::float32);
    CHECK(f[0].element_kind == ecs::FieldKind::float32);
    CHECK(f[0].element_count == 1);
    CHECK(f[0].element_size == sizeof(float));
    CHECK(f[0].element == nullptr);
    CHECK(f[0].nested().empty());
    CHECK(f[1].name == "y");
    CHECK(f[1].offset == offsetof(RflPos, y));

    std::vector<std::string> names;
    for (const ecs::FieldInfo& field : ecs::fields<RflPos>()) names.emplace_back(field.name);
    CHECK(names == std::vector<std::string>{"x", "y"});
    CHECK(f.find("y") == &f[1]);
    CHECK(f.find("z") == nullptr);
    CHECK(ecs::fields<const RflPos&>() == f);
}

TEST_CASE("reflect: bool, every integer width, floats and enums", "[reflect]") {
    using K = ecs::FieldKind;
    const ecs::FieldView f = ecs::fields<RflScalars>();
    REQUIRE(f.size() == 12);
    const K kinds[] = {K::boolean, K::int8,  K::int16,   K::int32,   K::int64, K::uint8,
                       K::uint16,  K::uint32, K::uint64, K::float32, K::float64, K::uint16};
    const size_t sizes[] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 2};
    const char* names[] = {"flag", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64", "colour"};
    const size_t offsets[] = {offsetof(RflScalars, flag), offsetof(RflScalars, i8),     offsetof(RflScalars, i16),
                              offsetof(RflScalars, i32),  offsetof(RflScalars, i64),    offsetof(RflScalars, u8),
                              offsetof(RflScalars, u16),  offsetof(RflScalars, u32),    offsetof(RflScalars, u64),
                              offsetof(RflScalars, f32),  offsetof(RflScalars, f64),    offsetof(RflScalars, colour)};
    for (size_t i = 0; i < f.size(); ++i) {
        INFO("field " << i);
        CHECK(f[i].name == names[i]);
        CHECK(f[i].kind == kinds[i]);
        CHECK(f[i].size == sizes[i]);
        CHECK(f[i].offset == offsets[i]);
    }
    CHECK(ecs::field_kind_name(K::boolean) == "bool");
    CHECK(ecs::field_kind_name(K::uint64) == "uint64");
    CHECK(ecs::field_kind_name(K::float64) == "float64");
}

TEST_CASE("reflect: std::string, Entity, nested types, std::array and C arrays", "[reflect]") {
    using K = ecs::FieldKind;
    const ecs::FieldView f = ecs::fields<rfl_game::Player>();
    REQUIRE(f.size() == 7);

    CHECK(f[0].name == "name");
    CHECK(f[0].kind == K::string);
    CHECK(f[0].size == sizeof(std::string));
    CHECK(f[1].name == "target");
    CHECK(f[1].kind == K::entity);
    CHECK(f[1].offset == offsetof(rfl_game::Player, target));

    CHECK(f[2].name == "pos");
    CHECK(f[2].kind == K::nested);
    CHECK(f[2].nested() == ecs::fields<RflPos>());

    const ecs::FieldInfo& waypoints = f[3];
    CHECK(waypoints.kind == K::array);
    CHECK(waypoints.element_kind == K::nested);
    CHECK(waypoints.element_count == 2);
    CHECK(waypoints.element_size == sizeof(RflPos));
    CHECK(waypoints.size == sizeof(std::array<RflPos, 2>));
    REQUIRE(waypoints.element != nullptr);
    CHECK(waypoints.element->kind == K::nested);
    CHECK(waypoints.element->nested() == ecs::fields<RflPos>());
    CHECK(waypoints.nested() == ecs::fields<RflPos>());

    const ecs::FieldInfo& grid = f[4]; // int32_t[2][3]
    CHECK(grid.kind == K::array);
    CHECK(grid.element_kind == K::array);
    CHECK(grid.element_count == 2);
    CHECK(grid.element_size == 3 * sizeof(int32_t));
    REQUIRE(grid.element != nullptr);
    CHECK(grid.element->element_kind == K::int32);
    CHECK(grid.element->element_count == 3);
    CHECK(grid.element->element->kind == K::int32);
    CHECK(grid.element->element->element == nullptr);
    CHECK(grid.nested().empty());

    CHECK(f[5].element_kind == K::string);
    CHECK(f[5].element_count == 2);
    CHECK(f[6].name == "c_array");
    CHECK(f[6].element_kind == K::float64);
    CHECK(f[6].element_count == 3);
    CHECK(f[6].offset == offsetof(rfl_game::Player, c_array));

    // Declared inside its namespace, and a type from an unnamed namespace holding it.
    REQUIRE(ecs::fields<rfl_game::Inner>().size() == 1);
    CHECK(ecs::fields<rfl_game::Inner>()[0].kind == K::uint8);
    REQUIRE(ecs::fields<AnonHolder>().size() == 2);
    CHECK(ecs::fields<AnonHolder>()[0].nested() == ecs::fields<rfl_game::Inner>());
}

TEST_CASE("reflect: fields(component_id<T>()) equals fields<T>()", "[reflect]") {
    CHECK(ecs::fields(ecs::component_id<RflPos>()) == ecs::fields<RflPos>());
    CHECK(ecs::fields(ecs::component_id<RflScalars>()) == ecs::fields<RflScalars>());
    CHECK(ecs::fields(ecs::component_id<rfl_game::Player>()) == ecs::fields<rfl_game::Player>());
    CHECK(ecs::fields(ecs::component_id<rfl_game::Inner>()) == ecs::fields<rfl_game::Inner>());
    CHECK(ecs::fields(ecs::component_id<AnonHolder>()).data() == ecs::fields<AnonHolder>().data());
    CHECK(ecs::fields(ecs::component_id<Wide>()).size() == 32);
    CHECK(ecs::reflected(ecs::component_id<RflPos>()));
    CHECK(ecs::reflected(ecs::component_id<RflTag>()));
    CHECK_FALSE(ecs::reflected(ecs::component_id<NotReflected>()));
    CHECK_FALSE(ecs::reflected(ecs::INVALID_COMPONENT_ID));
    CHECK(ecs::fields(ecs::INVALID_COMPONENT_ID).empty());

    // The table is read from several threads at once.
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 1000; ++i)
                if (ecs::fields(ecs::component_id<RflPos>()) != ecs::fields<RflPos>()) ++wrong;
        });
    for (std::thread& th : threads) th.join();
    CHECK(wrong == 0);
}

TEST_CASE("reflect: a type without ECS_REFLECT has an empty view; ECS_REFLECT(T) gives none", "[reflect]") {
    static_assert(!ecs::is_reflected_v<NotReflected>);
    static_assert(!ecs::reflected<NotReflected>());
    static_assert(!ecs::is_reflected_v<int>);
    static_assert(ecs::is_reflected_v<RflPos>);
    static_assert(ecs::is_reflected_v<const rfl_game::Player&>);
    static_assert(ecs::reflected<RflTag>());
    CHECK(ecs::fields<NotReflected>().empty());
    CHECK(ecs::fields<NotReflected>().size() == 0);
    CHECK(ecs::fields<NotReflected>().begin() == ecs::fields<NotReflected>().end());
    CHECK(ecs::fields(ecs::component_id<NotReflected>()).empty());
    CHECK(ecs::fields<RflTag>().empty());
    CHECK(ecs::to_json(RflTag{}) == "{}");
    RflTag tag;
    CHECK(ecs::from_json(tag, " { } "));
    CHECK_FALSE(ecs::from_json(tag, R"({"a":1})"));
}

TEST_CASE("reflect: 32 fields", "[reflect]") {
    const ecs::FieldView f = ecs::fields<Wide>();
    REQUIRE(f.size() == 32);
    CHECK(f[0].name == "f0");
    CHECK(f[31].name == "f31");
    CHECK(f[31].offset == offsetof(Wide, f31));
    Wide w;
    w.f31 = 31;
    w.f16 = -16;
    Wide back;
    REQUIRE(ecs::from_json(back, ecs::to_json(w)));
    CHECK(back.f31 == 31);
    CHECK(back.f16 == -16);
}

// ---------------------------------------------------------------------------------------------------
// JSON: writing and round trips
// ---------------------------------------------------------------------------------------------------

TEST_CASE("reflect: to_json writes compact JSON in declaration order", "[reflect][json]") {
    CHECK(ecs::to_json(RflPos{1.5f, -2.0f}) == R"({"x":1.5,"y":-2})");
    rfl_game::Inner inner;
    inner.level = 200;
    CHECK(ecs::to_json(inner) == R"({"level":200})");
    AnonHolder h;
    h.inner.level = 3;
    h.value = -7;
    CHECK(ecs::to_json(h) == R"({"inner":{"level":3},"value":-7})");
    rfl_game::Player p;
    p.target = ecs::Entity{5, 9};
    CHECK(ecs::to_json(p) == R"({"name":"","target":{"index":5,"generation":9},"pos":{"x":0,"y":0},)"
                             R"("waypoints":[{"x":0,"y":0},{"x":0,"y":0}],"grid":[[0,0,0],[0,0,0]],)"
                             R"("tags":["",""],"c_array":[0,0,0]})");
    Text t;
    t.s = std::string("q\"b\\s/\b\f\n\r\t\x01\x7f") + "\xC3\xA9";
    CHECK(ecs::to_json(t) == "{\"s\":\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\x7f\xC3\xA9\"}");
}

TEST_CASE("reflect: JSON round trip of every kind", "[reflect][json]") {
    const rfl_game::Player p = sample_player();
    rfl_game::Player back;
    const std::string text = ecs::to_json(p);
    const ecs::JsonResult r = ecs::from_json(back, text);
    INFO(text << "\n" << r.error);
    REQUIRE(r);
    CHECK(r.error.empty());
    CHECK(back == p);
    CHECK(ecs::to_json(back) == text);

    RflScalars s;
    s.flag = true;
    s.i8 = -128;
    s.i16 = -32768;
    s.i32 = std::numeric_limits<int32_t>::min();
    s.i64 = std::numeric_limits<int64_t>::min();
    s.u8 = 255;
    s.u16 = 65535;
    s.u32 = 4294967295u;
    s.u64 = std::numeric_limits<uint64_t>::max();
    s.f32 = -std::numeric_limits<float>::max();
    s.f64 = std::numeric_limits<double>::denorm_min();
    s.colour = RflColour::green;
    RflScalars s2;
    REQUIRE(ecs::from_json(s2, ecs::to_json(s)));
    CHECK(s2 == s);
    CHECK(contains(ecs::to_json(s), R"("i64":-9223372036854775808)"));
    CHECK(contains(ecs::to_json(s), R"("u64":18446744073709551615)"));
    CHECK(contains(ecs::to_json(s), R"("colour":2)"));

    s.i8 = 127;
    s.i64 = std::numeric_limits<int64_t>::max();
    s.u64 = 0;
    s.flag = false;
    REQUIRE(ecs::from_json(s2, ecs::to_json(s)));
    CHECK(s2 == s);
}

TEST_CASE("reflect: floats and doubles round-trip bit-exactly", "[reflect][json][scale]") {
    std::mt19937_64 rng(20261121);
    RflScalars s, back;
    int checked = 0;
    for (int i = 0; i < 20000; ++i) {
        const uint64_t bits = rng();
        const auto bits32 = static_cast<uint32_t>(bits >> 32);
        std::memcpy(&s.f64, &bits, sizeof(double));
        std::memcpy(&s.f32, &bits32, sizeof(float));
        if (std::isnan(s.f64) || std::isnan(s.f32)) continue;
        const std::string text = ecs::to_json(s);
        REQUIRE(ecs::from_json(back, text));
        if (!same_bits(back.f64, s.f64) || !same_bits(back.f32, s.f32)) {
            FAIL_CHECK(text);
            break;
        }
        ++checked;
    }
    CHECK(checked > 19000);
    for (const double d : {0.0, -0.0, 0.1, 1.0 / 3.0, 1e308, -4.9e-324, 2.2250738585072014e-308, 123456789.0}) {
        s.f64 = d;
        s.f32 = static_cast<float>(d);
        REQUIRE(ecs::from_json(back, ecs::to_json(s)));
        CHECK(same_bits(back.f64, s.f64));
        CHECK(same_bits(back.f32, s.f32));
    }
}

TEST_CASE("reflect: NaN is written null, infinities 1e999; null reads as NaN", "[reflect][json]") {
    RflScalars s;
    s.f32 = std::numeric_limits<float>::quiet_NaN();
    s.f64 = std::numeric_limits<double>::quiet_NaN();
    std::string text = ecs::to_json(s);
    CHECK(contains(text, R"("f32":null,"f64":null)"));
    RflScalars back;
    REQUIRE(ecs::from_json(back, text));
    CHECK(std::isnan(back.f32));
    CHECK(std::isnan(back.f64));

    s.f32 = std::numeric_limits<float>::infinity();
    s.f64 = -std::numeric_limits<double>::infinity();
    text = ecs::to_json(s);
    CHECK(contains(text, R"("f32":1e999,"f64":-1e999)"));
    REQUIRE(ecs::from_json(back, text));
    CHECK(back.f32 == std::numeric_limits<float>::infinity());
    CHECK(back.f64 == -std::numeric_limits<double>::infinity());

    // A literal beyond float's range reads as infinity; a tiny one rounds to zero or a subnormal.
    REQUIRE(ecs::from_json(back, R"({"f32":1e39,"f64":1e-400})"));
    CHECK(back.f32 == std::numeric_limits<float>::infinity());
    CHECK(back.f64 == 0.0);
}

TEST_CASE("reflect: strings with escapes, \\u escapes and UTF-8", "[reflect][json]") {
    Text t;
    SECTION("escapes decode") {
        REQUIRE(ecs::from_json(t, R"({"s":"a\"b\\c\/d\be\ff\ng\rh\ti"})"));
        CHECK(t.s == "a\"b\\c/d\be\ff\ng\rh\ti");
    }
    SECTION("\\u escapes become UTF-8, surrogate pairs included") {
        REQUIRE(ecs::from_json(t, R"({"s":"\u0041\u00e9\u20AC\ud83d\ude80\u0000z"})"));
        CHECK(t.s == std::string("A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x9A\x80") + std::string(1, '\0') + "z");
        // ...and are written back as raw UTF-8 (the NUL as \u0000), then read back the same.
        Text back;
        REQUIRE(ecs::from_json(back, ecs::to_json(t)));
        CHECK(back.s == t.s);
        CHECK(contains(ecs::to_json(t), "\\u0000z"));
    }
    SECTION("raw UTF-8 passes through") {
        const std::string utf8 = "\xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80 \xC3\xBC";
        REQUIRE(ecs::from_json(t, "{\"s\":\"" + utf8 + "\"}"));
        CHECK(t.s == utf8);
    }
    SECTION("short and long strings round-trip") {
        for (const size_t n : {size_t(0), size_t(1), size_t(15), size_t(16), size_t(100), size_t(100000)}) {
            Text a, b;
            for (size_t i = 0; i < n; ++i) a.s += static_cast<char>(i % 0x7F);
            b.s = "previous value";
            REQUIRE(ecs::from_json(b, ecs::to_json(a)));
            CHECK(b.s == a.s);
        }
    }
}

TEST_CASE("reflect: from_json keeps fields absent from the text; whitespace anywhere", "[reflect][json]") {
    rfl_game::Player p = sample_player();
    const rfl_game::Player before = p;
    REQUIRE(ecs::from_json(p, " \n{ \"pos\" : { \"y\" : 8 } ,\t\"tags\":[ \"a\" , \"b\" ] }\r\n "));
    CHECK(p.pos.x == before.pos.x);
    CHECK(p.pos.y == 8.0f);
    CHECK(p.tags == std::array<std::string, 2>{"a", "b"});
    CHECK(p.name == before.name);
    CHECK(p.target == before.target);
    REQUIRE(ecs::from_json(p, "{}"));
    CHECK(p.tags == std::array<std::string, 2>{"a", "b"});
    // Integer-valued literals are fine for floating fields, exponents too.
    RflScalars s;
    REQUIRE(ecs::from_json(s, R"({"f32":-3,"f64":2.5E+2,"i32":-0})"));
    CHECK(s.f32 == -3.0f);
    CHECK(s.f64 == 250.0);
    CHECK(s.i32 == 0);
}

TEST_CASE("reflect: from_json errors leave the object unchanged", "[reflect][json]") {
    const rfl_game::Player p = sample_player();
    RflScalars s;
    s.i32 = 17;
    s.f64 = 0.5;

    SECTION("unknown field, also after valid ones") {
        const ecs::JsonResult r = expect_rejected(p, R"({"name":"changed","pos":{"x":1,"z":2}})");
        CHECK(contains(r.error, "unknown field 'pos.z'"));
        CHECK(r.offset == std::string_view(R"({"name":"changed","pos":{"x":1,)").size());
        CHECK(contains(expect_rejected(s, R"({"nope":1})").error, "unknown field 'nope'"));
    }
    SECTION("duplicate field") {
        CHECK(contains(expect_rejected(s, R"({"i32":1,"i32":2})").error, "duplicate field 'i32'"));
    }
    SECTION("wrong type") {
        CHECK(contains(expect_rejected(s, R"({"i32":"1"})").error, "field 'i32': expected an integer, got a string"));
        CHECK(contains(expect_rejected(s, R"({"flag":1})").error, "field 'flag'"));
        CHECK(contains(expect_rejected(s, R"({"f64":true})").error, "expected a number"));
        expect_rejected(s, R"({"i32":null})");
        expect_rejected(s, R"({"i32":1.0})");
        expect_rejected(s, R"({"i32":1e2})");
        CHECK(contains(expect_rejected(p, R"({"name":"ok","pos":[1,2]})").error, "field 'pos': expected an object"));
        expect_rejected(p, R"({"name":5})");
        expect_rejected(p, R"({"target":7})");
        expect_rejected(p, R"({"target":{"index":1}})");
        expect_rejected(p, R"({"target":{"index":1,"generation":2,"x":3}})");
        expect_rejected(p, R"({"target":{"index":-1,"generation":2}})");
        CHECK(contains(expect_rejected(p, R"({"waypoints":[{"x":1},{"y":"no"}]})").error, "field 'waypoints[1].y'"));
        CHECK(contains(expect_rejected(s, "[]").error, "top level: expected an object"));
        expect_rejected(s, "3");
    }
    SECTION("array of the wrong length") {
        CHECK(contains(expect_rejected(p, R"({"c_array":[1,2]})").error, "expected 3 elements, got 2"));
        CHECK(contains(expect_rejected(p, R"({"c_array":[1,2,3,4]})").error, "got more"));
        CHECK(contains(expect_rejected(p, R"({"grid":[[1,2,3],[4,5]]})").error, "field 'grid[1]'"));
        expect_rejected(p, R"({"c_array":[]})");
    }
    SECTION("integers out of range") {
        struct Case {
            const char* text;
            const char* message;
        };
        const Case cases[] = {
            {R"({"i8":128})", "128 is out of range for int8"},
            {R"({"i8":-129})", "out of range for int8"},
            {R"({"u8":256})", "out of range for uint8"},
            {R"({"u8":-1})", "out of range for uint8"},
            {R"({"i16":32768})", "out of range for int16"},
            {R"({"u16":65536})", "out of range for uint16"},
            {R"({"i32":2147483648})", "out of range for int32"},
            {R"({"i32":-2147483649})", "out of range for int32"},
            {R"({"u32":4294967296})", "out of range for uint32"},
            {R"({"i64":9223372036854775808})", "out of range for int64"},
            {R"({"i64":-9223372036854775809})", "out of range for int64"},
            {R"({"u64":18446744073709551616})", "out of range for uint64"},
            {R"({"u64":-1})", "out of range for uint64"},
            {R"({"u64":123456789012345678901234567890})", "out of range for uint64"},
            {R"({"colour":70000})", "out of range for uint16"},
        };
        for (const Case& c : cases) {
            INFO(c.text);
            CHECK(contains(expect_rejected(s, c.text).error, c.message));
        }
        RflScalars ok;
        REQUIRE(ecs::from_json(ok, R"({"i8":-128,"u8":255,"i64":-9223372036854775808,"u64":18446744073709551615})"));
        CHECK(ok.i8 == -128);
        CHECK(ok.u8 == 255);
        CHECK(ok.i64 == std::numeric_limits<int64_t>::min());
        CHECK(ok.u64 == std::numeric_limits<uint64_t>::max());
    }
    SECTION("truncated text") {
        const std::string full = ecs::to_json(p);
        for (size_t n = 0; n < full.size(); ++n) {
            INFO(full.substr(0, n));
            const ecs::JsonResult r = expect_rejected(p, std::string_view(full).substr(0, n));
            CHECK(r.offset <= n);
        }
        CHECK(contains(expect_rejected(s, "").error, "unexpected end of text"));
        CHECK(contains(expect_rejected(s, R"({"i32":1)").error, "unexpected end of text"));
    }
    SECTION("trailing garbage") {
        const ecs::JsonResult r = expect_rejected(s, R"({"i32":1} x)");
        CHECK(contains(r.error, "unexpected text after the JSON value"));
        CHECK(r.offset == 10);
        expect_rejected(s, R"({"i32":1}{})");
        expect_rejected(s, R"({"i32":1},)");
    }
    SECTION("nesting deeper than 64 levels") {
        // 64 levels pass the syntax check (and then fail on the fields); 65 are refused up front.
        const auto nested = [](int levels) {
            return "{\"i32\":" + std::string(static_cast<size_t>(levels - 1), '[') + "1" +
                   std::string(static_cast<size_t>(levels - 1), ']') + "}";
        };
        CHECK(contains(expect_rejected(s, nested(64)).error, "expected an integer, got an array"));
        const ecs::JsonResult r = expect_rejected(s, nested(65));
        CHECK(contains(r.error, "nesting deeper than 64 levels"));
        CHECK(r.offset == 7 + 63);
        expect_rejected(s, std::string(100000, '['));
        Deep d;
        REQUIRE(ecs::from_json(d, R"({"a":[[5]]})"));
        CHECK(d.a[0][0] == 5);
    }
    SECTION("malformed syntax") {
        const char* bad[] = {
            R"({"i32":01})",     R"({"i32":-})",       R"({"i32":+1})",     R"({"f64":.5})",
            R"({"f64":1.})",     R"({"f64":1e})",      R"({"f64":NaN})",    R"({"f64":Infinity})",
            R"({"i32":1,})",     R"({,"i32":1})",      R"({i32:1})",        R"({'i32':1})",
            R"({"i32" 1})",      R"({"flag":tru})",    R"({"flag":True})",  R"({"i32":1 "u8":2})",
            R"(/*c*/{})",
        };
        for (const char* text : bad) {
            INFO(text);
            expect_rejected(s, text);
        }
        expect_rejected(s, std::string_view("{\"i32\":1}\0", 10));
    }
    SECTION("bad strings") {
        Text t;
        t.s = "keep";
        const char* bad[] = {
            "{\"s\":\"a\nb\"}",           // raw control character
            R"({"s":"\x"})",               // unknown escape
            R"({"s":"\u12"})",             // short \u
            R"({"s":"\u12G4"})",           // not hex
            R"({"s":"\ud83d"})",           // lone high surrogate
            R"({"s":"\ud83dx"})",          // high surrogate, then no escape
            R"({"s":"\ud83d\u0041"})",     // high surrogate, then not a low one
            R"({"s":"\ude80"})",           // lone low surrogate
            "{\"s\":\"\xC3\"}",            // truncated UTF-8
            "{\"s\":\"\xC0\xAF\"}",        // overlong
            "{\"s\":\"\xED\xA0\x80\"}",    // UTF-8 surrogate
            "{\"s\":\"\xF4\x90\x80\x80\"}", // above U+10FFFF
            "{\"s\":\"\xFF\"}",            // never valid
            "{\"s\":\"abc",                // unterminated
        };
        for (const char* text : bad) {
            INFO(text);
            expect_rejected(t, text);
        }
    }
}

TEST_CASE("reflect: untyped to_json/from_json over a FieldView and a pointer", "[reflect][json]") {
    rfl_game::Player p = sample_player();
    const ecs::ComponentTypeID id = ecs::component_id<rfl_game::Player>();
    const std::string text = ecs::to_json(ecs::fields(id), &p);
    CHECK(text == ecs::to_json(p));

    rfl_game::Player q;
    void* raw = &q;
    REQUIRE(ecs::from_json(ecs::fields(id), raw, text));
    CHECK(q == p);

    const rfl_game::Player before = q;
    const ecs::JsonResult r = ecs::from_json(ecs::fields(id), raw, R"({"name":"x","oops":1})");
    CHECK_FALSE(r);
    CHECK(contains(r.error, "unknown field 'oops'"));
    CHECK(r.offset == 12);
    CHECK(q == before);

    // An empty view (a type that is not reflected) accepts only an empty object.
    NotReflected n;
    CHECK(ecs::to_json(ecs::fields<NotReflected>(), &n) == "{}");
    CHECK(ecs::from_json(ecs::fields<NotReflected>(), &n, "{}"));
    CHECK_FALSE(ecs::from_json(ecs::fields<NotReflected>(), &n, R"({"a":1})"));
}

TEST_CASE("reflect: entity-level JSON over a list of components is all or nothing", "[reflect][json]") {
    // What to_json(world, e) / from_json(world, e, text) do once World::each_component has listed
    // the entity's reflected components.
    RflPos pos{1, 2};
    rfl_game::Inner inner;
    inner.level = 9;
    const ecs::detail::JsonComponentRef components[] = {
        {"Position", ecs::fields<RflPos>(), &pos},
        {"rfl_game::Inner", ecs::fields<rfl_game::Inner>(), &inner},
    };
    const std::string text = ecs::detail::json_write_components(components, 2);
    CHECK(text == R"({"Position":{"x":1,"y":2},"rfl_game::Inner":{"level":9}})");

    CHECK(ecs::detail::json_read_components(components, 2, R"({"rfl_game::Inner":{"level":4},"Position":{"y":-1}})"));
    CHECK(inner.level == 4);
    CHECK(pos.x == 1.0f);
    CHECK(pos.y == -1.0f);

    ecs::JsonResult r = ecs::detail::json_read_components(components, 2, R"({"Position":{"x":5},"Velocity":{}})");
    CHECK_FALSE(r);
    CHECK(contains(r.error, "no reflected component named 'Velocity'"));
    r = ecs::detail::json_read_components(components, 2, R"({"Position":{"x":5},"rfl_game::Inner":{"level":300}})");
    CHECK(contains(r.error, "field 'rfl_game::Inner.level': 300 is out of range for uint8"));
    r = ecs::detail::json_read_components(components, 2, R"({"Position":{"x":5},"Position":{"x":6}})");
    CHECK(contains(r.error, "component 'Position' appears twice"));
    CHECK(pos.x == 1.0f);
    CHECK(inner.level == 4);
    CHECK(ecs::detail::json_write_components(components, 0) == "{}");
}

TEST_CASE("reflect: numbers do not depend on the C locale's decimal point", "[reflect][json]") {
    // The replacement both ways, with a one-byte and a two-byte decimal point.
    std::string out;
    ecs::detail::json_append_replacing(out, "-1,5e+20", ",", ".");
    CHECK(out == "-1.5e+20");
    out.clear();
    ecs::detail::json_append_replacing(out, "0.25", ".", "\xD9\xAB");
    CHECK(out == "0\xD9\xAB" "25");
    out.clear();
    ecs::detail::json_append_replacing(out, "125", ",", ".");
    CHECK(out == "125");

    // With a real locale that uses ',' when the system has one.
    const char* previous = std::setlocale(LC_NUMERIC, nullptr);
    const std::string saved = previous != nullptr ? previous : "C";
    bool switched = false;
    for (const char* name : {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "de_DE", "fr_FR"}) {
        if (std::setlocale(LC_NUMERIC, name) != nullptr) {
            switched = true;
            break;
        }
    }
    if (switched) {
        RflScalars s, back;
        s.f32 = 1.25f;
        s.f64 = -0.5;
        const std::string text = ecs::to_json(s);
        const bool ok = static_cast<bool>(ecs::from_json(back, text));
        std::setlocale(LC_NUMERIC, saved.c_str());
        CHECK(contains(text, R"("f32":1.25,"f64":-0.5)"));
        CHECK(ok);
        CHECK(back.f64 == -0.5);
    } else {
        WARN("no locale with a ',' decimal point installed: only the replacement itself was tested");
    }
}

namespace {
struct NotReflectedThing {
    int v = 0;
};
} // namespace

TEST_CASE("reflect: entity JSON round trip through the world", "[reflect][json]") {
    ecs::World w;
    const ecs::Entity e = w.create_with(RflPos{1, 2}, rfl_game::Inner{}, NotReflectedThing{});
    const std::string text = ecs::to_json(w, e); // NotReflectedThing is left out
    CHECK(text.find("\"RflPos\"") != std::string::npos);
    CHECK(text.find("\"x\":1") != std::string::npos);
    CHECK(text.find("NotReflectedThing") == std::string::npos);
    w.get<RflPos>(e).x = 5;
    REQUIRE(ecs::from_json(w, e, text));
    CHECK(w.get<RflPos>(e).x == 1.0f);
    const RflPos before = w.get<RflPos>(e);
    CHECK_FALSE(ecs::from_json(w, e, R"({"NoSuchComponent":{}})"));
    CHECK_FALSE(ecs::from_json(w, e, R"({"RflPos":{"x":9,"zz":1}})")); // an unknown field: all or nothing
    CHECK(w.get<RflPos>(e).x == before.x);
    const ecs::World& cw = w;
    CHECK(ecs::to_json(cw, e) == text);
    w.destroy(e);
    CHECK(ecs::to_json(w, e) == "null");
    CHECK_FALSE(ecs::from_json(w, e, "{}"));
}
