// Change streams (serialize_changes / apply_changes): a replica kept equal to a world by deltas at
// random points (every storage kind, handles, free list, names, pairs, enable bits), the size of a
// small delta, damaged and mismatched streams refused whole, counted lifetimes.
#include <ecs/ecs.hpp>
#include <ecs/serialization.hpp>

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "lifetime.hpp"
#include "rollback/stream_functions.hpp"

namespace {
using ecs::Entity;
using ecs::World;

struct DlPos {
    float x = 0, y = 0;
};
struct DlVel { // untracked
    float dx = 0;
};
struct DlText {
    std::string s;
};
struct alignas(64) DlWide {
    double v = 0;
};
struct DlTag {};
struct DlPoison { // sparse
    int turns = 0;
};
struct DlLikes {};
struct DlOwner {};
struct DlCountTag {};
using DlCounted = lifetime::Counted<DlCountTag>;
struct DlMoveOnly { // move-only, default-constructible
    std::unique_ptr<int> p;
};
} // namespace

template <>
struct ecs::component_traits<DlPoison> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};
template <>
struct ecs::relation_traits<DlOwner> {
    static constexpr bool exclusive = true;
    static constexpr ecs::OnDeleteTarget on_delete_target = ecs::OnDeleteTarget::destroy_sources;
};

