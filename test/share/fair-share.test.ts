import { describe, expect, it } from 'vitest'
import { fairShare, rankedShare, shareDecision } from '../../src/share/fair-share.js'

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

describe('a replica’s ranked share', () => {
  it('gives the ceiling to the first replicas by owner id and the floor to the rest, adding up to the leases', () => {
    const live = ['d', 'b', 'a', 'c']
    expect(live.map((owner) => rankedShare(10, live, owner))).toEqual([2, 3, 3, 2])
    for (let leases = 0; leases <= 40; leases++)
      for (let n = 1; n <= 9; n++) {
        const owners = Array.from({ length: n }, (_, i) => `replica-${i}`)
        const shares = owners.map((o) => rankedShare(leases, owners, o))
        expect(
          shares.reduce((a, b) => a + b, 0),
          `${leases} leases on ${n} replicas: a lease without a taker, or room for a pile-up`,
        ).toBe(leases)
        expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1)
      }
  })

  it('counts this replica when its own announcement was not read back', () => {
    expect(rankedShare(10, ['b', 'c', 'd'], 'a')).toBe(3)
    expect(rankedShare(10, ['a', 'b', 'c'], 'd')).toBe(2)
    expect(rankedShare(6, [], 'a'), 'a replica alone holds everything').toBe(6)
  })

  it('settles ten leases on four replicas at 3/3/2/2 from 3/3/3/1, where the ceiling for all stays put', () => {
    const owners = ['a', 'b', 'c', 'd']
    const held = [3, 3, 3, 1]
    const shares = owners.map((o) => rankedShare(10, owners, o))
    let free = 0
    for (let i = 0; i < 4; i++) {
      const { stepDown } = shareDecision(held[i]!, shares[i]!, 0)
      held[i]! -= stepDown
      free += stepDown
    }
    for (let i = 0; i < 4 && free > 0; i++)
      while (free > 0 && shareDecision(held[i]!, shares[i]!, 0).campaign) {
        held[i]!++
        free--
      }
    expect(held, 'the holdings did not reach the best split').toEqual([3, 3, 2, 2])
    expect(
      [3, 3, 3, 1].map((h) => shareDecision(h, fairShare(10, 4), 0).stepDown),
      'the ceiling rule moves nothing at 3/3/3/1 (why ranks are needed)',
    ).toEqual([0, 0, 0, 0])
  })
})
