// Model-based randomized test: a World is driven side by side with a plain reference model through
// long seeded random sequences of operations; after every step the world's observable state (every
// entity's components and values, counts, query totals, observer firings, object lifetimes) must
// match the model, and World::check_invariants() must hold.
//
// Change detection (ROADMAP-1.0 B): the world tracks Pod and, in most runs, string from a random step
// on; the model keeps per entity an "added" and a "changed" stamp of its own logical clock for each,
// and query handles with Changed<...> / Added<...> must visit exactly what the stamps predict (their
// count() is checked after every step, their runs at random points).
//
// Replay a failure: ECS_MODEL_SEED=<seed> ECS_MODEL_STEPS=<steps> ./ecs_tests "<main test name>"
// (the failure message prints the exact command). The hidden "[.slow]" variant runs millions of steps.
//
// fuzz/fuzz_ops.cpp reuses this model with ECS_MODEL_NO_TESTS defined: bytes instead of a seed.

#ifndef ECS_MODEL_NO_TESTS
#  include "catch.hpp"
#endif

#include <ecs/builtin/hierarchy_ops.hpp>
#include <ecs/command_buffer.hpp>
#include <ecs/prefab.hpp>
#include <ecs/rollback.hpp>
#include <ecs/serialization.hpp>
#include <ecs/system.hpp>
#include <ecs/world.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <istream>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

namespace {

// ------------------------------------------------------------------------------------------------
// Lifetime accounting: every tracked object registers its address on construction and unregisters
// it on destruction, so leaks, double destruction and destruction of never-constructed storage are
// all caught, not only unbalanced totals.
// ------------------------------------------------------------------------------------------------

struct ModelLife {
    long constructed = 0;
    long destroyed = 0;
    long bad = 0; // destroyed an address with no live object, or constructed over a live one
    std::unordered_set<const void*> live;
    long empty_constructed = 0; // ModelEmptyCounted has no address of its own worth tracking
    long empty_destroyed = 0;
};

ModelLife& model_life() {
    static ModelLife l;
    return l;
}

struct Tracker {
    Tracker() noexcept { born(); }
    Tracker(const Tracker&) noexcept { born(); }
    Tracker(Tracker&&) noexcept { born(); }
    Tracker& operator=(const Tracker&) noexcept { return *this; }
    Tracker& operator=(Tracker&&) noexcept { return *this; }
    ~Tracker() {
        ModelLife& l = model_life();
        ++l.destroyed;
        if (l.live.erase(this) == 0) ++l.bad;
    }
    void born() noexcept {
        ModelLife& l = model_life();
        ++l.constructed;
        if (!l.live.insert(this).second) ++l.bad;
    }
};

// ------------------------------------------------------------------------------------------------
// Component kinds. std::string is used directly (short strings are in the SSO buffer).
// ------------------------------------------------------------------------------------------------

struct ModelMoveOnly {
    std::unique_ptr<int> p;
    Tracker t;
    explicit ModelMoveOnly(int v) : p(std::make_unique<int>(v)) {}
    ModelMoveOnly(ModelMoveOnly&&) noexcept = default;
    ModelMoveOnly& operator=(ModelMoveOnly&&) noexcept = default;
};

struct alignas(64) ModelAligned {
    int v = 0;
    Tracker t;
    ModelAligned() = default;
    explicit ModelAligned(int value) : v(value) {}
};

struct ModelTag {};

/// Empty but with user-written special members: stored with a one-byte stride, not as a tag.
struct ModelEmptyCounted {
    ModelEmptyCounted() noexcept { ++model_life().empty_constructed; }
    ModelEmptyCounted(const ModelEmptyCounted&) noexcept { ++model_life().empty_constructed; }
    ModelEmptyCounted(ModelEmptyCounted&&) noexcept { ++model_life().empty_constructed; }
    ModelEmptyCounted& operator=(const ModelEmptyCounted&) noexcept = default;
    ModelEmptyCounted& operator=(ModelEmptyCounted&&) noexcept = default;
    ~ModelEmptyCounted() { ++model_life().empty_destroyed; }
};

struct ModelPod {
    int32_t v;
    float f;
};

/// Large rows: an archetype holding it starts at the minimum capacity (16) and grows often.
struct ModelBig {
    int v = 0;
    std::array<unsigned char, 1500> bytes{};
    Tracker t;
};

struct ModelNoDefault {
    int v;
    Tracker t;
    explicit ModelNoDefault(int value) : v(value) {}
};

/// Stored sparse (component_traits below): a short string (in the object) and a tracked object.
struct ModelSparse {
    std::string s;
    Tracker t;
};

} // namespace

template <>
struct ecs::component_traits<ModelSparse> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};

namespace {

static_assert(std::is_trivially_copyable_v<ModelPod>, "the POD kind must take the memcpy paths");
static_assert(!std::is_default_constructible_v<ModelNoDefault>, "must not be default-constructible");
static_assert(!std::is_copy_constructible_v<ModelMoveOnly>, "must be move-only");
static_assert(std::is_empty_v<ModelTag> && std::is_empty_v<ModelEmptyCounted>, "empty kinds");

// Relationships (relation.hpp): Likes has several targets and unrelates its sources when a target
// dies; ChildOf is exclusive and destroys its sources with their target.
struct ModelLikes {};
struct ModelChildOf {};
enum RelKind : int { R_LIKES, R_CHILD, R_COUNT };
const char* const relation_names[R_COUNT] = {"Likes", "ChildOf"};

} // namespace

template <>
struct ecs::relation_traits<ModelChildOf> {
    static constexpr bool exclusive = true;
    static constexpr ecs::OnDeleteTarget on_delete_target = ecs::OnDeleteTarget::destroy_sources;
};

namespace {

/// Calls f(static_cast<R*>(nullptr)) for the relationship numbered `r`.
template <typename F>
void with_relation(int r, F&& f) {
    if (r == R_LIKES) f(static_cast<ModelLikes*>(nullptr));
    else f(static_cast<ModelChildOf*>(nullptr));
}

enum Kind : int { K_STR, K_MO, K_AL, K_TAG, K_EC, K_POD, K_ND, K_BIG, K_SP, K_COUNT };
const char* const kind_names[K_COUNT] = {"string", "MoveOnly", "Aligned", "Tag", "EmptyCounted", "Pod", "NoDefault", "Big",
                                         "Sparse"};

/// Per-kind glue: how to make a component from a model value, check it and read it back.
template <typename T>
struct Traits;

template <>
struct Traits<std::string> {
    static constexpr int kind = K_STR;
    static std::string make(int v) {
        // Mostly short strings (SSO, the dangerous case for memcpy relocation), some long ones.
        return v % 3 == 0 ? std::string(40, 'L') + std::to_string(v) : std::to_string(v);
    }
    static bool valid(const std::string&) { return true; }
    static bool matches(const std::string& s, int v) { return s == make(v); }
    static int value(const std::string& s) {
        const size_t at = s.find_first_not_of('L');
        return at == std::string::npos ? -1 : static_cast<int>(std::strtol(s.c_str() + at, nullptr, 10));
    }
    static long weight(const std::string& s) { return static_cast<long>(s.size()); }
    static bool less(const std::string& a, const std::string& b) { return a < b; }
};

template <>
struct Traits<ModelMoveOnly> {
    static constexpr int kind = K_MO;
    static ModelMoveOnly make(int v) { return ModelMoveOnly(v); }
    static bool valid(const ModelMoveOnly& m) { return m.p != nullptr; }
    static bool matches(const ModelMoveOnly& m, int v) { return m.p && *m.p == v; }
    static int value(const ModelMoveOnly& m) { return m.p ? *m.p : -1; }
    static long weight(const ModelMoveOnly& m) { return m.p ? *m.p : -1000000; }
    static bool less(const ModelMoveOnly& a, const ModelMoveOnly& b) { return value(a) < value(b); }
};

template <>
struct Traits<ModelAligned> {
    static constexpr int kind = K_AL;
    static ModelAligned make(int v) { return ModelAligned(v); }
    static bool valid(const ModelAligned& a) { return reinterpret_cast<uintptr_t>(&a) % 64 == 0; }
    static bool matches(const ModelAligned& a, int v) { return valid(a) && a.v == v; }
    static int value(const ModelAligned& a) { return a.v; }
    static long weight(const ModelAligned& a) { return a.v; }
    static bool less(const ModelAligned& a, const ModelAligned& b) { return a.v < b.v; }
};

template <>
struct Traits<ModelTag> {
    static constexpr int kind = K_TAG;
    static ModelTag make(int) { return ModelTag{}; }
    static bool valid(const ModelTag&) { return true; }
    static bool matches(const ModelTag&, int) { return true; }
    static int value(const ModelTag&) { return 0; }
    static long weight(const ModelTag&) { return 1; }
    static bool less(const ModelTag&, const ModelTag&) { return false; }
};

template <>
struct Traits<ModelEmptyCounted> {
    static constexpr int kind = K_EC;
    static ModelEmptyCounted make(int) { return ModelEmptyCounted{}; }
    static bool valid(const ModelEmptyCounted&) { return true; }
    static bool matches(const ModelEmptyCounted&, int) { return true; }
    static int value(const ModelEmptyCounted&) { return 0; }
    static long weight(const ModelEmptyCounted&) { return 1; }
    static bool less(const ModelEmptyCounted&, const ModelEmptyCounted&) { return false; }
};

template <>
struct Traits<ModelPod> {
    static constexpr int kind = K_POD;
    static ModelPod make(int v) { return ModelPod{v, static_cast<float>(v) * 0.5f}; }
    static bool valid(const ModelPod& p) { return p.f == static_cast<float>(p.v) * 0.5f; }
    static bool matches(const ModelPod& p, int v) { return p.v == v && valid(p); }
    static int value(const ModelPod& p) { return p.v; }
    static long weight(const ModelPod& p) { return p.v; }
    static bool less(const ModelPod& a, const ModelPod& b) { return a.v < b.v; }
};

template <>
struct Traits<ModelNoDefault> {
    static constexpr int kind = K_ND;
    static ModelNoDefault make(int v) { return ModelNoDefault(v); }
    static bool valid(const ModelNoDefault&) { return true; }
    static bool matches(const ModelNoDefault& n, int v) { return n.v == v; }
    static int value(const ModelNoDefault& n) { return n.v; }
    static long weight(const ModelNoDefault& n) { return n.v; }
    static bool less(const ModelNoDefault& a, const ModelNoDefault& b) { return a.v < b.v; }
};

template <>
struct Traits<ModelBig> {
    static constexpr int kind = K_BIG;
    static unsigned char byte(int v, size_t i) { return static_cast<unsigned char>((static_cast<size_t>(v) * 7 + i) & 0xFF); }
    static ModelBig make(int v) {
        ModelBig b;
        b.v = v;
        for (size_t i = 0; i < b.bytes.size(); ++i) b.bytes[i] = byte(v, i);
        return b;
    }
    static bool valid(const ModelBig& b) {
        return b.bytes[0] == byte(b.v, 0) && b.bytes[777] == byte(b.v, 777) && b.bytes[1499] == byte(b.v, 1499);
    }
    static bool matches(const ModelBig& b, int v) { return b.v == v && valid(b); }
    static int value(const ModelBig& b) { return b.v; }
    static long weight(const ModelBig& b) { return b.v; }
    static bool less(const ModelBig& a, const ModelBig& b) { return a.v < b.v; }
};

template <>
struct Traits<ModelSparse> {
    static constexpr int kind = K_SP;
    static ModelSparse make(int v) { return ModelSparse{std::to_string(v), {}}; }
    static bool valid(const ModelSparse& x) { return !x.s.empty(); }
    static bool matches(const ModelSparse& x, int v) { return x.s == std::to_string(v); }
    static int value(const ModelSparse& x) { return std::atoi(x.s.c_str()); }
    static long weight(const ModelSparse& x) { return value(x); }
    static bool less(const ModelSparse& a, const ModelSparse& b) { return value(a) < value(b); }
};

template <typename T>
using Bare = std::remove_cv_t<std::remove_reference_t<T>>;

/// Model weight of a value (what a query sums for it).
long model_weight(int kind, int v) {
    switch (kind) {
    case K_STR: return static_cast<long>(Traits<std::string>::make(v).size());
    case K_TAG:
    case K_EC: return 1;
    default: return v;
    }
}

/// Calls f(static_cast<T*>(nullptr)) for every component kind, in Kind order.
template <typename F>
void for_each_kind(F&& f) {
    f(static_cast<std::string*>(nullptr));
    f(static_cast<ModelMoveOnly*>(nullptr));
    f(static_cast<ModelAligned*>(nullptr));
    f(static_cast<ModelTag*>(nullptr));
    f(static_cast<ModelEmptyCounted*>(nullptr));
    f(static_cast<ModelPod*>(nullptr));
    f(static_cast<ModelNoDefault*>(nullptr));
    f(static_cast<ModelBig*>(nullptr));
    f(static_cast<ModelSparse*>(nullptr));
}

/// Calls f(static_cast<T*>(nullptr)) for the kind numbered `kind`.
template <typename F>
void with_kind(int kind, F&& f) {
    switch (kind) {
    case K_STR: f(static_cast<std::string*>(nullptr)); break;
    case K_MO: f(static_cast<ModelMoveOnly*>(nullptr)); break;
    case K_AL: f(static_cast<ModelAligned*>(nullptr)); break;
    case K_TAG: f(static_cast<ModelTag*>(nullptr)); break;
    case K_EC: f(static_cast<ModelEmptyCounted*>(nullptr)); break;
    case K_POD: f(static_cast<ModelPod*>(nullptr)); break;
    case K_ND: f(static_cast<ModelNoDefault*>(nullptr)); break;
    case K_SP: f(static_cast<ModelSparse*>(nullptr)); break;
    default: f(static_cast<ModelBig*>(nullptr)); break;
    }
}

template <typename... Ts>
constexpr unsigned mask_of() {
    return (0u | ... | (1u << Traits<Bare<Ts>>::kind));
}

// ------------------------------------------------------------------------------------------------
// Snapshot functions (register_component) for the kinds that are not trivially copyable. Values are
// little-endian int32 as the host has them; a short read leaves the stream's failbit set and
// constructs nothing.
// ------------------------------------------------------------------------------------------------

template <typename T>
void model_write_value(std::ostream& out, const void* component) {
    const int32_t v = Traits<T>::value(*static_cast<const T*>(component));
    out.write(reinterpret_cast<const char*>(&v), sizeof v);
}

template <typename T>
void model_read_value(std::istream& in, void* storage) {
    int32_t v = 0;
    if (!in.read(reinterpret_cast<char*>(&v), sizeof v)) return;
    ::new (storage) T(Traits<T>::make(v));
}

void model_write_string(std::ostream& out, const void* component) {
    const std::string& s = *static_cast<const std::string*>(component);
    const uint32_t n = static_cast<uint32_t>(s.size());
    out.write(reinterpret_cast<const char*>(&n), sizeof n);
    out.write(s.data(), static_cast<std::streamsize>(n));
}

void model_read_string(std::istream& in, void* storage) {
    uint32_t n = 0;
    if (!in.read(reinterpret_cast<char*>(&n), sizeof n)) return;
    std::string s;
    // Hostile lengths: grow with what the stream really holds, in bounded chunks.
    char chunk[256];
    while (n != 0) {
        const uint32_t part = n < sizeof chunk ? n : static_cast<uint32_t>(sizeof chunk);
        if (!in.read(chunk, part)) return;
        s.append(chunk, part);
        n -= part;
    }
    ::new (storage) std::string(std::move(s));
}

void model_write_big(std::ostream& out, const void* component) {
    const ModelBig& b = *static_cast<const ModelBig*>(component);
    const int32_t v = b.v;
    out.write(reinterpret_cast<const char*>(&v), sizeof v);
    out.write(reinterpret_cast<const char*>(b.bytes.data()), static_cast<std::streamsize>(b.bytes.size()));
}

void model_read_big(std::istream& in, void* storage) {
    ModelBig b;
    int32_t v = 0;
    if (!in.read(reinterpret_cast<char*>(&v), sizeof v)) return;
    if (!in.read(reinterpret_cast<char*>(b.bytes.data()), static_cast<std::streamsize>(b.bytes.size()))) return;
    b.v = v;
    ::new (storage) ModelBig(std::move(b));
}

void model_write_nothing(std::ostream&, const void*) {}
void model_read_empty(std::istream&, void* storage) { ::new (storage) ModelEmptyCounted(); }

template <typename T>
void register_once(const char* name, ecs::ComponentColumn::SerializeFunc ser = nullptr,
                   ecs::ComponentColumn::DeserializeFunc deser = nullptr) {
    // Registration is process-wide: never rename a type another test registered first.
    if (!ecs::component_registered(ecs::component_id<T>())) ecs::register_component<T>(name, ser, deser);
}

/// A runtime component (register_runtime_component), reached only through the untyped calls: an
/// int with a check word, plain bytes, serialized as its 4-byte value.
struct ModelRuntimeValue {
    int32_t v;
    uint32_t check;
};
constexpr uint32_t RUNTIME_CHECK = 0x5EEDF00Du;
void model_runtime_write(std::ostream& out, const void* object) {
    out.write(reinterpret_cast<const char*>(&static_cast<const ModelRuntimeValue*>(object)->v), sizeof(int32_t));
}
void model_runtime_read(std::istream& in, void* storage) {
    int32_t v = 0;
    if (in.read(reinterpret_cast<char*>(&v), sizeof v)) ::new (storage) ModelRuntimeValue{v, RUNTIME_CHECK};
}
ecs::ComponentTypeID model_runtime_id() {
    static const ecs::ComponentTypeID id = [] {
        ecs::ComponentOps ops;
        ops.size = sizeof(ModelRuntimeValue);
        ops.align = alignof(ModelRuntimeValue);
        ops.default_construct = [](void* p) { ::new (p) ModelRuntimeValue{0, RUNTIME_CHECK}; };
        ops.copy_construct = [](void* d, const void* src) { ::new (d) ModelRuntimeValue(*static_cast<const ModelRuntimeValue*>(src)); };
        ops.serialize = &model_runtime_write;
        ops.deserialize = &model_runtime_read;
        return ecs::register_runtime_component("model.Runtime", ops);
    }();
    return id;
}

/// Names every component kind the model (and the fuzz targets) put in worlds.
void register_model_components() {
    static const bool done = [] {
        register_once<std::string>("model.string", &model_write_string, &model_read_string);
        register_once<ModelMoveOnly>("model.MoveOnly", &model_write_value<ModelMoveOnly>, &model_read_value<ModelMoveOnly>);
        register_once<ModelAligned>("model.Aligned", &model_write_value<ModelAligned>, &model_read_value<ModelAligned>);
        register_once<ModelTag>("model.Tag");
        register_once<ModelEmptyCounted>("model.EmptyCounted", &model_write_nothing, &model_read_empty);
        register_once<ModelPod>("model.Pod");
        register_once<ModelNoDefault>("model.NoDefault", &model_write_value<ModelNoDefault>, &model_read_value<ModelNoDefault>);
        register_once<ModelBig>("model.Big", &model_write_big, &model_read_big);
        register_once<ModelSparse>("model.Sparse", &model_write_value<ModelSparse>, &model_read_value<ModelSparse>);
        (void)model_runtime_id();
        // The builtin hierarchy types, under the names builtin/hierarchy.hpp suggests.
        register_once<ecs::Parent>("Parent");
        register_once<ecs::Children>("Children", &ecs::write_children, &ecs::read_children);
        if (!ecs::component_registered(ecs::component_id<ModelLikes>())) ecs::register_relation<ModelLikes>("model.Likes");
        if (!ecs::component_registered(ecs::component_id<ModelChildOf>())) ecs::register_relation<ModelChildOf>("model.ChildOf");
        return true;
    }();
    (void)done;
}

// ------------------------------------------------------------------------------------------------
// The reference model
// ------------------------------------------------------------------------------------------------

/// Components of one entity: a presence mask plus one int per kind (the value it was made from).
struct Content {
    unsigned mask = 0;
    std::array<int, K_COUNT> v{};

