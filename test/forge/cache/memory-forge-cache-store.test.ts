import { describe, expect, it } from 'vitest'
import { ForgeCacheBoundsError } from '../../../src/forge/cache/forge-cache-store.js'
import { MemoryForgeCacheStore } from '../../../src/forge/cache/memory-forge-cache-store.js'
import { forgeCacheStoreConformance } from './forge-cache-store-conformance.js'

forgeCacheStoreConformance('MemoryForgeCacheStore', async (bounds) => new MemoryForgeCacheStore(bounds))

describe('MemoryForgeCacheStore bounds', () => {
  it('refuses bounds that are not whole numbers of at least 1, naming the field', () => {
    expect(() => new MemoryForgeCacheStore({ maxBytes: 0 })).toThrow(ForgeCacheBoundsError)
    expect(() => new MemoryForgeCacheStore({ maxEntries: 1.5 })).toThrow(
      /maxEntries is 1.5; expected a whole number/,
    )
  })
})
