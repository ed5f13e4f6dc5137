// Tool-call input for requests: a call cut by an interrupt holds half-written JSON, which no
// provider accepts. Valid object JSON is kept as it is; otherwise open strings and brackets are
// closed and a dangling key or partial value dropped, and what still is no object becomes `{}`.
// The message keeps its raw text; only the request sees the repair. Input nested too deeply for
// a request (refused by the planner) is sent as `{}`.
import { jsonDepth, MAX_JSON_DEPTH } from '../core/jsonValue.js'

export interface ToolInput {
  /** JSON text of `value`: the raw input itself when it was already a valid object. */
  text: string
  value: Record<string, unknown>
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

const parseObject = (text: string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(text)
    return isObject(value) ? value : undefined
  } catch {
    return undefined
  }
}

export const repairToolInput = (raw: string): ToolInput => {
  // Arguments nested past the limit were refused as the call's error result; sending them back
  // would overflow the stack when the request is serialized, on every later request.
  if (jsonDepth(raw) > MAX_JSON_DEPTH) return { text: '{}', value: {} }
  const valid = parseObject(raw)
  if (valid) return { text: raw, value: valid }
  for (const candidate of repairCandidates(raw)) {
    const value = parseObject(candidate)
    if (value) return { text: JSON.stringify(value), value }
  }
  return { text: '{}', value: {} }
}

interface Frame {
  kind: '{' | '['
  /** What comes next in this container (only whether a string is a key matters here). */
  expect: 'key' | 'colon' | 'value' | 'comma'
}

const LITERAL = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)$/
const closersOf = (stack: Frame[]): string => stack.map((frame) => (frame.kind === '{' ? '}' : ']')).reverse().join('')

/**
 * Repairs of a JSON prefix, best first: the text with its open value string closed (keeps a
 * partial string value), then the text cut back to the last complete value, with brackets closed.
 */
export const repairCandidates = (raw: string): string[] => {
  const stack: Frame[] = []
  let safe = { end: 0, closers: '' }
  let string: { start: number; key: boolean } | undefined
  let escapeAt = -1
  let hexLeft = 0
  const valueEnded = (end: number) => {
    const top = stack[stack.length - 1]
    if (top) top.expect = 'comma'
    safe = { end, closers: closersOf(stack) }
  }
  scan: for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]
    if (string) {
      if (hexLeft > 0) {
        if (--hexLeft === 0) escapeAt = -1
      } else if (escapeAt >= 0) {
        if (ch === 'u') hexLeft = 4
        else escapeAt = -1
      } else if (ch === '\\') {
        escapeAt = i
      } else if (ch === '"') {
        const { key } = string
        string = undefined
        if (key) stack[stack.length - 1].expect = 'colon'
        else valueEnded(i + 1)
      }
      continue
    }
    const top = stack[stack.length - 1]
    switch (ch) {
      case ' ': case '\t': case '\n': case '\r':
        break
      case '{': case '[':
        stack.push({ kind: ch, expect: ch === '{' ? 'key' : 'value' })
        safe = { end: i + 1, closers: closersOf(stack) }
        break
      case '}': case ']':
        stack.pop()
        valueEnded(i + 1)
        break
      case ':':
        if (top) top.expect = 'value'
        break
      case ',':
        if (top) top.expect = top.kind === '{' ? 'key' : 'value'
        break
      case '"':
        string = { start: i, key: top?.kind === '{' && top.expect === 'key' }
        break
      default: {
        let end = i
        while (end < raw.length && !/[\s,:[\]{}"]/.test(raw[end])) end++
        if (!LITERAL.test(raw.slice(i, end))) break scan
        valueEnded(end)
        i = end - 1
      }
    }
  }
  const candidates: string[] = []
  if (string && !string.key) {
    const text = escapeAt >= 0 ? raw.slice(0, escapeAt) : raw
    candidates.push(`${text}"${closersOf(stack)}`)
  }
  candidates.push(raw.slice(0, safe.end) + safe.closers)
  return candidates
}
