// Idle RSS probe (issue 24, item 3): one idle worker per subject — ten nets at the shipped pace
// (`* * * * *`, TTL 180 s), bench/nets/idle-ten.mjs — on the Node running this script and on the image's
// Node 24 (with and without the Dockerfile's NODE_OPTIONS and its ENTRYPOINT's Node flags), side by side
// in the same minute, each on its own database, next to a bare idle Node of each. Sampling starts 5 s after the first minute tick (the
// first passes have run) and reads VmRSS, RssAnon and RssFile from /proc every second for the window.
//
// Not the footprint bench (that one is `npm run bench -- footprint`, committed results, cold starts,
// the consumer install): a quicker probe for finding where memory goes, comparing builds in one sitting.
//
//   node bench/idle-rss.mjs [--window 60] [--root <dir> ...] [--only current,node24,node24Image]
//
// Each `--root` is a checkout (or a copy) holding dist/ and bench/nets/: several roots are measured side by
// side (e.g. a copy of main's dist against this branch's). MONGO_URL names the server; without it the
// script starts the test FerretDB (tools/ferretdb/build.sh) in a temp directory and stops it after.
import { spawn, execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..')
const NODE24 = join(repoRoot, '.cache', 'node-24.22.3', 'package', 'bin', 'node')

function options(argv) {
  const o = { windowS: 60, roots: [], only: undefined }
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--window') o.windowS = Number(argv[++i])
    else if (argv[i] === '--root') o.roots.push(resolve(argv[++i]))
    else if (argv[i] === '--only') o.only = argv[++i].split(',')
    else throw new Error(`idle-rss: unknown argument ${argv[i]} (expected --window, --root or --only)`)
  }
  if (o.roots.length === 0) o.roots.push(repoRoot)
  return o
}

/** The NODE_OPTIONS the Dockerfile sets (`ENV NODE_OPTIONS=…`). */
function imageNodeOptions() {
  const text = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8')
  return (
    /^ENV NODE_OPTIONS=(?:"([^"]*)"|(\S+))$/m
      .exec(text)
      ?.slice(1)
      .find((v) => v !== undefined) ?? ''
  )
}

/** The Node flags the Dockerfile's ENTRYPOINT puts before the CLI's file (V8 flags NODE_OPTIONS refuses). */
function imageNodeFlags() {
  const text = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8')
  const entrypoint = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(text)?.[1] ?? '[]')
  const script = entrypoint.indexOf('dist/bundle/leasecron.js')
  return script > 1 ? entrypoint.slice(1, script) : []
}

function runtimes(only) {
  const all = [
    { key: 'current', node: process.execPath, nodeOptions: '', flags: [] },
    { key: 'node24', node: NODE24, nodeOptions: '', flags: [] },
    { key: 'node24Image', node: NODE24, nodeOptions: imageNodeOptions(), flags: imageNodeFlags() },
  ]
  return all.filter((r) => (only ? only.includes(r.key) : true) && existsSync(r.node))
}

/** Spawns a child with its stdout lines handed to `onLine`; returns the child. */
function start(node, args, env, onLine = () => {}, quiet = false) {
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

function waitForLine(node, args, env, test, what, quiet = false) {
  let child
  const line = new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`idle-rss: no ${what} within 60 s`)), 60_000)
    const onLine = (l) => {
      if (test(l)) {
        clearTimeout(timer)
        res(l)
      }
    }
    child = start(node, args, env, onLine, quiet)
    child.once('exit', (code) => rej(new Error(`idle-rss: ${what}: exited ${code}`)))
  })
  return { child, line }
}

