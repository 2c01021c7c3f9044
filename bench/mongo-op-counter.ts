/**
 * A counting TCP proxy in front of Mongo, for the benchmarks: every byte is forwarded unchanged both ways,
 * and the client→server stream is cut into wire-protocol messages by their 16-byte header (messageLength,
 * requestID, responseTo, opCode) so each OP_MSG a client sends is counted once, classified by its command
 * name (the first key of the section-0 BSON document) and, where that key's value is a string, the
 * collection it names (`update: "leases"`).
 *
 * What it is not: a fault injector (that is test/chaos/tcp-proxy.ts, someone else's), a BSON decoder (it
 * reads one key and one string, nothing more), or a server-side counter — it counts what clients sent.
 * Driver monitoring (`hello`/`isMaster` heartbeats, the handshake, RTT pings) crosses it too; `kindOf`
 * tells those apart from data commands so the benches can count lease operations on their own.
 * It listens on 127.0.0.1 only.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net'

const OP_MSG = 2013
const OP_QUERY = 2004
const OP_COMPRESSED = 2012

/** One message a client sent. */
export interface MongoOp {
  /** The command name (`update`, `find`, `hello`…), or `op-query`/`op-compressed`/`op-<code>` when not an OP_MSG. */
  command: string
  /** The collection a data command names, when its first value is a string. */
  collection: string | undefined
  /** Wall-clock instant the message was complete at the proxy (ms). */
  at: number
  /** The proxy's id for the client connection that sent it. */
  connection: number
  /**
   * Milliseconds from the message to the server's first reply to it (matched by `responseTo`), once the
   * reply has crossed the proxy; absent while unanswered and for messages no reply names.
   */
  ms?: number
}

/** How a message counts. */
export type OpKind = 'monitoring' | 'lease' | 'data' | 'session'

const MONITORING = new Set([
  'hello',
  'ismaster',
  'ping',
  'buildinfo',
  'op-query',
  'saslstart',
  'saslcontinue',
])
const SESSION = new Set(['endsessions', 'killcursors', 'abortTransaction'.toLowerCase()])

/**
 * `monitoring`: the driver's heartbeats, handshake, RTT/readiness pings and auth — not anyone's work;
 * `lease`: a command on the `leases` collection; `session`: driver housekeeping (endSessions, killCursors);
 * `data`: every other command (a net's store, agenda's jobs collection, index builds).
 */
export function kindOf(op: Pick<MongoOp, 'command' | 'collection'>, leaseCollection = 'leases'): OpKind {
  const name = op.command.toLowerCase()
  if (MONITORING.has(name)) return 'monitoring'
  if (SESSION.has(name)) return 'session'
  if (op.collection === leaseCollection) return 'lease'
  return 'data'
}

/** A running counter. */
export interface MongoOpCounter {
  /** `mongodb://127.0.0.1:PORT/` plus the upstream URL's query string: point clients here. */
  url: string
  /** Every message since the last reset (bounded by `maxOps`; `dropped` counts the overflow). */
  ops(): MongoOp[]
  dropped(): number
  reset(): void
  /** Calls `listener` for each message as it completes; returns the unsubscribe. */
  onOp(listener: (op: MongoOp) => void): () => void
  close(): Promise<void>
}

/** Reads a cstring at `offset`; returns it and the offset after its NUL. */
function cstring(buf: Buffer, offset: number, end: number): [string, number] {
  let i = offset
  while (i < end && buf[i] !== 0) i++
  return [buf.toString('utf8', offset, i), i + 1]
}

/** Command name and collection from a whole OP_MSG (header included). */
export function parseOpMsg(message: Buffer): { command: string; collection: string | undefined } {
  const end = message.length
  // header (16) + flagBits (4); sections follow. Find the kind-0 section (the command body).
  let offset = 20
  while (offset < end) {
    const kind = message[offset]!
    if (kind === 0) {
      const docStart = offset + 1
      const type = message[docStart + 4]
      if (type === undefined || type === 0) return { command: 'op-msg-empty', collection: undefined }
      const [key, valueAt] = cstring(message, docStart + 5, end)
      let collection: string | undefined
      if (type === 0x02 && valueAt + 4 <= end) {
        const length = message.readInt32LE(valueAt)
        if (length > 0 && valueAt + 4 + length <= end)
          collection = message.toString('utf8', valueAt + 4, valueAt + 4 + length - 1)
      }
      return { command: key, collection }
    }
    if (kind === 1) {
      // Document sequence: int32 size (including itself), then the identifier and documents.
      offset += 1 + message.readInt32LE(offset + 1)
      continue
    }
    break
  }
  return { command: 'op-msg-unparsed', collection: undefined }
}

