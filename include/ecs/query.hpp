/**
 * @file ecs/query.hpp
 * @brief Queries, the umbrella header: includes the terms and filters (query_terms.hpp), the engine
 *        of caches, slots and access checks (query_engine.hpp), the row loops
 *        (detail/query_loops.hpp) and the handle, ecs::Chunk and ecs::Query<Terms...>
 *        (query_handle.hpp). This page states the rules they share.
 *
 * A query is a list of terms (what the callback receives) and filters (what the entity must or must
 * not have, without fetching it):
 *
 * | term               | the entity must | the callback receives       | Chunk::get<T>() gives   |
 * |--------------------|-----------------|-----------------------------|-------------------------|
 * | `T`                | have `T`        | `T&`                        | `T*`                    |
 * | `const T`          | have `T`        | `const T&`                  | `const T*`              |
 * | `Optional<T>`      | nothing         | `T*`, nullptr when absent   | `T*` or nullptr         |
 * | `Optional<const T>`| nothing         | `const T*`                  | `const T*` or nullptr   |
 *
 * Filters: `With<Ts...>{}` (must have every Ts), `Without<Ts...>{}` (must have none; `Exclude` is the
 * same type). Handles (`world.query`) also take `Changed<Ts...>{}` and `Added<Ts...>{}`
 * (change_detection.hpp): must have every Ts, changed / added since the handle's previous run.
 * Relationship filters: `Related<R>{target}`, `Related<R>{}` and `Cascade<R>{}` (relation.hpp) are value filters:
 * objects whose values reach the run through detail::FilterValues (world.each passes its filter
 * objects; a handle stores the values).
 *
 * Change detection: a run stamps "changed now" on the rows it visits for each non-const term whose
 * type is tracked, decided once per archetype (one branch on `Archetype::ticks.active()`).
 *
 * Enable bits (enable.hpp): a disabled component is absent to queries (a term or With skips the row,
 * Without accepts it, Optional gives nullptr) and a disabled entity is skipped unless the query has
 * `IncludeDisabled{}`. Per archetype one branch on `Archetype::enable.any()` decides: while nothing in
 * it is disabled its rows run as one block; otherwise they are split into runs of rows that pass
 * (each_chunk: one chunk per run). Archetypes holding a type of `Without<...>` are kept aside as
 * candidates and visited, in creation order among the others, only while they hold disabled rows.
 *
 * Each distinct (terms, filters) signature gets a process-wide slot number from a function-local
 * static; each world keeps one cache per slot: the masks and the matching archetypes, extended
 * incrementally as archetypes are created (PITFALLS 9, 10). A stable world iterates with no matching,
 * hashing or allocation. Order: archetypes in creation order, rows in row order.
 *
 * Sparse types (sparse.hpp) are in no archetype: a query naming one and requiring some table type
 * tests and fetches them row by row; a query whose required types are all sparse walks the members
 * of its smallest required set instead of the archetypes, in that set's slot order
 * (detail/sparse_drive.hpp).
 *
 * Thread-safety: a query run reads the cache and may extend it with archetypes created since its
 * last run; runs on one world must not overlap with structural changes. The iteration depth counter
 * is per world and not atomic: concurrent runs need the parallel room (each_par.hpp, schedule.hpp),
 * which opens a *shared section* on the calling thread (QueryEngine::begin_shared): every cache is
 * brought up to date and the depth is held once for the whole section; inside it, query runs on any
 * thread leave the depth alone, and a cache looked up for the first time is created under a lock.
 *
 * Access checks (debug builds only): while a Schedule system runs, its thread carries the system's
 * declared access (detail::current_access); query and World entry points refuse terms it lacks.
 */
#pragma once

#include "query_terms.hpp"         // terms, filters, traits, compile-time checks
#include "query_engine.hpp"        // slots, caches, iteration scope, access checks
#include "detail/query_loops.hpp"  // the row loops
#include "query_handle.hpp"        // ecs::Chunk and ecs::Query<Terms...>, the query handle
