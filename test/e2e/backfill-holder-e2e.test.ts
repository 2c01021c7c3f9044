/**
 * Backfill through the holder, as built worker processes on the run's real Mongo (issue #41's "done
 * when"): three workers run the net; `leasecron backfill` finds its lease held and leaves the range as a
 * request; the holder runs the slots between its passes; after a SIGKILL of that holder mid-backfill, the
 * successor goes on from the request's cursor — every slot run once, the ones after the kill on the
 * successor — and `status` shows the request done.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { MongoClient } from 'mongodb'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { MongoRunLedger, MongoStore } from '../../src/index.js'
import { useE2eSandbox } from '../support/e2e-sandbox.js'
import { mongoServer } from '../support/mongo.js'
import { type LogLine, MAIN, startWorkerProcess, type WorkerProcess } from '../support/worker-process.js'

const NETS = fileURLToPath(new URL('./fixtures/backfill-nets.mjs', import.meta.url))
const HOUR = 3_600_000
const SLOTS = 8
const e2e = useE2eSandbox(11)
const running: WorkerProcess[] = []
let client: MongoClient
const db = `e2e_backfill_holder_${Date.now().toString(36)}`

beforeAll(async () => {
  const buildError = inject('buildError')
  if (buildError) throw new Error(`dist/ could not be built: ${buildError}`)
  client = await new MongoClient(mongoServer().url).connect()
})
afterAll(async () => {
  for (const w of running) if (w.child.exitCode === null) w.child.kill('SIGKILL')
  await client
    ?.db(db)
    .dropDatabase()
    .catch(() => undefined)
  await client?.close()
})

/** The workers' and the CLI's environment: the shared store, the shared sandbox, a 3 s TTL, 1.5 s passes. */
function env(): Record<string, string> {
  return {
    ...e2e.githubEnv(),
    MONGO_URI: mongoServer().url,
    MONGO_DB: db,
    PORT: '0',
    LEASECRON_SHUTDOWN_TIMEOUT_MS: '5000',
    LEASECRON_NET_BACKFILL_NET_TTL_MS: '3000',
    LEASECRON_NET_BACKFILL_NET_RETRY_MS: '1000',
    BACKFILL_PASS_MS: '1500',
  }
}

function worker(): WorkerProcess {
  const w = startWorkerProcess(['run', '--config', NETS], env())
  running.push(w)
  return w
}

/** Runs `leasecron <args>` to its end: its exit code and its output. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, ...args, '--config', NETS],
      { env: { PATH: process.env.PATH ?? '', ...env() }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error.code as number | null) ?? null) : 0, stdout, stderr }),
    )
  })
}

/** The owner holding the net's lease, once one does (bounded). */
async function holderOf(store: MongoStore, timeoutMs: number): Promise<string> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    const lease = (await store.list()).find((l) => l.name === 'backfill-net')
    if (lease?.owner && (lease.expiresAt?.getTime() ?? 0) > Date.now()) return lease.owner
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`no worker held the lease "backfill-net" within ${timeoutMs} ms`)
}

const said = (prefix: string) => (l: LogLine) => typeof l.msg === 'string' && l.msg.startsWith(prefix)

describe('a backfill left for the holder of a net three workers run', () => {
  it('runs its slots on the holder and, after a SIGKILL of that holder, goes on on the successor, each slot once', async () => {
    const workers = [worker(), worker(), worker()]
    const store = new MongoStore(client.db(db))
    const holder = await holderOf(store, 30_000)
    await Promise.all(workers.map((w) => w.waitFor((l) => typeof l.owner === 'string', 20_000, 'its owner')))
    const killed = workers.find((w) => w.owner() === holder)
    if (!killed) throw new Error(`the holder ${holder} is none of the three workers`)
    const survivors = workers.filter((w) => w !== killed)

    const start = Math.floor(Date.now() / HOUR) * HOUR - 5 * 24 * HOUR
    const slots = Array.from({ length: SLOTS }, (_, i) => new Date(start + i * HOUR).toISOString())
    const asked = await cli([
      'backfill',
      'backfill-net',
      '--from',
      slots[0]!,
      '--to',
      slots.at(-1)!,
      '--json',
    ])
    expect(asked.code, asked.stderr).toBe(0)
    expect(JSON.parse(asked.stdout)).toMatchObject({ end: 'requested', holder, backfill: { total: SLOTS } })

    await killed.waitFor(said(`backfill [2/${SLOTS}]`), 30_000, 'the holder’s second backfill slot ending')
    killed.child.kill('SIGKILL')
    await killed.exited
    const done = await Promise.any(
      survivors.map((w) => w.waitFor(said('backfill done'), 60_000, 'the successor finishing the backfill')),
    ).catch((error: AggregateError) => {
      throw new Error(error.errors.map((e: Error) => e.message).join('\n'))
    })
    const successor = done.owner

    const starts = new Map<string, string[]>()
    for (const w of workers)
      for (const l of w.lines.filter(
        (line) => line.event === 'pass-start' && slots.includes(String(line.slot)),
      ))
        starts.set(String(l.slot), [...(starts.get(String(l.slot)) ?? []), String(l.owner)])
    for (const slot of slots)
      expect(
        starts.get(slot)?.length ?? 0,
        `backfill slot ${slot} started ${starts.get(slot)?.length ?? 0} times`,
      ).toBeLessThanOrEqual(1)
    const ledger = new MongoRunLedger(client.db(db))
    const records = await Promise.all(slots.map((slot) => ledger.get('backfill-net', new Date(slot))))
    // The slots the killed holder said it ended ran there; the one in flight at the kill is the successor's
    // `slot-taken` (its claim stands); every later one ran on the successor.
    const ended = killed.lines.filter(said('backfill [')).length
    expect(ended, 'the holder ended fewer than two slots').toBeGreaterThanOrEqual(2)
    expect(records.slice(0, ended).map((r) => [r?.owner, r?.outcome])).toEqual(
      records.slice(0, ended).map(() => [holder, 'ok']),
    )
    const afterKill = records.slice(ended + 1).map((r) => [r?.owner, r?.outcome])
    expect(afterKill, 'the slots after the kill did not run on the successor').toEqual(
      afterKill.map(() => [successor, 'ok']),
    )

    const status = await cli(['status', '--json'])
    const net = (JSON.parse(status.stdout) as { nets: Array<{ name: string; backfill: unknown }> }).nets.find(
      (n) => n.name === 'backfill-net',
    )
    expect(net?.backfill, 'status --json does not show the request done').toMatchObject({
      state: 'done',
      total: SLOTS,
      done: SLOTS,
      left: 0,
      failed: 0,
      owner: successor,
    })
    console.log(
      `e2e on ${mongoServer().kind}: backfill of ${SLOTS} slots, holder ${holder} killed, done on ${successor}`,
    )
  }, 180_000)
})
