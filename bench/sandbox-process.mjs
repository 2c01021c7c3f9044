// The sandbox forge in a process of its own, for the benchmarks: starts it from the built dist/ with the
// generator options in BENCH_SANDBOX (JSON) and a rate limit no bench can reach, prints one JSON line
// `{ url, appId, installationId, privateKey }` on stdout, then serves until SIGTERM. Its ground-truth
// request counts are read and reset over HTTP (`GET /_sandbox/stats`, `POST /_sandbox/stats/reset`).
// BENCH_SANDBOX_INSTALLATIONS=N (the installations bench): the App has N installations instead of one,
// ids 1001…1000+N on accounts `org-1`…`org-N`, each seeing one repository of its own (no generated data).
// Not a fixture loader and not a forge for anything but loopback benches.
import { startSandboxForge } from '../dist/src/sandbox.js'

const generate = JSON.parse(
  process.env.BENCH_SANDBOX ?? '{"repos":3,"pullsPerRepo":12,"issuesPerRepo":20,"seed":1}',
)
const count = Number(process.env.BENCH_SANDBOX_INSTALLATIONS ?? 0)
const accounts = Array.from({ length: count }, (_, i) => ({ id: 1001 + i, account: `org-${i + 1}` }))
const data =
  count > 0
    ? { fixture: { repos: accounts.map((a) => ({ owner: a.account, name: 'repo', id: 5000 + a.id })) } }
    : { generate }
const sandbox = await startSandboxForge({
  ...data,
  ...(count > 0 ? { installations: accounts } : {}),
  rateLimit: { limit: 1_000_000_000 },
})
process.stdout.write(
  `${JSON.stringify({
    url: sandbox.url,
    appId: sandbox.appId,
    installationId: sandbox.installationId,
    privateKey: sandbox.privateKey,
  })}\n`,
)
const stop = async () => {
  await sandbox.close()
  process.exit(0)
}
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
