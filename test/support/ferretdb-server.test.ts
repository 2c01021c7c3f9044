/**
 * The run's shared FerretDB does not die silently: a real FerretDB, killed here, is said on the warn
 * line with its pid, exit code, signal and last output; asked to, it serves again on the same port and
 * data; and a stop is not a death.
 */
import { MongoClient } from 'mongodb'
import { afterAll, describe, expect, it } from 'vitest'
import { type FerretDbBackend, type SharedFerretDb, startFerretDb } from './ferretdb-server.js'
import { findPostgresBinaries } from './postgres-binaries.js'

const started: SharedFerretDb[] = []
afterAll(async () => {
  for (const server of started) await server.stop()
})

async function start(
  restartAfterDeath: boolean,
  backend: FerretDbBackend = 'sqlite',
): Promise<{ server: SharedFerretDb; warnings: string[] }> {
  const warnings: string[] = []
  const server = await startFerretDb({
    log: () => undefined,
    warn: (l) => warnings.push(l),
    restartAfterDeath,
    backend,
  })
  started.push(server)
  return { server, warnings }
}

async function until(what: string, ok: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

const deathLines = (warnings: string[]) =>
  warnings.filter((l) => l.includes('exited while tests still used it'))

describe('the run’s shared FerretDB', () => {
  it('says once, with its exit code, signal and last output, when it dies while in use', async () => {
    const { server, warnings } = await start(false)
    const pid = server.process.pid
    server.process.kill('SIGKILL')
    await until('no word of the death', () => deathLines(warnings).length > 0)
    const [line] = deathLines(warnings)
    expect(line).toContain(`pid ${pid}`)
    expect(line).toContain('exit code null, signal SIGKILL')
    expect(line, 'its data directory is still there').toContain('is still there')
    // Its own output, as the tail kept it: the address it printed on stdout when it started.
    expect(line).toContain(`[stdout] ${server.url}`)
    expect(server.deaths).toMatchObject([{ pid, code: null, signal: 'SIGKILL', restarted: false }])
    expect(server.deaths[0]?.panic, 'a SIGKILL prints no Go panic').toEqual([])
    expect(server.deaths[0]?.lastLines).toContain(`[stdout] ${server.url}`)
    await new Promise((r) => setTimeout(r, 500))
    expect(deathLines(warnings), 'one death, said once').toHaveLength(1)
    expect(warnings.join('\n')).not.toContain('restarted')
  }, 120_000)

  it('keeps the first lines of a Go crash dump, which are longer than its output tail', async () => {
    const { server, warnings } = await start(false)
    // SIGQUIT makes the Go runtime print every goroutine's stack and exit with 2, as a panic does.
    server.process.kill('SIGQUIT')
    await until('no word of the death', () => deathLines(warnings).length > 0)
    const [death] = server.deaths
    expect(death).toMatchObject({ code: 2, signal: null })
    expect(death?.panic[0], 'the reason of the crash, its first line, was lost').toBe(
      '[stderr] SIGQUIT: quit',
    )
    expect(death?.panic.length).toBeGreaterThan(10)
    expect(deathLines(warnings)[0]).toContain('What it printed from its crash on:\n  [stderr] SIGQUIT: quit')
  }, 120_000)

  it('serves again on the same address and data after a death when asked to, and says so', async () => {
    const { server, warnings } = await start(true)
    const url = server.url
    const before = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 })
    await before
      .db('death')
      .collection('kept')
      .insertOne({ _id: 'before' as never })
    await before.close()
    const pid = server.process.pid
    server.process.kill('SIGKILL')
    await until('it did not say it restarted', () => warnings.some((l) => l.includes('restarted')))
    expect(deathLines(warnings), 'the death is said even though it came back').toHaveLength(1)
    expect(warnings.find((l) => l.includes('restarted'))).toMatch(/restart 1 of at most 3/)
    expect(server.url).toBe(url)
    expect(server.process.pid).not.toBe(pid)
    expect(server.deaths).toMatchObject([{ pid, signal: 'SIGKILL', restarted: true }])
    const after = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 })
    try {
      expect(await after.db('death').collection('kept').findOne({})).toEqual({ _id: 'before' })
    } finally {
      await after.close()
    }
    await server.stop()
    expect(deathLines(warnings), 'a stop is not a death').toHaveLength(1)
  }, 120_000)
})

describe.skipIf(!(await findPostgresBinaries()))('the run’s shared FerretDB on PostgreSQL', () => {
  it('serves over its cluster, and a death of the cluster under it is a death of the run, said and recorded', async () => {
    const { server, warnings } = await start(true, 'postgresql')
    expect(server.backendLabel).toMatch(/^PostgreSQL \d+/)
    const client = new MongoClient(server.url, { serverSelectionTimeoutMS: 10_000 })
    try {
      await client
        .db('pg')
        .collection('c')
        .insertOne({ _id: 'on-postgres' as never })
      expect(await client.db('pg').collection('c').countDocuments()).toBe(1)
    } finally {
      await client.close()
    }
    const postmaster = server.cluster!.postmasterPid
    process.kill(postmaster, 'SIGKILL')
    await until('no word of the cluster’s death', () =>
      warnings.some((l) => l.includes("PostgreSQL cluster under the run's FerretDB")),
    )
    expect(server.deaths, 'the cluster’s death was not recorded for the runner').toMatchObject([
      { backend: 'postgresql', pid: postmaster, signal: null, restarted: false },
    ])
    await server.stop()
  }, 120_000)
})
