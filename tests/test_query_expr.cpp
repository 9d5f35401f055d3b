// Query text (addition, 2.0): ecs::query_expr / ecs::DynamicQuery. Every grammar form, every error
// with its byte offset, agreement with typed queries on random worlds (same entities, same order,
// same addresses), up traversal (chain, missing, cycle, the 64-level limit), sparse terms, enable
// bits, refusal of structural changes during each, and counted lifetimes left alone.
#include <ecs/builtin/hierarchy.hpp>
#include <ecs/query_expr.hpp>
#include <ecs/world.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "counting.hpp"

namespace {
// Names unique in the test binary: the text resolves components by name.
struct QePosition {
    float x = 0, y = 0;
};
struct QeVelocity {
    float x = 0, y = 0;
};
struct QeHealth {
    int hp = 0;
};
struct QeFrozen {};
struct QePlayer {};
struct QeEnemy {};
struct QeMark { // sparse
    int v = 0;
};
struct QeChildOf {}; // exclusive
struct QeLikes {};   // not exclusive

/// The texts below name these types: each is given its component id before any test runs, so a
/// test passes alone as well as after the others (a name resolves once the process knows the type).
const bool qe_types_known = [] {
    (void)ecs::ensure_column_factory<QePosition>();
    (void)ecs::ensure_column_factory<QeVelocity>();
    (void)ecs::ensure_column_factory<QeHealth>();
    (void)ecs::ensure_column_factory<QeFrozen>();
    (void)ecs::ensure_column_factory<QePlayer>();
    (void)ecs::ensure_column_factory<QeEnemy>();
    return true;
}();

using Hits = std::vector<std::pair<ecs::Entity, std::vector<const void*>>>;

/// What `q.each` visits: each entity with its value pointers.
Hits run(ecs::DynamicQuery& q) {
    Hits out;
    q.each([&](ecs::Entity e, void* const* values) {
        std::vector<const void*> v(values, values + q.value_count());
        out.emplace_back(e, std::move(v));
    });
    return out;
}

std::vector<ecs::Entity> entities_of(const Hits& hits) {
    std::vector<ecs::Entity> out;
    for (const auto& h : hits) out.push_back(h.first);
    return out;
}
} // namespace

namespace Catch {
template <>
struct StringMaker<ecs::Entity> {
    static std::string convert(const ecs::Entity& e) { return std::to_string(e.index) + "v" + std::to_string(e.generation); }
};
} // namespace Catch

template <>
struct ecs::component_traits<QeMark> {
    static constexpr ecs::Storage storage = ecs::Storage::sparse;
};
template <>
struct ecs::relation_traits<QeChildOf> {
    static constexpr bool exclusive = true;
};

TEST_CASE("query_expr: the contract's example parses into its terms", "[query_expr]") {
    ecs::World w;
    const ecs::Entity p = w.create_with(QePosition{}, QeVelocity{}, QeHealth{}, QePlayer{});
    w.create_with(QeFrozen{}, QeEnemy{});
    w.relate<QeChildOf>(p, w.create());
    ecs::DynamicQuery q = ecs::query_expr(
        w, "QePosition, [in] QeVelocity, !QeFrozen, ?QeHealth, QePlayer|QeEnemy, (QeChildOf, *), QeHealth(up QeChildOf), "
           "QeHealth(self|up QeChildOf)");
    REQUIRE(q);
    CHECK(q.error().empty());
    const std::vector<ecs::QueryTerm>& t = q.terms();
    REQUIRE(t.size() == 8);
    CHECK(t[0].name == "QePosition");
    CHECK(t[0].id == ecs::component_id<QePosition>());
    CHECK(t[0].kind == ecs::TermKind::with);
    CHECK(t[0].access == ecs::TermAccess::write);
    CHECK(t[0].value == 0);
    CHECK(t[1].kind == ecs::TermKind::in);
    CHECK(t[1].access == ecs::TermAccess::read);
    CHECK(t[1].value == 1);
    CHECK(t[2].kind == ecs::TermKind::without);
    CHECK(t[2].access == ecs::TermAccess::none);
    CHECK(t[2].value == -1);
    CHECK(t[3].kind == ecs::TermKind::optional);
    CHECK(t[3].access == ecs::TermAccess::write);
    CHECK(t[3].value == 2);
    CHECK(t[4].kind == ecs::TermKind::any_of);
    CHECK(t[4].name == "QePlayer|QeEnemy");
    CHECK(t[4].any_of == std::vector<ecs::ComponentTypeID>{ecs::component_id<QePlayer>(), ecs::component_id<QeEnemy>()});
    CHECK(t[5].kind == ecs::TermKind::pair);
    CHECK(t[5].name == "(QeChildOf, *)");
    CHECK(t[5].relation == ecs::component_id<QeChildOf>());
    CHECK(t[5].target == ecs::INVALID_ENTITY);
    CHECK(t[6].kind == ecs::TermKind::up);
    CHECK(t[6].access == ecs::TermAccess::read);
    CHECK(t[6].name == "QeHealth(up QeChildOf)");
    CHECK(t[7].kind == ecs::TermKind::self_up);
    CHECK(t[7].value == 4);
    CHECK(q.value_count() == 5);
    CHECK(q.count() == 1);
    Hits hits = run(q);
    REQUIRE(hits.size() == 1);
    CHECK(hits[0].first == p);
    CHECK(hits[0].second[0] == &w.get<QePosition>(p));
    CHECK(hits[0].second[1] == &w.get<QeVelocity>(p));
    CHECK(hits[0].second[2] == &w.get<QeHealth>(p));
    CHECK(hits[0].second[3] == nullptr);                // the target has no QeHealth
    CHECK(hits[0].second[4] == &w.get<QeHealth>(p));    // self first
}

