/**
 * Scenario `takeover`: how long the merge-gate sweeper goes without a pass when its holder stops. Three
 * built workers (`leasecron run`, the sweeper every second: TTL 3 s, retry 1 s, jitter up to +20%) share a
 * fresh database and the sandbox forge; 20 trials each of SIGTERM (clean) and SIGKILL (crash) of the
 * holder, alternating, each at a random phase (a uniform 0–1000 ms after one of its pass starts). A trial
 * measures from the signal to the first pass another process starts (its `pass-start` log line), and a
 * fresh worker replaces the stopped one before the next trial.
 *
 * Bounds (ADR-117): clean ≤ retry + one tick; crash ≤ TTL + retry + one tick — reported nominal and with
 * the retry's +20% jitter. Not a check: it records each trial and counts the ones over the bound.
 */
import { randomInt } from 'node:crypto'
import {
  type BenchContext,
  type Child,
  distribution,
  NETS,
  QUICK,
  sleep,
  spawnNode,
  startSandboxProcess,
  table,
  WORKER_MAIN,
  workerEnv,
  writeResult,
} from '../support.js'
import { seedGatingRuns } from './replicas.js'

export const TRIALS_PER_KIND = QUICK ? 2 : 20
/** Directed trials: SIGTERM 30 ms into a pass, so a pass is in flight when the stop begins. */
export const MID_PASS_TRIALS = QUICK ? 1 : 5
const MID_PASS_DELAY_MS = 30
const POOL = 3
const TTL_MS = 3_000
const RETRY_MS = 1_000
const TICK_MS = 1_000
const JITTER = 0.2
const NET = 'merge-gate-sweeper'

export const BOUNDS = {
  clean: { nominalMs: RETRY_MS + TICK_MS, withJitterMs: RETRY_MS * (1 + JITTER) + TICK_MS },
  crash: { nominalMs: TTL_MS + RETRY_MS + TICK_MS, withJitterMs: TTL_MS + RETRY_MS * (1 + JITTER) + TICK_MS },
}

interface Trial {
  kind: 'clean' | 'crash' | 'clean-mid-pass'
  phaseMs: number
  takeoverMs: number
  /** From the signal to the successor's `elected` line. */
  electedMs: number | undefined
  /** From the signal to the stopped holder's `released` line (clean stops only). */
  releasedMs: number | undefined
  /** The holder logged that passes were still running at its shutdown timeout (so no orderly release). */
  shutdownTimedOut: boolean
  /** From the signal to the holder's exit. */
  exitedMs: number
  exitCode: number | null
}

const keep = (l: { event?: unknown; msg?: unknown }) =>
  l.event === 'pass-start' ||
  l.msg === 'elected' ||
  l.msg === 'campaigning' ||
  l.msg === 'released' ||
  String(l.msg).startsWith('passes still running')

