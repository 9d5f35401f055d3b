/**
 * @file ecs/columnar.hpp
 * @brief The world as tables: `table_schema(world, archetype)` names an
 *        archetype's table and its columns, `export_arrow(...)` hands its rows out through the Arrow
 *        C data interface.
 *
 * Every archetype is a table. Its rows are its entities, its columns `world_id` (string), `run_id`
 * (string), `entity_id` (int64: `generation << 32 | index`), `tick` (int64), `is_active` (bool), then,
 * for each component of the archetype in order of name (bytewise), its reflected fields (reflect.hpp)
 * as `<component>__<field>`. The component part is the registered name lower-cased with every
 * character outside `[a-z0-9_]` replaced by `_` (`game::Player` -> `game__player`); nested fields join
 * with `__` (`player__pos__x`); arrays give one column per element (`color__rgb__0`). Entity fields
 * are int64 like `entity_id`. Tags and unreflected components give no columns; an unreflected
 * component that has bytes is listed in `TableSchema::skipped`.
 *
 * The table's name is `a_<n>c_s<h>`: n components (tags and unreflected ones included) and h, the
 * first 16 hex digits of the SHA-256 of the canonical text: the sorted component names, then every
 * column as `name:type`, all joined by `,`. It depends on names and reflected layout only (never on
 * component ids), so it is the same in every run, build and machine.
 *
 * Optional and not included by ecs.hpp; standard library only. The archetype tables are read through
 * the library's internal door (detail::WorldAccess, as inspect.hpp does): the public World API has no
 * archetype enumeration. Thread-safety: reads the world only; safe while nobody writes to it.
 */
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "detail/sha256.hpp"
#include "reflect.hpp"
#include "world.hpp"

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE
/// Arrow C data interface flag: the field may hold nulls.
#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4
extern "C" {
/// The Arrow C data interface's schema, as the Arrow project defines it (ABI-stable).
struct ArrowSchema {
    const char* format;
    const char* name;
    const char* metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema** children;
    struct ArrowSchema* dictionary;
    void (*release)(struct ArrowSchema*);
    void* private_data;
};
/// The Arrow C data interface's array, as the Arrow project defines it (ABI-stable).
struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void** buffers;
    struct ArrowArray** children;
    struct ArrowArray* dictionary;
    void (*release)(struct ArrowArray*);
    void* private_data;
};
}
#endif

namespace ecs {

/// The type of a column (the reflected field kinds, arrays and nested types flattened).
enum class ColumnType : uint8_t {
    boolean, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64, string,
    entity, ///< an ecs::Entity field, stored as int64 `generation << 32 | index`
};

/// Lower-case name of a column type, as in the canonical text and `_schema.json` ("bool", "int32",
/// "float64", "string", "entity", ...).
[[nodiscard]] constexpr std::string_view column_type_name(ColumnType type) noexcept {
    switch (type) {
    case ColumnType::boolean: return "bool";
    case ColumnType::int8: return "int8";
    case ColumnType::int16: return "int16";
    case ColumnType::int32: return "int32";
    case ColumnType::int64: return "int64";
    case ColumnType::uint8: return "uint8";
    case ColumnType::uint16: return "uint16";
    case ColumnType::uint32: return "uint32";
    case ColumnType::uint64: return "uint64";
    case ColumnType::float32: return "float32";
    case ColumnType::float64: return "float64";
    case ColumnType::string: return "string";
    case ColumnType::entity: return "entity";
    }
    return "?";
}

/// Bytes of one value of `type` in memory (string: 0, variable).
[[nodiscard]] constexpr size_t column_type_width(ColumnType type) noexcept {
    switch (type) {
    case ColumnType::boolean: case ColumnType::int8: case ColumnType::uint8: return 1;
    case ColumnType::int16: case ColumnType::uint16: return 2;
    case ColumnType::int32: case ColumnType::uint32: case ColumnType::float32: return 4;
    case ColumnType::int64: case ColumnType::uint64: case ColumnType::float64: case ColumnType::entity: return 8;
    case ColumnType::string: return 0;
    }
    return 0;
}

/// One column of a table. The five row columns have `component == INVALID_COMPONENT_ID`.
struct ColumnInfo {
    std::string name;
    ColumnType type = ColumnType::int64;
    ComponentTypeID component = INVALID_COMPONENT_ID; ///< the component whose field this is
    size_t offset = 0;                                ///< bytes from the start of the component
};

/// Number of row columns every table starts with (world_id, run_id, entity_id, tick, is_active).
inline constexpr size_t ROW_COLUMNS = 5;

/// An archetype seen as a table (see the file comment).
struct TableSchema {
    std::string name;                      ///< `a_<n>c_s<16 hex>`; empty when the archetype does not exist
    uint32_t archetype = 0;                ///< the archetype id it was made from (not part of the name)
    std::vector<std::string> components;   ///< every component's registered name, sorted bytewise
    std::vector<ColumnInfo> columns;       ///< row columns, then component fields
    std::vector<ComponentTypeID> skipped;  ///< unreflected components with bytes (no columns)
    std::string canonical;                 ///< the text whose SHA-256 names the table
    std::string error;                     ///< non-empty when two columns share a name (a name clash)

