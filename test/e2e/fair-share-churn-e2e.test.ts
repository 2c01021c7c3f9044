/**
 * Churn with the fair share on: three real worker processes on six one-second nets settle 2/2/2, then a
 * steady window counts the elections. Before the count windows (share-keeper.ts) a late announcement on a
 * loaded store made terms go back and forth; now a steady window elects (almost) nobody — what is left is a
 * holder that could not prove a renewal on an overloaded machine, each such lease one election.
 */
import { describe, expect, it } from 'vitest'
import {
  SHARE_NET_NAMES as NET_NAMES,
  SHARE_RETRY as RETRY,
  SHARE_TTL as TTL,
  useShareReplicas,
} from '../support/share-replicas.js'

const WINDOW_MS = Number(process.env.LEASECRON_CHURN_WINDOW_MS ?? 30_000)

const { replica, converge, ownerOf } = useShareReplicas('churn')

describe('fair share churn across real worker processes', () => {
  it('elects no more than one term per lease in a steady window of three replicas at 2/2/2', async () => {
    const workers = [replica(), replica(), replica()]
    const owners = await Promise.all(workers.map(ownerOf))
    await converge(owners, [2, 2, 2], 'three replicas started')
    const start = Date.now()
    await new Promise((r) => setTimeout(r, WINDOW_MS))
    const inWindow = (msg: string) =>
      workers.flatMap((w) => w.lines.filter((l) => l.msg === msg && Date.parse(String(l.time)) >= start))
        .length
    const elections = inWindow('elected')
    const shareStepDowns = inWindow('stepping down: this replica holds more than its fair share')
    const unproven = inWindow('stepping down: no renewal it can prove')
    console.log(
      `fair share churn: ${elections} elections, ${shareStepDowns} share step-downs, ${unproven} renewals unproven ` +
        `in a ${WINDOW_MS} ms window of three replicas on six leases (ttl ${TTL} ms, retry ${RETRY} ms)`,
    )
    expect(
      elections,
      'terms moved back and forth in a steady window: the fair share churns',
    ).toBeLessThanOrEqual(NET_NAMES.length)
  }, 180_000)
})
