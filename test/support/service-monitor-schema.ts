/**
 * A JSON schema of the Prometheus Operator's ServiceMonitor (monitoring.coreos.com/v1), for the Helm
 * chart's test: kubernetes-models has no models for CRDs. Written from the operator's CRD (its
 * openAPIV3Schema for spec.selector and spec.endpoints[]), narrowed to the fields a scrape of leasecron's
 * Service uses, so a typo (`intervall:`) or an interval that is not a Prometheus duration is rejected here,
 * as the API server would.
 */
const DURATION = '^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$'
const stringMap = { type: 'object', additionalProperties: { type: 'string' } }

export const SERVICE_MONITOR_SCHEMA = {
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  additionalProperties: false,
  properties: {
    apiVersion: { const: 'monitoring.coreos.com/v1' },
    kind: { const: 'ServiceMonitor' },
    metadata: {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string', minLength: 1 }, labels: stringMap, annotations: stringMap },
    },
    spec: {
      type: 'object',
      required: ['selector', 'endpoints'],
      additionalProperties: false,
      properties: {
        jobLabel: { type: 'string' },
        selector: {
          type: 'object',
          additionalProperties: false,
          properties: { matchLabels: stringMap, matchExpressions: { type: 'array' } },
        },
        namespaceSelector: { type: 'object' },
        endpoints: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            additionalProperties: false,
            properties: {
              port: { type: 'string' },
              targetPort: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
              path: { type: 'string' },
              scheme: { enum: ['http', 'https', 'HTTP', 'HTTPS'] },
              interval: { type: 'string', pattern: DURATION },
              scrapeTimeout: { type: 'string', pattern: DURATION },
              honorLabels: { type: 'boolean' },
              relabelings: { type: 'array' },
              metricRelabelings: { type: 'array' },
            },
          },
        },
      },
    },
  },
} as const
