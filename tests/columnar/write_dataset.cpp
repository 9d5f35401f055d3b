// Writes a small dataset with every field type (two runs of one world, with a move and a destroy)
// under <folder>/history, and <folder>/expected.json: every row the dataset must hold, built from the
// world's own typed values (w.get<T>), not from the recorder's buffers. check_dataset.mjs reads the
// dataset with DuckDB and hyparquet and compares. Usage: ecs_columnar_dataset <folder>
//
// expected.json: [{"entity_id":"...","tick":"...","run_id":"...","world_id":"...","is_active":"true",
// "values":{"<column>":"<text>"}}...]: integers as decimal text (int64 safe), floats as %.17g text
// ("nan", "-0", ...), bools "true"/"false", strings as they are. Columns not listed must read null.

#include <ecs/parquet.hpp>
#include <ecs/world.hpp>

#include <array>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

struct DsVec2 {
    float x = 0, y = 0;
};
ECS_REFLECT(DsVec2, x, y)

struct DsAll {
    bool b = false;
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
    std::string s;
    ecs::Entity e;
};
ECS_REFLECT(DsAll, b, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, s, e)

struct DsShape {
    DsVec2 pos;
    uint8_t rgb[3] = {0, 0, 0};
    std::array<int16_t, 2> pair{};
};
ECS_REFLECT(DsShape, pos, rgb, pair)

namespace game {
struct Player {
    std::string name;
    int32_t hp = 0;
};
ECS_REFLECT(Player, name, hp)
} // namespace game

struct DsTag {};

