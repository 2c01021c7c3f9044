/**
 * Whether an error is MongoDB's duplicate-key refusal (server code 11000): the expected outcome of a lost
 * race to insert one `_id`, which the stores turn into `false`.
 *
 * Recognised by its shape (a `Mongo…` error name and the numeric code), not with `instanceof
 * MongoServerError`: the Db a store is given may come from the application's own copy of the driver, whose
 * error classes are not the ones leasecron's bundle carries (nor those of another driver version npm
 * nested beside it), and the stores must not load a driver of their own just to compare classes.
 */
/** The server code of a duplicate-key refusal (a bulk write reports it per item). */
export const DUPLICATE_KEY = 11000

export function isDuplicateKeyError(error: unknown): boolean {
  if (!(error instanceof Error) || !error.name.startsWith('Mongo')) return false
  return (error as Error & { code?: unknown }).code === DUPLICATE_KEY
}
