/**
 * The logger writes no terminal control character raw (observe/logger.ts): a pause reason with a screen
 * clear and an OSC 52 clipboard write, logged each paused tick, reached a terminal tailing the logs.
 * Through its JSON lines (a message, a field, an error, a child's bound field) and its human form.
 */
import { Writable } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/observe/logger.js'

const ATTACK = 'db\u001b[2J\u001b]52;c;ZWNobyBwd25lZA==\u0007 moved\u009b31m\u007f'
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/

function capture(): { lines: string[]; destination: Writable } {
  const lines: string[] = []
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString())
      done()
    },
  })
  return { lines, destination }
}

describe('the logger and control characters', () => {
  const write = process.stdout.write
  afterEach(() => {
    process.stdout.write = write
  })

  it('writes JSON lines whose decoded texts hold none, keeping line feeds', () => {
    const { lines, destination } = capture()
    const log = createLogger({ destination, pretty: false }).child({ holder: `h${ATTACK}` })
    log.warn({ reason: ATTACK, err: new Error(`first${ATTACK}\nsecond`) }, `paused: ${ATTACK}`)
    const [line] = lines
    expect(line, 'a raw control character in the line').not.toMatch(/[\u007f-\u009f]/)
    const parsed = JSON.parse(line!) as Record<string, unknown> & { err: { message: string } }
    expect(parsed.msg).toBe('paused: db[2J]52;c;ZWNobyBwd25lZA== moved31m')
    expect(parsed.reason).toBe('db[2J]52;c;ZWNobyBwd25lZA== moved31m')
    expect(parsed.err.message).toBe('firstdb[2J]52;c;ZWNobyBwd25lZA== moved31m\nsecond')
    expect(JSON.stringify(parsed.holder)).not.toContain('\\u009b')
  })

  it('writes its human form for a terminal without them', async () => {
    const written: string[] = []
    process.stdout.write = ((chunk: string) => {
      written.push(String(chunk))
      return true
    }) as typeof process.stdout.write
    const log = createLogger({ pretty: true }).child({ holder: `h${ATTACK}` })
    log.warn({ reason: ATTACK }, `paused: ${ATTACK}`)
    await new Promise((resolve) => setImmediate(resolve))
    process.stdout.write = write
    const text = written.join('')
    expect(text).toContain('paused: db[2J]52;c;ZWNobyBwd25lZA== moved31m')
    expect(text).toContain('holder=hdb[2J]52;c;ZWNobyBwd25lZA== moved31m')
    expect(text.replace(/\n$/, ''), 'a control character reached the terminal').not.toMatch(CONTROL)
  })
})
