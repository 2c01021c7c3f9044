/**
 * docs/shapes.md's "Try the scaled shape on one machine", step by step with real processes: FerretDB built
 * by tools/ferretdb/build.sh, one `leasecron sandbox` (seeding gating runs into that Mongo), three
 * workers pointed at it through the env file, `status`, a SIGKILL of the holder and the hand-over, timed.
 * Then the page's own two blocks (the steps and the teardown) run as written, pasted into one bash, on
 * free ports: they find the holder with `status --json`, kill it, see the hand-over and leave nothing.
 */
import { execFile, spawn } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { MongoClient } from 'mongodb'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { freePort } from '../support/free-port.js'
import { pageBlocks } from '../support/page-blocks.js'
import { type NodeProcess, spawnNodeProcess } from '../support/node-process.js'
import { MAIN, startWorkerProcess, type WorkerProcess } from '../support/worker-process.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const TTL = 6000
const RETRY = 1000
// Process start-up on a loaded 2-core machine and the status polling (each `status` is a new process).
const TOLERANCE = 10_000

const cleanup: (() => Promise<unknown> | unknown)[] = []
afterAll(async () => {
  for (const step of cleanup.reverse()) await Promise.resolve(step()).catch(() => undefined)
})
beforeAll(() => {
  const buildError = inject('buildError')
  if (buildError) throw new Error(`dist/ could not be built: ${buildError}`)
})

/** Step 1: the FerretDB binary build.sh prints, listening on a free loopback port. */
async function startFerretDb(): Promise<string> {
  const { stdout } = await promisify(execFile)('bash', [join(ROOT, 'tools/ferretdb/build.sh')], {
    maxBuffer: 1 << 20,
  })
  const binary = stdout.trim().split('\n').pop()!
  const dir = await mkdtemp(join(tmpdir(), 'leasecron-demo-ferretdb-'))
  const port = await freePort()
  const child = spawn(binary, ['--listen-addr', `127.0.0.1:${port}`, '--sqlite-dir', dir], {
    stdio: 'ignore',
  })
  cleanup.push(() => rm(dir, { recursive: true, force: true }))
  cleanup.push(() => child.kill('SIGKILL'))
  const uri = `mongodb://127.0.0.1:${port}/`
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 1_000 })
  for (let i = 0; ; i++) {
    try {
      await client.db('admin').command({ ping: 1 })
      await client.close()
      return uri
    } catch (error) {
      if (i > 60) throw new Error(`FerretDB did not answer on ${uri}: ${(error as Error).message}`)
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
  }
}

function parseEnvFile(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  )
}

/** Step 4: `leasecron status`; the owner of `lease`, when one holds it unexpired. */
async function holderOf(env: Record<string, string>, lease: string): Promise<string | undefined> {
  const status = spawnNodeProcess(MAIN, ['status'], env, { label: 'status' })
  const { code } = await status.exited
  expect(code, status.text.join('\n')).toBe(0)
  expect(status.text[0], 'status printed no header row').toMatch(
    /^LEASE\s+HOLDER\s+FENCE\s+EXPIRES\s+STATE\s+LAST RUN$/,
  )
  const line = status.text.find((l) => l.startsWith(`${lease} `) && l.includes('expires in'))
  return line?.split(/\s+/)[1]
}