namespace {

std::string json_string(const std::string& s) {
    std::string out;
    ecs::detail::json_write_string(out, s);
    return out;
}

struct Row {
    std::string text = "{";
    bool first = true;
    void put(const char* column, const std::string& value) {
        text += first ? "" : ",";
        first = false;
        text += json_string(column) + ":" + json_string(value);
    }
};

std::string int_text(int64_t v) { return std::to_string(v); }
std::string uint_text(uint64_t v) { return std::to_string(v); }
std::string float_text(double v) {
    if (v != v) return "nan";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}
std::string entity_text(ecs::Entity e) { return int_text(static_cast<int64_t>((uint64_t(e.generation) << 32) | e.index)); }

void put_all(Row& r, const DsAll& a) {
    r.put("dsall__b", a.b ? "true" : "false");
    r.put("dsall__i8", int_text(a.i8));
    r.put("dsall__i16", int_text(a.i16));
    r.put("dsall__i32", int_text(a.i32));
    r.put("dsall__i64", int_text(a.i64));
    r.put("dsall__u8", uint_text(a.u8));
    r.put("dsall__u16", uint_text(a.u16));
    r.put("dsall__u32", uint_text(a.u32));
    r.put("dsall__u64", uint_text(a.u64));
    r.put("dsall__f32", float_text(static_cast<double>(a.f32)));
    r.put("dsall__f64", float_text(a.f64));
    r.put("dsall__s", a.s);
    r.put("dsall__e", entity_text(a.e));
}
void put_shape(Row& r, const DsShape& s) {
    r.put("dsshape__pos__x", float_text(static_cast<double>(s.pos.x)));
    r.put("dsshape__pos__y", float_text(static_cast<double>(s.pos.y)));
    r.put("dsshape__rgb__0", uint_text(s.rgb[0]));
    r.put("dsshape__rgb__1", uint_text(s.rgb[1]));
    r.put("dsshape__rgb__2", uint_text(s.rgb[2]));
    r.put("dsshape__pair__0", int_text(s.pair[0]));
    r.put("dsshape__pair__1", int_text(s.pair[1]));
}
void put_player(Row& r, const game::Player& p) {
    r.put("game__player__name", p.name);
    r.put("game__player__hp", int_text(p.hp));
}

/// One expected row: the stamp and, when active, the entity's values.
std::string expected_row(ecs::World& w, ecs::Entity e, const std::string& run, int64_t tick, bool active) {
    std::string out = "{\"world_id\":\"w1\",\"run_id\":" + json_string(run) + ",\"entity_id\":" +
                      json_string(entity_text(e)) + ",\"tick\":" + json_string(int_text(tick)) +
                      ",\"is_active\":" + json_string(active ? "true" : "false") + ",\"values\":";
    Row r;
    if (active) {
        if (const DsAll* a = w.try_get<DsAll>(e)) put_all(r, *a);
        if (const DsShape* s = w.try_get<DsShape>(e)) put_shape(r, *s);
        if (const game::Player* p = w.try_get<game::Player>(e)) put_player(r, *p);
    }
    return out + r.text + "}}";
}

/// One run: three entities, values changing each tick, a move at tick 1 and a destroy at tick 2.
void run(const std::filesystem::path& root, const std::string& run_id, int seed, std::vector<std::string>& expected,
         const char* history = "history", ecs::Compression compression = ecs::Compression::none,
         bool by_tick = false) {
    ecs::World w;
    ecs::RecorderOptions o;
    o.root = (root / history).string();
    o.compression = compression;
    o.partition_by_tick = by_tick;
    o.world_id = "w1";
    o.run_id = run_id;
    o.ticks_per_file = 2; // two files per table and run: several files for the readers to union
    ecs::Recorder rec(w, o);
    DsAll extreme;
    extreme.b = true;
    extreme.i8 = std::numeric_limits<int8_t>::min();
    extreme.i16 = std::numeric_limits<int16_t>::min();
    extreme.i32 = std::numeric_limits<int32_t>::min();
    extreme.i64 = std::numeric_limits<int64_t>::min();
    extreme.u8 = std::numeric_limits<uint8_t>::max();
    extreme.u16 = std::numeric_limits<uint16_t>::max();
    extreme.u32 = std::numeric_limits<uint32_t>::max();
    extreme.u64 = std::numeric_limits<uint64_t>::max();
    extreme.f32 = -0.0f;
    extreme.f64 = std::numeric_limits<double>::quiet_NaN();
    extreme.s = "h\xC3\xA9llo \"w\xC3\xB6rld\", \xF0\x9F\x99\x82";
    const ecs::Entity a = w.create_with(extreme, game::Player{"ann", 10 + seed}, DsTag{});
    DsAll big;
    big.i8 = 127;
    big.i16 = 32767;
    big.i32 = std::numeric_limits<int32_t>::max();
    big.i64 = std::numeric_limits<int64_t>::max();
    big.u64 = uint64_t(1) << 63;
    big.f32 = 3.4e38f;
    big.f64 = 1e-300;
    big.s = "";
    big.e = a;
    const ecs::Entity b = w.create_with(big);
    DsShape shape;
    shape.pos = {1.5f, -2.25f};
    shape.rgb[0] = 1;
    shape.rgb[1] = 128;
    shape.rgb[2] = 255;
    shape.pair = {-1, 1};
    const ecs::Entity c = w.create_with(shape, game::Player{"cy", seed});
    for (int64_t tick = 0; tick < 4; ++tick) {
        if (tick == 1) {
            w.add(b, shape); // b moves from {DsAll} to {DsAll, DsShape}
            expected.push_back(expected_row(w, b, run_id, tick, false));
        }
        if (tick == 2) {
            expected.push_back(expected_row(w, c, run_id, tick, false));
            w.destroy(c);
        }
        w.get<game::Player>(a).hp += 1;
        w.get<DsAll>(b).i32 -= seed;
        w.get<DsAll>(b).s += "x";
        rec.record(tick);
        for (const ecs::Entity e : {a, b, c})
            if (w.alive(e)) expected.push_back(expected_row(w, e, run_id, tick, true));
    }
    rec.flush();
    if (!rec.stats().error.empty()) std::fprintf(stderr, "recorder: %s\n", rec.stats().error.c_str());
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: ecs_columnar_dataset <folder>\n");
        return 2;
    }
    const std::filesystem::path root = argv[1];
    std::error_code ec;
    std::filesystem::remove_all(root / "history", ec);
    std::filesystem::remove_all(root / "history_zstd", ec);
    std::filesystem::remove_all(root / "history_by_tick", ec);
    std::filesystem::create_directories(root, ec);
    std::vector<std::string> expected;
    run(root, "r1", 1, expected);
    run(root, "r2", 2, expected);
    // Run r1 again with one file per tick under tick=<t>/: check_dataset.mjs reads it with DuckDB.
    std::vector<std::string> by_tick;
    run(root, "r1", 1, by_tick, "history_by_tick", ecs::Compression::none, true);
#ifdef ECS_PARQUET_ZSTD
    // Run r1 again, zstd-compressed, into its own root: check_dataset.mjs reads it with DuckDB (hyparquet
    // needs an extra package for zstd) and expects the rows of r1.
    std::filesystem::remove_all(root / "history_zstd", ec);
    std::vector<std::string> again;
    run(root, "r1", 1, again, "history_zstd", ecs::Compression::zstd);
#endif
    std::FILE* f = std::fopen((root / "expected.json").c_str(), "wb");
    if (f == nullptr) return 1;
    std::fputs("[\n", f);
    for (size_t i = 0; i < expected.size(); ++i) std::fprintf(f, "%s%s\n", expected[i].c_str(), i + 1 < expected.size() ? "," : "");
    std::fputs("]\n", f);
    std::fclose(f);
    std::printf("%zu expected rows\n", expected.size());
    return 0;
}
