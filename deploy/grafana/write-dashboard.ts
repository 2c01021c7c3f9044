/** `npm run dashboard`: writes deploy/grafana/leasecron.json from leasecron-dashboard.ts. */
import { writeFileSync } from 'node:fs'
import { dashboardText, leasecronDashboard } from './leasecron-dashboard.js'

const out = new URL('./leasecron.json', import.meta.url)
writeFileSync(out, dashboardText(leasecronDashboard()))
console.log(`wrote ${out.pathname}`)
