/**
 * The last lines a child process wrote, from any of its streams, in the order they arrived: a bounded ring
 * (a fixed number of lines, each cut to a fixed length), so a server that logs for hours costs the same as
 * one that logs nothing. A Go server's panic or fatal error can print more lines than the ring holds, the
 * reason first: lines from the first one that matches `pin` are kept apart (bounded too), so the reason
 * outlives the ring. For saying why a test server died; not a log store.
 */
import type { Readable } from 'node:stream'

export class OutputTail {
  readonly #lines: string[] = []
  readonly #maxLines: number
  readonly #maxLineChars: number

  readonly #skip: (line: string) => boolean
  readonly #pin: RegExp | undefined
  readonly #pinned: string[] = []

  /**
   * `skip`: lines not worth a place in the ring (a server's routine chatter), dropped as they arrive.
   * `pin`: the first line it matches and the `maxLines` after it are also kept apart from the ring.
   */
  constructor(
    maxLines = 80,
    maxLineChars = 400,
    skip: (line: string) => boolean = () => false,
    pin?: RegExp,
  ) {
    this.#maxLines = maxLines
    this.#maxLineChars = maxLineChars
    this.#skip = skip
    this.#pin = pin
  }

  /** Keeps the complete lines `stream` writes, each prefixed with `label` (a partial last line on its end). */
  follow(stream: Readable, label: string): void {
    let partial = ''
    stream.setEncoding('utf8')
    stream.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n')
      // A line can arrive in pieces: the one after the last newline waits for its end (its start kept).
      partial = parts.pop()!.slice(0, this.#maxLineChars + 1)
      for (const line of parts) this.#keep(label, line)
    })
    stream.once('end', () => {
      if (partial !== '') this.#keep(label, partial)
      partial = ''
    })
  }

  #keep(label: string, line: string): void {
    if (this.#skip(line)) return
    const cut = line.length > this.#maxLineChars ? `${line.slice(0, this.#maxLineChars)}…` : line
    const kept = `[${label}] ${cut}`
    this.#lines.push(kept)
    if (this.#lines.length > this.#maxLines) this.#lines.shift()
    const pinning = this.#pinned.length > 0 || (this.#pin?.test(line) ?? false)
    if (pinning && this.#pinned.length <= this.#maxLines) this.#pinned.push(kept)
  }

  /** The first line `pin` matched and the lines after it (at most `maxLines` + 1); empty when none matched. */
  pinned(): string[] {
    return [...this.#pinned]
  }

  /** The kept lines, oldest first. */
  lines(): string[] {
    return [...this.#lines]
  }
}
