/**
 * @file ecs/detail/relation_snapshot.hpp
 * @brief Relationship pairs in snapshots, and `ecs::register_relation<R>(name)`.
 *
 * The "RELS" section's writer (plan_relation_section, write_relation_section, called by
 * write_snapshot) and reader (read_relation_section, check_relation_tags, install_relations, called
 * by the SnapshotLoader). Include <ecs/serialization.hpp>.
 *
 * Names. A relationship type R is named by R's component name: `register_relation<R>(name)`, or
 * `register_component<R>(name)` (R is an empty struct: a tag). The tag a source carries,
 * `detail::HasRelation<R>`, then appears in archetype blocks as the component `ecs::Related<name>`;
 * it is named automatically (sync_relation_tags) when a snapshot is written or read.
 *
 * Format (version 2 only). When the world holds pairs, the body gets an extension section (see
 * snapshot_sections.hpp: 4-byte tag, u64 payload length, payload) tagged "RELS"; a world without pairs
 * writes none. Payload:
 *
 *     u32 relationship type count
 *     per type:     u32 name length, name bytes (R's component name), u32 pair count,
 *                   per pair: u32 source index, u32 source generation, u32 target index,
 *                             u32 target generation, u32 the source's position among the target's sources
 *
 * Pairs are listed source by source (slot order), each source's targets in the order of relating;
 * the positions restore each target's list of sources exactly, so each_source visits in the same
 * order after a round trip. Every count is checked against the bytes left before anything is
 * allocated for it. Refused (the world is left untouched): a name no relationship type answers to
 * (unknown_relation), a pair naming an entity not alive in the snapshot (dangling_relation), a pair
 * listed twice, two targets of an exclusive type, positions that are not 0..k-1 once per target, a
 * HasRelation tag on an entity without pairs or pairs of an entity without the tag (bad_relation).
 * Readers built before extension sections existed refuse a snapshot holding pairs (bytes after the
 * resource table); readers with sections but without "RELS" refuse it as bad_section.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../archetype.hpp"
#include "../component.hpp"
#include "../entity.hpp"
#include "../relation.hpp"
#include "../world.hpp"
#include "algorithms.hpp"
#include "component_registry.hpp"
#include "snapshot_io.hpp"
#include "snapshot_registry.hpp"

namespace ecs {

namespace detail {

/// The pairs of one relationship type read from a snapshot, installed by SnapshotLoader::commit().
struct PendingRelation {
    const RelationTypeInfo* info = nullptr;
    std::vector<Entity> sources;
    std::vector<Entity> targets;
    std::vector<uint32_t> positions; ///< each source's place among its target's sources
};
/// What write_snapshot writes of the relationships: the types holding pairs, with their names.
template <class = void>
struct RelationSectionPlan {
    const World* world = nullptr;
    std::vector<std::pair<const RelationIndex*, const ComponentRegistration*>> items;
    uint64_t payload = 0;
    /// Bytes of the trailing sections (0 without pairs: nothing is written).
    [[nodiscard]] uint64_t bytes() const noexcept { return items.empty() ? 0 : 4 + 8 + payload; } // "RELS" section
};

/// The component name of HasRelation<R> in snapshots, from R's name.
template <class = void>
inline std::string relation_tag_name(const std::string& relation_name) { return "ecs::Related<" + relation_name + ">"; }

/// Names the HasRelation tag of every relationship type whose R is registered.
template <class = void>
inline void sync_relation_tags() {
    each_relation_type([](const RelationTypeInfo& info) {
        const ComponentRegistration* named = component_registry().find(info.relation);
        if (named == nullptr || component_registry().find(info.marker) != nullptr) return;
        ComponentRegistration entry;
        entry.name = relation_tag_name(named->name);
        if (entry.name.size() > MAX_COMPONENT_NAME_LENGTH) return; // stays unnamed: serialize refuses
        if (component_registry().add(info.marker, std::move(entry)) == ComponentRegistry::Outcome::added)
            if (const ComponentRegistration* added = component_registry().find(info.marker))
                set_component_name(info.marker, added->name);
    });
}

/// Collects the relationship types of `world` holding pairs; false (asserted) when one has no name.
template <class = void>
inline bool plan_relation_section(const World& world, RelationSectionPlan<>& plan) {
    sync_relation_tags();
    plan.world = &world;
    plan.items.clear();
    plan.payload = 4; // type count
    bool named = true;
    WorldAccess::relations(world).each_index([&](const RelationIndex& index) {
        if (!named || index.pairs() == 0) return;
        const ComponentRegistration* reg = component_registry().find(index.info().relation);
        const std::string_view type = index.info().type_name;
        named = ECS_CHECK(reg != nullptr, format_message("serialize: relationship type %.*s holds pairs but has no name "
                                                         "(call ecs::register_relation<R>(name) first)",
                                                         static_cast<int>(type.size()), type.data()));
        if (!named) return;
        plan.items.emplace_back(&index, reg);
        plan.payload += 4 + uint64_t(reg->name.size()) + 4 + uint64_t(index.pairs()) * 20;
    });
    if (!named) plan.items.clear();
    return named;
}

/// Writes the "RELS" section of `plan` (nothing without pairs).
template <class = void>
inline void write_relation_section(const RelationSectionPlan<>& plan, SnapshotWriter<>& w) {
    if (plan.items.empty()) return;
    w.raw("RELS", 4); // an extension section: tag, payload length, payload
    w.u64(plan.payload);
    w.u32(static_cast<uint32_t>(plan.items.size()));
    uint32_t buffer[1000]; // 200 pairs
    for (const auto& item : plan.items) {
        const RelationIndex& index = *item.first;
        const std::string& name = item.second->name;
        w.u32(static_cast<uint32_t>(name.size()));
        w.raw(name.data(), name.size());
        w.u32(static_cast<uint32_t>(index.pairs()));
        size_t used = 0;
        for (uint32_t slot = 0; slot < index.slots(); ++slot) {
            const LinkList& targets = *index.targets_of(slot);
            for (uint32_t k = 0; k < targets.size(); ++k) {
                if (used == 1000) {
                    w.u32_array(buffer, used);
                    used = 0;
                }
                buffer[used++] = slot;
                buffer[used++] = WorldAccess::generation(*plan.world, slot);
                buffer[used++] = targets[k].other.index;
                buffer[used++] = targets[k].other.generation;
                buffer[used++] = targets[k].mirror;
            }
        }
        w.u32_array(buffer, used);
    }
}


/// Reads one relationship type's pairs (the payload's inner loop) into `out`, checked.
template <class = void>
inline bool read_relation_pairs(SnapshotReader<>& in, uint64_t end, const std::vector<uint8_t>& slot_states, uint8_t live_state,
                                const std::vector<uint32_t>& generations, std::vector<PendingRelation>& out,
                                DeserializeResult& result) {
    const uint64_t name_at = in.offset();
    uint32_t length = 0;
    if (!in.u32(length) || in.offset() > end)
        return load_failure(result, DeserializeError::truncated, name_at, "snapshot truncated: missing relationship name");
    if (length == 0 || length > MAX_COMPONENT_NAME_LENGTH)
        return load_failure(result, DeserializeError::bad_name, name_at,
                             "relationship name length " + std::to_string(length) + " is 0 or above MAX_COMPONENT_NAME_LENGTH");
    if (uint64_t(length) + 4 > end - in.offset())
        return load_failure(result, DeserializeError::truncated, name_at, "snapshot truncated: relationship name cut short");
    std::string name(length, '\0');
    if (!in.raw(&name[0], length))
        return load_failure(result, DeserializeError::truncated, name_at, "snapshot truncated: relationship name cut short");
    ComponentTypeID id = INVALID_COMPONENT_ID;
    const RelationTypeInfo* info = nullptr;
    if (component_registry().find(name, id) != nullptr)
        each_relation_type([&](const RelationTypeInfo& t) {
            if (t.relation == id) info = &t;
        });
    if (info == nullptr)
        return load_failure(result, DeserializeError::unknown_relation, name_at,
                             "unknown relationship name \"" + name + "\" (register_relation<R>(name))");
    for (const PendingRelation& p : out)
        if (p.info == info)
            return load_failure(result, DeserializeError::bad_relation, name_at, "relationship \"" + name + "\" listed twice");

    const uint64_t count_at = in.offset();
    uint32_t pairs = 0;
    if (!in.u32(pairs))
        return load_failure(result, DeserializeError::truncated, count_at, "snapshot truncated: missing pair count");
    if (uint64_t(pairs) * 20 > end - in.offset())
        return load_failure(result, DeserializeError::truncated, count_at,
                             "snapshot truncated: pair count needs more bytes than the section holds");
    const uint64_t pairs_at = in.offset();
    std::vector<uint32_t> raw(size_t(pairs) * 5); // bounded: 20 bytes per pair are in the input
    if (!in.u32_array(raw.data(), raw.size()))
        return load_failure(result, DeserializeError::truncated, pairs_at, "snapshot truncated: pairs cut short");

    PendingRelation pending;
    pending.info = info;
    pending.sources.resize(pairs);
    pending.targets.resize(pairs);
    pending.positions.resize(pairs);
    const size_t slots = slot_states.size();
    std::vector<uint32_t> targets_of(slots, 0);
    std::vector<uint32_t> sources_of(slots, 0);
    auto live = [&](Entity e) { return e.index < slots && slot_states[e.index] == live_state && generations[e.index] == e.generation; };
    for (uint32_t i = 0; i < pairs; ++i) {
        const uint32_t* p = raw.data() + size_t(i) * 5;
        const Entity source{p[0], p[1]};
        const Entity target{p[2], p[3]};
        const uint64_t at = pairs_at + uint64_t(i) * 20;
        if (!live(source) || !live(target))
            return load_failure(result, DeserializeError::dangling_relation, at,
                                 "relationship \"" + name + "\": pair " + std::to_string(i) + " names an entity that is not alive");
        pending.sources[i] = source;
        pending.targets[i] = target;
        pending.positions[i] = p[4];
        if (++targets_of[source.index] > 1 && info->exclusive)
            return load_failure(result, DeserializeError::bad_relation, at,
                                 "relationship \"" + name + "\" is exclusive but a source has several targets");
        ++sources_of[target.index];
    }
    // Listed twice, and positions 0..k-1 once per target: two sorts of the pair numbers.
    std::vector<uint32_t> order(pairs);
    for (uint32_t i = 0; i < pairs; ++i) order[i] = i;
    auto by_pair = [&](uint32_t a, uint32_t b) {
        const Entity sa = pending.sources[a], sb = pending.sources[b], ta = pending.targets[a], tb = pending.targets[b];
        return sa.index != sb.index ? sa.index < sb.index : ta.index < tb.index;
    };
    sort_values(order.begin(), order.end(), by_pair);
    for (uint32_t i = 1; i < pairs; ++i)
        if (!by_pair(order[i - 1], order[i]))
            return load_failure(result, DeserializeError::bad_relation, pairs_at, "relationship \"" + name + "\" lists a pair twice");
    auto by_place = [&](uint32_t a, uint32_t b) {
        const uint32_t ta = pending.targets[a].index, tb = pending.targets[b].index;
        return ta != tb ? ta < tb : pending.positions[a] < pending.positions[b];
    };
    sort_values(order.begin(), order.end(), by_place);
    for (uint32_t i = 0; i < pairs; ++i) {
        const uint32_t pair = order[i];
        const bool first_of_target = i == 0 || pending.targets[order[i - 1]].index != pending.targets[pair].index;
        const uint32_t expected = first_of_target ? 0 : pending.positions[order[i - 1]] + 1;
        if (pending.positions[pair] != expected || pending.positions[pair] >= sources_of[pending.targets[pair].index])
            return load_failure(result, DeserializeError::bad_relation, pairs_at + uint64_t(pair) * 20 + 16,
                                 "relationship \"" + name + "\": the positions of a target's sources are not 0..k-1");
    }
    out.push_back(std::move(pending));
    return true;
}

/// The payload of a "RELS" extension section (`bytes` long, the reader at its start): every
/// relationship type's pairs. Read once per snapshot (the loader refuses a repeated section).
template <class = void>
inline bool read_relation_section(SnapshotReader<>& in, uint64_t bytes, const std::vector<uint8_t>& slot_states, uint8_t live_state,
                                  const std::vector<uint32_t>& generations, std::vector<PendingRelation>& out,
                                  DeserializeResult& result) {
    const uint64_t section_at = in.offset();
    const uint64_t end = section_at + bytes;
    uint32_t types = 0;
    if (bytes < 4 || !in.u32(types))
        return load_failure(result, DeserializeError::truncated, section_at, "snapshot truncated: missing relationship count");
    if (uint64_t(types) * 12 > end - in.offset())
        return load_failure(result, DeserializeError::truncated, section_at,
                             "snapshot truncated: relationship count needs more bytes than the section holds");
    for (uint32_t t = 0; t < types; ++t)
        if (!read_relation_pairs(in, end, slot_states, live_state, generations, out, result)) return false;
    if (in.offset() != end)
        return load_failure(result, DeserializeError::bad_relation, in.offset(),
                             "section RELS holds " + std::to_string(end - in.offset()) + " bytes more than its pairs");
    return true;
}

/// Checks the HasRelation tags of the loaded archetypes against the pairs read.
template <class = void>
inline bool check_relation_tags(const std::vector<Archetype*>& filled, size_t slot_count,
                                const std::vector<PendingRelation>& pending, DeserializeResult& result) {
    // Every HasRelation tag in the loaded archetypes belongs to a relationship type with pairs...
    for (const Archetype* arch : filled)
        for (ComponentTypeID id : arch->types) {
            const RelationTypeInfo* info = relation_type_of_marker(id);
            if (info == nullptr) continue;
            bool listed = false;
            for (const PendingRelation& p : pending) listed = listed || p.info == info;
            if (!listed)
                return load_failure(result, DeserializeError::bad_relation, 0,
                                     "entities carry the tag of relationship " + std::string(info->type_name) + " but it has no pairs");
        }
    // ...and an entity carries the tag of a type exactly when it is a source of that type.
    std::vector<uint8_t> source(slot_count);
    for (const PendingRelation& p : pending) {
        for (uint8_t& flag : source) flag = 0;
        size_t sources = 0;
        for (const Entity e : p.sources) {
            if (source[e.index] == 0) ++sources;
            source[e.index] = 1;
        }
        size_t tagged = 0;
        for (const Archetype* arch : filled) {
            if (!arch->has(p.info->marker)) continue;
            for (const Entity e : arch->entities) {
                if (source[e.index] == 0)
                    return load_failure(result, DeserializeError::bad_relation, 0,
                                         "entity " + std::to_string(e.index) + " carries the tag of relationship " +
                                             std::string(p.info->type_name) + " without a pair");
                ++tagged;
            }
        }
        if (tagged != sources)
            return load_failure(result, DeserializeError::bad_relation, 0,
                                 "sources of relationship " + std::string(p.info->type_name) + " lack its tag");
    }
    return true;
}

/// Installs the pairs read into the world's relationship indexes (SnapshotLoader::commit()).
template <class = void>
inline void install_relations(World& world, const std::vector<PendingRelation>& pending) {
    Relations& relations = WorldAccess::relations(world);
    for (const PendingRelation& p : pending)
        relations.install(relations.ensure(*p.info), p.sources.data(), p.targets.data(), p.positions.data(), p.sources.size());
}

} // namespace detail

/**
 * @brief Gives relationship type `R` the stable name `name`, so that snapshots save its pairs and
 *        restore them (the same as register_component<R>(name), which also works: R is a tag).
 * @pre As register_component: `name` unused by another type, `R` not registered under another name.
 * Thread-safe.
 */
template <typename R>
void register_relation(const char* name) {
    (void)detail::relation_info<R>(); // lists R (and its tag type) if it was not yet
    register_component<R>(name);
    detail::sync_relation_tags();
}

} // namespace ecs
