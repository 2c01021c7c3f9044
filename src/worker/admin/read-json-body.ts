/**
 * readJsonBody: an admin request's body, read within a byte bound and parsed as JSON. An empty body
 * reads as `{}` whatever its type (so `curl -X POST …/run` needs no `-d`); any other body must say
 * `Content-Type: application/json`.
 *
 * Answers the problem instead of throwing: the HTTP status (413 too large, 415 not JSON, 400 malformed),
 * a stable code and a message naming what was wrong and what was expected. Not a schema check: the route
 * checks the parsed value's fields.
 */
import type { IncomingMessage } from 'node:http'

/** A problem with the request, as the admin API answers it. */
export interface AdminProblem {
  status: number
  code: string
  message: string
  /** Close the connection after answering (the rest of the body was not read). */
  close?: boolean
}

export type BodyResult = { ok: true; value: unknown } | ({ ok: false } & AdminProblem)

/** Reads and parses `req`'s body, at most `maxBytes` of it; never rejects. */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  const tooLarge: BodyResult = {
    ok: false,
    status: 413,
    code: 'body-too-large',
    message: `the body is larger than ${maxBytes} bytes; expected a small JSON object such as {"for":"2h","reason":"deploy"}`,
    close: true,
  }
  const declared = Number(req.headers['content-length'] ?? 0)
  if (declared > maxBytes) return tooLarge
  const read = await readText(req, maxBytes)
  if (read === 'too-large') return tooLarge
  if (read === 'aborted')
    return {
      ok: false,
      status: 400,
      code: 'aborted',
      message: 'the request ended before its body',
      close: true,
    }
  const { text } = read
  if (text.trim() === '') return { ok: true, value: {} }
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase()
  if (type !== 'application/json')
    return {
      ok: false,
      status: 415,
      code: 'unsupported-media-type',
      message: `expected Content-Type: application/json; got ${type ? JSON.stringify(type) : 'none'}`,
    }
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error)
    return {
      ok: false,
      status: 400,
      code: 'malformed-json',
      message: `the body is not valid JSON (${why}); expected a JSON object`,
    }
  }
}

/**
 * The body as UTF-8 text; `too-large` once it passes `maxBytes` (the rest is then discarded unread, so
 * the answer can still be written), `aborted` when the client went away.
 */
function readText(
  req: IncomingMessage,
  maxBytes: number,
): Promise<{ text: string } | 'too-large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    const done = (result: { text: string } | 'too-large' | 'aborted') => {
      req.off('data', onData).off('end', onEnd).off('error', onError)
      resolve(result)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBytes) chunks.push(chunk)
      else {
        done('too-large')
        req.resume()
      }
    }
    const onEnd = () => done({ text: Buffer.concat(chunks).toString('utf8') })
    const onError = () => done('aborted')
    req.on('data', onData).on('end', onEnd).on('error', onError)
  })
}
