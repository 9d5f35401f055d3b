/**
 * @file ecs/detail/remote_router.hpp
 * @brief The remote inspector's HTTP-independent part: RemoteOptions, and RemoteRouter, which turns
 *        one request (method, path, query, headers, body) into one response against a World.
 *
 * No sockets here, so every route can be unit-tested and fuzzed directly. ecs/remote.hpp carries the
 * requests from cpp-httplib's threads to RemoteRouter::handle on the world's thread.
 *
 * Rules every route keeps:
 * - Nothing a client sends reaches an assertion of the library: names, entities, component ids,
 *   numbers and JSON are checked before any World call that would assert on them.
 * - Writes are all or nothing: the whole body is read into new values outside the world first; only
 *   when everything is valid are they handed to the World's public calls (add_raw, remove_raw,
 *   destroy, create, set_name, enable/disable), so hooks, observers and change detection see an
 *   ordinary write.
 * - Errors are `{"error":"what and where"}` with 400 (bad input; JSON errors give the byte offset),
 *   401, 403, 404, 405, 409 (a snapshot of unregistered components), 413.
 *
 * Thread-safety: `handle` touches the world and must run on the world's thread (one at a time);
 * `answer_early` reads only the options and may run on any thread.
 */
#pragma once

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <new>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../builtin/hierarchy.hpp"
#include "../ecs.hpp"
#include "../inspect.hpp"
#include "../json.hpp"
#include "../query_expr.hpp"
#include "../reflect.hpp"
#include "../runtime.hpp"
#include "../schedule.hpp"
#include "../serialization.hpp"
#include "remote_json.hpp"
#include "remote_page.hpp"


namespace ecs {

/// @brief How a RemoteServer listens and what it allows (see ecs/remote.hpp).
struct RemoteOptions {
    uint16_t port = 27750;          ///< 0 picks a free port (RemoteServer::port() tells which)
    std::string bind = "127.0.0.1"; ///< the address to listen on
    bool allow_writes = false;      ///< PUT / POST / DELETE are refused (403) unless true
    std::string token;              ///< non-empty: every request needs `Authorization: Bearer TOKEN`
    size_t max_body = size_t(1) << 20; ///< larger bodies are refused (413)
};

namespace detail {

/// One request, as the transport received it. `path` is not decoded yet; `query` is the text after '?'.
struct RemoteRequest {
    std::string method;
    std::string path;
    std::string query;
    std::string authorization; ///< the Authorization header, empty when absent
    std::string body;
};

/// One response.
struct RemoteResponse {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
    std::string watch_expr; ///< /api/watch accepted: the transport opens an event stream for it
};

/// Per-system timings shown under /api/systems.
struct RemoteSystemTiming {
    std::string name;
    uint64_t last_ns = 0;
    uint64_t total_ns = 0;
    uint64_t runs = 0;
};

/// Decodes %XX and (in queries) '+'; returns false on a malformed escape.
inline bool remote_url_decode(std::string_view in, std::string& out, bool plus_is_space) {
    out.clear();
    for (size_t i = 0; i < in.size(); ++i) {
        const char c = in[i];
        if (c == '%') {
            if (in.size() - i < 3) return false;
            int v = 0;
            for (size_t k = 1; k <= 2; ++k) {
                const char h = in[i + k];
                v <<= 4;
                if (h >= '0' && h <= '9') v |= h - '0';
                else if (h >= 'a' && h <= 'f') v |= h - 'a' + 10;
                else if (h >= 'A' && h <= 'F') v |= h - 'A' + 10;
                else return false;
            }
            out += static_cast<char>(v);
            i += 2;
        } else if (c == '+' && plus_is_space) {
            out += ' ';
        } else {
            out += c;
        }
    }
    return true;
}

/// The parameters of a query string, decoded; the first occurrence of a key wins.
class RemoteParams {
public:
    bool parse(std::string_view query) {
        while (!query.empty()) {
            const size_t amp = query.find('&');
            const std::string_view part = query.substr(0, amp);
            query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
            if (part.empty()) continue;
            const size_t eq = part.find('=');
            std::string key;
            std::string value;
            if (!remote_url_decode(part.substr(0, eq), key, true)) return false;
            if (eq != std::string_view::npos && !remote_url_decode(part.substr(eq + 1), value, true)) return false;
            if (find(key) == nullptr) params_.emplace_back(std::move(key), std::move(value));
        }
        return true;
    }
    [[nodiscard]] const std::string* find(std::string_view key) const noexcept {
        for (const auto& p : params_)
            if (p.first == key) return &p.second;
        return nullptr;
    }

private:
    std::vector<std::pair<std::string, std::string>> params_;
};

/// Storage for one component value made outside the world (aligned, destroyed exactly once).
class RemoteValue {
public:
    RemoteValue() = default;
    RemoteValue(const RemoteValue&) = delete;
    RemoteValue& operator=(const RemoteValue&) = delete;
    RemoteValue(RemoteValue&& o) noexcept : column_(o.column_), storage_(o.storage_), live_(o.live_) {
        o.storage_ = nullptr;
        o.live_ = false;
    }
    RemoteValue& operator=(RemoteValue&&) = delete;
    ~RemoteValue() { reset(); }