    bool has(int k) const { return (mask >> k) & 1u; }
    void set(int k, int value) {
        mask |= 1u << k;
        v[static_cast<size_t>(k)] = value;
    }
    void clear(int k) {
        mask &= ~(1u << k);
        v[static_cast<size_t>(k)] = 0;
    }
    int get(int k) const { return v[static_cast<size_t>(k)]; }
    int tracked_objects() const {
        return int(has(K_MO)) + int(has(K_AL)) + int(has(K_ND)) + int(has(K_BIG)) + int(has(K_SP));
    }
    friend bool operator<(const Content& a, const Content& b) {
        return a.mask != b.mask ? a.mask < b.mask : a.v < b.v;
    }
    friend bool operator==(const Content& a, const Content& b) { return a.mask == b.mask && a.v == b.v; }
};

std::string describe(const Content& c) {
    std::string s = "{";
    for (int k = 0; k < K_COUNT; ++k) {
        if (!c.has(k)) continue;
        if (s.size() > 1) s += ", ";
        s += kind_names[k];
        if (k != K_TAG && k != K_EC) s += "=" + std::to_string(c.get(k));
    }
    return s + "}";
}

std::string describe(ecs::Entity e) {
    return "{" + std::to_string(e.index) + "," + std::to_string(e.generation) + "}";
}

bool tracked_kind(int k) { return k == K_MO || k == K_AL || k == K_ND || k == K_BIG || k == K_SP; }

/// A recorded (deferred or command-buffer) command, as the model replays it at the flush.
/// Create: `e` is the handle reserved when recording (DeferredProxy), or INVALID_ENTITY (the
/// CommandBuffer's create_with / instantiate: bound by content after the flush). AddMany and
/// RemoveMany carry their types in `kinds`/`values`; Call adds a Tag to `e` from inside fn(World&).
struct Cmd {
    enum Op { Destroy, Add, Remove, Create, Relate, Unrelate, UnrelateAll, AddMany, RemoveMany, Emplace, Call } op = Destroy;
    ecs::Entity e{};
    int kind = 0; ///< Relate/Unrelate/UnrelateAll: the relationship (RelKind)
    int value = 0;
    Content create{};
    ecs::Entity target{}; ///< Relate/Unrelate
    std::vector<int> kinds{};  ///< AddMany / RemoveMany, in argument (template) order
    std::vector<int> values{}; ///< AddMany
    int held_tracked = -1;     ///< when >= 0: tracked objects the payload holds (instantiate, emplace)
    int held_empty = -1;       ///< likewise for EmptyCounted objects

    int tracked_objects() const {
        if (held_tracked >= 0) return held_tracked;
        if (op == Add) return tracked_kind(kind) ? 1 : 0;
        if (op == Create) return create.tracked_objects();
        if (op == AddMany) {
            int n = 0;
            for (int k : kinds) n += tracked_kind(k) ? 1 : 0;
            return n;
        }
        return 0;
    }
    int empty_objects() const {
        if (held_empty >= 0) return held_empty;
        if (op == Add) return kind == K_EC ? 1 : 0;
        if (op == Create) return create.has(K_EC) ? 1 : 0;
        if (op == AddMany) {
            int n = 0;
            for (int k : kinds) n += k == K_EC ? 1 : 0;
            return n;
        }
        return 0;
    }
};

/// The multi-type packs the model adds and removes in one call.
template <typename... Ts>
struct Pack {};
constexpr int PACK_COUNT = 5;
template <typename F>
void with_pack(int i, F&& f) {
    switch (i) {
    case 0: f(Pack<ModelPod, std::string>{}); break;
    case 1: f(Pack<ModelMoveOnly, ModelAligned, ModelTag>{}); break;
    case 2: f(Pack<ModelNoDefault, ModelEmptyCounted>{}); break;
    case 3: f(Pack<ModelBig, ModelPod>{}); break;
    default: f(Pack<std::string, ModelNoDefault, ModelMoveOnly>{}); break;
    }
}

struct Slot {
    bool alive = false;
    ecs::Entity handle{};
    Content content{};
    // Builtin hierarchy components, as set_parent / remove_parent / destroy_recursive leave them.
    bool has_parent = false;
    ecs::Entity parent{};
    bool has_children = false;
    std::vector<ecs::Entity> children;
    std::array<std::vector<ecs::Entity>, R_COUNT> rel; ///< relationship targets, in the order of relating
    size_t pos = 0;          ///< position in Model::live_
    uint32_t last_gen = 0;   ///< generation of the last handle issued for this index (0: never)
    // Enable bits: kinds disabled on the entity (a subset of content.mask), and the entity's own bit.
    unsigned disabled = 0;
    bool entity_off = false;
    int runtime = -1; ///< the runtime component's value (model_runtime_id), -1 when absent
    // [change] per tracked kind (change_slot): the model clock's epoch when the value was added / last
    // changed (0: before tracking began, or absent).
    std::array<uint32_t, 2> added_at{};
    std::array<uint32_t, 2> changed_at{};
    /// The kinds queries see: none for a disabled entity (see visible()), else the enabled ones.
    unsigned seen() const { return content.mask & ~disabled; }
};

/// [change] The kinds the world may track (world.track_changes<T>()), by tracking slot; -1 for the rest.
constexpr int CHANGE_KINDS = 2;
int change_slot(int k) { return k == K_POD ? 0 : k == K_STR ? 1 : -1; }
constexpr int CHANGE_KINDS_OF[CHANGE_KINDS] = {K_POD, K_STR};

/// Whether queries without IncludeDisabled visit the entity at all.
bool visible(const Slot& s) { return !s.entity_off; }

struct HookEvent {
    bool created = false;
    ecs::Entity e{};
    Content content{};
};

/// Counts how many steps and operations ran, for the report.
struct ModelStats {
    std::map<std::string, long> ops; ///< steps per operation name (ECS_MODEL_VERBOSE prints them)
    long steps = 0;
    long entities_created = 0;
    long flushes = 0;
    long queries = 0;
};

class ModelRunner {
public:
    ModelRunner(uint64_t seed, long steps) : seed_(seed), steps_(steps), rng_state_(seed * 0x9E3779B97F4A7C15ull + 1) {
        init();
    }

    /// Byte-driven run (fuzzing): every random decision consumes one input byte; the run ends when
    /// the bytes do (or after `max_steps`). The first byte picks the hook set-up as seed % 4 does.
    ModelRunner(const uint8_t* data, size_t size, long max_steps)
        : seed_(size != 0 ? data[0] : 0), steps_(max_steps), rng_state_(0x853C49E6748FEA9Bull), bytes_(data),
          bytes_size_(size), bytes_pos_(size != 0 ? 1 : 0) {
        init();
    }

private:
    void init() {
        world_ = std::make_unique<ecs::World>();
        slots_.resize(1); // index 0 is never issued
        for (int i = 0; i < 4; ++i) prefabs_.push_back(random_prefab());
        // Independent of the step count, so a shorter replay takes the same path.
        hooks_at_ = static_cast<long>(below(bytes_ ? 8 : 2000));
        if (seed_ % 4 == 3) hooks_at_ = -1; // some runs never register a hook (the no-hook path)
        structural_hooks_ = seed_ % 4 != 2;
        // [change] Pod is tracked from a random step on; string too, except in a third of the runs.
        track_at_[0] = static_cast<long>(below(bytes_ ? 16 : 1500));
        track_at_[1] = seed_ % 3 == 0 ? -1 : static_cast<long>(below(bytes_ ? 64 : 3000));
    }

public:
    /// Runs every step; returns an empty string on success, else what diverged.
    std::string run() {
        for (step_ = 0; step_ < steps_ && error_.empty() && !exhausted_; ++step_) {
            if (step_ == hooks_at_) register_hooks();
            for (int t = 0; t < CHANGE_KINDS; ++t)
                if (step_ == track_at_[static_cast<size_t>(t)] && !tracking_[static_cast<size_t>(t)]) start_tracking(t); // (a replica may have begun it)
            one_step();
            if (verbose_) ++stats_.ops[last_op_];
            if (error_.empty()) check_state();
        }
        if (error_.empty()) finish();
        stats_.steps = error_.empty() ? step_ : step_ - 1;
        return error_;
    }

    long failed_step() const { return step_ - 1; }
    const ModelStats& stats() const { return stats_; }
    const char* last_op() const { return last_op_; }

private:
    // -- randomness (our own arithmetic: the sequence is the same with every standard library) -----