TEST_CASE("query_expr: whitespace is free between tokens", "[query_expr]") {
    ecs::World w;
    const ecs::Entity e = w.create_with(QePosition{}, QeVelocity{});
    w.relate<QeChildOf>(e, w.create());
    for (const char* text : {"QePosition,[in]QeVelocity", "  QePosition ,\t[ in ] QeVelocity\n", "QePosition , ( QeChildOf , * )",
                             "QePosition, QeVelocity(  self | up   QeChildOf )", "QePosition | QeFrozen"}) {
        ecs::DynamicQuery q = ecs::query_expr(w, text);
        INFO(text);
        REQUIRE(q);
        CHECK(q.count() == 1);
    }
}

TEST_CASE("query_expr: each form matches what its typed counterpart matches", "[query_expr]") {
    ecs::World w;
    const ecs::Entity a = w.create_with(QePosition{1, 1}, QeVelocity{1, 0});
    const ecs::Entity b = w.create_with(QePosition{2, 2});
    const ecs::Entity c = w.create_with(QePosition{3, 3}, QeVelocity{0, 1}, QeFrozen{});
    const ecs::Entity d = w.create_with(QeHealth{5}, QePlayer{});
    const ecs::Entity t = w.create();
    w.set_name(t, "target_one");
    w.relate<QeLikes>(a, t);
    w.relate<QeLikes>(b, d);
    w.relate<QeLikes>(b, t);

    SECTION("plain and [in]: required, pointers to the components") {
        ecs::DynamicQuery q = ecs::query_expr(w, "QePosition, [in] QeVelocity");
        Hits hits = run(q);
        // Archetype creation order: `a` moved to a new archetype when it was related.
        REQUIRE(entities_of(hits) == std::vector<ecs::Entity>{c, a});
        CHECK(hits[0].second[0] == &w.get<QePosition>(c));
        CHECK(hits[0].second[1] == &w.get<QeVelocity>(c));
        static_cast<QePosition*>(const_cast<void*>(hits[1].second[0]))->x = 42;
        CHECK(w.get<QePosition>(a).x == 42);
    }
    SECTION("! excludes") {
        ecs::DynamicQuery q = ecs::query_expr(w, "QePosition, !QeFrozen");
        CHECK(entities_of(run(q)) == std::vector<ecs::Entity>{a, b});
    }
    SECTION("? passes nullptr when absent") {
        ecs::DynamicQuery q = ecs::query_expr(w, "?QeVelocity, [in] QePosition");
        Hits hits = run(q);
        REQUIRE(entities_of(hits) == std::vector<ecs::Entity>{c, a, b});
        CHECK(hits[1].second[0] == &w.get<QeVelocity>(a));
        CHECK(hits[2].second[0] == nullptr);
    }
    SECTION("any-of needs one of them") {
        ecs::DynamicQuery q = ecs::query_expr(w, "QeFrozen|QePlayer|QeVelocity");
        CHECK(entities_of(run(q)) == std::vector<ecs::Entity>{c, d, a});
        CHECK(q.value_count() == 0);
    }
    SECTION("pairs: any target, a target by number, a target by name") {
        ecs::DynamicQuery any = ecs::query_expr(w, "(QeLikes, *)");
        CHECK(entities_of(run(any)) == std::vector<ecs::Entity>{a, b});
        const std::string by_number = "(QeLikes, " + std::to_string(d.index) + "." + std::to_string(d.generation) + ")";
        ecs::DynamicQuery number = ecs::query_expr(w, by_number);
        REQUIRE(number);
        CHECK(number.terms()[0].target == d);
        CHECK(entities_of(run(number)) == std::vector<ecs::Entity>{b});
        ecs::DynamicQuery name = ecs::query_expr(w, "QePosition, (QeLikes, target_one)");
        REQUIRE(name);
        CHECK(entities_of(run(name)) == std::vector<ecs::Entity>{a, b});
        CHECK(name.value_count() == 1); // a pair is a filter: relationships carry no value
        // A dead target matches nothing (and is no error).
        const ecs::Entity gone = w.create();
        w.destroy(gone);
        ecs::DynamicQuery dead = ecs::query_expr(w, "(QeLikes, " + std::to_string(gone.index) + "." + std::to_string(gone.generation) + ")");
        REQUIRE(dead);
        CHECK(dead.count() == 0);
    }
    SECTION("a component only used as a tag or marker is fine as a value term") {
        ecs::DynamicQuery q = ecs::query_expr(w, "QePlayer");
        Hits hits = run(q);
        REQUIRE(entities_of(hits) == std::vector<ecs::Entity>{d});
        CHECK(hits[0].second[0] != nullptr);
    }
    SECTION("names with :: resolve (type names of namespaced types)") {
        w.add(a, ecs_test::Counted{7});
        ecs::DynamicQuery q = ecs::query_expr(w, "ecs_test::Counted");
        REQUIRE(q);
        Hits hits = run(q);
        REQUIRE(hits.size() == 1);
        CHECK(static_cast<const ecs_test::Counted*>(hits[0].second[0])->value == 7);
    }
    SECTION("count agrees with each") {
        for (const char* text : {"QePosition", "QePosition, !QeVelocity", "QeFrozen|QeHealth", "(QeLikes, *)", "?QeHealth"}) {
            ecs::DynamicQuery q = ecs::query_expr(w, text);
            CHECK(q.count() == run(q).size());
        }
    }
}