    /// Default-constructs (from == nullptr) or copy-constructs a value of `column`'s type.
    bool make(const ComponentColumn& column, DefaultConstructFunc make_default, const void* from) {
        reset();
        column_ = column;
        if (column.is_tag) return true;
        if (from != nullptr ? column.copy == nullptr : make_default == nullptr) return false;
        const size_t align = column.elem_align < alignof(std::max_align_t) ? alignof(std::max_align_t) : column.elem_align;
        storage_ = ::operator new(column.type_size == 0 ? 1 : column.type_size, std::align_val_t(align));
        if (from != nullptr) column.copy(storage_, from);
        else make_default(storage_);
        live_ = true;
        return true;
    }
    [[nodiscard]] void* get() const noexcept { return storage_; }

private:
    void reset() noexcept {
        if (storage_ == nullptr) return;
        if (live_) column_.destroy(storage_);
        const size_t align = column_.elem_align < alignof(std::max_align_t) ? alignof(std::max_align_t) : column_.elem_align;
        ::operator delete(storage_, std::align_val_t(align));
        storage_ = nullptr;
        live_ = false;
    }

    ComponentColumn column_{};
    void* storage_ = nullptr;
    bool live_ = false;
};

/// The state a /api/watch stream keeps between two events: each matching entity and a hash of
/// its values.
struct RemoteWatchState {
    std::string expr;
    std::vector<std::pair<Entity, uint64_t>> rows; ///< sorted by entity
    bool first = true;
};

/**
 * @brief Answers requests against one World (see the file comment).
 */
class RemoteRouter {
public:
    RemoteRouter(World& world, RemoteOptions options) : world_(&world), options_(std::move(options)) {}

    /// @brief Shows `schedule`'s plan under /api/systems (nullptr: none). It must outlive the router.
    void attach(Schedule* schedule) {
        schedule_ = schedule;
        systems_.clear();
        if (schedule != nullptr)
            for (size_t i = 0; i < schedule->size(); ++i) systems_.push_back({schedule->name(i), 0, 0, 0});
    }
    /// @brief Records one run of system `name` taking `ns` nanoseconds (shown under /api/systems).
    void record_system(std::string_view name, uint64_t ns) {
        for (RemoteSystemTiming& s : systems_)
            if (s.name == name) {
                s.last_ns = ns;
                s.total_ns += ns;
                ++s.runs;
                return;
            }
        systems_.push_back({std::string(name), ns, ns, 1});
    }
    /// @brief Counts one frame (RemoteServer::poll calls it once per call).
    void next_frame() noexcept { ++frame_; }
    [[nodiscard]] uint64_t frame() const noexcept { return frame_; }
    [[nodiscard]] const RemoteOptions& options() const noexcept { return options_; }
    /// How long a request may wait for the world's thread before it gets 503 (for the tests).
    std::chrono::milliseconds answer_timeout{5000};

    /**
     * @brief Answers what needs no world: authentication, body size, the page, unknown routes and
     *        methods, refused writes. @return true when `out` is the answer. Any thread.
     */
    bool answer_early(const RemoteRequest& req, RemoteResponse& out) const {
        if (!authorized(req)) return error(out, 401, "missing or wrong token (send Authorization: Bearer TOKEN)");
        if (req.body.size() > options_.max_body)
            return error(out, 413, "body of " + std::to_string(req.body.size()) + " bytes is over max_body (" +
                                       std::to_string(options_.max_body) + ")");
        const std::string_view path = strip_query(req.path);
        const Route route = classify(path);
        if (route == Route::unknown) return error(out, 404, "no route " + std::string(path));
        const bool get = req.method == "GET";
        bool allowed = false;
        switch (route) {
        case Route::page:
        case Route::world:
        case Route::components:
        case Route::archetypes:
        case Route::entities:
        case Route::query:
        case Route::systems:
        case Route::watch:
        case Route::snapshot: allowed = get; break;
        case Route::create: allowed = req.method == "POST"; break;
        case Route::entity: allowed = get || req.method == "DELETE"; break;
        case Route::enabled: allowed = get || req.method == "PUT"; break;
        case Route::component: allowed = get || req.method == "PUT" || req.method == "POST" || req.method == "DELETE"; break;
        case Route::unknown: break;
        }
        if (!allowed) return error(out, 405, "method " + req.method + " not allowed on " + std::string(path));
        if (!get && !options_.allow_writes) return error(out, 403, "writes are not allowed (RemoteOptions::allow_writes)");
        if (route == Route::page) {
            out.status = 200;
            out.content_type = "text/html; charset=utf-8";
            out.body = remote_page();
            return true;
        }
        return false;
    }

    /// @brief Answers `req` (the world's thread). Never asserts, whatever `req` holds.
    RemoteResponse handle(const RemoteRequest& req) {
        RemoteResponse out;
        if (answer_early(req, out)) return out;
        RemoteParams params;
        if (!params.parse(query_of(req))) {
            error(out, 400, "malformed query string");
            return out;
        }
        std::vector<std::string> seg;
        if (!split_path(strip_query(req.path), seg)) {
            error(out, 400, "malformed path");
            return out;
        }
        switch (classify(strip_query(req.path))) {
        case Route::world: get_world(out); break;
        case Route::components: get_components(out); break;
        case Route::archetypes: get_archetypes(out); break;
        case Route::entities: get_entities(params, out); break;
        case Route::query: get_query(params, out); break;
        case Route::systems: get_systems(out); break;
        case Route::watch: check_watch(params, out); break;
        case Route::snapshot: get_snapshot(out); break;
        case Route::create: create_entity(req.body, out); break;
        case Route::entity: entity_route(req.method, seg[2], out); break;
        case Route::enabled: enabled_route(req.method, seg[2], req.body, out); break;
        case Route::component: component_route(req.method, seg[2], seg[3], req.body, out); break;
        case Route::page:
        case Route::unknown: break; // answered early
        }
        return out;
    }