    uint64_t next() {
        if (bytes_ != nullptr) {
            if (bytes_pos_ >= bytes_size_) {
                exhausted_ = true; // the run stops at the end of this step
                return 0;
            }
            rng_state_ = (rng_state_ ^ bytes_[bytes_pos_++]) * 0x100000001B3ull;
        }
        uint64_t z = (rng_state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }
    int value() { return static_cast<int>(below(1000)); }
    /// A value for kind `k` (the empty kinds always hold 0).
    int value_for(int k) { return k == K_TAG || k == K_EC ? 0 : value(); }
    bool chance(unsigned percent) { return below(100) < percent; }

    void fail(const std::string& what) {
        if (error_.empty()) error_ = what;
    }

    // -- model primitives ---------------------------------------------------------------------------

    bool model_alive(ecs::Entity e) const {
        return e.index < slots_.size() && slots_[e.index].alive && slots_[e.index].handle == e;
    }

    void model_create(ecs::Entity e, const Content& c, bool fires_hooks = true) {
        if (e.index == 0 || e.index >= 1u << 30) {
            fail("created entity has index " + std::to_string(e.index));
            return;
        }
        if (e.index >= slots_.size()) slots_.resize(size_t(e.index) + 1);
        Slot& s = slots_[e.index];
        if (s.alive) {
            fail("created " + describe(e) + " whose slot holds live " + describe(s.handle));
            return;
        }
        if (s.last_gen != 0 && e.generation <= s.last_gen) {
            fail("created " + describe(e) + " reuses a generation (last issued " + std::to_string(s.last_gen) + ")");
            return;
        }
        s.alive = true;
        s.handle = e;
        s.content = c;
        s.disabled = 0;
        s.entity_off = false;
        s.runtime = -1;
        s.has_parent = false;
        s.has_children = false;
        s.children.clear();
        for (auto& list : s.rel) list.clear();
        s.last_gen = e.generation;
        s.added_at = {};
        s.changed_at = {};
        for (int k = 0; k < K_COUNT; ++k)
            if (c.has(k)) stamp(e, k, true); // [change] created with it: added
        s.pos = live_.size();
        live_.push_back(e.index);
        issued_.push_back(e);
        ++stats_.entities_created;
        if (fires_hooks)
            for (int k = 0; k < K_COUNT; ++k)
                if (c.has(k)) expected_add_[static_cast<size_t>(k)] += add_hooks_per_kind(k);
    }

    /// Destroys `e` and, ChildOf being destroy_sources, its ChildOf sources, transitively (cycles end).
    void model_destroy(ecs::Entity e) {
        if (!model_alive(e)) return;
        std::vector<ecs::Entity> doomed{e};
        for (size_t i = 0; i < doomed.size(); ++i)
            for (uint32_t idx : live_) {
                const Slot& x = slots_[idx];
                if (!x.rel[R_CHILD].empty() && x.rel[R_CHILD][0] == doomed[i] &&
                    std::find(doomed.begin(), doomed.end(), x.handle) == doomed.end())
                    doomed.push_back(x.handle);
            }
        for (const ecs::Entity x : doomed) model_destroy_one(x);
    }

    void model_destroy_one(ecs::Entity e) {
        if (!model_alive(e)) return;
        for (uint32_t idx : live_) // no pair outlives its target (Likes: its sources just lose it)
            for (auto& list : slots_[idx].rel) list.erase(std::remove(list.begin(), list.end(), e), list.end());
        Slot& s = slots_[e.index];
        for (auto& list : s.rel) list.clear();
        for (int k = 0; k < K_COUNT; ++k)
            if (s.content.has(k)) expected_remove_[static_cast<size_t>(k)] += remove_hooks_per_kind(k);
        s.alive = false;
        s.content = Content{};
        s.disabled = 0;
        s.entity_off = false;
        s.has_parent = false;
        s.has_children = false;
        s.children.clear();
        const uint32_t moved = live_.back();
        live_[s.pos] = moved;
        slots_[moved].pos = s.pos;
        live_.pop_back();
    }

    /// Returns true when the add migrates (a new type), false on overwrite or dead entity.
    bool model_add(ecs::Entity e, int k, int v) {
        if (!model_alive(e)) return false;
        Content& c = slots_[e.index].content;
        const bool fresh = !c.has(k);
        c.set(k, v);
        stamp(e, k, fresh); // [change] a new value is added, an overwrite is a change
        if (fresh) expected_add_[static_cast<size_t>(k)] += add_hooks_per_kind(k);
        return fresh;
    }

    void model_relate(int r, ecs::Entity source, ecs::Entity target) {
        if (!model_alive(source) || !model_alive(target)) return;
        std::vector<ecs::Entity>& list = slots_[source.index].rel[static_cast<size_t>(r)];
        if (std::find(list.begin(), list.end(), target) != list.end()) return;
        if (r == R_CHILD) list.clear(); // exclusive: the new target replaces the old one
        list.push_back(target);
    }
    void model_unrelate(int r, ecs::Entity source, ecs::Entity target) {
        if (!model_alive(source)) return;
        std::vector<ecs::Entity>& list = slots_[source.index].rel[static_cast<size_t>(r)];
        list.erase(std::remove(list.begin(), list.end(), target), list.end());
    }
    void model_unrelate_all(int r, ecs::Entity source) {
        if (model_alive(source)) slots_[source.index].rel[static_cast<size_t>(r)].clear();
    }

    void model_remove(ecs::Entity e, int k) {
        if (!model_alive(e)) return;
        Content& c = slots_[e.index].content;
        if (!c.has(k)) return;
        c.clear(k);
        slots_[e.index].disabled &= ~(1u << k); // a type added back starts enabled
        expected_remove_[static_cast<size_t>(k)] += remove_hooks_per_kind(k);
    }

    // Pod has a counting hook plus a checking one after its structural hook, for add and remove.
    long add_hooks_per_kind(int k) const { return hooks_registered_ ? (k == K_POD ? 2 : 1) : 0; }
    long remove_hooks_per_kind(int k) const { return hooks_registered_ ? (k == K_POD ? 2 : 1) : 0; }

    // -- picking handles ----------------------------------------------------------------------------

    /// Mostly live entities; sometimes stale, invalid or forged handles.
    ecs::Entity pick() {
        const uint64_t r = below(100);
        if (r < 75 && !live_.empty()) return slots_[live_[below(live_.size())]].handle;
        if (r < 88 && !issued_.empty()) return issued_[below(issued_.size())];
        if (r < 94) return ecs::INVALID_ENTITY;
        // Forged: a live index with a wrong generation, or an index past every slot.
        if (!live_.empty() && chance(50)) {
            ecs::Entity e = slots_[live_[below(live_.size())]].handle;
            e.generation += 1 + static_cast<uint32_t>(below(3));
            return e;
        }
        return ecs::Entity{static_cast<uint32_t>(slots_.size() + below(5)), static_cast<uint32_t>(below(3))};
    }
    /// For recorded commands: no forged handles, which could name an entity that an earlier command
    /// of the same flush creates (its generation is then current, as forged).
    ecs::Entity pick_recordable() {
        if (!reserved_.empty() && chance(15)) return reserved_[below(reserved_.size())]; // not alive until the flush
        const uint64_t r = below(100);
        if (r < 80 && !live_.empty()) return slots_[live_[below(live_.size())]].handle;
        if (r < 95 && !issued_.empty()) return issued_[below(issued_.size())];
        return ecs::INVALID_ENTITY;
    }

    // -- hooks --------------------------------------------------------------------------------------

    template <typename T>
    void check_hook_value(ecs::World& w, ecs::Entity e, T& value, bool removing) {
        constexpr int k = Traits<T>::kind;
        if (!w.alive(e)) fail(std::string("hook for ") + kind_names[k] + " on a dead entity");
        else if (std::as_const(w).try_get<T>(e) != &value) fail(std::string("hook for ") + kind_names[k] + ": get() does not reach the hooked value");
        if (!Traits<T>::valid(value)) fail(std::string("hook for ") + kind_names[k] + " sees an invalid value");
        // Before a direct remove/destroy the model still holds the old state: the value must match it.
        if (removing && hook_check_model_ && model_alive(e)) {
            const Content& c = slots_[e.index].content;
            if (!c.has(k) || !Traits<T>::matches(value, c.get(k)))
                fail(std::string("on_remove for ") + kind_names[k] + " sees a value the model does not hold on " + describe(e));
            // destroy_recursive destroys leaves first: inside the subtree a parent outlives its children,
            // unless a hook destroyed the parent (the Pod on_remove hook destroys spawned entities).
            if (recursive_strict_ && std::find(recursive_subtree_.begin(), recursive_subtree_.end(), e) != recursive_subtree_.end() &&
                slots_[e.index].has_parent && !w.alive(slots_[e.index].parent) &&
                std::none_of(hook_log_.begin(), hook_log_.end(), [&](const HookEvent& h) { return !h.created && h.e == slots_[e.index].parent; }))
                fail("destroy_recursive: on_remove of " + describe(e) + " runs after its parent was destroyed");
        }
    }

    void register_hooks() {
        hooks_registered_ = true;
        install_hooks(*world_);
    }

    /// Installs the observers on `w` (again after a snapshot round trip: hooks are not serialized).
    void install_hooks(ecs::World& w) {
        for_each_kind([&](auto* tag) {
            using T = std::remove_pointer_t<decltype(tag)>;
            constexpr int k = Traits<T>::kind;
            w.on_add<T>([this](ecs::World& world, ecs::Entity e, T& value) {
                ++actual_add_[static_cast<size_t>(k)];
                check_hook_value(world, e, value, false);
            });
            w.on_remove<T>([this](ecs::World& world, ecs::Entity e, T& value) {
                ++actual_remove_[static_cast<size_t>(k)];
                check_hook_value(world, e, value, true);
            });
        });
        // Structural change from a hook (PITFALLS #5): a Pod whose value is 0 mod 7 spawns an entity,
        // in the hooked entity's own archetype when that is {Pod, Big} (whose block grows every 16
        // rows), else in {Pod} or {Pod, string}.
        w.on_add<ModelPod>([this](ecs::World& world, ecs::Entity e, ModelPod& pod) {
            if (!structural_now_ || pod.v % 7 != 0) return;
            // Spawned values are 1 mod 35: they never trigger this hook nor the destroying one.
            const int v = 35 * static_cast<int>(spawn_counter_++ % 28) + 1;
            Content c;
            c.set(K_POD, v);
            ecs::Entity s;
            if (world.has<ModelBig>(e)) {
                c.set(K_BIG, v);
                s = world.create_with(Traits<ModelPod>::make(v), Traits<ModelBig>::make(v));
            } else if (spawn_counter_ % 2 == 0) {
                s = world.create_with(Traits<ModelPod>::make(v));
            } else {
                c.set(K_STR, v);
                s = world.create_with(Traits<ModelPod>::make(v), Traits<std::string>::make(v));
            }
            spawned_.push_back(s);
            hook_log_.push_back(HookEvent{true, s, c});
        });
        // Runs after the structural hook: the value must be re-read, not cached from before it.
        w.on_add<ModelPod>([this](ecs::World& world, ecs::Entity e, ModelPod& pod) {
            ++actual_add_[static_cast<size_t>(K_POD)];
            if (std::as_const(world).try_get<ModelPod>(e) != &pod || !Traits<ModelPod>::valid(pod))
                fail("Pod on_add hook after a structural hook got a stale reference");
        });
        // on_remove of Pod (value 0 mod 5) destroys another spawned entity, swap-removing rows of
        // the archetype the hooked entity is in.
        w.on_remove<ModelPod>([this](ecs::World& world, ecs::Entity e, ModelPod& pod) {
            if (!structural_now_ || pod.v % 5 != 0) return;
            busy_.push_back(e);
            while (!spawned_.empty() && !world.alive(spawned_.back())) spawned_.pop_back();
            for (size_t i = spawned_.size(); i-- > 0;) {
                const ecs::Entity s = spawned_[i];
                if (!world.alive(s) || std::find(busy_.begin(), busy_.end(), s) != busy_.end()) continue;
                world.destroy(s);
                hook_log_.push_back(HookEvent{false, s, Content{}});
                break;
            }
            busy_.pop_back();
        });
        w.on_remove<ModelPod>([this](ecs::World& world, ecs::Entity e, ModelPod& pod) {
            ++actual_remove_[static_cast<size_t>(K_POD)];
            if (std::as_const(world).try_get<ModelPod>(e) != &pod || !Traits<ModelPod>::valid(pod))
                fail("Pod on_remove hook after a structural hook got a stale reference");
        });
    }

    /// Starts a direct operation: hooks may make structural changes and are checked against the
    /// pre-operation model.
    void begin_direct() {
        hook_log_.clear();
        structural_now_ = structural_hooks_;
        hook_check_model_ = true;
    }
    /// Ends a direct operation: applies what the hooks did to the model.
    void end_direct() {
        structural_now_ = false;
        hook_check_model_ = false;
        for (const HookEvent& ev : hook_log_) {
            if (ev.created) model_create(ev.e, ev.content);
            else model_destroy(ev.e);
        }
        hook_log_.clear();
    }

    // -- operations ---------------------------------------------------------------------------------

    void one_step() {
        const size_t population = live_.size();
        uint64_t r = below(1000);
        // Keep the population between a few and a few hundred entities.
        if (population < 8 && r >= 300) r = below(300);
        if (population > 400 && r < 300) r = 300 + below(700);
        if (r < 50) op_create();
        else if (r < 60) op_create_n();
        else if (r < 230) op_create_with();
        else if (r < 300) op_instantiate();
        else if (r < 380) op_destroy();
        else if (r < 520) op_add();
        else if (r < 610) op_remove();
        else if (r < 615) op_access();
        else if (r < 625) op_untyped();
        else if (r < 640) op_change();
        else if (r < 670) op_queries();
        else if (r < 700) op_each_mutating();
        else if (r < 760) op_record(false);
        else if (r < 790) op_record(true);
        else if (r < 815) op_flush();
        else if (r < 830) op_sort();
        else if (r < 845) op_resources();
        else if (r < 850) op_buffer_lifetime();
        else if (r < 853) op_move_world();
        else if (r < 856) op_mass_destroy();
        else if (r < 915) op_hierarchy();
        else if (r < 935) op_change();
        else if (r < 955) op_prefab_lifetime();
        else if (r < 957) op_snapshot();
        else if (r < 958) op_replica();
        else if (r < 962) op_add_many();
        else if (r < 966) op_remove_many();
        else if (r < 970) op_emplace();
        else if (r < 974) op_bulk();
        else if (r < 986) op_relation();
        else if (r < 1000) op_enable();
        else op_access();
    }

    void op_create() {
        last_op_ = "create";
        begin_direct();
        const ecs::Entity e = world_->create();
        end_direct();
        model_create(e, Content{});
    }

    /// create_n(n, values...): n entities with copies of the values (one or more packs).
    template <typename... Ts>
    void create_n_pack(const std::array<int, sizeof...(Ts)>& values) {
        const size_t n = below(6);
        Content c;
        size_t i = 0;
        ((c.set(Traits<Ts>::kind, values[i++])), ...);
        begin_direct();
        std::vector<ecs::Entity> es;
        std::apply([&](const auto&... v) { es = world_->create_n(n, v...); },
                   make_values<Ts...>(values, std::index_sequence_for<Ts...>{}));
        structural_now_ = false;
        if (es.size() != n) fail("create_n(" + std::to_string(n) + ") made " + std::to_string(es.size()) + " entities");
        for (const ecs::Entity e : es) model_create(e, c);
        end_direct();
    }
    template <typename... Ts, size_t... Is>
    static std::tuple<Ts...> make_values(const std::array<int, sizeof...(Ts)>& values, std::index_sequence<Is...>) {
        return std::tuple<Ts...>(Traits<Ts>::make(values[Is])...);
    }

    void op_create_n() {
        last_op_ = "create_n";
        switch (below(5)) {
        case 0: create_n_pack<>({}); break;
        case 1: create_n_pack<ModelPod, std::string>({value(), value()}); break;
        case 2: create_n_pack<ModelSparse, ModelPod>({value(), value()}); break;
        case 3: create_n_pack<ModelAligned, ModelTag, ModelBig>({value(), 0, value()}); break;
        default: create_n_pack<ModelNoDefault, ModelEmptyCounted>({value(), 0}); break;
        }
    }

    template <typename... Ts, size_t... Is>
    void create_direct_impl(const std::array<int, sizeof...(Ts)>& values, std::index_sequence<Is...>) {
        Content c;
        (c.set(Traits<Ts>::kind, values[Is]), ...);
        begin_direct();
        const ecs::Entity e = world_->create_with(Traits<Ts>::make(values[Is])...);
        structural_now_ = false;
        model_create(e, c); // the entity exists before the hooks' spawns, which end_direct applies
        end_direct();
    }
    template <typename... Ts>
    void create_direct(const std::array<int, sizeof...(Ts)>& values) {
        create_direct_impl<Ts...>(values, std::index_sequence_for<Ts...>{});
    }

    void op_create_with() {
        last_op_ = "create_with";
        switch (below(12)) {
        case 0: create_direct<>({}); break;
        case 1: create_direct<std::string>({value()}); break;
        case 2: create_direct<ModelPod, std::string>({value(), value()}); break;
        case 3: create_direct<ModelMoveOnly, ModelAligned, ModelTag>({value(), value(), 0}); break;
        case 4: create_direct<ModelNoDefault, ModelPod, ModelEmptyCounted>({value(), value(), 0}); break;
        case 5: create_direct<ModelTag>({0}); break;
        case 6:
            create_direct<ModelAligned, std::string, ModelMoveOnly, ModelNoDefault, ModelPod, ModelTag, ModelEmptyCounted,
                          ModelBig>({value(), value(), value(), value(), value(), 0, 0, value()});
            break;
        case 7:
            if (chance(50)) create_direct<ModelEmptyCounted, ModelMoveOnly>({0, value()});
            else create_direct<ModelSparse, ModelPod, std::string>({value(), value(), value()}); // sparse first: hook order
            break;
        case 8:
            if (chance(50)) create_direct<ModelPod>({value()});
            else create_direct<ModelPod, ModelBig>({value(), value()});
            break;
        case 11: { // values given as their constructors' arguments, built in place
            last_op_ = "create_with(construct)";
            const int a = value(), b = value(), d = value();
            Content c;
            c.set(K_ND, a);
            c.set(K_STR, b);
            c.set(K_SP, d);
            const std::string text = Traits<std::string>::make(b);
            begin_direct();
            const ecs::Entity e = world_->create_with(ecs::construct<ModelNoDefault>(a), ecs::construct<std::string>(text),
                                                      ecs::construct<ModelSparse>(Traits<ModelSparse>::make(d)));
            structural_now_ = false;
            model_create(e, c);
            end_direct();
            break;
        }
        case 9: {
            // Lvalues: the world copies them; ours stay intact.
            last_op_ = "create_with(lvalues)";
            const int a = value(), b = value();
            std::string s = Traits<std::string>::make(a);
            ModelPod p = Traits<ModelPod>::make(b);
            Content c;
            c.set(K_STR, a);
            c.set(K_POD, b);
            begin_direct();
            const ecs::Entity e = world_->create_with(s, p);
            structural_now_ = false;
            model_create(e, c);
            end_direct();
            if (s != Traits<std::string>::make(a) || p.v != b) fail("create_with changed its lvalue arguments");
            break;
        }
        default: {
            last_op_ = "create_with(mixed lvalues)";
            const int a = value(), b = value();
            ModelAligned al(a);
            const ModelNoDefault nd(b);
            Content c;
            c.set(K_AL, a);
            c.set(K_ND, b);
            c.set(K_TAG, 0);
            begin_direct();
            const ecs::Entity e = world_->create_with(al, nd, ModelTag{});
            structural_now_ = false;
            model_create(e, c);
            end_direct();
            if (al.v != a || nd.v != b) fail("create_with changed its lvalue arguments");
            break;
        }
        }
    }

    void op_destroy() {
        last_op_ = "destroy";
        const ecs::Entity e = pick();
        begin_direct();
        world_->destroy(e);
        end_direct();
        model_destroy(e);
        if (world_->alive(e)) fail("destroyed entity " + describe(e) + " is still alive");
    }

    template <typename T>
    void add_one(ecs::Entity e, int v) {
        constexpr int k = Traits<T>::kind;
        begin_direct();
        if constexpr (std::is_copy_constructible_v<T>) {
            if (chance(20)) {
                last_op_ = "add(lvalue)";
                const T copy = Traits<T>::make(v);
                world_->add(e, copy);
            } else if (chance(20)) { // the untyped call, same storage and hooks as add<T>
                last_op_ = "add_raw";
                const T copy = Traits<T>::make(v);
                void* at = world_->add_raw(e, ecs::component_id<T>(), &copy);
                const ecs::World& cw = *world_;
                if (model_alive(e) && !hooks_registered_ && at != cw.try_get<T>(e))
                    fail(std::string("add_raw<") + kind_names[k] + "> returned another address than try_get");
            } else if (std::is_same_v<T, ModelTag> && chance(50)) {
                last_op_ = "add<T>(e)";
                world_->add<ModelTag>(e);
            } else {
                last_op_ = "add";
                world_->add(e, Traits<T>::make(v));
            }
        } else {
            last_op_ = "add";
            world_->add(e, Traits<T>::make(v));
        }
        structural_now_ = false;
        model_add(e, k, v); // before the hooks' spawns, which end_direct applies
        end_direct();
    }

    void op_add() {
        const ecs::Entity e = pick();
        const int k = static_cast<int>(below(K_COUNT));
        const int v = (k == K_TAG || k == K_EC) ? 0 : value();
        with_kind(k, [&](auto* tag) { add_one<std::remove_pointer_t<decltype(tag)>>(e, v); });
    }

    void op_remove() {
        last_op_ = "remove";
        const ecs::Entity e = pick();
        const int k = static_cast<int>(below(K_COUNT));
        with_kind(k, [&](auto* tag) {
            using T = std::remove_pointer_t<decltype(tag)>;
            begin_direct();
            if (chance(25)) world_->remove_raw(e, ecs::component_id<T>()); // untyped, as remove<T>
            else world_->remove<T>(e);
            end_direct();
            model_remove(e, k);
            if (world_->has<T>(e)) fail(std::string("remove<") + kind_names[k] + "> left the component on " + describe(e));
        });
    }

    // -- structural power: multi add/remove, emplace, bulk operations ----------------------------------

    template <typename... Ts, size_t... Is>
    void add_many_direct(ecs::Entity e, std::index_sequence<Is...>) {
        const std::array<int, sizeof...(Ts)> v{value_for(Traits<Ts>::kind)...};
        const size_t archetypes = world_->archetype_count();
        const bool alive = model_alive(e);
        unsigned before = alive ? slots_[e.index].content.mask : 0u;
        begin_direct();
        if constexpr ((std::is_copy_constructible_v<Ts> && ...)) {
            if (chance(25)) {
                last_op_ = "add(e, a, b...) (lvalues)";
                const std::tuple<Ts...> copies{Traits<Ts>::make(v[Is])...};
                world_->add(e, std::get<Is>(copies)...);
            } else {
                last_op_ = "add(e, a, b...)";
                world_->add(e, Traits<Ts>::make(v[Is])...);
            }
        } else {
            last_op_ = "add(e, a, b...)";
            world_->add(e, Traits<Ts>::make(v[Is])...);
        }
        structural_now_ = false;
        (model_add(e, Traits<Ts>::kind, v[Is]), ...);
        // One migration: at most one archetype more, and only when the type set grew (hooks may
        // create entities, but only in archetypes of their own, which exist after the first time).
        const unsigned after = model_alive(e) ? slots_[e.index].content.mask : 0u;
        if (!hooks_registered_ && world_->archetype_count() > archetypes + (after != before ? 1u : 0u))
            fail("add(e, a, b...) created more than one archetype");
        end_direct();
    }
    template <typename... Ts>
    void add_many_pack(ecs::Entity e, Pack<Ts...>) {
        add_many_direct<Ts...>(e, std::index_sequence_for<Ts...>{});
    }
    template <typename... Ts>
    void remove_many_pack(ecs::Entity e, Pack<Ts...>) {
        last_op_ = "remove<A, B...>(e)";
        const size_t archetypes = world_->archetype_count();
        begin_direct();
        world_->remove<Ts...>(e);
        end_direct();
        (model_remove(e, Traits<Ts>::kind), ...);
        if (world_->archetype_count() > archetypes + 1) fail("remove<A, B...> created more than one archetype");
        if ((world_->has<Ts>(e) || ...)) fail("remove<A, B...> left a component on " + describe(e));
    }

    void op_add_many() {
        const ecs::Entity e = pick();
        with_pack(static_cast<int>(below(PACK_COUNT)), [&](auto pack) { add_many_pack(e, pack); });
    }
    void op_remove_many() {
        const ecs::Entity e = pick();
        with_pack(static_cast<int>(below(PACK_COUNT)), [&](auto pack) { remove_many_pack(e, pack); });
    }

    /// emplace<T> / get_or_emplace<T> on a live entity (a dead one is a precondition failure).
    template <typename T, typename... Args>
    void emplace_one(ecs::Entity e, int v, Args&&... args) {
        constexpr int k = Traits<T>::kind;
        const bool had = slots_[e.index].content.has(k);
        const bool get_or = chance(25);
        last_op_ = get_or ? "get_or_emplace" : "emplace";
        begin_direct();
        const bool by_add = !get_or && chance(30); // add(e, construct<T>(args...)): the same as emplace
        if (by_add) last_op_ = "add(construct)";
        T* made = nullptr;
        if (by_add) {
            world_->add(e, ecs::construct<T>(std::forward<Args>(args)...));
            made = std::as_const(*world_).try_get<T>(e) != nullptr ? &world_->get<T>(e) : nullptr;
            if (made == nullptr) {
                fail("add(construct<" + std::string(kind_names[k]) + ">) left no value");
                end_direct();
                return;
            }
        }
        T& ref = by_add ? *made
                 : get_or ? world_->get_or_emplace<T>(e, std::forward<Args>(args)...)
                          : world_->emplace<T>(e, std::forward<Args>(args)...);
        if (std::as_const(*world_).try_get<T>(e) != &ref) fail(std::string(last_op_) + "<" + kind_names[k] + "> returned a stale reference");
        structural_now_ = false;
        if (!(get_or && had)) model_add(e, k, v);
        else stamp(e, k, false); // [change] get_or_emplace of a present value: a mutable get
        end_direct();
    }

    void op_emplace() {
        if (live_.empty()) return;
        const ecs::Entity e = slots_[live_[below(live_.size())]].handle;
        const int k = static_cast<int>(below(K_COUNT));
        const int v = value_for(k);
        switch (k) {
        case K_STR:
            if (chance(50)) {
                emplace_one<std::string>(e, v, Traits<std::string>::make(v));
            } else {
                const std::string text = Traits<std::string>::make(v);
                emplace_one<std::string>(e, v, text.c_str()); // a pointer argument
            }
            break;
        case K_MO: emplace_one<ModelMoveOnly>(e, v, v); break;
        case K_AL: emplace_one<ModelAligned>(e, v, v); break;
        case K_TAG: emplace_one<ModelTag>(e, v); break;
        case K_EC: emplace_one<ModelEmptyCounted>(e, v); break;
        case K_POD: emplace_one<ModelPod>(e, v, Traits<ModelPod>::make(v)); break;
        case K_ND: emplace_one<ModelNoDefault>(e, v, v); break;
        case K_SP: emplace_one<ModelSparse>(e, v, Traits<ModelSparse>::make(v)); break;
        default:
            if (slots_[e.index].content.has(K_BIG) && chance(50)) {
                // Replacing a value with arguments read from that very value.
                const int old = slots_[e.index].content.get(K_BIG);
                emplace_one<ModelBig>(e, old, world_->get<ModelBig>(e));
            } else {
                emplace_one<ModelBig>(e, v, Traits<ModelBig>::make(v));
            }
            break;
        }
    }

    /// The live entities whose content has every kind of `include` and none of `exclude`.
    std::vector<ecs::Entity> model_matching(unsigned include, unsigned exclude) const {
        std::vector<ecs::Entity> out;
        for (uint32_t idx : live_) {
            const Content& c = slots_[idx].content;
            if ((c.mask & include) == include && (c.mask & exclude) == 0) out.push_back(slots_[idx].handle);
        }
        return out;
    }

    /// How many of `targets` a hook of the running direct operation destroyed.
    size_t hook_destroyed_among(const std::vector<ecs::Entity>& targets) const {
        size_t n = 0;
        for (const HookEvent& ev : hook_log_)
            if (!ev.created && std::find(targets.begin(), targets.end(), ev.e) != targets.end()) ++n;
        return n;
    }

    template <typename... Ts, typename... Filters>
    void destroy_all_one(unsigned include, unsigned exclude, Filters... filters) {
        last_op_ = "destroy_all";
        const std::vector<ecs::Entity> targets = model_matching(include | mask_of<Ts...>(), exclude);
        begin_direct();
        const size_t n = world_->destroy_all<Ts...>(filters...);
        for (ecs::Entity e : targets) model_destroy(e);
        end_direct();
        // Every matching entity counts, also those a hook or a destroy_sources cascade destroyed first.
        if (n != targets.size())
            fail("destroy_all returned " + std::to_string(n) + ", model expects " + std::to_string(targets.size()));
        for (ecs::Entity e : targets)
            if (world_->alive(e)) fail("destroy_all left " + describe(e) + " alive");
    }

    template <typename T, typename... Filters>
    void remove_all_one(unsigned include, unsigned exclude, Filters... filters) {
        last_op_ = "remove_all";
        constexpr int k = Traits<T>::kind;
        const std::vector<ecs::Entity> targets = model_matching(include | (1u << k), exclude);
        begin_direct();
        const size_t n = world_->remove_all<T>(filters...);
        const size_t by_hooks = hook_destroyed_among(targets);
        for (ecs::Entity e : targets) model_remove(e, k);
        end_direct();
        if (n > targets.size() || n + by_hooks < targets.size())
            fail("remove_all returned " + std::to_string(n) + " for " + std::to_string(targets.size()) + " targets");
        for (ecs::Entity e : targets)
            if (world_->has<T>(e)) fail("remove_all left the component on " + describe(e));
    }

    template <typename T, typename... Filters>
    void add_all_one(int v, unsigned include, unsigned exclude, Filters... filters) {
        last_op_ = "add_all";
        constexpr int k = Traits<T>::kind;
        const std::vector<ecs::Entity> targets = model_matching(include, exclude | (1u << k));
        const T value = Traits<T>::make(v);
        begin_direct();
        const size_t n = world_->add_all(value, filters...);
        structural_now_ = false;
        for (ecs::Entity e : targets) model_add(e, k, v);
        end_direct();
        if (n != targets.size()) fail("add_all returned " + std::to_string(n) + ", model expects " + std::to_string(targets.size()));
    }

    void op_bulk() {
        switch (below(10)) {
        case 0: destroy_all_one<ModelTag>(0, 0); break;
        case 1: destroy_all_one<ModelPod>(0, mask_of<std::string>(), ecs::Without<std::string>{}); break;
        case 2: destroy_all_one<ModelBig, ModelPod>(0, 0); break;
        case 3: destroy_all_one<>(mask_of<ModelEmptyCounted>(), mask_of<ModelMoveOnly>(), ecs::With<ModelEmptyCounted>{},
                                  ecs::Without<ModelMoveOnly>{});
            break;
        case 4: remove_all_one<ModelTag>(0, 0); break;
        case 5: remove_all_one<std::string>(mask_of<ModelPod>(), 0, ecs::With<ModelPod>{}); break;
        case 6: remove_all_one<ModelMoveOnly>(0, mask_of<ModelAligned>(), ecs::Without<ModelAligned>{}); break;
        case 7: add_all_one<ModelTag>(0, 0, 0); break;
        case 8: add_all_one<ModelPod>(value(), 0, mask_of<ModelBig>(), ecs::Without<ModelBig>{}); break;
        default: add_all_one<ModelAligned>(value(), mask_of<ModelNoDefault>(), 0, ecs::With<ModelNoDefault>{}); break;
        }
    }

    /// get / try_get / has on random handles (the full check covers live ones; this hits the rest).
    void op_access() {
        last_op_ = "access";
        for (int i = 0; i < 8; ++i) {
            const ecs::Entity e = pick();
            const bool alive = model_alive(e);
            if (world_->alive(e) != alive) fail("alive(" + describe(e) + ") disagrees with the model");
            for_each_kind([&](auto* tag) {
                using T = std::remove_pointer_t<decltype(tag)>;
                constexpr int k = Traits<T>::kind;
                const bool has = alive && slots_[e.index].content.has(k);
                if (world_->has<T>(e) != has) fail(std::string("has<") + kind_names[k] + "> disagrees on " + describe(e));
                const ecs::World& cw = *world_;
                const T* p = cw.try_get<T>(e);
                if ((p != nullptr) != has) fail(std::string("try_get<") + kind_names[k] + "> disagrees on " + describe(e));
                if (cw.has_raw(e, ecs::component_id<T>()) != has || cw.get_raw(e, ecs::component_id<T>()) != p)
                    fail(std::string("has_raw/get_raw of ") + kind_names[k] + " disagree with the typed calls on " + describe(e));
                if (has) {
                    const T& ref = cw.get<T>(e);
                    if (&ref != p || !Traits<T>::matches(ref, slots_[e.index].content.get(k)))
                        fail(std::string("const get<") + kind_names[k] + "> wrong on " + describe(e));
                }
            });
        }
    }

    /// The untyped calls on the runtime component (add_raw with a value or value-initialised,
    /// remove_raw) and each_raw over sparse, table and runtime ids, against the model.
    void op_untyped() {
        last_op_ = "untyped";
        const ecs::ComponentTypeID rt = model_runtime_id();
        for (int i = 0; i < 4; ++i) {
            const ecs::Entity e = pick();
            const bool alive = model_alive(e);
            const uint64_t what = below(3);
            if (what == 0) {
                const int v = value();
                const ModelRuntimeValue x{v, RUNTIME_CHECK};
                const bool by_value = chance(80);
                const void* at = world_->add_raw(e, rt, by_value ? &x : nullptr);
                if (alive) slots_[e.index].runtime = by_value ? v : 0;
                if ((at != nullptr) != alive || (alive && at != std::as_const(*world_).get_raw(e, rt)))
                    fail("add_raw(runtime) on " + describe(e) + " returned a wrong address");
            } else if (what == 1) {
                world_->remove_raw(e, rt);
                if (alive) slots_[e.index].runtime = -1;
            } else {
                check_each_raw();
            }
        }
    }

    /// each_raw visits exactly the entities each<> would (sparse membership, enable bits), with
    /// the values the model holds.
    void check_each_raw() {
        const Totals t = model_totals<ModelSparse, ModelAligned>(0);
        Totals got;
        const ecs::ComponentTypeID table_and_sparse[2] = {ecs::component_id<ModelAligned>(), ecs::component_id<ModelSparse>()};
        world_->each_raw(table_and_sparse, 2, [&](ecs::Entity e, void* const* c) {
            ++got.visits;
            got.weight += Traits<ModelAligned>::weight(*static_cast<const ModelAligned*>(c[0])) +
                          Traits<ModelSparse>::weight(*static_cast<const ModelSparse*>(c[1]));
            if (!model_alive(e)) fail("each_raw(Aligned, Sparse) visited " + describe(e) + ", dead in the model");
        });
        if (got.visits != t.visits || got.weight != t.weight)
            fail("each_raw(Aligned, Sparse) visited " + std::to_string(got.visits) + " (weight " + std::to_string(got.weight) +
                 "), model " + std::to_string(t.visits) + " (weight " + std::to_string(t.weight) + ")");
        // The runtime component has no enable bit; the sparse one does.
        long expected = 0;
        for (uint32_t idx : live_)
            if (visible(slots_[idx]) && slots_[idx].runtime >= 0 && (slots_[idx].seen() & mask_of<ModelSparse>()) != 0) ++expected;
        long visits = 0;
        const ecs::ComponentTypeID runtime_and_sparse[2] = {model_runtime_id(), ecs::component_id<ModelSparse>()};
        world_->each_raw(runtime_and_sparse, 2, [&](ecs::Entity e, void* const* c) {
            ++visits;
            const auto* x = static_cast<const ModelRuntimeValue*>(c[0]);
            if (!model_alive(e) || x->check != RUNTIME_CHECK || x->v != slots_[e.index].runtime ||
                !Traits<ModelSparse>::matches(*static_cast<const ModelSparse*>(c[1]), slots_[e.index].content.get(K_SP)))
                fail("each_raw(Runtime, Sparse) passed a wrong value for " + describe(e));
        });
        if (visits != expected)
            fail("each_raw(Runtime, Sparse) visited " + std::to_string(visits) + ", model " + std::to_string(expected));
    }

    // -- queries ------------------------------------------------------------------------------------

    struct Totals {
        long visits = 0;
        long weight = 0;
    };

    template <typename... Ts>
    Totals model_totals(unsigned exclude) const {
        const unsigned include = mask_of<Ts...>();
        Totals t;
        for (uint32_t idx : live_) {
            const Content& c = slots_[idx].content;
            const unsigned seen = slots_[idx].seen();
            if (!visible(slots_[idx]) || (seen & include) != include || (seen & exclude) != 0) continue;
            ++t.visits;
            for (int k = 0; k < K_COUNT; ++k)
                if ((include >> k) & 1u) t.weight += model_weight(k, c.get(k));
        }
        return t;
    }

    /// each / each(Exclude) / each_no_entity / count<Ts...> for one signature, against the model.
    template <typename... Ts, typename... Ex>
    void check_query(ecs::Exclude<Ex...> ex) {
        ++stats_.queries;
        const unsigned exclude = mask_of<Ex...>();
        const Totals expected = model_totals<Bare<Ts>...>(exclude);
        const std::string name = std::string("query<") + std::to_string(mask_of<Ts...>()) + " excl " +
                                 std::to_string(exclude) + ">";
        ecs::World& w = *world_;
        Totals got;
        std::set<ecs::Entity> seen;
        auto visit = [&](ecs::Entity e, Ts&... xs) {
            ++got.visits;
            got.weight += (0L + ... + Traits<Bare<Ts>>::weight(xs));
            if (!seen.insert(e).second) fail(name + " visited " + describe(e) + " twice");
            if (!model_alive(e)) {
                fail(name + " visited " + describe(e) + " which the model says is dead");
                return;
            }
            const Content& c = slots_[e.index].content;
            const unsigned kinds = slots_[e.index].seen();
            if (!visible(slots_[e.index])) fail(name + " visited disabled " + describe(e));
            if ((kinds & exclude) != 0) fail(name + " visited excluded " + describe(e));
            const bool ok = (true && ... && (((kinds >> Traits<Bare<Ts>>::kind) & 1u) &&
                                             Traits<Bare<Ts>>::matches(xs, c.get(Traits<Bare<Ts>>::kind))));
            if (!ok) fail(name + " passed wrong values for " + describe(e));
            (stamp_term<Ts>(e), ...); // [change] a visit through a mutable term is a change
        };
        if constexpr (sizeof...(Ex) == 0) w.each<Ts...>(visit);
        else w.each<Ts...>(ex, visit);
        if (got.visits != expected.visits || got.weight != expected.weight)
            fail(name + " each: visits " + std::to_string(got.visits) + "/" + std::to_string(expected.visits) +
                 ", total " + std::to_string(got.weight) + "/" + std::to_string(expected.weight));

        Totals got2;
        auto visit2 = [&](Ts&... xs) {
            ++got2.visits;
            got2.weight += (0L + ... + Traits<Bare<Ts>>::weight(xs));
        };
        if constexpr (sizeof...(Ex) == 0) w.each_no_entity<Ts...>(visit2);
        else w.each_no_entity<Ts...>(ex, visit2);
        if (got2.visits != expected.visits || got2.weight != expected.weight)
            fail(name + " each_no_entity: visits " + std::to_string(got2.visits) + "/" + std::to_string(expected.visits));

        if constexpr (sizeof...(Ex) == 0 && sizeof...(Ts) > 0) {
            const ecs::World& cw = w;
            if (cw.count<Ts...>() != static_cast<size_t>(expected.visits))
                fail(name + " count<Ts...>: " + std::to_string(cw.count<Ts...>()) + " expected " +
                     std::to_string(expected.visits));
        }
    }

    /**
     * The 1.0 query forms for one signature, against the model: `query<Ts..., Optional<O>>(With<W>,
     * Without<Ex...>)` through a handle (each, each_chunk, count, empty, first), the same terms and
     * filters through world.each, and read-only through a const World.
     */
    template <typename O, typename W, typename... Ts, typename... Ex>
    void check_rich_query(ecs::Without<Ex...> ex) {
        ++stats_.queries;
        const unsigned include = mask_of<Bare<Ts>..., W>();
        const unsigned exclude = mask_of<Ex...>();
        const std::string name = "rich query<" + std::to_string(include) + " opt " + std::to_string(mask_of<O>()) +
                                 " excl " + std::to_string(exclude) + ">";
        Totals expected;
        for (uint32_t idx : live_) {
            const Content& c = slots_[idx].content;
            const unsigned seen = slots_[idx].seen();
            if (!visible(slots_[idx]) || (seen & include) != include || (seen & exclude) != 0) continue;
            ++expected.visits;
            for (int k = 0; k < K_COUNT; ++k)
                if ((mask_of<Bare<Ts>...>() >> k) & 1u) expected.weight += model_weight(k, c.get(k));
            if ((seen >> Traits<O>::kind) & 1u) expected.weight += model_weight(Traits<O>::kind, c.get(Traits<O>::kind));
        }
        ecs::World& w = *world_;
        auto q = w.query<Ts..., ecs::Optional<O>>(ecs::With<W>{}, ex);
        std::vector<ecs::Entity> order;
        Totals got;
        q.each([&](ecs::Entity e, Ts&... xs, O* o) {
            order.push_back(e);
            ++got.visits;
            got.weight += (0L + ... + Traits<Bare<Ts>>::weight(xs));
            if (!model_alive(e)) {
                fail(name + " visited " + describe(e) + " which the model says is dead");
                return;
            }
            const Content& c = slots_[e.index].content;
            const unsigned seen = slots_[e.index].seen();
            if (!visible(slots_[e.index]) || (seen & exclude) != 0 || (seen & include) != include)
                fail(name + " visited non-matching " + describe(e));
            if ((o != nullptr) != (((seen >> Traits<O>::kind) & 1u) != 0)) fail(name + " Optional presence wrong for " + describe(e));
            if (o != nullptr) {
                got.weight += Traits<O>::weight(*o);
                if (!Traits<O>::matches(*o, c.get(Traits<O>::kind))) fail(name + " Optional value wrong for " + describe(e));
            }
            const bool ok = (true && ... && Traits<Bare<Ts>>::matches(xs, c.get(Traits<Bare<Ts>>::kind)));
            if (!ok) fail(name + " passed wrong values for " + describe(e));
            (stamp_term<Ts>(e), ...); // [change] mutable terms (an Optional one where present)
            if (o != nullptr) stamp_term<O>(e);
        });
        if (got.visits != expected.visits || got.weight != expected.weight)
            fail(name + " handle each: visits " + std::to_string(got.visits) + "/" + std::to_string(expected.visits) +
                 ", total " + std::to_string(got.weight) + "/" + std::to_string(expected.weight));
        if (q.count() != order.size()) fail(name + " count() disagrees with each");
        if (q.empty() != order.empty()) fail(name + " empty() disagrees with each");
        if (q.first() != (order.empty() ? ecs::INVALID_ENTITY : order.front())) fail(name + " first() is not the first visited");

        // each_chunk: the same rows in the same order, columns at the entities' addresses.
        std::vector<ecs::Entity> chunk_order;
        q.each_chunk([&](ecs::Chunk& chunk) {
            if (chunk.size() == 0) fail(name + " each_chunk passed an empty chunk");
            O* opt = chunk.get<O>();
            for (size_t i = 0; i < chunk.size(); ++i) {
                const ecs::Entity e = chunk.entities()[i];
                chunk_order.push_back(e);
                // Sparse values are not columns: a chunk gives nullptr for them.
                const bool addresses_ok =
                    (true && ... &&
                     (ecs::detail::is_sparse_v<Bare<Ts>>
                          ? chunk.get<Bare<Ts>>() == nullptr
                          : (chunk.get<Bare<Ts>>() != nullptr &&
                             (ecs::detail::is_tag_v<Bare<Ts>> ||
                              chunk.get<Bare<Ts>>() + i == std::as_const(w).try_get<Bare<Ts>>(e)))));
                if (!addresses_ok) fail(name + " each_chunk column address wrong for " + describe(e));
                if (!ecs::detail::is_sparse_v<O> && (opt != nullptr) != (w.has<O>(e) && w.enabled<O>(e)))
                    fail(name + " each_chunk Optional column wrong for " + describe(e));
            }
        });
        if (chunk_order != order) fail(name + " each_chunk order differs from each");

        // world.each with the same terms and filters; a const World with read-only terms.
        std::vector<ecs::Entity> world_order;
        w.each<Ts..., ecs::Optional<O>>(ecs::With<W>{}, ex, [&](ecs::Entity e, Ts&..., O*) { world_order.push_back(e); });
        if (world_order != order) fail(name + " world.each order differs from the handle's");
        const ecs::World& cw = w;
        size_t const_visits = 0;
        cw.each<const Bare<Ts>..., ecs::Optional<const O>>(ecs::With<W>{}, ex,
                                                          [&](const Bare<Ts>&..., const O*) { ++const_visits; });
        if (const_visits != order.size()) fail(name + " const World each visited a different number");
    }

    /**
     * AnyOf<As...> (ROADMAP-2.0 K) against the model: the entities seeing T and at least one enabled
     * alternative and none of Ex, through a handle (each, count) and world.each, in the same order.
     */
    template <typename T, typename... As, typename... Ex>
    void check_any_of(ecs::Without<Ex...> ex) {
        ++stats_.queries;
        const unsigned need = mask_of<T>();
        const unsigned any = mask_of<As...>();
        const unsigned exclude = mask_of<Ex...>();
        const std::string name = "AnyOf query<" + std::to_string(need) + " any " + std::to_string(any) + " excl " +
                                 std::to_string(exclude) + ">";
        size_t expected = 0;
        for (uint32_t idx : live_) {
            const unsigned seen = slots_[idx].seen();
            if (visible(slots_[idx]) && (seen & need) == need && (seen & any) != 0 && (seen & exclude) == 0) ++expected;
        }
        ecs::World& w = *world_;
        auto q = w.query<const T>(ecs::AnyOf<As...>{}, ex);
        std::vector<ecs::Entity> order;
        q.each([&](ecs::Entity e, const T&) {
            order.push_back(e);
            if (!model_alive(e)) {
                fail(name + " visited " + describe(e) + " which the model says is dead");
                return;
            }
            const unsigned seen = slots_[e.index].seen();
            if (!visible(slots_[e.index]) || (seen & need) != need || (seen & any) == 0 || (seen & exclude) != 0)
                fail(name + " visited non-matching " + describe(e));
        });
        if (order.size() != expected)
            fail(name + " visited " + std::to_string(order.size()) + ", the model " + std::to_string(expected));
        if (q.count() != expected) fail(name + " count() disagrees with the model");
        std::vector<ecs::Entity> world_order;
        w.each<const T>(ecs::AnyOf<As...>{}, ex, [&](ecs::Entity e, const T&) { world_order.push_back(e); });
        if (world_order != order) fail(name + " world.each order differs from the handle's");
    }

    /**
     * Up<Parent, const T> and SelfUp (ROADMAP-2.0 K) against the model's hierarchy: T of the nearest
     * live ancestor by Parent having it enabled (64 levels, stopping on a cycle), self first for
     * SelfUp; the exact object (its address) and its value.
     */
    template <typename T, bool Self>
    void check_up() {
        ++stats_.queries;
        const int k = Traits<T>::kind;
        const std::string name = std::string(Self ? "SelfUp" : "Up") + "<Parent, " + kind_names[k] + ">";
        auto has_on = [&](ecs::Entity x) { return model_alive(x) && ((slots_[x.index].seen() >> k) & 1u) != 0; };
        auto expected_owner = [&](ecs::Entity e) {
            if (Self && has_on(e)) return e;
            std::vector<ecs::Entity> chain;
            const ecs::Entity* p = model_parent(e);
            for (size_t level = 0; level < 64 && p != nullptr && model_alive(*p); ++level) {
                const ecs::Entity at = *p;
                if (at == e || std::find(chain.begin(), chain.end(), at) != chain.end()) break;
                chain.push_back(at);
                if (has_on(at)) return at;
                p = model_parent(at);
            }
            return ecs::INVALID_ENTITY;
        };
        using Term = std::conditional_t<Self, ecs::SelfUp<ecs::Parent, const T>, ecs::Up<ecs::Parent, const T>>;
        long visits = 0;
        world_->each<const ModelPod, Term>([&](ecs::Entity e, const ModelPod&, const T* got) {
            ++visits;
            if (!model_alive(e)) {
                fail(name + " visited " + describe(e) + " which the model says is dead");
                return;
            }
            const ecs::Entity owner = expected_owner(e);
            if (owner == ecs::INVALID_ENTITY) {
                if (got != nullptr) fail(name + " gave a value to " + describe(e) + ", the model none");
                return;
            }
            if (got != std::as_const(*world_).try_get<T>(owner))
                fail(name + " gave " + describe(e) + " another object than " + describe(owner) + "'s");
            else if (!Traits<T>::matches(*got, slots_[owner.index].content.get(k)))
                fail(name + " passed a wrong value to " + describe(e));
        });
        if (visits != model_totals<ModelPod>(0).visits) fail(name + " changed the rows visited");
    }

    void op_queries() {
        last_op_ = "queries";
        check_up<ModelAligned, false>();
        check_up<std::string, true>();
        check_up<ModelSparse, false>();
        // AnyOf: table alternatives (enable bits decide rows), a sparse one (rows tested one by one).
        check_any_of<ModelPod, std::string, ModelAligned>(ecs::Without<>{});
        check_any_of<ModelPod, ModelTag, ModelMoveOnly, ModelBig>(ecs::Without<ModelNoDefault>{});
        check_any_of<std::string, ModelSparse, ModelPod>(ecs::Without<ModelTag>{});
        check_any_of<ModelAligned, ModelSparse>(ecs::Without<>{});
        check_query<>(ecs::Exclude<>{});
        check_query<ModelPod>(ecs::Exclude<>{});
        check_query<ModelPod, std::string>(ecs::Exclude<>{});
        check_query<const ModelMoveOnly>(ecs::Exclude<>{});
        check_query<ModelAligned>(ecs::Exclude<ModelTag>{});
        check_query<ModelTag>(ecs::Exclude<>{});
        check_query<ModelEmptyCounted, ModelNoDefault>(ecs::Exclude<ModelPod, ModelMoveOnly>{});
        check_query<std::string>(ecs::Exclude<ModelTag>{});
        check_query<ModelNoDefault, const ModelAligned, ModelMoveOnly>(ecs::Exclude<>{});
        check_query<>(ecs::Exclude<ModelPod>{});
        check_query<ModelAligned, std::string, ModelMoveOnly, ModelNoDefault, ModelPod, ModelTag, ModelEmptyCounted>(
            ecs::Exclude<>{});
        check_rich_query<ModelPod, ModelTag, std::string>(ecs::Without<ModelMoveOnly>{});
        check_rich_query<ModelAligned, ModelPod, ModelNoDefault>(ecs::Without<>{});
        check_rich_query<ModelTag, ModelEmptyCounted, ModelMoveOnly>(ecs::Without<ModelBig, ModelPod>{});
        check_rich_query<std::string, ModelAligned>(ecs::Without<ModelTag>{});
        check_rich_query<ModelBig, ModelNoDefault, ModelNoDefault, const ModelAligned>(ecs::Without<ModelEmptyCounted>{});
        // Sparse terms and filters, tested row by row.
        check_query<ModelSparse>(ecs::Exclude<>{});
        check_query<ModelPod, const ModelSparse>(ecs::Exclude<ModelTag>{});
        check_query<std::string>(ecs::Exclude<ModelSparse>{});
        check_rich_query<ModelSparse, ModelPod, std::string>(ecs::Without<ModelTag>{});
        check_rich_query<ModelPod, ModelSparse, ModelAligned>(ecs::Without<>{});
        check_rich_query<ModelTag, ModelPod, ModelSparse>(ecs::Without<ModelBig>{});
        op_sparse_queries();

        // single<>: exactly when the model has one match.
        const Totals t = model_totals<ModelAligned, ModelPod>(0);
        int calls = 0;
        if (t.visits == 1) {
            world_->single<ModelAligned, ModelPod>([&](ecs::Entity e, ModelAligned& a, ModelPod& p) {
                ++calls;
                stamp(e, K_POD, false); // [change] single<> with a mutable term
                if (!model_alive(e) || !Traits<ModelAligned>::matches(a, slots_[e.index].content.get(K_AL)) ||
                    !Traits<ModelPod>::matches(p, slots_[e.index].content.get(K_POD)))
                    fail("single<Aligned, Pod> passed wrong values");
            });
            if (calls != 1) fail("single<Aligned, Pod> did not call back once");
        }
    }

    /**
     * Queries whose required types are all sparse (the smallest required set is walked instead of the
     * archetypes, detail/sparse_drive.hpp): the visited set against the model, each entity once, with
     * table and sparse filters, IncludeDisabled, an Optional table term, AnyOf; a handle's each,
     * count and first agree with world.each, and so does each_raw over the sparse id.
     */
    void op_sparse_queries() {
        last_op_ = "sparse-driven queries";
        ++stats_.queries;
        ecs::World& w = *world_;
        const unsigned sp = mask_of<ModelSparse>();
        auto expect = [&](auto pred) {
            std::vector<ecs::Entity> out;
            for (uint32_t idx : live_)
                if ((slots_[idx].content.mask & sp) != 0 && pred(slots_[idx])) out.push_back(slots_[idx].handle);
            std::sort(out.begin(), out.end());
            return out;
        };
        auto compare = [&](const std::string& name, std::vector<ecs::Entity> got, const std::vector<ecs::Entity>& want) {
            std::sort(got.begin(), got.end());
            if (std::adjacent_find(got.begin(), got.end()) != got.end()) fail(name + " visited an entity twice");
            else if (got != want)
                fail(name + " visited " + std::to_string(got.size()) + " entities, the model " + std::to_string(want.size()));
        };
        auto value_ok = [&](const std::string& name, ecs::Entity e, const ModelSparse& x) {
            if (!model_alive(e)) fail(name + " visited " + describe(e) + " which the model says is dead");
            else if (!Traits<ModelSparse>::matches(x, slots_[e.index].content.get(K_SP))) fail(name + " passed a wrong value to " + describe(e));
        };
        std::vector<ecs::Entity> order;
        w.each<const ModelSparse>([&](ecs::Entity e, const ModelSparse& x) {
            order.push_back(e);
            value_ok("each<Sparse>", e, x);
        });
        compare("each<Sparse>", order, expect([&](const Slot& s) { return visible(s) && (s.seen() & sp) != 0; }));
        auto q = w.query<const ModelSparse>();
        std::vector<ecs::Entity> handle_order;
        q.each([&](ecs::Entity e, const ModelSparse&) { handle_order.push_back(e); });
        if (handle_order != order) fail("query<Sparse>.each order differs from world.each's");
        if (q.count() != order.size()) fail("query<Sparse>.count disagrees with each");
        if (q.first() != (order.empty() ? ecs::INVALID_ENTITY : order.front())) fail("query<Sparse>.first is not each's first");
        if (w.count<ModelSparse>() != order.size()) fail("count<Sparse> disagrees with each");

        std::vector<ecs::Entity> got;
        w.each<const ModelSparse>(ecs::Without<ModelTag>{}, [&](ecs::Entity e, const ModelSparse& x) {
            got.push_back(e);
            value_ok("each<Sparse>(Without<Tag>)", e, x);
        });
        compare("each<Sparse>(Without<Tag>)", got,
                expect([&](const Slot& s) { return visible(s) && (s.seen() & sp) != 0 && (s.seen() & mask_of<ModelTag>()) == 0; }));
        got.clear();
        w.each<const ModelSparse>(ecs::IncludeDisabled{}, [&](ecs::Entity e, const ModelSparse&) { got.push_back(e); });
        compare("each<Sparse>(IncludeDisabled)", got, expect([&](const Slot& s) { return (s.content.mask & ~s.disabled & sp) != 0; }));
        got.clear();
        w.each<const ModelSparse, ecs::Optional<const ModelPod>>([&](ecs::Entity e, const ModelSparse&, const ModelPod* pod) {
            got.push_back(e);
            if (!model_alive(e)) return;
            const Slot& s = slots_[e.index];
            const bool has_pod = (s.seen() & mask_of<ModelPod>()) != 0;
            if ((pod != nullptr) != has_pod || (pod != nullptr && !Traits<ModelPod>::matches(*pod, s.content.get(K_POD))))
                fail("each<Sparse, Optional<Pod>> passed a wrong Pod to " + describe(e));
        });
        compare("each<Sparse, Optional<Pod>>", got, expect([&](const Slot& s) { return visible(s) && (s.seen() & sp) != 0; }));
        got.clear();
        const unsigned any = mask_of<ModelPod, std::string>();
        w.each<const ModelSparse>(ecs::AnyOf<ModelPod, std::string>{}, [&](ecs::Entity e, const ModelSparse&) { got.push_back(e); });
        compare("each<Sparse>(AnyOf<Pod, Str>)", got,
                expect([&](const Slot& s) { return visible(s) && (s.seen() & sp) != 0 && (s.seen() & any) != 0; }));
        got.clear();
        const ecs::ComponentTypeID sparse_id = ecs::component_id<ModelSparse>();
        w.each_raw(&sparse_id, 1, [&](ecs::Entity e, void* const* c) {
            got.push_back(e);
            value_ok("each_raw(Sparse)", e, *static_cast<const ModelSparse*>(c[0]));
        });
        compare("each_raw(Sparse)", got, expect([&](const Slot& s) { return visible(s) && (s.seen() & sp) != 0; }));
    }

    /// Iteration with the mutations allowed during it: overwriting adds, removal of absent types,
    /// in-place writes, nested read-only queries and deferred recording.
    void op_each_mutating() {
        last_op_ = "each(mutating)";
        ecs::World& w = *world_;
        w.each<ModelPod>([&](ecs::Entity e, ModelPod& p) {
            if (!model_alive(e)) {
                fail("each(mutating) visited a dead entity");
                return;
            }
            Content& c = slots_[e.index].content;
            stamp(e, K_POD, false); // [change] visited through the mutable term
            const uint64_t r = below(10);
            if (r == 0) {
                const int v = value();
                w.add(e, Traits<ModelPod>::make(v)); // overwrite: no migration, no hook
                c.set(K_POD, v);
                if (!Traits<ModelPod>::matches(p, v)) fail("overwrite during each not visible through the row");
            } else if (r == 1) {
                const int v = value();
                p = Traits<ModelPod>::make(v);
                c.set(K_POD, v);
            } else if (r == 2 && c.has(K_STR)) {
                const int v = value();
                w.add(e, Traits<std::string>::make(v)); // overwrite of another column
                c.set(K_STR, v);
                stamp(e, K_STR, false);
            } else if (r == 3 && !c.has(K_TAG)) {
                w.remove<ModelTag>(e); // absent: a no-op, allowed
            } else if (r == 4 && !c.has(K_MO)) {
                w.remove<ModelMoveOnly>(e);
            } else if (r == 5) {
                // Nested read-only query: must not clear the outer iteration guard.
                const Totals inner_expected = model_totals<std::string>(0); // toggles (r == 7) change it
                Totals t;
                w.each_no_entity<const std::string>([&](const std::string& s) {
                    ++t.visits;
                    t.weight += static_cast<long>(s.size());
                });
                if (t.visits != inner_expected.visits) fail("nested each saw a different entity count");
                if (!w.iterating()) fail("iterating() false inside the outer each after a nested one");
            } else if (r == 6) {
                record_random(false, e);
            } else if (r == 7) {
                toggle_random(e); // the visited entity only: a later row may or may not see a toggle
            }
        });
        if (w.iterating()) fail("iterating() true after each returned");
    }

    // -- change detection (ROADMAP-1.0 B) -------------------------------------------------------------
    //
    // The model's clock: `epoch_` starts at 1; every write stamps the current epoch; a handle's run
    // visits what was stamped after its previous run (`handle_last_`, 0 before the first), then sets
    // its progress to the current epoch and advances the clock. So what a run writes (its mutable
    // terms, the callback's writes) is stamped with the run's own epoch: never after its progress, but
    // after that of every handle that ran before.

    /// Stamps `e`'s kind `k` as changed (and added when `added`) now, when `k` is tracked.
    void stamp(ecs::Entity e, int k, bool added) {
        const int t = change_slot(k);
        if (t < 0 || !tracking_[static_cast<size_t>(t)] || !model_alive(e)) return;
        Slot& s = slots_[e.index];
        if (!s.content.has(k)) return;
        if (added) s.added_at[static_cast<size_t>(t)] = epoch_;
        s.changed_at[static_cast<size_t>(t)] = epoch_;
    }
    /// A visit of `e` through the query term `T`: a change when `T` is not const.
    template <typename T>
    void stamp_term(ecs::Entity e) {
        if constexpr (!std::is_const_v<T>) stamp(e, Traits<Bare<T>>::kind, false);
    }
    /// Every value of tracked slot `t` counts as added now (tracking began, or a new world).
    void stamp_all(int t) {
        const int k = CHANGE_KINDS_OF[t];
        for (uint32_t idx : live_) stamp(slots_[idx].handle, k, true);
    }
    void start_tracking(int t) {
        if (t == 0) world_->track_changes<ModelPod>();
        else world_->track_changes<std::string>();
        tracking_[static_cast<size_t>(t)] = true;
        stamp_all(t);
    }

    /// What one handle lists: its terms' and filters' kinds, and which of them Changed / Added name.
    struct HandleSpec {
        const char* name;
        unsigned include;   ///< terms, Changed, Added
        unsigned exclude;   ///< Without
        unsigned changed;   ///< Changed<...>
        unsigned added;     ///< Added<...>
        unsigned writes;    ///< mutable terms (the run stamps them on the rows it visits)
    };
    static constexpr int HANDLES = 4;
    static const HandleSpec& handle_spec(int h) {
        static const HandleSpec specs[HANDLES] = {
            {"query<const Pod>(Changed<Pod>) #1", mask_of<ModelPod>(), 0, mask_of<ModelPod>(), 0, 0},
            {"query<const Pod>(Changed<Pod>) #2", mask_of<ModelPod>(), 0, mask_of<ModelPod>(), 0, 0},
            {"query<Pod, const string>(Added<Pod>)", mask_of<ModelPod, std::string>(), 0, 0, mask_of<ModelPod>(),
             mask_of<ModelPod>()},
            {"query<string>(Changed<string>, Added<Pod>, Without<Tag>)", mask_of<std::string, ModelPod>(), mask_of<ModelTag>(),
             mask_of<std::string>(), mask_of<ModelPod>(), mask_of<std::string>()},
        };
        return specs[h];
    }
    /// True when every kind handle `h` lists in Changed / Added is tracked (else a run is refused).
    bool handle_usable(int h) const {
        const unsigned listed = handle_spec(h).changed | handle_spec(h).added;
        for (int k = 0; k < K_COUNT; ++k)
            if (((listed >> k) & 1u) && !tracking_[static_cast<size_t>(change_slot(k))]) return false;
        return true;
    }
    /// The entities handle `h` must visit now, sorted: progress `since`.
    std::vector<ecs::Entity> expected_visits(int h, uint32_t since) const {
        const HandleSpec& spec = handle_spec(h);
        std::vector<ecs::Entity> out;
        for (uint32_t idx : live_) {
            const Slot& s = slots_[idx];
            const unsigned seen = s.seen();
            if (!visible(s) || (seen & spec.include) != spec.include || (seen & spec.exclude) != 0) continue;
            bool pass = true;
            for (int k = 0; k < K_COUNT && pass; ++k) {
                const int t = change_slot(k);
                if (((spec.changed >> k) & 1u) && s.changed_at[static_cast<size_t>(t)] <= since) pass = false;
                if (((spec.added >> k) & 1u) && s.added_at[static_cast<size_t>(t)] <= since) pass = false;
            }
            if (pass) out.push_back(s.handle);
        }
        std::sort(out.begin(), out.end());
        return out;
    }
    void make_change_handles() {
        if (handles_made_) return;
        ecs::World& w = *world_;
        pod_changed_[0] = w.query<const ModelPod>(ecs::Changed<ModelPod>{});
        pod_changed_[1] = w.query<const ModelPod>(ecs::Changed<ModelPod>{});
        pod_added_ = w.query<ModelPod, const std::string>(ecs::Added<ModelPod>{});
        str_changed_ = w.query<std::string>(ecs::Changed<std::string>{}, ecs::Added<ModelPod>{}, ecs::Without<ModelTag>{});
        handles_made_ = true;
    }
    /// The world was replaced: new handles, which start with no progress.
    void reset_change_handles() {
        handles_made_ = false;
        handle_last_ = {};
    }
    /// Calls f(handle) with handle `h`.
    template <typename F>
    void with_handle(int h, F&& f) {
        make_change_handles();
        if (h < 2) f(pod_changed_[static_cast<size_t>(h)]);
        else if (h == 2) f(pod_added_);
        else f(str_changed_);
    }
    /// count() / empty() of every usable handle against the model (they do not advance the progress).
    void check_change_counts() {
        for (int h = 0; h < HANDLES; ++h) {
            if (!handle_usable(h)) continue;
            const std::vector<ecs::Entity> expected = expected_visits(h, handle_last_[static_cast<size_t>(h)]);
            with_handle(h, [&](auto& q) {
                if (q.count() != expected.size())
                    fail(std::string(handle_spec(h).name) + " count() " + std::to_string(q.count()) + ", model expects " +
                         std::to_string(expected.size()));
                else if (q.empty() != expected.empty())
                    fail(std::string(handle_spec(h).name) + " empty() differs from the model");
            });
            if (!error_.empty()) return;
        }
        if (world_->tracks_changes<ModelPod>() != tracking_[0] || world_->tracks_changes<std::string>() != tracking_[1])
            fail("tracks_changes<T>() differs from the model");
    }

    /// A write made by the callback of handle `h`'s run on the visited entity `e`. Writes to a type the
    /// handle filters on by Changed go to `e` itself (already visited: whether a later row of the same
    /// run sees such a write is left open by the contract); the others to any entity.
    void write_during_run(int h, ecs::Entity e) {
        ecs::World& w = *world_;
        const HandleSpec& spec = handle_spec(h);
        switch (below(3)) {
        case 0: {
            const ecs::Entity target = (spec.changed & mask_of<ModelPod>()) ? e : pick();
            w.mark_changed<ModelPod>(target);
            stamp(target, K_POD, false);
            break;
        }
        case 1: {
            const ecs::Entity target = (spec.changed & mask_of<std::string>()) ? e : pick();
            if (!model_alive(target) || !slots_[target.index].content.has(K_STR)) break;
            (void)w.get<std::string>(target); // a mutable get, no write: still a change
            stamp(target, K_STR, false);
            break;
        }
        default: {
            const ecs::Entity target = (spec.changed & mask_of<ModelPod>()) ? e : pick();
            if (ModelPod* p = w.try_get<ModelPod>(target)) {
                const int v = value();
                *p = Traits<ModelPod>::make(v);
                slots_[target.index].content.set(K_POD, v);
                stamp(target, K_POD, false);
            } else if (model_alive(target) && slots_[target.index].content.has(K_POD)) {
                fail("try_get<Pod> gave nullptr during a run on " + describe(target));
            }
            break;
        }
        }
    }

    /// Runs handle `h` (each or each_chunk; sometimes a copy, which carries the progress and then goes
    /// its own way) and checks the visited entities against the model.
    void run_change_handle(int h) {
        ++stats_.queries;
        const HandleSpec& spec = handle_spec(h);
        const bool by_copy = chance(10);
        const bool by_chunk = chance(30);
        uint32_t& last = handle_last_[static_cast<size_t>(h)];
        const std::vector<ecs::Entity> expected = expected_visits(h, last);
        std::vector<ecs::Entity> visited;
        with_handle(h, [&](auto& handle) {
            auto copy = handle;
            auto& q = by_copy ? copy : handle;
            if (by_chunk) {
                q.each_chunk([&](ecs::Chunk& chunk) {
                    for (size_t i = 0; i < chunk.size(); ++i) visited.push_back(chunk.entities()[i]);
                });
            } else {
                q.each([&](ecs::Entity e, auto&...) {
                    visited.push_back(e);
                    if (chance(15)) write_during_run(h, e); // seen by the other handles' next runs only
                });
            }
        });
        // The run's own stamps: its mutable terms on every visited row (the callbacks' writes are
        // stamped as they happen; the order inside one epoch does not matter).
        for (ecs::Entity e : visited)
            for (int k = 0; k < K_COUNT; ++k)
                if ((spec.writes >> k) & 1u) stamp(e, k, false);
        std::vector<ecs::Entity> sorted = visited;
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) fail(std::string(spec.name) + " visited an entity twice");
        if (sorted != expected) {
            std::string msg = std::string(spec.name) + (by_copy ? " (copy)" : "") + (by_chunk ? " each_chunk" : " each") +
                              " since " + std::to_string(last) + " visited " + std::to_string(sorted.size()) +
                              ", model expects " + std::to_string(expected.size()) + ":";
            for (ecs::Entity e : sorted)
                if (!std::binary_search(expected.begin(), expected.end(), e)) msg += " unexpected " + describe(e);
            for (ecs::Entity e : expected)
                if (!std::binary_search(sorted.begin(), sorted.end(), e)) msg += " missing " + describe(e);
            fail(msg);
        }
        if (!by_copy) last = epoch_;
        ++epoch_;
    }

