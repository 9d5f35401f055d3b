/**
 * @file ecs/parquet.hpp
 * @brief `ecs::Recorder`: the world's history, tick by tick, as a Hive-partitioned
 *        Parquet dataset that DuckDB, Spark, Polars or pandas read as they are.
 *
 * @code
 * ecs::RecorderOptions o;
 * o.world_id = "w1";
 * o.run_id = "r7";
 * ecs::Recorder rec(world, o);
 * for (int64_t tick = 0; tick < 1000; ++tick) { step(world); rec.record(tick); }
 * rec.flush();   // also every ticks_per_file ticks and in the destructor
 * // then, in DuckDB: SELECT * FROM read_parquet('history/<every table>/<every folder>/<every file>.parquet', ...)
 * @endcode
 *
 * Every archetype is a table (columnar.hpp names it and its columns). `record(tick)` appends rows to
 * in-memory column buffers: in RecordMode::full every live entity's row; in RecordMode::changed the
 * rows that entered the table or whose recorded values differ from the entity's previous recorded row.
 * In both modes an entity that left a table since the previous record (moved to another archetype or
 * destroyed) gets one row with `is_active = false` and null component columns in that table at this
 * tick. So the state at tick T is, per entity and table, its latest row at or before T, when active.
 *
 * Files: `root/<table>/world_id=<w>/run_id=<r>/part-<first>-<last>.parquet` (first and last recorded
 * tick of the batch; with `partition_by_tick`, one tick per file under a further `tick=<t>/`). A file is
 * written under a hidden temporary name (`.part-...parquet.tmp`, which no `*.parquet` glob matches),
 * synced, then linked to its final name, which must not exist yet: readers never see half a file,
 * and nothing is ever overwritten (a clash is an error). Each table folder holds `_schema.json`.
 * Runs with different run_ids write disjoint files, so many processes may record into one root.
 *
 * Errors (unwritable root, full disk, a name clash, an invalid id) never crash: flush() returns false
 * and `stats().error` says what failed; the failed batch is dropped, files already complete stay valid.
 *
 * Standard library (and POSIX fsync where available); zstd page compression when compiled with
 * ECS_PARQUET_ZSTD (the `ecs::parquet` CMake target defines it when zstd is found). Not thread-safe:
 * one Recorder per world, used from the thread that owns the world. Little-endian hosts only.
 */
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

#include "columnar.hpp"
#include "detail/parquet_writer.hpp"
#include "json.hpp"

