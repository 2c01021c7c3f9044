/**
 * bulkWriteErrors over the driver's own errors from the run's server: an unordered insertMany's refused
 * documents are read item by item; any other failure is not (its caller then fails every item).
 */
import { describe, expect, it } from 'vitest'
import { bulkWriteErrors } from '../../src/store-call/bulk-write-errors.js'
import { DUPLICATE_KEY } from '../../src/store-call/duplicate-key.js'
import { useTestDatabase } from '../support/mongo.js'

const mongo = await useTestDatabase('bulk_write_errors')

describe('bulkWriteErrors', () => {
  it('names each document an unordered insertMany refused, by its index and code, the others written', async () => {
    const docs = mongo.db.collection<{ _id: string }>('unordered')
    await docs.insertOne({ _id: 'a' })
    const error = await docs
      .insertMany([{ _id: 'b' }, { _id: 'a' }, { _id: 'c' }, { _id: 'b' }], { ordered: false })
      .catch((e: unknown) => e)
    expect(bulkWriteErrors(error)).toEqual([
      { index: 1, code: DUPLICATE_KEY, message: expect.stringMatching(/duplicate key/) },
      { index: 3, code: DUPLICATE_KEY, message: expect.stringMatching(/duplicate key/) },
    ])
    expect((await docs.find({}).toArray()).map((d) => d._id).sort()).toEqual(['a', 'b', 'c'])
  })

  it('reads nothing from a single write’s refusal or an error that is not the driver’s', async () => {
    const docs = mongo.db.collection<{ _id: string }>('single')
    await docs.insertOne({ _id: 'a' })
    const single = await docs.insertOne({ _id: 'a' }).catch((e: unknown) => e)
    expect(single).toMatchObject({ code: DUPLICATE_KEY })
    expect(bulkWriteErrors(single)).toBeUndefined()
    expect(bulkWriteErrors(new Error('the store did not answer'))).toBeUndefined()
    expect(bulkWriteErrors('MongoBulkWriteError')).toBeUndefined()
  })
})