    /// Change detection operations: writes that count as changes, idempotent tracking, handle runs.
    void op_change() {
        ecs::World& w = *world_;
        switch (below(10)) {
        case 0: {
            last_op_ = "patch";
            if (live_.empty()) break;
            const ecs::Entity e = slots_[live_[below(live_.size())]].handle;
            const int v = value();
            Content& c = slots_[e.index].content;
            if (chance(50) && c.has(K_POD)) {
                w.patch<ModelPod>(e, [&](ModelPod& p) { p = Traits<ModelPod>::make(v); });
                c.set(K_POD, v);
                stamp(e, K_POD, false);
            } else if (c.has(K_STR)) {
                w.patch<std::string>(e, [&](std::string& s) { s = Traits<std::string>::make(v); });
                c.set(K_STR, v);
                stamp(e, K_STR, false);
            }
            break;
        }
        case 1: {
            last_op_ = "mark_changed";
            const ecs::Entity e = pick(); // no-op when dead, absent or untracked
            if (chance(50)) {
                w.mark_changed<ModelPod>(e);
                stamp(e, K_POD, false);
            } else {
                w.mark_changed<std::string>(e);
                stamp(e, K_STR, false);
            }
            break;
        }
        case 2: {
            last_op_ = "mutable try_get";
            const ecs::Entity e = pick();
            if (std::string* p = w.try_get<std::string>(e)) {
                stamp(e, K_STR, false);
                if (chance(50)) {
                    const int v = value();
                    *p = Traits<std::string>::make(v);
                    slots_[e.index].content.set(K_STR, v);
                }
            }
            if (w.try_get<ModelPod>(e) != nullptr) stamp(e, K_POD, false);
            break;
        }
        case 3: {
            last_op_ = "track_changes again";
            // Idempotent: nothing counts as added again. Also before tracking begins: a no-op here.
            if (tracking_[0]) w.track_changes<ModelPod>();
            if (tracking_[1]) w.track_changes<std::string>();
            break;
        }
        default: {
            last_op_ = "change-filtered handle run";
            const int h = static_cast<int>(below(HANDLES));
            if (handle_usable(h)) run_change_handle(h);
            break;
        }
        }
    }

