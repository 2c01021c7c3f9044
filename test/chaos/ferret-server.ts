/**
 * The chaos suite's own FerretDB 1.24.2 (the binary tools/ferretdb/build.sh builds), as a child process it
 * can kill, pause and restart on the same loopback port and the same SQLite directory — which the run's
 * shared server (global setup) cannot offer.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { MongoClient } from 'mongodb'

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

export interface ChaosMongo {
  readonly host: string
  readonly port: number
  readonly url: string
  readonly pid: number | undefined
  /** SIGKILLs the server and waits for it to be gone. */
  kill(): Promise<void>
  /** Starts it again on the same port and SQLite directory; resolves once it answers a ping. */
  restart(): Promise<void>
  pause(): void
  resume(): void
  stop(): Promise<void>
}

export async function startChaosMongo(): Promise<ChaosMongo> {
  const { stdout } = await promisify(execFile)('bash', [join(repoRoot, 'tools/ferretdb/build.sh')], {
    maxBuffer: 1 << 20,
  })
  const binary = stdout.trim().split('\n').pop()!
  const dir = await mkdtemp(join(tmpdir(), 'leasecron-chaos-ferretdb-'))
  const port = await freePort()
  const host = '127.0.0.1'
  const url = `mongodb://${host}:${port}/`
  let child: ChildProcess | undefined

  const launch = async () => {
    const started = spawn(binary, ['--listen-addr', `${host}:${port}`, '--sqlite-dir', dir], {
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    started.stderr!.on('data', (c: Buffer) => {
      stderr = (stderr + c.toString()).slice(-4000)
    })
    child = started
    const deadline = Date.now() + 30_000
    for (;;) {
      if (started.exitCode !== null) throw new Error(`FerretDB exited with ${started.exitCode}: ${stderr}`)
      const client = new MongoClient(url, { serverSelectionTimeoutMS: 1_000 })
      try {
        await client.connect()
        await client.db('admin').command({ ping: 1 })
        return
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`FerretDB did not answer within 30 s: ${error} ${stderr}`)
        await new Promise((r) => setTimeout(r, 100))
      } finally {
        await client.close().catch(() => undefined)
      }
    }
  }

  const kill = async () => {
    const c = child
    if (!c || c.exitCode !== null || c.signalCode !== null) return
    const gone = new Promise((r) => c.once('exit', r))
    c.kill('SIGKILL')
    await gone
  }

  await launch()
  return {
    host,
    port,
    url,
    get pid() {
      return child?.pid
    },
    kill,
    restart: launch,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    async stop() {
      child?.kill('SIGCONT')
      await kill()
      await rm(dir, { recursive: true, force: true })
    },
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo
      s.close(() => resolve(port))
    })
  })
}
