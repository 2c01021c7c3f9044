/**
 * The latest answers of the slot functions (schedule.ts's slotAtOrBefore and nextFireTime) by schedule,
 * zone, function and whole second: an answer depends only on those (slots are whole seconds), and a
 * worker's nets that share a schedule ask the same few questions within the same second — at a minute
 * tick a thousand `* * * * *` nets each asked for the slot of now and the slot after it, and each answer
 * walked cron-parser's luxon dates anew (~0.5 MB of garbage a pass, most of what a thousand-net worker
 * allocated: issue 39).
 *
 * Kept in lru-cache (already the forge cache's and the status snapshot's): the most recently asked
 * MEMO_SIZE answers — a question is asked again within a second or two, or not for a minute. What it is
 * not: a cache of errors (a throwing walk is walked again next time).
 */
import { LRUCache } from 'lru-cache'

/** Answers kept: a tick's few distinct questions per schedule and zone, for many schedules and zones. */
export const MEMO_SIZE = 256

const kept = new LRUCache<string, number>({ max: MEMO_SIZE })

/**
 * `walk()`'s answer (ms) for `second` (an instant floored to whole seconds) under `key`: the one kept when
 * the same question was among the last MEMO_SIZE asked; else walked and kept.
 */
export function rememberedSlot(key: string, second: number, walk: () => number): number {
  const question = `${key}\u0000${second}`
  const known = kept.get(question)
  if (known !== undefined) return known
  const slot = walk()
  kept.set(question, slot)
  return slot
}