    /**
     * @brief The next /api/watch event for `state`: `{"frame","rows":[...],"left":[ids]}` with the
     *        rows that entered or whose values changed since the previous call (every row the first
     *        time), or an empty string when nothing did. The world's thread.
     */
    std::string watch_event(RemoteWatchState& state) {
        std::vector<std::pair<Entity, uint64_t>> now;
        std::vector<std::string> texts;
        std::string err;
        size_t err_at = 0;
        if (!run_query(state.expr, [&](Entity e, const auto& values) {
                texts.push_back(values());
                now.emplace_back(e, fnv1a(texts.back()));
            }, err, err_at))
            return std::string();
        std::vector<size_t> order(now.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return now[a].first < now[b].first; });
        std::string rows;
        std::string left;
        std::vector<std::pair<Entity, uint64_t>> sorted;
        sorted.reserve(now.size());
        size_t p = 0;
        for (const size_t i : order) {
            const Entity e = now[i].first;
            while (p < state.rows.size() && state.rows[p].first < e) append_left(left, state.rows[p++].first);
            const bool same = p < state.rows.size() && state.rows[p].first == e && state.rows[p].second == now[i].second;
            if (p < state.rows.size() && state.rows[p].first == e) ++p;
            if (!same || state.first) {
                rows += rows.empty() ? "" : ",";
                rows += "{\"id\":";
                write_id(rows, e);
                rows += ",\"values\":";
                rows += texts[i];
                rows += '}';
            }
            sorted.push_back(now[i]);
        }
        while (p < state.rows.size()) append_left(left, state.rows[p++].first);
        const bool first = state.first;
        state.first = false;
        state.rows = std::move(sorted);
        if (!first && rows.empty() && left.empty()) return std::string();
        return "{\"frame\":" + std::to_string(frame_) + ",\"rows\":[" + rows + "],\"left\":[" + left + "]}";
    }

private:
    enum class Route { unknown, page, world, components, archetypes, entities, query, systems, watch, snapshot, create, entity, enabled, component };

    static std::string_view strip_query(std::string_view path) noexcept { return path.substr(0, path.find('?')); }
    static std::string_view query_of(const RemoteRequest& req) noexcept {
        if (!req.query.empty()) return req.query;
        const size_t q = req.path.find('?');
        return q == std::string::npos ? std::string_view{} : std::string_view(req.path).substr(q + 1);
    }

    static bool split_path(std::string_view path, std::vector<std::string>& seg) {
        seg.clear();
        size_t i = 0;
        while (i < path.size()) {
            if (path[i] == '/') {
                ++i;
                continue;
            }
            const size_t end = std::min(path.find('/', i), path.size());
            std::string s;
            if (!remote_url_decode(path.substr(i, end - i), s, false)) return false;
            seg.push_back(std::move(s));
            i = end;
        }
        return true;
    }

    static Route classify(std::string_view path) {
        if (path == "/" || path.empty()) return Route::page;
        if (path == "/index.html") return Route::page;
        if (path.substr(0, 5) != "/api/") return Route::unknown;
        // Count the segments without decoding (an escaped '/' stays inside its segment).
        std::vector<std::string_view> seg;
        size_t i = 1;
        while (i <= path.size()) {
            const size_t end = std::min(path.find('/', i), path.size());
            if (end > i) seg.push_back(path.substr(i, end - i));
            else if (end < path.size()) return Route::unknown; // "//": an empty segment
            i = end + 1;
        }
        if (seg.size() < 2) return Route::unknown; // "/api/" alone
        if (seg.size() == 2) {
            const std::string_view s = seg[1];
            if (s == "world") return Route::world;
            if (s == "components") return Route::components;
            if (s == "archetypes") return Route::archetypes;
            if (s == "entities") return Route::entities;
            if (s == "query") return Route::query;
            if (s == "systems") return Route::systems;
            if (s == "watch") return Route::watch;
            if (s == "snapshot") return Route::snapshot;
            if (s == "entity") return Route::create;
            return Route::unknown;
        }
        if (seg[1] != "entity") return Route::unknown;
        if (seg.size() == 3) return Route::entity;
        if (seg.size() == 4) return seg[3] == "enabled" ? Route::enabled : Route::component;
        return Route::unknown;
    }

    bool authorized(const RemoteRequest& req) const {
        if (options_.token.empty()) return true;
        const std::string expected = "Bearer " + options_.token;
        if (req.authorization == expected) return true;
        // Browsers cannot put a header on a page load or an EventSource: `?token=` works too.
        RemoteParams params;
        if (!params.parse(query_of(req))) return false;
        const std::string* t = params.find("token");
        return t != nullptr && *t == options_.token;
    }

    static bool error(RemoteResponse& out, int status, std::string_view message) {
        out.status = status;
        out.content_type = "application/json";
        out.body = "{\"error\":";
        json_write_string(out.body, message);
        out.body += '}';
        return true;
    }

    static void write_id(std::string& out, Entity e) {
        out += '"';
        out += std::to_string(e.index);
        out += '.';
        out += std::to_string(e.generation);
        out += '"';
    }
    static void append_left(std::string& out, Entity e) {
        if (!out.empty()) out += ',';
        write_id(out, e);
    }
    static uint64_t fnv1a(std::string_view s) noexcept {
        uint64_t h = 1469598103934665603ull;
        for (const char c : s) {
            h ^= static_cast<unsigned char>(c);
            h *= 1099511628211ull;
        }
        return h;
    }

