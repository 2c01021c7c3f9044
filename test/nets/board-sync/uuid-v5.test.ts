import { describe, expect, it } from 'vitest'
import { cardId, initialColumn } from '../../../src/nets/board-sync/card.js'
import { NAMESPACE_URL, uuidV5 } from '../../../src/nets/board-sync/uuid-v5.js'

const NAMESPACE_DNS = '6ba7b810-9dad-11d1-80b4-00c04fd430c8'

describe('uuidV5', () => {
  it('matches known UUIDv5 values (Python’s uuid.uuid5 gives the same)', () => {
    expect(uuidV5(NAMESPACE_DNS, 'python.org')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d')
    expect(uuidV5(NAMESPACE_URL, 'leasecron:board-card')).toBe('cd15b039-85ac-5d8f-b0c6-1f27b46529e7')
  })

  it('sets version 5 and the RFC variant, and accepts an uppercase namespace', () => {
    const id = uuidV5(NAMESPACE_DNS.toUpperCase(), 'héllo ✓')
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(id).toBe(uuidV5(NAMESPACE_DNS, 'héllo ✓'))
  })

  it('refuses a namespace that is not a UUID', () => {
    expect(() => uuidV5('not-a-uuid', 'x')).toThrow(/namespace must be a UUID/)
  })
})

describe('card ids and columns', () => {
  it('gives one stable id per issue, whatever the case of the repository name', () => {
    expect(cardId('Acme/Widgets', 7)).toBe(cardId('acme/widgets', 7))
    expect(cardId('acme/widgets', 7)).not.toBe(cardId('acme/widgets', 8))
    expect(cardId('acme/widgets', 7)).not.toBe(cardId('acme/gadgets', 7))
  })

  it('lands new open issues by author association, new closed ones in done', () => {
    for (const a of ['OWNER', 'MEMBER', 'COLLABORATOR'])
      expect(initialColumn({ state: 'open', authorAssociation: a })).toBe('triage')
    for (const a of ['CONTRIBUTOR', 'FIRST_TIME_CONTRIBUTOR', 'FIRST_TIMER', 'NONE']) {
      expect(initialColumn({ state: 'open', authorAssociation: a })).toBe('needs-approval')
    }
    expect(initialColumn({ state: 'closed', authorAssociation: 'NONE' })).toBe('done')
  })
})
