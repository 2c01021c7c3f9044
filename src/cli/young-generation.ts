/**
 * The young generation of a `leasecron` process, kept at V8's starting size (1 MiB semi-spaces), as the
 * container image keeps it with `--max-semi-space-size=1`. The CLI's entry (main.ts) holds it for every
 * command; it is `run`, the long-running worker, that it matters for.
 *
 * Why: a worker allocates in bursts — every net's pass at the turn of a minute — and V8 answers a burst by
 * growing its new space, up to 16 MiB semi-spaces on Node 20 and 64 on Node 24, and keeps it while the
 * bursts keep coming. Side by side on Node 20, a worker of 1,000 every-minute nets sat at 205 MiB median RSS
 * before this and the logger's lighter lines, and at 106 after (bench/results/thousand-rss.json); on
 * FerretDB the peers-thousand bench measured about one more percent of a core for it (docs/benchmarks.md).
 * `npx leasecron run`, `npm start` and `node …/leasecron.js run` now get what the image gets.
 *
 * How: `--semi-space-growth-factor=1`, set once the process runs (v8.setFlagsFromString). V8 reads that
 * flag each time it would grow the new space; `--max-semi-space-size` it reads only while it sets the heap
 * up, so set from inside the process it changes nothing (measured).
 *
 * Not: applied when the process was started with a young-generation flag of its own, in node's arguments
 * or NODE_OPTIONS — the operator's choice wins, and that is how to turn this off (e.g.
 * `NODE_OPTIONS=--max-semi-space-size=16`). Not applied by the library (`createWorker` inside someone
 * else's service): their process, their heap.
 */
import v8 from 'node:v8'

/** The flag that holds the new space at its size: a growth factor of 1 grows it by nothing. */
export const HOLD_FLAG = '--semi-space-growth-factor=1'

/** Node and V8 flags that size the young generation; any of them means the operator chose. */
const OPERATOR_FLAG =
  /(?:^|\s)--(?:max|min)[-_]semi[-_]space[-_]size\b|(?:^|\s)--semi[-_]space[-_]growth[-_]factor\b/

/** What `holdYoungGeneration` did: held it, or left it to the flag the process was started with. */
export type YoungGeneration = { held: true } | { held: false; operatorFlag: string }

/**
 * The young-generation flag among `execArgv` and `nodeOptions` (the process's own node arguments and
 * NODE_OPTIONS), or undefined when neither sizes it.
 */
export function operatorYoungFlag(
  execArgv: readonly string[],
  nodeOptions: string | undefined,
): string | undefined {
  return [...execArgv, ...(nodeOptions ?? '').split(/\s+/)].find((a) => OPERATOR_FLAG.test(a))
}

/**
 * Holds this process's young generation at its starting size unless the operator sized it
 * (operatorYoungFlag). Never throws: setting a V8 flag that exists cannot fail, and Node 20 and 24 both
 * name this one.
 */
export function holdYoungGeneration(
  execArgv: readonly string[],
  nodeOptions: string | undefined,
): YoungGeneration {
  const operatorFlag = operatorYoungFlag(execArgv, nodeOptions)
  if (operatorFlag === undefined) v8.setFlagsFromString(HOLD_FLAG)
  outcome = operatorFlag === undefined ? { held: true } : { held: false, operatorFlag }
  return outcome
}

let outcome: YoungGeneration | undefined

/** What holdYoungGeneration did in this process; undefined when it was not called (the library, a test). */
export function youngGenerationOutcome(): YoungGeneration | undefined {
  return outcome
}