namespace {
void move_only_out(std::ostream& out, const void* p) {
    const int v = *static_cast<const DlMoveOnly*>(p)->p;
    out.write(reinterpret_cast<const char*>(&v), 4);
}
void move_only_in(std::istream& in, void* p) {
    int v = 0;
    if (!in.read(reinterpret_cast<char*>(&v), 4)) return;
    ::new (p) DlMoveOnly{std::make_unique<int>(v)};
}

void register_delta_types() {
    static const bool done = [] {
        ecs::register_component<DlPos>("dl.Pos");
        ecs::register_component<DlVel>("dl.Vel");
        ecs::register_component<DlText>("dl.Text", &text_out<DlText>, &text_in<DlText>);
        ecs::register_component<DlWide>("dl.Wide");
        ecs::register_component<DlTag>("dl.Tag");
        ecs::register_component<DlPoison>("dl.Poison");
        ecs::register_component<DlCounted>("dl.Counted", &counted_out<DlCounted>, &counted_in<DlCounted>);
        ecs::register_component<DlMoveOnly>("dl.MoveOnly", &move_only_out, &move_only_in);
        ecs::register_relation<DlLikes>("dl.Likes");
        ecs::register_relation<DlOwner>("dl.Owner");
        return true;
    }();
    (void)done;
}

void track_all(World& w) {
    w.track_changes<DlPos>();
    w.track_changes<DlText>();
    w.track_changes<DlWide>();
    w.track_changes<DlPoison>();
    w.track_changes<DlCounted>();
    w.track_changes<DlMoveOnly>();
}

/// Everything observable about one slot.
std::string describe(const World& w, Entity e) {
    std::string out = std::to_string(e.index) + "v" + std::to_string(e.generation) + (w.alive(e) ? " alive" : " dead");
    if (!w.alive(e)) return out;
    if (!w.enabled(e)) out += " off";
    if (const DlPos* p = w.try_get<DlPos>(e)) out += " P" + std::to_string(p->x) + "," + std::to_string(p->y);
    if (w.has<DlPos>(e) && !w.enabled<DlPos>(e)) out += "(off)";
    if (const DlVel* v = w.try_get<DlVel>(e)) out += " V" + std::to_string(v->dx);
    if (const DlText* t = w.try_get<DlText>(e)) out += " T(" + t->s + ")";
    if (const DlWide* d = w.try_get<DlWide>(e)) out += " W" + std::to_string(d->v);
    if (w.has<DlTag>(e)) out += " tag";
    if (const DlPoison* p = w.try_get<DlPoison>(e)) out += " Poison" + std::to_string(p->turns);
    if (const DlCounted* c = w.try_get<DlCounted>(e)) out += " C" + std::to_string(c->value());
    if (const DlMoveOnly* m = w.try_get<DlMoveOnly>(e)) out += " M" + std::to_string(*m->p);
    w.each_target<DlLikes>(e, [&](Entity t) { out += " likes" + std::to_string(t.index) + "v" + std::to_string(t.generation); });
    w.each_target<DlOwner>(e, [&](Entity t) { out += " owner" + std::to_string(t.index) + "v" + std::to_string(t.generation); });
    if (!w.name(e).empty()) out += " name=" + std::string(w.name(e));
    return out;
}

/// Every slot of both worlds compared, and the free list (the next create() agrees).
void check_equal(const World& a, const World& b) {
    REQUIRE(a.count() == b.count());
    const auto& ra = ecs::detail::WorldAccess::records(a);
    const auto& rb = ecs::detail::WorldAccess::records(b);
    REQUIRE(ra.size() == rb.size());
    for (uint32_t i = 1; i < ra.size(); ++i) {
        const Entity e{i, ra[i].generation};
        REQUIRE(rb[i].generation == ra[i].generation);
        REQUIRE(describe(a, e) == describe(b, e));
    }
    REQUIRE(ecs::detail::WorldAccess::free_list(a) == ecs::detail::WorldAccess::free_list(b));
}

/// Every slot and the free list, as text (a world with move-only values cannot be copied).
std::string dump(const World& w) {
    std::string out;
    const auto& records = ecs::detail::WorldAccess::records(w);
    for (uint32_t i = 1; i < records.size(); ++i) out += describe(w, Entity{i, records[i].generation}) + "\n";
    for (const uint32_t f : ecs::detail::WorldAccess::free_list(w)) out += std::to_string(f) + " ";
    return out;
}

std::string delta(World& w, uint32_t since) {
    std::ostringstream out;
    ecs::serialize_changes(w, since, out);
    REQUIRE(out.good());
    return out.str();
}

/// One random operation on `w`, over the handles in `live` (kept up to date).
void random_op(World& w, std::vector<Entity>& live, std::mt19937& rng, int step) {
    auto pick = [&]() { return live[rng() % live.size()]; };
    const unsigned op = live.empty() ? 0 : static_cast<unsigned>(rng() % 20);
    switch (op) {
    case 0:
    case 1: {
        Entity e = w.create_with(DlPos{float(step), 1});
        if (rng() % 2) w.add(e, DlText{std::string(rng() % 40, char('a' + rng() % 26))});
        if (rng() % 3 == 0) w.add(e, DlCounted(step));
        if (rng() % 4 == 0) w.add(e, DlWide{double(step)});
        if (rng() % 5 == 0) w.add(e, DlVel{1.5f});
        live.push_back(e);
        break;
    }
    case 2: {
        const size_t k = rng() % live.size();
        w.destroy(live[k]);
        live.erase(live.begin() + long(k));
        break;
    }
    case 3: w.add(pick(), DlTag{}); break;
    case 4: w.remove<DlTag>(pick()); break;
    case 5: w.add(pick(), DlPoison{step}); break;
    case 6: w.remove<DlPoison>(pick()); break;
    case 7: {
        const Entity a = pick(), b = pick();
        if (a != b) w.relate<DlLikes>(a, b);
        break;
    }
    case 8: w.unrelate_all<DlLikes>(pick()); break;
    case 9: w.set_name(pick(), rng() % 3 ? "n" + std::to_string(step) : std::string()); break;
    case 10: w.disable(pick()); break;
    case 11: w.enable(pick()); break;
    case 12: w.disable<DlPos>(pick()); break;
    case 13: w.enable<DlPos>(pick()); break;
    case 14: w.add(pick(), DlMoveOnly{std::make_unique<int>(step)}); break;
    case 15: w.remove<DlText>(pick()); break;
    case 16: {
        const Entity a = pick(), b = pick();
        if (a != b && !w.related<DlOwner>(b, a)) w.relate<DlOwner>(a, b);
        break;
    }
    default: { // value writes of tracked types, no structural change
        const Entity e = pick();
        if (DlPos* p = w.try_get<DlPos>(e)) p->x += 1;
        if (DlText* t = w.try_get<DlText>(e)) t->s += "!";
        if (DlPoison* p = w.try_get<DlPoison>(e)) p->turns += 1;
        if (DlMoveOnly* m = w.try_get<DlMoveOnly>(e)) *m->p += 1;
        break;
    }
    }
    // Cascades (destroy_sources) and destroy may have killed other handles.
    std::vector<Entity> still;
    for (const Entity e : live)
        if (w.alive(e)) still.push_back(e);
    live.swap(still);
}
} // namespace

