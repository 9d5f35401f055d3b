/**
 * @file ecs/detail/parquet_writer.hpp
 * @brief detail::parquet_encode: one Parquet file, in memory, from column buffers (columnar.hpp).
 *
 * What is written, and why that subset: the Parquet format 2.x file layout (`PAR1`, column chunks,
 * the Thrift-compact FileMetaData footer, its length, `PAR1`), one row group per at most
 * `row_group_rows` rows, one data page (v1, PLAIN encoding) per column chunk. The row columns are
 * REQUIRED; component columns are OPTIONAL (null on the `is_active = false` rows), their definition
 * levels RLE-encoded (bit width 1). Every reader implements this subset. Min/max statistics (in the
 * logical type's order: unsigned types compare unsigned; NaN left out) and null counts for every
 * non-string column, with column_orders so readers trust min_value/max_value. Page bodies are
 * zstd-compressed when ECS_PARQUET_ZSTD is defined and asked for. Not part of the public API.
 */
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "../columnar.hpp"

#ifdef ECS_PARQUET_ZSTD
#include <zstd.h>
#endif

namespace ecs {
namespace detail {

/// Writer of the Thrift compact protocol (the encoding of Parquet's footer and page headers).
class ThriftCompactWriter {
public:
    enum : uint8_t { T_TRUE = 1, T_FALSE = 2, T_BYTE = 3, T_I16 = 4, T_I32 = 5, T_I64 = 6, T_DOUBLE = 7,
                     T_BINARY = 8, T_LIST = 9, T_SET = 10, T_MAP = 11, T_STRUCT = 12 };

    explicit ThriftCompactWriter(std::string& out) : out_(out) {}

    void i32(int16_t id, int32_t v) {
        field(id, T_I32);
        varint(zigzag(v));
    }
    void i64(int16_t id, int64_t v) {
        field(id, T_I64);
        varint(zigzag(v));
    }
    void byte(int16_t id, int8_t v) {
        field(id, T_BYTE);
        out_ += static_cast<char>(v);
    }
    void boolean(int16_t id, bool v) { field(id, v ? T_TRUE : T_FALSE); }
    void binary(int16_t id, std::string_view v) {
        field(id, T_BINARY);
        raw_binary(v);
    }
    /// Opens a struct field; end_struct() closes it.
    void begin_struct(int16_t id) {
        field(id, T_STRUCT);
        last_.push_back(0);
    }
    void end_struct() {
        out_ += '\0';
        last_.pop_back();
    }
    /// Opens a list field of `size` elements of `type`: then write the elements with the element_*
    /// functions (structs: begin_element() ... end_struct()).
    void list(int16_t id, uint8_t type, size_t size) {
        field(id, T_LIST);
        if (size < 15) {
            out_ += static_cast<char>((size << 4) | type);
        } else {
            out_ += static_cast<char>(0xF0 | type);
            varint(size);
        }
    }
    void begin_element() { last_.push_back(0); }
    void element_i32(int32_t v) { varint(zigzag(v)); }
    void element_binary(std::string_view v) { raw_binary(v); }
    /// Ends the top-level struct (the message).
    void end_message() { out_ += '\0'; }

private:
    static uint64_t zigzag(int64_t v) noexcept {
        return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
    }
    void varint(uint64_t v) {
        while (v >= 0x80) {
            out_ += static_cast<char>((v & 0x7F) | 0x80);
            v >>= 7;
        }
        out_ += static_cast<char>(v);
    }
    void raw_binary(std::string_view v) {
        varint(v.size());
        out_.append(v.data(), v.size());
    }
    void field(int16_t id, uint8_t type) {
        const int delta = id - last_.back();
        if (delta > 0 && delta <= 15) {
            out_ += static_cast<char>((delta << 4) | type);
        } else {
            out_ += static_cast<char>(type);
            varint(zigzag(id));
        }
        last_.back() = id;
    }