    // -- enable bits ---------------------------------------------------------------------------------

    /// disable<T> / enable<T> of a random kind, or disable / enable of the entity, on any handle.
    void toggle_random(ecs::Entity e) {
        const bool alive = model_alive(e);
        const uint64_t r = below(100);
        if (r < 70) {
            const int k = static_cast<int>(below(K_COUNT));
            const bool off = r < 40;
            with_kind(k, [&](auto* tag) {
                using T = std::remove_pointer_t<decltype(tag)>;
                if (off) world_->disable<T>(e);
                else world_->enable<T>(e);
            });
            if (alive && slots_[e.index].content.has(k)) {
                if (off) slots_[e.index].disabled |= 1u << k;
                else slots_[e.index].disabled &= ~(1u << k);
            }
        } else {
            const bool off = r < 85;
            if (off) world_->disable(e);
            else world_->enable(e);
            if (alive) slots_[e.index].entity_off = off;
        }
    }

    void op_enable() {
        last_op_ = "enable/disable";
        const uint64_t n = 1 + below(4);
        for (uint64_t i = 0; i < n; ++i) toggle_random(pick());
        // Now and then everything of one entity is enabled again.
        if (chance(10) && !live_.empty()) {
            const ecs::Entity e = slots_[live_[below(live_.size())]].handle;
            for_each_kind([&](auto* tag) { world_->enable<std::remove_pointer_t<decltype(tag)>>(e); });
            world_->enable(e);
            slots_[e.index].disabled = 0;
            slots_[e.index].entity_off = false;
        }
    }

