/**
 * What the Prometheus Operator's resources share, for their narrowed JSON schemas (prometheus-rule-schema.ts,
 * service-monitor-schema.ts): a Prometheus duration, a map of strings, and the envelope every resource of
 * the operator's API group has (apiVersion, kind, a named metadata) around its own `spec`.
 */
export const DURATION =
  '^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$'
export const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const

/** The schema of a monitoring.coreos.com/v1 resource of `kind` whose spec is `spec`. */
export function operatorResource<S extends object>(kind: string, spec: S) {
  return {
    type: 'object',
    required: ['apiVersion', 'kind', 'metadata', 'spec'],
    additionalProperties: false,
    properties: {
      apiVersion: { const: 'monitoring.coreos.com/v1' },
      kind: { const: kind },
      metadata: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string', minLength: 1 }, labels: stringMap, annotations: stringMap },
      },
      spec,
    },
  } as const
}
