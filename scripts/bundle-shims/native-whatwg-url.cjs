// Stands in for `whatwg-url` inside the bundle (scripts/bundle.mjs routes its import here). Its only
// importer is `mongodb-connection-string-url` (the driver's and our own MONGO_URI check), which takes the
// `URL` and `URLSearchParams` classes and nothing else. Node's own are the same WHATWG URL Standard
// (Node 20.19+ parses with ada), so the package's 320 kB — tr46's Unicode mapping table and regexes,
// webidl-conversions, punycode — need not be compiled and evaluated before a worker's first store call:
// ~20 ms of every cold start (measured with --cpu-prof). The connection-string tests run against the
// bundle's parse (test/library/native-url.test.ts).
'use strict'

module.exports = { URL: globalThis.URL, URLSearchParams: globalThis.URLSearchParams }