TEST_CASE("query_expr: every error names the word and its byte offset", "[query_expr]") {
    ecs::World w;
    w.create_with(QePosition{}, QeVelocity{});
    w.relate<QeChildOf>(w.create(), w.create());
    w.relate<QeLikes>(w.create(), w.create());
    struct Case {
        const char* text;
        size_t offset;
        const char* says;
    };
    const Case cases[] = {
        {"", 0, "empty query"},
        {"   ", 3, "empty query"},
        {"QePosition,", 11, "expected a term, found end of text"},
        {"QePosition,,QeVelocity", 11, "expected a term"},
        {"QePosition QeVelocity", 11, "expected ',' between terms, found \"QeVelocity\""},
        {"[out] QePosition", 1, "expected 'in' after '[', found \"out\""},
        {"[in QePosition", 4, "expected ']' after '[in'"},
        {"[in]", 4, "expected a component name after '[in]'"},
        {"!", 1, "expected a component name after '!'"},
        {"?3", 1, "expected a component name after '?', found \"3\""},
        {"[in] QePosition|QeVelocity", 15, "unexpected \"|\""},
        {"!QePosition(up QeChildOf)", 11, "unexpected \"(\""},
        {"QePosition|", 11, "expected a component name after '|'"},
        {"QePosition|QePosition", 11, "listed twice in an any-of term"},
        {"(QeChildOf QePosition)", 11, "expected ',' between the relationship and its target"},
        {"(QeChildOf, )", 12, "expected a target"},
        {"(QeChildOf, 7)", 13, "expected '.' and a generation"},
        {"(QeChildOf, 7.)", 14, "expected a generation after '.'"},
        {"(QeChildOf, 99999999999.1)", 12, "does not fit 32 bits"},
        {"(QeChildOf, *", 13, "expected ')' after the pair's target"},
        {"(QePosition, *)", 1, "\"QePosition\" is not a relationship"},
        {"(QeChildOf, nobody)", 12, "no entity named \"nobody\""},
        {"QePosition(down QeChildOf)", 11, "expected 'up' or 'self|up', found \"down\""},
        {"QePosition(self QeChildOf)", 16, "expected '|up' after 'self'"},
        {"QePosition(self|down QeChildOf)", 16, "expected 'up' after 'self|', found \"down\""},
        {"QePosition(up QeChildOf", 23, "expected ')' after the relationship"},
        {"QePosition(up)", 13, "expected a relationship name"},
        {"QePosition(up QeNothing)", 14, "\"QeNothing\" is not a relationship"},
        {"QePosition(up QeLikes)", 14, "relationship \"QeLikes\" is not exclusive"},
        {"QeNothing(up QeChildOf)", 0, "unknown component \"QeNothing\""},
        {"QePosition, QeNothing", 12, "unknown component \"QeNothing\""},
        {"QePosition, !QePosition", 13, "component \"QePosition\" is listed twice"},
        {"QePosition, ?QePosition", 13, "is listed twice"},
        {"QePosition<int", 10, "unclosed '<'"},
        {"QePosition, $", 12, "expected a term, found \"$\""},
        {"QePosition)", 10, "expected ',' between terms, found \")\""},
    };
    for (const Case& c : cases) {
        ecs::DynamicQuery q = ecs::query_expr(w, c.text);
        INFO(c.text << " -> " << q.error());
        CHECK_FALSE(q);
        CHECK(q.error_offset() == c.offset);
        CHECK(q.error().find(c.says) != std::string::npos);
        CHECK(q.error().find("at byte " + std::to_string(c.offset)) != std::string::npos);
        CHECK(q.terms().empty());
        CHECK(q.count() == 0);
        size_t visits = 0;
        q.each([&](ecs::Entity, void* const*) { ++visits; });
        CHECK(visits == 0);
    }
    SECTION("more than 64 terms") {
        std::string text = "QePosition";
        for (int i = 0; i < 64; ++i) text += ", QeHealth(up QeChildOf)";
        ecs::DynamicQuery q = ecs::query_expr(w, text);
        CHECK_FALSE(q);
        CHECK(q.error().find("too many terms") != std::string::npos);
    }
    SECTION("a long word is cut in the message") {
        const std::string text = std::string(1000, 'x');
        ecs::DynamicQuery q = ecs::query_expr(w, text);
        CHECK_FALSE(q);
        CHECK(q.error_offset() == 0);
        CHECK(q.error().size() < 120);
    }
    SECTION("a default-constructed query is invalid and inert") {
        ecs::DynamicQuery q;
        CHECK_FALSE(q);
        CHECK(q.count() == 0);
    }
}

