/**
 * A read-only command against a MongoDB that does not answer says that it waits, and for how long at most,
 * before the driver gives up (~5 s): before, `status`, `history` and `pause` sat silent for those seconds
 * and then printed the error. Run through the CLI's own entry against a loopback port nothing listens on.
 */
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli.js'
import { freePort } from '../support/free-port.js'

describe('a command whose MongoDB does not answer', () => {
  it('says it waits for MongoDB before it gives up, then why it gave up', async () => {
    const port = await freePort()
    const err: { at: number; line: string }[] = []
    const started = Date.now()
    const code = await main(['status'], {
      out: () => undefined,
      err: (line) => err.push({ at: Date.now() - started, line }),
      env: { MONGO_URI: `mongodb://127.0.0.1:${port}/`, MONGO_DB: 'unreachable' },
    })
    expect(code).toBe(1)
    const waiting = err.find((e) => e.line.includes('waiting for MongoDB'))
    expect(waiting, `the wait was silent; it said only: ${err.map((e) => e.line).join(' | ')}`).toBeDefined()
    expect(waiting!.line).toContain(
      'leasecron status: waiting for MongoDB (MONGO_URI) to answer (at most 5 s)',
    )
    const failed = err.find((e) => e.line.includes('did not answer'))
    expect(failed, 'the command no longer says why it gave up').toBeDefined()
    expect(waiting!.at, 'the notice came only with the error, seconds into the wait').toBeLessThan(
      failed!.at - 1_000,
    )
  }, 30_000)
})