    // -- deferred and command buffers ---------------------------------------------------------------

    template <typename Rec, typename... Ts, size_t... Is>
    void record_create_impl(Rec& rec, std::vector<Cmd>& pending, const std::array<int, sizeof...(Ts)>& values,
                            std::index_sequence<Is...>) {
        Cmd c;
        c.op = Cmd::Create;
        (c.create.set(Traits<Ts>::kind, values[Is]), ...);
        if constexpr (std::is_same_v<Rec, ecs::World::DeferredProxy>) {
            c.e = rec.create_with(Traits<Ts>::make(values[Is])...); // reserved now, alive at the flush
            note_reserved(c.e);
        } else {
            rec.create_with(Traits<Ts>::make(values[Is])...);
        }
        pending.push_back(c);
    }
    template <typename Rec, typename... Ts>
    void record_create(Rec& rec, std::vector<Cmd>& pending, const std::array<int, sizeof...(Ts)>& values) {
        record_create_impl<Rec, Ts...>(rec, pending, values, std::index_sequence_for<Ts...>{});
    }

    void note_reserved(ecs::Entity e) {
        if (e == ecs::INVALID_ENTITY || world_->alive(e)) fail("deferred create returned " + describe(e));
        reserved_.push_back(e);
    }

    template <typename Rec, typename... Ts, size_t... Is>
    void record_add_many(Rec& rec, std::vector<Cmd>& pending, ecs::Entity target, std::index_sequence<Is...>) {
        Cmd c;
        c.op = Cmd::AddMany;
        c.e = target;
        c.kinds = {Traits<Ts>::kind...};
        c.values = {value_for(Traits<Ts>::kind)...};
        rec.add(target, Traits<Ts>::make(c.values[Is])...);
        pending.push_back(c);
    }

    /// emplace<T>(target, args...) with the arguments each kind's constructors take.
    template <typename Rec>
    void record_emplace(Rec& rec, std::vector<Cmd>& pending, ecs::Entity target) {
        Cmd c;
        c.op = Cmd::Emplace;
        c.e = target;
        c.kind = static_cast<int>(below(K_COUNT));
        c.value = value_for(c.kind);
        c.held_tracked = 0;
        c.held_empty = 0;
        const int v = c.value;
        switch (c.kind) {
        case K_STR: rec.template emplace<std::string>(target, Traits<std::string>::make(v)); break;
        case K_MO: rec.template emplace<ModelMoveOnly>(target, v); break;
        case K_AL: rec.template emplace<ModelAligned>(target, v); break;
        case K_TAG: rec.template emplace<ModelTag>(target); break;
        case K_EC: rec.template emplace<ModelEmptyCounted>(target); break;
        case K_POD: rec.template emplace<ModelPod>(target, Traits<ModelPod>::make(v)); break;
        case K_ND: rec.template emplace<ModelNoDefault>(target, v); break;
        case K_SP:
            rec.template emplace<ModelSparse>(target, Traits<ModelSparse>::make(v));
            c.held_tracked = 1; // the argument is a Sparse
            break;
        default:
            rec.template emplace<ModelBig>(target, Traits<ModelBig>::make(v));
            c.held_tracked = 1; // the argument is a Big
            break;
        }
        pending.push_back(c);
    }

    /// instantiate(prefab[, Pod override]): the payload holds a copy of the prefab.
    template <typename Rec>
    void record_instantiate(Rec& rec, std::vector<Cmd>& pending) {
        const ModelPrefab& m = prefabs_[below(prefabs_.size())];
        Cmd c;
        c.op = Cmd::Create;
        c.create = m.content;
        c.held_tracked = m.content.tracked_objects();
        c.held_empty = m.content.has(K_EC) ? 1 : 0;
        const bool override_pod = chance(40);
        const int v = value();
        if (override_pod) c.create.set(K_POD, v);
        if constexpr (std::is_same_v<Rec, ecs::World::DeferredProxy>) {
            c.e = override_pod ? rec.instantiate(m.prefab, Traits<ModelPod>::make(v)) : rec.instantiate(m.prefab);
            note_reserved(c.e);
        } else {
            if (override_pod) rec.instantiate(m.prefab, Traits<ModelPod>::make(v));
            else rec.instantiate(m.prefab);
        }
        pending.push_back(c);
    }

    template <typename Rec>
    void record_one(Rec& rec, std::vector<Cmd>& pending, ecs::Entity target) {
        const uint64_t r = below(15);
        if (r == 9 && chance(60)) { // relationships (dead handles at the flush: a no-op)
            const int rk = static_cast<int>(below(R_COUNT));
            const ecs::Entity other = pick_recordable();
            Cmd c;
            c.kind = rk;
            c.e = target;
            c.target = other;
            const uint64_t what = below(4);
            with_relation(rk, [&](auto* tag) {
                using R = std::remove_pointer_t<decltype(tag)>;
                if (what < 2) {
                    rec.template relate<R>(target, other);
                    c.op = Cmd::Relate;
                } else if (what == 2) {
                    rec.template unrelate<R>(target, other);
                    c.op = Cmd::Unrelate;
                } else {
                    rec.template unrelate_all<R>(target);
                    c.op = Cmd::UnrelateAll;
                }
            });
            pending.push_back(c);
            return;
        }
        if (r >= 10) {
            if (r == 10) {
                with_pack(static_cast<int>(below(PACK_COUNT)), [&](auto pack) { record_add_many_pack(rec, pending, target, pack); });
            } else if (r == 11) {
                with_pack(static_cast<int>(below(PACK_COUNT)), [&](auto pack) { record_remove_many_pack(rec, pending, target, pack); });
            } else if (r == 12) {
                record_emplace(rec, pending, target);
            } else if (r == 13) {
                Cmd c;
                c.op = Cmd::Call;
                c.e = target;
                rec.call([this, target](ecs::World& w) {
                    ++calls_run_;
                    w.add(target, ModelTag{}); // a no-op when dead, as the model says
                });
                pending.push_back(c);
            } else {
                record_instantiate(rec, pending);
            }
            return;
        }
        if (r < 2) {
            rec.destroy(target);
            pending.push_back(Cmd{Cmd::Destroy, target, 0, 0, {}});
        } else if (r < 6) {
            const int k = static_cast<int>(below(K_COUNT));
            const int v = (k == K_TAG || k == K_EC) ? 0 : value();
            with_kind(k, [&](auto* tag) {
                using T = std::remove_pointer_t<decltype(tag)>;
                if constexpr (std::is_copy_constructible_v<T>) {
                    if (chance(25)) {
                        T copy = Traits<T>::make(v);
                        rec.add(target, copy);
                    } else {
                        rec.add(target, Traits<T>::make(v));
                    }
                } else {
                    rec.add(target, Traits<T>::make(v));
                }
            });
            pending.push_back(Cmd{Cmd::Add, target, k, v, {}});
        } else if (r < 8) {
            const int k = static_cast<int>(below(K_COUNT));
            with_kind(k, [&](auto* tag) { rec.template remove<std::remove_pointer_t<decltype(tag)>>(target); });
            pending.push_back(Cmd{Cmd::Remove, target, k, 0, {}});
        } else {
            switch (below(7)) {
            case 0: record_create<Rec>(rec, pending, {}); break;
            case 1: record_create<Rec, std::string>(rec, pending, {value()}); break;
            case 2: record_create<Rec, ModelPod, std::string>(rec, pending, {value(), value()}); break;
            case 3: record_create<Rec, ModelMoveOnly, ModelAligned, ModelTag>(rec, pending, {value(), value(), 0}); break;
            case 4: record_create<Rec, ModelNoDefault, ModelEmptyCounted>(rec, pending, {value(), 0}); break;
            case 5:
                if (chance(50)) record_create<Rec, ModelBig, ModelPod>(rec, pending, {value(), value()});
                else record_create<Rec, ModelPod, ModelSparse>(rec, pending, {value(), value()});
                break;
            default:
                record_create<Rec, ModelAligned, std::string, ModelMoveOnly, ModelNoDefault, ModelPod, ModelTag,
                              ModelEmptyCounted>(rec, pending, {value(), value(), value(), value(), value(), 0, 0});
                break;
            }
        }
    }

    template <typename Rec, typename... Ts>
    void record_add_many_pack(Rec& rec, std::vector<Cmd>& pending, ecs::Entity target, Pack<Ts...>) {
        record_add_many<Rec, Ts...>(rec, pending, target, std::index_sequence_for<Ts...>{});
    }
    template <typename Rec, typename... Ts>
    void record_remove_many_pack(Rec& rec, std::vector<Cmd>& pending, ecs::Entity target, Pack<Ts...>) {
        Cmd c;
        c.op = Cmd::RemoveMany;
        c.e = target;
        c.kinds = {Traits<Ts>::kind...};
        rec.template remove<Ts...>(target);
        pending.push_back(c);
    }

    /// Records one random command, aimed at `target` (or a random handle), into the world's queue or
    /// the command buffer.
    void record_random(bool buffer, ecs::Entity target) {
        if (buffer) {
            record_one(buffer_, buffer_pending_, target);
        } else {
            ecs::World::DeferredProxy proxy = world_->deferred();
            record_one(proxy, deferred_pending_, target);
        }
    }

    void op_record(bool buffer) {
        last_op_ = buffer ? "record(CommandBuffer)" : "record(deferred)";
        const uint64_t n = 1 + below(8);
        if (chance(30)) {
            // Record from inside a query, the intended use.
            uint64_t left = n;
            world_->each<>([&](ecs::Entity e) {
                if (left > 0 && chance(20)) {
                    record_random(buffer, e);
                    --left;
                }
            });
        } else {
            for (uint64_t i = 0; i < n; ++i) record_random(buffer, pick_recordable());
        }
        const size_t recorded = buffer ? buffer_.size() : world_->deferred_count();
        const size_t expected = buffer ? buffer_pending_.size() : deferred_pending_.size();
        if (recorded != expected) fail("recorded command count " + std::to_string(recorded) + " expected " + std::to_string(expected));
    }

    /// Applies recorded commands to the model in order; creations are matched afterwards by content.
    void model_apply(const std::vector<Cmd>& cmds) {
        std::vector<Content> creates;
        for (const Cmd& c : cmds) {
            switch (c.op) {
            case Cmd::Destroy: model_destroy(c.e); break;
            case Cmd::Add: model_add(c.e, c.kind, c.value); break;
            case Cmd::Remove: model_remove(c.e, c.kind); break;
            case Cmd::Relate: model_relate(c.kind, c.e, c.target); break;
            case Cmd::Unrelate: model_unrelate(c.kind, c.e, c.target); break;
            case Cmd::UnrelateAll: model_unrelate_all(c.kind, c.e); break;
            case Cmd::Create:
                // A reserved handle is created at its place in the order (later commands may name it).
                if (c.e != ecs::INVALID_ENTITY) model_create(c.e, c.create);
                else creates.push_back(c.create);
                break;
            case Cmd::AddMany:
                for (size_t i = 0; i < c.kinds.size(); ++i) model_add(c.e, c.kinds[i], c.values[i]);
                break;
            case Cmd::RemoveMany:
                for (int k : c.kinds) model_remove(c.e, k);
                break;
            case Cmd::Emplace: model_add(c.e, c.kind, c.value); break;
            case Cmd::Call:
                ++calls_expected_;
                model_add(c.e, K_TAG, 0);
                break;
            }
        }
        bind_new_entities(creates);
    }

    /// Finds the world's entities the model does not know, checks they are exactly `creates` (as a
    /// multiset of contents) and adds them to the model.
    void bind_new_entities(std::vector<Content> creates) {
        std::vector<std::pair<Content, ecs::Entity>> found;
        ecs::World& w = *world_;
        w.each<>(ecs::IncludeDisabled{}, [&](ecs::Entity e) {
            if (model_alive(e)) return;
            Content c;
            for_each_kind([&](auto* tag) {
                using T = std::remove_pointer_t<decltype(tag)>;
                if (const T* p = std::as_const(w).try_get<T>(e)) c.set(Traits<T>::kind, Traits<T>::value(*p));
            });
            found.emplace_back(c, e);
        });
        std::sort(creates.begin(), creates.end());
        std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        bool same = creates.size() == found.size();
        for (size_t i = 0; same && i < creates.size(); ++i) same = creates[i] == found[i].first;
        if (!same) {
            std::string msg = "flush created " + std::to_string(found.size()) + " unknown entities, expected " +
                              std::to_string(creates.size()) + ":";
            // Only the difference of the two multisets (both are sorted).
            size_t i = 0, j = 0;
            while (i < found.size() || j < creates.size()) {
                if (j == creates.size() || (i < found.size() && found[i].first < creates[j])) {
                    msg += " unexpected " + describe(found[i].second) + describe(found[i].first);
                    ++i;
                } else if (i == found.size() || creates[j] < found[i].first) {
                    msg += " missing " + describe(creates[j]);
                    ++j;
                } else {
                    ++i;
                    ++j;
                }
            }
            fail(msg);
            return;
        }
        for (const auto& f : found) model_create(f.second, f.first);
    }

    void op_flush() {
        ++stats_.flushes;
        const uint64_t r = below(4);
        if (r == 0) {
            last_op_ = "CommandBuffer::flush";
            buffer_.flush(*world_);
            if (!buffer_.empty()) fail("CommandBuffer not empty after flush");
            std::vector<Cmd> cmds = std::move(buffer_pending_);
            buffer_pending_.clear();
            model_apply(cmds);
        } else {
            if (r == 1) {
                last_op_ = "SystemRegistry::run_all";
                ecs::SystemRegistry systems;
                int ran = 0;
                systems.add("count", [&ran](ecs::World&) { ++ran; });
                systems.run_all(*world_);
                if (ran != 1) fail("system did not run once");
            } else {
                last_op_ = "flush_deferred";
                world_->flush_deferred();
            }
            if (world_->deferred_count() != 0) fail("deferred queue not empty after flush");
            std::vector<Cmd> cmds = std::move(deferred_pending_);
            deferred_pending_.clear();
            model_apply(cmds);
            check_reserved_created();
        }
    }

    /// After a flush of the world's queue: every reserved handle is alive, at exactly that handle,
    /// unless a later command of the same flush destroyed it.
    void check_reserved_created() {
        for (ecs::Entity e : reserved_)
            if (world_->alive(e) != model_alive(e)) fail("reserved handle " + describe(e) + " alive() disagrees after the flush");
        reserved_.clear();
    }

    /// Drops or moves the command buffer's unflushed commands (PITFALLS #4: move-assignment over a
    /// buffer with payloads).
    void op_buffer_lifetime() {
        const uint64_t r = below(3);
        if (r == 0) {
            last_op_ = "CommandBuffer::clear";
            buffer_.clear();
            buffer_pending_.clear();
        } else if (r == 1) {
            last_op_ = "CommandBuffer move-assign over pending";
            ecs::CommandBuffer other;
            std::vector<Cmd> other_pending;
            const uint64_t n = below(4);
            for (uint64_t i = 0; i < n; ++i) record_one(other, other_pending, pick_recordable());
            buffer_ = std::move(other);
            buffer_pending_ = std::move(other_pending);
        } else {
            last_op_ = "CommandBuffer move-construct";
            ecs::CommandBuffer moved(std::move(buffer_));
            if (!buffer_.empty()) fail("moved-from CommandBuffer not empty");
            buffer_ = std::move(moved);
        }
        if (buffer_.size() != buffer_pending_.size()) fail("CommandBuffer size wrong after clear/move");
    }

    // -- sorting ------------------------------------------------------------------------------------

    /// Entity visit order of each_chunk over T, with each entity's chunk number (rows of one chunk are
    /// adjacent rows of one archetype, in row order). The model's component mask cannot stand in for the
    /// archetype: a runtime component or another relationship target makes a different archetype.
    template <typename T>
    std::vector<std::pair<ecs::Entity, unsigned>> visit_order() {
        std::vector<std::pair<ecs::Entity, unsigned>> order;
        unsigned chunk_no = 0;
        world_->template query<const T>().each_chunk([&](ecs::Chunk& chunk) {
            ++chunk_no;
            for (size_t i = 0; i < chunk.size(); ++i) order.emplace_back(chunk.entities()[i], chunk_no);
        });
        return order;
    }

    template <typename T>
    void sort_one() {
        const bool descending = chance(50);
        // Coarse keys make many ties, so stability is really exercised (std::sort is stable on
        // short ranges only).
        const bool coarse = chance(50);
        const std::vector<std::pair<ecs::Entity, unsigned>> before = visit_order<T>();
        std::vector<size_t> position(slots_.size(), 0);
        for (size_t i = 0; i < before.size(); ++i) {
            if (before[i].first.index >= position.size()) {
                fail("each<T> visited an entity the model never issued");
                return;
            }
            position[before[i].first.index] = i;
        }
        auto cmp = [descending, coarse](const T& a, const T& b) {
            if (coarse) {
                const long ka = Traits<T>::weight(a) / 128, kb = Traits<T>::weight(b) / 128;
                return descending ? kb < ka : ka < kb;
            }
            return descending ? Traits<T>::less(b, a) : Traits<T>::less(a, b);
        };
        world_->sort<T>(cmp);
        const std::vector<std::pair<ecs::Entity, unsigned>> after = visit_order<T>();
        if (after.size() != before.size()) {
            fail("sort changed the number of entities having the component");
            return;
        }
        for (size_t i = 1; i < after.size(); ++i) {
            if (after[i].second != after[i - 1].second) continue; // chunk boundary
            const T& prev = std::as_const(*world_).get<T>(after[i - 1].first);
            const T& cur = std::as_const(*world_).get<T>(after[i].first);
            if (cmp(cur, prev)) fail(std::string("sort<") + kind_names[Traits<T>::kind] + "> left rows out of order");
            // Stable: equal keys keep their previous relative order.
            if (!cmp(prev, cur) && position[after[i - 1].first.index] > position[after[i].first.index])
                fail(std::string("sort<") + kind_names[Traits<T>::kind] + "> is not stable");
        }
    }

    void op_sort() {
        last_op_ = "sort";
        switch (below(7)) {
        case 6: sort_one<ModelBig>(); break;
        case 0: sort_one<ModelPod>(); break;
        case 1: sort_one<std::string>(); break;
        case 2: sort_one<ModelAligned>(); break;
        case 3: sort_one<ModelMoveOnly>(); break;
        case 4: sort_one<ModelNoDefault>(); break;
        default: sort_one<ModelTag>(); break;
        }
    }

    // -- resources ----------------------------------------------------------------------------------

    void op_resources() {
        last_op_ = "resources";
        ecs::World& w = *world_;
        const int v = value();
        switch (below(5)) {
        case 0:
            w.set_resource(ModelAligned(v));
            res_aligned_ = v;
            break;
        case 1:
            w.remove_resource<ModelAligned>();
            res_aligned_ = -1;
            break;
        case 2: {
            const std::string s = Traits<std::string>::make(v);
            w.set_resource(s);
            res_string_ = v;
            break;
        }
        case 3:
            w.remove_resource<std::string>();
            res_string_ = -1;
            break;
        default:
            if (res_string_ >= 0) {
                // Replace the resource with a value made from itself (lvalue path copies first).
                std::string& cur = w.resource<std::string>();
                w.set_resource(cur);
            }
            break;
        }
    }

