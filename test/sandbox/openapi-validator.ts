/**
 * Validates an HTTP answer against GitHub's official OpenAPI description of api.github.com (the
 * pinned `@octokit/openapi` devDependency): the status must be documented for the operation, the body
 * must match the documented schema ($refs resolved, OpenAPI 3.0 `nullable` honoured by Ajv), and every
 * documented response header must be present with a value of its schema's type. Test support only.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'

interface Schema {
  [key: string]: unknown
}
interface Response {
  $ref?: string
  description?: string
  content?: Record<string, { schema?: Schema }>
  headers?: Record<string, { $ref?: string; schema?: Schema }>
}
interface Spec {
  paths: Record<string, Record<string, { responses: Record<string, Response> }>>
  components: {
    responses: Record<string, Response>
    headers: Record<string, { schema?: Schema }>
    schemas: Record<string, Schema>
  }
}

/** One answer to check. */
export interface Answered {
  status: number
  headers: Headers
  body: unknown
}

// ajv-formats is CommonJS: its module.exports is the plugin and carries itself as `.default`, which
// is the name TypeScript's NodeNext typing offers.
const addFormats = addFormatsModule.default

/** Loads the spec once and validates answers against it. */
export function createOpenApiValidator(): { problems(operation: string, answer: Answered): string[] } {
  const require = createRequire(import.meta.url)
  const file = require.resolve('@octokit/openapi/generated/api.github.com.json')
  const spec = JSON.parse(readFileSync(file, 'utf8')) as Spec
  // OpenAPI 3.0 is not JSON Schema: `nullable`, `example`, `x-*` and some formats are its own. Ajv
  // knows `nullable`; strict mode off lets the rest through as annotations.
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false })
  addFormats(ajv)
  ajv.addFormat('timestamp', true)
  ajv.addSchema({ components: { schemas: nullableWithoutType(spec.components.schemas) } }, 'github')
  const headerAjv = new Ajv({ strict: false, coerceTypes: true, logger: false })
  const compiled = new Map<string, ValidateFunction>()
  const validatorOf = (schema: Schema, key: string) => {
    let validate = compiled.get(key)
    if (validate === undefined) {
      validate = ajv.compile(rebase(nullableWithoutType(schema)))
      compiled.set(key, validate)
    }
    return validate
  }

  return {
    problems(operation, answer) {
      const [method, path] = operation.split(' ') as [string, string]
      const documented = spec.paths[path]?.[method.toLowerCase()]
      if (documented === undefined) return [`${operation} is not an operation of api.github.com`]
      const raw = documented.responses[String(answer.status)]
      if (raw === undefined) {
        return [
          `${operation} answered ${answer.status}; documented: ${Object.keys(documented.responses).join(', ')}`,
        ]
      }
      const response =
        raw.$ref === undefined ? raw : (spec.components.responses[lastSegment(raw.$ref)] as Response)
      const out: string[] = []
      const schema = response.content?.['application/json']?.schema
      if (schema === undefined) {
        if (answer.body !== undefined)
          out.push(`${operation} ${answer.status}: documented without a body, got one`)
      } else {
        const validate = validatorOf(schema, `${operation} ${answer.status}`)
        if (!validate(answer.body)) {
          for (const e of validate.errors ?? [])
            out.push(`body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`)
        }
      }
      for (const [name, header] of Object.entries(response.headers ?? {})) {
        const headerSchema =
          header.$ref === undefined
            ? header.schema
            : spec.components.headers[lastSegment(header.$ref)]?.schema
        const value = answer.headers.get(name)
        if (value === null) {
          out.push(`header ${name} is documented but missing`)
          continue
        }
        if (headerSchema !== undefined && !headerAjv.validate(headerSchema, value)) {
          out.push(`header ${name}: ${JSON.stringify(value)} does not match ${JSON.stringify(headerSchema)}`)
        }
      }
      return out
    },
  }
}

/**
 * OpenAPI 3.0's `nullable: true` adds null to what a schema allows. Ajv implements it beside a `type`
 * but refuses it without one (GitHub writes it beside `allOf`/`anyOf`) and does not widen an `enum`
 * (GitHub's `state_reason` is a nullable enum sent as null): both are rewritten to that meaning.
 */
function nullableWithoutType<T>(node: T): T {
  if (Array.isArray(node)) return node.map((item) => nullableWithoutType(item)) as T
  if (node === null || typeof node !== 'object') return node
  const copy: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) copy[key] = nullableWithoutType(value)
  if (copy.nullable !== true) return copy as T
  if (Array.isArray(copy.enum) && !copy.enum.includes(null)) copy.enum = [...copy.enum, null]
  if ('type' in copy) return copy as T
  const { nullable: _nullable, ...rest } = copy
  return { anyOf: [rest, { type: 'null' }] } as T
}

/** Points the spec's local `#/components/…` references at the schema registered as `github`. */
function rebase(schema: Schema): Schema {
  return JSON.parse(
    JSON.stringify(schema).replaceAll('"$ref":"#/components/', '"$ref":"github#/components/'),
  ) as Schema
}

function lastSegment(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1)
}
