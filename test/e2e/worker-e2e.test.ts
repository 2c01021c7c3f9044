/**
 * The built worker as child processes: one process on the memory store, three sharing the run's Mongo,
 * and a bad environment. The GitHub side is one sandbox forge shared by every process.
 */
import { once } from 'node:events'
import { type AddressInfo, createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import { type SandboxForge, startSandboxForge } from '../../src/sandbox/sandbox-forge.js'
import { mongoServer } from '../support/mongo.js'
import { type LogLine, startWorkerProcess, type WorkerProcess } from '../support/worker-process.js'

const NETS = fileURLToPath(new URL('./fixtures/e2e-nets.mjs', import.meta.url))
const TTL = 3000
const RETRY = 1000
// Start-up, a loaded 2-core machine and node-cron's whole-second ticks, on top of the bounds.
const TOLERANCE = 2500

let sandbox: SandboxForge
const running: WorkerProcess[] = []

beforeAll(async () => {
  const buildError = inject('buildError')
  if (buildError) throw new Error(`dist/ could not be built: ${buildError}`)
  sandbox = await startSandboxForge({ generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 3 } })
})
afterAll(async () => {
  for (const w of running) w.child.kill('SIGKILL')
  await sandbox?.close()
})

function githubEnv(): Record<string, string> {
  return {
    GITHUB_APP_ID: String(sandbox.appId),
    GITHUB_INSTALLATION_ID: String(sandbox.installationId),
    GITHUB_APP_PRIVATE_KEY: sandbox.privateKey,
    GITHUB_API_URL: sandbox.url,
  }
}

function worker(env: Record<string, string>): WorkerProcess {
  const w = startWorkerProcess(['run', '--config', NETS], {
    PORT: '0',
    LEASECRON_SHUTDOWN_TIMEOUT_MS: '5000',
    ...env,
  })
  running.push(w)
  return w
}

const passStarts = (w: WorkerProcess) => w.lines.filter((l) => l.event === 'pass-start')
const passes = (ws: WorkerProcess[]) =>
  ws.flatMap((w) =>
    w.lines
      .filter((l) => l.event === 'pass-end')
      .map((l) => ({ owner: String(l.owner), start: Number(l.start), end: Number(l.at) })),
  )

describe('one worker process, no MONGO_URI', () => {
  it('is elected, runs passes, and on SIGTERM releases, flushes the meter and exits 0', async () => {
    const w = worker(githubEnv())
    await w.waitFor((l) => l.msg.startsWith('single-process mode'), 20_000, 'single-process warning')
    await w.waitFor((l) => l.msg === 'elected', 20_000, 'election')
    await w.waitFor((l) => l.event === 'pass-end' && Number(l.pass) >= 2, 20_000, 'two passes')
    const sentAt = Date.now()
    w.child.kill('SIGTERM')
    const { code } = await w.exited
    expect(code, 'a clean stop did not exit 0').toBe(0)
    expect(Date.now() - sentAt, 'the stop overran its shutdown timeout').toBeLessThan(5000 + TOLERANCE)
    const messages = w.lines.map((l) => l.msg)
    expect(messages).toContain('released')
    const flush = w.lines.find((l) => l.msg.startsWith('forge HTTP:'))
    expect(flush?.msg, 'the meter’s partial hour was not flushed').toMatch(/stopping/)
    expect(flush?.msg).toMatch(/rest e2e-tick=\d+/)
  }, 60_000)
})

describe('three worker processes sharing Mongo', () => {
  it('runs the net on exactly one process at a time and hands over after SIGTERM and SIGKILL', async () => {
    const mongo = mongoServer()
    const env = { ...githubEnv(), MONGO_URI: mongo.url, MONGO_DB: `e2e_${Date.now().toString(36)}` }
    const ws = [worker(env), worker(env), worker(env)]
    const holderOf = async () => {
      const line = await Promise.race(
        ws.map((w) => w.waitFor((l) => l.msg === 'elected', 30_000, 'an election').then(() => w)),
      )
      return line
    }
    const first = await holderOf()
    await first.waitFor((l) => l.event === 'pass-end', 20_000, 'a pass on the holder')

    // Clean stop of the holder: another process serves within one retry (+ one tick).
    const termAt = Date.now()
    first.child.kill('SIGTERM')
    expect((await first.exited).code).toBe(0)
    const rest = ws.filter((w) => w !== first)
    const second = await Promise.race(
      rest.map((w) =>
        w
          .waitFor((l) => l.event === 'pass-start' && Number(l.at) > termAt, 20_000, 'a takeover pass')
          .then(() => w),
      ),
    )
    const cleanTakeover = Number(passStarts(second).find((l) => Number(l.at) > termAt)!.at) - termAt
    expect(cleanTakeover, 'hand-over after SIGTERM took longer than one retry and one tick').toBeLessThan(
      RETRY * 1.2 + 1000 + TOLERANCE,
    )

    // Crash of the holder: the last process serves within TTL + retry (+ one tick).
    await second.waitFor(
      (l) => l.event === 'pass-end' && Number(l.at) > termAt,
      20_000,
      'a pass on the new holder',
    )
    const killAt = Date.now()
    second.child.kill('SIGKILL')
    await second.exited
    const third = rest.find((w) => w !== second)!
    const crashPass = await third.waitFor(
      (l) => l.event === 'pass-start' && Number(l.at) > killAt,
      30_000,
      'a pass after the crash',
    )
    const crashTakeover = Number(crashPass.at) - killAt
    expect(crashTakeover, 'take-over after SIGKILL took longer than TTL + retry + one tick').toBeLessThan(
      TTL + RETRY * 1.2 + 1000 + TOLERANCE,
    )
    await third.waitFor(
      // A pass begun after the crash pass: on a loaded machine the crash pass alone may outlast 1.5 s.
      (l) => l.event === 'pass-end' && Number(l.start) > Number(crashPass.at),
      20_000,
      'a second pass on the last process',
    )
    third.child.kill('SIGTERM')
    await third.exited

    // Passes never overlapped across processes.
    const all = passes(ws).sort((a, b) => a.start - b.start)
    const overlapping = all.filter(
      (p, i) => i > 0 && p.owner !== all[i - 1]!.owner && p.start < all[i - 1]!.end,
    )
    // Each process's passes and how its terms ended, so that a run with too few says which went missing.
    const seen = ws
      .map((w, i) => {
        const ended = w.lines.filter((l) => l.event === 'pass-end').length
        const starts = passStarts(w).length
        const terms = w.lines.filter((l) => l.msg === 'elected').length
        const ends = ['lost', 'stepping-down', 'renew-failed']
        const lost = w.lines.filter((l) => ends.includes(String(l.event))).map((l) => l.msg)
        return `process ${i + 1}: ${terms} terms, ${starts} passes started, ${ended} ended; ${lost.join('; ') || 'no term lost'}`
      })
      .join(' | ')
    expect(all.length, `too few passes to judge overlap (${seen})`).toBeGreaterThanOrEqual(4)
    expect(overlapping, 'two processes ran the net’s passes at the same time').toEqual([])
    console.log(
      `e2e on ${mongo.kind}: takeover after SIGTERM ${cleanTakeover} ms, after SIGKILL ${crashTakeover} ms`,
    )
  }, 120_000)
})

