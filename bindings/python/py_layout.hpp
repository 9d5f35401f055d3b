// Components declared from Python: `ecs.register_component("Health", {"hp": "int32", "max": "float32"})`.
//
// A declaration becomes a C++ layout (fields at their natural alignment, in the dict's order), a
// field table for reflection (ecs::FieldView: dicts convert both ways through it, and ecs::to_json
// works) and a set of ecs::ComponentOps. ComponentOps functions receive object addresses only, so
// each declared type takes one of PY_SLOTS slots whose functions are template instances over the
// slot number that find the slot's layout (the technique the library uses for its own columns).
//
// Field types: bool, int8..int64, uint8..uint64, float32, float64, string (std::string), entity
// (ecs::Entity), and fixed arrays "T[N]" of any of them but string. A layout without strings is plain
// bytes (moved with memcpy). Snapshots write each field (not the padding): scalars in the host's
// byte order (little-endian on every platform the snapshot format targets), strings as a 32-bit
// length and the bytes, so the bytes of a snapshot do not depend on padding contents.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <istream>
#include <memory>
#include <new>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <ecs/reflect.hpp>
#include <ecs/runtime.hpp>

namespace ecs_python {

/// Most component types one process can declare from Python.
constexpr size_t PY_SLOTS = 48;

/// One declared field.
struct PyField {
    std::string name;
    ecs::FieldKind kind = ecs::FieldKind::int32; ///< the element kind (arrays: of each element)
    size_t count = 1;                            ///< array length; 1 for a scalar
    bool array = false;
    size_t elem_size = 0;
    size_t offset = 0;
};

/// A declared component type: its layout, its field table, its spec (to compare re-declarations).
struct PyLayout {
    std::string name;
    std::vector<PyField> fields;
    std::vector<ecs::FieldInfo> infos; ///< names point into `fields` (never resized once built)
    std::string spec;                  ///< canonical "name:type,..." for re-declaration checks
    size_t size = 0;
    size_t align = 1;
    bool plain = true; ///< no string field
    ecs::ComponentTypeID id = ecs::INVALID_COMPONENT_ID;
};

/// The layouts by slot; heap objects never freed (FieldInfo tables point into them).
inline PyLayout* py_layouts[PY_SLOTS] = {};
inline size_t py_layout_count = 0;

/// Size, alignment and the element description of a scalar kind; false for kinds not allowed.
inline bool scalar_kind(const std::string& text, ecs::FieldKind& kind, size_t& size, size_t& align,
                        const ecs::FieldInfo*& element) {
    using K = ecs::FieldKind;
    struct Entry {
        const char* name;
        K kind;
        size_t size, align;
        const ecs::FieldInfo* element;
    };
    static const Entry table[] = {
        {"bool", K::boolean, 1, 1, &ecs::detail::element_info<bool>},
        {"int8", K::int8, 1, 1, &ecs::detail::element_info<int8_t>},
        {"int16", K::int16, 2, 2, &ecs::detail::element_info<int16_t>},
        {"int32", K::int32, 4, 4, &ecs::detail::element_info<int32_t>},
        {"int64", K::int64, 8, 8, &ecs::detail::element_info<int64_t>},
        {"uint8", K::uint8, 1, 1, &ecs::detail::element_info<uint8_t>},
        {"uint16", K::uint16, 2, 2, &ecs::detail::element_info<uint16_t>},
        {"uint32", K::uint32, 4, 4, &ecs::detail::element_info<uint32_t>},
        {"uint64", K::uint64, 8, 8, &ecs::detail::element_info<uint64_t>},
        {"float32", K::float32, 4, 4, &ecs::detail::element_info<float>},
        {"float64", K::float64, 8, 8, &ecs::detail::element_info<double>},
        {"string", K::string, sizeof(std::string), alignof(std::string), &ecs::detail::element_info<std::string>},
        {"entity", K::entity, sizeof(ecs::Entity), alignof(ecs::Entity), &ecs::detail::element_info<ecs::Entity>},
    };
    for (const Entry& e : table)
        if (text == e.name) {
            kind = e.kind;
            size = e.size;
            align = e.align;
            element = e.element;
            return true;
        }
    return false;
}

/// Parses "float32" or "float32[3]" into `field`; returns an error text, empty on success.
inline std::string parse_field_type(const std::string& spec, PyField& field, const ecs::FieldInfo*& element,
                                    size_t& align) {
    std::string base = spec;
    size_t count = 1;
    bool array = false;
    const size_t bracket = spec.find('[');
    if (bracket != std::string::npos) {
        if (spec.back() != ']' || bracket == 0 || spec.size() < bracket + 3) return "bad array type \"" + spec + "\"";
        const std::string digits = spec.substr(bracket + 1, spec.size() - bracket - 2);
        if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos)
            return "bad array length in \"" + spec + "\"";
        count = std::stoul(digits);
        if (count == 0) return "array length must be at least 1 in \"" + spec + "\"";
        base = spec.substr(0, bracket);
        array = true;
    }
    size_t size = 0;
    if (!scalar_kind(base, field.kind, size, align, element))
        return "unknown field type \"" + spec +
               "\" (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64, string, entity, "
               "or an array such as float32[3])";
    if (array && field.kind == ecs::FieldKind::string) return "arrays of strings are not supported (\"" + spec + "\")";
    field.count = count;
    field.array = array;
    field.elem_size = size;
    return {};
}

