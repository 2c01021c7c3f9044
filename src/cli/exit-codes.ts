/**
 * The CLI's exit codes (sysexits where one fits): the one table every command returns from. `tempfail`
 * (EX_TEMPFAIL): nothing was done because of something that passes — `backfill` found the lease held.
 */
export const EXIT = { ok: 0, failure: 1, usage: 64, tempfail: 75, config: 78, interrupted: 130 } as const
