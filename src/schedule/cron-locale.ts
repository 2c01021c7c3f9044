/**
 * The locale of the luxon copy that cron-parser (the slot calculator, schedule.ts) builds its dates with:
 * pinned to `en-US` so that luxon never asks Intl for the system's locale.
 *
 * Why: luxon reads the system locale the first time it builds a date without one
 * (`new Intl.DateTimeFormat().resolvedOptions().locale`), and cron-parser builds one per slot it
 * computes, every tick. The first Intl formatter a process builds touches ~8 MiB of ICU's data in the
 * `node` binary, which stays resident: an idle worker on Node 24 carried it for a locale nothing reads
 * (bench/NOTES.md, "Where an idle worker's memory goes"). cron-parser only does calendar arithmetic in a
 * zone (UTC unless a net names one) and never formats or parses a month or weekday name, which is all a
 * locale changes in luxon; `en-US` is also what luxon falls back to.
 *
 * The bundle routes every import of luxon to the CommonJS build cron-parser requires (scripts/bundle.mjs),
 * so this sets the copy that computes the slots. Unbundled (the tests under tsx), the ES build imported
 * here is another copy: the setting then changes nothing, and nothing depends on it.
 * Not a formatting locale: nothing leasecron prints goes through luxon.
 */
import { Settings } from 'luxon'

/** Pins luxon's default locale (idempotent). */
export function pinCronLocale(): void {
  if (Settings.defaultLocale !== 'en-US') Settings.defaultLocale = 'en-US'
}
