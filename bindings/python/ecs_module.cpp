// The Python module `ecs` (pybind11): worlds, entities, components by name as dicts of their
// reflected fields, queries by component names, snapshots to bytes and back, component types
// declared from Python, and errors as Python exceptions.
//
// Safety: the library's preconditions are checked here BEFORE each call (dead entities, unknown
// names, wrong field types, non-empty targets), and each misuse raises KeyError, ValueError,
// TypeError (ecs.FieldTypeError, also a ValueError) or RuntimeError. As a second line of defence the
// module compiles the library with an ECS_ASSERT that records the failure instead of aborting: the
// library then refuses the operation (ECS_CHECK) and leaves the world unchanged, and the binding
// raises RuntimeError with the library's message. The interpreter never crashes on misuse.
#include <string>

namespace ecs_python {
/// The message of the last library assertion that failed on this thread (empty: none).
inline std::string& failed_assert() {
    thread_local std::string message;
    return message;
}
inline void note_failed_assert(const char* message) noexcept {
    try {
        if (failed_assert().empty()) failed_assert() = message != nullptr ? message : "ecs assertion failed";
    } catch (...) {
    }
}
} // namespace ecs_python

#define ECS_ASSERT(cond, msg) ((cond) ? (void)0 : ::ecs_python::note_failed_assert(msg))

#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <sstream>
#include <unordered_map>
#include <vector>

#include <ecs/ecs.hpp>
#include <ecs/json.hpp>
#include <ecs/query_expr.hpp>
#include <ecs/runtime.hpp>

#include "demo_types.hpp"
#include "py_layout.hpp"
#include "py_columnar.hpp" // [columnar] World.columns, World.to_records

namespace py = pybind11;