    [[nodiscard]] explicit operator bool() const noexcept { return !name.empty(); }
};

/// The table part of a component name: lower-cased, every character outside `[a-z0-9_]` -> `_`.
[[nodiscard]] inline std::string column_name_part(std::string_view name) {
    std::string out(name);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) c = '_';
    }
    return out;
}

/// Stamp written in the row columns of exported or recorded rows.
struct RowStamp {
    std::string world_id;
    std::string run_id;
    int64_t tick = 0;
};

namespace detail {

/// The archetype with id `id`, or nullptr.
inline const Archetype* columnar_archetype(const World& world, uint32_t id) noexcept {
    const auto& all = WorldAccess::archetypes(world);
    if (id < all.size() && all[id]->id == id) return all[id];
    for (const Archetype* a : all)
        if (a->id == id) return a;
    return nullptr;
}

inline ColumnType columnar_type(FieldKind kind) noexcept {
    switch (kind) {
    case FieldKind::boolean: return ColumnType::boolean;
    case FieldKind::int8: return ColumnType::int8;
    case FieldKind::int16: return ColumnType::int16;
    case FieldKind::int32: return ColumnType::int32;
    case FieldKind::int64: return ColumnType::int64;
    case FieldKind::uint8: return ColumnType::uint8;
    case FieldKind::uint16: return ColumnType::uint16;
    case FieldKind::uint32: return ColumnType::uint32;
    case FieldKind::uint64: return ColumnType::uint64;
    case FieldKind::float32: return ColumnType::float32;
    case FieldKind::float64: return ColumnType::float64;
    case FieldKind::string: return ColumnType::string;
    default: return ColumnType::entity;
    }
}

/// Appends the leaf columns of field `f` (at `base` bytes into the component) named `prefix__...`.
inline void columnar_field_columns(std::vector<ColumnInfo>& out, ComponentTypeID component, const FieldInfo& f,
                                   const std::string& name, size_t base) {
    switch (f.kind) {
    case FieldKind::nested:
        for (const FieldInfo& inner : f.nested())
            columnar_field_columns(out, component, inner, name + "__" + column_name_part(inner.name), base + inner.offset);
        return;
    case FieldKind::array:
        for (size_t i = 0; i < f.element_count; ++i)
            columnar_field_columns(out, component, *f.element, name + "__" + std::to_string(i), base + i * f.element_size);
        return;
    default: out.push_back(ColumnInfo{name, columnar_type(f.kind), component, base}); return;
    }
}

} // namespace detail

/**
 * @brief The table of archetype `archetype_id` of `world`: its name, components and columns (see the
 *        file comment). An empty schema (converts to false) when there is no such archetype.
 * Complexity: O(columns + SHA-256 of the canonical text).
 */
