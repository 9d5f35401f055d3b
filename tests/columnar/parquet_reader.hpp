/**
 * @file tests/columnar/parquet_reader.hpp
 * @brief A small, independent, bounds-checked Parquet reader for the tests and the fuzz target: the
 *        footer (Thrift compact), the schema, row groups, statistics, and PLAIN data pages v1 with
 *        RLE/bit-packed definition levels, uncompressed. Enough to read back what ecs::Recorder writes
 *        and to refuse, never crash on, anything else.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace pqtest {

/// One cell: null, or an integer (every integer and bool type), a double (float, double) or bytes.
struct Cell {
    bool null = false;
    int64_t i = 0;
    double d = 0;
    std::string s;
};

struct ColumnChunkMeta {
    int32_t type = -1;
    int32_t codec = 0;
    int64_t num_values = 0;
    int64_t data_page_offset = -1;
    int64_t null_count = -1;
    std::string min_value, max_value;
    bool has_min = false, has_max = false;
};

struct SchemaLeaf {
    std::string name;
    int32_t type = -1;
    int32_t repetition = 0;
    int32_t converted = -1;
    int logical = 0;      ///< LogicalType union field id (1 STRING, 10 INTEGER), 0 none
    int bit_width = 0;    ///< INTEGER: bitWidth
    bool is_signed = true;
};

struct RowGroupMeta {
    int64_t num_rows = 0;
    std::vector<ColumnChunkMeta> columns;
};

struct File {
    std::vector<SchemaLeaf> leaves;
    std::vector<RowGroupMeta> row_groups;
    int64_t num_rows = 0;
    std::vector<std::vector<Cell>> columns; ///< per leaf, all rows
    std::string error;
};

/// Thrift compact protocol reader over a bounded buffer; every read checks bounds.
class Thrift {
public:
    Thrift(const unsigned char* p, size_t n) : p_(p), n_(n) {}
    bool ok() const { return ok_; }
    size_t pos() const { return pos_; }

    uint64_t varint() {
        uint64_t v = 0;
        for (unsigned shift = 0; shift < 64; shift += 7) {
            if (pos_ >= n_) return fail();
            const unsigned char b = p_[pos_++];
            v |= uint64_t(b & 0x7F) << shift;
            if ((b & 0x80) == 0) return v;
        }
        return fail();
    }
    int8_t byte() {
        if (pos_ >= n_) return static_cast<int8_t>(fail());
        return static_cast<int8_t>(p_[pos_++]);
    }
    int64_t zigzag() {
        const uint64_t v = varint();
        return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
    }
    std::string binary() {
        const uint64_t len = varint();
        if (!ok_ || len > n_ - pos_) {
            fail();
            return {};
        }
        std::string s(reinterpret_cast<const char*>(p_ + pos_), static_cast<size_t>(len));
        pos_ += static_cast<size_t>(len);
        return s;
    }
    /// Next field header of the current struct: false at its stop byte. `type` is the wire type.
    bool field(int16_t& last, int16_t& id, uint8_t& type) {
        if (pos_ >= n_) {
            fail();
            return false;
        }
        const unsigned char b = p_[pos_++];
        if (b == 0) return false;
        type = b & 0x0F;
        const int delta = b >> 4;
        if (delta != 0) id = static_cast<int16_t>(last + delta);
        else id = static_cast<int16_t>(zigzag());
        last = id;
        return ok_;
    }
    void list_header(uint8_t& type, size_t& size) {
        if (pos_ >= n_) {
            fail();
            return;
        }
        const unsigned char b = p_[pos_++];
        type = b & 0x0F;
        size = b >> 4;
        if (size == 15) size = static_cast<size_t>(varint());
        if (size > n_) fail(); // every element takes at least one byte... or none (bool): bound anyway
    }
    /// Skips a value of wire type `type`.
    void skip(uint8_t type, int depth = 0) {
        if (depth > 32) {
            fail();
            return;
        }
        switch (type) {
        case 1: case 2: return;
        case 3: if (pos_ < n_) ++pos_; else fail(); return;
        case 4: case 5: case 6: zigzag(); return;
        case 7: if (n_ - pos_ >= 8) pos_ += 8; else fail(); return;
        case 8: binary(); return;
        case 9: case 10: {
            uint8_t t;
            size_t size;
            list_header(t, size);
            for (size_t i = 0; ok_ && i < size; ++i) skip(t, depth + 1);
            return;
        }
        case 11: {
            const uint64_t size = varint();
            if (size == 0) return;
            if (pos_ >= n_ || size > n_) {
                fail();
                return;
            }
            const unsigned char kv = p_[pos_++];
            for (uint64_t i = 0; ok_ && i < size; ++i) {
                skip(kv >> 4, depth + 1);
                skip(kv & 0x0F, depth + 1);
            }
            return;
        }
        case 12: {
            int16_t last = 0, id;
            uint8_t t;
            while (ok_ && field(last, id, t)) skip(t, depth + 1);
            return;
        }
        default: fail(); return;
        }
    }

private:
    uint64_t fail() {
        ok_ = false;
        pos_ = n_;
        return 0;
    }
    const unsigned char* p_;
    size_t n_;
    size_t pos_ = 0;
    bool ok_ = true;
};

inline void read_statistics(Thrift& t, ColumnChunkMeta& c) {
    int16_t last = 0, id;
    uint8_t type;
    while (t.ok() && t.field(last, id, type)) {
        if (id == 3 && type == 6) c.null_count = t.zigzag();
        else if (id == 5 && type == 8) { c.max_value = t.binary(); c.has_max = true; }
        else if (id == 6 && type == 8) { c.min_value = t.binary(); c.has_min = true; }
        else t.skip(type);
    }
}

inline void read_column_meta(Thrift& t, ColumnChunkMeta& c) {
    int16_t last = 0, id;
    uint8_t type;
    while (t.ok() && t.field(last, id, type)) {
        if (id == 1 && type == 5) c.type = static_cast<int32_t>(t.zigzag());
        else if (id == 4 && type == 5) c.codec = static_cast<int32_t>(t.zigzag());
        else if (id == 5 && type == 6) c.num_values = t.zigzag();
        else if (id == 9 && type == 6) c.data_page_offset = t.zigzag();
        else if (id == 12 && type == 12) read_statistics(t, c);
        else t.skip(type);
    }
}

inline void read_row_group(Thrift& t, RowGroupMeta& g) {
    int16_t last = 0, id;
    uint8_t type;
    while (t.ok() && t.field(last, id, type)) {
        if (id == 1 && type == 9) {
            uint8_t et;
            size_t n;
            t.list_header(et, n);
            for (size_t i = 0; t.ok() && i < n; ++i) {
                if (et != 12) { t.skip(et); continue; }
                ColumnChunkMeta c;
                int16_t l2 = 0, id2;
                uint8_t t2;
                while (t.ok() && t.field(l2, id2, t2)) {
                    if (id2 == 3 && t2 == 12) read_column_meta(t, c);
                    else t.skip(t2);
                }
                g.columns.push_back(c);
            }
        } else if (id == 3 && type == 6) {
            g.num_rows = t.zigzag();
        } else {
            t.skip(type);
        }
    }
}

inline void read_schema_element(Thrift& t, SchemaLeaf& s, int32_t& children) {
    int16_t last = 0, id;
    uint8_t type;
    while (t.ok() && t.field(last, id, type)) {
        if (id == 1 && type == 5) s.type = static_cast<int32_t>(t.zigzag());
        else if (id == 3 && type == 5) s.repetition = static_cast<int32_t>(t.zigzag());
        else if (id == 4 && type == 8) s.name = t.binary();
        else if (id == 5 && type == 5) children = static_cast<int32_t>(t.zigzag());
        else if (id == 6 && type == 5) s.converted = static_cast<int32_t>(t.zigzag());
        else if (id == 10 && type == 12) {
            int16_t l2 = 0, id2;
            uint8_t t2;
            while (t.ok() && t.field(l2, id2, t2)) {
                s.logical = id2;
                if (id2 == 10 && t2 == 12) {
                    int16_t l3 = 0, id3;
                    uint8_t t3;
                    while (t.ok() && t.field(l3, id3, t3)) {
                        if (id3 == 1 && t3 == 3) {
                            s.bit_width = t.byte();
                        } else if (id3 == 2 && (t3 == 1 || t3 == 2)) {
                            s.is_signed = t3 == 1;
                        } else {
                            t.skip(t3);
                        }
                    }
                } else {
                    t.skip(t2);
                }
            }
        } else t.skip(type);
    }
}

/// Decodes definition levels (RLE/bit-packed hybrid, bit width 1) for `count` values.
inline bool read_levels(const unsigned char* p, size_t n, size_t count, std::vector<unsigned char>& levels) {
    size_t pos = 0;
    levels.clear();
    while (levels.size() < count) {
        uint64_t header = 0;
        for (unsigned shift = 0;; shift += 7) {
            if (pos >= n || shift >= 64) return false;
            const unsigned char b = p[pos++];
            header |= uint64_t(b & 0x7F) << shift;
            if ((b & 0x80) == 0) break;
        }
        if ((header & 1) == 0) { // RLE run
            const uint64_t run = header >> 1;
            if (pos >= n || run > count - levels.size()) return false;
            const unsigned char v = p[pos++] & 1;
            levels.insert(levels.end(), static_cast<size_t>(run), v);
        } else { // bit-packed groups of 8
            const uint64_t groups = header >> 1;
            if (groups > n - pos) return false;
            for (uint64_t g = 0; g < groups; ++g)
                for (unsigned b = 0; b < 8; ++b)
                    if (levels.size() < count) levels.push_back((p[pos + g] >> b) & 1);
            pos += static_cast<size_t>(groups);
        }
    }
    return true;
}

/// Parses `bytes` as a Parquet file; `error` non-empty on any problem.
inline File read(std::string_view bytes) {
    File f;
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    const size_t n = bytes.size();
    if (n < 12 || std::memcmp(p, "PAR1", 4) != 0 || std::memcmp(p + n - 4, "PAR1", 4) != 0) {
        f.error = "not a Parquet file";
        return f;
    }
    uint32_t footer_len;
    std::memcpy(&footer_len, p + n - 8, 4);
    if (footer_len > n - 12) {
        f.error = "bad footer length";
        return f;
    }
    Thrift t(p + n - 8 - footer_len, footer_len);
    int16_t last = 0, id;
    uint8_t type;
    bool root = true;
    while (t.ok() && t.field(last, id, type)) {
        if (id == 2 && type == 9) {
            uint8_t et;
            size_t count;
            t.list_header(et, count);
            for (size_t i = 0; t.ok() && i < count; ++i) {
                if (et != 12) { t.skip(et); continue; }
                SchemaLeaf leaf;
                int32_t children = 0;
                read_schema_element(t, leaf, children);
                if (root) root = false;
                else f.leaves.push_back(leaf);
            }
        } else if (id == 3 && type == 6) {
            f.num_rows = t.zigzag();
        } else if (id == 4 && type == 9) {
            uint8_t et;
            size_t count;
            t.list_header(et, count);
            for (size_t i = 0; t.ok() && i < count; ++i) {
                if (et != 12) { t.skip(et); continue; }
                RowGroupMeta g;
                read_row_group(t, g);
                f.row_groups.push_back(g);
            }
        } else {
            t.skip(type);
        }
    }
    if (!t.ok()) {
        f.error = "bad footer";
        return f;
    }
    f.columns.resize(f.leaves.size());
    for (const RowGroupMeta& g : f.row_groups) {
        if (g.columns.size() != f.leaves.size() || g.num_rows < 0) {
            f.error = "row group does not match the schema";
            return f;
        }
        for (size_t c = 0; c < g.columns.size(); ++c) {
            const ColumnChunkMeta& m = g.columns[c];
            const SchemaLeaf& leaf = f.leaves[c];
            if (m.codec != 0) { f.error = "compressed pages are not read here"; return f; }
            if (m.data_page_offset < 4 || static_cast<uint64_t>(m.data_page_offset) >= n) { f.error = "bad page offset"; return f; }
            Thrift h(p + m.data_page_offset, n - static_cast<size_t>(m.data_page_offset));
            int16_t hl = 0, hid;
            uint8_t ht;
            int64_t page_type = -1, size = -1, values = -1;
            while (h.ok() && h.field(hl, hid, ht)) {
                if (hid == 1 && ht == 5) page_type = h.zigzag();
                else if (hid == 3 && ht == 5) size = h.zigzag();
                else if (hid == 5 && ht == 12) {
                    int16_t dl = 0, did;
                    uint8_t dt;
                    while (h.ok() && h.field(dl, did, dt)) {
                        if (did == 1 && dt == 5) values = h.zigzag();
                        else h.skip(dt);
                    }
                } else h.skip(ht);
            }
            const size_t body_at = static_cast<size_t>(m.data_page_offset) + h.pos();
            if (!h.ok() || page_type != 0 || size < 0 || values < 0 || values != g.num_rows ||
                static_cast<uint64_t>(size) > n - body_at || static_cast<uint64_t>(values) > n * 8) {
                f.error = "bad page header";
                return f;
            }
            const unsigned char* body = p + body_at;
            size_t left = static_cast<size_t>(size);
            const auto count = static_cast<size_t>(values);
            std::vector<unsigned char> levels(count, 1);
            if (leaf.repetition == 1) {
                uint32_t len;
                if (left < 4) { f.error = "bad levels"; return f; }
                std::memcpy(&len, body, 4);
                if (len > left - 4 || !read_levels(body + 4, len, count, levels)) { f.error = "bad levels"; return f; }
                body += 4 + len;
                left -= 4 + len;
            }
            std::vector<Cell>& out = f.columns[c];
            size_t bit = 0;
            for (size_t i = 0; i < count; ++i) {
                Cell cell;
                if (levels[i] == 0) {
                    cell.null = true;
                    out.push_back(cell);
                    continue;
                }
                size_t need = 0;
                switch (leaf.type) {
                case 0: need = 0; break;
                case 1: case 4: need = 4; break;
                case 2: case 5: need = 8; break;
                case 6: need = 4; break;
                default: f.error = "unsupported type"; return f;
                }
                if (leaf.type == 0) {
                    if (bit / 8 >= left) { f.error = "short page"; return f; }
                    cell.i = (body[bit / 8] >> (bit % 8)) & 1;
                    ++bit;
                    out.push_back(cell);
                    continue;
                }
                if (need > left) { f.error = "short page"; return f; }
                if (leaf.type == 1) { int32_t v; std::memcpy(&v, body, 4); cell.i = v; }
                else if (leaf.type == 2) { std::memcpy(&cell.i, body, 8); }
                else if (leaf.type == 4) { float v; std::memcpy(&v, body, 4); cell.d = static_cast<double>(v); }
                else if (leaf.type == 5) { std::memcpy(&cell.d, body, 8); }
                else {
                    uint32_t len;
                    std::memcpy(&len, body, 4);
                    if (len > left - 4) { f.error = "short page"; return f; }
                    cell.s.assign(reinterpret_cast<const char*>(body + 4), len);
                    need = 4 + len;
                }
                body += need;
                left -= need;
                out.push_back(cell);
            }
        }
    }
    return f;
}

} // namespace pqtest
