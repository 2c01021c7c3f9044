/**
 * The status bodies are built once per snapshot: on a real HTTP port, a burst of `GET /status` against
 * one shared snapshot serializes it once (each request stringified the whole snapshot again), and a new
 * snapshot gets its own body.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryStore } from '../../../src/lease/memory-store.js'
import { collectStatus } from '../../../src/status/collect-status.js'
import type { StatusSnapshot } from '../../../src/status/status-snapshot.js'
import { type HealthServer, startHealthServer } from '../../../src/worker/http.js'
import { createWorkerMetrics } from '../../../src/observe/metrics.js'

let server: HealthServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

/** A real snapshot whose `notes` count how often it is read (each serialization reads it once). */
async function countedSnapshot(note: string): Promise<{ snapshot: StatusSnapshot; reads: () => number }> {
  const store = new MemoryStore()
  const collected = await collectStatus(
    {
      replica: { owner: 'host-a-1', version: '9.9.9', startedAt: new Date(0).toISOString() },
      nets: [],
      storeKind: 'memory',
      forgeScope: 'replica',
      ping: async () => true,
      serverVersion: async () => null,
      leases: () => store.list(),
      forgeHours: async () => [],
    },
    new Date('2026-12-01T10:30:00Z'),
  )
  let reads = 0
  const snapshot = Object.defineProperty({ ...collected }, 'notes', {
    enumerable: true,
    get: () => {
      reads++
      return [note]
    },
  })
  return { snapshot, reads: () => reads }
}

describe('the /status body', () => {
  it('is serialized once per snapshot however many requests read it', async () => {
    let current = await countedSnapshot('first')
    server = await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      registry: createWorkerMetrics().registry,
      ready: async () => ({ ready: true, detail: {} }),
      status: { snapshot: async () => current.snapshot, page: false },
    })
    const url = `http://127.0.0.1:${server.port}/status`
    const bodies = await Promise.all(Array.from({ length: 12 }, () => fetch(url).then((r) => r.text())))
    bodies.push(await (await fetch(url)).text())
    expect(new Set(bodies).size, 'two requests of one snapshot got different bodies').toBe(1)
    expect(JSON.parse(bodies[0]!).notes).toEqual(['first'])
    expect(current.reads(), 'the snapshot was serialized for each request').toBe(1)
    current = await countedSnapshot('second')
    expect(
      JSON.parse(await (await fetch(url)).text()).notes,
      'a new snapshot was served the old body',
    ).toEqual(['second'])
  })
})
