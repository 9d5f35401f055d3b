// Reads the dataset that ecs_columnar_dataset wrote with two independent Parquet readers, DuckDB
// (@duckdb/node-api) and hyparquet, and compares every row and every column with expected.json (the
// world's own values). Also runs filtered DuckDB queries whose answers depend on the min/max
// statistics being right (row groups are skipped on them).
//
// Usage: node check_dataset.mjs <folder written by ecs_columnar_dataset> <npm prefix holding node_modules>
// Exit status 0 when both readers agree with expected.json; 1 with the differences listed otherwise.

import { createRequire } from 'node:module'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative, resolve, sep } from 'node:path'
import { pathToFileURL } from 'node:url'

const [folder, prefix] = process.argv.slice(2).map((p) => p && resolve(p))
if (!folder || !prefix) {
  console.error('usage: node check_dataset.mjs <folder> <npm prefix>')
  process.exit(2)
}
const root = join(folder, 'history')
const require = createRequire(join(prefix, 'package.json'))
const duckdb = require('@duckdb/node-api')
const hyparquet = await import(pathToFileURL(join(prefix, 'node_modules', 'hyparquet', 'src', 'node.js')).href)

const expected = JSON.parse(readFileSync(join(folder, 'expected.json'), 'utf8'))
const rowColumns = new Set(['world_id', 'run_id', 'entity_id', 'tick', 'is_active'])

// Column types, from every table's _schema.json.
const types = new Map()
const files = []
for (const table of readdirSync(root)) {
  const schema = JSON.parse(readFileSync(join(root, table, '_schema.json'), 'utf8'))
  if (schema.table !== table) throw new Error(`${table}/_schema.json names ${schema.table}`)
  for (const c of schema.columns) {
    if (types.has(c.name) && types.get(c.name) !== c.type) throw new Error(`column ${c.name}: two types`)
    types.set(c.name, c.type)
  }
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name)
      if (statSync(p).isDirectory()) walk(p)
      else if (name.endsWith('.parquet')) files.push(p)
      else if (name !== '_schema.json') throw new Error(`unexpected file ${relative(root, p)}`)
    }
  }
  walk(join(root, table))
}

/** True when the value a reader gave equals the expected text for a column of `type`. */
function same(type, value, text) {
  if (value === null || value === undefined) return false
  switch (type) {
    case 'bool': return String(value) === text
    case 'float32': case 'float64':
      return text === 'nan' ? Number.isNaN(Number(value)) : Object.is(Number(value), Number(text))
    case 'string': return value === text
    default: return typeof value === 'bigint' || Number.isInteger(value) ? BigInt(value) === BigInt(text) : false
  }
}

/** Compares the rows a reader gave with expected.json; returns a list of problems. */
function compare(reader, rows, wanted = expected) {
  const problems = []
  const byKey = new Map()
  for (const e of wanted) byKey.set(`${e.run_id}|${e.entity_id}|${e.tick}|${e.is_active}`, { e, seen: 0 })
  for (const row of rows) {
    const key = `${row.run_id}|${BigInt(row.entity_id)}|${BigInt(row.tick)}|${row.is_active}`
    const entry = byKey.get(key)
    if (!entry) { problems.push(`${reader}: unexpected row ${key}`); continue }
    entry.seen++
    if (row.world_id !== entry.e.world_id) problems.push(`${reader}: ${key}: world_id ${row.world_id}`)
    for (const [column, value] of Object.entries(row)) {
      if (rowColumns.has(column) || column === 'filename') continue
      const text = entry.e.values[column]
      if (text === undefined) {
        if (value !== null && value !== undefined) problems.push(`${reader}: ${key}: ${column} should be null, is ${value}`)
      } else if (!same(types.get(column), value, text)) {
        problems.push(`${reader}: ${key}: ${column} is ${value} (${typeof value}), expected ${text}`)
      }
    }
    for (const column of Object.keys(entry.e.values))
      if (!(column in row)) problems.push(`${reader}: ${key}: column ${column} missing`)
  }
  for (const [key, { seen }] of byKey)
    if (seen !== 1) problems.push(`${reader}: row ${key} read ${seen} times`)
  return problems
}

const problems = []