    static bool parse_u32(std::string_view s, uint32_t& v) {
        if (s.empty() || s.size() > 10) return false;
        for (const char c : s)
            if (c < '0' || c > '9') return false;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
        return r.ec == std::errc() && r.ptr == s.data() + s.size();
    }
    static bool parse_size(const RemoteParams& params, std::string_view key, size_t fallback, size_t& out, RemoteResponse& res) {
        const std::string* s = params.find(key);
        if (s == nullptr || s->empty()) {
            out = fallback;
            return true;
        }
        uint32_t v = 0;
        if (!parse_u32(*s, v)) {
            error(res, 400, "parameter '" + std::string(key) + "' is not a number: " + *s);
            return false;
        }
        out = v;
        return true;
    }

    /// An entity named by `ref`: `index.generation` or a name. INVALID_ENTITY when not alive.
    Entity resolve(std::string_view ref) const {
        const size_t dot = ref.find('.');
        uint32_t index = 0;
        uint32_t generation = 0;
        if (dot != std::string_view::npos && parse_u32(ref.substr(0, dot), index) && parse_u32(ref.substr(dot + 1), generation)) {
            const Entity e{index, generation};
            if (world_->alive(e)) return e;
        }
        if (ref.empty() || ref.size() > MAX_ENTITY_NAME_LENGTH) return INVALID_ENTITY;
        const Entity named = world_->lookup(ref);
        return world_->alive(named) ? named : INVALID_ENTITY;
    }

    /// A component type named `name` that can be stored (INVALID_COMPONENT_ID otherwise).
    static ComponentTypeID component_named(std::string_view name) {
        if (name.empty()) return INVALID_COMPONENT_ID;
        const ComponentTypeID id = find_component(name);
        if (id >= ECS_MAX_COMPONENTS || column_factory(id) == nullptr) return INVALID_COMPONENT_ID;
        return id;
    }

    /// Is component `id` stored on `e`? Covers table and sparse storage.
    bool has_component(Entity e, ComponentTypeID id) const {
        bool found = false;
        static_cast<const World&>(*world_).each_component(e, [&](ComponentTypeID c, const void*) { found = found || c == id; });
        return found;
    }

    /// The parent shown in trees: the Parent component's entity, else the target of the first
    /// exclusive relationship of `e`; INVALID_ENTITY when neither is alive.
    Entity parent_of(Entity e) const {
        const World& w = *world_;
        if (has_component(e, component_id<Parent>())) {
            const auto* parent = static_cast<const Parent*>(w.get_raw(e, component_id<Parent>()));
            if (parent != nullptr && w.alive(parent->entity)) return parent->entity;
        }
        Entity found = INVALID_ENTITY;
        WorldAccess::relations(*world_).each_index([&](const RelationIndex& index) {
            if (found != INVALID_ENTITY || !index.info().exclusive) return;
            const LinkList* targets = index.targets_of(e.index);
            if (targets != nullptr && !targets->empty() && w.alive((*targets)[0].other)) found = (*targets)[0].other;
        });
        return found;
    }

    static void write_name(std::string& out, ComponentTypeID id) { json_write_string(out, component_info(id).name); }

    // ---- GET routes --------------------------------------------------------------------------

    void get_world(RemoteResponse& out) const {
        const ArchetypeGraph& graph = WorldAccess::graph(*world_);
        size_t tracked = 0;
        size_t components = 0;
        for (ComponentTypeID id = 0; id < ECS_MAX_COMPONENTS; ++id) {
            if (graph.tracks(id)) ++tracked;
            if (column_factory(id) != nullptr) ++components;
        }
        std::string& b = out.body;
        b = "{\"entities\":" + std::to_string(world_->count());
        b += ",\"archetypes\":" + std::to_string(world_->archetype_count());
        b += ",\"components\":" + std::to_string(components);
        b += ",\"tracked\":" + std::to_string(tracked);
        b += ",\"memory_bytes\":" + std::to_string(world_->memory_bytes());
        b += ",\"frame\":" + std::to_string(frame_);
        b += ",\"writes\":";
        b += options_.allow_writes ? "true" : "false";
        b += '}';
    }

    static void write_fields(std::string& b, FieldView fv) {
        b += '[';
        bool first = true;
        for (const FieldInfo& f : fv) {
            if (!first) b += ',';
            first = false;
            b += "{\"name\":";
            json_write_string(b, f.name);
            b += ",\"type\":";
            std::string type(field_kind_name(f.kind));
            if (f.kind == FieldKind::array)
                type = std::string(field_kind_name(f.element_kind)) + "[" + std::to_string(f.element_count) + "]";
            json_write_string(b, type);
            if (f.kind == FieldKind::nested) {
                b += ",\"fields\":";
                write_fields(b, f.nested());
            }
            b += '}';
        }
        b += ']';
    }

