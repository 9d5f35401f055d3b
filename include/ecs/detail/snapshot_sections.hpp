/**
 * @file ecs/detail/snapshot_sections.hpp
 * @brief The extension sections at the end of a format 2 snapshot body: their framing, and
 *        SnapshotSections, which builds the "SPRS" and "ENBL" payloads before the body is written.
 *
 * Each extension section is
 *
 *     4-byte tag, u64 byte length, payload (exactly that many bytes)
 *
 * at most one per tag, after the resource table, in this order: "NAME" (entity names,
 * snapshot_names.hpp), "RELS" (relationship pairs, relation_snapshot.hpp), "SPRS" (sparse
 * components, snapshot_sparse.hpp) and "ENBL" (enable bits, snapshot_enable.hpp); "SPRS" must come
 * before "ENBL", whose component bits may name sparse values. An unknown tag is `bad_section`
 * (SnapshotLoader::read_section). A reader that finds the body ending after the resource table sees
 * no section: snapshots written before sections existed, and snapshots of worlds that use none of
 * them, are byte for byte what they were, and the format version stays 2. The body checksum covers
 * the sections like the rest of the body.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "../component.hpp"
#include "../world.hpp"
#include "snapshot_enable.hpp"
#include "snapshot_io.hpp"
#include "snapshot_sparse.hpp"

namespace ecs::detail {

/**
 * @brief The sections of one snapshot, built from a world before the body is written (their byte
 *        lengths are part of the body's length, which precedes the body).
 */
template <class = void>
struct SnapshotSections {
    SectionBytes<> sparse; ///< payload of "SPRS"; empty when no sparse component exists
    SectionBytes<> enable; ///< payload of "ENBL"; empty when nothing is disabled
    bool has_sparse = false;
    bool has_enable = false;

    /**
     * Builds every section `world` needs. `registration_of(id)` gives a component type's registration
     * (name, element_size, bulk, serialize). @return false when a serialize function set failbit.
     * @pre every component type present is registered.
     */
    template <typename RegistrationOf>
    bool build(const World& world, RegistrationOf&& registration_of) {
        if (!build_sparse_section(world, registration_of, sparse, has_sparse)) return false;
        build_enable_section(world, [&](ComponentTypeID id) -> const std::string& {
            static const std::string unregistered; // not reached: every type present is registered (@pre)
            const auto* reg = registration_of(id);
            return reg != nullptr ? reg->name : unregistered;
        }, enable, has_enable);
        return true;
    }
    /// Bytes the sections add to the body.
    [[nodiscard]] uint64_t bytes() const noexcept {
        return (has_sparse ? 12 + sparse.bytes.size() : 0) + (has_enable ? 12 + enable.bytes.size() : 0);
    }
    void write(SnapshotWriter<>& w) const {
        if (has_sparse) write_one(w, SECTION_SPARSE, sparse);
        if (has_enable) write_one(w, SECTION_ENABLE, enable);
    }

private:
    static void write_one(SnapshotWriter<>& w, uint32_t tag, const SectionBytes<>& payload) {
        w.u32(tag);
        w.u64(payload.bytes.size());
        w.raw(payload.bytes.data(), payload.bytes.size());
    }
};

} // namespace ecs::detail
