/**
 * The links of the README and the guide that lead nowhere: to a file that does not exist, or to a section
 * (`#anchor`, `nets.md#definenet-reference`) its page does not have. VitePress's build fails on a link to a
 * missing page, but not on a missing section; and a section moved from the README into docs/ must take
 * every link to it along.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { pages, ROOT } from './page-blocks.js'
import { headingAnchor } from './readme-blocks.js'

/** A page's Markdown without its fenced blocks (a `# comment` in a shell block is no heading). */
function prose(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '')
}

/** The anchors of a page's headings, as GitHub (and the site, `.vitepress/config.mts`) make them. */
function anchorsOf(text: string): Set<string> {
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => headingAnchor(m[1]!.replace(/`/g, ''))))
}

/** Each dead link as `<page>: <link> (<why>)`. */
export function deadLinks(): string[] {
  const files = pages()
  const texts = new Map(files.map((file) => [file, prose(file)]))
  const anchors = new Map(files.map((file) => [file, anchorsOf(texts.get(file)!)]))
  const dead: string[] = []
  for (const [file, text] of texts)
    for (const [, link] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(link!)) continue
      const [path = '', anchor] = link!.split('#')
      const target = path === '' ? file : normalize(join(dirname(file), path))
      if (!existsSync(join(ROOT, target))) dead.push(`${file}: ${link} (no such file)`)
      else if (anchor !== undefined && anchors.has(target) && !anchors.get(target)!.has(anchor))
        dead.push(`${file}: ${link} (${target} has no such section)`)
    }
  return dead
}
