/**
 * A loopback port nothing listens on: bound by the OS, then released. For tests that need a refused
 * connection, or a port to give a server they start. (Another process could take it in between; on a
 * test machine that race is rare enough, and a test that meets it fails loudly, never passes wrongly.)
 */
import { createServer } from 'node:net'

export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}