export async function runTakeover(context: BenchContext): Promise<string> {
  const startedAt = Date.now()
  const sandbox = await startSandboxProcess()
  const dbName = context.database('takeover')
  await seedGatingRuns(context.mongo.url, dbName, new Date())
  const env = workerEnv({
    ...sandbox.env,
    MONGO_URI: context.mongo.url,
    MONGO_DB: dbName,
    LEASECRON_NET_MERGE_GATE_SWEEPER_SCHEDULE: '* * * * * *',
    LEASECRON_NET_BOARD_ISSUE_SYNC_ENABLED: 'false',
  })
  let spawned = 0
  const pool: Child[] = []
  const spawnOne = () => {
    const w = spawnNode(`worker-${++spawned}`, WORKER_MAIN, ['run', '--config', NETS.product], env, keep)
    pool.push(w)
    return w
  }
  const trials: Trial[] = []
  try {
    for (let i = 0; i < POOL; i++) spawnOne()
    const latestPass = () =>
      pool
        .flatMap((w) =>
          w.lines
            .filter((l) => l.event === 'pass-start' && l.net === NET)
            .map((l) => ({ w, at: Number(l.at) })),
        )
        .sort((a, b) => b.at - a.at)[0]
    let since = 0
    const total = TRIALS_PER_KIND * 2 + MID_PASS_TRIALS
    for (let t = 0; t < total; t++) {
      const kind: Trial['kind'] =
        t >= TRIALS_PER_KIND * 2 ? 'clean-mid-pass' : t % 2 === 0 ? 'clean' : 'crash'
      await Promise.all(pool.map((w) => w.waitFor((l) => l.msg === 'campaigning', 30_000, 'a campaign')))
      // The holder: whoever started the latest pass, after the previous trial's takeover.
      await Promise.any(
        pool.map((w) =>
          w.waitFor(
            (l) => l.event === 'pass-start' && l.net === NET && Number(l.at) > since,
            30_000,
            'a pass',
          ),
        ),
      )
      let holder = latestPass()!.w
      let phaseMs = randomInt(0, 1000)
      if (kind === 'clean-mid-pass') {
        const mark = Date.now()
        const fresh = await Promise.any(
          pool.map((w) =>
            w
              .waitFor(
                (l) => l.event === 'pass-start' && l.net === NET && Number(l.at) > mark,
                30_000,
                'a pass',
              )
              .then((line) => ({ w, at: Number(line.at) })),
          ),
        )
        holder = fresh.w
        phaseMs = MID_PASS_DELAY_MS
        await sleep(Math.max(0, fresh.at + MID_PASS_DELAY_MS - Date.now()))
      } else {
        await sleep(phaseMs)
      }
      const sentAt = Date.now()
      holder.child.kill(kind === 'crash' ? 'SIGKILL' : 'SIGTERM')
      const others = pool.filter((w) => w !== holder)
      const next = await Promise.any(
        others.map((w) =>
          w
            .waitFor(
              (l) => l.event === 'pass-start' && l.net === NET && Number(l.at) > sentAt,
              30_000,
              'a takeover pass',
            )
            .then((line) => ({ w, line })),
        ),
      )
      const elected = next.w.lines.find(
        (l) => l.msg === 'elected' && Number(new Date(String(l.time))) >= sentAt,
      )
      const { code } = await holder.exited
      const exitedMs = Date.now() - sentAt
      const released = holder.lines.find((l) => l.msg === 'released' && Date.parse(String(l.time)) >= sentAt)
      pool.splice(pool.indexOf(holder), 1)
      trials.push({
        kind,
        phaseMs,
        takeoverMs: Number(next.line.at) - sentAt,
        electedMs: elected ? Number(new Date(String(elected.time))) - sentAt : undefined,
        releasedMs: released ? Date.parse(String(released.time)) - sentAt : undefined,
        shutdownTimedOut: holder.lines.some((l) => String(l.msg).startsWith('passes still running')),
        exitedMs,
        exitCode: code,
      })
      since = Number(next.line.at)
      console.log(`bench takeover: trial ${t + 1}/${total} ${kind}: ${Number(next.line.at) - sentAt} ms`)
      spawnOne()
    }
  } finally {
    await Promise.all(pool.map((w) => w.stop('SIGTERM', 10_000)))
    await sandbox.child.stop()
  }
  const summary = Object.fromEntries(
    (['clean', 'crash', 'clean-mid-pass'] as const).map((kind) => {
      const mine = trials.filter((t) => t.kind === kind)
      const takeover = distribution(mine.map((t) => t.takeoverMs))
      const bound = BOUNDS[kind === 'crash' ? 'crash' : 'clean']
      return [
        kind,
        {
          takeover,
          elected: distribution(mine.flatMap((t) => (t.electedMs === undefined ? [] : [t.electedMs]))),
          released: distribution(mine.flatMap((t) => (t.releasedMs === undefined ? [] : [t.releasedMs]))),
          bound,
          overNominal: mine.filter((t) => t.takeoverMs > bound.nominalMs).length,
          overWithJitter: mine.filter((t) => t.takeoverMs > bound.withJitterMs).length,
          maxOverWithJitterMs: Math.max(0, takeover.maxMs - bound.withJitterMs),
          exitCodes: [...new Set(mine.map((t) => t.exitCode))],
          shutdownTimedOut: mine.filter((t) => t.shutdownTimedOut).length,
          releasedInOrder: mine.filter((t) => t.releasedMs !== undefined).length,
        },
      ]
    }),
  )
  const path = await writeResult('takeover', context, startedAt, {
    inputs: {
      workers: POOL,
      net: `${NET}, schedule * * * * * * (every second)`,
      ttlMs: TTL_MS,
      retryMs: RETRY_MS,
      retryJitter: `up to +${JITTER * 100}%`,
      tickMs: TICK_MS,
      trialsPerKind: TRIALS_PER_KIND,
      order: 'alternating clean, crash; then the directed clean-mid-pass trials',
      midPassTrials: MID_PASS_TRIALS,
      midPass: `SIGTERM ${MID_PASS_DELAY_MS} ms after the holder's pass start (a sweep takes about 100 ms here), so a pass is in flight when the stop begins`,
      phase: 'a uniform 0–999 ms after one of the holder’s pass starts',
      measured:
        'signal sent → the first pass-start logged by another process (wall-clock ms in the log line); electedMs: → its elected line',
      replacement: 'a fresh worker joins after each trial, so three processes campaign at every trial',
    },
    summary,
    trials,
  })
  const rows = [['kind', 'n', 'min ms', 'median ms', 'p95 ms', 'max ms', 'bound ms (+jitter)', 'over bound']]
  for (const [kind, s] of Object.entries(summary)) {
    rows.push([
      kind,
      String(s.takeover.n),
      String(s.takeover.minMs),
      String(s.takeover.medianMs),
      String(s.takeover.p95Ms),
      String(s.takeover.maxMs),
      `${s.bound.nominalMs} (${s.bound.withJitterMs})`,
      `${s.overNominal} (${s.overWithJitter})`,
    ])
  }
  console.log(`\n${table(rows)}\n`)
  console.log(`bench takeover: wrote ${path}`)
  return path
}
