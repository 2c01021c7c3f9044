/**
 * Small text helpers for the status page: HTML escaping and the human forms of counts, durations and
 * instants. Hand-written because the page is a few string templates, not worth a template engine.
 *
 * The page's rule: every value interpolated into it passes through `esc` (text) or `num` (a figure), even
 * one the snapshot's type calls a number — the snapshot is built from store documents, and a document is
 * whatever was written into the collection.
 */
import { formatLocal } from '../../schedule/zoned-time.js'

/** Escapes text for HTML element content and double-quoted attributes (the page's one escaping helper). */
export function esc(value: unknown): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
}

/** A figure as digits (`1234`, `0.5`); anything but a finite number shows as `?`, never as its text. */
export function num(value: unknown): string {
  return typeof value === 'number' && Number.isFinite(value) ? esc(String(value)) : '?'
}

/** A figure for arithmetic: the value when it is a finite number, else 0 (charts draw what they can). */
export function figure(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0
}

/** `850 ms`, `12.3 s`, `4 min 05 s`, `2 h 10 min`, `3 d 4 h`. */
export function duration(ms: number): string {
  const sign = ms < 0 ? '−' : ''
  const a = Math.abs(ms)
  if (a < 1_000) return `${sign}${Math.round(a)} ms`
  if (a < 60_000) return `${sign}${(a / 1_000).toFixed(1)} s`
  const s = Math.floor(a / 1_000)
  if (a < 3_600_000) return `${sign}${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`
  const m = Math.floor(s / 60)
  if (a < 86_400_000) return `${sign}${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`
  return `${sign}${Math.floor(m / 1440)} d ${Math.floor((m % 1440) / 60)} h`
}

/**
 * `2026-12-01 01:02:03 UTC`, in `timeZone` (UTC by default), with the zone's short name; `iso` as it is
 * when it is not an instant or the zone is unknown (a page that cannot format one value still renders).
 */
export function instant(iso: string, timeZone = 'UTC'): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return String(iso)
  try {
    return formatInstant(date, timeZone)
  } catch {
    return String(iso)
  }
}

function formatInstant(date: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  }).formatToParts(date)
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? ''
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}:${get('second')} ${get('timeZoneName')}`
}

/** `2026-03-29 03:00 +02:00`: `iso` in `timeZone` with its offset; `iso` as it is when it is not an instant. */
export function localTime(iso: string, timeZone: string): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return String(iso)
  try {
    return formatLocal(date, timeZone)
  } catch {
    return String(iso)
  }
}

/** `01:02:03` (UTC), for dense tables. */
export function timeOfDay(iso: string): string {
  return String(iso).slice(11, 19)
}