    void get_components(RemoteResponse& out) const {
        const ArchetypeGraph& graph = WorldAccess::graph(*world_);
        const auto& archetypes = WorldAccess::archetypes(*world_);
        const SparseRoom* room = WorldAccess::sparse(*world_);
        std::string& b = out.body;
        b = "[";
        bool first = true;
        for (ComponentTypeID id = 0; id < ECS_MAX_COMPONENTS; ++id) {
            if (column_factory(id) == nullptr) continue;
            const ComponentInfo& info = component_info(id);
            size_t count = 0;
            if (info.sparse) {
                if (room != nullptr && room->set(id) != nullptr) count = room->set(id)->size();
            } else {
                for (const Archetype* a : archetypes)
                    if (a->has(id)) count += a->size();
            }
            if (!first) b += ',';
            first = false;
            b += "{\"id\":" + std::to_string(id) + ",\"name\":";
            json_write_string(b, info.name);
            b += ",\"size\":" + std::to_string(info.size) + ",\"align\":" + std::to_string(info.align);
            b += ",\"storage\":";
            b += info.sparse ? "\"sparse\"" : "\"table\"";
            b += ",\"tracked\":";
            b += graph.tracks(id) ? "true" : "false";
            b += ",\"reflected\":";
            b += reflected(id) ? "true" : "false";
            b += ",\"count\":" + std::to_string(count) + ",\"fields\":";
            write_fields(b, fields(id));
            b += '}';
        }
        b += ']';
    }

    void get_archetypes(RemoteResponse& out) const {
        std::string& b = out.body;
        b = "[";
        bool first = true;
        for (const Archetype* a : WorldAccess::archetypes(*world_)) {
            if (!first) b += ',';
            first = false;
            b += "{\"id\":" + std::to_string(a->id) + ",\"components\":[";
            for (size_t c = 0; c < a->types.size(); ++c) {
                if (c != 0) b += ',';
                write_name(b, a->types[c]);
            }
            const size_t capacity = a->row_size != 0 ? a->capacity() : a->entities.capacity();
            b += "],\"count\":" + std::to_string(a->size()) + ",\"capacity\":" + std::to_string(capacity);
            b += ",\"bytes\":" + std::to_string(a->block_bytes() + a->entities.capacity() * sizeof(Entity)) + '}';
        }
        b += ']';
    }

    /// Parses a comma-separated list of component names; false (and a 404) for an unknown one.
    static bool component_list(const RemoteParams& params, std::string_view key, std::vector<ComponentTypeID>& ids, RemoteResponse& out) {
        const std::string* s = params.find(key);
        if (s == nullptr) return true;
        std::string_view rest = *s;
        while (!rest.empty()) {
            const size_t comma = rest.find(',');
            const std::string_view name = rest.substr(0, comma);
            rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
            if (name.empty()) continue;
            const ComponentTypeID id = component_named(name);
            if (id == INVALID_COMPONENT_ID) {
                error(out, 404, "unknown component '" + std::string(name) + "' in '" + std::string(key) + "'");
                return false;
            }
            ids.push_back(id);
        }
        return true;
    }

    void get_entities(const RemoteParams& params, RemoteResponse& out) const {
        std::vector<ComponentTypeID> with;
        std::vector<ComponentTypeID> without;
        size_t offset = 0;
        size_t limit = 0;
        if (!component_list(params, "with", with, out) || !component_list(params, "without", without, out)) return;
        if (!parse_size(params, "offset", 0, offset, out) || !parse_size(params, "limit", 100, limit, out)) return;
        const std::string* prefix = params.find("name");
        if (prefix != nullptr && prefix->empty()) prefix = nullptr;
        // Archetype order, then row order (the order queries visit). Table components are decided
        // once per archetype; only sparse ones and the name are looked at per entity, and only the
        // page's entities are written: O(archetypes + rows matched), no sort, no per-row allocation.
        const World& w = *world_;
        const SparseRoom* room = WorldAccess::sparse(w);
        auto sparse_has = [&](ComponentTypeID id, Entity e) {
            const SparseSet* set = room != nullptr ? room->set(id) : nullptr;
            return set != nullptr && set->contains(e.index);
        };
        bool per_row = prefix != nullptr;
        for (const ComponentTypeID id : with) per_row = per_row || component_info(id).sparse;
        for (const ComponentTypeID id : without) per_row = per_row || component_info(id).sparse;
        std::vector<Entity> match;
        size_t total = 0;
        for (const Archetype* a : WorldAccess::archetypes(w)) {
            bool ok = a->size() != 0;
            for (const ComponentTypeID id : with) ok = ok && (component_info(id).sparse || a->has(id));
            for (const ComponentTypeID id : without) ok = ok && (component_info(id).sparse || !a->has(id));
            if (!ok) continue;
            if (!per_row) { // every row matches: take the page's part of the archetype directly
                const size_t n = a->size();
                for (size_t row = offset > total ? offset - total : 0; row < n && total + row < offset + limit; ++row)
                    match.push_back(a->entities.data()[row]);
                total += n;
                continue;
            }
            for (size_t row = 0; row < a->size(); ++row) {
                const Entity e = a->entities.data()[row];
                if (prefix != nullptr && w.name(e).substr(0, prefix->size()) != *prefix) continue;
                bool pass = true;
                for (const ComponentTypeID id : with) pass = pass && (!component_info(id).sparse || sparse_has(id, e));
                for (const ComponentTypeID id : without) pass = pass && (!component_info(id).sparse || !sparse_has(id, e));
                if (!pass) continue;
                if (total >= offset && total - offset < limit) match.push_back(e);
                ++total;
            }
        }
        std::string& b = out.body;
        b = "{\"total\":" + std::to_string(total) + ",\"entities\":[";
        for (size_t i = 0; i < match.size(); ++i) {
            if (i != 0) b += ',';
            const Entity e = match[i];
            b += "{\"id\":";
            write_id(b, e);
            b += ",\"name\":";
            json_write_string(b, w.name(e));
            b += ",\"components\":[";
            bool first = true;
            w.each_component(e, [&](ComponentTypeID id, const void*) {
                if (!first) b += ',';
                first = false;
                write_name(b, id);
            });
            b += "],\"parent\":";
            const Entity parent = parent_of(e);
            if (parent != INVALID_ENTITY) write_id(b, parent);
            else b += "null";
            b += '}';
        }
        b += "]}";
    }

