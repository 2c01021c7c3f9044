/**
 * The nearest known name to a mistyped one, by edit distance: the "did you mean" of every refusal — unknown
 * variables, defineNet fields, a variable's one-of-a-few value, CLI commands and options, net names.
 * Hand-written, not a library's: the worker installs two packages (issue #24), and a Levenshtein distance
 * over a few dozen short names is all it needs.
 */

/**
 * The known name closest to a typo by edit distance, for a "did you mean" hint; undefined when none is
 * within `maxDistance` (by default 3 edits, or a quarter of the name's length when that is more). The CLI
 * uses it for mistyped commands and options with a tighter bound, its words being short.
 */
export function nearestName(
  name: string,
  known: readonly string[],
  maxDistance = Math.max(3, Math.floor(name.length / 4)),
): string | undefined {
  let best: { name: string; distance: number } | undefined
  for (const candidate of known) {
    // A name that extends a known one (LEASECRON_FORGE_KIND) most likely meant that one.
    const distance = editDistance(name, candidate) - (name.startsWith(candidate) ? 0.5 : 0)
    if (!best || distance < best.distance) best = { name: candidate, distance }
  }
  return best && best.distance <= maxDistance ? best.name : undefined
}

/** Levenshtein distance (insertions, deletions, substitutions), two rows at a time. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      )
    }
    previous = current
  }
  return previous[b.length]!
}