TEST_CASE("deltas: a replica follows a world through change streams at random points", "[deltas]") {
    register_delta_types();
    DlCounted::reset();
    {
        for (uint32_t seed = 1; seed <= 6; ++seed) {
            std::mt19937 rng(seed);
            World server;
            track_all(server);
            std::vector<Entity> live;
            for (int i = 0; i < 60; ++i) random_op(server, live, rng, i);
            World replica; // synced by a first delta since 0: everything
            uint32_t since = 0;
            int step = 100;
            for (int round = 0; round < 40; ++round) {
                const int ops = int(rng() % 25);
                for (int i = 0; i < ops; ++i) random_op(server, live, rng, step++);
                const std::string bytes = delta(server, since);
                const uint32_t next = server.change_tick(); // serialize_changes closed the tick it sent
                std::istringstream in(bytes);
                const ecs::DeserializeResult r = ecs::apply_changes(replica, in);
                INFO("seed " << seed << " round " << round << ": " << r.message);
                REQUIRE(r);
                CHECK(r.tick == next);
                since = next;
                REQUIRE(replica.check_invariants());
                check_equal(server, replica);
                // The next create() gives the same handle in both.
                if (round % 10 == 9) {
                    const Entity a = server.create(), b = replica.create();
                    CHECK(a == b);
                    server.destroy(a);
                    replica.destroy(b);
                }
            }
        }
    }
    CHECK(DlCounted::tally().clean());
}

TEST_CASE("deltas: the receiver's since after copy_from and after apply_changes", "[deltas]") {
    register_delta_types();
    World server;
    track_all(server);
    const Entity a = server.create_with(DlPos{1, 1});
    const Entity b = server.create_with(DlPos{2, 2});
    World replica;
    replica.copy_from(server);
    uint32_t since = replica.change_tick();
    server.get<DlPos>(a).x = 10; // after the copy: in the next delta
    {
        std::istringstream in(delta(server, since));
        const ecs::DeserializeResult r = ecs::apply_changes(replica, in);
        REQUIRE(r);
        since = replica.change_tick(); // the replica's clock was raised to the stream's
        CHECK(since == r.tick);
    }
    CHECK(replica.get<DlPos>(a).x == 10);
    // Nothing changed since: an empty delta applies and changes nothing.
    {
        const std::string bytes = delta(server, since);
        std::istringstream in(bytes);
        REQUIRE(ecs::apply_changes(replica, in));
        since = replica.change_tick();
    }
    server.get<DlPos>(b).y = 7;
    std::istringstream in(delta(server, since));
    REQUIRE(ecs::apply_changes(replica, in));
    CHECK(replica.get<DlPos>(b).y == 7);
    check_equal(server, replica);
    // Changed<T> on the replica sees what a delta wrote. The replica's query runs advance its
    // clock: from here on the since is the stream's tick, not the replica's change_tick().
    since = replica.change_tick();
    auto changed = replica.query<const DlPos>(ecs::Changed<DlPos>{});
    changed.each([](const DlPos&) {});
    server.get<DlPos>(a).y = 3;
    std::istringstream in2(delta(server, since));
    REQUIRE(ecs::apply_changes(replica, in2));
    int seen = 0;
    changed.each([&](const DlPos& p) {
        ++seen;
        CHECK(p.y == 3);
    });
    CHECK(seen == 1);
}

TEST_CASE("deltas: 1% of rows changed makes a stream a small fraction of a snapshot", "[deltas]") {
    register_delta_types();
    World server;
    server.track_changes<DlPos>();
    std::vector<Entity> es;
    for (int i = 0; i < 20000; ++i) es.push_back(server.create_with(DlPos{float(i), 0}, DlVel{1}, DlWide{1}));
    World replica;
    replica.copy_from(server);
    const uint32_t since = replica.change_tick();
    for (size_t i = 0; i < es.size(); i += 100) server.get<DlPos>(es[i]).y = 5;
    const std::string bytes = delta(server, since);
    std::ostringstream full;
    ecs::serialize(server, full);
    CHECK(bytes.size() * 20 < full.str().size()); // 200 rows of 20 bytes against 20,000 whole entities
    std::istringstream in(bytes);
    REQUIRE(ecs::apply_changes(replica, in));
    check_equal(server, replica);
}