describe('the scaled shape on one machine', () => {
  it('shares one sandbox between three workers on one Mongo and hands over after the holder is killed', async () => {
    const mongoUri = await startFerretDb()
    const dir = await mkdtemp(join(tmpdir(), 'leasecron-demo-'))
    cleanup.push(() => rm(dir, { recursive: true, force: true }))
    const base = {
      // As the demo's step 1: three replicas within FerretDB's default pool.
      MONGO_URI: `${mongoUri}?maxPoolSize=10`,
      MONGO_DB: 'leasecron_demo',
      LEASECRON_NET_MERGE_GATE_SWEEPER_TTL_MS: String(TTL),
      LEASECRON_NET_MERGE_GATE_SWEEPER_RETRY_MS: String(RETRY),
    }

    // Step 2: one sandbox, its variables in an env file, gating runs seeded into the workers' database.
    const envFile = join(dir, 'sandbox.env')
    const sandbox: NodeProcess = spawnNodeProcess(MAIN, ['sandbox', '--env-out', envFile], base, {
      label: 'sandbox',
    })
    cleanup.push(() => sandbox.stop('SIGTERM', 5_000))
    const started = Date.now()
    while (!sandbox.text.some((l) => l.startsWith('Stop it with'))) {
      if (Date.now() - started > 30_000 || !sandbox.alive())
        throw new Error(`the sandbox did not start:\n${sandbox.text.join('\n')}`)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(sandbox.text.join('\n')).toMatch(/gating runs: [1-9]\d* seeded in database leasecron_demo/)
    const shared = parseEnvFile(await readFile(envFile, 'utf8'))
    expect(Object.keys(shared).sort()).toEqual([
      'GITHUB_API_URL',
      'GITHUB_APP_ID',
      'GITHUB_APP_PRIVATE_KEY_FILE',
      'GITHUB_INSTALLATION_ID',
    ])

    // Step 3: three workers pointed at it.
    const env = { ...base, ...shared }
    const workers = new Map<string, WorkerProcess>()
    for (const i of [1, 2, 3]) {
      const w = startWorkerProcess(['run'], { ...env, PORT: '0', LEASECRON_WORKER_ID: `worker-${i}` })
      cleanup.push(() => w.stop('SIGKILL'))
      workers.set(`worker-${i}`, w)
    }
    const all = [...workers.values()]
    const elected = await Promise.race(
      all.map((w) =>
        w.waitFor((l) => l.msg === 'elected' && l.lease === 'merge-gate-sweeper', 60_000, 'an election'),
      ),
    )
    // The holder's first pass finds the seeded runs on the shared sandbox: the forge is shared.
    await Promise.race(
      all.map((w) =>
        w.waitFor(
          (l) => l.net === 'merge-gate-sweeper' && typeof l.offered === 'number' && l.offered > 0,
          90_000,
          'a sweep that offered the seeded gating runs',
        ),
      ),
    )
    for (const w of all)
      expect(w.lines.some((l) => l.msg === 'using the local sandbox forge, not GitHub')).toBe(false)

    // leasecron_store_up follows the driver's heartbeats: 1 without anyone asking /readyz.
    const serving = await all[0]!.waitFor((l) => l.msg.startsWith('serving'), 10_000, 'the HTTP server')
    const metrics = await (await fetch(`http://127.0.0.1:${Number(serving.port)}/metrics`)).text()
    expect(metrics, 'the store gauge waited for a /readyz request').toMatch(/^leasecron_store_up 1$/m)

    // Step 4: status names the holder.
    const holder = await holderOf(env, 'merge-gate-sweeper')
    expect(holder, 'status did not list the sweeper’s holder').toBe(String(elected.owner))
    const holderId = holder!.replace(/-[0-9a-f]{12}$/, '')
    const victim = workers.get(holderId)!
    expect(victim, `no worker named ${holderId}`).toBeDefined()

    // Step 5: kill it without a goodbye; another worker holds the lease within TTL + retry.
    const killedAt = Date.now()
    victim.child.kill('SIGKILL')
    await victim.exited
    let successor: string | undefined
    while (Date.now() - killedAt < TTL + RETRY * 1.2 + TOLERANCE + 20_000) {
      successor = await holderOf(env, 'merge-gate-sweeper')
      if (successor && successor !== holder) break
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
    const handOverMs = Date.now() - killedAt
    expect(successor, 'nobody took the lease over after the holder was killed').toBeDefined()
    expect(successor).not.toBe(holder)
    expect(handOverMs, 'the hand-over took longer than TTL + retry').toBeLessThan(
      TTL + RETRY * 1.2 + TOLERANCE,
    )
    console.log(`scaled demo: hand-over after SIGKILL seen by status in ${handOverMs} ms (TTL ${TTL} ms)`)

    // Stopped, the sandbox leaves no env file behind that would point the next workers at a dead forge.
    await sandbox.stop('SIGTERM', 5_000)
    expect((await sandbox.exited).code, 'the sandbox did not stop cleanly on SIGTERM').toBe(0)
    expect(existsSync(envFile), 'a stale sandbox.env outlived its sandbox').toBe(false)
    expect(existsSync(shared.GITHUB_APP_PRIVATE_KEY_FILE!), 'the key file outlived the sandbox').toBe(false)
  }, 240_000)

  it('runs as docs/shapes.md writes it: its two blocks, pasted into one shell, hand over and tear down', async () => {
    const demo = pageBlocks().filter((b) => b.tags.run === 'scaled-demo')
    expect(demo.length, 'docs/shapes.md lost its scaled-shape blocks (the steps and the teardown)').toBe(2)
    const mongoPort = await freePort()
    // Inside the repository (npx resolves leasecron there), in a directory of its own: the blocks write
    // sandbox.env, logs and pid files where they run, and must not touch a developer's own.
    const dir = join(ROOT, '.cache', `scaled-demo-${process.pid}`)
    // Its own TMPDIR too: what the blocks make there (FerretDB's data, the sandbox's key) must be gone after.
    const tmp = join(dir, 'tmp')
    await mkdir(tmp, { recursive: true })
    cleanup.push(() => rm(dir, { recursive: true, force: true }))
    const script = demo
      .map((b) => b.text)
      .join('\n')
      .replaceAll('127.0.0.1:27017', `127.0.0.1:${mongoPort}`)
      .replaceAll('PORT=808$i', 'PORT=0')
      .replaceAll('tools/ferretdb/build.sh', join(ROOT, 'tools/ferretdb/build.sh'))
      .replaceAll('node dist/bundle/leasecron.js', `node ${join(ROOT, 'dist/bundle/leasecron.js')}`)
    const { code, stdout, stderr } = await new Promise<{
      code: number | null
      stdout: string
      stderr: string
    }>((resolve) => {
      const child = spawn(
        'bash',
        ['-c', `trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\nset -e\n${script}`],
        {
          cwd: dir,
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, TMPDIR: tmp },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      )
      let out = ''
      let err = ''
      child.stdout.on('data', (d: Buffer) => {
        out += d
      })
      child.stderr.on('data', (d: Buffer) => {
        err += d
      })
      const timer = setTimeout(() => child.kill('SIGKILL'), 200_000)
      child.on('close', (c) => {
        clearTimeout(timer)
        resolve({ code: c, stdout: out, stderr: err })
      })
    })
    expect(code, `the scaled demo of docs/shapes.md failed:\n${stdout}\n--- stderr ---\n${stderr}`).toBe(0)
    const handOver = /merge-gate-sweeper handed over from (worker-\d) to (worker-\d)-[0-9a-f]{12}/.exec(
      stdout,
    )
    expect(handOver, `the demo did not report a hand-over:\n${stdout}`).not.toBeNull()
    expect(handOver![2], 'the lease went back to the killed worker').not.toBe(handOver![1])
    for (const left of ['sandbox.env', 'worker-1.pid', 'worker-2.pid', 'worker-3.pid'])
      expect(existsSync(join(dir, left)), `the teardown left ${left} behind`).toBe(false)
    // Node's own compile cache (Node ≥ 22.1: the CLI enables it, under TMPDIR unless NODE_COMPILE_CACHE is
    // set) is meant to outlive the demo; anything else the demo made must be gone.
    const left = readdirSync(tmp).filter((name) => name !== 'node-compile-cache')
    expect(left, 'the teardown left temporary files behind').toEqual([])
  }, 240_000)
})