describe('a Mongo that cannot be reached', () => {
  it('keeps the worker up, unready and unelected, logging why, and never exits', async () => {
    // A "Mongo" that hangs up on every connection, counting them: a connection after the first failure
    // was logged is the worker trying again instead of giving up.
    let connections = 0
    const refusing = createServer((socket) => {
      connections++
      socket.destroy()
    })
    refusing.listen(0, '127.0.0.1')
    await once(refusing, 'listening')
    const mongoPort = (refusing.address() as AddressInfo).port
    try {
      const w = worker({
        ...githubEnv(),
        MONGO_URI: `mongodb://leasecron:pa55word@127.0.0.1:${mongoPort}/?serverSelectionTimeoutMS=500`,
      })
      const serving = await w.waitFor((l) => l.msg.startsWith('serving'), 20_000, 'the HTTP server')
      await w.waitFor((l) => l.msg.startsWith('cannot connect to MongoDB'), 20_000, 'the connection failure')
      const before = connections
      const port = Number(serving.port)
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200)
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 'ready without a store').toBe(503)
      await vi.waitFor(
        () =>
          expect(connections, 'the worker did not try MongoDB again after its first failure').toBeGreaterThan(
            before,
          ),
        { timeout: 20_000, interval: 50 },
      )
      await expectUnreachableMongoKept(w, port)
    } finally {
      refusing.close()
    }
  }, 60_000)
})

/** The worker of an unreachable Mongo, after a retry: alive, unready, never elected, its password unsaid. */
async function expectUnreachableMongoKept(w: WorkerProcess, port: number): Promise<void> {
  expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 'ready without a store').toBe(503)
  expect(w.child.exitCode, 'the worker exited because Mongo was down').toBeNull()
  expect(
    w.lines.filter((l) => l.msg === 'elected'),
    'elected without a store',
  ).toEqual([])
  expect(w.lines.map((l) => JSON.stringify(l)).join('\n')).not.toContain('pa55word')
  w.child.kill('SIGTERM')
  expect((await w.exited).code).toBe(0)
}

describe('an invalid environment', () => {
  it('exits 78 naming every bad variable and starts nothing', async () => {
    const w = startWorkerProcess(['run', '--config', NETS], {
      PORT: 'eighty',
      LEASECRON_NET_E2E_TICK_TTL_MS: '10s',
      LEASECRON_NET_E2E_TOCK_ENABLED: 'true',
    })
    const { code } = await w.exited
    expect(code).toBe(78)
    const output = w.text.join('\n')
    expect(output).toMatch(/PORT: expected a TCP port.*got "eighty"/)
    expect(output).toMatch(/LEASECRON_NET_E2E_TICK_TTL_MS: expected a whole number of milliseconds/)
    expect(output).toMatch(/LEASECRON_NET_E2E_TOCK_ENABLED: expected a known per-net variable/)
    expect(
      w.lines.filter((l: LogLine) => l.msg === 'leasecron starting'),
      'the worker started despite bad configuration',
    ).toEqual([])
  }, 30_000)
})

describe('secrets', () => {
  it('never appear in any line any worker process printed', () => {
    expect(running.length, 'no worker ran, nothing was checked').toBeGreaterThan(0)
    const keyLines = sandbox.privateKey.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----'))
    const tokens = sandbox.issuedTokens()
    expect(tokens.length, 'no installation token was minted, nothing was checked').toBeGreaterThan(0)
    const printed = running.flatMap((w) => [...w.lines.map((l) => JSON.stringify(l)), ...w.text])
    for (const line of printed) {
      for (const secret of [...keyLines, ...tokens]) {
        expect(line.includes(secret), `a worker printed a secret: ${line.slice(0, 120)}`).toBe(false)
      }
    }
  })
})
