/**
 * What a worker builds its forges with — the App's forge and the meter every forge reports to — behind
 * one module that `openRuntime` imports once the store has started connecting (one `import()` target is
 * one file of the bundle, and each file costs a start its resolve, read and link).
 */
export { createAppForge, createForge } from '../forge/client/github-app.js'
export { createForgeMeter } from '../forge/meter/meter.js'
