/**
 * The replica section: how replicas share the work and guard their clocks — LEASECRON_CLOCK_GUARD (stop
 * campaigning while this replica's clock is off from the store's server by more than a net's ttl/6),
 * LEASECRON_FAIR_SHARE (spread terms over the replicas; off by default until its hand-overs are measured
 * at scale: a term it moves costs a hand-over, and under a loaded store its announcements can flicker) and
 * LEASECRON_FAIR_SHARE_SLACK (how many leases above its fair share a replica keeps before it steps down
 * from the excess). Only read here; the guard is clock-guard.ts, the share fair-share.ts.
 */
import * as z from 'zod'
import type { EnvReader } from './env-reader.js'
import type { ReplicaSettings } from './worker-config.js'

/** The largest slack accepted: more would turn the fair share off by accident. */
export const MAX_SHARE_SLACK = 1000

/** Reads the replica settings; a bad value is an issue naming what was expected. */
export function readReplicas(r: EnvReader): ReplicaSettings {
  return {
    clockGuard: r.parse(
      'LEASECRON_CLOCK_GUARD',
      z.enum(['on', 'off']).transform((v) => v === 'on'),
      true,
      '`on` or `off`',
    ),
    fairShare: r.parse(
      'LEASECRON_FAIR_SHARE',
      z.enum(['on', 'off']).transform((v) => v === 'on'),
      false,
      '`on` or `off`',
    ),
    shareSlack: r.parse(
      'LEASECRON_FAIR_SHARE_SLACK',
      z
        .string()
        .trim()
        .regex(/^\d{1,4}$/)
        .transform(Number)
        .refine((n) => n <= MAX_SHARE_SLACK),
      0,
      `a whole number of leases from 0 to ${MAX_SHARE_SLACK}`,
    ),
  }
}