TEST_CASE("query_expr: agrees with typed queries on random worlds", "[query_expr]") {
    std::mt19937 rng(20261127);
    for (int round = 0; round < 8; ++round) {
        ecs::World w;
        std::vector<ecs::Entity> all;
        for (int i = 0; i < 400; ++i) {
            const ecs::Entity e = w.create();
            all.push_back(e);
            const unsigned bits = static_cast<unsigned>(rng());
            if (bits & 1u) w.add(e, QePosition{float(i), 0});
            if (bits & 2u) w.add(e, QeVelocity{0, float(i)});
            if (bits & 4u) w.add(e, QeHealth{i});
            if (bits & 8u) w.add(e, QeFrozen{});
            if (bits & 16u) w.add(e, QeMark{i});
            if (bits & 32u) w.add(e, QePlayer{});
        }
        for (int i = 0; i < 120; ++i) { // churn: destroy, remove, disable, relate
            const ecs::Entity e = all[rng() % all.size()];
            if (!w.alive(e)) continue;
            switch (rng() % 9) {
            case 0: w.destroy(e); break;
            case 1: w.remove<QeVelocity>(e); break;
            case 2: w.disable<QePosition>(e); break;
            case 3: w.disable<QeVelocity>(e); break;
            case 4: w.disable<QeFrozen>(e); break;
            case 5: w.disable(e); break;
            case 6: w.disable<QeMark>(e); break;
            case 7: w.remove<QeMark>(e); break;
            default: {
                const ecs::Entity t = all[rng() % all.size()];
                if (w.alive(t) && t != e) w.relate<QeLikes>(e, t);
            }
            }
        }
        INFO("round " << round);
        auto same = [&](const char* text, const Hits& expected) {
            ecs::DynamicQuery q = ecs::query_expr(w, text);
            INFO(text);
            REQUIRE(q);
            const Hits got = run(q);
            CHECK(entities_of(got) == entities_of(expected));
            CHECK(got == expected);
            CHECK(q.count() == expected.size());
            CHECK(run(q) == expected); // a second run from the cache
        };
        Hits expected;
        w.each<QePosition, const QeVelocity>([&](ecs::Entity e, QePosition& p, const QeVelocity& v) {
            expected.push_back({e, {&p, &v}});
        });
        same("QePosition, [in] QeVelocity", expected);
        expected.clear();
        w.each<QePosition>(ecs::Without<QeFrozen>{}, [&](ecs::Entity e, QePosition& p) { expected.push_back({e, {&p}}); });
        same("QePosition, !QeFrozen", expected);
        expected.clear();
        w.each<ecs::Optional<QeVelocity>, QePosition>([&](ecs::Entity e, QeVelocity* v, QePosition& p) {
            expected.push_back({e, {v, &p}});
        });
        same("?QeVelocity, QePosition", expected);
        expected.clear();
        w.each<QePosition, QeMark>([&](ecs::Entity e, QePosition& p, QeMark& m) { expected.push_back({e, {&p, &m}}); });
        same("QePosition, QeMark", expected);
        expected.clear();
        w.each<QeHealth>(ecs::Without<QeMark, QeFrozen>{}, [&](ecs::Entity e, QeHealth& h) { expected.push_back({e, {&h}}); });
        same("QeHealth, !QeMark, !QeFrozen", expected);
        expected.clear();
        w.each<QeHealth, ecs::Optional<QeMark>>([&](ecs::Entity e, QeHealth& h, QeMark* m) { expected.push_back({e, {&h, m}}); });
        same("QeHealth, ?QeMark", expected);
        expected.clear();
        w.each<const QeHealth, QeFrozen>(ecs::Related<QeLikes>{}, [&](ecs::Entity e, const QeHealth& h, QeFrozen& f) {
            expected.push_back({e, {&h, &f}});
        });
        same("[in] QeHealth, (QeLikes, *), QeFrozen", expected);
        // With a concrete target: the typed Related<R>{target} filter.
        ecs::Entity target = ecs::INVALID_ENTITY; // the target with the most sources
        size_t most = 0;
        for (const ecs::Entity e : all) {
            if (!w.alive(e)) continue;
            size_t sources = 0;
            w.each_source<QeLikes>(e, [&](ecs::Entity) { ++sources; });
            if (target == ecs::INVALID_ENTITY || sources > most) {
                target = e;
                most = sources;
            }
        }
        expected.clear();
        w.each<QePosition>(ecs::Related<QeLikes>{target}, [&](ecs::Entity e, QePosition& p) { expected.push_back({e, {&p}}); });
        const std::string text = "QePosition, (QeLikes, " + std::to_string(target.index) + "." + std::to_string(target.generation) + ")";
        same(text.c_str(), expected);
        // Any-of: against the entity-by-entity rule, in typed each's order (all enabled entities).
        expected.clear();
        w.each<>([&](ecs::Entity e) {
            if (w.enabled<QeVelocity>(e) || w.enabled<QeFrozen>(e) || w.enabled<QeMark>(e)) expected.push_back({e, {}});
        });
        same("QeVelocity|QeFrozen|QeMark", expected);
        CHECK(w.check_invariants());
    }
}

