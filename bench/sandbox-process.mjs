// The sandbox forge in a process of its own, for the benchmarks: starts it from the built dist/ with the
// generator options in BENCH_SANDBOX (JSON) and a rate limit no bench can reach, prints one JSON line
// `{ url, appId, installationId, privateKey }` on stdout, then serves until SIGTERM. Its ground-truth
// request counts are read and reset over HTTP (`GET /_sandbox/stats`, `POST /_sandbox/stats/reset`).
// Not a fixture loader and not a forge for anything but loopback benches.
import { startSandboxForge } from '../dist/src/sandbox.js'

const generate = JSON.parse(
  process.env.BENCH_SANDBOX ?? '{"repos":3,"pullsPerRepo":12,"issuesPerRepo":20,"seed":1}',
)
const sandbox = await startSandboxForge({ generate, rateLimit: { limit: 1_000_000_000 } })
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
