import { describe, expect, it } from 'vitest'
import { MemoryGateRunStore } from '../../../src/nets/merge-gate/memory-gate-run-store.js'
import { gateRunStoreConformance } from './gate-run-store-conformance.js'

gateRunStoreConformance('MemoryGateRunStore', async () => {
  const store = new MemoryGateRunStore()
  return { store, insertDocument: async (doc) => store.insertDocument(doc) }
})

describe('MemoryGateRunStore', () => {
  it('keeps its own copies: changing a returned run changes nothing stored', async () => {
    const store = new MemoryGateRunStore()
    const updatedAt = new Date('2026-09-30T15:00:00.000Z')
    await store.record({
      id: 'r-1',
      repo: 'acme/widgets',
      pull: 1,
      headSha: 'a'.repeat(40),
      state: 'running',
      updatedAt,
    })
    const read = await store.get('r-1')
    read!.updatedAt.setTime(0)
    read!.state = 'died'
    expect(await store.get('r-1')).toMatchObject({ state: 'running', updatedAt })
  })
})
