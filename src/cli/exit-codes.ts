/** The CLI's exit codes (sysexits where one fits): the one table every command returns from. */
export const EXIT = { ok: 0, failure: 1, usage: 64, config: 78, interrupted: 130 } as const
