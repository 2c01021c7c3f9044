/**
 * The source points its readers to the docs — comments cite a page and a section (`(docs/nets.md, "What a
 * pass knows")`), `--help` names docs/configuration.md — and the README's reference moved into docs/ once
 * already (issue 41), leaving such pointers behind. Every page the source names must exist, and every
 * section it names must be a heading of that page.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../support/page-blocks.js'

/** The .ts files under `dir`, relative to the root. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(dir, file))
}

/** Each `docs/….md` the file names, with the section quoted after it, if any. */
function references(file: string): { page: string; section: string | undefined }[] {
  // A comment's citation may wrap: ` * ` continuation lines read as one line.
  const text = readFileSync(join(ROOT, file), 'utf8').replace(/\n\s*(\*(?!\/)\s*|\/\/\s*)?/g, ' ')
  return [...text.matchAll(/\bdocs\/([\w./-]+\.md)(?:,\s*"([^"]+)"|\s*\("([^"]+)"\))?/g)].map((m) => ({
    page: `docs/${m[1]}`,
    section: m[2] ?? m[3],
  }))
}

describe('the source’s pointers into the docs', () => {
  it('name pages that exist and sections those pages have', () => {
    const cited = ['src', 'bench']
      .flatMap(sources)
      .flatMap((file) => references(file).map((reference) => ({ file, ...reference })))
    expect(cited.length, 'the source cites no page of the docs: the reader is broken').toBeGreaterThan(5)
    const broken = cited.filter(({ page, section }) => {
      let markdown: string
      try {
        markdown = readFileSync(join(ROOT, page), 'utf8')
      } catch {
        return true
      }
      const headings = [...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1]!.replace(/`/g, ''))
      return section !== undefined && !headings.includes(section)
    })
    expect(
      broken.map(({ file, page, section }) => `${file}: ${page}${section ? `, "${section}"` : ''}`),
      'pointers to a page or section the docs do not have',
    ).toEqual([])
  })
})