// DuckDB, the query a user would write (hive partitioning, tables of different columns unioned).
const instance = await duckdb.DuckDBInstance.create(':memory:')
const connection = await instance.connect()
const glob = `${root.split(sep).join('/')}/*/**/*.parquet`
const source = `read_parquet('${glob}', hive_partitioning = true, union_by_name = true)`
const duck = (await connection.runAndReadAll(`SELECT * FROM ${source}`)).getRowObjectsJS()
problems.push(...compare('duckdb', duck))
// Hive partition columns and the file's own columns of the same names: DuckDB gives one column each.
const described = (await connection.runAndReadAll(`DESCRIBE SELECT * FROM ${source}`)).getRowObjectsJS()
for (const name of ['world_id', 'run_id'])
  if (described.filter((d) => d.column_name === name).length !== 1) problems.push(`duckdb: column ${name} not exactly once`)
// Filters that row-group statistics decide: wrong min/max (unsigned order, NaN, -0.0) give wrong counts.
const count = async (where) =>
  Number((await connection.runAndReadAll(`SELECT count(*) AS n FROM ${source} WHERE ${where}`)).getRowObjectsJS()[0].n)
const expectCount = (where, predicate) => {
  const n = expected.filter((e) => e.values && predicate(e.values)).length
  return count(where).then((got) => { if (got !== n) problems.push(`duckdb: WHERE ${where}: ${got} rows, expected ${n}`) })
}
await expectCount(`dsall__u64 >= 9223372036854775808::UBIGINT`, (v) => v.dsall__u64 !== undefined && BigInt(v.dsall__u64) >= 2n ** 63n)
await expectCount(`dsall__u32 = 4294967295`, (v) => v.dsall__u32 === '4294967295')
await expectCount(`dsall__i64 = -9223372036854775808`, (v) => v.dsall__i64 === '-9223372036854775808')
await expectCount(`dsall__f32 = 0`, (v) => v.dsall__f32 !== undefined && Number(v.dsall__f32) === 0)
await expectCount(`game__player__hp > 11`, (v) => v.game__player__hp !== undefined && Number(v.game__player__hp) > 11)
const inactive = await count('NOT is_active')
if (inactive !== expected.filter((e) => e.is_active === 'false').length) problems.push(`duckdb: ${inactive} inactive rows`)

// hyparquet, file by file (it reads files, not datasets).
const hyp = []
for (const file of files) {
  const rows = await hyparquet.parquetReadObjects({ file: await hyparquet.asyncBufferFromFile(file) })
  hyp.push(...rows)
}
problems.push(...compare('hyparquet', hyp))

// Run r1 again, one file per tick under tick=<t>/ (a third Hive key, also a file column): DuckDB.
let byTickRows = 0
{
  const z = `read_parquet('${join(folder, 'history_by_tick').split(sep).join('/')}/*/**/*.parquet', hive_partitioning = true, union_by_name = true)`
  const rows = (await connection.runAndReadAll(`SELECT * FROM ${z}`)).getRowObjectsJS()
  byTickRows = rows.length
  problems.push(...compare('duckdb (by tick)', rows, expected.filter((e) => e.run_id === 'r1')))
  const ticks = (await connection.runAndReadAll(`SELECT count(DISTINCT filename) AS n FROM read_parquet('${join(folder, 'history_by_tick').split(sep).join('/')}/*/**/*.parquet', hive_partitioning = true, filename = true)`)).getRowObjectsJS()
  if (Number(ticks[0].n) < 4) problems.push(`duckdb (by tick): ${ticks[0].n} files`)
}

// The zstd-compressed copy of run r1, when the writer was built with zstd: DuckDB only.
let zstdRows = 0
try {
  statSync(join(folder, 'history_zstd'))
  const z = `read_parquet('${join(folder, 'history_zstd').split(sep).join('/')}/*/**/*.parquet', hive_partitioning = true, union_by_name = true)`
  const rows = (await connection.runAndReadAll(`SELECT * FROM ${z}`)).getRowObjectsJS()
  zstdRows = rows.length
  problems.push(...compare('duckdb (zstd)', rows, expected.filter((e) => e.run_id === 'r1')))
} catch (e) {
  if (e.code !== 'ENOENT') throw e
}

console.log(`${files.length} files, ${expected.length} expected rows; duckdb read ${duck.length}, hyparquet read ${hyp.length}, duckdb read ${zstdRows} zstd-compressed and ${byTickRows} by tick`)
if (problems.length) {
  for (const p of problems.slice(0, 50)) console.error(p)
  console.error(`${problems.length} problems`)
  process.exit(1)
}
console.log('both readers agree with the world')
