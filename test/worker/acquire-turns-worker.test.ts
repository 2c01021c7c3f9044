/**
 * A worker's campaigns take turns for their acquires (src/lease/acquire-turns.ts, issue #39): a replica
 * starting with many nets sends one acquire at a time on its lease lane, so the lane's other connection is
 * free for the renewals of the terms it has already won. On the run's real server, counted by command
 * monitoring on the lane's client; without the turns, the lane carries two acquires at once.
 */
import type { MongoClient } from 'mongodb'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { defineLease, defineNet, type LeaseDefinition, type NetDefinition } from '../../src/index.js'
import { termCallBoundMs } from '../../src/lease/call-bound.js'
import { leasePacing } from '../../src/leases.js'
import { createLogger } from '../../src/observe/logger.js'
import { openRuntime } from '../../src/worker/runtime.js'
import { assembleWorker } from '../../src/worker/worker.js'
import { setUpWorker } from '../../src/worker/worker-setup.js'
import { mongoServer, useTestDatabase } from '../support/mongo.js'

const NETS = 12
const server = mongoServer()
const closing: Array<() => Promise<unknown>> = []
afterAll(async () => {
  for (const close of closing.reverse()) await close()
})

function turnNets(): { nets: NetDefinition[]; leases: LeaseDefinition[] } {
  const leases = Array.from({ length: NETS }, (_, i) => defineLease(`turns-${i}`, `acquire turns ${i}`))
  const nets = leases.map((lease) =>
    defineNet({
      name: lease.name,
      lease: lease.name,
      schedule: '0 0 1 1 *',
      description: 'does nothing',
      options: {},
      setup: () => undefined,
      term: () => async () => undefined,
    }),
  )
  return { nets, leases }
}

/**
 * How long a campaign waits for its acquire's answer (the nets' default TTL of 30 s, a third of it):
 * past it, it gives the acquire up and its turn ends, though the command may still be on the wire.
 */
const ACQUIRE_BOUND_MS = termCallBoundMs(leasePacing(60_000).ttlMs)

/**
 * The lease lane's acquires (findAndModify on `leases`): how many were sent, and the most at once that a
 * campaign still waited for. One its campaign gave up (older than its bound, on a loaded machine) ended
 * its turn and is not counted beside the next.
 */
function countAcquires(client: MongoClient, seen: { sent: number; most: number }) {
  const acquires = new Map<number, number>()
  const settled = (event: { requestId: number }) => acquires.delete(event.requestId)
  client.on('commandStarted', (event) => {
    if (event.commandName !== 'findAndModify') return
    const now = Date.now()
    acquires.set(event.requestId, now)
    seen.sent++
    const awaited = [...acquires.values()].filter((sentAt) => now - sentAt < ACQUIRE_BOUND_MS).length
    seen.most = Math.max(seen.most, awaited)
  })
  client.on('commandSucceeded', settled)
  client.on('commandFailed', settled)
}

describe(`a worker starting with ${NETS} nets on ${server.description}`, () => {
  it('sends its acquires one at a time on the lease lane and is elected for every net', async () => {
    const database = await useTestDatabase('acquire_turns')
    const seen = { sent: 0, most: 0 }
    const { nets, leases } = turnNets()
    const options = {
      nets,
      leases,
      logger: createLogger({ level: 'silent' }),
      env: {
        LEASECRON_FORGE: 'sandbox',
        MONGO_URI: `${server.url}${server.url.includes('?') ? '&' : '?'}monitorCommands=true`,
        MONGO_DB: database.db.databaseName,
        PORT: '0',
      },
    }
    const worker = assembleWorker(options, setUpWorker(options), (runtimeOptions) =>
      openRuntime({
        ...runtimeOptions,
        onMongoClient: (client) => {
          if (client.options.appName === 'leasecron-lease') countAcquires(client, seen)
        },
      }),
    )
    closing.push(() => worker.stop())
    await worker.start()
    await vi.waitFor(
      async () => {
        const held = await database.db.collection('leases').countDocuments({ expiresAt: { $gt: new Date() } })
        expect(held, `the worker was not elected for all ${NETS} nets`).toBe(NETS)
      },
      { timeout: 30_000, interval: 200 },
    )
    expect(seen.sent, 'no acquire was seen on the lease lane: the count is broken').toBeGreaterThanOrEqual(
      NETS,
    )
    expect(
      seen.most,
      'the worker sent several acquires at once: at 1,000 nets they queue ahead of its renewals',
    ).toBe(1)
  }, 60_000)
})
