// Strict options: every options object of the public API (and every HTTP body) refuses keys it does
// not know, naming the key and the closest known one, so a typo (`permision: 'ask'`) is an error
// instead of a silently ignored setting. `optionKeys<T>()` lists an interface's keys, checked by the
// compiler both ways (a key added to the interface must be listed; a listed key must exist).
import { AgentError } from './errors.js'

/** Every key of `T`, written once as `{ key: true, ... }`: the compiler refuses a missing or extra key. */
export const optionKeys = <T extends object>(keys: { [K in keyof Required<T>]: true }): readonly string[] => Object.keys(keys)

/**
 * Refuses the first own key of `object` that is not in `known` (keys whose value is undefined too:
 * a typo is a typo) with `code` (INVALID_OPTION; INVALID_INPUT for HTTP bodies), naming the key, the
 * closest known one and `where` it was given. Non-objects pass: the callers' type checks answer those.
 */
export const checkKnownKeys = (where: string, object: unknown, known: readonly string[], code: 'INVALID_OPTION' | 'INVALID_INPUT' = 'INVALID_OPTION'): void => {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return
  for (const key of Object.keys(object)) {
    if (known.includes(key)) continue
    const near = closest(key, known)
    const hint = near ? ` Did you mean \`${near}\`?` : ''
    throw new AgentError(code, `${where}: unknown ${code === 'INVALID_INPUT' ? 'field' : 'option'} \`${key}\`.${hint} Known: ${known.map((k) => `\`${k}\``).join(', ')}.`, { key, suggestion: near })
  }
}

/** The known key nearest to `key` by edit distance (case-insensitive), if it is near enough to be a typo. */
export const closest = (key: string, known: readonly string[]): string | null => {
  let best: string | null = null
  let bestDistance = Infinity
  const lower = key.toLowerCase()
  for (const candidate of known) {
    const distance = levenshtein(lower, candidate.toLowerCase())
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance]
  }
  return best !== null && bestDistance <= Math.max(2, Math.floor(Math.max(key.length, best.length) / 3)) ? best : null
}

/** The Levenshtein distance of two strings (insertions, deletions, substitutions), two rows of memory. */
export const levenshtein = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    previous = current
  }
  return previous[b.length]!
}
