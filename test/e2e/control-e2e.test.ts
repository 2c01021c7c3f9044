/**
 * Pause, resume and run now from the CLI, on the built worker: each command on both stores (real
 * processes), and a pause seen across two real worker processes on the test Mongo.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { MongoClient } from 'mongodb'
import { afterAll, describe, expect, it } from 'vitest'
import { MongoStore } from '../../src/index.js'
import { MongoNetControlStore } from '../../src/control/mongo-net-control-store.js'
import { useE2eSandbox } from '../support/e2e-sandbox.js'
import { mongoServer } from '../support/mongo.js'
import { MAIN, startWorkerProcess, type WorkerProcess } from '../support/worker-process.js'

const NETS = fileURLToPath(new URL('./fixtures/e2e-nets.mjs', import.meta.url))
const e2e = useE2eSandbox()
const { githubEnv } = e2e
const mongo = mongoServer()
const client = new MongoClient(mongo.url)
const running: WorkerProcess[] = []
afterAll(async () => {
  for (const w of running) if (w.child.exitCode === null) w.child.kill('SIGKILL')
  await client.close()
})

/** A cold process's first forge request may take over the every-second net's 1 s TIMEOUT on a loaded machine. */
const SLOW_OK = { LEASECRON_NET_E2E_TICK_TIMEOUT: '20s' }
let databases = 0
function mongoEnv() {
  return { MONGO_URI: mongo.url, MONGO_DB: `control_${Date.now().toString(36)}_${++databases}` }
}

async function cli(args: string[], env: Record<string, string>) {
  const w = startWorkerProcess([...args, '--config', NETS], env)
  const { code } = await w.exited
  return { code, text: w.text.join('\n'), lines: w.lines }
}

/** A command's stdout parsed as one JSON value (its log, if any, goes to stderr). */
async function cliJson(args: string[], env: Record<string, string>) {
  const { stdout } = await promisify(execFile)(process.execPath, [MAIN, ...args, '--config', NETS], {
    env: { PATH: process.env.PATH ?? '', ...env },
  })
  return JSON.parse(stdout)
}

describe('leasecron pause and resume on Mongo', () => {
  it('pauses with reason, author and expiry; status shows it; resume lifts it', async () => {
    const env = mongoEnv()
    const paused = await cli(
      ['pause', 'e2e-tick', '--for', '2h', '--reason', 'forge maintenance', '--by', 'ann'],
      env,
    )
    expect(paused.code, paused.text).toBe(0)
    expect(paused.text).toMatch(/e2e-tick: paused by ann until \S+Z: forge maintenance/)
    const status = await cli(['status'], env)
    expect(status.text, 'status did not show the pause').toMatch(
      /e2e-tick: paused by ann until \S+Z: forge maintenance \(since \S+Z\)/,
    )
    const net = (await cliJson(['status', '--json'], env)).nets[0]
    expect(net).toMatchObject({ state: 'paused', paused: { by: 'ann', reason: 'forge maintenance' } })
    expect(Date.parse(net.paused.until) - Date.parse(net.paused.at)).toBe(2 * 3_600_000)
    expect(await cliJson(['resume', 'e2e-tick', '--json'], env)).toMatchObject({
      net: 'e2e-tick',
      resumed: true,
      lifted: { by: 'ann' },
    })
    const again = await cli(['resume', 'e2e-tick'], env)
    expect(again.text).toMatch(/e2e-tick: not paused; nothing changed/)
    const controls = new MongoNetControlStore(client.db(env.MONGO_DB))
    expect(await controls.get('e2e-tick', new Date())).toEqual({ net: 'e2e-tick' })
  }, 60_000)

  it('refuses bad input with usage exit 64, naming what was expected', async () => {
    const env = mongoEnv()
    const cases: Array<[string[], RegExp]> = [
      [['pause', 'e2e-tick', '--for', '2 hours'], /--for: expected a duration above zero such as 90s/],
      [['pause', 'e2e-tick', '--for', '99999999d'], /--for: expected a duration ending by \+275760-09-13T00/],
      [
        ['pause', 'e2e-tick', '--until', 'tomorrow'],
        /--until: expected an ISO 8601 instant with a time zone/,
      ],
      [['pause', 'e2e-tick', '--until', '2020-01-01T00:00:00Z'], /--until: expected an instant after now/],
      [
        ['pause', 'e2e-tick', '--for', '1h', '--until', '2099-01-01T00:00:00Z'],
        /expected one of them, not both/,
      ],
      [['pause', 'nope'], /expected one of e2e-tick; got nope/],
      [['resume', 'e2e-tick', '--abort'], /--abort belongs to the pause command/],
    ]
    for (const [args, expected] of cases) {
      const { code, text } = await cli(args, env)
      expect(code, `${args.join(' ')}: ${text}`).toBe(64)
      expect(text).toMatch(expected)
    }
    expect(
      await new MongoNetControlStore(client.db(env.MONGO_DB)).list(new Date()),
      'a refused pause stored something',
    ).toEqual([])
  }, 60_000)
})

describe('leasecron pause and resume without MONGO_URI', () => {
  it('says a CLI cannot reach a worker’s own memory, and exits 1', async () => {
    for (const command of ['pause', 'resume']) {
      const { code, text } = await cli([command, 'e2e-tick'], {})
      expect(code).toBe(1)
      expect(text).toMatch(
        new RegExp(`leasecron ${command}: no MONGO_URI: each worker keeps its nets' controls`),
      )
    }
  }, 30_000)
})

