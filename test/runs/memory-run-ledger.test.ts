import { describe, expect, it } from 'vitest'
import { MemoryRunLedger } from '../../src/runs/memory-run-ledger.js'
import { runLedgerConformance } from './run-ledger-conformance.js'

runLedgerConformance('MemoryRunLedger', async () => new MemoryRunLedger())

describe('MemoryRunLedger', () => {
  it('keeps its own copies: changing a returned record changes nothing stored', async () => {
    const ledger = new MemoryRunLedger()
    const slot = new Date('2026-09-30T15:00:00.000Z')
    await ledger.claim({ net: 'n', slot, owner: 'o', fence: 1, startedAt: slot })
    const read = await ledger.get('n', slot)
    read!.slot.setTime(0)
    read!.owner = 'x'
    expect(await ledger.get('n', slot)).toMatchObject({ owner: 'o', slot })
  })
})
