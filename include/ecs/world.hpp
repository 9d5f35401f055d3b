/**
 * @file ecs/world.hpp
 * @brief The World: the facade that ties the rooms together. Include this header (or ecs.hpp) to
 *        use a World; it brings the class and every file that holds its member bodies.
 *
 * A World owns one of each room and routes every call to them; the logic lives in the rooms:
 *
 * | room             | header                     | owns                                                |
 * |------------------|----------------------------|-----------------------------------------------------|
 * | entity index     | entity_index.hpp           | records (archetype, row, generation), free list     |
 * | archetype        | archetype.hpp              | one table's rows: growth, migration, swap-remove    |
 * | archetype graph  | archetype_graph.hpp        | every archetype, the type-set index, edges, packs   |
 * | query engine     | query.hpp                  | terms, filters, caches, chunks, handles, row loops  |
 * | observers        | observers.hpp              | on_add / on_remove / on_set hooks, query observers  |
 * | change detection | change_detection.hpp       | tick clock, per-archetype tick columns              |
 * | resources        | resources.hpp              | one value per type                                  |
 * | events           | events.hpp                 | event channels, readers                             |
 * | names            | names.hpp                  | entity names: name -> entity, entity -> name        |
 * | relations        | relation.hpp               | relationship pairs, both directions                 |
 * | entity events    | entity_events.hpp          | observers of events aimed at one entity, Propagation |
 * | sparse storage   | sparse.hpp                 | sparse sets for Storage::sparse types               |
 * | commands         | detail/command_queue.hpp   | the deferred queue's pages                          |
 *
 * World's own member bodies live in files named for their concern, under world/:
 *
 * | file                   | owns                                                                 |
 * |------------------------|----------------------------------------------------------------------|
 * | world/world_class.hpp  | `class World`: declarations and one-line forwards                    |
 * | world/lifecycle.hpp    | create, create_with, destroy and the rows they place or erase        |
 * | world/access.hpp       | has, get, try_get, each_component, names                             |
 * | world/structural.hpp   | the commit point; add, remove, emplace, multi-type and bulk changes  |
 * | world/queries.hpp      | count, single, each, query, each_par, sort                           |
 * | world/observing.hpp    | hook and query-observer registration, change detection, patch        |
 * | world/resources.hpp    | resources and events                                                 |
 * | world/relations.hpp    | relate, unrelate, targets and sources, destroy with pairs            |
 * | world/enable.hpp       | enable bits: disable / enable / enabled                              |
 * | world/sparse.hpp       | the paths of sparse components                                       |
 * | world/raw.hpp          | untyped access by component id or name                               |
 * | world/deferred.hpp     | DeferredProxy and the commands it and CommandBuffer record           |
 * | world/clone.hpp        | World::clone                                                         |
 * | world/copy.hpp         | World::copy_from (a world made equal to another in place), change_tick |
 * | world/invariants.hpp   | World::check_invariants                                              |
 * | world/entity_events.hpp| observe / emit: entity events that climb the hierarchy by Parent     |
 * | detail/world_access.hpp| the library's internal door into a World (serialization, prefabs)    |
 *
 * Data flows one way: entity -> record -> archetype -> column.
 *
 * Structural changes (create, destroy, adding a new component type, removing one) are forbidden
 * while a query runs: they assert in debug builds and are refused (the world is left as it was) in
 * every build. Queue them with deferred() instead.
 */
#pragma once

#include "world/world_class.hpp"
#include "detail/world_access.hpp"
#include "detail/ancestors.hpp"
#include "world/lifecycle.hpp"
#include "world/access.hpp"
#include "world/structural.hpp"
#include "world/queries.hpp"
#include "world/observing.hpp"
#include "world/resources.hpp"
#include "world/relations.hpp"
#include "world/enable.hpp"
#include "world/sparse.hpp"
#include "world/raw.hpp"
#include "world/deferred.hpp"
#include "world/clone.hpp"
#include "world/copy.hpp"
#include "world/invariants.hpp"
#include "world/entity_events.hpp"
