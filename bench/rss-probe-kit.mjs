// What the RSS probes (bench/idle-rss.mjs, bench/thousand-rss.mjs) share: spawning a child and reading its
// stdout by line, waiting for lines that say it is ready, a throwaway FerretDB and the sandbox forge in
// processes of their own, and sampling the children's VmRSS, RssAnon and RssFile from /proc every second.
//
// Not a bench scenario (those are bench/scenarios/*.ts, run by bench/run.ts): plain Node for quick probes
// that compare builds side by side. Each probe computes its own statistics from the samples.
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..')

/** Spawns a child with its stdout lines handed to `onLine` (stderr echoed unless `quiet`); returns it. */
export function start(node, args, env, onLine = () => {}, quiet = false) {
  const child = spawn(node, args, {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let rest = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    const parts = (rest + chunk).split('\n')
    rest = parts.pop()
    for (const p of parts) onLine(p)
  })
  child.stderr.setEncoding('utf8').on('data', (chunk) => quiet || process.stderr.write(chunk.slice(0, 2000)))
  return child
}

/**
 * Starts a child; `done` resolves with the line on which `count` stdout lines have passed `test`, and
 * rejects after `timeoutMs` or when the child exits first, naming `what`.
 */
export function waitForLines({ node, args, env, test, count = 1, what, timeoutMs = 60_000, quiet = false }) {
  let child
  const done = new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`${what}: not ready within ${timeoutMs} ms`)), timeoutMs)
    let seen = 0
    const onLine = (l) => {
      if (test(l) && ++seen === count) {
        clearTimeout(timer)
        res(l)
      }
    }
    child = start(node, args, env, onLine, quiet)
    child.once('exit', (code) => rej(new Error(`${what}: exited ${code}`)))
  })
  return { child, done }
}

/** MONGO_URL when set; else a FerretDB on SQLite in a temp directory (tools/ferretdb/build.sh), with `stop`. */
export async function probeMongo(prefix) {
  if (process.env.MONGO_URL) return { url: process.env.MONGO_URL, stop: () => {} }
  const script = join(repoRoot, 'tools/ferretdb/build.sh')
  const binary = execFileSync('bash', [script], { encoding: 'utf8' }).trim().split('\n').pop()
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-ferretdb-`))
  const { child, done } = waitForLines({
    node: binary,
    args: ['--listen-addr', '127.0.0.1:0', '--sqlite-dir', dir],
    env: {},
    test: (l) => l.startsWith('mongodb://'),
    what: `${prefix}: FerretDB`,
    quiet: true,
  })
  const url = (await done).trim()
  return {
    url,
    stop: () => {
      child.kill('SIGTERM')
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** The local forge sandbox, as the benches start it: one process, and the variables for the workers. */
export async function probeSandbox(prefix) {
  const { child, done } = waitForLines({
    node: process.execPath,
    args: [join(repoRoot, 'bench', 'sandbox-process.mjs')],
    env: { BENCH_SANDBOX: JSON.stringify({ repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 1 }) },
    test: (l) => l.includes('"url"'),
    what: `${prefix}: sandbox`,
  })
  const info = JSON.parse(await done)
  return {
    child,
    env: {
      GITHUB_APP_ID: String(info.appId),
      GITHUB_INSTALLATION_ID: String(info.installationId),
      GITHUB_APP_PRIVATE_KEY: String(info.privateKey),
      GITHUB_API_URL: info.url,
    },
  }
}

/** A process's VmRSS, RssAnon and RssFile (KiB) from /proc; undefined once it is gone. */
export function procStatus(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN)
    return { rss: kib('VmRSS'), anon: kib('RssAnon'), file: kib('RssFile') }
  } catch {
    return undefined
  }
}

/** Every subject's /proc samples, one a second for `windowS`, by label. */
export async function sampleProcs(subjects, windowS) {
  const samples = new Map(subjects.map((s) => [s.label, []]))
  const until = Date.now() + windowS * 1000
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 1000))
    for (const s of subjects) {
      const st = procStatus(s.child.pid)
      if (st) samples.get(s.label).push(st)
    }
  }
  return samples
}

export const mib = (kib) => Math.round((kib / 1024) * 10) / 10

/** SIGTERM to each worker, SIGKILL to one still running 30 s later (its store may be gone): before the store stops. */
export async function stopAll(children) {
  const exited = (c) => c.exitCode !== null || c.signalCode !== null
  await Promise.all(
    children.map(async (child) => {
      if (exited(child)) return
      const gone = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
      await gone
      clearTimeout(timer)
    }),
  )
}

/**
 * Writes a worker configuration module to `file` that imports `root`'s build and declares, through `body`
 * (module code), nets with `net(name, schedule, pass)`: each on a lease of its own name. Returns `file`.
 */
export function writeNetsModule(file, root, body) {
  const index = pathToFileURL(join(root, 'dist', 'index.js')).href
  writeFileSync(
    file,
    `import { defineLease, defineNet } from ${JSON.stringify(index)}
const leases = []
const nets = []
const net = (name, schedule, pass) => {
  const lease = defineLease(name, 'probe net')
  leases.push(lease)
  nets.push(defineNet({ name, lease: name, schedule, description: 'probe', options: {}, setup: () => ({}),
    term: () => pass }))
}
${body}
export default { nets, leases }
`,
  )
  return file
}
