/**
 * The bounds of one `leasecron backfill`: numbers only, in a file of their own so that the CLI's help
 * can name them without loading the slot calculator (cron-parser, luxon) that backfill-plan.ts uses.
 */

/** Above this many slots, a backfill runs only with `--yes`. */
export const BACKFILL_CONFIRM_ABOVE = 100

/** The most slots one backfill lists or runs; a larger range is split (listing is ~0.5 ms a slot). */
export const BACKFILL_MAX_SLOTS = 10_000
