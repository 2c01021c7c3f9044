/**
 * What a net's `term` returns must be the pass function, on every path alike. An `async term` (a Promise
 * of the pass) ran under `runOnePass` and `once`, which await what they build, while the worker failed
 * each pass with "spec.pass is not a function": a net's test passed and the worker it was tested for did
 * not run it. Now both refuse it with a NetTermError naming the net and the fix.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { createWorker, defineLease, defineNet, type Pass, type Logger } from '../../src/index.js'
import { startSandboxForge } from '../../src/sandbox.js'
import { runOnePass } from '../../src/testing.js'

const sandbox = await startSandboxForge({ fixture: { repos: [] } })
afterAll(() => sandbox.close())

const lease = defineLease('async-term', 'a net whose term is async')
let passes = 0
// What a JavaScript author writes by habit; TypeScript would refuse it, so the cast stands for plain JS.
const asyncTerm = defineNet({
  name: 'async-term',
  lease: lease.name,
  schedule: '* * * * * *',
  description: 'its term is async',
  options: {},
  setup: () => undefined,
  term: (async () => async () => void passes++) as unknown as () => Pass,
})
const EXPECTED =
  /net "async-term": term\(\) returned a Promise; expected the pass function.*make term itself not async/

/** A logger that keeps every line with its fields, as the worker hands them to pino. */
function capturingLogger(lines: { msg: string; fields: Record<string, unknown> }[]): Logger {
  const at = (bindings: Record<string, unknown>) => (fields: object, msg?: string) =>
    void lines.push({ msg: msg ?? '', fields: { ...bindings, ...fields } })
  const logger = (bindings: Record<string, unknown>): Logger => ({
    debug: at(bindings),
    info: at(bindings),
    warn: at(bindings),
    error: at(bindings),
    child: (more) => logger({ ...bindings, ...more }),
  })
  return logger({})
}

let stop: (() => Promise<void>) | undefined
afterEach(async () => {
  await stop?.()
  stop = undefined
})

describe("a net's term", () => {
  it('is refused under runOnePass when it returns a Promise, so the test fails as the worker would', async () => {
    const run = await runOnePass(asyncTerm, { forge: sandbox, slot: new Date('2026-09-30T15:00:00Z') })
    expect(run.record).toMatchObject({ outcome: 'failed' })
    expect(run.record?.error).toMatch(EXPECTED)
    expect(passes, 'the pass ran').toBe(0)
  })

  it('fails the worker’s passes with the same words, not "spec.pass is not a function"', async () => {
    const lines: { msg: string; fields: Record<string, unknown> }[] = []
    const worker = createWorker({
      nets: [asyncTerm],
      leases: [lease],
      env: { PORT: '0' },
      logger: capturingLogger(lines),
    })
    await worker.start()
    stop = () => worker.stop()
    const failure = () => lines.find((l) => l.fields.net === 'async-term' && /failed/.test(l.msg))
    await expect.poll(failure, { timeout: 10_000 }).toBeDefined()
    const err = failure()!.fields.err as { name?: string; message?: string; code?: string }
    expect(err.message).toMatch(EXPECTED)
    expect(err).toMatchObject({ name: 'NetTermError', code: 'NET_TERM_NOT_A_PASS' })
    expect(passes).toBe(0)
  })
})
