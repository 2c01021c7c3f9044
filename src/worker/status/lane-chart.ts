/**
 * The 24-hour chart of one forge lane as inline SVG: one bar per UTC hour (requests; the part answered
 * 304 in a second shade), the busiest hour's figure on the axis, and the hours
 * labelled at −24 h, −12 h and now. Drawn here rather than with a chart library: the page must carry no
 * external asset, and 24 rectangles are a loop.
 */
import { esc, figure, num } from './html-text.js'
import type { LaneStatus } from '../../status/status-snapshot.js'

const WIDTH = 480
const HEIGHT = 120
const LEFT = 40
const BOTTOM = 18
const TOP = 8

/** The SVG of `lane`'s last 24 hours; scales to its container's width. */
export function laneChart(lane: LaneStatus): string {
  // Figures are read through `figure`: a stored count that is not a number draws as zero, never as text.
  const hours = lane.hours.map((h) => ({
    hour: String(h.hour),
    requests: figure(h.requests),
    notModified: figure(h.notModified),
    points: figure(h.points),
  }))
  const max = Math.max(1, ...hours.map((h) => h.requests))
  const plotW = WIDTH - LEFT - 4
  const plotH = HEIGHT - BOTTOM - TOP
  const step = plotW / hours.length
  const y = (n: number) => TOP + plotH - (n / max) * plotH
  const bars = hours
    .map((h, i) => {
      const x = LEFT + i * step + 1
      const w = Math.max(1, step - 2)
      const label = `${h.hour.slice(11, 16)} UTC: ${h.requests} requests, ${h.notModified} answered 304, ${h.points} points`
      const total = `<rect class="bar" x="${x.toFixed(1)}" y="${y(h.requests).toFixed(1)}" width="${w.toFixed(1)}" height="${(TOP + plotH - y(h.requests)).toFixed(1)}"><title>${esc(label)}</title></rect>`
      const cached =
        h.notModified > 0
          ? `<rect class="bar-304" x="${x.toFixed(1)}" y="${y(h.notModified).toFixed(1)}" width="${w.toFixed(1)}" height="${(TOP + plotH - y(h.notModified)).toFixed(1)}"/>`
          : ''
      return total + cached
    })
    .join('')
  const spent = hours.reduce((sum, h) => sum + h.requests, 0)
  const axis = [
    `<line class="axis" x1="${LEFT}" y1="${TOP + plotH}" x2="${WIDTH - 4}" y2="${TOP + plotH}"/>`,
    `<text class="tick" x="${LEFT - 4}" y="${TOP + 8}" text-anchor="end">${num(max)}</text>`,
    `<text class="tick" x="${LEFT - 4}" y="${TOP + plotH}" text-anchor="end">0</text>`,
    `<text class="tick" x="${LEFT}" y="${HEIGHT - 4}">−24 h</text>`,
    `<text class="tick" x="${LEFT + plotW / 2}" y="${HEIGHT - 4}" text-anchor="middle">−12 h</text>`,
    `<text class="tick" x="${WIDTH - 4}" y="${HEIGHT - 4}" text-anchor="end">now</text>`,
  ].join('')
  const title = `Lane ${lane.lane}: ${spent} forge requests in the last 24 hours, busiest hour ${max}`
  return `<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${esc(title)}" data-lane="${esc(lane.lane)}"><title>${esc(title)}</title>${axis}${bars}</svg>`
}