namespace ecs {

/// What Recorder::record writes (see the file comment).
enum class RecordMode : uint8_t {
    full,    ///< every live entity's row at every recorded tick
    changed, ///< only rows that entered the table or whose values changed since the previous record
};

/// Page compression of the Parquet files.
enum class Compression : uint8_t {
    none,
    zstd, ///< when built with ECS_PARQUET_ZSTD; otherwise the files are written uncompressed
};

/// Options of a Recorder.
struct RecorderOptions {
    std::string root = "history";    ///< the dataset's folder (created when missing)
    std::string world_id = "world";  ///< `[A-Za-z0-9_.-]+`, not starting with '.'
    std::string run_id = "run";      ///< as world_id; give each run its own
    RecordMode mode = RecordMode::full;
    size_t ticks_per_file = 64;      ///< flush after this many recorded ticks (0: only on flush())
    bool partition_by_tick = false;  ///< one file per tick, under `tick=<t>/`
    Compression compression = Compression::none;
    size_t row_group_rows = size_t(1) << 20; ///< rows per Parquet row group, at most
};

/// What a Recorder has done so far.
struct RecorderStats {
    size_t rows = 0;               ///< rows in files written (inactive rows included)
    size_t files = 0;              ///< Parquet files written
    size_t bytes = 0;              ///< bytes of those files
    size_t skipped_components = 0; ///< distinct unreflected non-empty component types seen (no columns)
    size_t buffered_rows = 0;      ///< rows recorded but not yet written
    std::string error;             ///< the last error (empty: none)
};

namespace detail {

/// True when `id` may be a path segment and Hive partition value as it is.
inline bool recorder_valid_id(std::string_view id) noexcept {
    if (id.empty() || id[0] == '.') return false;
    for (const char c : id)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
            return false;
    return true;
}

/// 64-bit FNV-1a over bytes, continuing from `h`.
inline uint64_t recorder_hash(uint64_t h, const void* p, size_t n) noexcept {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/// `_schema.json` of a table.
inline std::string recorder_schema_json(const TableSchema& s) {
    std::string out = "{\"table\":";
    json_write_string(out, s.name);
    out += ",\"components\":[";
    for (size_t i = 0; i < s.components.size(); ++i) {
        if (i != 0) out += ',';
        json_write_string(out, s.components[i]);
    }
    out += "],\"columns\":[";
    for (size_t i = 0; i < s.columns.size(); ++i) {
        if (i != 0) out += ',';
        out += "{\"name\":";
        json_write_string(out, s.columns[i].name);
        out += ",\"type\":";
        json_write_string(out, column_type_name(s.columns[i].type));
        out += '}';
    }
    out += "],\"canonical\":";
    json_write_string(out, s.canonical);
    out += "}\n";
    return out;
}

/// Writes `bytes` to `final_path` through `temp_path`: the final name appears complete or not at all,
/// and never replaces an existing file. False with `error` set on any failure (the temp file removed).
inline bool recorder_publish(const std::filesystem::path& temp_path, const std::filesystem::path& final_path,
                             const std::string& bytes, std::string& error) {
    std::error_code ec;
    if (std::filesystem::exists(final_path, ec)) {
        error = "name clash: " + final_path.string() + " exists already";
        return false;
    }
    std::FILE* f = std::fopen(temp_path.c_str(), "wb");
    if (f == nullptr) {
        error = "cannot create " + temp_path.string();
        return false;
    }
    bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    ok = std::fflush(f) == 0 && ok;
#if defined(__unix__) || defined(__APPLE__)
    ok = ::fsync(::fileno(f)) == 0 && ok;
#endif
    ok = std::fclose(f) == 0 && ok;
    if (!ok) {
        std::filesystem::remove(temp_path, ec);
        error = "cannot write " + temp_path.string() + " (disk full?)";
        return false;
    }
    // A hard link fails when the final name exists (rename would replace it silently).
    std::filesystem::create_hard_link(temp_path, final_path, ec);
    if (ec) {
        std::error_code ec2;
        if (std::filesystem::exists(final_path, ec2)) {
            std::filesystem::remove(temp_path, ec2);
            error = "name clash: " + final_path.string() + " exists already";
            return false;
        }
        // A file system without hard links: rename (the existence check above guards the clash).
        std::filesystem::rename(temp_path, final_path, ec);
        if (ec) {
            std::filesystem::remove(temp_path, ec2);
            error = "cannot rename " + temp_path.string() + " to " + final_path.string() + ": " + ec.message();
            return false;
        }
        return true;
    }
    std::filesystem::remove(temp_path, ec);
    return true;
}

} // namespace detail

/**
 * @brief Records a world's rows tick by tick into a Parquet dataset (see the file comment).
 *
 * The world must outlive the recorder. The recorder reads the world only in record().
 */
class Recorder {
public:
    Recorder(World& world, RecorderOptions options) : world_(world), options_(std::move(options)) {
        static_assert(sizeof(int32_t) == 4 && sizeof(double) == 8, "Recorder: unusual platform");
        bad_ids_ = !detail::recorder_valid_id(options_.world_id) || !detail::recorder_valid_id(options_.run_id);
        if (bad_ids_)
            stats_.error = "Recorder: world_id and run_id must match [A-Za-z0-9_.-]+ and not start with '.'";
    }
    Recorder(const Recorder&) = delete;
    Recorder& operator=(const Recorder&) = delete;
    /// Flushes what is buffered (errors are then only in the lost stats).
    ~Recorder() { flush(); }