    void get_entity(Entity e, RemoteResponse& out) const {
        const World& w = *world_;
        std::string& b = out.body;
        b = "{\"id\":";
        write_id(b, e);
        b += ",\"name\":";
        json_write_string(b, w.name(e));
        b += ",\"enabled\":";
        b += w.enabled(e) ? "true" : "false";
        b += ",\"components\":{";
        std::string disabled;
        const EntityRecord& r = WorldAccess::records(w)[e.index];
        const SparseRoom* room = WorldAccess::sparse(w);
        bool first = true;
        w.each_component(e, [&](ComponentTypeID id, const void* data) {
            if (!first) b += ',';
            first = false;
            write_name(b, id);
            b += ':';
            if (reflected(id)) b += to_json(fields(id), data);
            else b += "null";
            bool off = false;
            if (r.archetype->has(id)) off = r.archetype->disabled(id, r.row);
            else if (room != nullptr && room->set(id) != nullptr) off = room->set(id)->disabled(e.index);
            if (off) {
                if (!disabled.empty()) disabled += ',';
                write_name(disabled, id);
            }
        });
        b += "},\"disabled\":[" + disabled + "],\"relations\":{";
        first = true;
        WorldAccess::relations(*world_).each_index([&](const RelationIndex& index) {
            const LinkList* targets = index.targets_of(e.index);
            if (targets == nullptr || targets->empty()) return;
            if (!first) b += ',';
            first = false;
            write_name(b, index.info().relation);
            b += ":[";
            for (uint32_t i = 0; i < targets->size(); ++i) {
                if (i != 0) b += ',';
                write_id(b, (*targets)[i].other);
            }
            b += ']';
        });
        b += "},\"parent\":";
        const Entity parent = parent_of(e);
        if (parent != INVALID_ENTITY) write_id(b, parent);
        else b += "null";
        b += ",\"children\":[";
        const Children* children = has_component(e, component_id<Children>()) ? static_cast<const Children*>(w.get_raw(e, component_id<Children>())) : nullptr;
        if (children != nullptr) {
            first = true;
            for (const Entity c : children->entities) {
                if (!first) b += ',';
                first = false;
                write_id(b, c);
            }
        }
        b += "]}";
    }

    void get_systems(RemoteResponse& out) {
        std::string& b = out.body;
        b = "{\"plan\":";
        json_write_string(b, schedule_ != nullptr ? schedule_->plan_string() : std::string());
        b += ",\"systems\":[";
        bool first = true;
        for (const RemoteSystemTiming& s : systems_) {
            if (!first) b += ',';
            first = false;
            b += "{\"name\":";
            json_write_string(b, s.name);
            b += ",\"last_ns\":" + std::to_string(s.last_ns) + ",\"avg_ns\":" + std::to_string(s.runs != 0 ? s.total_ns / s.runs : 0) +
                 ",\"runs\":" + std::to_string(s.runs) + '}';
        }
        b += "]}";
    }

    void get_snapshot(RemoteResponse& out) const {
        // serialize() asserts on a type without a registered name: check first.
        for (const Archetype* a : WorldAccess::archetypes(*world_)) {
            if (a->size() == 0) continue;
            for (const ComponentTypeID id : a->types)
                if (!component_registered(id)) {
                    error(out, 409, "snapshot: component '" + std::string(component_info(id).name) +
                                        "' is not registered (ecs::register_component)");
                    return;
                }
        }
        if (const SparseRoom* room = WorldAccess::sparse(*world_))
            for (const ComponentTypeID id : room->ids())
                if (room->set(id) != nullptr && room->set(id)->size() != 0 && !component_registered(id)) {
                    error(out, 409, "snapshot: component '" + std::string(component_info(id).name) + "' is not registered");
                    return;
                }
        std::ostringstream stream;
        serialize(*world_, stream);
        if (!stream) {
            error(out, 409, "snapshot: serialize failed");
            return;
        }
        out.content_type = "application/octet-stream";
        out.body = stream.str();
    }

    // ---- Query text ----------------------------------------------------------------------------