TEST_CASE("query_expr: up follows an exclusive relationship to the nearest ancestor", "[query_expr]") {
    ecs::World w;
    const ecs::Entity root = w.create_with(QeHealth{1});
    const ecs::Entity mid = w.create_with(QePosition{});
    const ecs::Entity leaf = w.create_with(QePosition{}, QeHealth{3});
    const ecs::Entity orphan = w.create_with(QePosition{});
    w.relate<QeChildOf>(mid, root);
    w.relate<QeChildOf>(leaf, mid);

    SECTION("chain: the nearest ancestor having it; self excluded; none without a parent") {
        ecs::DynamicQuery q = ecs::query_expr(w, "QePosition, QeHealth(up QeChildOf)");
        Hits hits = run(q);
        REQUIRE(entities_of(hits) == std::vector<ecs::Entity>{orphan, mid, leaf}); // relating moved mid and leaf
        CHECK(hits[0].second[1] == nullptr);
        CHECK(hits[1].second[1] == &w.get<QeHealth>(root));
        CHECK(hits[2].second[1] == &w.get<QeHealth>(root)); // its own QeHealth is not looked at
    }
    SECTION("self|up: self first") {
        ecs::DynamicQuery q = ecs::query_expr(w, "QePosition, QeHealth(self|up QeChildOf)");
        Hits hits = run(q);
        REQUIRE(hits.size() == 3);
        CHECK(hits[0].second[1] == nullptr);
        CHECK(hits[1].second[1] == &w.get<QeHealth>(root));
        CHECK(hits[2].second[1] == &w.get<QeHealth>(leaf));
    }
    SECTION("missing everywhere: nullptr, and up never filters") {
        ecs::DynamicQuery q = ecs::query_expr(w, "QeVelocity(up QeChildOf)");
        CHECK(q.count() == w.count());
        for (const auto& h : run(q)) CHECK(h.second[0] == nullptr);
    }
    SECTION("a disabled ancestor component is skipped") {
        w.disable<QeHealth>(root);
        ecs::DynamicQuery q = ecs::query_expr(w, "QePosition, QeHealth(up QeChildOf)");
        Hits hits = run(q);
        CHECK(hits[1].second[1] == nullptr);
    }
    SECTION("sparse components are found up the chain") {
        w.add(root, QeMark{9});
        ecs::DynamicQuery q = ecs::query_expr(w, "QePosition, QeMark(up QeChildOf)");
        Hits hits = run(q);
        REQUIRE(hits.size() == 3);
        CHECK(hits[2].second[1] == w.try_get<QeMark>(root));
    }
}

