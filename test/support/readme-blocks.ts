/**
 * The README's fenced blocks, as the tests that run them read them: each block's language, its tags from
 * the fence's info string (` ```sh run=cli stdout=comments`, ` ```ts file=x.ts run=vitest`), its reason when
 * tagged ` no-run: <why>`, its text (dedented when the fence is indented in a list) and its line.
 *
 * Not a Markdown parser: fences are lines of three backticks, opened with an info string or not, closed by
 * a bare fence at the same indent — the only form the README uses.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export interface ReadmeBlock {
  /** The fence's language (`sh`, `ts`, `json`…); empty for a bare fence. */
  lang: string
  /** `key=value` tags (a bare `key` is `''`). */
  tags: Record<string, string>
  /** The reason given after `no-run:`, when the block says it cannot be run. */
  noRun: string | undefined
  text: string
  /** 1-based line of the opening fence. */
  line: number
}

export const README_PATH = fileURLToPath(new URL('../../README.md', import.meta.url))

/** Every fenced block of `markdown`, in order. Throws on a fence left open (the page would render wrong). */
export function readmeBlocks(
  markdown: string = readFileSync(README_PATH, 'utf8'),
  page = 'README',
): ReadmeBlock[] {
  const lines = markdown.split('\n')
  const blocks: ReadmeBlock[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(.*)$/.exec(lines[i]!)
    if (!open) continue
    const indent = open[1]!
    const body: string[] = []
    let j = i + 1
    while (j < lines.length && lines[j] !== `${indent}\`\`\``) body.push(lines[j++]!.slice(indent.length))
    if (j >= lines.length) throw new Error(`${page} line ${i + 1}: a fence that is never closed`)
    blocks.push({ ...parseInfo(open[2]!.trim()), text: `${body.join('\n')}\n`, line: i + 1 })
    i = j
  }
  return blocks
}

function parseInfo(info: string): Pick<ReadmeBlock, 'lang' | 'tags' | 'noRun'> {
  const at = info.indexOf('no-run:')
  const words = (at === -1 ? info : info.slice(0, at)).split(/\s+/).filter(Boolean)
  const [lang = '', ...rest] = words
  const tags = Object.fromEntries(
    rest.map((w) => (w.includes('=') ? [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)] : [w, ''])),
  )
  return { lang, tags, noRun: at === -1 ? undefined : info.slice(at + 'no-run:'.length).trim() }
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
export function headingAnchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-')
}
