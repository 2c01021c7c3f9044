/**
 * The one piece of luxon that leasecron touches (cron-locale.ts): its settings' default locale. luxon
 * ships no types; cron-parser bundles it as its own dependency.
 */
declare module 'luxon' {
  export const Settings: { defaultLocale: string }
}