    /**
     * @brief Buffers this tick's rows (see RecordMode). Flushes when `ticks_per_file` ticks are
     *        buffered (each tick when partition_by_tick).
     * @pre No query runs on the world. `tick` greater than the previous record's (a tick that is not is
     *      ignored, and stats().error says so). O(rows of the world x columns).
     */
    void record(int64_t tick) {
        if (any_tick_ && tick <= last_tick_) {
            stats_.error = "Recorder::record: tick " + std::to_string(tick) + " is not after " + std::to_string(last_tick_);
            return;
        }
        if (buffered_ticks_ == 0) first_tick_ = tick;
        any_tick_ = true;
        last_tick_ = tick;
        ++buffered_ticks_;
        const RowStamp stamp{options_.world_id, options_.run_id, tick};
        const auto& archetypes = detail::WorldAccess::archetypes(world_);
        if (tables_.size() < archetypes.size()) tables_.resize(archetypes.size());
        for (const Archetype* a : archetypes) {
            if (a->id >= tables_.size()) tables_.resize(size_t(a->id) + 1);
            std::unique_ptr<Table>& slot = tables_[a->id];
            if (slot == nullptr) {
                if (a->size() == 0) continue;
                slot = std::make_unique<Table>();
                slot->schema = table_schema(world_, a->id);
                slot->data = detail::columnar_buffers(slot->schema);
                for (const ComponentTypeID id : slot->schema.skipped)
                    if (std::find(skipped_.begin(), skipped_.end(), id) == skipped_.end()) skipped_.push_back(id);
            }
            record_table(*a, *slot, stamp);
        }
        if (options_.partition_by_tick || (options_.ticks_per_file != 0 && buffered_ticks_ >= options_.ticks_per_file))
            flush();
    }

    /**
     * @brief Writes the buffered rows, one file per table that has some, and `_schema.json` where
     *        missing. @return false when some file failed (stats().error says which; its rows are
     *        dropped). O(buffered rows).
     */
    bool flush() {
        if (buffered_ticks_ == 0) return true;
        bool ok = true;
        std::string error;
        for (const std::unique_ptr<Table>& t : tables_) {
            if (t == nullptr || t->rows == 0) continue;
            if (!write_table(*t, error)) {
                ok = false;
                stats_.error = error;
            }
            for (detail::ColumnData& d : t->data) d.clear();
            t->rows = 0;
        }
        buffered_ticks_ = 0;
        return ok;
    }

    /// What the recorder has done so far.
    [[nodiscard]] RecorderStats stats() const {
        RecorderStats s = stats_;
        s.skipped_components = skipped_.size();
        for (const std::unique_ptr<Table>& t : tables_)
            if (t != nullptr) s.buffered_rows += t->rows;
        return s;
    }

    [[nodiscard]] const RecorderOptions& options() const noexcept { return options_; }

private:
    /// One archetype's table: its schema, the buffered rows, and who was in it at the previous record.
    struct Table {
        TableSchema schema;
        std::vector<detail::ColumnData> data;
        size_t rows = 0;
        bool schema_written = false;
        std::vector<Entity> previous;          ///< the archetype's entity list at the previous record
        std::vector<uint64_t> previous_hashes; ///< changed mode: row-parallel value hashes
        std::vector<uint32_t> picked;          ///< scratch: rows to write
        std::vector<uint64_t> hashes;          ///< scratch: this record's hashes
    };

    /// The hash of row `row`'s recorded component values (changed mode).
    static uint64_t row_hash(const Archetype& a, const TableSchema& s, size_t row) noexcept {
        uint64_t h = 0xcbf29ce484222325ull;
        for (size_t c = ROW_COLUMNS; c < s.columns.size(); ++c) {
            const ColumnInfo& col = s.columns[c];
            const ComponentColumn& source = a.column(col.component);
            const unsigned char* p = source.data + row * source.elem_size + col.offset;
            if (col.type == ColumnType::string) {
                const auto& str = *static_cast<const std::string*>(static_cast<const void*>(p));
                const size_t n = str.size();
                h = detail::recorder_hash(h, &n, sizeof n);
                h = detail::recorder_hash(h, str.data(), n);
            } else if (col.type == ColumnType::boolean) {
                const unsigned char b = *p != 0 ? 1 : 0;
                h = detail::recorder_hash(h, &b, 1);
            } else {
                h = detail::recorder_hash(h, p, col.type == ColumnType::entity ? sizeof(Entity) : column_type_width(col.type));
            }
        }
        return h;
    }

