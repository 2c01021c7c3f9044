/**
 * The benchmark docs' SVG charts, written by hand — plain rects, lines, circles and text — with no chart
 * library, no browser and no network: horizontal bars, lines over a numeric x axis, and a strip of trials
 * per row. Pure functions from numbers to SVG text; it reads and writes no file (bench/render.ts does).
 */
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
export const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2']
const FONT = 'font-family="Helvetica, Arial, sans-serif"'

function niceMax(value: number): number {
  if (!(value > 0)) return 1
  const magnitude = 10 ** Math.floor(Math.log10(value))
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= value) return step * magnitude
  return 10 * magnitude
}

function fmt(value: number): string {
  if (Math.abs(value) >= 1e6) return `${sigText(value / 1e6)}M`
  if (Math.abs(value) >= 1e4) return `${sigText(value / 1e3)}k`
  return sigText(value)
}
function sigText(v: number): string {
  return String(Number(v.toPrecision(3)))
}

function svg(width: number, height: number, title: string, body: string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT} font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">${esc(title)}</text>`,
    ...body,
    '</svg>',
    '',
  ].join('\n')
}

/** Horizontal bars, one per entry, with the value printed at the end. */
export function barChart(
  title: string,
  unit: string,
  bars: Array<{ label: string; value: number; color?: string }>,
) {
  const width = 720
  const left = 260
  const right = 90
  const barH = 22
  const gap = 10
  const top = 40
  const height = top + bars.length * (barH + gap) + 40
  const max = niceMax(Math.max(...bars.map((b) => b.value)))
  const x = (v: number) => left + (v / max) * (width - left - right)
  const body: string[] = []
  for (let t = 0; t <= 4; t++) {
    const v = (max / 4) * t
    body.push(
      `<line x1="${x(v)}" y1="${top - 4}" x2="${x(v)}" y2="${height - 30}" stroke="#e5e7eb"/>`,
      `<text x="${x(v)}" y="${height - 16}" text-anchor="middle" fill="#6b7280">${fmt(v)}</text>`,
    )
  }
  body.push(
    `<text x="${(left + width - right) / 2}" y="${height - 2}" text-anchor="middle" fill="#374151">${esc(unit)}</text>`,
  )
  bars.forEach((b, i) => {
    const y = top + i * (barH + gap)
    body.push(
      `<text x="${left - 8}" y="${y + barH / 2 + 4}" text-anchor="end">${esc(b.label)}</text>`,
      `<rect x="${left}" y="${y}" width="${Math.max(1, x(b.value) - left)}" height="${barH}" fill="${b.color ?? COLORS[0]}"/>`,
      `<text x="${x(b.value) + 6}" y="${y + barH / 2 + 4}">${fmt(b.value)}</text>`,
    )
  })
  return svg(width, height, title, body)
}