TEST_CASE("query_expr: up stops after 64 levels and on a cycle", "[query_expr]") {
    ecs::World w;
    std::vector<ecs::Entity> chain{w.create_with(QeHealth{0})};
    for (int i = 1; i <= 70; ++i) {
        const ecs::Entity e = w.create_with(QePosition{float(i), 0});
        w.relate<QeChildOf>(e, chain.back());
        chain.push_back(e);
    }
    ecs::DynamicQuery q = ecs::query_expr(w, "QePosition, QeHealth(up QeChildOf)");
    Hits hits = run(q);
    REQUIRE(hits.size() == 70);
    for (const auto& h : hits) {
        const auto depth = static_cast<int>(w.get<QePosition>(h.first).x); // levels up to the root
        INFO(depth);
        CHECK((h.second[1] != nullptr) == (depth <= 64));
    }

    SECTION("a cycle through ecs::Parent ends the walk") {
        ecs::World c;
        const ecs::Entity a = c.create_with(QePosition{});
        const ecs::Entity b = c.create();
        const ecs::Entity top = c.create_with(QeHealth{1});
        c.add(a, ecs::Parent{b});
        c.add(b, ecs::Parent{a});
        ecs::DynamicQuery up = ecs::query_expr(c, "QePosition, QeHealth(up Parent)");
        REQUIRE(up);
        Hits around = run(up);
        REQUIRE(around.size() == 1);
        CHECK(around[0].second[1] == nullptr);
        c.add(b, ecs::Parent{top}); // the cycle is broken: found
        around = run(up);
        CHECK(around[0].second[1] == &c.get<QeHealth>(top));
        ecs::DynamicQuery spelled = ecs::query_expr(c, "QeHealth(self|up ecs::Parent), (Parent, *)");
        REQUIRE(spelled);
        CHECK(spelled.count() == 2);
        const std::string to_top = "(Parent, " + std::to_string(top.index) + "." + std::to_string(top.generation) + ")";
        ecs::DynamicQuery pair = ecs::query_expr(c, to_top);
        REQUIRE(pair);
        CHECK(entities_of(run(pair)) == std::vector<ecs::Entity>{b});
    }
    SECTION("a cycle of an exclusive relationship above the entity ends the walk") {
        ecs::World c;
        const ecs::Entity x = c.create_with(QePosition{});
        const ecs::Entity y = c.create();
        const ecs::Entity z = c.create();
        c.relate<QeChildOf>(x, y);
        c.relate<QeChildOf>(y, z);
        c.relate<QeChildOf>(z, y);
        ecs::DynamicQuery up = ecs::query_expr(c, "QePosition, QeHealth(up QeChildOf)");
        Hits around = run(up);
        REQUIRE(around.size() == 1);
        CHECK(around[0].second[1] == nullptr);
    }
}

