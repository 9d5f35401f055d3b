// [columnar] The Python side of #27: `World.columns(name)` (numpy structured arrays viewing the
// world's columns) and `World.to_records(names)` (a dict of numpy arrays named as the Recorder's
// columns). Kept in its own header so ecs_module.cpp only gains two .def lines.
//
// columns(name): one read-only numpy structured array per table (archetype with rows) holding the
// component, viewing the world's memory: valid until the next structural change of the world (the
// arrays do not keep the world alive either). Fields that numpy cannot view (std::string, and arrays
// or nested types holding one) are left out of the dtype; entity fields read as int64
// (`generation << 32 | index`).
//
// to_records(names): names is a comma-separated list of component names for now (the query text of
// 2.0 will replace it); the rows of every entity having all of them, concatenated over tables, as
// copies: `entity_id` (int64) and one array per recorder column of the listed components
// (`position__x`, ...; strings as object arrays of str).
#pragma once

#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <ecs/columnar.hpp>

namespace ecs_python {
namespace pyc = pybind11;

/// numpy format of field `f`, or None when numpy cannot view it (a string inside).
inline pyc::object columnar_format(const ecs::FieldInfo& f);

/// numpy dtype (as a dict spec) of `fields`, `itemsize` bytes per element; strings left out.
inline pyc::object columnar_dtype_spec(ecs::FieldView fields, size_t itemsize) {
    pyc::list names, formats, offsets;
    for (const ecs::FieldInfo& f : fields) {
        pyc::object format = columnar_format(f);
        if (format.is_none()) continue;
        names.append(pyc::str(std::string(f.name)));
        formats.append(format);
        offsets.append(f.offset);
    }
    pyc::dict spec;
    spec["names"] = names;
    spec["formats"] = formats;
    spec["offsets"] = offsets;
    spec["itemsize"] = itemsize;
    return pyc::module_::import("numpy").attr("dtype")(spec);
}

inline const char* columnar_scalar_format(ecs::FieldKind kind) {
    switch (kind) {
    case ecs::FieldKind::boolean: return "?";
    case ecs::FieldKind::int8: return "<i1";
    case ecs::FieldKind::int16: return "<i2";
    case ecs::FieldKind::int32: return "<i4";
    case ecs::FieldKind::int64: return "<i8";
    case ecs::FieldKind::uint8: return "<u1";
    case ecs::FieldKind::uint16: return "<u2";
    case ecs::FieldKind::uint32: return "<u4";
    case ecs::FieldKind::uint64: return "<u8";
    case ecs::FieldKind::float32: return "<f4";
    case ecs::FieldKind::float64: return "<f8";
    case ecs::FieldKind::entity: return "<i8";
    default: return nullptr;
    }
}

inline pyc::object columnar_format(const ecs::FieldInfo& f) {
    if (f.kind == ecs::FieldKind::nested) {
        pyc::object dt = columnar_dtype_spec(f.nested(), f.size);
        return pyc::len(dt.attr("names")) == 0 ? pyc::none() : dt;
    }
    if (f.kind == ecs::FieldKind::array) {
        pyc::object element = columnar_format(*f.element);
        if (element.is_none()) return pyc::none();
        return pyc::make_tuple(element, pyc::make_tuple(f.element_count));
    }
    const char* s = columnar_scalar_format(f.kind);
    return s != nullptr ? pyc::object(pyc::str(s)) : pyc::none();
}

/// World.columns(name): see the file comment. @pre `id` is a component with bytes.
inline pyc::list columnar_columns(const ecs::World& world, ecs::ComponentTypeID id, ecs::FieldView fields) {
    pyc::list out;
    const size_t size = ecs::component_info(id).size;
    pyc::object dtype = columnar_dtype_spec(fields, size);
    pyc::object frombuffer = pyc::module_::import("numpy").attr("frombuffer");
    for (const ecs::Archetype* a : ecs::detail::WorldAccess::archetypes(world)) {
        if (!a->has(id) || a->size() == 0) continue;
        const ecs::ComponentColumn& c = a->column(id);
        if (c.elem_size == 0) continue;
        pyc::memoryview view = pyc::memoryview::from_memory(static_cast<const void*>(c.data),
                                                           static_cast<pyc::ssize_t>(a->size() * c.elem_size));
        out.append(frombuffer(view, dtype, a->size()));
    }
    return out;
}

/// World.to_records(names): see the file comment. `ids` and `names` are the listed components.
inline pyc::dict columnar_records(const ecs::World& world, std::vector<ecs::ComponentTypeID> ids) {
    std::sort(ids.begin(), ids.end(), [](ecs::ComponentTypeID x, ecs::ComponentTypeID y) {
        return ecs::component_info(x).name < ecs::component_info(y).name;
    });
    ecs::TableSchema s;
    s.columns = {{"world_id", ecs::ColumnType::string, ecs::INVALID_COMPONENT_ID, 0},
                 {"run_id", ecs::ColumnType::string, ecs::INVALID_COMPONENT_ID, 0},
                 {"entity_id", ecs::ColumnType::int64, ecs::INVALID_COMPONENT_ID, 0},
                 {"tick", ecs::ColumnType::int64, ecs::INVALID_COMPONENT_ID, 0},
                 {"is_active", ecs::ColumnType::boolean, ecs::INVALID_COMPONENT_ID, 0}};
    for (const ecs::ComponentTypeID id : ids) {
        const std::string part = ecs::column_name_part(ecs::component_info(id).name);
        for (const ecs::FieldInfo& f : ecs::fields(id))
            ecs::detail::columnar_field_columns(s.columns, id, f, part + "__" + ecs::column_name_part(f.name), f.offset);
    }
    std::vector<ecs::detail::ColumnData> data = ecs::detail::columnar_buffers(s);
    const ecs::RowStamp stamp{};
    for (const ecs::Archetype* a : ecs::detail::WorldAccess::archetypes(world)) {
        bool all = a->size() != 0;
        for (const ecs::ComponentTypeID id : ids) all = all && a->has(id);
        if (all) ecs::detail::columnar_append_rows(*a, s, stamp, nullptr, a->size(), data);
    }
    pyc::module_ np = pyc::module_::import("numpy");
    pyc::dict out;
    for (size_t c = 2; c < s.columns.size(); ++c) {
        if (c == 3 || c == 4) continue; // tick and is_active mean nothing outside a recording
        const ecs::detail::ColumnData& d = data[c];
        if (d.type == ecs::ColumnType::string) {
            pyc::list items;
            for (size_t r = 0; r < d.rows; ++r) {
                const std::string_view v = d.string_at(r);
                items.append(pyc::str(v.data(), v.size()));
            }
            out[pyc::str(s.columns[c].name)] = np.attr("array")(items, pyc::arg("dtype") = "object");
            continue;
        }
        const char* format = "<i8";
        switch (d.type) {
        case ecs::ColumnType::boolean: format = "?"; break;
        case ecs::ColumnType::int8: format = "<i1"; break;
        case ecs::ColumnType::int16: format = "<i2"; break;
        case ecs::ColumnType::int32: format = "<i4"; break;
        case ecs::ColumnType::uint8: format = "<u1"; break;
        case ecs::ColumnType::uint16: format = "<u2"; break;
        case ecs::ColumnType::uint32: format = "<u4"; break;
        case ecs::ColumnType::uint64: format = "<u8"; break;
        case ecs::ColumnType::float32: format = "<f4"; break;
        case ecs::ColumnType::float64: format = "<f8"; break;
        default: break;
        }
        pyc::bytes bytes(reinterpret_cast<const char*>(d.values.data()), d.values.size());
        out[pyc::str(s.columns[c].name)] = np.attr("frombuffer")(bytes, format).attr("copy")();
    }
    return out;
}

} // namespace ecs_python
