/**
 * A JSON schema of the Prometheus Operator's PrometheusRule (monitoring.coreos.com/v1), for the deploy
 * tests: kubernetes-models has no models for CRDs. Written from the operator's CRD (its openAPIV3Schema for
 * spec.groups[].rules[]), narrowed to what a rule file may hold: a rule names an alert or a record (not
 * both), has an expr, and carries only the fields the operator knows — so a typo (`annotation:`) or a
 * `for` that is not a Prometheus duration is rejected here, as the API server would.
 */
import { DURATION, operatorResource, stringMap } from './operator-resource-schema.js'

export const PROMETHEUS_RULE_SCHEMA = operatorResource('PrometheusRule', {
  type: 'object',
  required: ['groups'],
  additionalProperties: false,
  properties: {
    groups: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'rules'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', minLength: 1 },
          interval: { type: 'string', pattern: DURATION },
          rules: {
            type: 'array',
            items: {
              type: 'object',
              required: ['expr'],
              oneOf: [{ required: ['alert'] }, { required: ['record'] }],
              additionalProperties: false,
              properties: {
                alert: { type: 'string' },
                record: { type: 'string' },
                expr: { type: ['string', 'integer'] },
                for: { type: 'string', pattern: DURATION },
                keep_firing_for: { type: 'string', pattern: DURATION },
                labels: stringMap,
                annotations: stringMap,
              },
            },
          },
        },
      },
    },
  },
})
