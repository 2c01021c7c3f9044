/**
 * UUID version 5 (RFC 9562 §5.5): a name-based UUID from SHA-1 of a namespace UUID followed by the name,
 * so the same name always gives the same id — which is what lets two replicas racing to create one card
 * collide on one `_id` instead of creating two. Written on node:crypto rather than a dependency.
 *
 * Not for secrets or uniqueness across namespaces you do not control: SHA-1 here is an identity, not a MAC.
 */
import { createHash } from 'node:crypto'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** RFC 9562's URL namespace, for names that are URLs. */
export const NAMESPACE_URL = '6ba7b811-9dad-11d1-80b4-00c04fd430c8'

/**
 * The UUIDv5 of `name` (UTF-8) in `namespace` (a UUID in its usual text form), lowercase. Throws TypeError
 * naming the argument when the namespace is not a UUID or the name is not a string.
 */
export function uuidV5(namespace: string, name: string): string {
  if (typeof namespace !== 'string' || !UUID.test(namespace)) {
    throw new TypeError(
      `uuidV5: namespace must be a UUID like ${NAMESPACE_URL}, got ${JSON.stringify(namespace)}`,
    )
  }
  if (typeof name !== 'string') throw new TypeError(`uuidV5: name must be a string, got ${typeof name}`)
  const digest = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest()
  const bytes = digest.subarray(0, 16)
  bytes[6] = (bytes[6]! & 0x0f) | 0x50 // version 5
  bytes[8] = (bytes[8]! & 0x3f) | 0x80 // the RFC variant
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