TEST_CASE("query_expr: sparse components as terms", "[query_expr]") {
    ecs::World w;
    const ecs::Entity a = w.create_with(QePosition{}, QeMark{1});
    const ecs::Entity b = w.create_with(QePosition{});
    const ecs::Entity c = w.create_with(QeMark{3});
    w.destroy(w.create_with(QeVelocity{})); // QeVelocity known by name whatever ran before this test
    ecs::DynamicQuery with = ecs::query_expr(w, "QeMark");
    Hits hits = run(with);
    REQUIRE(entities_of(hits) == std::vector<ecs::Entity>{c, a}); // c lives in the empty archetype, created first
    CHECK(hits[1].second[0] == w.try_get<QeMark>(a));
    ecs::DynamicQuery without = ecs::query_expr(w, "QePosition, !QeMark");
    CHECK(entities_of(run(without)) == std::vector<ecs::Entity>{b});
    ecs::DynamicQuery optional = ecs::query_expr(w, "QePosition, ?QeMark");
    hits = run(optional);
    REQUIRE(hits.size() == 2);
    CHECK(hits[0].second[1] == w.try_get<QeMark>(a));
    CHECK(hits[1].second[1] == nullptr);
    ecs::DynamicQuery any = ecs::query_expr(w, "QeMark|QeVelocity");
    REQUIRE(any);
    CHECK(entities_of(run(any)) == std::vector<ecs::Entity>{c, a});
    w.disable<QeMark>(a);
    CHECK(entities_of(run(with)) == std::vector<ecs::Entity>{c});
    CHECK(entities_of(run(without)) == std::vector<ecs::Entity>{a, b});
    CHECK(run(optional)[0].second[1] == nullptr);
    CHECK(entities_of(run(any)) == std::vector<ecs::Entity>{c});
}

TEST_CASE("query_expr: disabled components and entities", "[query_expr]") {
    ecs::World w;
    const ecs::Entity a = w.create_with(QePosition{}, QeVelocity{}, QePlayer{});
    const ecs::Entity b = w.create_with(QePosition{}, QeVelocity{}, QeEnemy{});
    const ecs::Entity c = w.create_with(QePosition{}, QeVelocity{});
    w.disable<QeVelocity>(a);
    w.disable<QeEnemy>(b);
    ecs::DynamicQuery plain = ecs::query_expr(w, "QePosition, QeVelocity");
    CHECK(entities_of(run(plain)) == std::vector<ecs::Entity>{b, c});
    ecs::DynamicQuery in = ecs::query_expr(w, "[in] QeVelocity");
    CHECK(in.count() == 2);
    ecs::DynamicQuery without = ecs::query_expr(w, "QePosition, !QeVelocity");
    CHECK(entities_of(run(without)) == std::vector<ecs::Entity>{a});
    ecs::DynamicQuery optional = ecs::query_expr(w, "QePosition, ?QeVelocity");
    Hits hits = run(optional);
    REQUIRE(hits.size() == 3);
    CHECK(hits[0].second[1] == nullptr);
    CHECK(hits[1].second[1] == &w.get<QeVelocity>(b));
    ecs::DynamicQuery any = ecs::query_expr(w, "QePlayer|QeEnemy");
    CHECK(entities_of(run(any)) == std::vector<ecs::Entity>{a});
    w.disable(a);
    CHECK(entities_of(run(any)).empty());
    CHECK(entities_of(run(optional)) == std::vector<ecs::Entity>{b, c});
    w.enable(a);
    w.enable<QeVelocity>(a);
    CHECK(entities_of(run(plain)) == std::vector<ecs::Entity>{a, b, c});
}

TEST_CASE("query_expr: the cache follows archetypes created after the query", "[query_expr]") {
    ecs::World w;
    ecs::DynamicQuery q = ecs::query_expr(w, "QePosition"); // the type is known: no entity yet needed
    REQUIRE(q);
    CHECK(q.count() == 0);
    const ecs::Entity a = w.create_with(QePosition{});
    CHECK(q.count() == 1);
    const ecs::Entity b = w.create_with(QePosition{}, QeHealth{});
    CHECK(entities_of(run(q)) == std::vector<ecs::Entity>{a, b});
    ecs::DynamicQuery moved = std::move(q);
    CHECK(moved.count() == 2);
    CHECK_FALSE(q); // NOLINT(bugprone-use-after-move): a moved-from query is invalid and inert
    CHECK(q.count() == 0);
    ecs::DynamicQuery assigned;
    assigned = std::move(moved);
    CHECK(assigned.count() == 2);
    w.create_with(QePosition{}, QeVelocity{});
    CHECK(assigned.count() == 3);
}

