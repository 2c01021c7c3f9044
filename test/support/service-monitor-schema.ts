/**
 * A JSON schema of the Prometheus Operator's ServiceMonitor (monitoring.coreos.com/v1), for the Helm
 * chart's test: kubernetes-models has no models for CRDs. Written from the operator's CRD (its
 * openAPIV3Schema for spec.selector and spec.endpoints[]), narrowed to the fields a scrape of leasecron's
 * Service uses, so a typo (`intervall:`) or an interval that is not a Prometheus duration is rejected here,
 * as the API server would.
 */
import { DURATION, operatorResource, stringMap } from './operator-resource-schema.js'

export const SERVICE_MONITOR_SCHEMA = operatorResource('ServiceMonitor', {
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
})
