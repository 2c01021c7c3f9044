/**
 * PostgreSQL for the peers scenario: Debian's PostgreSQL 15 (`initdb`, `pg_ctl`) in a temporary directory
 * on a free loopback port, one database per peer, settings at initdb's defaults (trust on loopback only).
 * As root it runs as the `postgres` user (the server refuses root). Operations are each database's
 * transactions from `pg_stat_database` (xact_commit + xact_rollback), read from the `postgres` database so
 * the reads do not count. A crash is `pg_ctl stop -m immediate`, which also discards those statistics (the
 * scenario reads them before it). Not a Postgres manager.
 */
import { execFileSync } from 'node:child_process'
import { chownSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { freePort, type PeerStore, waitUntil } from './peer-store.js'

export const PG_BIN = '/usr/lib/postgresql/15/bin'

/** Runs a Postgres binary as the server's user (`postgres` when this process is root). */
function asServerUser(binary: string, args: string[]): string {
  const root = process.getuid?.() === 0
  const [file, argv] = root
    ? ['runuser', ['-u', 'postgres', '--', join(PG_BIN, binary), ...args]]
    : [join(PG_BIN, binary), args]
  return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 })
  await client.connect()
  try {
    return (await client.query(sql)).rows as T[]
  } finally {
    await client.end()
  }
}

/** Starts PostgreSQL with `databases` created; throws with the reason when it cannot. */
export async function startPostgres(databases: string[]): Promise<PeerStore & { url(db: string): string }> {
  const dir = await mkdtemp(join(tmpdir(), 'leasecron-peers-pg-'))
  if (process.getuid?.() === 0)
    chownSync(
      dir,
      Number(execFileSync('id', ['-u', 'postgres']).toString()),
      Number(execFileSync('id', ['-g', 'postgres']).toString()),
    )
  const data = join(dir, 'data')
  const port = await freePort()
  asServerUser('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-instructions'])
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`
  const start = () =>
    asServerUser('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-o', options, '-w', 'start'])
  const url = (db: string) => `postgres://postgres@127.0.0.1:${port}/${db}`
  start()
  await waitUntil('postgres', () => query(url('postgres'), 'select 1'))
  for (const db of databases) await query(url('postgres'), `create database "${db}"`)
  const [row] = await query<{ server_version: string }>(url('postgres'), 'show server_version')
  const version = row?.server_version ?? 'unknown'
  return {
    url,
    description: `PostgreSQL ${version}`,
    settings:
      'initdb defaults (fsync on, synchronous_commit on), trust auth on 127.0.0.1, one database per peer',
    async crashAndRestart(downMs) {
      asServerUser('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
      await new Promise((r) => setTimeout(r, downMs))
      start()
      await waitUntil('postgres', () => query(url('postgres'), 'select 1'))
    },
    async ops() {
      const sql = `select datname, xact_commit + xact_rollback as n from pg_stat_database where datname in (${databases.map((d) => `'${d}'`).join(', ')})`
      const rows = await query<{ datname: string; n: string }>(url('postgres'), sql)
      return Object.fromEntries(rows.map((r) => [r.datname, Number(r.n)]))
    },
    async stop() {
      try {
        asServerUser('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
      } catch {
        // Already stopped: the directory goes anyway.
      }
      await rm(dir, { recursive: true, force: true })
    },
  }
}