[[nodiscard]] inline TableSchema table_schema(const World& world, uint32_t archetype_id) {
    TableSchema s;
    const Archetype* a = detail::columnar_archetype(world, archetype_id);
    if (a == nullptr) return s;
    s.archetype = archetype_id;
    std::vector<ComponentTypeID> ids(a->types.begin(), a->types.end());
    std::sort(ids.begin(), ids.end(), [](ComponentTypeID x, ComponentTypeID y) {
        const std::string_view nx = component_info(x).name, ny = component_info(y).name;
        return nx != ny ? nx < ny : x < y;
    });
    s.columns = {{"world_id", ColumnType::string, INVALID_COMPONENT_ID, 0},
                 {"run_id", ColumnType::string, INVALID_COMPONENT_ID, 0},
                 {"entity_id", ColumnType::int64, INVALID_COMPONENT_ID, 0},
                 {"tick", ColumnType::int64, INVALID_COMPONENT_ID, 0},
                 {"is_active", ColumnType::boolean, INVALID_COMPONENT_ID, 0}};
    for (const ComponentTypeID id : ids) {
        const ComponentInfo& info = component_info(id);
        s.components.emplace_back(info.name);
        if (!reflected(id)) {
            if (!a->column(id).is_tag) s.skipped.push_back(id);
            continue;
        }
        const std::string part = column_name_part(info.name);
        for (const FieldInfo& f : fields(id))
            detail::columnar_field_columns(s.columns, id, f, part + "__" + column_name_part(f.name), f.offset);
    }
    for (const std::string& c : s.components) {
        if (!s.canonical.empty()) s.canonical += ',';
        s.canonical += c;
    }
    for (const ColumnInfo& c : s.columns) {
        if (!s.canonical.empty()) s.canonical += ',';
        s.canonical += c.name;
        s.canonical += ':';
        s.canonical += column_type_name(c.type);
    }
    s.name = "a_" + std::to_string(a->types.size()) + "c_s" + detail::sha256_hex(s.canonical).substr(0, 16);
    // Two fields whose names map to one column name (`a::b` and `a_b`, or a field named like a row
    // column) cannot both be columns: the schema says so and writers refuse the table.
    std::vector<std::string_view> names;
    for (const ColumnInfo& c : s.columns) names.push_back(c.name);
    std::sort(names.begin(), names.end());
    const auto dup = std::adjacent_find(names.begin(), names.end());
    if (dup != names.end()) s.error = "table " + s.name + ": two columns are named '" + std::string(*dup) + "'";
    return s;
}

namespace detail {

/// A growable byte array whose growth leaves the new bytes uninitialised (std::vector would zero them
/// first and the recorder overwrites every one of them). Capacity is kept by clear().
class ByteBuffer {
public:
    ByteBuffer() = default;
    ByteBuffer(ByteBuffer&&) noexcept = default;
    ByteBuffer& operator=(ByteBuffer&&) noexcept = default;

    [[nodiscard]] size_t size() const noexcept { return size_; }
    [[nodiscard]] unsigned char* data() noexcept { return data_.get(); }
    [[nodiscard]] const unsigned char* data() const noexcept { return data_.get(); }
    [[nodiscard]] unsigned char operator[](size_t i) const noexcept { return data_[i]; }
    void clear() noexcept { size_ = 0; }
    /// Appends `n` uninitialised bytes; returns where they start.
    unsigned char* grow(size_t n) {
        if (size_ + n > capacity_ || data_ == nullptr) {
            size_t capacity = capacity_ < 64 ? 64 : capacity_ * 2;
            while (capacity < size_ + n) capacity *= 2;
            std::unique_ptr<unsigned char[]> bigger(new unsigned char[capacity]);
            if (size_ != 0) std::memcpy(bigger.get(), data_.get(), size_);
            data_ = std::move(bigger);
            capacity_ = capacity;
        }
        unsigned char* at = data_.get() + size_;
        size_ += n;
        return at;
    }
    void append(const void* p, size_t n) {
        if (n != 0) std::memcpy(grow(n), p, n);
    }
    void push_back(unsigned char b) { *grow(1) = b; }

private:
    std::unique_ptr<unsigned char[]> data_;
    size_t size_ = 0;
    size_t capacity_ = 0;
};

/// One column's values in Arrow layout: fixed-width values (zeros under nulls) or int32 offsets and
/// bytes; one validity byte per row while some row is null.
struct ColumnData {
    ColumnType type = ColumnType::int64;
    ByteBuffer values;                   ///< fixed width: rows x width bytes; string: the characters
    std::vector<int32_t> offsets{0};     ///< string only: rows + 1 offsets into `values`
    std::vector<unsigned char> valid;    ///< empty while no row is null; else 1 byte per row
    size_t rows = 0;
    size_t nulls = 0;

