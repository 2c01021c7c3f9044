/**
 * The one rule for which `name=value` pairs carry a credential, wherever they appear: a URI's query string
 * (the request spans' `url.full`, forge/client/request-span.ts) and free text (an error's message, a ping body,
 * the ledger's error, a log line: config/scrub.ts). On the bottom floor, importing nothing, so that the
 * forge's spans and the configuration's scrubber judge a name alike without the forge knowing the
 * configuration.
 *
 * Not a scrubber: it judges a name; config/scrub.ts finds the pairs and replaces their values.
 */

/**
 * The OpenTelemetry conventions' list (`sig`, `signature`, `…key…`, an OAuth `code`) and anything named like
 * a secret (`password`, `secret`, `token`, a MongoDB `authMechanismProperties`).
 */
const SECRET_PARAMETER = /token|secret|password|signature|key|authmechanismproperties|^sig$|^code$/i

/** True when a query parameter or a `name=value` pair named `name` carries a credential. */
export function isSecretParameter(name: string): boolean {
  return SECRET_PARAMETER.test(name)
}
