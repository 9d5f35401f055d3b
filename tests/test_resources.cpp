// Singleton resources (SPEC §3.7): insert, overwrite, access, removal and lifetimes, counted.
#include <ecs/world.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "catch.hpp"
#include "lifetime.hpp"

using ecs::Entity;
using ecs::World;

namespace {

struct DeltaTime {
    float seconds = 0.f;
};
struct Gravity {
    int g = 0;
};

struct ResTag {};
using Res = lifetime::Counted<ResTag>;
struct OtherTag {};
using Other = lifetime::Counted<OtherTag>;

struct alignas(64) WideRes {
    explicit WideRes(int v) : value(v) {}
    int value;
    float lanes[15] = {};
};
struct alignas(128) WiderRes {
    explicit WiderRes(int v) : value(v) {}
    int value;
};

} // namespace

TEST_CASE("resources: set, get, try, has and remove", "[resources]") {
    World w;
    CHECK_FALSE(w.has_resource<DeltaTime>());
    CHECK(w.try_resource<DeltaTime>() == nullptr);

    w.set_resource(DeltaTime{0.5f});
    REQUIRE(w.has_resource<DeltaTime>());
    CHECK(w.resource<DeltaTime>().seconds == 0.5f);
    REQUIRE(w.try_resource<DeltaTime>() != nullptr);
    CHECK(w.try_resource<DeltaTime>() == &w.resource<DeltaTime>());
    CHECK_FALSE(w.has_resource<Gravity>()); // another type is still absent

    w.resource<DeltaTime>().seconds = 0.25f; // a reference to the stored value
    CHECK(w.try_resource<DeltaTime>()->seconds == 0.25f);

    const World& cw = w;
    REQUIRE(cw.try_resource<DeltaTime>() != nullptr);
    CHECK(cw.try_resource<DeltaTime>()->seconds == 0.25f);
    CHECK(cw.has_resource<DeltaTime>());

    w.set_resource(Gravity{-10});
    CHECK(w.resource<Gravity>().g == -10);
    CHECK(w.resource<DeltaTime>().seconds == 0.25f);

    w.remove_resource<DeltaTime>();
    CHECK_FALSE(w.has_resource<DeltaTime>());
    CHECK(w.try_resource<DeltaTime>() == nullptr);
    CHECK(cw.try_resource<DeltaTime>() == nullptr);
    CHECK(w.resource<Gravity>().g == -10);

    w.set_resource(DeltaTime{2.f}); // set again after removal
    CHECK(w.resource<DeltaTime>().seconds == 2.f);
}

TEST_CASE("resources: absent resources: nullptr, has false, remove is a no-op", "[resources]") {
    Res::reset();
    {
        World w;
        struct NeverSet {
            int x;
        };
        CHECK(w.try_resource<NeverSet>() == nullptr);
        CHECK_FALSE(w.has_resource<NeverSet>());
        w.remove_resource<NeverSet>();
        w.remove_resource<NeverSet>();
        CHECK_FALSE(w.has_resource<NeverSet>());

        w.set_resource(Res{1});
        w.remove_resource<Res>();
        w.remove_resource<Res>(); // second removal: nothing left to destroy
        CHECK(Res::tally().destroyed == 2); // the temporary and the resource, once each
        CHECK(Res::tally().alive() == 0);
    }
    CHECK(Res::tally().clean());
}

TEST_CASE("resources: overwriting destroys the old value exactly once", "[resources]") {
    Res::reset();
    {
        World w;
        w.set_resource(Res{1});
        CHECK(Res::tally().alive() == 1);
        const long destroyed = Res::tally().destroyed;
        w.set_resource(Res{2});
        // The temporary Res{2} and the old resource are gone; one resource lives.
        CHECK(Res::tally().destroyed - destroyed == 2);
        CHECK(Res::tally().alive() == 1);
        CHECK(w.resource<Res>().value() == 2);
        for (int i = 3; i < 50; ++i) w.set_resource(Res{i});
        CHECK(Res::tally().alive() == 1);
        CHECK(w.resource<Res>().value() == 49);
        CHECK(Res::tally().bad_destroys == 0);
    }
    CHECK(Res::tally().clean());
}

TEST_CASE("resources: removal destroys the value", "[resources]") {
    Res::reset();
    Other::reset();
    {
        World w;
        w.set_resource(Res{1});
        w.set_resource(Other{2});
        CHECK(Res::tally().alive() == 1);
        w.remove_resource<Res>();
        CHECK(Res::tally().alive() == 0);
        CHECK(Other::tally().alive() == 1); // the other resource is untouched
        CHECK(w.resource<Other>().value() == 2);
    }
    CHECK(Res::tally().clean());
    CHECK(Other::tally().clean());
}