describe('leasecron once --now', () => {
  it('runs a manual slot without MONGO_URI', async () => {
    const result = await cliJson(['once', 'e2e-tick', '--now', '--json'], { ...githubEnv(), ...SLOW_OK })
    expect(result).toMatchObject({ net: 'e2e-tick', outcome: 'ran', manual: true })
  }, 30_000)

  it('runs a manual slot on Mongo that history shows as manual, apart from the scheduled slot', async () => {
    const env = { ...githubEnv(), ...mongoEnv(), ...SLOW_OK }
    const scheduled = await cli(['once', 'e2e-tick'], env)
    expect(scheduled.code).toBe(0)
    const manual = await cli(['once', 'e2e-tick', '--now'], env)
    expect(manual.code, manual.text).toBe(0)
    expect(manual.text).toMatch(/e2e-tick: ran slot \S+ as/)
    const runs = (await cliJson(['history', 'e2e-tick', '--json'], env)) as Array<{
      manual: boolean
      outcome: string
    }>
    expect(runs.map((r) => [r.manual, r.outcome]).sort()).toEqual([
      [false, 'ok'],
      [true, 'ok'],
    ])
    const text = await cli(['history', 'e2e-tick'], env)
    expect(text.text).toMatch(/ok \(manual\)/)
    expect(
      await client
        .db(env.MONGO_DB)
        .collection('net_runs')
        .countDocuments({ _id: /@manual@/ }),
    ).toBe(1)
  }, 60_000)

  it('asks the holder to run when another owner holds the lease, leaving a run request', async () => {
    const env = { ...githubEnv(), ...mongoEnv() }
    const db = client.db(env.MONGO_DB)
    await new MongoStore(db).acquire('e2e-tick', 'someone-else-0123456789ab', new Date(), 60_000)
    const { code, text } = await cli(['once', 'e2e-tick', '--now', '--by', 'ann'], env)
    expect(code, text).toBe(0)
    expect(text).toMatch(/held by someone-else-0123456789ab; asked it to run now/)
    const { run } = await new MongoNetControlStore(db).get('e2e-tick', new Date())
    expect(run, 'no run request was left for the holder').toMatchObject({ by: 'ann' })
    const lease = await db.collection('leases').findOne({ _id: 'e2e-tick' as never })
    expect(
      lease?.notice,
      'the holder was left no notice: it reads the request only at its fallback poll',
    ).toBe(1)
  }, 30_000)

  it('leaves the holder a notice on the net’s lease with a pause and a resume', async () => {
    const env = mongoEnv()
    const db = client.db(env.MONGO_DB)
    await new MongoStore(db).acquire('e2e-tick', 'someone-else-0123456789ab', new Date(), 60_000)
    expect((await cli(['pause', 'e2e-tick', '--abort'], env)).code).toBe(0)
    const notices = async () => (await db.collection('leases').findOne({ _id: 'e2e-tick' as never }))?.notice
    expect(await notices(), 'a pause --abort left its holder no notice').toBe(1)
    expect((await cli(['resume', 'e2e-tick', '--catch-up'], env)).code).toBe(0)
    expect(await notices(), 'a resume --catch-up left its holder no notice').toBe(2)
  }, 30_000)
})

describe('a pause across two real worker processes', () => {
  it('shows on both replicas’ /status, and the holder records the next slots paused', async () => {
    const env = { ...githubEnv(), ...mongoEnv(), PORT: '0', LEASECRON_SHUTDOWN_TIMEOUT_MS: '5000' }
    const workers = [0, 1].map(() => startWorkerProcess(['run', '--config', NETS], env))
    running.push(...workers)
    const ports = await Promise.all(
      workers.map(async (w) =>
        Number((await w.waitFor((l) => l.msg.startsWith('serving'), 30_000, 'HTTP')).port),
      ),
    )
    await Promise.race(workers.map((w) => w.waitFor((l) => l.event === 'pass-end', 30_000, 'a pass')))
    const paused = await cli(['pause', 'e2e-tick', '--reason', 'two replicas', '--by', 'ann'], env)
    expect(paused.code, paused.text).toBe(0)
    const pausedAt = Date.now()
    for (const port of ports) {
      const status = (await (await fetch(`http://127.0.0.1:${port}/status`)).json()) as { nets: unknown[] }
      expect(status.nets[0], `the replica on port ${port} did not show the pause`).toMatchObject({
        state: 'paused',
        paused: { by: 'ann', reason: 'two replicas' },
      })
    }
    const recorded = await Promise.race(
      workers.map((w) =>
        w.waitFor((l) => String(l.msg).startsWith('slot not run, recorded paused'), 20_000, 'a paused slot'),
      ),
    )
    expect(String(recorded.msg)).toMatch(/paused by ann: two replicas/)
    const runs = client.db(env.MONGO_DB).collection('net_runs')
    expect(
      await runs.countDocuments({ outcome: 'paused', error: 'paused by ann: two replicas' }),
    ).toBeGreaterThan(0)
    // Generous: a pass claimed before the pause was read may end after it; none starts 2 s later. The
    // holder takes slots in order, so once it recorded a slot 3 s after the pause paused, every slot
    // before it was either recorded paused or run.
    const slotMs = (l: Record<string, unknown>) =>
      typeof l.slot === 'number' ? l.slot : Date.parse(String(l.slot))
    await Promise.race(
      workers.map((w) =>
        w.waitFor(
          (l) => String(l.msg).startsWith('slot not run, recorded paused') && slotMs(l) >= pausedAt + 3_000,
          20_000,
          'a slot 3 s after the pause recorded paused',
        ),
      ),
    )
    const late = workers.flatMap((w) =>
      w.lines.filter((l) => l.event === 'pass-start' && Number(l.at) > pausedAt + 2_000),
    )
    expect(late, 'a pass started on a paused net').toEqual([])
    for (const w of workers) w.child.kill('SIGTERM')
    await Promise.all(workers.map((w) => w.exited))
  }, 90_000)
})
