/**
 * Owner ids: host name + '-' + 12 random hex characters. The random suffix is never configurable, so two
 * processes can never share an owner even on one host or with one LEASECRON_WORKER_ID.
 */
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'

/** A fresh owner id; `host` (LEASECRON_WORKER_ID) replaces the host name only. */
export function ownerId(host: string = hostname()): string {
  const prefix =
    host
      .trim()
      .replace(/[^A-Za-z0-9._-]/g, '-')
      .slice(0, 200) || 'leasecron'
  return `${prefix}-${randomBytes(6).toString('hex')}`
}