    void record_table(const Archetype& a, Table& t, const RowStamp& stamp) {
        if (!t.schema.error.empty()) {
            stats_.error = t.schema.error;
            return;
        }
        const size_t n = a.size();
        const Entity* now = a.entities.data();
        // The common case: the same entities in the same rows as at the previous record.
        const bool same = t.previous.size() == n &&
                          (n == 0 || std::memcmp(t.previous.data(), now, n * sizeof(Entity)) == 0);
        if (options_.mode == RecordMode::full) {
            detail::columnar_append_rows(a, t.schema, stamp, nullptr, n, t.data);
            t.rows += n;
        } else {
            t.hashes.resize(n);
            for (size_t r = 0; r < n; ++r) t.hashes[r] = row_hash(a, t.schema, r);
            t.picked.clear();
            if (same) {
                for (size_t r = 0; r < n; ++r)
                    if (t.hashes[r] != t.previous_hashes[r]) t.picked.push_back(static_cast<uint32_t>(r));
            } else {
                std::unordered_map<int64_t, uint64_t> before;
                before.reserve(t.previous.size());
                for (size_t r = 0; r < t.previous.size(); ++r)
                    before.emplace(detail::columnar_entity_id(t.previous[r]), t.previous_hashes[r]);
                for (size_t r = 0; r < n; ++r) {
                    const auto it = before.find(detail::columnar_entity_id(now[r]));
                    if (it == before.end() || it->second != t.hashes[r]) t.picked.push_back(static_cast<uint32_t>(r));
                }
            }
            detail::columnar_append_rows(a, t.schema, stamp, t.picked.data(), t.picked.size(), t.data);
            t.rows += t.picked.size();
            t.previous_hashes.swap(t.hashes);
        }
        if (!same) {
            // Who left: in the previous list, not in this one. Inactive rows in entity order.
            std::vector<int64_t> before, after;
            before.reserve(t.previous.size());
            after.reserve(n);
            for (const Entity e : t.previous) before.push_back(detail::columnar_entity_id(e));
            for (size_t r = 0; r < n; ++r) after.push_back(detail::columnar_entity_id(now[r]));
            std::sort(before.begin(), before.end());
            std::sort(after.begin(), after.end());
            std::vector<int64_t> left;
            std::set_difference(before.begin(), before.end(), after.begin(), after.end(), std::back_inserter(left));
            for (const int64_t id : left) detail::columnar_append_inactive(t.schema, stamp, id, t.data);
            t.rows += left.size();
            t.previous.assign(now, now + n);
        }
    }

    bool write_table(Table& t, std::string& error) {
        namespace fs = std::filesystem;
        if (bad_ids_) {
            error = "Recorder: world_id and run_id must match [A-Za-z0-9_.-]+ and not start with '.'";
            return false;
        }
        std::error_code ec;
        const fs::path table_dir = fs::path(options_.root) / t.schema.name;
        fs::path dir = table_dir / ("world_id=" + options_.world_id) / ("run_id=" + options_.run_id);
        if (options_.partition_by_tick) dir /= "tick=" + std::to_string(first_tick_);
        fs::create_directories(dir, ec);
        if (ec) {
            error = "cannot create " + dir.string() + ": " + ec.message();
            return false;
        }
        if (!t.schema_written) {
            // Shared by every run: published once; a different one already there is a clash.
            const std::string json = detail::recorder_schema_json(t.schema);
            const fs::path final_path = table_dir / "_schema.json";
            if (!fs::exists(final_path, ec)) {
                const fs::path temp = table_dir / ("._schema.json." + options_.world_id + "." + options_.run_id + ".tmp");
                std::string ignored;
                detail::recorder_publish(temp, final_path, json, ignored); // another run may win the race
            }
            std::FILE* f = std::fopen(final_path.c_str(), "rb");
            std::string existing;
            if (f != nullptr) {
                char buf[4096];
                size_t got;
                while ((got = std::fread(buf, 1, sizeof buf, f)) != 0) existing.append(buf, got);
                std::fclose(f);
            }
            if (existing != json) {
                error = f == nullptr ? "cannot write " + final_path.string()
                                     : "name clash: " + final_path.string() + " describes another schema";
                return false;
            }
            t.schema_written = true;
        }
        const std::string name = "part-" + std::to_string(first_tick_) + "-" + std::to_string(last_tick_) + ".parquet";
        const std::string bytes = detail::parquet_encode(t.schema, t.data, t.rows, options_.row_group_rows,
                                                         options_.compression == Compression::zstd);
        if (!detail::recorder_publish(dir / ("." + name + ".tmp"), dir / name, bytes, error)) return false;
        ++stats_.files;
        stats_.rows += t.rows;
        stats_.bytes += bytes.size();
        return true;
    }

    World& world_;
    RecorderOptions options_;
    RecorderStats stats_;
    std::vector<std::unique_ptr<Table>> tables_; ///< by archetype id
    std::vector<ComponentTypeID> skipped_;
    size_t buffered_ticks_ = 0;
    int64_t first_tick_ = 0;
    int64_t last_tick_ = 0;
    bool any_tick_ = false;
    bool bad_ids_ = false;
};

} // namespace ecs