TEST_CASE("resources: resources are destroyed with the world", "[resources]") {
    Res::reset();
    Other::reset();
    {
        World w;
        w.set_resource(Res{1});
        w.set_resource(Other{2});
        w.set_resource(std::string(100, 'x')); // heap-owning: LSan reports it if leaked
        w.set_resource(std::make_unique<Res>(3));
        CHECK(Res::tally().alive() == 2);
        CHECK(Other::tally().alive() == 1);
    }
    CHECK(Res::tally().clean());
    CHECK(Other::tally().clean());
}

TEST_CASE("resources: a world moved from or assigned over destroys its resources once", "[resources]") {
    Res::reset();
    SECTION("move construction carries the resources") {
        {
            World a;
            a.set_resource(Res{1});
            World b(std::move(a));
            CHECK(Res::tally().alive() == 1);
            REQUIRE(b.has_resource<Res>());
            CHECK(b.resource<Res>().value() == 1);
        }
        CHECK(Res::tally().clean());
    }
    SECTION("move assignment destroys the target's resources and takes the source's") {
        {
            World a;
            World b;
            a.set_resource(Res{1});
            b.set_resource(Res{2});
            b.set_resource(Gravity{7});
            b = std::move(a);
            CHECK(Res::tally().alive() == 1); // b's old Res is gone
            REQUIRE(b.has_resource<Res>());
            CHECK(b.resource<Res>().value() == 1);
            CHECK_FALSE(b.has_resource<Gravity>());
        }
        CHECK(Res::tally().clean());
    }
}

TEST_CASE("resources: a type can be a component and a resource at the same time", "[resources]") {
    Res::reset();
    {
        World w;
        const Entity e1 = w.create_with(Gravity{1});
        const Entity e2 = w.create_with(Gravity{2}, Res{20});
        w.set_resource(Gravity{100});
        w.set_resource(Res{200});

        CHECK(w.get<Gravity>(e1).g == 1);
        CHECK(w.get<Gravity>(e2).g == 2);
        CHECK(w.resource<Gravity>().g == 100);
        CHECK(w.resource<Res>().value() == 200);
        CHECK(w.get<Res>(e2).value() == 20);
        CHECK(w.count<Gravity>() == 2); // the resource is not an entity
        CHECK(w.count() == 2);

        w.resource<Gravity>().g = 101;
        w.get<Gravity>(e1).g = 11;
        CHECK(w.resource<Gravity>().g == 101);
        CHECK(w.get<Gravity>(e1).g == 11);

        w.remove<Gravity>(e1);
        CHECK(w.has_resource<Gravity>());
        w.remove_resource<Res>();
        REQUIRE(w.has<Res>(e2));
        CHECK(w.get<Res>(e2).value() == 20);
        w.destroy(e2);
        CHECK(Res::tally().alive() == 0);
        CHECK(w.resource<Gravity>().g == 101);
        CHECK(w.check_invariants());
    }
    CHECK(Res::tally().clean());
}

TEST_CASE("resources: over-aligned resources are stored aligned", "[resources]") {
    World w;
    w.set_resource(WideRes{1});
    w.set_resource(WiderRes{2});
    CHECK(reinterpret_cast<uintptr_t>(&w.resource<WideRes>()) % 64 == 0);
    CHECK(reinterpret_cast<uintptr_t>(&w.resource<WiderRes>()) % 128 == 0);
    CHECK(w.resource<WideRes>().value == 1);
    CHECK(w.resource<WiderRes>().value == 2);
    w.set_resource(WideRes{3}); // overwrite in place
    CHECK(reinterpret_cast<uintptr_t>(&w.resource<WideRes>()) % 64 == 0);
    CHECK(w.resource<WideRes>().value == 3);
    w.remove_resource<WiderRes>();
    w.set_resource(WiderRes{4}); // a fresh allocation
    CHECK(reinterpret_cast<uintptr_t>(&w.resource<WiderRes>()) % 128 == 0);
    CHECK(w.resource<WiderRes>().value == 4);
}

TEST_CASE("resources: move-only resources", "[resources]") {
    Res::reset();
    {
        World w;
        auto p = std::make_unique<Res>(5);
        w.set_resource(std::move(p));
        CHECK(p == nullptr);
        REQUIRE(w.has_resource<std::unique_ptr<Res>>());
        CHECK(w.resource<std::unique_ptr<Res>>()->value() == 5);
        w.set_resource(std::make_unique<Res>(6)); // overwrite: the first Res dies
        CHECK(Res::tally().alive() == 1);
        CHECK(w.resource<std::unique_ptr<Res>>()->value() == 6);
    }
    CHECK(Res::tally().clean());
}

TEST_CASE("resources: set_resource from an lvalue copies it", "[resources]") {
    Res::reset();
    {
        World w;
        Res local{7};
        w.set_resource(local);
        CHECK(local.value() == 7); // not moved from
        CHECK(Res::tally().copies == 1);
        CHECK(&w.resource<Res>() != &local);
        w.resource<Res>() = Res{8};
        CHECK(local.value() == 7);

        const std::string text = "short";
        w.set_resource(text);
        CHECK(text == "short");
        CHECK(w.resource<std::string>() == "short");
    }
    CHECK(Res::tally().clean());
}

