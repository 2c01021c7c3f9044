/**
 * A database named in MONGO_URI's path is not where the worker writes (the driver reads it only as the
 * default authSource; the collections go to MONGO_DB): `config` and the start-up line say so.
 */
import { describe, expect, it } from 'vitest'
import { redactedConfig } from '../../src/config/redacted-config.js'
import { loadConfig, type NetDefinition } from '../../src/index.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'

const { net } = recordingNet()

function shownMongo(env: Record<string, string>): Record<string, unknown> {
  const result = loadConfig(env, [net as NetDefinition], TEST_LEASES, { needsForge: false })
  if (!result.ok) throw new Error(`the configuration was refused: ${JSON.stringify(result.issues)}`)
  return redactedConfig(result.config).mongo as Record<string, unknown>
}

describe('a database in MONGO_URI’s path', () => {
  it('is noted as unused beside MONGO_DB, naming the variable that would use it', () => {
    // Before: { uri, db: "leasecron" } alone, and the runs went to leasecron while the reader looked in mydb.
    const mongo = shownMongo({ MONGO_URI: 'mongodb://user:pw@db.example:27017/mydb?authSource=admin' })
    expect(mongo.db).toBe('leasecron')
    expect(mongo.note).toBe(
      'MONGO_URI names the database "mydb", which the driver uses only to authenticate (authSource); ' +
        'the worker\'s collections go to MONGO_DB ("leasecron"): set MONGO_DB=mydb to use that one',
    )
  })

  it('adds no note when the path is empty or names MONGO_DB itself', () => {
    expect(shownMongo({ MONGO_URI: 'mongodb://db.example:27017/' })).not.toHaveProperty('note')
    expect(shownMongo({ MONGO_URI: 'mongodb://db.example/app', MONGO_DB: 'app' })).not.toHaveProperty('note')
  })
})
