// Tests for ecs/columnar.hpp (table schemas, Arrow export) and ecs/parquet.hpp (the Recorder). Files
// are read back with tests/columnar/parquet_reader.hpp, a reader written independently of the writer;
// the external readers (DuckDB, hyparquet) are checked by tests/columnar/check_dataset.mjs.

#include <ecs/columnar.hpp>
#include <ecs/parquet.hpp>
#include <ecs/world.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <csignal>
#include <sys/resource.h>
#endif

#include "../catch.hpp"
#include "../counting.hpp"
#include "parquet_reader.hpp"

namespace fs = std::filesystem;

struct ColPos {
    float x = 0, y = 0;
};
ECS_REFLECT(ColPos, x, y)

struct ColVel {
    float x = 0, y = 0;
};
ECS_REFLECT(ColVel, x, y)

struct ColVec2 {
    double x = 0, y = 0;
};
ECS_REFLECT(ColVec2, x, y)

struct ColBody {
    ColVec2 pos;
    std::array<uint8_t, 3> rgb{};
    int16_t pair[2] = {0, 0};
};
ECS_REFLECT(ColBody, pos, rgb, pair)

namespace game {
struct Player {
    std::string name;
    int32_t hp = 0;
};
ECS_REFLECT(Player, name, hp)
} // namespace game