namespace ecs_python {

// -------------------------------------------------------------------------------------------------
// Errors
// -------------------------------------------------------------------------------------------------

/// ecs.FieldTypeError: a field given a value of the wrong type (a TypeError and a ValueError).
PyObject* field_type_error = nullptr;

[[noreturn]] void raise(PyObject* type, const std::string& message) {
    PyErr_SetString(type, message.c_str());
    throw py::error_already_set();
}
[[noreturn]] void key_error(const std::string& message) { raise(PyExc_KeyError, message); }
[[noreturn]] void value_error(const std::string& message) { raise(PyExc_ValueError, message); }
[[noreturn]] void runtime_error(const std::string& message) { raise(PyExc_RuntimeError, message); }
[[noreturn]] void type_error(const std::string& message) { raise(field_type_error, message); }

/// Clears the assertion note before a library call and turns a note left by it into RuntimeError.
struct LibraryCall {
    LibraryCall() { failed_assert().clear(); }
    void check() {
        if (failed_assert().empty()) return;
        const std::string message = "ecs refused the operation: " + failed_assert();
        failed_assert().clear();
        runtime_error(message);
    }
};

std::string entity_text(ecs::Entity e) { return std::to_string(e.index) + "v" + std::to_string(e.generation); }

// -------------------------------------------------------------------------------------------------
// Component bindings: what the module knows of each component name
// -------------------------------------------------------------------------------------------------

enum class Conversion : uint8_t { fields, children };

struct Binding {
    std::string name;
    ecs::ComponentTypeID id = ecs::INVALID_COMPONENT_ID;
    ecs::FieldView fields;
    Conversion conversion = Conversion::fields;
    PyLayout* layout = nullptr; ///< declared from Python, else nullptr
};

std::vector<Binding>& bindings() {
    static std::vector<Binding> list;
    return list;
}
std::unordered_map<std::string, size_t>& binding_by_name() {
    static std::unordered_map<std::string, size_t> map;
    return map;
}
std::unordered_map<ecs::ComponentTypeID, size_t>& binding_by_id() {
    static std::unordered_map<ecs::ComponentTypeID, size_t> map;
    return map;
}

void add_binding(Binding b) {
    binding_by_name()[b.name] = bindings().size();
    binding_by_id()[b.id] = bindings().size();
    bindings().push_back(std::move(b));
}

const Binding& binding(const std::string& name) {
    const auto it = binding_by_name().find(name);
    if (it == binding_by_name().end()) key_error("unknown component \"" + name + "\" (see ecs.component_names())");
    return bindings()[it->second];
}

const Binding* binding_of(ecs::ComponentTypeID id) {
    const auto it = binding_by_id().find(id);
    return it == binding_by_id().end() ? nullptr : &bindings()[it->second];
}

template <typename T>
void bind_typed(const char* name) {
    ecs::register_component<T>(name);
    add_binding(Binding{name, ecs::component_id<T>(), ecs::fields<T>(), Conversion::fields, nullptr});
}

/// The components of the stress harness (examples/stress_harness), under the names and with the
/// layouts it registers for its snapshots, so the module reads and writes its snapshots.
void bind_demo_types() {
    bind_typed<demo::Position>("Position");
    bind_typed<demo::Velocity>("Velocity");
    bind_typed<demo::Acceleration>("Acceleration");
    bind_typed<demo::Mass>("Mass");
    bind_typed<demo::Color>("Color");
    bind_typed<demo::Rotation>("Rotation");
    bind_typed<demo::Spin>("Spin");
    bind_typed<demo::Scale>("Scale");
    bind_typed<demo::Lifetime>("Lifetime");
    bind_typed<demo::Orbit>("Orbit");
    bind_typed<demo::Leader>("Leader");
    bind_typed<demo::Dying>("Dying");
    bind_typed<demo::Poisoned>("Poisoned"); // sparse storage: the untyped calls reach its set
    bind_typed<ecs::LocalTransform>("ecs::LocalTransform");
    bind_typed<ecs::WorldTransform>("ecs::WorldTransform");
    bind_typed<ecs::Parent>("ecs::Parent");
    ecs::register_component<ecs::Children>("ecs::Children", &ecs::write_children, &ecs::read_children);
    add_binding(Binding{"ecs::Children", ecs::component_id<ecs::Children>(), ecs::FieldView{}, Conversion::children, nullptr});
}

// -------------------------------------------------------------------------------------------------
// Field values <-> Python objects
// -------------------------------------------------------------------------------------------------

py::object read_fields(ecs::FieldView fields, const unsigned char* base);

template <typename T>
T load(const unsigned char* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

py::object read_value(const ecs::FieldInfo& f, ecs::FieldKind kind, const unsigned char* p) {
    using K = ecs::FieldKind;
    switch (kind) {
    case K::boolean: return py::bool_(load<bool>(p));
    case K::int8: return py::int_(load<int8_t>(p));
    case K::int16: return py::int_(load<int16_t>(p));
    case K::int32: return py::int_(load<int32_t>(p));
    case K::int64: return py::int_(load<int64_t>(p));
    case K::uint8: return py::int_(load<uint8_t>(p));
    case K::uint16: return py::int_(load<uint16_t>(p));
    case K::uint32: return py::int_(load<uint32_t>(p));
    case K::uint64: return py::int_(load<uint64_t>(p));
    case K::float32: return py::float_(static_cast<double>(load<float>(p)));
    case K::float64: return py::float_(load<double>(p));
    case K::string: {
        const std::string& s = *reinterpret_cast<const std::string*>(p);
        PyObject* text = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
        if (text == nullptr) throw py::error_already_set();
        return py::reinterpret_steal<py::object>(text);
    }
    case K::entity: return py::cast(load<ecs::Entity>(p));
    case K::nested: return read_fields(f.nested(), p);
    case K::array: {
        const ecs::FieldInfo& element = *f.element;
        py::list items;
        for (size_t i = 0; i < f.element_count; ++i)
            items.append(read_value(element, element.kind, p + i * f.element_size));
        return std::move(items);
    }
    }
    return py::none();
}

py::object read_fields(ecs::FieldView fields, const unsigned char* base) {
    py::dict out;
    for (const ecs::FieldInfo& f : fields)
        out[py::str(std::string(f.name))] = read_value(f, f.kind, base + f.offset);
    return std::move(out);
}

std::string type_name_of(py::handle v) { return py::str(py::type::of(v).attr("__name__")); }

template <typename T>
void store_integer(unsigned char* p, py::handle v, const std::string& path) {
    if (!PyLong_Check(v.ptr()) || PyBool_Check(v.ptr()))
        type_error("field " + path + " takes an int, not " + type_name_of(v));
    int overflow = 0;
    bool in_range = false;
    T value{};
    if constexpr (std::is_signed_v<T>) {
        const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
        in_range = overflow == 0 && x >= static_cast<long long>(std::numeric_limits<T>::min()) &&
                   x <= static_cast<long long>(std::numeric_limits<T>::max());
        value = static_cast<T>(x);
    } else {
        const long long probe = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
        if (overflow == 0 && probe < 0) {
            in_range = false;
        } else {
            const unsigned long long x = PyLong_AsUnsignedLongLong(v.ptr());
            if (PyErr_Occurred() != nullptr) {
                PyErr_Clear();
                in_range = false;
            } else {
                in_range = x <= static_cast<unsigned long long>(std::numeric_limits<T>::max());
                value = static_cast<T>(x);
            }
        }
    }
    if (!in_range) value_error("field " + path + ": " + std::string(py::str(v)) + " is out of range");
    std::memcpy(p, &value, sizeof value);
}

void write_fields(ecs::FieldView fields, unsigned char* base, py::handle values, const std::string& path);

void write_value(const ecs::FieldInfo& f, ecs::FieldKind kind, unsigned char* p, py::handle v, const std::string& path) {
    using K = ecs::FieldKind;
    switch (kind) {
    case K::boolean:
        if (!PyBool_Check(v.ptr())) type_error("field " + path + " takes a bool, not " + type_name_of(v));
        *reinterpret_cast<bool*>(p) = v.ptr() == Py_True;
        return;
    case K::int8: return store_integer<int8_t>(p, v, path);
    case K::int16: return store_integer<int16_t>(p, v, path);
    case K::int32: return store_integer<int32_t>(p, v, path);
    case K::int64: return store_integer<int64_t>(p, v, path);
    case K::uint8: return store_integer<uint8_t>(p, v, path);
    case K::uint16: return store_integer<uint16_t>(p, v, path);
    case K::uint32: return store_integer<uint32_t>(p, v, path);
    case K::uint64: return store_integer<uint64_t>(p, v, path);
    case K::float32:
    case K::float64: {
        if (PyBool_Check(v.ptr()) || !(PyFloat_Check(v.ptr()) || PyLong_Check(v.ptr())))
            type_error("field " + path + " takes a float, not " + type_name_of(v));
        const double d = PyFloat_AsDouble(v.ptr());
        if (PyErr_Occurred() != nullptr) {
            PyErr_Clear();
            value_error("field " + path + ": the number is out of range");
        }
        if (kind == K::float32) {
            const float x = static_cast<float>(d);
            std::memcpy(p, &x, sizeof x);
        } else {
            std::memcpy(p, &d, sizeof d);
        }
        return;
    }
    case K::string: {
        if (!PyUnicode_Check(v.ptr())) type_error("field " + path + " takes a str, not " + type_name_of(v));
        Py_ssize_t n = 0;
        const char* text = PyUnicode_AsUTF8AndSize(v.ptr(), &n);
        if (text == nullptr) {
            PyErr_Clear();
            value_error("field " + path + ": the text cannot be encoded as UTF-8");
        }
        reinterpret_cast<std::string*>(p)->assign(text, static_cast<size_t>(n));
        return;
    }
    case K::entity: {
        if (!py::isinstance<ecs::Entity>(v)) type_error("field " + path + " takes an ecs.Entity, not " + type_name_of(v));
        const ecs::Entity e = v.cast<ecs::Entity>();
        std::memcpy(p, &e, sizeof e);
        return;
    }
    case K::nested:
        if (!PyDict_Check(v.ptr())) type_error("field " + path + " takes a dict, not " + type_name_of(v));
        write_fields(f.nested(), p, v, path + ".");
        return;
    case K::array: {
        if (!PyList_Check(v.ptr()) && !PyTuple_Check(v.ptr()))
            type_error("field " + path + " takes a list, not " + type_name_of(v));
        const py::sequence items = py::reinterpret_borrow<py::sequence>(v);
        if (items.size() != f.element_count)
            value_error("field " + path + " takes a list of " + std::to_string(f.element_count) + " items, not " +
                        std::to_string(items.size()));
        const ecs::FieldInfo& element = *f.element;
        for (size_t i = 0; i < f.element_count; ++i)
            write_value(element, element.kind, p + i * f.element_size, items[i], path + "[" + std::to_string(i) + "]");
        return;
    }
    }
}

/// Writes the entries of dict `values` into the object at `base` described by `fields`. Fields the
/// dict does not name keep their values. `path` prefixes field names in messages ("Position." ...).
void write_fields(ecs::FieldView fields, unsigned char* base, py::handle values, const std::string& path) {
    const py::dict dict = py::reinterpret_borrow<py::dict>(values);
    for (const auto item : dict) {
        if (!PyUnicode_Check(item.first.ptr())) type_error("field names are str, not " + type_name_of(item.first));
        const std::string key = py::str(item.first);
        const ecs::FieldInfo* f = fields.find(key);
        if (f == nullptr) {
            std::string known;
            for (const ecs::FieldInfo& g : fields) known += (known.empty() ? "" : ", ") + std::string(g.name);
            key_error("unknown field " + path + key + " (fields: " + (known.empty() ? "none" : known) + ")");
        }
        write_value(*f, f->kind, base + f->offset, item.second, path + key);
    }
}

/// One component value outside the world, built by value_initialise and destroyed on scope exit.
class Scratch {
public:
    explicit Scratch(ecs::ComponentTypeID id) : column_(ecs::column_factory(id)()) {
        storage_ = ::operator new(column_.type_size == 0 ? 1 : column_.type_size, std::align_val_t(column_.elem_align));
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    ~Scratch() {
        if (live_) column_.destroy_at(storage_);
        ::operator delete(storage_, std::align_val_t(column_.elem_align));
    }
    /// Value-initialises (the module's types are all default-constructible).
    void make_default(ecs::ComponentTypeID id) {
        if (!column_.is_tag) ecs::detail::default_constructors[id].load()(storage_);
        live_ = true;
    }
    /// Copy-constructs from the object at `src`.
    void make_copy(const void* src) {
        if (!column_.is_tag) column_.copy(storage_, src);
        live_ = true;
    }
    [[nodiscard]] unsigned char* bytes() const noexcept { return static_cast<unsigned char*>(storage_); }

private:
    ecs::ComponentColumn column_;
    void* storage_ = nullptr;
    bool live_ = false;
};

/// Fills `scratch` (holding a live value of `b`) from `values` (a dict, or None for nothing).
void apply(const Binding& b, Scratch& scratch, py::handle values) {
    if (values.is_none()) return;
    if (!PyDict_Check(values.ptr())) type_error("component " + b.name + " takes a dict or None, not " + type_name_of(values));
    if (b.conversion == Conversion::children) {
        auto* children = reinterpret_cast<ecs::Children*>(scratch.bytes());
        const py::dict dict = py::reinterpret_borrow<py::dict>(values);
        for (const auto item : dict) {
            const std::string key = py::str(item.first);
            if (key != "entities") key_error("unknown field " + b.name + "." + key + " (fields: entities)");
            if (!PyList_Check(item.second.ptr()) && !PyTuple_Check(item.second.ptr()))
                type_error("field " + b.name + ".entities takes a list of ecs.Entity");
            std::vector<ecs::Entity> list;
            for (const auto e : py::reinterpret_borrow<py::sequence>(item.second)) {
                if (!py::isinstance<ecs::Entity>(e)) type_error("field " + b.name + ".entities takes ecs.Entity items");
                list.push_back(e.cast<ecs::Entity>());
            }
            children->entities = std::move(list);
        }
        return;
    }
    write_fields(b.fields, scratch.bytes(), values, b.name + ".");
}

py::object to_python(const Binding& b, const void* value) {
    if (b.conversion == Conversion::children) {
        py::list list;
        for (const ecs::Entity e : static_cast<const ecs::Children*>(value)->entities) list.append(py::cast(e));
        py::dict d;
        d["entities"] = list;
        return std::move(d);
    }
    return read_fields(b.fields, static_cast<const unsigned char*>(value));
}

// -------------------------------------------------------------------------------------------------
// Components declared from Python
// -------------------------------------------------------------------------------------------------

ecs::ComponentTypeID declare_component(const std::string& name, const py::dict& fields) {
    if (name.empty()) value_error("a component name must not be empty");
    if (name.size() > ecs::MAX_COMPONENT_NAME_LENGTH) value_error("the component name is too long");
    std::vector<std::pair<std::string, std::string>> decl;
    for (const auto item : fields) {
        if (!PyUnicode_Check(item.first.ptr()) || !PyUnicode_Check(item.second.ptr()))
            type_error("register_component takes a dict of field name -> type name (both str)");
        decl.emplace_back(py::str(item.first), py::str(item.second));
    }
    auto layout = std::make_unique<PyLayout>();
    const std::string problem = build_layout(name, decl, *layout);
    if (!problem.empty()) value_error("register_component(\"" + name + "\"): " + problem);

    const auto known = binding_by_name().find(name);
    if (known != binding_by_name().end()) {
        const Binding& b = bindings()[known->second];
        if (b.layout != nullptr && b.layout->spec == layout->spec) return b.id; // the same declaration again
        value_error("register_component: \"" + name + "\" is already registered with other fields");
    }
    if (ecs::find_component(name) != ecs::INVALID_COMPONENT_ID)
        value_error("register_component: \"" + name + "\" names a component type of the program");
    if (py_layout_count >= PY_SLOTS)
        runtime_error("register_component: at most " + std::to_string(PY_SLOTS) + " component types can be declared");

    const size_t slot = py_layout_count;
    py_layouts[slot] = layout.get();
    const ecs::ComponentOps ops = ops_of_slot(slot, std::make_index_sequence<PY_SLOTS>{});
    LibraryCall call;
    const ecs::ComponentTypeID id = ecs::register_runtime_component(
        name.c_str(), ops, ecs::FieldView(layout->infos.data(), layout->infos.size()));
    if (id == ecs::INVALID_COMPONENT_ID) {
        py_layouts[slot] = nullptr;
        call.check();
        runtime_error("register_component: the library refused \"" + name + "\"");
    }
    ++py_layout_count;
    layout->id = id;
    PyLayout* kept = layout.release(); // lives for the rest of the process (its field table is published)
    add_binding(Binding{name, id, ecs::FieldView(kept->infos.data(), kept->infos.size()), Conversion::fields, kept});
    return id;
}

// -------------------------------------------------------------------------------------------------
// World
// -------------------------------------------------------------------------------------------------

struct PyWorld {
    ecs::World world;

    void require_alive(ecs::Entity e) const {
        if (!world.alive(e)) value_error("entity " + entity_text(e) + " is not alive");
    }

    ecs::Entity create(py::object components) {
        LibraryCall call;
        const ecs::Entity e = world.create();
        call.check();
        if (!components.is_none()) {
            if (!PyDict_Check(components.ptr())) {
                world.destroy(e);
                type_error("create takes a dict of component name -> dict (or None)");
            }
            try {
                for (const auto item : py::reinterpret_borrow<py::dict>(components))
                    add(e, py::str(item.first), py::reinterpret_borrow<py::object>(item.second));
            } catch (...) {
                world.destroy(e);
                throw;
            }
        }
        return e;
    }

    bool destroy(ecs::Entity e) {
        if (!world.alive(e)) return false;
        LibraryCall call;
        world.destroy(e);
        call.check();
        return true;
    }

    void add(ecs::Entity e, const std::string& name, py::object values) {
        const Binding& b = binding(name);
        require_alive(e);
        Scratch scratch(b.id);
        scratch.make_default(b.id);
        apply(b, scratch, values);
        LibraryCall call;
        void* placed = world.add_raw(e, b.id, scratch.bytes());
        call.check();
        if (placed == nullptr) runtime_error("add: component " + name + " could not be added");
    }

    void set(ecs::Entity e, const std::string& name, py::object values) {
        const Binding& b = binding(name);
        require_alive(e);
        const void* current = static_cast<const ecs::World&>(world).get_raw(e, b.id);
        if (current == nullptr) key_error("entity " + entity_text(e) + " has no " + name);
        Scratch scratch(b.id);
        scratch.make_copy(current);
        apply(b, scratch, values);
        LibraryCall call;
        (void)world.add_raw(e, b.id, scratch.bytes());
        call.check();
    }

    bool remove(ecs::Entity e, const std::string& name) {
        const Binding& b = binding(name);
        require_alive(e);
        if (!world.has_raw(e, b.id)) return false;
        LibraryCall call;
        world.remove_raw(e, b.id);
        call.check();
        return true;
    }

    py::object get(ecs::Entity e, const std::string& name) const {
        const Binding& b = binding(name);
        require_alive(e);
        const void* value = world.get_raw(e, b.id);
        if (value == nullptr) key_error("entity " + entity_text(e) + " has no " + name);
        return to_python(b, value);
    }

    bool has(ecs::Entity e, const std::string& name) const {
        const Binding& b = binding(name);
        return world.has_raw(e, b.id);
    }

    py::list components(ecs::Entity e) const {
        require_alive(e);
        py::list names;
        world.each_component(e, [&](ecs::ComponentTypeID id, const void*) {
            const Binding* b = binding_of(id);
            names.append(py::str(b != nullptr ? b->name : std::string(ecs::component_info(id).name)));
        });
        return names;
    }

    /// query("Position, !Velocity, Leader|Dying"): one string holding query text (SPEC §3.22);
    /// query("Position", "Velocity"): component names, every one required (the 1.0 form). A single
    /// plain name takes the 1.0 path (KeyError when unknown); text errors raise ValueError.
    py::list query(const py::args& names) {
        if (names.size() == 1 && PyUnicode_Check(names[0].ptr())) {
            const std::string text = py::str(names[0]);
            if (text.find_first_of(",!?|()[]* \t") != std::string::npos) return query_text(text);
        }
        std::vector<ecs::ComponentTypeID> ids;
        for (const auto n : names) {
            if (!PyUnicode_Check(n.ptr())) type_error("query takes component names (str)");
            const ecs::ComponentTypeID id = binding(py::str(n)).id;
            for (ecs::ComponentTypeID seen : ids)
                if (seen == id) value_error("query lists " + std::string(py::str(n)) + " twice");
            ids.push_back(id);
        }
        std::vector<ecs::Entity> found;
        LibraryCall call;
        world.each_raw(ids.data(), ids.size(), [&](ecs::Entity e, void* const*) { found.push_back(e); });
        call.check();
        py::list out;
        for (const ecs::Entity e : found) out.append(py::cast(e));
        return out;
    }

    py::list query_text(const std::string& text) {
        ecs::DynamicQuery q = ecs::query_expr(world, text);
        if (!q) value_error("query: " + q.error());
        std::vector<ecs::Entity> found;
        LibraryCall call;
        q.each([&](ecs::Entity e, void* const*) { found.push_back(e); });
        call.check();
        py::list out;
        for (const ecs::Entity e : found) out.append(py::cast(e));
        return out;
    }

    void set_name(ecs::Entity e, const std::string& name) {
        require_alive(e);
        if (!name.empty()) {
            const ecs::Entity holder = world.lookup(name);
            if (holder != ecs::INVALID_ENTITY && holder != e)
                value_error("the name \"" + name + "\" is taken by entity " + entity_text(holder));
        }
        LibraryCall call;
        world.set_name(e, name);
        call.check();
    }

    std::string name(ecs::Entity e) const {
        require_alive(e);
        return std::string(world.name(e));
    }

    py::object lookup(const std::string& name) const {
        const ecs::Entity e = world.lookup(name);
        return e == ecs::INVALID_ENTITY ? py::none() : py::cast(e);
    }

    py::bytes serialize() const {
        for (const ecs::Archetype* a : ecs::detail::WorldAccess::archetypes(world)) {
            if (a->size() == 0) continue;
            for (ecs::ComponentTypeID t : a->types)
                if (ecs::detail::component_registry().find(t) == nullptr)
                    runtime_error("serialize: component " + std::string(ecs::component_info(t).name) +
                                  " cannot be saved (no serialize functions)");
        }
        std::ostringstream out;
        LibraryCall call;
        ecs::serialize(world, out);
        call.check();
        if (!out) runtime_error("serialize: writing the snapshot failed");
        return py::bytes(out.str());
    }

    void deserialize(const py::bytes& data) {
        if (world.count() != 0)
            runtime_error("deserialize: the world must be empty (it has " + std::to_string(world.count()) + " entities)");
        std::istringstream in{static_cast<std::string>(data)};
        LibraryCall call;
        const ecs::DeserializeResult r = ecs::deserialize(world, in);
        call.check();
        if (!r) value_error("deserialize: " + r.message);
    }

    py::list entities() const {
        py::list out;
        std::vector<ecs::Entity> found;
        const_cast<ecs::World&>(world).each_raw(nullptr, 0, [&](ecs::Entity e, void* const*) { found.push_back(e); });
        for (const ecs::Entity e : found) out.append(py::cast(e));
        return out;
    }
};

} // namespace ecs_python

PYBIND11_MODULE(ecs, m) {
    using namespace ecs_python;
    m.doc() = "ecs: worlds, entities and components of the ecs C++ library, by component name";

    PyObject* bases = PyTuple_Pack(2, PyExc_TypeError, PyExc_ValueError);
    field_type_error = PyErr_NewException("ecs.FieldTypeError", bases, nullptr);
    Py_DECREF(bases);
    if (field_type_error == nullptr) throw py::error_already_set();
    m.attr("FieldTypeError") = py::reinterpret_borrow<py::object>(field_type_error);

    bind_demo_types();

    py::class_<ecs::Entity>(m, "Entity", "A handle: a slot index and a generation")
        .def(py::init<>())
        .def(py::init([](uint32_t index, uint32_t generation) { return ecs::Entity{index, generation}; }), py::arg("index"),
             py::arg("generation"))
        .def_readonly("index", &ecs::Entity::index)
        .def_readonly("generation", &ecs::Entity::generation)
        .def("__eq__", [](ecs::Entity a, py::object b) {
            return py::isinstance<ecs::Entity>(b) && a == b.cast<ecs::Entity>();
        })
        .def("__ne__", [](ecs::Entity a, py::object b) {
            return !(py::isinstance<ecs::Entity>(b) && a == b.cast<ecs::Entity>());
        })
        .def("__lt__", [](ecs::Entity a, ecs::Entity b) { return a < b; })
        .def("__hash__", [](ecs::Entity e) { return static_cast<Py_ssize_t>(ecs::EntityHash{}(e) >> 1); })
        .def("__bool__", [](ecs::Entity e) { return e != ecs::INVALID_ENTITY; })
        .def("__repr__", [](ecs::Entity e) {
            return "Entity(index=" + std::to_string(e.index) + ", generation=" + std::to_string(e.generation) + ")";
        });
    m.attr("INVALID_ENTITY") = ecs::INVALID_ENTITY;

    py::class_<PyWorld>(m, "World", "A world of entities and their components")
        .def(py::init<>())
        .def("create", &PyWorld::create, py::arg("components") = py::none(),
             "Creates an entity, optionally with components: create({'Position': {'x': 1}})")
        .def("destroy", &PyWorld::destroy, py::arg("entity"), "Destroys an entity; False when it was not alive")
        .def("alive", [](const PyWorld& w, ecs::Entity e) { return w.world.alive(e); }, py::arg("entity"))
        .def("count", [](const PyWorld& w) { return w.world.count(); }, "Number of live entities")
        .def("__len__", [](const PyWorld& w) { return w.world.count(); })
        .def("add", &PyWorld::add, py::arg("entity"), py::arg("component"), py::arg("values") = py::none(),
             "Adds (or replaces) a component: default values, then the fields the dict gives")
        .def("set", &PyWorld::set, py::arg("entity"), py::arg("component"), py::arg("values"),
             "Changes the fields the dict gives of a component the entity has")
        .def("remove", &PyWorld::remove, py::arg("entity"), py::arg("component"),
             "Removes a component; False when the entity did not have it")
        .def("get", &PyWorld::get, py::arg("entity"), py::arg("component"), "The component's fields as a dict")
        .def("has", &PyWorld::has, py::arg("entity"), py::arg("component"))
        .def("components", &PyWorld::components, py::arg("entity"), "Names of the entity's components")
        .def("query", &PyWorld::query,
             "Entities matching query text, query('Position, !Velocity, Leader|Dying'), or having every named "
             "component, query('Position', 'Velocity')")
        .def("entities", &PyWorld::entities, "Every live entity")
        .def("set_name", &PyWorld::set_name, py::arg("entity"), py::arg("name"))
        .def("name", &PyWorld::name, py::arg("entity"))
        .def("lookup", &PyWorld::lookup, py::arg("name"), "The entity with that name, or None")
        .def("serialize", &PyWorld::serialize, "A snapshot of the world as bytes")
        .def("deserialize", &PyWorld::deserialize, py::arg("data"), "Loads a snapshot into this (empty) world")
        .def_static("from_bytes", [](const py::bytes& data) {
            auto w = std::make_unique<PyWorld>();
            w->deserialize(data);
            return w;
        }, py::arg("data"), "A new world loaded from a snapshot")
        .def("describe", [](const PyWorld& w) { return ecs::describe(w.world); }, "A readable report of the world")
        .def("to_json", [](const PyWorld& w, ecs::Entity e) {
            w.require_alive(e);
            return ecs::to_json(w.world, e);
        }, py::arg("entity"), "The entity's reflected components as JSON text")
        // ---- [columnar] numpy views of a component's columns; the Recorder's columns as arrays ----
        .def("columns", [](const PyWorld& w, const std::string& name) {
            const Binding& b = binding(name);
            if (ecs::component_info(b.id).tag || !ecs::reflected(b.id))
                value_error(name + " has no reflected fields to view");
            return columnar_columns(w.world, b.id, ecs::fields(b.id));
        }, py::arg("component"),
             "One read-only numpy structured array per table holding the component, viewing the world's "
             "memory (valid until the next structural change)")
        .def("to_records", [](const PyWorld& w, const std::string& names) {
            std::vector<ecs::ComponentTypeID> ids;
            size_t begin = 0;
            while (begin <= names.size()) {
                size_t end = names.find(',', begin);
                if (end == std::string::npos) end = names.size();
                std::string name = names.substr(begin, end - begin);
                name.erase(0, name.find_first_not_of(" \t"));
                name.erase(name.find_last_not_of(" \t") + 1);
                if (name.empty()) value_error("to_records: empty component name in \"" + names + "\"");
                const Binding& b = binding(name);
                if (!ecs::reflected(b.id) && !ecs::component_info(b.id).tag) value_error(name + " is not reflected");
                if (std::find(ids.begin(), ids.end(), b.id) != ids.end()) value_error("to_records lists " + name + " twice");
                ids.push_back(b.id);
                begin = end + 1;
            }
            return columnar_records(w.world, ids);
        }, py::arg("components"),
             "{column: numpy array} for every entity having all the comma-separated components, named as "
             "the Recorder's columns (entity_id, position__x, ...)")
        // ---- [/columnar] ----
        .def("check_invariants", [](const PyWorld& w) { return w.world.check_invariants(); });

    m.def("register_component", &declare_component, py::arg("name"), py::arg("fields"),
          "Declares a component type: register_component('Health', {'hp': 'int32', 'max': 'float32'})");
    m.def("component_names", [] {
        py::list names;
        for (const Binding& b : bindings()) names.append(b.name);
        return names;
    }, "Names of the components the module knows");
    m.def("component_fields", [](const std::string& name) {
        const Binding& b = binding(name);
        py::dict out;
        if (b.conversion == Conversion::children) {
            out["entities"] = "list[entity]";
            return out;
        }
        for (const ecs::FieldInfo& f : b.fields) {
            std::string kind(ecs::field_kind_name(f.kind));
            if (f.kind == ecs::FieldKind::array)
                kind = std::string(ecs::field_kind_name(f.element_kind)) + "[" + std::to_string(f.element_count) + "]";
            out[py::str(std::string(f.name))] = kind;
        }
        return out;
    }, py::arg("name"), "The fields of a component: name -> type");
    m.def("load", [](const py::bytes& data) {
        auto w = std::make_unique<PyWorld>();
        w->deserialize(data);
        return w;
    }, py::arg("data"), "A new world loaded from a snapshot");
}
