/**
 * The output tail keeps the last lines of a child's streams, bounded in lines and in characters, whole
 * lines even when they arrive in pieces.
 */
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { GO_CRASH, isRoutineWarning } from './ferretdb-server.js'
import { OutputTail } from './output-tail.js'

describe('OutputTail', () => {
  it('keeps only the last lines, each cut to its bound, from every stream in arrival order', async () => {
    const tail = new OutputTail(3, 10)
    const out = new PassThrough()
    const err = new PassThrough()
    tail.follow(out, 'stdout')
    tail.follow(err, 'stderr')
    for (let i = 0; i < 1000; i++) out.write(`line ${i}\n`)
    err.write('pan')
    err.write('ic: a long reason\n')
    out.end('no newline at the end')
    await new Promise((r) => setImmediate(r))
    expect(tail.lines()).toEqual(['[stdout] line 999', '[stderr] panic: a l…', '[stdout] no newline…'])
  })

  it('leaves FerretDB’s per-answer warnings out, so a dying server’s last words stay in the ring', async () => {
    const tail = new OutputTail(2, 400, isRoutineWarning)
    const err = new PassThrough()
    tail.follow(err, 'stderr')
    err.write('time=1 level=WARN msg="Connection stopped" name=listener\n')
    for (let i = 0; i < 50; i++) {
      err.write(`time=2 level=WARN msg="Response header: length: 121, id: ${i}, opcode: OP_MSG"\n`)
      err.write('time=2 level=WARN msg="Response message:\\n{\\n \\"ok\\": 0.0 }"\n')
    }
    err.end('panic: runtime error\n')
    await new Promise((r) => setImmediate(r))
    expect(tail.lines()).toEqual([
      '[stderr] time=1 level=WARN msg="Connection stopped" name=listener',
      '[stderr] panic: runtime error',
    ])
  })

  it('keeps a crash from its first line on apart from the ring, bounded like it', async () => {
    const tail = new OutputTail(3, 400, () => false, GO_CRASH)
    const err = new PassThrough()
    tail.follow(err, 'stderr')
    err.write('time=1 level=WARN msg="before"\n')
    err.write('panic: assignment to entry in nil map\n\ngoroutine 7 [running]:\n')
    for (let i = 0; i < 100; i++) err.write(`frame ${i}\n`)
    err.end()
    await new Promise((r) => setImmediate(r))
    expect(tail.lines()).toEqual(['[stderr] frame 97', '[stderr] frame 98', '[stderr] frame 99'])
    expect(tail.pinned()).toEqual([
      '[stderr] panic: assignment to entry in nil map',
      '[stderr] ',
      '[stderr] goroutine 7 [running]:',
      '[stderr] frame 0',
    ])
  })

  it('pins nothing when no line matches', async () => {
    const tail = new OutputTail(3, 400, () => false, GO_CRASH)
    const err = new PassThrough()
    tail.follow(err, 'stderr')
    err.end('a panic: in the middle of a line is not a crash\n')
    await new Promise((r) => setImmediate(r))
    expect(tail.pinned()).toEqual([])
  })
})