    void check_resources() {
        ecs::World& w = *world_;
        const ModelAligned* a = w.try_resource<ModelAligned>();
        if ((a != nullptr) != (res_aligned_ >= 0) || w.has_resource<ModelAligned>() != (res_aligned_ >= 0))
            fail("Aligned resource presence wrong");
        else if (a && (!Traits<ModelAligned>::matches(*a, res_aligned_) || &w.resource<ModelAligned>() != a))
            fail("Aligned resource value or alignment wrong");
        const std::string* s = w.try_resource<std::string>();
        if ((s != nullptr) != (res_string_ >= 0)) fail("string resource presence wrong");
        else if (s && *s != Traits<std::string>::make(res_string_)) fail("string resource value wrong");
    }

    // -- whole-world operations ---------------------------------------------------------------------

    void op_move_world() {
        if (chance(50)) {
            last_op_ = "move-construct World";
            auto moved = std::make_unique<ecs::World>(std::move(*world_));
            world_ = std::move(moved);
            reset_change_handles();
        } else {
            // Move-assignment onto worlds that hold resources, entities and pending commands of their
            // own: all of it must be destroyed (the lifetime counts check it).
            last_op_ = "move-assign World";
            ecs::World other;
            other.set_resource(ModelAligned(value()));
            (void)other.create_with(ModelNoDefault(value()), Traits<ModelBig>::make(value()));
            other.deferred().create_with(ModelMoveOnly(value()));
            other = std::move(*world_);
            ecs::World third;
            third.set_resource(ModelAligned(value()));
            *world_ = std::move(third); // `world_` was moved from: assign a fresh world over it...
            *world_ = std::move(other); // ...then the real one over that
            if (!world_->check_invariants()) fail("invariants broken after World move-assignment");
            reset_change_handles();
        }
        // [change] tracking moves with the world (and the handles of the old address are invalid).
        if (world_->tracks_changes<ModelPod>() != tracking_[0] || world_->tracks_changes<std::string>() != tracking_[1])
            fail("tracks_changes differs from the model after a World move");
    }

    /// Destroys every entity of one random kind through the deferred queue, recorded during each.
    void op_mass_destroy() {
        last_op_ = "mass destroy (deferred during each)";
        const int k = static_cast<int>(below(K_COUNT));
        with_kind(k, [&](auto* tag) {
            using T = std::remove_pointer_t<decltype(tag)>;
            ecs::World::DeferredProxy proxy = world_->deferred();
            world_->each<const T>([&](ecs::Entity e, const T&) {
                proxy.destroy(e);
                deferred_pending_.push_back(Cmd{Cmd::Destroy, e, 0, 0, {}});
            });
        });
    }

    // -- hierarchy (builtin/hierarchy_ops.hpp) -----------------------------------------------------

    /// Model of world.try_get<Parent>(e)->entity.
    const ecs::Entity* model_parent(ecs::Entity e) const {
        return model_alive(e) && slots_[e.index].has_parent ? &slots_[e.index].parent : nullptr;
    }

    bool model_has_ancestor(ecs::Entity e, ecs::Entity ancestor) const {
        size_t steps = live_.size();
        for (const ecs::Entity* p = model_parent(e); p != nullptr && steps != 0; --steps) {
            if (*p == ancestor) return true;
            p = model_parent(*p);
        }
        return false;
    }

    void model_detach(ecs::Entity parent, ecs::Entity child) {
        if (!model_alive(parent) || !slots_[parent.index].has_children) return;
        std::vector<ecs::Entity>& list = slots_[parent.index].children;
        list.erase(std::remove(list.begin(), list.end(), child), list.end()); // spec §5.2: the component stays
    }

    void model_attach(ecs::Entity parent, ecs::Entity child) {
        Slot& p = slots_[parent.index];
        if (!p.has_children) {
            p.has_children = true;
            p.children.assign(1, child);
        } else if (std::find(p.children.begin(), p.children.end(), child) == p.children.end()) {
            p.children.push_back(child);
        }
    }

    void model_set_parent(ecs::Entity child, ecs::Entity parent) {
        if (!model_alive(child) || !model_alive(parent)) return;
        if (slots_[child.index].has_parent) {
            const ecs::Entity old = slots_[child.index].parent;
            if (old == parent) {
                model_attach(parent, child); // only repairs a missing entry
                return;
            }
            model_detach(old, child);
        }
        slots_[child.index].has_parent = true;
        slots_[child.index].parent = parent;
        model_attach(parent, child);
    }

    void model_remove_parent(ecs::Entity child) {
        if (!model_alive(child) || !slots_[child.index].has_parent) return;
        model_detach(slots_[child.index].parent, child);
        slots_[child.index].has_parent = false;
        slots_[child.index].parent = ecs::Entity{};
    }

    /// Breadth-first subtree of `root`, following only genuine Children entries.
    std::vector<ecs::Entity> model_subtree(ecs::Entity root) const {
        std::vector<ecs::Entity> order{root};
        for (size_t i = 0; i < order.size(); ++i) {
            const ecs::Entity node = order[i];
            if (!model_alive(node) || !slots_[node.index].has_children) continue;
            for (ecs::Entity c : slots_[node.index].children) {
                const ecs::Entity* p = model_parent(c);
                if (c != root && p != nullptr && *p == node) order.push_back(c);
            }
        }
        return order;
    }

    /// A live entity, often one already in a hierarchy (so trees grow deep).
    ecs::Entity pick_for_hierarchy() {
        if (!live_.empty() && chance(40)) {
            for (int tries = 0; tries < 4; ++tries) {
                const Slot& s = slots_[live_[below(live_.size())]];
                if (s.has_parent || s.has_children) return s.handle;
            }
        }
        return pick();
    }

    void op_hierarchy() {
        const uint64_t r = below(10);
        if (r < 6) {
            last_op_ = "set_parent";
            const ecs::Entity child = pick_for_hierarchy();
            const ecs::Entity parent = pick_for_hierarchy();
            // Self-parenting and cycles assert (proven in tests/assert): the model never asks for them.
            if (child == parent) return;
            if (model_alive(child) && model_alive(parent) && model_has_ancestor(parent, child)) return;
            begin_direct();
            ecs::set_parent(*world_, child, parent);
            structural_now_ = false;
            model_set_parent(child, parent);
            end_direct();
        } else if (r < 8) {
            last_op_ = "remove_parent";
            const ecs::Entity child = pick_for_hierarchy();
            begin_direct();
            ecs::remove_parent(*world_, child);
            structural_now_ = false;
            model_remove_parent(child);
            end_direct();
        } else {
            last_op_ = "destroy_recursive";
            const ecs::Entity root = pick_for_hierarchy();
            std::vector<ecs::Entity> order;
            if (model_alive(root)) {
                model_remove_parent(root);
                order = model_subtree(root);
            }
            begin_direct();
            recursive_subtree_ = order;
            // A ChildOf cascade may take an ancestor before its children: the leaves-first check then
            // does not apply.
            recursive_strict_ = std::none_of(live_.begin(), live_.end(), [&](uint32_t idx) { return !slots_[idx].rel[R_CHILD].empty(); });
            ecs::destroy_recursive(*world_, root);
            recursive_subtree_.clear();
            // The model state before the call decided the order; destroy leaves first.
            for (size_t i = order.size(); i-- > 0;) model_destroy(order[i]);
            end_direct();
        }
    }

    // -- prefabs ------------------------------------------------------------------------------------

    struct ModelPrefab {
        ecs::Prefab prefab;
        Content content;
    };

    ModelPrefab random_prefab() {
        ModelPrefab m;
        const int a = value(), b = value();
        switch (below(4)) {
        case 0:
            m.prefab = ecs::Prefab::create(Traits<std::string>::make(a), Traits<ModelPod>::make(b), ModelTag{});
            m.content.set(K_STR, a);
            m.content.set(K_POD, b);
            m.content.set(K_TAG, 0);
            break;
        case 1:
            m.prefab = ecs::Prefab::create(ModelAligned(a), ModelNoDefault(b), ModelEmptyCounted{});
            m.content.set(K_AL, a);
            m.content.set(K_ND, b);
            m.content.set(K_EC, 0);
            break;
        case 2: // an empty prefab, or one with a sparse default
            if (chance(50)) {
                m.prefab = ecs::Prefab::create(Traits<ModelSparse>::make(a), Traits<ModelPod>::make(b));
                m.content.set(K_SP, a);
                m.content.set(K_POD, b);
            }
            break;
        default: {
            const ModelPod pod = Traits<ModelPod>::make(a);
            const ModelBig big = Traits<ModelBig>::make(b);
            m.prefab = ecs::Prefab::create(pod, big); // copied from lvalues
            m.content.set(K_POD, a);
            m.content.set(K_BIG, b);
            break;
        }
        }
        return m;
    }

    void check_prefab(const ModelPrefab& m) {
        size_t kinds = 0;
        for (int k = 0; k < K_COUNT; ++k) kinds += m.content.has(k) ? 1u : 0u;
        if (m.prefab.component_count() != kinds)
            fail("Prefab::component_count() " + std::to_string(m.prefab.component_count()) + " for " + describe(m.content));
        for_each_kind([&](auto* tag) {
            using T = std::remove_pointer_t<decltype(tag)>;
            if (m.prefab.has<T>() != m.content.has(Traits<T>::kind))
                fail(std::string("Prefab::has<") + kind_names[Traits<T>::kind] + "> wrong for " + describe(m.content));
        });
    }

    void instantiate_from(const ModelPrefab& m) {
        Content c = m.content;
        begin_direct();
        ecs::Entity e;
        switch (below(5)) {
        case 0:
            last_op_ = "instantiate";
            e = ecs::instantiate(*world_, m.prefab);
            break;
        case 1: {
            last_op_ = "instantiate(Pod override)";
            const int v = value();
            c.set(K_POD, v); // replaces the default when the prefab has Pod, else extends
            e = ecs::instantiate(*world_, m.prefab, Traits<ModelPod>::make(v));
            break;
        }
        case 2: {
            last_op_ = "instantiate(MoveOnly, string overrides)";
            const int a = value(), b = value();
            c.set(K_MO, a);
            c.set(K_STR, b);
            e = ecs::instantiate(*world_, m.prefab, ModelMoveOnly(a), Traits<std::string>::make(b));
            break;
        }
        case 3: {
            last_op_ = "instantiate(lvalue override)";
            const int v = value();
            const ModelNoDefault nd(v);
            c.set(K_ND, v);
            e = ecs::instantiate(*world_, m.prefab, nd);
            if (nd.v != v) fail("instantiate changed its lvalue override");
            break;
        }
        default: {
            last_op_ = "instantiate(Big, Tag overrides)";
            const int v = value();
            c.set(K_BIG, v);
            c.set(K_TAG, 0);
            e = ecs::instantiate(*world_, m.prefab, Traits<ModelBig>::make(v), ModelTag{});
            break;
        }
        }
        structural_now_ = false;
        model_create(e, c);
        end_direct();
    }

    void op_instantiate() { instantiate_from(prefabs_[below(prefabs_.size())]); }

    /// Prefab copies, moves and replacement (their defaults are counted like components).
    void op_prefab_lifetime() {
        const size_t i = below(prefabs_.size());
        const size_t j = below(prefabs_.size());
        switch (below(4)) {
        case 0:
            last_op_ = "Prefab move-assign";
            prefabs_[i] = random_prefab();
            break;
        case 1:
            last_op_ = "Prefab copy-assign";
            prefabs_[i].prefab = prefabs_[j].prefab; // self-assignment included
            prefabs_[i].content = prefabs_[j].content;
            break;
        case 2: {
            last_op_ = "instantiate from a Prefab copy";
            const ModelPrefab copy{ecs::Prefab(prefabs_[i].prefab), prefabs_[i].content};
            check_prefab(copy);
            instantiate_from(copy);
            break;
        }
        default: {
            last_op_ = "Prefab move-construct";
            ecs::Prefab moved(std::move(prefabs_[i].prefab));
            if (prefabs_[i].prefab.component_count() != 0) fail("moved-from Prefab is not empty");
            prefabs_[i].prefab = std::move(moved);
            break;
        }
        }
        for (const ModelPrefab& m : prefabs_) check_prefab(m);
    }

    // -- snapshots (serialization.hpp) --------------------------------------------------------------

    /// serialize -> deserialize into a fresh world, which replaces the current one. Resources and
    /// observers are not part of a snapshot; deferred commands are flushed first.
    void op_snapshot() {
        last_op_ = "snapshot round trip";
        register_model_components();
        std::vector<Cmd> cmds = std::move(deferred_pending_);
        deferred_pending_.clear();
        world_->flush_deferred();
        model_apply(cmds);
        check_reserved_created();
        if (!error_.empty()) return;

        // The copy is a load of the snapshot, World::clone, World::copy_from (into a world that
        // held another state of the same lineage: its memory is reused), or a frame restored by
        // ecs::Rollback after the world moved on. The last three refuse a world where a live
        // entity holds the move-only kind, so that kind is removed first (mirrored by the model).
        const uint64_t way = below(4);
        const bool by_clone = way == 1;
        if (way != 0) {
            remove_all_one<ModelMoveOnly>(0, 0);
            if (!error_.empty()) return;
            last_op_ = way == 1 ? "clone" : way == 2 ? "copy_from" : "Rollback save, scribble, load";
        }
        std::ostringstream first;
        ecs::serialize(*world_, first);
        if (!first) {
            fail("serialize set failbit");
            return;
        }
        const std::string bytes = first.str();
        auto fresh = std::make_unique<ecs::World>();
        if (by_clone) {
            *fresh = world_->clone();
            if (!fresh->check_invariants()) {
                fail("the clone breaks an invariant");
                return;
            }
        } else if (way == 2) {
            fresh->copy_from(*world_);
            scribble(*fresh);
            fresh->copy_from(*world_); // again, over the scribbled state
            if (!fresh->check_invariants()) {
                fail("copy_from breaks an invariant");
                return;
            }
        } else if (way == 3) {
            fresh->copy_from(*world_);
            ecs::Rollback ring(*fresh, 2);
            ring.save(10);
            scribble(*fresh);
            ring.save(11);
            scribble(*fresh);
            if (!ring.load(10) || !fresh->check_invariants()) {
                fail("Rollback::load of a saved frame failed or broke an invariant");
                return;
            }
        } else {
            // [change] a world that tracks before loading: loaded values count as added.
            if (tracking_[0]) fresh->track_changes<ModelPod>();
            if (tracking_[1]) fresh->track_changes<std::string>();
            std::istringstream in(bytes);
            const ecs::DeserializeResult result = ecs::deserialize(*fresh, in);
            if (!result) {
                fail("deserialize of a fresh snapshot failed: " + result.message);
                return;
            }
        }
        std::ostringstream second;
        ecs::serialize(*fresh, second);
        if (second.str() != bytes)
            fail(way == 0 ? "a snapshot of the loaded world differs from the one it was loaded from"
                          : std::string("a snapshot of the copy (") + last_op_ + ") differs from the original's");
        world_ = std::move(fresh);
        replica_.reset(); // another world: the replica follows the new one from scratch
        replica_tracked_ = 0;
        replica_empty_ = 0;
        if (hooks_registered_) install_hooks(*world_);
        // [change] World::clone does not carry track_changes (SPEC is silent; see notes/change2.md):
        // track again. Either way every value of a tracked kind counts as added now.
        if (tracking_[0] && !world_->tracks_changes<ModelPod>()) world_->track_changes<ModelPod>();
        if (tracking_[1] && !world_->tracks_changes<std::string>()) world_->track_changes<std::string>();
        for (int t = 0; t < CHANGE_KINDS; ++t)
            if (tracking_[static_cast<size_t>(t)]) stamp_all(t);
        reset_change_handles();
        if (way < 2) { // copy_from and Rollback copy the resources; a snapshot and clone do not
            res_aligned_ = -1;
            res_string_ = -1;
        }
    }

    /// Changes a world the model does not follow (no hooks on it): destroys, creates, adds, names.
    void scribble(ecs::World& w) {
        std::vector<ecs::Entity> some;
        w.each<>([&](ecs::Entity e) {
            if (some.size() < 6) some.push_back(e);
        });
        for (size_t i = 0; i < some.size(); ++i) {
            if (i % 2 == 0) w.destroy(some[i]);
            else if (!w.has<ModelTag>(some[i])) w.add(some[i], ModelTag{});
        }
        for (int i = 0; i < 3; ++i) (void)w.create_with(ModelPod{value(), 0.5f}, std::string(size_t(i) * 20, 's'));
        w.set_resource(ModelAligned(value()));
        w.send(ModelPod{1, 1.0f}); // an event: dropped by Rollback::load
    }

    // -- change streams (serialize_changes / apply_changes) ----------------------------------------

    /// Keeps a replica of the world by change streams: each call sends what changed since the last
    /// one and checks the replica against the model (every kind tracked on the world from the
    /// first call on, so every value written travels).
    void op_replica() {
        last_op_ = "change stream to the replica";
        register_model_components(); // names: a change stream names its types
        std::vector<Cmd> cmds = std::move(deferred_pending_);
        deferred_pending_.clear();
        world_->flush_deferred(); // reserved slots: serialize_changes refuses them
        model_apply(cmds);
        check_reserved_created();
        if (!error_.empty()) return;
        if (!replica_) {
            for (int t = 0; t < CHANGE_KINDS; ++t) // the kinds the model's change checks follow
                if (!tracking_[static_cast<size_t>(t)]) start_tracking(t);
            for_each_kind([&](auto* tag) { world_->track_changes<std::remove_pointer_t<decltype(tag)>>(); });
            world_->track_changes<ecs::Parent>();
            world_->track_changes<ecs::Children>();
            ecs::detail::WorldAccess::track(*world_, model_runtime_id());
            replica_ = std::make_unique<ecs::World>();
            replica_since_ = 0;
        }
        std::ostringstream out;
        ecs::serialize_changes(*world_, replica_since_, out);
        if (!out) {
            fail("serialize_changes set failbit");
            return;
        }
        std::istringstream in(out.str());
        const ecs::DeserializeResult r = ecs::apply_changes(*replica_, in);
        if (!r) {
            fail("apply_changes refused a fresh change stream: " + r.message);
            return;
        }
        replica_since_ = r.tick;
        if (!replica_->check_invariants()) {
            fail("the replica breaks an invariant after apply_changes");
            return;
        }
        last_op_ = "replica against the model";
        check_entities(*replica_);
        if (!error_.empty()) return;
        std::swap(world_, replica_); // the relationship check reads world_
        check_relations();
        std::swap(world_, replica_);
        const std::vector<uint32_t> a = ecs::detail::WorldAccess::free_list(*world_);
        if (a != ecs::detail::WorldAccess::free_list(*replica_)) fail("the replica's free list differs from the world's");
        // The replica's objects count in the lifetime checks until the next sync or its reset.
        replica_tracked_ = 0;
        replica_empty_ = 0;
        for (uint32_t idx : live_) {
            replica_tracked_ += slots_[idx].content.tracked_objects();
            replica_empty_ += slots_[idx].content.has(K_EC) ? 1 : 0;
        }
    }

    // -- relationships (relation.hpp) ---------------------------------------------------------------

    /// A live entity, or INVALID_ENTITY when there is none.
    ecs::Entity pick_alive() { return live_.empty() ? ecs::INVALID_ENTITY : slots_[live_[below(live_.size())]].handle; }

    void op_relation() {
        const int rk = static_cast<int>(below(R_COUNT));
        const ecs::Entity source = pick_alive();
        if (source == ecs::INVALID_ENTITY) return;
        // Mostly a few popular targets, so that sources share them and cascades reach far.
        const ecs::Entity target = chance(50) && live_.size() > 4 ? slots_[live_[below(4)]].handle : pick_alive();
        const std::vector<ecs::Entity>& targets = slots_[source.index].rel[static_cast<size_t>(rk)];
        with_relation(rk, [&](auto* tag) {
            using R = std::remove_pointer_t<decltype(tag)>;
            const uint64_t r = below(10);
            if (r < 5) {
                last_op_ = "relate";
                world_->relate<R>(source, target);
                model_relate(rk, source, target);
            } else if (r < 7) {
                last_op_ = "unrelate";
                const ecs::Entity t = !targets.empty() && chance(80) ? targets[below(targets.size())] : pick();
                world_->unrelate<R>(source, t);
                model_unrelate(rk, source, t);
            } else if (r < 8) {
                last_op_ = "unrelate_all";
                world_->unrelate_all<R>(source);
                model_unrelate_all(rk, source);
            } else {
                last_op_ = "relationship queries";
                check_relation_queries<R>(rk, target);
            }
        });
    }