TEST_CASE("query_expr: each opens an iteration scope; structural changes go through deferred()", "[query_expr]") {
    ecs::World w;
    const ecs::Entity a = w.create_with(QePosition{});
    const ecs::Entity b = w.create_with(QePosition{});
    ecs::DynamicQuery q = ecs::query_expr(w, "QePosition");
    CHECK_FALSE(w.iterating());
    q.each([&](ecs::Entity e, void* const*) {
        CHECK(w.iterating());
        w.deferred().add(e, QeFrozen{});
    });
    CHECK_FALSE(w.iterating());
    w.flush_deferred();
    CHECK(w.has<QeFrozen>(a));
    CHECK(w.has<QeFrozen>(b));
#if !ECS_ASSERT_ENABLED
    // Release builds: the refusal is observable (debug builds assert, as typed each does).
    static int refusals = 0;
    const ecs::RefusalHandler previous = ecs::set_refusal_handler([](const char*) { ++refusals; });
    q.each([&](ecs::Entity e, void* const*) { w.add(e, QeVelocity{}); });
    ecs::set_refusal_handler(previous);
    CHECK(refusals == 2);
    CHECK_FALSE(w.has<QeVelocity>(a));
#endif
    CHECK(w.check_invariants());
}

TEST_CASE("query_expr: writable terms count as changes, [in] terms do not", "[query_expr]") {
    ecs::World w;
    w.track_changes<QePosition>();
    const ecs::Entity a = w.create_with(QePosition{});
    auto changed = w.query<const QePosition>(ecs::Changed<QePosition>{});
    size_t seen = 0;
    changed.each([&](const QePosition&) { ++seen; });
    CHECK(seen == 1);
    ecs::DynamicQuery in = ecs::query_expr(w, "[in] QePosition");
    ecs::DynamicQuery write = ecs::query_expr(w, "QePosition");
    run(in);
    seen = 0;
    changed.each([&](const QePosition&) { ++seen; });
    CHECK(seen == 0);
    run(write);
    seen = 0;
    changed.each([&](ecs::Entity e, const QePosition&) {
        CHECK(e == a);
        ++seen;
    });
    CHECK(seen == 1);
}

TEST_CASE("query_expr: counted lifetimes are left alone", "[query_expr]") {
    ecs_test::reset_life();
    {
        ecs::World w;
        for (int i = 0; i < 50; ++i) {
            const ecs::Entity e = w.create_with(ecs_test::Counted{i}, QePosition{});
            if (i % 3 == 0) w.add(e, QeMark{i});
        }
        const long constructed = ecs_test::life().constructed;
        const long destroyed = ecs_test::life().destroyed;
        for (const char* text : {"ecs_test::Counted", "?ecs_test::Counted, QeMark", "QePosition, !ecs_test::Counted",
                                 "ecs_test::Counted(self|up Parent)", "ecs_test::Counted|QeMark", "nonsense((("}) {
            ecs::DynamicQuery q = ecs::query_expr(w, text);
            int sum = 0;
            const bool counted_first = q && q.terms()[0].id == ecs::component_id<ecs_test::Counted>() && q.terms()[0].value == 0;
            q.each([&](ecs::Entity, void* const* v) {
                if (counted_first && v[0] != nullptr) sum += static_cast<const ecs_test::Counted*>(v[0])->value;
            });
            if (counted_first && q.terms()[0].kind == ecs::TermKind::with) CHECK(sum == 50 * 49 / 2);
            (void)q.count();
        }
        CHECK(ecs_test::life().constructed == constructed);
        CHECK(ecs_test::life().destroyed == destroyed);
    }
    CHECK(ecs_test::life().alive() == 0);
    CHECK(ecs_test::life().bad_destroys == 0);
    CHECK(ecs_test::life().live.empty());
}

TEST_CASE("query_expr: with a row filter, only the rows that pass are stamped changed", "[query_expr]") {
    ecs::World w;
    w.track_changes<QePosition>();
    const ecs::Entity a = w.create_with(QePosition{}, QeHealth{});
    const ecs::Entity b = w.create_with(QePosition{}, QeHealth{});
    w.add(a, QePlayer{});
    w.add(b, QeEnemy{});
    w.disable<QeEnemy>(b); // b fails the any-of below
    auto changed = w.query<const QePosition>(ecs::Changed<QePosition>{});
    changed.each([](const QePosition&) {});
    ecs::DynamicQuery q = ecs::query_expr(w, "QePosition, QePlayer|QeEnemy");
    CHECK(entities_of(run(q)) == std::vector<ecs::Entity>{a});
    std::vector<ecs::Entity> seen;
    changed.each([&](ecs::Entity e, const QePosition&) { seen.push_back(e); });
    CHECK(seen == std::vector<ecs::Entity>{a});
}