async function mongo() {
  if (process.env.MONGO_URL) return { url: process.env.MONGO_URL, stop: () => {} }
  const binary = execFileSync('bash', [join(repoRoot, 'tools/ferretdb/build.sh')], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop()
  const dir = mkdtempSync(join(tmpdir(), 'idle-rss-ferretdb-'))
  const args = ['--listen-addr', '127.0.0.1:0', '--sqlite-dir', dir]
  const { child, line } = waitForLine(
    binary,
    args,
    {},
    (l) => l.startsWith('mongodb://'),
    'FerretDB url',
    true,
  )
  const url = (await line).trim()
  const stop = () => {
    child.kill('SIGTERM')
    rmSync(dir, { recursive: true, force: true })
  }
  return { url, stop }
}

async function sandbox() {
  const script = join(repoRoot, 'bench', 'sandbox-process.mjs')
  const env = { BENCH_SANDBOX: JSON.stringify({ repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 1 }) }
  const { child, line } = waitForLine(process.execPath, [script], env, (l) => l.includes('"url"'), 'sandbox')
  const info = JSON.parse(await line)
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

const everyMinute = Object.fromEntries(
  Array.from({ length: 10 }, (_, i) => [`LEASECRON_NET_BENCH_NET_${i + 1}_SCHEDULE`, '* * * * *']),
)

/** One idle worker: `root`'s bundle on `runtime`, its own database; resolves once it was elected. */
function worker(root, runtime, base, label) {
  const env = {
    ...base,
    ...everyMinute,
    PORT: '0',
    LOG_LEVEL: 'info',
    MONGO_DB: `idle_rss_${label.replace(/\W+/g, '_')}_${Date.now()}`,
    ...(runtime.nodeOptions ? { NODE_OPTIONS: runtime.nodeOptions } : {}),
  }
  const args = [
    ...runtime.flags,
    join(root, 'dist/bundle/leasecron.js'),
    'run',
    '--config',
    join(root, 'bench/nets/idle-ten.mjs'),
  ]
  const { child, line } = waitForLine(runtime.node, args, env, (l) => l.includes('"msg":"elected"'), label)
  return { label, child, elected: line }
}

function status(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN)
    return { rss: kib('VmRSS'), anon: kib('RssAnon'), file: kib('RssFile') }
  } catch {
    return undefined
  }
}

const mib = (kib) => Math.round((kib / 1024) * 10) / 10
const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length

async function sample(subjects, windowS) {
  const samples = new Map(subjects.map((s) => [s.label, []]))
  const until = Date.now() + windowS * 1000
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 1000))
    for (const s of subjects) {
      const st = status(s.child.pid)
      if (st) samples.get(s.label).push(st)
    }
  }
  return subjects.map((s) => {
    const xs = samples.get(s.label)
    return {
      subject: s.label,
      rssMiB: mib(mean(xs.map((x) => x.rss))),
      maxMiB: mib(Math.max(...xs.map((x) => x.rss))),
      anonMiB: mib(mean(xs.map((x) => x.anon))),
      fileMiB: mib(mean(xs.map((x) => x.file))),
      n: xs.length,
    }
  })
}

async function main() {
  const o = options(process.argv.slice(2))
  const server = await mongo()
  const forge = await sandbox()
  const subjects = []
  try {
    const base = { ...forge.env, MONGO_URI: server.url }
    for (const runtime of runtimes(o.only)) {
      for (const root of o.roots)
        subjects.push(worker(root, runtime, base, `${runtime.key} ${root === repoRoot ? '.' : root}`))
      subjects.push({
        label: `${runtime.key} bare`,
        child: start(runtime.node, ['-e', 'setInterval(() => {}, 1000)'], {}),
      })
    }
    await Promise.all(subjects.map((s) => s.elected))
    // The first minute tick, then 5 s for its passes to finish.
    await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 5_000))
    console.log(`idle-rss: sampling ${o.windowS} s from ${new Date().toISOString()}`)
    console.table(await sample(subjects, o.windowS))
  } finally {
    for (const s of subjects) s.child.kill('SIGTERM')
    forge.child.kill('SIGTERM')
    server.stop()
  }
}

await main()
