/**
 * What the peers scenarios share of their slot files and their clock: reading back every line the handlers
 * appended (bench/peers/record-slot.mjs) and waiting for an instant of the plan. Reads and waits only.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { sleep } from './support.js'

/** Every JSON line of every file in `out`, parsed as the caller's record type (the handlers wrote them). */
export async function readSlotRecords<T>(out: string): Promise<T[]> {
  const records: T[] = []
  for (const file of await readdir(out)) {
    const text = await readFile(join(out, file), 'utf8')
    for (const line of text.split('\n')) if (line.trim()) records.push(JSON.parse(line) as T)
  }
  return records
}

/** Waits until the wall-clock instant `at` (ms); at once when it has passed. */
export const untilInstant = (at: number) => sleep(Math.max(0, at - Date.now()))
