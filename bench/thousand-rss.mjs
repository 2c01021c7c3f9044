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
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import {
  mib,
  probeMongo,
  probeSandbox,
  repoRoot,
  sampleProcs,
  stopAll,
  waitForLines,
  writeNetsModule,
} from './rss-probe-kit.mjs'

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
  return writeNetsModule(
    join(dir, `nets-${count}.mjs`),
    root,
    `for (let i = 1; i <= ${count}; i++) net(\`probe-\${String(i).padStart(4, '0')}\`, '* * * * *', async () => {})`,
  )
}

/** One worker of `count` nets on `root`'s bundle; `done` resolves once every net was elected. */
function worker(root, dir, count, base, label) {
  const env = { ...base, PORT: '0', LOG_LEVEL: 'info' }
  if (base.MONGO_URI) env.MONGO_DB = `thousand_rss_${label.replace(/\W+/g, '_')}_${Date.now()}`
  const args = [join(root, 'dist/bundle/leasecron.js'), 'run', '--config', netsModule(dir, root, count)]
  const elected = (l) => l.includes('"msg":"elected"')
  const what = `thousand-rss: ${label}`
  const node = process.execPath
  const { child, done } = waitForLines({ node, args, env, test: elected, count, what, timeoutMs: 600_000 })
  return { label, root, count, child, done }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/** Each subject's median and largest VmRSS and RssAnon over the window (MiB). */
async function sample(subjects, windowS) {
  const samples = await sampleProcs(subjects, windowS)
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

const label = (root) => (root === repoRoot ? '.' : root)

async function main() {
  const o = options(process.argv.slice(2))
  const dir = mkdtempSync(join(tmpdir(), 'thousand-rss-'))
  const server = o.store === 'memory' ? { url: undefined, stop: () => {} } : await probeMongo('thousand-rss')
  const forge = await probeSandbox('thousand-rss')
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
