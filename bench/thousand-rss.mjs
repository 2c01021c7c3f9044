// RSS probe at many nets (issue 39): one `leasecron run` worker per subject with N every-minute do-nothing
// nets, each on its own lease (as `npm run bench -- peers-thousand` declares them, minus the slot files),
// next to the same worker with a baseline of 10 nets, side by side in the same minute on the Node running
// this script. Each subject is ready once every net was elected; sampling starts 5 s after the next minute
// tick and reads VmRSS and RssAnon from /proc every second for the window (130 s by default: at least two
// minute slots), then prints medians and maxima, the ratio to the baseline and the cost per extra net.
//
// Not the peers-thousand bench (three replicas on FerretDB, the peers, the takeover): a quicker probe for
// finding where memory goes at many nets and comparing builds in one sitting.
//
//   node bench/thousand-rss.mjs [--nets 1000] [--baseline 10] [--window 130] [--store memory|mongo]
//                               [--root <dir> ...] [--node-options <flags>] [--json <file>]
//
// Each `--root` is a checkout (or a copy) holding dist/: several roots are measured side by side (e.g. a
// copy of main's build against this branch's). The nets module is written to a temp directory per root
// (it imports that root's dist/index.js), so a root needs no bench file of this branch. `--store memory`
// (the default) runs without MONGO_URI (the in-memory store); `--store mongo` gives each worker its own
// database on MONGO_URL, or on a FerretDB this script starts (tools/ferretdb/build.sh) when unset.
// `--node-options` is the NODE_OPTIONS of every worker (e.g. the Dockerfile's `--max-semi-space-size=1`).
import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..')

function options(argv) {
  const o = {
    nets: 1000,
    baseline: 10,
    windowS: 130,
    store: 'memory',
    roots: [],
    json: undefined,
    nodeOptions: '',
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--nets') o.nets = Number(argv[++i])
    else if (a === '--baseline') o.baseline = Number(argv[++i])
    else if (a === '--window') o.windowS = Number(argv[++i])
    else if (a === '--store') o.store = argv[++i]
    else if (a === '--root') o.roots.push(resolve(argv[++i]))
    else if (a === '--json') o.json = resolve(argv[++i])
    else if (a === '--node-options') o.nodeOptions = argv[++i]
    else
      throw new Error(
        `thousand-rss: unknown argument ${a} (expected --nets, --baseline, --window, --store, --root, --node-options or --json)`,
      )
  }
  if (!['memory', 'mongo'].includes(o.store))
    throw new Error(`thousand-rss: --store memory|mongo, got ${o.store}`)
  if (o.roots.length === 0) o.roots.push(repoRoot)
  return o
}

/** A nets module of `count` every-minute do-nothing nets on `root`'s build; returns its path. */
function netsModule(dir, root, count) {
  const file = join(dir, `nets-${count}.mjs`)
  const index = pathToFileURL(join(root, 'dist', 'index.js')).href
  writeFileSync(
    file,
    `import { defineLease, defineNet } from ${JSON.stringify(index)}
const leases = []
const nets = []
for (let i = 1; i <= ${count}; i++) {
  const lease = defineLease(\`probe-\${String(i).padStart(4, '0')}\`, 'probe net')
  leases.push(lease)
  nets.push(defineNet({ name: lease.name, lease: lease.name, schedule: '* * * * *', description: 'does nothing',
    options: {}, setup: () => ({}), term: () => async () => {} }))
}
export default { nets, leases }
`,
  )
  return file
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

/** Resolves when `count` stdout lines passed `test` (rejects after `timeoutMs` or on exit). */
function waitForLines(node, args, env, test, count, what, timeoutMs = 120_000, quiet = false) {
  let child
  const done = new Promise((res, rej) => {
    const timer = setTimeout(
      () => rej(new Error(`thousand-rss: ${what}: not ready within ${timeoutMs} ms`)),
      timeoutMs,
    )
    let seen = 0
    child = start(
      node,
      args,
      env,
      (l) => {
        if (test(l) && ++seen === count) {
          clearTimeout(timer)
          res(l)
        }
      },
      quiet,
    )
    child.once('exit', (code) => rej(new Error(`thousand-rss: ${what}: exited ${code}`)))
  })
  return { child, done }
}

async function mongo(store) {
  if (store === 'memory') return { url: undefined, stop: () => {} }
  if (process.env.MONGO_URL) return { url: process.env.MONGO_URL, stop: () => {} }
  const script = join(repoRoot, 'tools/ferretdb/build.sh')
  const binary = execFileSync('bash', [script], { encoding: 'utf8' }).trim().split('\n').pop()
  const dir = mkdtempSync(join(tmpdir(), 'thousand-rss-ferretdb-'))
  const args = ['--listen-addr', '127.0.0.1:0', '--sqlite-dir', dir]
  const { child, done } = waitForLines(
    binary,
    args,
    {},
    (l) => l.startsWith('mongodb://'),
    1,
    'FerretDB',
    60_000,
    true,
  )
  const url = (await done).trim()
  return {
    url,
    stop: () => {
      child.kill('SIGTERM')
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** The local forge sandbox, as the benches start it: one process, its variables for the workers. */
async function sandbox() {
  const script = join(repoRoot, 'bench', 'sandbox-process.mjs')
  const env = { BENCH_SANDBOX: JSON.stringify({ repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 1 }) }
  const { child, done } = waitForLines(
    process.execPath,
    [script],
    env,
    (l) => l.includes('"url"'),
    1,
    'sandbox',
  )
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

/** One worker of `count` nets on `root`'s bundle; `done` resolves once every net was elected. */
function worker(root, dir, count, base, label) {
  const env = { ...base, PORT: '0', LOG_LEVEL: 'info' }
  if (base.MONGO_URI) env.MONGO_DB = `thousand_rss_${label.replace(/\W+/g, '_')}_${Date.now()}`
  const args = [join(root, 'dist/bundle/leasecron.js'), 'run', '--config', netsModule(dir, root, count)]
  const elected = (l) => l.includes('"msg":"elected"')
  const { child, done } = waitForLines(process.execPath, args, env, elected, count, label, 600_000)
  return { label, root, count, child, done }
}

function status(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN)
    return { rss: kib('VmRSS'), anon: kib('RssAnon') }
  } catch {
    return undefined
  }
}

const mib = (kib) => Math.round((kib / 1024) * 10) / 10
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

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
      nets: s.count,
      rssMedianMiB: mib(median(xs.map((x) => x.rss))),
      rssMaxMiB: mib(Math.max(...xs.map((x) => x.rss))),
      anonMedianMiB: mib(median(xs.map((x) => x.anon))),
      anonMaxMiB: mib(Math.max(...xs.map((x) => x.anon))),
      samples: xs.length,
    }
  })
}

