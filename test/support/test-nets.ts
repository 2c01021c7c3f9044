/**
 * Small nets for worker tests: real NetDefinitions whose passes record what they were given.
 */
import { defineLease, defineNet, durationOption, integerOption, type PassContext } from '../../src/index.js'

export const TICK_LEASE = defineLease('tick-net', 'test net')
export const OTHER_LEASE = defineLease('other-net', 'test net')
export const TEST_LEASES = [TICK_LEASE, OTHER_LEASE]

export interface PassRecord {
  pass: number
  termId: number
  aborted: boolean
  lane?: string
  /** The schedule slot (ISO) and the term's fence the pass was given. */
  slot?: string
  fence?: number
  /** When the pass began, on the process's clock (Date.now(): fake timers move it). */
  at?: number
}

/** A net whose passes take `passMs` (or until aborted) and record themselves; terms are numbered. */
export function recordingNet(
  options: {
    name?: string
    lease?: string
    schedule?: string
    passMs?: () => number
    fail?: (pass: number) => boolean
  } = {},
) {
  const passes: PassRecord[] = []
  let terms = 0
  const net = defineNet({
    name: options.name ?? 'tick-net',
    lease: options.lease ?? TICK_LEASE.name,
    schedule: options.schedule ?? '* * * * * *',
    description: 'records its passes',
    options: { DEPTH: integerOption(3, { min: 1, max: 10 }), WINDOW: durationOption('60m') },
    setup: () => ({ created: Date.now() }),
    term: () => {
      const termId = ++terms
      return async (ctx: PassContext) => {
        const record: PassRecord = {
          pass: ctx.pass,
          termId,
          aborted: false,
          slot: ctx.slot.toISOString(),
          fence: ctx.fence,
          at: Date.now(),
        }
        passes.push(record)
        if (options.fail?.(ctx.pass)) throw new Error(`pass ${ctx.pass} failed on purpose`)
        const ms = options.passMs?.() ?? 0
        if (ms > 0) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, ms)
            ctx.signal.addEventListener(
              'abort',
              () => {
                clearTimeout(timer)
                record.aborted = true
                resolve()
              },
              { once: true },
            )
          })
        }
      }
    },
  })
  return { net, passes, terms: () => terms }
}