    void clear() {
        values.clear();
        offsets.assign(1, 0);
        valid.clear();
        rows = 0;
        nulls = 0;
    }
    void mark_valid() {
        if (!valid.empty()) valid.push_back(1);
        ++rows;
    }
    void append_string(std::string_view s) {
        values.append(s.data(), s.size());
        offsets.push_back(static_cast<int32_t>(values.size()));
        mark_valid();
    }
    void append_fixed(const void* p, size_t width) {
        values.append(p, width);
        mark_valid();
    }
    void append_null() {
        if (valid.empty()) valid.assign(rows, 1);
        valid.push_back(0);
        if (type == ColumnType::string) offsets.push_back(offsets.back());
        else std::memset(values.grow(column_type_width(type)), 0, column_type_width(type));
        ++rows;
        ++nulls;
    }
    [[nodiscard]] bool is_valid(size_t row) const noexcept { return valid.empty() || valid[row] != 0; }
    [[nodiscard]] std::string_view string_at(size_t row) const noexcept {
        const auto b = static_cast<size_t>(offsets[row]);
        const auto e = static_cast<size_t>(offsets[row + 1]);
        return std::string_view(reinterpret_cast<const char*>(values.data()) + b, e - b);
    }
};

/// The int64 form of an entity handle: `generation << 32 | index`.
[[nodiscard]] inline int64_t columnar_entity_id(Entity e) noexcept {
    return static_cast<int64_t>((uint64_t(e.generation) << 32) | e.index);
}

/// Appends to `data` (one ColumnData per column of `s`) the rows `rows[0..count)` of `a` (all rows
/// 0..count when `rows` is null), stamped with `stamp` and `is_active = true`.
inline void columnar_append_rows(const Archetype& a, const TableSchema& s, const RowStamp& stamp, const uint32_t* rows,
                                 size_t count, std::vector<ColumnData>& data) {
    const auto row_at = [rows](size_t i) { return rows != nullptr ? size_t(rows[i]) : i; };
    for (size_t c = 0; c < s.columns.size(); ++c) {
        ColumnData& d = data[c];
        const ColumnInfo& col = s.columns[c];
        if (c < ROW_COLUMNS) {
            // Whole columns at once: the stamp is the same on every row.
            if (c <= 1) {
                const std::string& text = c == 0 ? stamp.world_id : stamp.run_id;
                unsigned char* chars = d.values.grow(count * text.size());
                if (d.offsets.size() + count > d.offsets.capacity()) d.offsets.reserve(std::max(d.offsets.size() + count, d.offsets.capacity() * 2));
                int32_t end = d.offsets.back();
                for (size_t i = 0; i < count; ++i) {
                    if (!text.empty()) std::memcpy(chars + i * text.size(), text.data(), text.size());
                    end += static_cast<int32_t>(text.size());
                    d.offsets.push_back(end);
                }
            } else {
                const size_t width = column_type_width(col.type);
                unsigned char* out = d.values.grow(count * width);
                if (c == 2) {
                    for (size_t i = 0; i < count; ++i) {
                        const int64_t id = columnar_entity_id(a.entities[row_at(i)]);
                        std::memcpy(out + i * 8, &id, 8);
                    }
                } else if (c == 3) {
                    for (size_t i = 0; i < count; ++i) std::memcpy(out + i * 8, &stamp.tick, 8);
                } else {
                    std::memset(out, 1, count);
                }
            }
            if (!d.valid.empty()) d.valid.insert(d.valid.end(), count, 1);
            d.rows += count;
            continue;
        }
        const ComponentColumn& source = a.column(col.component);
        const unsigned char* base = source.data + col.offset;
        const size_t stride = source.elem_size;
        if (col.type == ColumnType::string) {
            for (size_t i = 0; i < count; ++i)
                d.append_string(*static_cast<const std::string*>(static_cast<const void*>(base + row_at(i) * stride)));
        } else if (col.type == ColumnType::entity) {
            for (size_t i = 0; i < count; ++i) {
                Entity e;
                std::memcpy(&e, base + row_at(i) * stride, sizeof(Entity));
                const int64_t id = columnar_entity_id(e);
                d.append_fixed(&id, 8);
            }
        } else {
            const size_t width = column_type_width(col.type);
            unsigned char* out = d.values.grow(count * width);
            if (col.type == ColumnType::boolean) {
                // bool objects may hold any non-zero byte for true in principle: normalise to 0/1.
                for (size_t i = 0; i < count; ++i) out[i] = base[row_at(i) * stride] != 0 ? 1 : 0;
            } else {
                // A constant size per case: each copy compiles to one load and one store.
                const auto gather = [&](auto w) {
                    constexpr size_t W = decltype(w)::value;
                    if (rows == nullptr) {
                        for (size_t i = 0; i < count; ++i) std::memcpy(out + i * W, base + i * stride, W);
                    } else {
                        for (size_t i = 0; i < count; ++i) std::memcpy(out + i * W, base + size_t(rows[i]) * stride, W);
                    }
                };
                switch (width) {
                case 1: gather(std::integral_constant<size_t, 1>{}); break;
                case 2: gather(std::integral_constant<size_t, 2>{}); break;
                case 4: gather(std::integral_constant<size_t, 4>{}); break;
                default: gather(std::integral_constant<size_t, 8>{}); break;
                }
            }
            if (!d.valid.empty()) d.valid.insert(d.valid.end(), count, 1);
            d.rows += count;
        }
    }
}

/// Appends one row saying that entity `id` left the table at `stamp.tick`: `is_active = false`, its
/// component columns null.
inline void columnar_append_inactive(const TableSchema& s, const RowStamp& stamp, int64_t id, std::vector<ColumnData>& data) {
    data[0].append_string(stamp.world_id);
    data[1].append_string(stamp.run_id);
    data[2].append_fixed(&id, 8);
    data[3].append_fixed(&stamp.tick, 8);
    const unsigned char no = 0;
    data[4].append_fixed(&no, 1);
    for (size_t c = ROW_COLUMNS; c < s.columns.size(); ++c) data[c].append_null();
}

/// Empty column buffers for the columns of `s`.
inline std::vector<ColumnData> columnar_buffers(const TableSchema& s) {
    std::vector<ColumnData> data(s.columns.size());
    for (size_t c = 0; c < s.columns.size(); ++c) data[c].type = s.columns[c].type;
    return data;
}

// ---------------------------------------------------------------------------------------------------
// Arrow C data interface export
// ---------------------------------------------------------------------------------------------------

/// What one exported ArrowSchema node owns.
struct ArrowSchemaPrivate {
    std::string name;
    std::vector<ArrowSchema*> children;
};

/// What one exported ArrowArray node owns.
struct ArrowArrayPrivate {
    ColumnData data;
    std::vector<unsigned char> bits; ///< booleans and validity, bit-packed (Arrow's layout)
    std::vector<unsigned char> validity;
    std::vector<const void*> buffers;
    std::vector<ArrowArray*> children;
};

inline const char* arrow_format(ColumnType type) noexcept {
    switch (type) {
    case ColumnType::boolean: return "b";
    case ColumnType::int8: return "c";
    case ColumnType::int16: return "s";
    case ColumnType::int32: return "i";
    case ColumnType::int64: case ColumnType::entity: return "l";
    case ColumnType::uint8: return "C";
    case ColumnType::uint16: return "S";
    case ColumnType::uint32: return "I";
    case ColumnType::uint64: return "L";
    case ColumnType::float32: return "f";
    case ColumnType::float64: return "g";
    case ColumnType::string: return "u";
    }
    return "n";
}

inline void columnar_release_schema(ArrowSchema* schema) {
    if (schema == nullptr || schema->release == nullptr) return;
    auto* p = static_cast<ArrowSchemaPrivate*>(schema->private_data);
    for (ArrowSchema* child : p->children) {
        if (child->release != nullptr) child->release(child);
        delete child;
    }
    delete p;
    schema->release = nullptr;
}

inline void columnar_release_array(ArrowArray* array) {
    if (array == nullptr || array->release == nullptr) return;
    auto* p = static_cast<ArrowArrayPrivate*>(array->private_data);
    for (ArrowArray* child : p->children) {
        if (child->release != nullptr) child->release(child);
        delete child;
    }
    delete p;
    array->release = nullptr;
}

inline std::vector<unsigned char> arrow_pack_bits(const unsigned char* bytes, size_t rows) {
    std::vector<unsigned char> bits((rows + 7) / 8 + 1, 0); // +1: never an empty buffer
    for (size_t i = 0; i < rows; ++i)
        if (bytes[i] != 0) bits[i / 8] = static_cast<unsigned char>(bits[i / 8] | (1u << (i % 8)));
    return bits;
}

/// Fills `array` with one column, taking its values.
inline void arrow_fill_column(ArrowArray* array, ColumnData&& data) {
    auto* p = new ArrowArrayPrivate{std::move(data), {}, {}, {}, {}};
    const size_t rows = p->data.rows;
    if (!p->data.valid.empty()) p->validity = arrow_pack_bits(p->data.valid.data(), rows);
    p->buffers.push_back(p->validity.empty() ? nullptr : p->validity.data());
    if (p->data.type == ColumnType::boolean) {
        p->bits = arrow_pack_bits(p->data.values.data(), rows);
        p->buffers.push_back(p->bits.data());
    } else if (p->data.type == ColumnType::string) {
        p->data.values.push_back(0); // never a null data pointer
        p->buffers.push_back(p->data.offsets.data());
        p->buffers.push_back(p->data.values.data());
    } else {
        p->data.values.grow(0);
        p->buffers.push_back(p->data.values.data());
    }
    *array = ArrowArray{static_cast<int64_t>(rows), static_cast<int64_t>(p->data.nulls), 0,
                        static_cast<int64_t>(p->buffers.size()), 0, p->buffers.data(), nullptr, nullptr,
                        &columnar_release_array, p};
}

} // namespace detail

