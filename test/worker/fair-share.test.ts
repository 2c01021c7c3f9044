import { describe, expect, it } from 'vitest'
import { fairShare, shareDecision } from '../../src/worker/fair-share.js'

describe('the fair share', () => {
  it('is the ceiling of leases over live replicas', () => {
    expect(fairShare(10, 3)).toBe(4)
    expect(fairShare(9, 3)).toBe(3)
    expect(fairShare(1, 10), 'a lone lease left nobody able to campaign for it').toBe(1)
    expect(fairShare(0, 3)).toBe(0)
  })

  it('counts this replica alive when no announcement was read back', () => {
    expect(fairShare(6, 0)).toBe(6)
  })

  it('refuses counts that are not whole numbers, naming which', () => {
    expect(() => fairShare(-1, 2)).toThrow(/leases must be a whole number/)
    expect(() => fairShare(3, 1.5)).toThrow(/liveReplicas must be a whole number/)
  })

  it('gives every lease a holder: the shares of all live replicas cover the leases', () => {
    for (let leases = 0; leases <= 60; leases++)
      for (let replicas = 1; replicas <= 12; replicas++)
        expect(
          replicas * fairShare(leases, replicas),
          `${leases} leases on ${replicas} replicas`,
        ).toBeGreaterThanOrEqual(leases)
  })
})

describe('a replica’s decision under its share', () => {
  it('campaigns only while under its share', () => {
    expect(shareDecision(2, 3, 0)).toEqual({ campaign: true, stepDown: 0 })
    expect(shareDecision(3, 3, 0)).toEqual({ campaign: false, stepDown: 0 })
  })

  it('keeps up to the slack above its share, and beyond it steps down to the share itself', () => {
    expect(shareDecision(4, 3, 1), 'a holder within its slack stepped down').toEqual({
      campaign: false,
      stepDown: 0,
    })
    expect(shareDecision(5, 3, 1)).toEqual({ campaign: false, stepDown: 2 })
    expect(shareDecision(6, 3, 0), 'a replica alone before another joined kept all six').toEqual({
      campaign: false,
      stepDown: 3,
    })
  })

  it('converges: two replicas starting 6 and 0 on 6 leases end 3 and 3, whoever takes the freed leases first', () => {
    let a = 6
    let b = 0
    const share = fairShare(6, 2)
    a -= shareDecision(a, share, 0).stepDown
    let free = 6 - a - b
    // Each free lease goes to whoever may still campaign; A may not (it holds its share).
    while (free > 0) {
      if (shareDecision(a, share, 0).campaign) a++
      else if (shareDecision(b, share, 0).campaign) b++
      free--
    }
    expect([a, b]).toEqual([3, 3])
  })
})