    std::string& out_;
    std::vector<int16_t> last_{0}; ///< the last field id written, per open struct
};

/// Parquet physical types, converted types and codecs used here (parquet.thrift).
enum : int32_t { PQ_BOOLEAN = 0, PQ_INT32 = 1, PQ_INT64 = 2, PQ_FLOAT = 4, PQ_DOUBLE = 5, PQ_BYTE_ARRAY = 6 };
enum : int32_t { PQ_UTF8 = 0, PQ_UINT_8 = 11, PQ_UINT_16 = 12, PQ_UINT_32 = 13, PQ_UINT_64 = 14,
                 PQ_INT_8 = 15, PQ_INT_16 = 16, PQ_INT_32 = 17, PQ_INT_64 = 18 };
enum : int32_t { PQ_PLAIN = 0, PQ_RLE = 3, PQ_UNCOMPRESSED = 0, PQ_ZSTD = 6 };

inline int32_t parquet_physical(ColumnType t) noexcept {
    switch (t) {
    case ColumnType::boolean: return PQ_BOOLEAN;
    case ColumnType::int8: case ColumnType::int16: case ColumnType::int32:
    case ColumnType::uint8: case ColumnType::uint16: case ColumnType::uint32: return PQ_INT32;
    case ColumnType::float32: return PQ_FLOAT;
    case ColumnType::float64: return PQ_DOUBLE;
    case ColumnType::string: return PQ_BYTE_ARRAY;
    default: return PQ_INT64;
    }
}

/// The physical value (widened to INT32 / INT64 where Parquet has no narrower type) of row `i`.
inline int64_t parquet_integer(const ColumnData& d, size_t i) noexcept {
    const unsigned char* p = d.values.data() + i * column_type_width(d.type);
    switch (d.type) {
    case ColumnType::int8: { int8_t v; std::memcpy(&v, p, 1); return v; }
    case ColumnType::int16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case ColumnType::int32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case ColumnType::uint8: return p[0];
    case ColumnType::uint16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case ColumnType::uint32: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    default: { int64_t v; std::memcpy(&v, p, 8); return v; }
    }
}

/// Min/max of the non-null values of rows [begin, end) as PLAIN-encoded bytes; false when none (all
/// null, all NaN, or a string column: no statistics for strings).
inline bool parquet_min_max(const ColumnData& d, size_t begin, size_t end, std::string& min, std::string& max) {
    bool any = false;
    const auto put = [](std::string& out, const void* p, size_t n) { out.assign(static_cast<const char*>(p), n); };
    switch (d.type) {
    case ColumnType::string: return false;
    case ColumnType::boolean: {
        unsigned char lo = 1, hi = 0;
        for (size_t i = begin; i < end; ++i) {
            if (!d.is_valid(i)) continue;
            any = true;
            lo = std::min(lo, d.values[i]);
            hi = std::max(hi, d.values[i]);
        }
        put(min, &lo, 1);
        put(max, &hi, 1);
        return any;
    }
    case ColumnType::float32: case ColumnType::float64: {
        double lo = 0, hi = 0;
        for (size_t i = begin; i < end; ++i) {
            if (!d.is_valid(i)) continue;
            double v;
            if (d.type == ColumnType::float32) {
                float f;
                std::memcpy(&f, d.values.data() + i * 4, 4);
                v = static_cast<double>(f);
            } else {
                std::memcpy(&v, d.values.data() + i * 8, 8);
            }
            if (std::isnan(v)) continue;
            if (!any || v < lo || (v == 0 && lo == 0 && std::signbit(v))) lo = v;
            if (!any || v > hi || (v == 0 && hi == 0 && !std::signbit(v))) hi = v;
            any = true;
        }
        // The format asks for -0.0 as a zero minimum and +0.0 as a zero maximum.
        if (lo == 0) lo = -0.0;
        if (hi == 0) hi = 0.0;
        if (d.type == ColumnType::float32) {
            const auto flo = static_cast<float>(lo), fhi = static_cast<float>(hi);
            put(min, &flo, 4);
            put(max, &fhi, 4);
        } else {
            put(min, &lo, 8);
            put(max, &hi, 8);
        }
        return any;
    }
    default: break;
    }
    const bool is_unsigned = d.type == ColumnType::uint8 || d.type == ColumnType::uint16 ||
                             d.type == ColumnType::uint32 || d.type == ColumnType::uint64;
    const bool narrow = parquet_physical(d.type) == PQ_INT32;
    int64_t lo = 0, hi = 0;
    for (size_t i = begin; i < end; ++i) {
        if (!d.is_valid(i)) continue;
        const int64_t v = parquet_integer(d, i);
        const bool less = is_unsigned ? static_cast<uint64_t>(v) < static_cast<uint64_t>(lo) : v < lo;
        const bool more = is_unsigned ? static_cast<uint64_t>(v) > static_cast<uint64_t>(hi) : v > hi;
        if (!any || less) lo = v;
        if (!any || more) hi = v;
        any = true;
    }
    if (narrow) {
        const auto nlo = static_cast<int32_t>(lo), nhi = static_cast<int32_t>(hi);
        put(min, &nlo, 4);
        put(max, &nhi, 4);
    } else {
        put(min, &lo, 8);
        put(max, &hi, 8);
    }
    return any;
}

/// The PLAIN-encoded non-null values of rows [begin, end).
inline void parquet_plain_values(const ColumnData& d, size_t begin, size_t end, std::string& out) {
    switch (parquet_physical(d.type)) {
    case PQ_BOOLEAN: {
        unsigned char bits = 0;
        unsigned n = 0;
        for (size_t i = begin; i < end; ++i) {
            if (!d.is_valid(i)) continue;
            if (d.values[i] != 0) bits = static_cast<unsigned char>(bits | (1u << n));
            if (++n == 8) {
                out += static_cast<char>(bits);
                bits = 0;
                n = 0;
            }
        }
        if (n != 0) out += static_cast<char>(bits);
        return;
    }
    case PQ_BYTE_ARRAY:
        for (size_t i = begin; i < end; ++i) {
            if (!d.is_valid(i)) continue;
            const std::string_view s = d.string_at(i);
            const auto n = static_cast<uint32_t>(s.size());
            out.append(reinterpret_cast<const char*>(&n), 4); // little-endian hosts (checked in parquet.hpp)
            out.append(s.data(), s.size());
        }
        return;
    case PQ_INT32:
        if (d.type == ColumnType::int32 || d.type == ColumnType::uint32) break; // already 4 bytes
        for (size_t i = begin; i < end; ++i) {
            if (!d.is_valid(i)) continue;
            const auto v = static_cast<int32_t>(parquet_integer(d, i));
            out.append(reinterpret_cast<const char*>(&v), 4);
        }
        return;
    default: break;
    }
    // Fixed-width values already in their physical layout: copy runs of valid rows.
    const size_t width = column_type_width(d.type);
    if (d.valid.empty()) {
        out.append(reinterpret_cast<const char*>(d.values.data() + begin * width), (end - begin) * width);
        return;
    }
    for (size_t i = begin; i < end; ++i)
        if (d.valid[i] != 0) out.append(reinterpret_cast<const char*>(d.values.data() + i * width), width);
}

/// Definition levels of rows [begin, end) (1 valid, 0 null) as the RLE/bit-packed hybrid with bit
/// width 1, RLE runs only, prefixed by their byte length (data page v1).
inline void parquet_definition_levels(const ColumnData& d, size_t begin, size_t end, std::string& out) {
    std::string runs;
    size_t i = begin;
    while (i < end) {
        const bool v = d.is_valid(i);
        size_t j = i + 1;
        while (j < end && d.is_valid(j) == v) ++j;
        uint64_t header = uint64_t(j - i) << 1; // low bit 0: an RLE run
        while (header >= 0x80) {
            runs += static_cast<char>((header & 0x7F) | 0x80);
            header >>= 7;
        }
        runs += static_cast<char>(header);
        runs += static_cast<char>(v ? 1 : 0);
        i = j;
    }
    const auto n = static_cast<uint32_t>(runs.size());
    out.append(reinterpret_cast<const char*>(&n), 4);
    out += runs;
}

/// Where a column chunk landed in the file (for the footer).
struct ParquetChunk {
    int64_t page_offset = 0;
    int64_t uncompressed = 0;
    int64_t compressed = 0;
    int64_t values = 0;
    int64_t nulls = 0;
    bool has_stats = false;
    std::string min, max;
};

/**
 * @brief The bytes of a Parquet file holding `rows` rows of `data` (one buffer per column of `s`);
 *        component columns OPTIONAL, row columns REQUIRED. `zstd`: compress pages (only with
 *        ECS_PARQUET_ZSTD; otherwise ignored).
 */
inline std::string parquet_encode(const TableSchema& s, const std::vector<ColumnData>& data, size_t rows,
                                  size_t row_group_rows, bool zstd) {
#ifndef ECS_PARQUET_ZSTD
    zstd = false;
#endif
    if (row_group_rows == 0) row_group_rows = 1;
    std::string file = "PAR1";
    std::vector<std::vector<ParquetChunk>> groups;
    std::string page, body, header;
    for (size_t begin = 0; begin < rows || (rows == 0 && groups.empty()); begin += row_group_rows) {
        const size_t end = std::min(rows, begin + row_group_rows);
        std::vector<ParquetChunk> chunks(s.columns.size());
        for (size_t c = 0; c < s.columns.size(); ++c) {
            const ColumnData& d = data[c];
            ParquetChunk& chunk = chunks[c];
            body.clear();
            if (c >= ROW_COLUMNS) parquet_definition_levels(d, begin, end, body);
            parquet_plain_values(d, begin, end, body);
            const std::string* payload = &body;
#ifdef ECS_PARQUET_ZSTD
            std::string packed;
            if (zstd) {
                packed.resize(ZSTD_compressBound(body.size()));
                const size_t n = ZSTD_compress(&packed[0], packed.size(), body.data(), body.size(), 3);
                if (ZSTD_isError(n) == 0) {
                    packed.resize(n);
                    payload = &packed;
                } else {
                    zstd = false; // cannot happen with a bound-sized buffer; stay readable regardless
                }
            }
#endif
            header.clear();
            ThriftCompactWriter h(header);
            h.i32(1, 0); // DATA_PAGE
            h.i32(2, static_cast<int32_t>(body.size()));
            h.i32(3, static_cast<int32_t>(payload->size()));
            h.begin_struct(5); // DataPageHeader
            h.i32(1, static_cast<int32_t>(end - begin));
            h.i32(2, PQ_PLAIN);
            h.i32(3, PQ_RLE);
            h.i32(4, PQ_RLE);
            h.end_struct();
            h.end_message();
            chunk.page_offset = static_cast<int64_t>(file.size());
            chunk.uncompressed = static_cast<int64_t>(header.size() + body.size());
            chunk.compressed = static_cast<int64_t>(header.size() + payload->size());
            chunk.values = static_cast<int64_t>(end - begin);
            for (size_t i = begin; i < end; ++i)
                if (!d.is_valid(i)) ++chunk.nulls;
            chunk.has_stats = parquet_min_max(d, begin, end, chunk.min, chunk.max);
            file += header;
            file += *payload;
        }
        groups.push_back(std::move(chunks));
        if (rows == 0) break;
    }

    // The footer: FileMetaData.
    std::string meta;
    ThriftCompactWriter m(meta);
    m.i32(1, 1); // version
    m.list(2, ThriftCompactWriter::T_STRUCT, s.columns.size() + 1);
    m.begin_element(); // the root
    m.binary(4, "schema");
    m.i32(5, static_cast<int32_t>(s.columns.size()));
    m.end_struct();
    for (size_t c = 0; c < s.columns.size(); ++c) {
        const ColumnType t = s.columns[c].type;
        m.begin_element();
        m.i32(1, parquet_physical(t));
        m.i32(3, c < ROW_COLUMNS ? 0 : 1); // REQUIRED / OPTIONAL
        m.binary(4, s.columns[c].name);
        int32_t converted = -1;
        int8_t bits = 0;
        bool is_signed = true;
        switch (t) {
        case ColumnType::string: converted = PQ_UTF8; break;
        case ColumnType::int8: converted = PQ_INT_8; bits = 8; break;
        case ColumnType::int16: converted = PQ_INT_16; bits = 16; break;
        case ColumnType::uint8: converted = PQ_UINT_8; bits = 8; is_signed = false; break;
        case ColumnType::uint16: converted = PQ_UINT_16; bits = 16; is_signed = false; break;
        case ColumnType::uint32: converted = PQ_UINT_32; bits = 32; is_signed = false; break;
        case ColumnType::uint64: converted = PQ_UINT_64; bits = 64; is_signed = false; break;
        default: break;
        }
        if (converted >= 0) m.i32(6, converted);
        if (converted >= 0) {
            m.begin_struct(10); // LogicalType (a union)
            if (t == ColumnType::string) {
                m.begin_struct(1); // STRING
                m.end_struct();
            } else {
                m.begin_struct(10); // INTEGER
                m.byte(1, bits);
                m.boolean(2, is_signed);
                m.end_struct();
            }
            m.end_struct();
        }
        m.end_struct();
    }
    m.i64(3, static_cast<int64_t>(rows));
    m.list(4, ThriftCompactWriter::T_STRUCT, groups.size());
    for (const std::vector<ParquetChunk>& chunks : groups) {
        m.begin_element(); // RowGroup
        m.list(1, ThriftCompactWriter::T_STRUCT, chunks.size());
        int64_t total = 0, compressed_total = 0;
        for (size_t c = 0; c < chunks.size(); ++c) {
            const ParquetChunk& chunk = chunks[c];
            total += chunk.uncompressed;
            compressed_total += chunk.compressed;
            m.begin_element(); // ColumnChunk
            m.i64(2, chunk.page_offset);
            m.begin_struct(3); // ColumnMetaData
            m.i32(1, parquet_physical(s.columns[c].type));
            m.list(2, ThriftCompactWriter::T_I32, 2);
            m.element_i32(PQ_PLAIN);
            m.element_i32(PQ_RLE);
            m.list(3, ThriftCompactWriter::T_BINARY, 1);
            m.element_binary(s.columns[c].name);
            m.i32(4, zstd ? PQ_ZSTD : PQ_UNCOMPRESSED);
            m.i64(5, chunk.values);
            m.i64(6, chunk.uncompressed);
            m.i64(7, chunk.compressed);
            m.i64(9, chunk.page_offset);
            m.begin_struct(12); // Statistics
            m.i64(3, chunk.nulls);
            if (chunk.has_stats) {
                m.binary(5, chunk.max);
                m.binary(6, chunk.min);
            }
            m.end_struct();
            m.end_struct();
            m.end_struct();
        }
        m.i64(2, total);
        const int64_t first_rows = chunks.empty() ? 0 : chunks[0].values;
        m.i64(3, first_rows);
        m.i64(5, chunks.empty() ? 0 : chunks[0].page_offset);
        m.i64(6, compressed_total);
        m.end_struct();
    }
    m.binary(6, "ecs columnar 2.0");
    m.list(7, ThriftCompactWriter::T_STRUCT, s.columns.size()); // column_orders
    for (size_t c = 0; c < s.columns.size(); ++c) {
        m.begin_element();
        m.begin_struct(1); // TYPE_ORDER
        m.end_struct();
        m.end_struct();
    }
    m.end_message();
    file += meta;
    const auto n = static_cast<uint32_t>(meta.size());
    file.append(reinterpret_cast<const char*>(&n), 4);
    file += "PAR1";
    return file;
}

} // namespace detail
} // namespace ecs