TEST_CASE("deltas: damaged, truncated and mismatched streams are refused whole", "[deltas]") {
    register_delta_types();
    DlCounted::reset();
    {
        std::mt19937 rng(42);
        World server;
        track_all(server);
        std::vector<Entity> live;
        for (int i = 0; i < 40; ++i) random_op(server, live, rng, i);
        World replica;
        uint32_t since = 0;
        {
            std::istringstream first(delta(server, 0));
            const ecs::DeserializeResult r = ecs::apply_changes(replica, first);
            REQUIRE(r);
            since = r.tick; // the replica tracks nothing: its own clock is not the sender's
        }
        for (int i = 0; i < 30; ++i) random_op(server, live, rng, 100 + i);
        const std::string bytes = delta(server, since);
        const std::string before = dump(replica);
        for (size_t at = 0; at < bytes.size(); at += 3) {
            std::string bad = bytes;
            bad[at] = static_cast<char>(bad[at] ^ (1 << (at % 8)));
            std::istringstream in(bad);
            const ecs::DeserializeResult r = ecs::apply_changes(replica, in);
            REQUIRE_FALSE(r);
        }
        for (size_t cut = 0; cut < bytes.size(); cut += 5) {
            std::istringstream in(bytes.substr(0, cut));
            REQUIRE_FALSE(ecs::apply_changes(replica, in));
        }
        CHECK(dump(replica) == before);
        // A stream made against another state: values name entities the target does not hold.
        World stranger;
        for (int i = 0; i < 500; ++i) (void)stranger.create_with(DlPos{float(i), 0});
        const std::string stranger_before = dump(stranger);
        std::istringstream wrong(bytes);
        const ecs::DeserializeResult r = ecs::apply_changes(stranger, wrong);
        CHECK(r.error == ecs::DeserializeError::base_mismatch);
        CHECK(dump(stranger) == stranger_before);
        REQUIRE(stranger.check_invariants());
        // The good stream still applies.
        std::istringstream good(bytes);
        REQUIRE(ecs::apply_changes(replica, good));
        check_equal(server, replica);
    }
    CHECK(DlCounted::tally().clean());
}

TEST_CASE("copy_from: the values-only path when both worlds hold the same structure", "[deltas]") {
    register_delta_types();
    DlCounted::reset();
    {
        World src;
        src.track_changes<DlPos>();
        std::vector<Entity> es;
        for (int i = 0; i < 300; ++i) {
            Entity e = src.create_with(DlPos{float(i), 0}, DlText{std::string(size_t(i % 50), 'q')}, DlCounted(i));
            if (i % 3 == 0) src.add(e, DlWide{double(i)});
            if (i % 7 == 0) src.add(e, DlPoison{i});
            if (i % 11 == 0) src.relate<DlLikes>(e, es.empty() ? e : es[0]);
            if (i % 13 == 0) src.set_name(e, "c" + std::to_string(i));
            es.push_back(e);
        }
        World dst;
        dst.copy_from(src);
        check_equal(src, dst);
        // Values only: the next copy takes the short path, and must still give equal worlds.
        for (size_t i = 0; i < es.size(); i += 2) {
            src.get<DlPos>(es[i]).x += 0.5f;
            src.get<DlText>(es[i]).s += "!";
            src.get<DlCounted>(es[i]) = DlCounted(-int(i));
        }
        src.get<DlPoison>(es[7]).turns = 99;
        dst.copy_from(src);
        check_equal(src, dst);
        // Changed<T> on the copy sees what the source's handle would (the ticks came along).
        auto changed_src = src.query<const DlPos>(ecs::Changed<DlPos>{});
        auto changed_dst = dst.query<const DlPos>(ecs::Changed<DlPos>{});
        size_t a = 0, b = 0;
        changed_src.each([&](const DlPos&) { ++a; });
        changed_dst.each([&](const DlPos&) { ++b; });
        CHECK(a == b);
        // The copy changes structurally: the next copy must take the full path.
        dst.destroy(es[5]);
        dst.add(es[6], DlTag{});
        dst.set_name(es[8], "renamed");
        dst.disable<DlPos>(es[9]);
        dst.copy_from(src);
        check_equal(src, dst);
        // The source changes structurally, or is sorted: the full path again.
        src.disable(es[10]);
        dst.copy_from(src);
        check_equal(src, dst);
        src.sort<DlPos>([](const DlPos& l, const DlPos& r) { return l.x > r.x; });
        dst.copy_from(src);
        check_equal(src, dst);
        std::vector<Entity> order_src, order_dst;
        src.each<const DlPos>([&](Entity e, const DlPos&) { order_src.push_back(e); });
        dst.each<const DlPos>([&](Entity e, const DlPos&) { order_dst.push_back(e); });
        CHECK(order_src == order_dst);
        // A Rollback ring over value-only frames restores each frame exactly.
        ecs::Rollback ring(src, 4);
        std::vector<std::string> frames;
        for (int f = 0; f < 6; ++f) {
            for (size_t i = 0; i < es.size(); i += 3)
                if (src.alive(es[i])) src.get<DlPos>(es[i]).y = float(f * 10 + int(i));
            ring.save(f);
            frames.push_back(dump(src));
        }
        for (int f = 5; f >= 2; --f) {
            REQUIRE(ring.load(f));
            CHECK(dump(src) == frames[size_t(f)]);
            REQUIRE(src.check_invariants());
        }
        CHECK_FALSE(ring.load(1));
    }
    CHECK(DlCounted::tally().clean());
}