// -- what the ops do, given a layout ---------------------------------------------------------------

inline void layout_default(const PyLayout& l, void* p) {
    std::memset(p, 0, l.size); // numbers 0, bools false, entities INVALID_ENTITY
    if (l.plain) return;
    for (const PyField& f : l.fields)
        if (f.kind == ecs::FieldKind::string) ::new (static_cast<unsigned char*>(p) + f.offset) std::string();
}

inline void layout_copy(const PyLayout& l, void* dst, const void* src) {
    if (l.plain) {
        std::memcpy(dst, src, l.size);
        return;
    }
    std::memset(dst, 0, l.size);
    auto* d = static_cast<unsigned char*>(dst);
    const auto* s = static_cast<const unsigned char*>(src);
    for (const PyField& f : l.fields) {
        if (f.kind == ecs::FieldKind::string)
            ::new (d + f.offset) std::string(*reinterpret_cast<const std::string*>(s + f.offset));
        else
            std::memcpy(d + f.offset, s + f.offset, f.elem_size * f.count);
    }
}

inline void layout_move(const PyLayout& l, void* dst, void* src) {
    std::memset(dst, 0, l.size);
    auto* d = static_cast<unsigned char*>(dst);
    auto* s = static_cast<unsigned char*>(src);
    for (const PyField& f : l.fields) {
        if (f.kind == ecs::FieldKind::string)
            ::new (d + f.offset) std::string(std::move(*reinterpret_cast<std::string*>(s + f.offset)));
        else
            std::memcpy(d + f.offset, s + f.offset, f.elem_size * f.count);
    }
}

inline void layout_destroy(const PyLayout& l, void* p) {
    for (const PyField& f : l.fields)
        if (f.kind == ecs::FieldKind::string)
            reinterpret_cast<std::string*>(static_cast<unsigned char*>(p) + f.offset)->~basic_string();
}

inline void put_u32(std::ostream& out, uint32_t v) {
    const char b[4] = {char(v & 0xFF), char((v >> 8) & 0xFF), char((v >> 16) & 0xFF), char((v >> 24) & 0xFF)};
    out.write(b, 4);
}

inline void layout_write(const PyLayout& l, std::ostream& out, const void* p) {
    const auto* base = static_cast<const unsigned char*>(p);
    for (const PyField& f : l.fields) {
        if (f.kind == ecs::FieldKind::string) {
            const std::string& s = *reinterpret_cast<const std::string*>(base + f.offset);
            put_u32(out, static_cast<uint32_t>(s.size()));
            out.write(s.data(), static_cast<std::streamsize>(s.size()));
        } else {
            out.write(reinterpret_cast<const char*>(base + f.offset), static_cast<std::streamsize>(f.elem_size * f.count));
        }
    }
}

