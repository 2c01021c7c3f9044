/**
 * The sandbox's request log over HTTP: each request with the URL asked, the validator it carried and, for a
 * conditional GET answered in full, why — what the budget scenario's points ledger explains every point by.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { type SandboxForge, startSandboxForge } from '../../src/sandbox/sandbox-forge.js'
import { call, mintToken } from './sandbox-http.js'

let sandbox: SandboxForge | undefined
afterEach(async () => {
  await sandbox?.close()
  sandbox = undefined
})

const fixture = { repos: [{ owner: 'acme', name: 'widgets', issues: [{ number: 2, title: 'Bug' }] }] }
const LIST = '/repos/acme/widgets/issues?state=all'

describe('sandbox request log', () => {
  it('logs each request with its URL, validator, paid point and why a conditional one missed', async () => {
    sandbox = await startSandboxForge({ fixture })
    const token = await mintToken(sandbox)
    const rotated = await mintToken(sandbox)
    sandbox.resetStats()
    const first = await call(sandbox, token, LIST)
    const etag = first.headers.get('etag') as string
    await call(sandbox, token, LIST, { headers: { 'if-none-match': etag } })
    await call(sandbox, rotated, LIST, { headers: { 'if-none-match': etag } })
    sandbox.store.updateIssue('acme', 'widgets', 2, { title: 'Bug, reworded' })
    await call(sandbox, token, LIST, { headers: { 'if-none-match': etag } })
    await call(sandbox, token, LIST, { headers: { 'if-none-match': 'W/"never-issued"' } })

    const log = sandbox.requestLog()
    expect(log.dropped).toBe(0)
    expect(
      log.entries.map(({ seq, url, status, spent, validator, miss }) => ({
        seq,
        url,
        status,
        spent,
        validator,
        miss,
      })),
    ).toEqual([
      { seq: 0, url: LIST, status: 200, spent: true, validator: 'none', miss: undefined },
      { seq: 1, url: LIST, status: 304, spent: false, validator: 'etag', miss: undefined },
      { seq: 2, url: LIST, status: 200, spent: true, validator: 'etag', miss: 'other-token' },
      { seq: 3, url: LIST, status: 200, spent: true, validator: 'etag', miss: 'changed' },
      { seq: 4, url: LIST, status: 200, spent: true, validator: 'etag', miss: 'unknown-etag' },
    ])
    expect(log.entries[0]).toMatchObject({ method: 'GET', route: 'GET /repos/:owner/:repo/issues' })
    sandbox.resetStats()
    expect(sandbox.requestLog().entries, 'a reset forgets the log with the counts').toEqual([])
  })
})