/** Lines over a numeric x axis, one per series, with a legend. */
export function lineChart(
  title: string,
  xLabel: string,
  yLabel: string,
  xs: number[],
  series: Array<{ label: string; values: number[]; color: string; dashed?: boolean }>,
) {
  const width = 720
  const height = 380
  const left = 80
  const right = 170
  const top = 40
  const bottom = 50
  const maxY = niceMax(Math.max(...series.flatMap((s) => s.values)))
  const maxX = Math.max(...xs)
  const x = (v: number) => left + (v / maxX) * (width - left - right)
  const y = (v: number) => height - bottom - (v / maxY) * (height - top - bottom)
  const body: string[] = []
  for (let t = 0; t <= 5; t++) {
    const v = (maxY / 5) * t
    body.push(
      `<line x1="${left}" y1="${y(v)}" x2="${width - right}" y2="${y(v)}" stroke="#e5e7eb"/>`,
      `<text x="${left - 6}" y="${y(v) + 4}" text-anchor="end" fill="#6b7280">${fmt(v)}</text>`,
    )
  }
  for (const v of xs) {
    body.push(`<text x="${x(v)}" y="${height - bottom + 18}" text-anchor="middle" fill="#6b7280">${v}</text>`)
  }
  body.push(
    `<line x1="${left}" y1="${height - bottom}" x2="${width - right}" y2="${height - bottom}" stroke="#374151"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${height - bottom}" stroke="#374151"/>`,
    `<text x="${(left + width - right) / 2}" y="${height - 12}" text-anchor="middle">${esc(xLabel)}</text>`,
    `<text x="18" y="${(top + height - bottom) / 2}" text-anchor="middle" transform="rotate(-90 18 ${(top + height - bottom) / 2})">${esc(yLabel)}</text>`,
  )
  series.forEach((s, i) => {
    const points = s.values.map((v, j) => `${x(xs[j]!)},${y(v)}`).join(' ')
    body.push(
      `<polyline points="${points}" fill="none" stroke="${s.color}" stroke-width="2.5"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
      ...s.values.map((v, j) => `<circle cx="${x(xs[j]!)}" cy="${y(v)}" r="4" fill="${s.color}"/>`),
      `<line x1="${width - right + 14}" y1="${top + 10 + i * 20}" x2="${width - right + 38}" y2="${top + 10 + i * 20}" stroke="${s.color}" stroke-width="2.5"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
      `<text x="${width - right + 44}" y="${top + 14 + i * 20}">${esc(s.label)}</text>`,
    )
  })
  return svg(width, height, title, body)
}

/** Each trial a dot on its row, with the row's bound as a red tick and the median as a black one. */
export function stripChart(
  title: string,
  unit: string,
  rows: Array<{ label: string; values: number[]; bound?: number; color: string }>,
) {
  const width = 720
  const left = 170
  const right = 40
  const rowH = 56
  const top = 44
  const height = top + rows.length * rowH + 44
  const max = niceMax(Math.max(...rows.flatMap((r) => [...r.values, r.bound ?? 0])) * 1.05)
  const x = (v: number) => left + (v / max) * (width - left - right)
  const body: string[] = []
  for (let t = 0; t <= 5; t++) {
    const v = (max / 5) * t
    body.push(
      `<line x1="${x(v)}" y1="${top - 6}" x2="${x(v)}" y2="${height - 34}" stroke="#e5e7eb"/>`,
      `<text x="${x(v)}" y="${height - 20}" text-anchor="middle" fill="#6b7280">${fmt(v)}</text>`,
    )
  }
  body.push(
    `<text x="${(left + width - right) / 2}" y="${height - 4}" text-anchor="middle">${esc(unit)}</text>`,
  )
  rows.forEach((r, i) => {
    const cy = top + i * rowH + rowH / 2
    body.push(`<text x="${left - 10}" y="${cy + 4}" text-anchor="end">${esc(r.label)}</text>`)
    const sorted = [...r.values].sort((a, b) => a - b)
    sorted.forEach((v, j) => {
      const jitter = ((j % 5) - 2) * 4
      body.push(`<circle cx="${x(v)}" cy="${cy + jitter}" r="4" fill="${r.color}" fill-opacity="0.7"/>`)
    })
    if (sorted.length) {
      const median = sorted[Math.ceil(sorted.length / 2) - 1]!
      body.push(
        `<line x1="${x(median)}" y1="${cy - 16}" x2="${x(median)}" y2="${cy + 16}" stroke="#111827" stroke-width="2"/>`,
      )
    }
    if (r.bound !== undefined) {
      body.push(
        `<line x1="${x(r.bound)}" y1="${cy - 20}" x2="${x(r.bound)}" y2="${cy + 20}" stroke="#dc2626" stroke-width="2" stroke-dasharray="4 3"/>`,
        `<text x="${x(r.bound) + 4}" y="${cy - 12}" fill="#dc2626" font-size="11">bound ${fmt(r.bound)}</text>`,
      )
    }
  })
  return svg(width, height, title, body)
}