    /// Related<R>{target}, Related<R>{} and (for ChildOf) Cascade<R> against the model.
    template <typename R>
    void check_relation_queries(int rk, ecs::Entity target) {
        ecs::World& w = *world_;
        size_t with_target = 0;
        size_t with_any = 0;
        size_t visible_count = 0; // a disabled entity (enable(e, false)) is skipped by every query
        for (uint32_t idx : live_) {
            if (!visible(slots_[idx])) continue;
            ++visible_count;
            const std::vector<ecs::Entity>& list = slots_[idx].rel[static_cast<size_t>(rk)];
            if (!list.empty()) ++with_any;
            if (std::find(list.begin(), list.end(), target) != list.end()) ++with_target;
        }
        size_t visited = 0;
        w.each<>(ecs::Related<R>{target}, [&](ecs::Entity e) {
            ++visited;
            if (!w.related<R>(e, target)) fail("Related<R>{target} visited an entity without the pair");
        });
        if (visited != with_target) fail("Related<R>{target} visited " + std::to_string(visited) + ", model " + std::to_string(with_target));
        auto handle = w.query<>(ecs::Related<R>{target});
        if (handle.count() != with_target) fail("query(Related<R>{target}).count() differs from the model");
        if (w.query<>(ecs::Related<R>{}).count() != with_any) fail("query(Related<R>{}).count() differs from the model");
        if constexpr (std::is_same_v<R, ModelChildOf>) {
            std::vector<uint8_t> seen(slots_.size(), 0);
            size_t n = 0;
            w.each<>(ecs::Cascade<ModelChildOf>{}, [&](ecs::Entity e) {
                ++n;
                if (e.index >= seen.size() || seen[e.index]) {
                    fail("Cascade visited an entity twice or one the model does not know");
                    return;
                }
                seen[e.index] = 1;
                // The target comes first, unless the chain above ends in a cycle (cut somewhere).
                const ecs::Entity parent = w.target<ModelChildOf>(e);
                if (parent == ecs::INVALID_ENTITY || seen[parent.index]) return;
                if (!visible(slots_[parent.index])) return; // a disabled target is never visited
                ecs::Entity p = parent;
                for (size_t steps = 0; steps <= live_.size() && p != ecs::INVALID_ENTITY; ++steps) p = w.target<ModelChildOf>(p);
                if (p == ecs::INVALID_ENTITY) fail("Cascade visited " + describe(e) + " before its target");
            });
            if (n != visible_count) fail("Cascade visited " + std::to_string(n) + " entities, model " + std::to_string(visible_count));
        }
    }

    /// Both directions of every relationship against the model (after every step).
    void check_relations() {
        ecs::World& w = *world_;
        for (int rk = 0; rk < R_COUNT && error_.empty(); ++rk) {
            std::map<uint32_t, std::vector<ecs::Entity>> model_sources; // by target slot
            for (uint32_t idx : live_)
                for (const ecs::Entity t : slots_[idx].rel[static_cast<size_t>(rk)]) model_sources[t.index].push_back(slots_[idx].handle);
            with_relation(rk, [&](auto* tag) {
                using R = std::remove_pointer_t<decltype(tag)>;
                std::vector<ecs::Entity> got;
                for (uint32_t idx : live_) {
                    const Slot& s = slots_[idx];
                    const std::vector<ecs::Entity>& want = s.rel[static_cast<size_t>(rk)];
                    got.clear();
                    w.each_target<R>(s.handle, [&](ecs::Entity t) { got.push_back(t); });
                    if (got != want || w.target_count<R>(s.handle) != want.size()) {
                        fail(std::string(relation_names[rk]) + " targets of " + describe(s.handle) + " differ from the model");
                        return;
                    }
                    if (w.has<ecs::detail::HasRelation<R>>(s.handle) != !want.empty()) {
                        fail(std::string(relation_names[rk]) + " tag of " + describe(s.handle) + " differs from the model");
                        return;
                    }
                    got.clear();
                    w.each_source<R>(s.handle, [&](ecs::Entity x) { got.push_back(x); });
                    std::vector<ecs::Entity> sources = model_sources[s.handle.index];
                    std::sort(got.begin(), got.end());
                    std::sort(sources.begin(), sources.end());
                    if (got != sources) {
                        fail(std::string(relation_names[rk]) + " sources of " + describe(s.handle) + " differ from the model");
                        return;
                    }
                }
                const ecs::Entity dead = pick();
                if (!model_alive(dead) && (w.target_count<R>(dead) != 0 || w.target<R>(dead) != ecs::INVALID_ENTITY))
                    fail(std::string("dead handle ") + describe(dead) + " still has " + relation_names[rk] + " targets");
            });
        }
    }

    // -- checks -------------------------------------------------------------------------------------

    long expected_tracked() const {
        long n = 0;
        for (uint32_t idx : live_) n += slots_[idx].content.tracked_objects();
        for (const Cmd& c : deferred_pending_) n += c.tracked_objects();
        for (const Cmd& c : buffer_pending_) n += c.tracked_objects();
        for (const ModelPrefab& m : prefabs_) n += m.content.tracked_objects();
        if (res_aligned_ >= 0) ++n;
        return n + replica_tracked_;
    }
    long expected_empty_counted() const {
        long n = 0;
        for (uint32_t idx : live_) n += slots_[idx].content.has(K_EC) ? 1 : 0;
        for (const Cmd& c : deferred_pending_) n += c.empty_objects();
        for (const Cmd& c : buffer_pending_) n += c.empty_objects();
        for (const ModelPrefab& m : prefabs_) n += m.content.has(K_EC) ? 1 : 0;
        return n + replica_empty_;
    }

    /// Every live entity of `w` against the model: kinds, values, enable bits, the runtime
    /// component, Parent and Children (the world, or a replica kept by change streams).
    void check_entities(ecs::World& w) {
        if (w.count() != live_.size())
            fail("count() " + std::to_string(w.count()) + " but the model has " + std::to_string(live_.size()));
        for (uint32_t idx : live_) {
            const Slot& s = slots_[idx];
            const ecs::Entity e = s.handle;
            if (!w.alive(e)) {
                fail("live entity " + describe(e) + describe(s.content) + " is not alive");
                return;
            }
            for_each_kind([&](auto* tag) {
                using T = std::remove_pointer_t<decltype(tag)>;
                constexpr int k = Traits<T>::kind;
                const bool has = s.content.has(k);
                const T* p = std::as_const(w).try_get<T>(e); // const: a check is not a change
                if (w.has<T>(e) != has || (p != nullptr) != has) {
                    fail(std::string("has/try_get<") + kind_names[k] + "> wrong on " + describe(e) + ", model " +
                         describe(s.content));
                    return;
                }
                if (has && (&std::as_const(w).get<T>(e) != p || !Traits<T>::matches(*p, s.content.get(k))))
                    fail(std::string("get<") + kind_names[k] + "> on " + describe(e) + " holds " +
                         std::to_string(Traits<T>::value(*p)) + ", model " + describe(s.content));
                if (w.enabled<T>(e) != (((s.seen() >> k) & 1u) != 0))
                    fail(std::string("enabled<") + kind_names[k] + "> wrong on " + describe(e));
            });
            if (w.enabled(e) != !s.entity_off) fail("enabled(" + describe(e) + ") differs from the model");
            const auto* runtime = static_cast<const ModelRuntimeValue*>(std::as_const(w).get_raw(e, model_runtime_id()));
            if (w.has_raw(e, model_runtime_id()) != (s.runtime >= 0) || (runtime != nullptr) != (s.runtime >= 0) ||
                (runtime != nullptr && (runtime->v != s.runtime || runtime->check != RUNTIME_CHECK)))
                fail("the runtime component of " + describe(e) + " differs from the model");
            const ecs::Parent* parent = w.try_get<ecs::Parent>(e);
            if ((parent != nullptr) != s.has_parent || (parent && parent->entity != s.parent))
                fail("Parent of " + describe(e) + " differs from the model");
            const ecs::Children* children = w.try_get<ecs::Children>(e);
            if ((children != nullptr) != s.has_children || (children && children->entities != s.children))
                fail("Children of " + describe(e) + " differ from the model");
            if (!error_.empty()) return;
        }
    }

    /// Everything observable against the model, after every step.
    void check_state() {
        ecs::World& w = *world_;
        check_entities(w);
        if (!error_.empty()) return;
        // Some handles that are not alive (stale, invalid, forged).
        for (int i = 0; i < 6; ++i) {
            const ecs::Entity e = pick();
            if (model_alive(e)) continue;
            if (w.alive(e) || w.has<ModelPod>(e) || std::as_const(w).try_get<std::string>(e) != nullptr ||
                std::as_const(w).try_get<ModelTag>(e) != nullptr)
                fail("dead handle " + describe(e) + " still answers");
        }
        if (w.alive(ecs::INVALID_ENTITY)) fail("INVALID_ENTITY is alive");
        for (ecs::Entity e : reserved_)
            if (w.alive(e) || w.has<ModelPod>(e)) fail("reserved handle " + describe(e) + " is alive before the flush");
        if (calls_run_ != calls_expected_)
            fail("call(fn) ran " + std::to_string(calls_run_) + " times, model expects " + std::to_string(calls_expected_));
        if (!w.check_invariants()) fail("check_invariants() is false");
        check_change_counts();
        check_relations();
        if (w.deferred_count() != deferred_pending_.size()) fail("deferred queue size differs from the model");
        for (int k = 0; k < K_COUNT; ++k) {
            if (actual_add_[static_cast<size_t>(k)] != expected_add_[static_cast<size_t>(k)])
                fail(std::string("on_add<") + kind_names[k] + "> fired " + std::to_string(actual_add_[static_cast<size_t>(k)]) +
                     " times, model expects " + std::to_string(expected_add_[static_cast<size_t>(k)]));
            if (actual_remove_[static_cast<size_t>(k)] != expected_remove_[static_cast<size_t>(k)])
                fail(std::string("on_remove<") + kind_names[k] + "> fired " + std::to_string(actual_remove_[static_cast<size_t>(k)]) +
                     " times, model expects " + std::to_string(expected_remove_[static_cast<size_t>(k)]));
        }
        const ModelLife& l = model_life();
        if (l.bad != 0) fail("a tracked object was destroyed twice or constructed over a live one");
        const long tracked = static_cast<long>(l.live.size()) - life_base_;
        if (tracked != expected_tracked())
            fail("live tracked objects " + std::to_string(tracked) + ", model expects " + std::to_string(expected_tracked()));
        const long empties = (l.empty_constructed - l.empty_destroyed) - empty_base_;
        if (empties != expected_empty_counted())
            fail("live EmptyCounted objects " + std::to_string(empties) + ", model expects " +
                 std::to_string(expected_empty_counted()));
        check_resources();
    }

    /// Flushes what is pending, then destroys the world and the buffer: every object must be gone.
    void finish() {
        last_op_ = "final flush and teardown";
        std::vector<Cmd> cmds = std::move(deferred_pending_);
        deferred_pending_.clear();
        world_->flush_deferred();
        model_apply(cmds);
        check_reserved_created();
        check_state();
        if (!error_.empty()) return;
        // Unflushed commands are dropped by the buffer's destructor; the world destroys the rest.
        buffer_ = ecs::CommandBuffer{};
        buffer_pending_.clear();
        prefabs_.clear();
        world_.reset();
        replica_.reset();
        const ModelLife& l = model_life();
        if (static_cast<long>(l.live.size()) != life_base_ || l.bad != 0)
            fail("after teardown " + std::to_string(static_cast<long>(l.live.size()) - life_base_) +
                 " tracked objects are alive (bad destructions: " + std::to_string(l.bad) + ")");
        if (l.empty_constructed - l.empty_destroyed != empty_base_) fail("EmptyCounted constructions != destructions");
    }

    uint64_t seed_;
    long steps_;
    long step_ = 0;
    uint64_t rng_state_;
    const uint8_t* bytes_ = nullptr;
    size_t bytes_size_ = 0;
    size_t bytes_pos_ = 0;
    bool exhausted_ = false;
    bool verbose_ = std::getenv("ECS_MODEL_VERBOSE") != nullptr;
    std::string error_;
    const char* last_op_ = "none";
    ModelStats stats_;

    std::unique_ptr<ecs::World> world_;
    std::unique_ptr<ecs::World> replica_; ///< kept equal to world_ by change streams (op_replica)
    uint32_t replica_since_ = 0;
    long replica_tracked_ = 0; ///< tracked objects the replica holds (its content at the last sync)
    long replica_empty_ = 0;   ///< EmptyCounted objects the replica holds
    ecs::CommandBuffer buffer_;
    std::vector<Cmd> deferred_pending_;
    std::vector<Cmd> buffer_pending_;

    std::vector<Slot> slots_;
    std::vector<uint32_t> live_;
    std::vector<ecs::Entity> issued_;

    long hooks_at_ = 0;
    bool hooks_registered_ = false;
    bool structural_hooks_ = true;
    bool structural_now_ = false;
    bool hook_check_model_ = false;
    std::array<long, K_COUNT> expected_add_{};
    std::array<long, K_COUNT> expected_remove_{};
    std::array<long, K_COUNT> actual_add_{};
    std::array<long, K_COUNT> actual_remove_{};
    std::vector<HookEvent> hook_log_;
    std::vector<ecs::Entity> spawned_;
    std::vector<ecs::Entity> busy_;
    std::vector<ecs::Entity> recursive_subtree_; ///< during destroy_recursive: the subtree
    bool recursive_strict_ = true;               ///< destroy_recursive's leaves-first order is checked
    uint32_t spawn_counter_ = 0;

    // [change] change detection: the model clock, what is tracked, the handles and their progress
    uint32_t epoch_ = 1;
    std::array<bool, CHANGE_KINDS> tracking_{};
    std::array<long, CHANGE_KINDS> track_at_{};
    bool handles_made_ = false;
    std::array<ecs::Query<const ModelPod>, 2> pod_changed_{};
    ecs::Query<ModelPod, const std::string> pod_added_;
    ecs::Query<std::string> str_changed_;
    std::array<uint32_t, HANDLES> handle_last_{};

    int res_aligned_ = -1;
    int res_string_ = -1;
    std::vector<ModelPrefab> prefabs_;

    std::vector<ecs::Entity> reserved_; ///< handles returned by deferred create/instantiate, not flushed yet
    long calls_run_ = 0;                ///< call(fn) commands that ran
    long calls_expected_ = 0;

    long life_base_ = static_cast<long>(model_life().live.size());
    long empty_base_ = model_life().empty_constructed - model_life().empty_destroyed;
};

#ifndef ECS_MODEL_NO_TESTS

const char* const model_test_name = "model: random operations match the reference model";
const char* const model_slow_test_name = "model: millions of random operations";

long env_long(const char* name, long fallback) {
    const char* s = std::getenv(name);
    if (s == nullptr || *s == '\0') return fallback;
    return std::strtol(s, nullptr, 10);
}

/// Runs one seed and reports a failure with everything needed to replay it (the main test case runs
/// exactly the seed given in ECS_MODEL_SEED).
void run_model(uint64_t seed, long steps, long* total_steps) {
    ModelRunner runner(seed, steps);
    const std::string error = runner.run();
    if (total_steps) *total_steps += runner.stats().steps;
    for (const auto& op : runner.stats().ops) std::printf("  %-45s %ld\n", op.first.c_str(), op.second);
    if (!error.empty()) {
        std::ostringstream replay;
        replay << "seed " << seed << ", failed at step " << runner.failed_step() << " (op: " << runner.last_op()
               << ")\nreplay: ECS_MODEL_SEED=" << seed << " ECS_MODEL_STEPS=" << runner.failed_step() + 1
               << " ./ecs_tests \"" << model_test_name << "\"";
        INFO(replay.str());
        INFO(error);
        REQUIRE(error.empty());
    }
}

#endif // ECS_MODEL_NO_TESTS

} // namespace

#ifndef ECS_MODEL_NO_TESTS

TEST_CASE(model_test_name, "[model]") {
    const long seed_env = env_long("ECS_MODEL_SEED", -1);
    const long steps = env_long("ECS_MODEL_STEPS", 4000);
    long total = 0;
    if (seed_env >= 0) {
        run_model(static_cast<uint64_t>(seed_env), steps, &total);
    } else {
        // Four seeds: seed % 4 picks the hook set-up (3: never registered, 2: counting only). Two
        // sections, so that ctest runs the halves side by side (tests/CMakeLists.txt).
        SECTION("seeds 1 and 2") {
            for (uint64_t seed = 1; seed <= 2; ++seed) run_model(seed, steps, &total);
        }
        SECTION("seeds 3 and 4") {
            for (uint64_t seed = 3; seed <= 4; ++seed) run_model(seed, steps, &total);
        }
    }
    CHECK(total > 0);
}

// BUG (reported): an RVALUE argument that refers into the world's own storage is moved from after
// the call has already reallocated or destroyed that storage. add(e, std::move(w.get<T>(other)))
// and create_with / instantiate likewise read freed memory when the target archetype's block grows
// (ASan: heap-use-after-free), and add(e, std::move(w.get<T>(e))) destroys the value before moving
// from it. Lvalues are copied first and are fine. Hidden until fixed (it aborts an ASan binary).
TEST_CASE("model: rvalue arguments aliasing the world's storage", "[model]") {
    const size_t live_before = model_life().live.size();
    {
        ecs::World w;
        std::vector<ecs::Entity> es;
        // {Pod, Big} starts at 16 rows: the 17th row reallocates the block.
        for (int i = 0; i < 16; ++i) es.push_back(w.create_with(Traits<ModelPod>::make(i), Traits<ModelBig>::make(i)));
        const ecs::Entity e = w.create_with(Traits<ModelPod>::make(99));
        w.add(e, std::move(w.get<ModelBig>(es[3]))); // e migrates into {Pod, Big}: the block grows
        CHECK(w.get<ModelBig>(e).v == 3);
        CHECK(Traits<ModelBig>::valid(w.get<ModelBig>(e)));

        for (int i = 17; i < 32; ++i) (void)w.create_with(Traits<ModelPod>::make(i), Traits<ModelBig>::make(i));
        const ecs::Entity f = w.create_with(Traits<ModelPod>::make(5), std::move(w.get<ModelBig>(es[4])));
        CHECK(w.get<ModelBig>(f).v == 4);

        const ecs::Entity g = w.create_with(Traits<std::string>::make(300)); // a long string
        w.add(g, std::move(w.get<std::string>(g)));                          // overwrite with itself
        CHECK(w.get<std::string>(g) == Traits<std::string>::make(300));

        const ecs::Prefab prefab = ecs::Prefab::create(Traits<ModelPod>::make(1), Traits<ModelBig>::make(1));
        while (w.count<ModelPod, ModelBig>() % 64 != 0) (void)ecs::instantiate(w, prefab);
        const ecs::Entity h = ecs::instantiate(w, prefab, std::move(w.get<ModelBig>(es[5])));
        CHECK(w.get<ModelBig>(h).v == 5);
        CHECK(w.check_invariants());
    }
    CHECK(model_life().live.size() == live_before);
}

TEST_CASE(model_slow_test_name, "[model][.slow]") {
    const long seed_env = env_long("ECS_MODEL_SEED", -1);
    const long steps = env_long("ECS_MODEL_STEPS", 100000);
    const uint64_t first = seed_env >= 0 ? static_cast<uint64_t>(seed_env) : 1000;
    long total = 0;
    for (uint64_t seed = first; seed < first + 20; ++seed) run_model(seed, steps, &total);
    std::printf("model [.slow]: %ld steps clean\n", total);
    CHECK(total > 0);
}

#endif // ECS_MODEL_NO_TESTS
