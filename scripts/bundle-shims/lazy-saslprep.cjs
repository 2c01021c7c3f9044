// Stands in for `@mongodb-js/saslprep` inside the bundle (scripts/bundle.mjs routes the driver's import
// here). The package builds its Unicode code-point tables when it is loaded, ~11 ms of every worker start
// (measured with --cpu-prof), though the driver calls it only to authenticate with SCRAM-SHA-256. The
// bundler runs a CommonJS module's body on its first require, so requiring the real package inside the
// function defers that work to the first authentication; a worker without credentials never pays it.
'use strict'

let real
function saslprep(input, options) {
  real ??= require('@mongodb-js/saslprep')
  return real(input, options)
}
saslprep.saslprep = saslprep
saslprep.default = saslprep
module.exports = saslprep
