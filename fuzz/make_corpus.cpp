// Regenerates the seed corpus committed under fuzz/corpus/:  fuzz_make_corpus <path to fuzz/corpus>
//   fuzz_deserialize/  snapshots of small worlds using every model kind (see tests/test_model.cpp), in
//                      format 2 (with resources) and, as *_v1.bin, in format 1 (no checksum: mutations
//                      reach the parser directly; fuzz_deserialize also repairs the checksums of format 2)
//                      plus change_*.bin: change streams against make_change_base (change_base.hpp),
//                      which fuzz_deserialize applies with apply_changes (and merge-loads the snapshots)
//   fuzz_ops/          deterministic pseudo-random byte strings, one per hook set-up (first byte % 4)
#define ECS_MODEL_NO_TESTS
#include "../tests/test_model.cpp"
#include "change_base.hpp"
#include "fuzz_resources.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace {

bool write_file(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return static_cast<bool>(out);
}

std::string snapshot(const ecs::World& w) {
    std::ostringstream out;
    ecs::serialize(w, out);
    return out.str();
}

std::string snapshot_v1(const ecs::World& w) {
    std::ostringstream out;
    ecs::detail::write_snapshot(w, out, 1);
    return out.str();
}

/// Both formats of `w`: <name>.bin (format 2) and <name>_v1.bin.
bool write_snapshots(const std::string& dir, const std::string& name, const ecs::World& w) {
    return write_file(dir + "/" + name + ".bin", snapshot(w)) &&
           write_file(dir + "/" + name + "_v1.bin", snapshot_v1(w));
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <fuzz/corpus directory>\n", argv[0]);
        return 2;
    }
    const std::string root = argv[1];
    register_model_components();
    register_fuzz_resources();
    bool ok = true;
    const std::string snapshots = root + "/fuzz_deserialize";

    {
        ecs::World empty;
        ok &= write_snapshots(snapshots, "empty", empty);
    }
    {
        // Every kind, short and long strings, dead slots (free list), a small hierarchy.
        ecs::World w;
        std::vector<ecs::Entity> es;
        es.push_back(w.create());
        es.push_back(w.create_with(std::string("ab"), ModelPod{7, 3.5f}));
        es.push_back(w.create_with(std::string(40, 'L') + "x", ModelTag{}, ModelEmptyCounted{}));
        es.push_back(w.create_with(ModelMoveOnly(5), ModelAligned(6), ModelNoDefault(8)));
        es.push_back(w.create_with(Traits<ModelBig>::make(9), ModelPod{9, 4.5f}));
        es.push_back(w.create_with(ModelPod{1, 0.5f}));
        es.push_back(w.create_with(ModelPod{2, 1.0f}));
        w.destroy(es[5]);
        w.destroy(es[0]);
        ecs::set_parent(w, es[2], es[1]);
        ecs::set_parent(w, es[3], es[1]);
        ecs::set_parent(w, es[4], es[3]);
        w.set_resource(FuzzClock{42, 0.5f});
        w.set_resource(FuzzLabel{"ab"});
        ok &= write_snapshots(snapshots, "all_kinds", w);
    }
    {
        // Trivially copyable columns only (written as whole blocks).
        ecs::World w;
        for (int i = 0; i < 5; ++i) (void)w.create_with(ModelPod{i, 0.5f * static_cast<float>(i)}, ModelTag{});
        ok &= write_snapshots(snapshots, "pods", w);
    }
    {
        // Change streams: values, structure (create, destroy, add, remove, names, hierarchy), both.
        for (int variant = 0; variant < 3; ++variant) {
            ecs::World w;
            std::vector<ecs::Entity> es = make_change_sender(w);
            const uint32_t since = w.change_tick();
            if (variant != 1) {
                w.get<ModelPod>(es[0]).v = 100;
                w.get<std::string>(es[4]) = std::string(60, 'Z');
                w.get<ModelMoveOnly>(es[6]) = ModelMoveOnly(66);
            }
            if (variant != 0) {
                const ecs::Entity fresh = w.create_with(ModelPod{50, 5.0f}, ModelNoDefault(3), std::string("new"));
                w.destroy(es[5]);
                w.add(es[8], ModelTag{});
                w.remove<ModelPod>(es[9]);
                w.set_name(fresh, "fresh");
                ecs::set_parent(w, fresh, es[1]);
            }
            std::ostringstream out;
            ecs::serialize_changes(w, since, out);
            ok &= write_file(snapshots + "/change_" + std::to_string(variant) + ".bin", out.str());
        }
    }
    {
        uint64_t state = 0x2545F4914F6CDD1Dull;
        const size_t lengths[] = {16, 64, 256, 1024, 4096};
        int n = 0;
        for (size_t length : lengths) {
            std::string bytes(length, '\0');
            for (char& c : bytes) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                c = static_cast<char>(state & 0xFF);
            }
            bytes[0] = static_cast<char>(n % 4); // hook set-up
            ok &= write_file(root + "/fuzz_ops/random_" + std::to_string(length) + ".bin", bytes);
            ++n;
        }
    }
    if (!ok) std::fprintf(stderr, "fuzz_make_corpus: could not write the corpus under %s\n", root.c_str());
    return ok ? 0 : 1;
}