TEST_CASE("resources: set_resource(world.resource<T>()) replaces a resource with a copy of itself", "[resources]") {
    Res::reset();
    {
        World w;
        w.set_resource(Res{9});
        w.set_resource(w.resource<Res>());
        CHECK(w.resource<Res>().value() == 9);
        CHECK(Res::tally().alive() == 1);
        CHECK(Res::tally().bad_destroys == 0);
        CHECK(Res::tally().bad_reads == 0);

        w.set_resource(std::string("sso"));
        w.set_resource(w.resource<std::string>());
        CHECK(w.resource<std::string>() == "sso");
        w.set_resource(std::string(64, 'L'));
        w.set_resource(w.resource<std::string>());
        CHECK(w.resource<std::string>() == std::string(64, 'L'));

        const World& cw = w;
        w.set_resource(*cw.try_resource<Res>()); // through a const lvalue
        CHECK(w.resource<Res>().value() == 9);
    }
    CHECK(Res::tally().clean());
}

TEST_CASE("resources: set_resource(std::move(world.resource<T>())) keeps the value in place", "[resources]") {
    Res::reset();
    {
        World w;
        w.set_resource(Res{4});
        w.set_resource(std::move(w.resource<Res>())); // the old value is the argument: nothing to replace
        CHECK(w.resource<Res>().value() == 4);
        CHECK(Res::tally().alive() == 1);
        CHECK(Res::tally().bad_destroys == 0);
        CHECK(Res::tally().bad_reads == 0);
        w.set_resource(std::string(64, 'M'));
        w.set_resource(std::move(w.resource<std::string>()));
        CHECK(w.resource<std::string>() == std::string(64, 'M'));
    }
    CHECK(Res::tally().clean());
}

TEST_CASE("resources: const-qualified access names the same resource", "[resources]") {
    World w;
    w.set_resource(Gravity{3});
    CHECK(w.try_resource<const Gravity>() == w.try_resource<Gravity>());
    CHECK(w.has_resource<const Gravity>());
    CHECK(w.resource<const Gravity>().g == 3);
}

TEST_CASE("resources: set, read and remove during iteration (not structural changes)", "[resources]") {
    World w;
    for (int i = 0; i < 3; ++i) (void)w.create_with(DeltaTime{float(i)});
    int visits = 0;
    w.each<DeltaTime>([&](Entity, DeltaTime& dt) {
        ++visits;
        const int so_far = w.has_resource<Gravity>() ? w.resource<Gravity>().g : 0;
        w.set_resource(Gravity{so_far + 1});
        w.set_resource(DeltaTime{dt.seconds}); // same type as the component being iterated
        if (visits == 2) w.remove_resource<DeltaTime>();
    });
    CHECK(visits == 3);
    REQUIRE(w.has_resource<Gravity>());
    CHECK(w.resource<Gravity>().g == 3);
    REQUIRE(w.has_resource<DeltaTime>());
    CHECK(w.resource<DeltaTime>().seconds == 2.f); // written by the last visit, after the removal
    CHECK(w.count<DeltaTime>() == 3);
}

TEST_CASE("resources: copy_from a world that never held a resource drops the copyable ones and keeps the others", "[resources]") {
    Res::reset();
    {
        World empty; // its resource room was never made
        World w;
        w.set_resource(Res(7));
        w.set_resource(std::make_unique<Res>(8)); // not copyable: copy_from leaves it alone
        w.set_resource(Gravity{3});
        REQUIRE(Res::tally().alive() == 2);

        w.copy_from(empty);
        CHECK_FALSE(w.has_resource<Res>());
        CHECK_FALSE(w.has_resource<Gravity>());
        REQUIRE(w.has_resource<std::unique_ptr<Res>>());
        CHECK(w.resource<std::unique_ptr<Res>>()->value() == 8);
        CHECK(Res::tally().alive() == 1);

        World fresh; // neither side made the room: nothing to do, nothing made
        fresh.copy_from(empty);
        CHECK_FALSE(fresh.has_resource<Res>());
        fresh.remove_resource<Res>(); // removing from a world without resources is a no-op
        CHECK(fresh.try_resource<Gravity>() == nullptr);

        empty.copy_from(w); // the other way: the copyable ones would be copied; here none is left
        CHECK_FALSE(empty.has_resource<Res>());
        CHECK_FALSE(empty.has_resource<std::unique_ptr<Res>>());
        w.set_resource(Res(9));
        empty.copy_from(w);
        REQUIRE(empty.has_resource<Res>());
        CHECK(empty.resource<Res>().value() == 9);
        CHECK(Res::tally().alive() == 3);
    }
    CHECK(Res::tally().clean());
}