struct ColAll {
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
ECS_REFLECT(ColAll, b, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, s, e)

struct ColFrozen {}; // a tag: counted in n, no columns

struct ColOpaque { // not reflected: no columns, counted in skipped_components
    int v = 0;
};

namespace {

/// A fresh, empty folder for one test.
fs::path scratch(const std::string& name) {
    const fs::path p = fs::temp_directory_path() / "ecs_columnar_tests" / name;
    std::error_code ec;
    fs::remove_all(p, ec);
    fs::create_directories(p, ec);
    return p;
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// Every regular file under `root`, relative, sorted.
std::vector<std::string> files_under(const fs::path& root) {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file()) out.push_back(fs::relative(e.path(), root).generic_string());
    std::sort(out.begin(), out.end());
    return out;
}

/// The Parquet files under `root`, read and checked.
std::vector<std::pair<std::string, pqtest::File>> read_all(const fs::path& root) {
    std::vector<std::pair<std::string, pqtest::File>> out;
    for (const std::string& f : files_under(root)) {
        if (f.size() < 8 || f.compare(f.size() - 8, 8, ".parquet") != 0) continue;
        pqtest::File file = pqtest::read(slurp(root / f));
        INFO(f << ": " << file.error);
        REQUIRE(file.error.empty());
        out.emplace_back(f, std::move(file));
    }
    return out;
}

int column_of(const pqtest::File& f, const std::string& name) {
    for (size_t i = 0; i < f.leaves.size(); ++i)
        if (f.leaves[i].name == name) return static_cast<int>(i);
    return -1;
}

uint32_t archetype_of(ecs::World& w, ecs::Entity e) {
    // The archetype of `e`: the one whose table lists it (tests only; through export/schema ids).
    for (uint32_t id = 0; id < w.archetype_count(); ++id) {
        ArrowSchema s;
        ArrowArray a;
        if (!ecs::export_arrow(w, id, ecs::RowStamp{"w", "r", 0}, &s, &a)) continue;
        bool found = false;
        const auto* ids = static_cast<const int64_t*>(a.children[2]->buffers[1]);
        for (int64_t r = 0; r < a.length; ++r)
            if (ids[r] == static_cast<int64_t>((uint64_t(e.generation) << 32) | e.index)) found = true;
        a.release(&a);
        s.release(&s);
        if (found) return id;
    }
    return UINT32_MAX;
}

std::vector<std::string> column_names(const ecs::TableSchema& s) {
    std::vector<std::string> out;
    for (const ecs::ColumnInfo& c : s.columns) out.push_back(c.name);
    return out;
}

} // namespace

TEST_CASE("columnar: sha256 matches the FIPS 180-4 vectors", "[columnar]") {
    CHECK(ecs::detail::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(ecs::detail::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(ecs::detail::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    CHECK(ecs::detail::sha256_hex(std::string(1000000, 'a')) ==
          "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("columnar: column names flatten nested fields, arrays and namespaced names", "[columnar]") {
    ecs::World w;
    const ecs::Entity e = w.create_with(ColBody{}, game::Player{"ann", 3}, ColFrozen{});
    const ecs::TableSchema s = ecs::table_schema(w, archetype_of(w, e));
    REQUIRE(s);
    CHECK(column_names(s) == std::vector<std::string>{
                                 "world_id", "run_id", "entity_id", "tick", "is_active",
                                 "colbody__pos__x", "colbody__pos__y", "colbody__rgb__0", "colbody__rgb__1",
                                 "colbody__rgb__2", "colbody__pair__0", "colbody__pair__1",
                                 "game__player__name", "game__player__hp"});
    CHECK(s.components == std::vector<std::string>{"ColBody", "ColFrozen", "game::Player"});
    CHECK(s.columns[7].type == ecs::ColumnType::uint8);
    CHECK(s.columns[10].type == ecs::ColumnType::int16);
    CHECK(s.columns[12].type == ecs::ColumnType::string);
    CHECK(s.name.rfind("a_3c_s", 0) == 0);
    CHECK(s.error.empty());
    CHECK(ecs::column_name_part("a::B<c, 7>") == "a__b_c__7_");
    CHECK_FALSE(ecs::table_schema(w, 100000));
}

TEST_CASE("columnar: table names are the SHA-256 of the canonical text", "[columnar]") {
    ecs::World w;
    const ecs::Entity e = w.create_with(ColPos{}, ColVel{});
    const ecs::TableSchema s = ecs::table_schema(w, archetype_of(w, e));
    const std::string canonical =
        "ColPos,ColVel,world_id:string,run_id:string,entity_id:int64,tick:int64,is_active:bool,"
        "colpos__x:float32,colpos__y:float32,colvel__x:float32,colvel__y:float32";
    CHECK(s.canonical == canonical);
    // printf '%s' "$canonical" | sha256sum  ->  the first 16 hex digits below.
    CHECK(s.name == "a_2c_s5b8459a7711ed8a0");
    // Independent of component ids and of the world: the same in a second world made the other way round.
    ecs::World w2;
    w2.create_with(ColFrozen{});
    const ecs::Entity e2 = w2.create_with(ColVel{}, ColPos{});
    CHECK(ecs::table_schema(w2, archetype_of(w2, e2)).name == s.name);
}

TEST_CASE("columnar: export_arrow hands out the rows through the C data interface", "[columnar]") {
    ecs::World w;
    const ecs::Entity a = w.create_with(ColPos{1, 2}, game::Player{"ann", 7});
    w.create_with(ColPos{3, 4}, game::Player{"bob", 8});
    ArrowSchema schema;
    ArrowArray array;
    REQUIRE(ecs::export_arrow(w, archetype_of(w, a), ecs::RowStamp{"w1", "r7", 42}, &schema, &array));
    CHECK(std::string(schema.format) == "+s");
    REQUIRE(schema.n_children == 9);
    CHECK(std::string(schema.children[7]->name) == "game__player__name");
    CHECK(std::string(schema.children[7]->format) == "u");
    CHECK(std::string(schema.children[2]->format) == "l");
    CHECK(array.length == 2);
    const auto* tick = static_cast<const int64_t*>(array.children[3]->buffers[1]);
    CHECK(tick[0] == 42);
    CHECK(tick[1] == 42);
    const auto* x = static_cast<const float*>(array.children[5]->buffers[1]);
    CHECK(x[1] == 3.0f);
    const auto* offsets = static_cast<const int32_t*>(array.children[7]->buffers[1]);
    const auto* chars = static_cast<const char*>(array.children[7]->buffers[2]);
    CHECK(std::string(chars + offsets[1], static_cast<size_t>(offsets[2] - offsets[1])) == "bob");
    const auto* active = static_cast<const uint8_t*>(array.children[4]->buffers[1]);
    CHECK(active[0] == 3); // two rows, bit-packed
    // A child moved out is released on its own; the parent then skips it.
    ArrowArray moved = *array.children[0];
    array.children[0]->release = nullptr;
    array.release(&array);
    CHECK(array.release == nullptr);
    moved.release(&moved);
    schema.release(&schema);
    CHECK(schema.release == nullptr);
}

TEST_CASE("columnar: every field type round-trips through a Parquet file", "[columnar]") {
    ecs_test::reset_life();
    const fs::path root = scratch("types");
    ColAll lo;
    lo.b = true;
    lo.i8 = -128;
    lo.i16 = -32768;
    lo.i32 = std::numeric_limits<int32_t>::min();
    lo.i64 = std::numeric_limits<int64_t>::min();
    lo.u8 = 255;
    lo.u16 = 65535;
    lo.u32 = 4000000000u;
    lo.u64 = 18000000000000000000ull;
    lo.f32 = -1.5f;
    lo.f64 = std::numeric_limits<double>::quiet_NaN();
    lo.s = "h\xC3\xA9llo, \"world\"";
    lo.e = ecs::Entity{5, 9};
    ColAll hi;
    hi.i8 = 127;
    hi.i64 = 1;
    hi.u64 = 1;
    hi.f32 = 2.25f;
    hi.f64 = -0.0;
    {
        ecs::World w;
        w.create_with(lo, ecs_test::Counted(1));
        w.create_with(hi, ecs_test::Counted(2));
        ecs::RecorderOptions o;
        o.root = root.string();
        o.world_id = "w1";
        o.run_id = "r7";
        ecs::Recorder rec(w, o);
        rec.record(10);
        CHECK(rec.stats().buffered_rows == 2);
        REQUIRE(rec.flush());
        const ecs::RecorderStats st = rec.stats();
        CHECK(st.files == 1);
        CHECK(st.rows == 2);
        CHECK(st.skipped_components == 1); // ecs_test::Counted
        CHECK(st.error.empty());
        CHECK(st.bytes > 0);
    }
    CHECK(ecs_test::life().alive() == 0);
    CHECK(ecs_test::life().bad_destroys == 0);

    const auto files = read_all(root);
    REQUIRE(files.size() == 1);
    const pqtest::File& f = files[0].second;
    CHECK(files[0].first.find("/world_id=w1/run_id=r7/part-10-10.parquet") != std::string::npos);
    REQUIRE(f.num_rows == 2);
    const auto cell = [&](const char* name, size_t row) -> const pqtest::Cell& {
        const int c = column_of(f, name);
        REQUIRE(c >= 0);
        return f.columns[static_cast<size_t>(c)][row];
    };
    CHECK(cell("world_id", 0).s == "w1");
    CHECK(cell("run_id", 1).s == "r7");
    CHECK(cell("tick", 1).i == 10);
    CHECK(cell("is_active", 0).i == 1);
    CHECK(cell("colall__b", 0).i == 1);
    CHECK(cell("colall__b", 1).i == 0);
    CHECK(cell("colall__i8", 0).i == -128);
    CHECK(cell("colall__i8", 1).i == 127);
    CHECK(cell("colall__i16", 0).i == -32768);
    CHECK(cell("colall__i32", 0).i == std::numeric_limits<int32_t>::min());
    CHECK(cell("colall__i64", 0).i == std::numeric_limits<int64_t>::min());
    CHECK(cell("colall__u8", 0).i == 255);
    CHECK(cell("colall__u16", 0).i == 65535);
    CHECK(static_cast<uint32_t>(cell("colall__u32", 0).i) == 4000000000u);
    CHECK(static_cast<uint64_t>(cell("colall__u64", 0).i) == 18000000000000000000ull);
    CHECK(cell("colall__f32", 0).d == -1.5);
    CHECK(std::isnan(cell("colall__f64", 0).d));
    CHECK(std::signbit(cell("colall__f64", 1).d));
    CHECK(cell("colall__s", 0).s == lo.s);
    CHECK(cell("colall__e", 0).i == ((int64_t(9) << 32) | 5));
    // Logical annotations: unsigned and narrow types say so; strings are UTF-8.
    const pqtest::SchemaLeaf& u32 = f.leaves[static_cast<size_t>(column_of(f, "colall__u32"))];
    CHECK(u32.type == 1);
    CHECK(u32.logical == 10);
    CHECK(u32.bit_width == 32);
    CHECK_FALSE(u32.is_signed);
    CHECK(f.leaves[static_cast<size_t>(column_of(f, "colall__s"))].logical == 1);
    CHECK(f.leaves[static_cast<size_t>(column_of(f, "world_id"))].repetition == 0);
    CHECK(f.leaves[static_cast<size_t>(column_of(f, "colall__i8"))].repetition == 1);
    // Statistics: unsigned order for unsigned columns, NaN left out of floats, -0.0 as a zero minimum.
    const pqtest::ColumnChunkMeta& u64 = f.row_groups[0].columns[static_cast<size_t>(column_of(f, "colall__u64"))];
    REQUIRE(u64.has_min);
    uint64_t mn, mx;
    std::memcpy(&mn, u64.min_value.data(), 8);
    std::memcpy(&mx, u64.max_value.data(), 8);
    CHECK(mn == 1);
    CHECK(mx == 18000000000000000000ull);
    const pqtest::ColumnChunkMeta& f64 = f.row_groups[0].columns[static_cast<size_t>(column_of(f, "colall__f64"))];
    REQUIRE(f64.has_min);
    double dmin;
    std::memcpy(&dmin, f64.min_value.data(), 8);
    CHECK(dmin == 0.0);
    CHECK(std::signbit(dmin));
    const pqtest::ColumnChunkMeta& i8 = f.row_groups[0].columns[static_cast<size_t>(column_of(f, "colall__i8"))];
    CHECK(i8.null_count == 0);
    CHECK(static_cast<int8_t>(i8.min_value[0]) == -128);
    // _schema.json beside the data.
    const std::string table = files[0].first.substr(0, files[0].first.find('/'));
    const std::string json = slurp(root / table / "_schema.json");
    CHECK(json.find("\"name\":\"colall__u64\",\"type\":\"uint64\"") != std::string::npos);
    CHECK(json.find("\"ecs_test::Counted\"") != std::string::npos);
}

TEST_CASE("columnar: a move or a destroy leaves one inactive row in the old table", "[columnar]") {
    const fs::path root = scratch("inactive");
    ecs::World w;
    const ecs::Entity a = w.create_with(ColPos{1, 1});
    const ecs::Entity b = w.create_with(ColPos{2, 2});
    const ecs::Entity c = w.create_with(ColPos{3, 3});
    const uint32_t pos_table = archetype_of(w, a);
    ecs::RecorderOptions o;
    o.root = root.string();
    o.ticks_per_file = 0;
    ecs::Recorder rec(w, o);
    rec.record(1);
    w.add(b, ColVel{5, 5}); // b moves to {ColPos, ColVel}
    w.destroy(c);
    rec.record(2);
    rec.record(3);
    REQUIRE(rec.flush());
    const std::string pos_name = ecs::table_schema(w, pos_table).name;
    const std::string both_name = ecs::table_schema(w, archetype_of(w, b)).name;
    std::map<std::string, const pqtest::File*> by_table;
    const auto files = read_all(root);
    for (const auto& f : files) by_table[f.first.substr(0, f.first.find('/'))] = &f.second;
    REQUIRE(by_table.size() == 2);
    const pqtest::File& p = *by_table.at(pos_name);
    // tick 1: a b c; tick 2: a, then b and c inactive (entity order); tick 3: a.
    REQUIRE(p.num_rows == 7);
    const auto id = [](ecs::Entity e) { return (int64_t(e.generation) << 32) | e.index; };
    const int ent = column_of(p, "entity_id"), act = column_of(p, "is_active"), tck = column_of(p, "tick");
    const int x = column_of(p, "colpos__x");
    std::vector<std::tuple<int64_t, int64_t, int64_t, bool>> rows;
    for (size_t r = 0; r < 7; ++r)
        rows.emplace_back(p.columns[size_t(tck)][r].i, p.columns[size_t(ent)][r].i, p.columns[size_t(act)][r].i,
                          p.columns[size_t(x)][r].null);
    CHECK(rows == std::vector<std::tuple<int64_t, int64_t, int64_t, bool>>{
                      {1, id(a), 1, false}, {1, id(b), 1, false}, {1, id(c), 1, false},
                      {2, id(a), 1, false}, {2, id(b), 0, true},  {2, id(c), 0, true}, {3, id(a), 1, false}});
    CHECK(p.row_groups[0].columns[size_t(x)].null_count == 2);
    const pqtest::File& q = *by_table.at(both_name);
    CHECK(q.num_rows == 2); // b at ticks 2 and 3
    CHECK(rec.stats().rows == 9);
}

TEST_CASE("columnar: changed mode writes entered and changed rows only", "[columnar]") {
    const fs::path root = scratch("changed");
    ecs::World w;
    const ecs::Entity a = w.create_with(ColPos{1, 1}, game::Player{"a", 1});
    const ecs::Entity b = w.create_with(ColPos{2, 2}, game::Player{"b", 2});
    ecs::RecorderOptions o;
    o.root = root.string();
    o.mode = ecs::RecordMode::changed;
    o.ticks_per_file = 0;
    ecs::Recorder rec(w, o);
    rec.record(1);                         // a, b entered
    rec.record(2);                         // nothing changed
    w.get<game::Player>(b).name = "bee";   // b changed
    rec.record(3);
    w.get<ColPos>(a).x = 1;                // written, same value: not a change
    const ecs::Entity c = w.create_with(ColPos{3, 3}, game::Player{"c", 3});
    w.destroy(a);                          // b moves into a's row: no change, no row
    rec.record(4);
    REQUIRE(rec.flush());
    const auto files = read_all(root);
    REQUIRE(files.size() == 1);
    const pqtest::File& f = files[0].second;
    const auto id = [](ecs::Entity e) { return (int64_t(e.generation) << 32) | e.index; };
    const int ent = column_of(f, "entity_id"), act = column_of(f, "is_active"), tck = column_of(f, "tick");
    std::vector<std::tuple<int64_t, int64_t, int64_t>> rows;
    for (size_t r = 0; r < size_t(f.num_rows); ++r)
        rows.emplace_back(f.columns[size_t(tck)][r].i, f.columns[size_t(ent)][r].i, f.columns[size_t(act)][r].i);
    CHECK(rows == std::vector<std::tuple<int64_t, int64_t, int64_t>>{
                      {1, id(a), 1}, {1, id(b), 1}, {3, id(b), 1}, {4, id(c), 1}, {4, id(a), 0}});
    CHECK(f.columns[size_t(column_of(f, "game__player__name"))][2].s == "bee");
}

TEST_CASE("columnar: changed mode records a move as a row in each table", "[columnar]") {
    const fs::path root = scratch("changed_move");
    ecs::World w;
    const ecs::Entity a = w.create_with(ColPos{1, 1});
    const ecs::Entity b = w.create_with(ColPos{2, 2});
    ecs::RecorderOptions o;
    o.root = root.string();
    o.mode = ecs::RecordMode::changed;
    o.ticks_per_file = 0;
    ecs::Recorder rec(w, o);
    rec.record(1);
    w.add(a, ColVel{0, 0}); // a leaves {ColPos} for {ColPos, ColVel}, values unchanged
    rec.record(2);
    rec.record(3); // nothing
    REQUIRE(rec.flush());
    CHECK(rec.stats().rows == 4); // a, b at 1; a inactive in {ColPos} and active in {ColPos, ColVel} at 2
    size_t active_at_2 = 0, inactive_at_2 = 0;
    for (const auto& f : read_all(root)) {
        const pqtest::File& p = f.second;
        for (size_t r = 0; r < size_t(p.num_rows); ++r) {
            if (p.columns[size_t(column_of(p, "tick"))][r].i != 2) continue;
            CHECK(p.columns[size_t(column_of(p, "entity_id"))][r].i == ((int64_t(a.generation) << 32) | a.index));
            if (p.columns[size_t(column_of(p, "is_active"))][r].i == 1) ++active_at_2;
            else ++inactive_at_2;
        }
    }
    CHECK(active_at_2 == 1);
    CHECK(inactive_at_2 == 1);
    CHECK(w.alive(b));
}

TEST_CASE("columnar: partition_by_tick writes one file per tick under tick=<t>", "[columnar]") {
    const fs::path root = scratch("by_tick");
    ecs::World w;
    const ecs::Entity e = w.create_with(ColPos{});
    ecs::RecorderOptions o;
    o.root = root.string();
    o.world_id = "w";
    o.run_id = "r";
    o.partition_by_tick = true;
    {
        ecs::Recorder rec(w, o);
        rec.record(5);
        rec.record(6);
        CHECK(rec.stats().files == 2);
        CHECK(rec.stats().buffered_rows == 0);
    }
    const std::string t = ecs::table_schema(w, archetype_of(w, e)).name;
    CHECK(files_under(root) == std::vector<std::string>{
                                   t + "/_schema.json",
                                   t + "/world_id=w/run_id=r/tick=5/part-5-5.parquet",
                                   t + "/world_id=w/run_id=r/tick=6/part-6-6.parquet"});
}

TEST_CASE("columnar: files appear complete, every ticks_per_file ticks, never overwritten", "[columnar]") {
    const fs::path root = scratch("atomic");
    ecs::World w;
    w.create_with(ColPos{});
    ecs::RecorderOptions o;
    o.root = root.string();
    o.ticks_per_file = 2;
    o.row_group_rows = 2;
    {
        ecs::Recorder rec(w, o);
        for (int64_t t = 0; t < 5; ++t) {
            w.create_with(ColPos{float(t), 0});
            rec.record(t);
        }
        CHECK(rec.stats().files == 2); // [0,1] [2,3]; tick 4 still buffered
        rec.record(3); // not after 4: ignored, said
        CHECK(rec.stats().error.find("is not after") != std::string::npos);
    } // the destructor writes [4,4]
    const auto all = files_under(root);
    REQUIRE(all.size() == 4);
    for (const std::string& f : all) CHECK(f.find(".tmp") == std::string::npos);
    CHECK(all[1].substr(all[1].rfind('/')) == "/part-0-1.parquet");
    CHECK(all[3].substr(all[3].rfind('/')) == "/part-4-4.parquet");
    const auto files = read_all(root);
    CHECK(files[0].second.row_groups.size() == 3); // 2 + 3 rows in row groups of at most 2
    CHECK(files[0].second.num_rows == 5);
    // A second recorder with the same ids would write the same names: refused, the files stay.
    const std::string before = slurp(root / all[1]);
    ecs::Recorder again(w, o);
    again.record(0);
    again.record(1);
    const ecs::RecorderStats st = again.stats();
    CHECK(st.error.find("name clash") != std::string::npos);
    CHECK(st.files == 0);
    CHECK(slurp(root / all[1]) == before);
    CHECK(files_under(root).size() == 4);
}

TEST_CASE("columnar: an unwritable root or a bad id is an error from flush, not a crash", "[columnar]") {
    const fs::path root = scratch("unwritable");
    std::ofstream(root / "file") << "x"; // a file where a folder should be
    ecs::World w;
    w.create_with(ColPos{});
    ecs::RecorderOptions o;
    o.root = (root / "file" / "history").string();
    o.ticks_per_file = 0;
    ecs::Recorder rec(w, o);
    rec.record(1);
    CHECK_FALSE(rec.flush());
    CHECK(rec.stats().error.find("cannot create") != std::string::npos);
    CHECK(rec.stats().buffered_rows == 0);
    rec.record(2);
    CHECK_FALSE(rec.flush());

    ecs::RecorderOptions bad;
    bad.root = root.string();
    bad.run_id = "../escape";
    ecs::Recorder rec2(w, bad);
    CHECK_FALSE(rec2.stats().error.empty());
    rec2.record(1);
    CHECK_FALSE(rec2.flush());
    CHECK(files_under(root) == std::vector<std::string>{"file"});
}

#if defined(__unix__) || defined(__APPLE__)
TEST_CASE("columnar: a full disk is an error from flush; published files stay valid", "[columnar]") {
    const fs::path root = scratch("full_disk");
    ecs::World w;
    for (int i = 0; i < 2000; ++i) w.create_with(ColPos{float(i), 0});
    ecs::RecorderOptions o;
    o.root = root.string();
    o.ticks_per_file = 0;
    ecs::Recorder rec(w, o);
    rec.record(1);
    REQUIRE(rec.flush()); // one complete file first
    // The "disk" fills: a file size limit makes every write past 4 KiB fail (EFBIG; SIGXFSZ ignored).
    rlimit old{};
    getrlimit(RLIMIT_FSIZE, &old);
    void (*previous)(int) = std::signal(SIGXFSZ, SIG_IGN);
    rlimit small = old;
    small.rlim_cur = 4096;
    setrlimit(RLIMIT_FSIZE, &small);
    rec.record(2);
    const bool flushed = rec.flush();
    setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, previous);
    CHECK_FALSE(flushed);
    CHECK(rec.stats().error.find("cannot write") != std::string::npos);
    CHECK(rec.stats().files == 1);
    const auto all = files_under(root);
    REQUIRE(all.size() == 2); // _schema.json and the first file: no temporary left, no partial file
    CHECK(all[1].substr(all[1].rfind('/')) == "/part-1-1.parquet");
    CHECK(read_all(root)[0].second.num_rows == 2000);
    // Space again: recording goes on.
    rec.record(3);
    CHECK(rec.flush());
    CHECK(rec.stats().files == 2);
}
#endif

TEST_CASE("columnar: the test-side reader refuses damaged files", "[columnar]") {
    const fs::path root = scratch("damaged");
    ecs::World w;
    w.create_with(ColAll{});
    ecs::RecorderOptions o;
    o.root = root.string();
    {
        ecs::Recorder rec(w, o);
        rec.record(0);
    }
    const auto all = files_under(root);
    const std::string bytes = slurp(root / all[1]);
    REQUIRE(pqtest::read(bytes).error.empty());
    // Every truncation and every single-byte flip either reads or is refused: never a crash.
    for (size_t n = 0; n < bytes.size(); n += 7) (void)pqtest::read(bytes.substr(0, n));
    for (size_t i = 0; i < bytes.size(); ++i) {
        std::string damaged = bytes;
        damaged[i] = static_cast<char>(damaged[i] ^ 0x5A);
        (void)pqtest::read(damaged);
    }
    CHECK_FALSE(pqtest::read(bytes.substr(0, bytes.size() - 1)).error.empty());
}