    /// Runs `expr` (query text, ecs/query_expr.hpp), calling `row(e, values)` for each match, where
    /// `values()` gives the JSON of the row's reflected values (written on demand).
    /// False with a message and byte offset when the expression is bad.
    template <typename Row>
    bool run_query(const std::string& expr, Row&& row, std::string& err, size_t& err_at) {
        DynamicQuery parsed = query_expr(*world_, expr);
        if (!parsed) {
            err = parsed.error();
            err_at = parsed.error_offset();
            return false;
        }
        // The inspector only looks: plain terms become `[in]` terms, so that a query or a watch
        // does not stamp tracked components changed (errors above still point into the user's text).
        std::string readonly;
        for (const QueryTerm& t : parsed.terms()) {
            if (!readonly.empty()) readonly += ", ";
            if (t.kind == TermKind::with || t.kind == TermKind::in) readonly += "[in] ";
            else if (t.kind == TermKind::without) readonly += '!';
            else if (t.kind == TermKind::optional) readonly += '?';
            readonly += t.name; // any-of, pair and up terms keep their written form in `name`
        }
        DynamicQuery q = query_expr(*world_, readonly);
        // The rewrite must give the same terms, plain ones read-only; otherwise run the text as written.
        bool same = static_cast<bool>(q) && q.terms().size() == parsed.terms().size();
        for (size_t i = 0; same && i < q.terms().size(); ++i) {
            const QueryTerm& a = parsed.terms()[i];
            const QueryTerm& b = q.terms()[i];
            same = a.id == b.id && (a.kind == b.kind || (a.kind == TermKind::with && b.kind == TermKind::in));
        }
        if (!same) q = std::move(parsed);
        std::vector<ComponentTypeID> ids; // one per value term, in the order of `values`
        for (const QueryTerm& t : q.terms())
            if (t.access != TermAccess::none) ids.push_back(t.id);
        std::string text;
        q.each([&](Entity e, void* const* values) {
            // The values' JSON is written only for the rows that ask for it (a page of a query).
            row(e, [&]() -> const std::string& {
            text = "{";
            bool first = true;
            for (size_t i = 0; i < ids.size(); ++i) {
                if (values == nullptr || values[i] == nullptr || ids[i] >= ECS_MAX_COMPONENTS || !reflected(ids[i])) continue;
                if (std::find(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(i), ids[i]) != ids.begin() + static_cast<std::ptrdiff_t>(i))
                    continue; // a component named twice is shown once
                if (!first) text += ',';
                first = false;
                write_name(text, ids[i]);
                text += ':';
                text += to_json(fields(ids[i]), values[i]);
            }
            text += '}';
            return text;
            });
        });
        return true;
    }


    void get_query(const RemoteParams& params, RemoteResponse& out) {
        const std::string* expr = params.find("expr");
        if (expr == nullptr || expr->empty()) {
            error(out, 400, "missing parameter 'expr'");
            return;
        }
        size_t offset = 0;
        size_t limit = 0;
        if (!parse_size(params, "offset", 0, offset, out) || !parse_size(params, "limit", 100, limit, out)) return;
        const std::string* v = params.find("values");
        const bool values = v == nullptr || (*v != "0" && *v != "false");
        std::string rows;
        size_t total = 0;
        std::string err;
        size_t err_at = 0;
        const bool ok = run_query(*expr, [&](Entity e, const auto& text) {
            if (total >= offset && total - offset < limit) {
                if (!rows.empty()) rows += ',';
                rows += "{\"id\":";
                write_id(rows, e);
                if (values) {
                    rows += ",\"values\":";
                    rows += text();
                }
                rows += '}';
            }
            ++total;
        }, err, err_at);
        if (!ok) {
            error(out, 400, "bad expression at byte " + std::to_string(err_at) + ": " + err);
            return;
        }
        out.body = "{\"total\":" + std::to_string(total) + ",\"rows\":[" + rows + "]}";
    }

    void check_watch(const RemoteParams& params, RemoteResponse& out) {
        const std::string* expr = params.find("expr");
        if (expr == nullptr || expr->empty()) {
            error(out, 400, "missing parameter 'expr'");
            return;
        }
        RemoteWatchState state;
        state.expr = *expr;
        std::string err;
        size_t err_at = 0;
        if (!run_query(*expr, [](Entity, const auto&) {}, err, err_at)) {
            error(out, 400, "bad expression at byte " + std::to_string(err_at) + ": " + err);
            return;
        }
        // Without a stream (the router alone) the answer is the first event.
        out.content_type = "application/json";
        out.body = watch_event(state);
        out.watch_expr = *expr;
    }

    // ---- Writes --------------------------------------------------------------------------------

    /// A new value of component `id` from `body` (defaults, then the body's fields). False with
    /// the error in `out`.
    bool make_value(ComponentTypeID id, std::string_view body, const void* from, RemoteValue& value, RemoteResponse& out,
                    std::string_view where) {
        const ComponentColumn column = column_factory(id)();
        const std::string_view name = component_info(id).name;
        if (!value.make(column, default_constructors[id].load(std::memory_order_acquire), from)) {
            error(out, 400, "component '" + std::string(name) + "' cannot be " + (from != nullptr ? "copied" : "default-constructed"));
            return false;
        }
        std::string_view text = body;
        while (!text.empty() && (text.front() == ' ' || text.front() == '\n' || text.front() == '\r' || text.front() == '\t'))
            text.remove_prefix(1);
        if (text.empty()) return true;
        if (column.is_tag || !reflected(id)) {
            RemoteJsonScanner scan(body);
            std::vector<RemoteJsonMember> members;
            if (!scan.object_members(members)) {
                error(out, 400, "bad JSON " + std::string(where) + " at byte " + std::to_string(scan.error_offset()) + ": " + scan.error());
                return false;
            }
            if (!members.empty()) {
                error(out, 400, "component '" + std::string(name) + "' has no reflected fields (ECS_REFLECT)");
                return false;
            }
            return true;
        }
        const JsonResult r = from_json(fields(id), value.get(), body);
        if (!r) {
            error(out, 400, "bad JSON " + std::string(where) + " for '" + std::string(name) + "' at byte " + std::to_string(r.offset) + ": " + r.error);
            return false;
        }
        return true;
    }

