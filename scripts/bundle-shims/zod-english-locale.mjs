// Stands in for zod's `locales/index.js` inside the bundle (scripts/bundle.mjs routes zod's own imports of
// it here). zod exports every language's error messages as `z.locales` (and `z.core.locales`); leasecron
// reads none of them (its errors are English, zod's default `en`, which zod imports directly), and a
// namespace export cannot be tree-shaken: the forty-odd other languages were 297 kB, half of zod's chunk,
// compiled by every command that reads the configuration (measured with --cpu-prof and the bundle's
// metafile). A caller of `z.locales.<lang>()` inside the bundle would get undefined: none exists
// (test/library/bundle-graph.test.ts holds the bundle to English).
export { default as en } from 'zod/v4/locales/en.js'
