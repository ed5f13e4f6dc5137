// What a JSON log can carry: `jsonProblem` says why a value would not come back unchanged from a
// JSON round trip (a Date, a Map, a class instance, undefined, NaN, a getter that throws; a cycle
// shows as nesting too deep),
// or that it nests deeper than a limit. Used where user code hands the agent values to record
// (tool results' metadata) and where the model's tool arguments meet a provider.
import { describe } from './errors.js'

/** JSON nests no deeper than this anywhere in agentlog (providers refuse or overflow far later). */
export const MAX_JSON_DEPTH = 200

/** Why `value` is not plain JSON, as a phrase with the path where it goes wrong; null when it is. */
export const jsonProblem = (value: unknown, maxDepth = MAX_JSON_DEPTH): string | null => {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '(value)', depth: 0 }]
  let budget = 1_000_000
  try {
    for (let item = stack.pop(); item; item = stack.pop()) {
      const { value: v, path, depth } = item
      if (v === null || typeof v === 'string' || typeof v === 'boolean') continue
      if (typeof v === 'number') {
        if (!Number.isFinite(v)) return `${path} is ${v}, which JSON cannot carry`
        continue
      }
      if (typeof v !== 'object') return `${path} is ${describe(v)}, which JSON cannot carry`
      if (depth >= maxDepth) return `${path} nests deeper than ${maxDepth} levels`
      if (--budget === 0) return `${path}: the value holds more than a million parts`
      if (Array.isArray(v)) {
        v.forEach((element, i) => stack.push({ value: element, path: `${path}[${i}]`, depth: depth + 1 }))
        continue
      }
      const proto = Object.getPrototypeOf(v)
      if (proto !== Object.prototype && proto !== null) return `${path} is ${describe(v)} (${proto?.constructor?.name ?? 'a class instance'}), which JSON cannot carry; convert it (for a Date, toISOString())`
      for (const key of Object.keys(v)) stack.push({ value: (v as Record<string, unknown>)[key], path: `${path}.${key}`, depth: depth + 1 })
    }
  } catch {
    return 'the value cannot be read (a getter or proxy threw)'
  }
  return null
}

/** How deep JSON text nests (brackets outside strings), without parsing it; stops past `limit`. */
export const jsonDepth = (text: string, limit = MAX_JSON_DEPTH): number => {
  let depth = 0
  let max = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 123 || c === 91) {
      if (++depth > max && (max = depth) > limit) return max
    } else if (c === 125 || c === 93) depth--
  }
  return max
}