    void create_entity(const std::string& body, RemoteResponse& out) {
        std::string name;
        std::vector<std::pair<ComponentTypeID, RemoteValue>> values;
        std::string_view text = body;
        while (!text.empty() && (text.front() == ' ' || text.front() == '\n' || text.front() == '\r' || text.front() == '\t'))
            text.remove_prefix(1);
        if (!text.empty()) {
            RemoteJsonScanner scan(body);
            std::vector<RemoteJsonMember> members;
            if (!scan.object_members(members)) {
                error(out, 400, "bad JSON at byte " + std::to_string(scan.error_offset()) + ": " + scan.error());
                return;
            }
            for (const RemoteJsonMember& m : members) {
                if (m.key == "name") {
                    RemoteJsonScanner s(m.value);
                    if (!s.string(name)) {
                        error(out, 400, "'name' must be a string");
                        return;
                    }
                    if (name.size() > MAX_ENTITY_NAME_LENGTH) {
                        error(out, 400, "'name' is longer than MAX_ENTITY_NAME_LENGTH");
                        return;
                    }
                    if (!name.empty() && world_->lookup(name) != INVALID_ENTITY) {
                        error(out, 400, "the name '" + name + "' is taken");
                        return;
                    }
                } else if (m.key == "components") {
                    RemoteJsonScanner s(m.value);
                    std::vector<RemoteJsonMember> comps;
                    if (!s.object_members(comps)) {
                        error(out, 400, "'components' must be an object: " + s.error());
                        return;
                    }
                    for (const RemoteJsonMember& c : comps) {
                        const ComponentTypeID id = component_named(c.key);
                        if (id == INVALID_COMPONENT_ID) {
                            error(out, 404, "unknown component '" + c.key + "'");
                            return;
                        }
                        values.emplace_back(id, RemoteValue());
                        if (!make_value(id, c.value, nullptr, values.back().second, out, "in 'components." + c.key + "'")) return;
                    }
                } else {
                    error(out, 400, "unknown key '" + m.key + "' (expected name, components)");
                    return;
                }
            }
        }
        const Entity e = world_->create();
        if (!name.empty()) world_->set_name(e, name);
        for (auto& v : values)
            if (world_->alive(e)) (void)world_->add_raw(e, v.first, v.second.get());
        out.status = 201;
        out.body = "{\"id\":";
        write_id(out.body, e);
        out.body += '}';
    }

    void entity_route(const std::string& method, const std::string& ref, RemoteResponse& out) {
        const Entity e = resolve(ref);
        if (e == INVALID_ENTITY) {
            error(out, 404, "no entity '" + ref + "'");
            return;
        }
        if (method == "GET") return get_entity(e, out);
        world_->destroy(e);
        out.body = "{\"destroyed\":";
        write_id(out.body, e);
        out.body += '}';
    }

    void enabled_route(const std::string& method, const std::string& ref, const std::string& body, RemoteResponse& out) {
        const Entity e = resolve(ref);
        if (e == INVALID_ENTITY) {
            error(out, 404, "no entity '" + ref + "'");
            return;
        }
        if (method == "PUT") {
            bool on = false;
            RemoteJsonScanner scan(body);
            if (!scan.boolean(on)) {
                error(out, 400, "body must be true or false (byte " + std::to_string(scan.error_offset()) + ": " + scan.error() + ")");
                return;
            }
            if (on) world_->enable(e);
            else world_->disable(e);
        }
        out.body = "{\"id\":";
        write_id(out.body, e);
        out.body += ",\"enabled\":";
        out.body += world_->enabled(e) ? "true" : "false";
        out.body += '}';
    }

    void component_route(const std::string& method, const std::string& ref, const std::string& component, const std::string& body,
                         RemoteResponse& out) {
        const Entity e = resolve(ref);
        if (e == INVALID_ENTITY) {
            error(out, 404, "no entity '" + ref + "'");
            return;
        }
        const ComponentTypeID id = component_named(component);
        if (id == INVALID_COMPONENT_ID) {
            error(out, 404, "unknown component '" + component + "'");
            return;
        }
        const bool has = has_component(e, id);
        if (method == "POST") {
            if (has) {
                error(out, 400, "entity already has '" + component + "' (PUT sets its fields)");
                return;
            }
            RemoteValue value;
            if (!make_value(id, body, nullptr, value, out, "body")) return;
            (void)world_->add_raw(e, id, value.get());
            out.status = 201;
        } else if (!has) {
            error(out, 404, "entity '" + ref + "' has no '" + component + "'");
            return;
        } else if (method == "DELETE") {
            world_->remove_raw(e, id);
            out.body = "{\"removed\":";
            json_write_string(out.body, component);
            out.body += '}';
            return;
        } else if (method == "PUT") {
            if (!reflected(id)) {
                error(out, 400, "component '" + component + "' has no reflected fields (ECS_REFLECT)");
                return;
            }
            if (body.find_first_not_of(" \t\r\n") == std::string::npos) {
                error(out, 400, "PUT needs a body: a JSON object of fields");
                return;
            }
            // The new value is the current one with the body's fields, made outside the world; then
            // add_raw overwrites: a change for change detection, and on_set fires.
            RemoteValue value;
            const void* current = static_cast<const World&>(*world_).get_raw(e, id);
            if (current == nullptr) {
                error(out, 404, "entity '" + ref + "' has no '" + component + "'");
                return;
            }
            if (!make_value(id, body, current, value, out, "body")) return;
            (void)world_->add_raw(e, id, value.get());
        }
        // GET, and the answer to a write: the component's value now.
        const void* now = world_->alive(e) && has_component(e, id) ? static_cast<const World&>(*world_).get_raw(e, id) : nullptr;
        if (now == nullptr || !reflected(id)) out.body = "null";
        else out.body = to_json(fields(id), now);
    }

    World* world_;
    RemoteOptions options_;
    Schedule* schedule_ = nullptr;
    std::vector<RemoteSystemTiming> systems_;
    uint64_t frame_ = 0;
};

} // namespace detail
} // namespace ecs
