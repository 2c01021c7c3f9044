/**
 * followAbort: a controller that aborts when a long-lived signal does (a term's, a forge's stop), and is
 * dropped from that signal's followers as soon as its work is done.
 *
 * Why not `AbortSignal.any`: Node 20 keeps, on each source signal, an entry for every signal `any` ever
 * derived from it, until the source itself aborts (nodejs/node#55351; Node 22.12+ and 24 prune them after
 * a collection, Node 20 never does). A term's signal lives as long as the term — days for a replica that
 * keeps its leases — and each of the term's store calls and pass attempts derived one from it: about
 * 35 bytes kept per call on Node 20.20, so a worker of 1,000 every-minute nets grew by megabytes an hour
 * for as long as it held them (issue #39). Here each source has one listener and a set of followers that
 * its users leave when done, so what a source keeps is bounded by the work in flight.
 *
 * What it is not: a general combinator. A follower whose user never calls the returned `unfollow` stays
 * until the source aborts, as with `any` on Node 20: every user here unfollows in a `finally` or when
 * its bound passes.
 */

/** Each source's followers; the entry goes with the source (a WeakMap) or when the source aborts. */
const followers = new WeakMap<AbortSignal, Set<AbortController>>()

/**
 * Aborts `follower` with `source`'s reason when `source` aborts (at once when it has). Returns `unfollow`,
 * which drops `follower` from `source`'s followers and is safe to call more than once.
 */
export function followAbort(source: AbortSignal, follower: AbortController): () => void {
  if (source.aborted) {
    follower.abort(source.reason)
    return () => undefined
  }
  let set = followers.get(source)
  if (!set) {
    const created = new Set<AbortController>()
    source.addEventListener(
      'abort',
      () => {
        followers.delete(source)
        for (const f of created) f.abort(source.reason)
        created.clear()
      },
      { once: true },
    )
    followers.set(source, created)
    set = created
  }
  const own = set
  own.add(follower)
  return () => {
    own.delete(follower)
  }
}

/** How many controllers follow `source` now: what it keeps for its followers (tests read it). */
export function followerCount(source: AbortSignal): number {
  return followers.get(source)?.size ?? 0
}

/**
 * A signal that aborts when any of `sources` does, with that source's reason, and an `unfollow` that
 * drops it from all of them (call it when the work under the signal is done).
 */
export function followAny(sources: readonly AbortSignal[]): { signal: AbortSignal; unfollow(): void } {
  const follower = new AbortController()
  const unfollows = sources.map((s) => followAbort(s, follower))
  return {
    signal: follower.signal,
    unfollow: () => {
      for (const u of unfollows) u()
    },
  }
}
