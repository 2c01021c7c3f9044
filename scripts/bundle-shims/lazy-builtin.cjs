// A Node built-in module loaded on first use, for dependencies that require one when they are loaded but
// call it only on a path an idle worker never takes (scripts/bundle.mjs decides which, per dependency):
// - the driver's `tls`: called only to open a TLS connection (`tls.connect`, in cmap/connect.js and client-side
//   encryption's state machine);
// - prom-client's `https`: called only by its Pushgateway client, which leasecron never builds.
// Why: on Node 22+ loading `tls` (and `https`, which loads it) sets up OpenSSL's TLS layer and touches ~5 MiB
// more of the `node` binary (0.9 MiB on Node 20), which then stays resident: a worker whose MONGO_URI has no
// TLS carried it for nothing (bench/NOTES.md, "Where an idle worker's memory goes"). Every property read
// goes to the real module, loaded on the first one, so a TLS connection behaves exactly as before.
'use strict'

module.exports = function lazyBuiltin(load) {
  let real
  const module = () => {
    real ??= load()
    return real
  }
  return new Proxy(
    {},
    {
      get: (_, name) => module()[name],
      has: (_, name) => name in module(),
      ownKeys: () => Reflect.ownKeys(module()),
      getOwnPropertyDescriptor: (_, name) => {
        const descriptor = Reflect.getOwnPropertyDescriptor(module(), name)
        return descriptor === undefined ? undefined : { ...descriptor, configurable: true }
      },
    },
  )
}