/// Reads what layout_write wrote into uninitialised `p`; on malformed input sets failbit and leaves
/// nothing constructed. Strings are read in bounded chunks (the length prefix is not trusted).
inline void layout_read(const PyLayout& l, std::istream& in, void* p) {
    layout_default(l, p);
    auto* base = static_cast<unsigned char*>(p);
    for (const PyField& f : l.fields) {
        if (f.kind == ecs::FieldKind::string) {
            unsigned char b[4];
            if (!in.read(reinterpret_cast<char*>(b), 4)) break;
            uint32_t n = uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
            std::string& s = *reinterpret_cast<std::string*>(base + f.offset);
            char chunk[4096];
            while (n != 0 && in) {
                const uint32_t step = n < sizeof chunk ? n : uint32_t(sizeof chunk);
                if (!in.read(chunk, step)) break;
                s.append(chunk, step);
                n -= step;
            }
        } else {
            in.read(reinterpret_cast<char*>(base + f.offset), static_cast<std::streamsize>(f.elem_size * f.count));
        }
        if (!in) break;
    }
    if (!in) {
        in.setstate(std::ios::failbit);
        layout_destroy(l, p);
    }
}

/// The ComponentOps functions of slot `Slot`.
template <size_t Slot>
struct PySlot {
    static const PyLayout& layout() noexcept { return *py_layouts[Slot]; }
    static void make(void* p) { layout_default(layout(), p); }
    static void copy(void* dst, const void* src) { layout_copy(layout(), dst, src); }
    static void move(void* dst, void* src) { layout_move(layout(), dst, src); }
    static void destroy(void* p) { layout_destroy(layout(), p); }
    static void write(std::ostream& out, const void* p) { layout_write(layout(), out, p); }
    static void read(std::istream& in, void* p) { layout_read(layout(), in, p); }

    static ecs::ComponentOps ops() {
        ecs::ComponentOps o;
        o.size = layout().size;
        o.align = layout().align;
        if (o.size == 0) return o; // a tag: no function is needed
        o.default_construct = &make;
        o.copy_construct = &copy;
        if (!layout().plain) {
            o.move_construct = &move;
            o.destroy = &destroy;
        }
        o.serialize = &write;
        o.deserialize = &read;
        return o;
    }
};

template <size_t... Slots>
ecs::ComponentOps ops_of_slot(size_t slot, std::index_sequence<Slots...>) {
    using Maker = ecs::ComponentOps (*)();
    static const Maker makers[] = {&PySlot<Slots>::ops...};
    return makers[slot]();
}

/// Builds the layout of `name` from (field name, type text) pairs; returns an error text, empty on
/// success (then `out` is complete but has no id and no slot yet).
inline std::string build_layout(const std::string& name, const std::vector<std::pair<std::string, std::string>>& decl,
                                PyLayout& out) {
    out.name = name;
    out.fields.clear();
    out.fields.reserve(decl.size());
    std::vector<const ecs::FieldInfo*> elements;
    size_t offset = 0;
    for (const auto& item : decl) {
        if (item.first.empty()) return "field names must not be empty";
        PyField f;
        f.name = item.first;
        const ecs::FieldInfo* element = nullptr;
        size_t align = 1;
        const std::string problem = parse_field_type(item.second, f, element, align);
        if (!problem.empty()) return "field \"" + item.first + "\": " + problem;
        offset = (offset + align - 1) / align * align;
        f.offset = offset;
        offset += f.elem_size * f.count;
        if (align > out.align) out.align = align;
        if (f.kind == ecs::FieldKind::string) out.plain = false;
        out.spec += f.name + ":" + item.second + ",";
        out.fields.push_back(std::move(f));
        elements.push_back(element);
    }
    out.size = (offset + out.align - 1) / out.align * out.align;
    out.infos.clear();
    for (size_t i = 0; i < out.fields.size(); ++i) {
        const PyField& f = out.fields[i];
        ecs::FieldInfo info = *elements[i];
        info.name = f.name;
        info.offset = f.offset;
        if (f.array) {
            info.kind = ecs::FieldKind::array;
            info.element_kind = f.kind;
            info.element_count = f.count;
            info.element_size = f.elem_size;
            info.size = f.elem_size * f.count;
            info.element = elements[i];
        }
        out.infos.push_back(info);
    }
    return {};
}

} // namespace ecs_python