function opOf(message: Buffer, connection: number): MongoOp {
  const opCode = message.readInt32LE(12)
  const at = Date.now()
  if (opCode === OP_MSG) return { ...parseOpMsg(message), at, connection }
  const command =
    opCode === OP_QUERY ? 'op-query' : opCode === OP_COMPRESSED ? 'op-compressed' : `op-${opCode}`
  return { command, collection: undefined, at, connection }
}

/**
 * Forwards one client connection to the upstream server and records each whole client→server message.
 * A frame that is not the wire protocol we know stops the parsing of that connection, never its
 * forwarding.
 */
/**
 * LEASECRON_BENCH_STORE_DELAY_MS: holds every answer from Mongo this long before passing it on (one way,
 * order kept), to reproduce a store slowed by a loaded machine without loading the machine.
 */
const ANSWER_DELAY_MS = Number(process.env.LEASECRON_BENCH_STORE_DELAY_MS ?? 0) || 0

function pipeConnection(client: Socket, upstream: Socket, id: number, record: (op: MongoOp) => void): void {
  let pending: Buffer = Buffer.alloc(0)
  const awaiting = new Map<number, MongoOp>()
  const parse = (chunk: Buffer) => {
    upstream.write(chunk)
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
    while (pending.length >= 16) {
      const length = pending.readInt32LE(0)
      if (length < 16 || length > 64 * 1024 * 1024) {
        record({ command: 'unparseable', collection: undefined, at: Date.now(), connection: id })
        client.off('data', parse)
        client.on('data', (c: Buffer) => upstream.write(c))
        return
      }
      if (pending.length < length) break
      const op = opOf(pending.subarray(0, length), id)
      awaiting.set(pending.readInt32LE(4), op)
      record(op)
      pending = pending.subarray(length)
    }
  }
  client.on('data', parse)
  upstream.on('data', timeReplies(client, awaiting))
}

/**
 * Forwards the server's bytes to the client and, reading each reply's header, stamps the request it
 * answers (`responseTo`) with its latency. A reply that names no request we saw (an exhaust stream's
 * later replies) is forwarded and ignored.
 */
function timeReplies(client: Socket, awaiting: Map<number, MongoOp>): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0)
  let parsing = true
  return (chunk) => {
    if (ANSWER_DELAY_MS > 0) setTimeout(() => client.write(chunk), ANSWER_DELAY_MS)
    else client.write(chunk)
    if (!parsing) return
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
    while (pending.length >= 16) {
      const length = pending.readInt32LE(0)
      if (length < 16 || length > 64 * 1024 * 1024) {
        parsing = false
        return
      }
      if (pending.length < length) break
      const op = awaiting.get(pending.readInt32LE(8))
      if (op) {
        op.ms = Date.now() - op.at
        awaiting.delete(pending.readInt32LE(8))
      }
      pending = pending.subarray(length)
    }
  }
}

/**
 * Starts the proxy in front of `upstreamUrl` (a `mongodb://host:port/…` URL of one server) and resolves
 * once it listens on a free loopback port.
 */
export async function startMongoOpCounter(
  upstreamUrl: string,
  options: { maxOps?: number } = {},
): Promise<MongoOpCounter> {
  const parsed = new URL(upstreamUrl)
  const upstream = { host: parsed.hostname, port: Number(parsed.port || 27017) }
  const maxOps = options.maxOps ?? 2_000_000
  let ops: MongoOp[] = []
  let dropped = 0
  let connections = 0
  const listeners = new Set<(op: MongoOp) => void>()
  const sockets = new Set<Socket>()
  const record = (op: MongoOp) => {
    if (ops.length < maxOps) ops.push(op)
    else dropped++
    for (const l of listeners) l(op)
  }
  const server: Server = createServer((client) => {
    const toMongo = createConnection(upstream)
    for (const s of [client, toMongo]) sockets.add(s)
    pipeConnection(client, toMongo, ++connections, record)
    const closeBoth = () => {
      for (const s of [client, toMongo]) {
        s.destroy()
        sockets.delete(s)
      }
    }
    for (const s of [client, toMongo]) s.on('close', closeBoth).on('error', closeBoth)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    url: `mongodb://127.0.0.1:${port}/${parsed.search}`,
    ops: () => ops,
    dropped: () => dropped,
    reset() {
      ops = []
      dropped = 0
    },
    onOp(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    async close() {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** Counts of `ops` by kind and by `command collection`, for the JSON results. */
export function classify(
  ops: readonly MongoOp[],
  leaseCollection = 'leases',
): { byKind: Record<OpKind, number>; byCommand: Record<string, number> } {
  const byKind: Record<OpKind, number> = { monitoring: 0, lease: 0, data: 0, session: 0 }
  const byCommand: Record<string, number> = {}
  for (const op of ops) {
    byKind[kindOf(op, leaseCollection)]++
    const key = op.collection ? `${op.command} ${op.collection}` : op.command
    byCommand[key] = (byCommand[key] ?? 0) + 1
  }
  return { byKind, byCommand }
}
