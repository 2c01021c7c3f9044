/**
 * followAbort and followAny: a follower ends with its source, and a source keeps only the followers still at
 * work (what AbortSignal.any keeps on Node 20 grows with every call: follow-abort.ts).
 */
import { describe, expect, it } from 'vitest'
import { followAbort, followAny, followerCount } from '../../src/lease/follow-abort.js'

describe('followAbort', () => {
  it('aborts a follower with its source’s reason', () => {
    const source = new AbortController()
    const follower = new AbortController()
    followAbort(source.signal, follower)
    source.abort(new Error('term ended'))
    expect(follower.signal.aborted, 'a call would outlive its term').toBe(true)
    expect(follower.signal.reason).toMatchObject({ message: 'term ended' })
  })

  it('aborts a follower at once when its source has already aborted', () => {
    const source = new AbortController()
    source.abort(new Error('already over'))
    const follower = new AbortController()
    followAbort(source.signal, follower)
    expect(follower.signal.reason).toMatchObject({ message: 'already over' })
    expect(followerCount(source.signal), 'an aborted source would keep a follower').toBe(0)
  })

  it('keeps only the followers still at work, and leaves one that unfollowed alone', () => {
    const source = new AbortController()
    const done = Array.from({ length: 1_000 }, () => new AbortController())
    for (const f of done) followAbort(source.signal, f)()
    const working = new AbortController()
    const unfollow = followAbort(source.signal, working)
    expect(followerCount(source.signal), 'finished calls would stay on the term for its life').toBe(1)
    unfollow()
    unfollow()
    expect(followerCount(source.signal)).toBe(0)
    source.abort()
    expect(done.some((f) => f.signal.aborted) || working.signal.aborted, 'a finished call was aborted').toBe(
      false,
    )
  })
})

describe('followAny', () => {
  it('aborts with the first of its sources to abort, and leaves every source when unfollowed', () => {
    const term = new AbortController()
    const job = new AbortController()
    const link = followAny([term.signal, job.signal])
    job.abort(new Error('pause --abort'))
    term.abort(new Error('term ended'))
    expect(link.signal.reason).toMatchObject({ message: 'pause --abort' })

    const later = new AbortController()
    const other = followAny([later.signal, new AbortController().signal])
    expect(followerCount(later.signal)).toBe(1)
    other.unfollow()
    expect(followerCount(later.signal), 'a finished pass would stay on the term').toBe(0)
  })
})