/**
 * @brief Exports the rows of archetype `archetype_id` as one Arrow struct array (`+s`) whose children
 *        are the table's columns (see table_schema), every row stamped with `stamp` and active.
 *
 * The caller owns `*schema` and `*array` afterwards and releases each through its `release` callback
 * (Arrow's rules: children may be moved out first). The values are copies: the world may change
 * meanwhile. Entity and entity fields are int64 (`l`), strings utf8 (`u`), booleans bit-packed.
 * @return false (nothing written) when there is no such archetype. O(rows x columns).
 */
inline bool export_arrow(const World& world, uint32_t archetype_id, const RowStamp& stamp, ArrowSchema* schema,
                         ArrowArray* array) {
    const Archetype* a = detail::columnar_archetype(world, archetype_id);
    if (a == nullptr || schema == nullptr || array == nullptr) return false;
    const TableSchema s = table_schema(world, archetype_id);
    std::vector<detail::ColumnData> data = detail::columnar_buffers(s);
    detail::columnar_append_rows(*a, s, stamp, nullptr, a->size(), data);

    auto* sp = new detail::ArrowSchemaPrivate{s.name, {}};
    auto* ap = new detail::ArrowArrayPrivate{};
    ap->buffers.push_back(nullptr); // a struct array has only a validity buffer
    for (size_t c = 0; c < s.columns.size(); ++c) {
        auto* child_schema = new ArrowSchema{};
        auto* child_private = new detail::ArrowSchemaPrivate{s.columns[c].name, {}};
        *child_schema = ArrowSchema{detail::arrow_format(s.columns[c].type), child_private->name.c_str(), nullptr,
                                    c < ROW_COLUMNS ? 0 : ARROW_FLAG_NULLABLE, 0, nullptr, nullptr,
                                    &detail::columnar_release_schema, child_private};
        sp->children.push_back(child_schema);
        auto* child_array = new ArrowArray{};
        detail::arrow_fill_column(child_array, std::move(data[c]));
        ap->children.push_back(child_array);
    }
    *schema = ArrowSchema{"+s", sp->name.c_str(), nullptr, 0, static_cast<int64_t>(sp->children.size()),
                          sp->children.data(), nullptr, &detail::columnar_release_schema, sp};
    *array = ArrowArray{static_cast<int64_t>(a->size()), 0, 0, 1, static_cast<int64_t>(ap->children.size()),
                        ap->buffers.data(), ap->children.data(), nullptr, &detail::columnar_release_array, ap};
    return true;
}

} // namespace ecs