/** Per root: the N-net worker against its baseline — the ratio and KiB per extra net (medians). */
function compare(rows, o) {
  return o.roots.map((root) => {
    const big = rows.find((r) => r.root === root && r.nets === o.nets)
    const small = rows.find((r) => r.root === root && r.nets === o.baseline)
    const perNet = (k) => Math.round(((big[k] - small[k]) * 1024) / (o.nets - o.baseline))
    return {
      root: label(root),
      ratioRss: Math.round((big.rssMedianMiB / small.rssMedianMiB) * 100) / 100,
      kibPerNetRss: perNet('rssMedianMiB'),
      kibPerNetAnon: perNet('anonMedianMiB'),
    }
  })
}

/** SIGTERM to each worker, SIGKILL to one still running 30 s later (its store may be gone): before the store stops. */
async function stopAll(children) {
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

const label = (root) => (root === repoRoot ? '.' : root)

async function main() {
  const o = options(process.argv.slice(2))
  const dir = mkdtempSync(join(tmpdir(), 'thousand-rss-'))
  const server = await mongo(o.store)
  const forge = await sandbox()
  const subjects = []
  try {
    const base = {
      ...forge.env,
      ...(server.url ? { MONGO_URI: server.url } : {}),
      ...(o.nodeOptions ? { NODE_OPTIONS: o.nodeOptions } : {}),
    }
    for (const root of o.roots) {
      const rootDir = join(dir, String(o.roots.indexOf(root)))
      mkdirSync(rootDir)
      for (const count of [o.nets, o.baseline])
        subjects.push(worker(root, rootDir, count, base, `${label(root)} N=${count}`))
    }
    await Promise.all(subjects.map((s) => s.done))
    // The next minute tick, then 5 s for its passes to finish.
    await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 5_000))
    const from = new Date().toISOString()
    console.log(`thousand-rss: sampling ${o.windowS} s from ${from} (store ${o.store})`)
    const rows = (await sample(subjects, o.windowS)).map((r, i) => ({ ...r, root: subjects[i].root }))
    console.table(rows.map(({ root, ...r }) => r))
    const ratios = compare(rows, o)
    console.table(ratios)
    if (o.json) {
      const args = process.argv.slice(2).map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a))
      const command = `node bench/thousand-rss.mjs ${args.join(' ')}`
      const result = {
        command,
        node: process.version,
        nodeOptions: o.nodeOptions,
        from,
        store: o.store,
        windowS: o.windowS,
        rows,
        ratios,
      }
      writeFileSync(o.json, `${JSON.stringify(result, null, 2)}\n`)
    }
  } finally {
    await stopAll(subjects.map((s) => s.child))
    forge.child.kill('SIGTERM')
    server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
