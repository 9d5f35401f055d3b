// The world change-stream seeds are made against (fuzz/make_corpus.cpp) and fuzz_deserialize applies
// them to: built the same way in both, so a seed's handles and values fit the target world exactly.
// Include after tests/test_model.cpp (its model kinds).
#pragma once

#include <sstream>
#include <string>
#include <vector>

/// A small world of model kinds with tracked types, names, a hierarchy and dead slots.
inline std::vector<ecs::Entity> make_change_base(ecs::World& w) {
    w.track_changes<ModelPod>();
    w.track_changes<std::string>();
    w.track_changes<ModelMoveOnly>();
    std::vector<ecs::Entity> es;
    for (int i = 0; i < 10; ++i) {
        ecs::Entity e = w.create_with(ModelPod{i, 0.25f * float(i)}, std::string(size_t(i) * 5, char('a' + i)));
        if (i % 3 == 0) w.add(e, ModelMoveOnly(i));
        if (i % 4 == 1) w.add(e, ModelTag{});
        es.push_back(e);
    }
    w.destroy(es[7]);
    w.destroy(es[2]);
    ecs::set_parent(w, es[3], es[0]);
    w.set_name(es[1], "base.one");
    return es;
}

/// The world as a change stream's receiver holds it: the base, with the sender's first tick closed.
inline std::vector<ecs::Entity> make_change_sender(ecs::World& w) {
    std::vector<ecs::Entity> es = make_change_base(w);
    std::ostringstream discard;
    ecs::serialize_changes(w, 0, discard); // closes the tick the base was built in
    return es;
}
