/**
 * The test FerretDB's PostgreSQL cluster leaves nothing behind: no postgres process and no temp directory,
 * whether the run stops it, fails to start it, is interrupted (Ctrl-C) or is killed outright. Tried with
 * the real binaries, in child processes that start the whole harness (FerretDB on the cluster) and die.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { MongoClient } from 'mongodb'
import { afterAll, describe, expect, it } from 'vitest'
import { findPostgresBinaries } from './postgres-binaries.js'
import { startPostgresCluster } from './postgres-cluster.js'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const binaries = await findPostgresBinaries()
const scratch = await mkdtemp(join(tmpdir(), 'leasecron-pg-test-'))
// Readable by the cluster's unprivileged owner (the fake initdb below runs as that user under root).
await chmod(scratch, 0o755)
afterAll(() => rm(scratch, { recursive: true, force: true }))

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function until(what: string, ok: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** What a harness child printed once its server answered: FerretDB's pid, the postmaster's, the cluster dir. */
interface Started {
  ferretdb: number
  postmaster: number
  dir: string
  url: string
}

const HARNESS = `
import { startFerretDb } from ${JSON.stringify(join(repo, 'test/support/ferretdb-server.ts'))}
const server = await startFerretDb({ backend: 'postgresql', log: () => undefined, warn: () => undefined })
console.log(JSON.stringify({ ferretdb: server.process.pid, postmaster: server.cluster.postmasterPid,
  dir: server.cluster.dir, url: server.url }))
setInterval(() => undefined, 1_000)
`

/** Starts the harness in a child of its own process group (as a terminal's foreground job is). */
async function startHarness(): Promise<{ child: ReturnType<typeof spawn>; started: Started }> {
  const script = join(scratch, `harness-${Date.now()}.mts`)
  await writeFile(script, HARNESS)
  const child = spawn(process.execPath, ['--import', 'tsx/esm', script], {
    cwd: repo,
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const started = await new Promise<Started>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (chunk) => {
      out += chunk
      const line = out.split('\n').find((l) => l.startsWith('{'))
      if (line) resolve(JSON.parse(line) as Started)
    })
    child.once('exit', (code) => reject(new Error(`the harness exited (${code}) before it served: ${out}`)))
  })
  return { child, started }
}

async function expectNothingLeft(started: Started, how: string): Promise<void> {
  await until(
    `postgres (pid ${started.postmaster}) still runs after ${how}`,
    () => !alive(started.postmaster),
  )
  await until(`FerretDB (pid ${started.ferretdb}) still runs after ${how}`, () => !alive(started.ferretdb))
  await until(`${started.dir} is still there after ${how}`, () => !existsSync(started.dir))
}

describe.skipIf(!binaries)('the test FerretDB’s PostgreSQL cluster', () => {
  it('serves on 127.0.0.1 and is stopped and removed by stop()', async () => {
    const cluster = await startPostgresCluster()
    expect(cluster.url).toMatch(/^postgres:\/\/ferretdb@127\.0\.0\.1:\d+\/postgres\?pool_max_conns=\d+$/)
    expect(cluster.version).toMatch(/^PostgreSQL \d+/)
    expect(alive(cluster.postmasterPid)).toBe(true)
    await cluster.stop()
    expect(alive(cluster.postmasterPid), 'postgres outlived stop()').toBe(false)
    expect(existsSync(cluster.dir), 'the cluster directory outlived stop()').toBe(false)
  }, 60_000)

  it('leaves no directory behind when initdb fails', async () => {
    const broken = join(scratch, 'broken-bin')
    await writeFile(join(scratch, 'initdb'), '#!/bin/sh\necho "initdb: refused here" >&2\nexit 1\n')
    await chmod(join(scratch, 'initdb'), 0o755)
    const before = new Set(await clusterDirs())
    await expect(
      startPostgresCluster({ dir: broken, initdb: join(scratch, 'initdb'), postgres: binaries!.postgres }),
    ).rejects.toThrow(/initdb failed: initdb: refused here/)
    expect(
      (await clusterDirs()).filter((d) => !before.has(d)),
      'a failed start left its directory',
    ).toEqual([])
  }, 60_000)

  it('is gone, with its FerretDB, when the run is interrupted (Ctrl-C)', async () => {
    const { child, started } = await startHarness()
    const client = new MongoClient(started.url, { serverSelectionTimeoutMS: 10_000 })
    await client.db('ctrl_c').collection('c').insertOne({ x: 1 })
    await client.close()
    // A terminal's Ctrl-C: SIGINT to the foreground process group.
    process.kill(-child.pid!, 'SIGINT')
    await expectNothingLeft(started, 'Ctrl-C')
  }, 90_000)

  it('is gone, with its FerretDB, when the run is killed without a word (SIGKILL)', async () => {
    const { child, started } = await startHarness()
    child.kill('SIGKILL')
    await expectNothingLeft(started, 'SIGKILL of the process that started it')
  }, 90_000)
})

async function clusterDirs(): Promise<string[]> {
  return (await readdir(tmpdir())).filter(
    (name) => name.startsWith('leasecron-pg-') && !name.startsWith('leasecron-pg-test-'),
  )
}
