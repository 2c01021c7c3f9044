/**
 * Set-up that vitest runs before each test file (vitest.config.ts `setupFiles`): the process state that a
 * file may rely on finding as a fresh process has it. Most files share their process with the files run
 * before them (the `shared` project does not isolate them: re-importing the modules for every file cost
 * the 2-core machine about a third of `npm test`), so what the product keeps process-wide is reset here.
 *
 * Only state that a file's own behaviour reads belongs here; caches keyed by value or by object (formatters,
 * parsed schedules) stay, as they do within one worker process.
 */
import { forgetSecrets } from '../../src/config/scrub.js'

// A secret remembered by an earlier file's configuration (a ping URL of "not a url") would mask the same
// text where a later file expects it in an error message.
forgetSecrets()
