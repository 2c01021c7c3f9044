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
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import {
  mib,
  probeMongo,
  probeSandbox,
  repoRoot,
  sampleProcs,
  start,
  waitForLines,
} from './rss-probe-kit.mjs'
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
  const test = (l) => l.includes('"msg":"elected"')
  const { child, done } = waitForLines({ node: runtime.node, args, env, test, what: `idle-rss: ${label}` })
  return { label, child, elected: done }
}

const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length

/** Each subject's mean VmRSS, RssAnon and RssFile over the window, and its largest VmRSS (MiB). */
async function sample(subjects, windowS) {
  const samples = await sampleProcs(subjects, windowS)
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
  const server = await probeMongo('idle-rss')
  const forge = await probeSandbox('idle-rss')
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
