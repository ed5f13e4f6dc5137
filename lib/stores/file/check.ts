// Cheap validation of events read back from a log. Per event type, the checks zod makes on flat
// fields (strings with their min length, safe integers, literals, enums, nullable scalars, the
// metadata record, the exact key set of a strict object) are compiled once from the schemas of
// lib/core/events.ts into one JavaScript function (the way ajv compiles schemas); a type with nested
// structure (a message, tool-call lists, an error object) goes through zod itself.
import type { z } from 'zod'
import { AgentEventSchema } from '../../core/events.js'

interface ZodLike { def: { type: string; checks?: { _zod: { def: Record<string, unknown> } }[]; [key: string]: unknown } }
interface Plan { test: ((value: Record<string, unknown>) => boolean) | null; schema: z.ZodType }

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** JavaScript that is true when `a` passes the zod schema, or null when the schema is not a flat scalar. */
const compile = (schema: ZodLike, a: string): string | null => {
  const def = schema.def
  const checks = (def.checks ?? []).map((c) => c._zod.def)
  switch (def.type) {
    case 'string': {
      if (checks.some((c) => c.check !== 'min_length')) return null
      const min = checks.reduce((m, c) => Math.max(m, c.minimum as number), 0)
      return min > 0 ? `(typeof ${a} === "string" && ${a}.length >= ${min})` : `typeof ${a} === "string"`
    }
    case 'number':
      if (checks.length === 0) return `(typeof ${a} === "number" && Number.isFinite(${a}))`
      return checks.length === 1 && checks[0].format === 'safeint' ? `Number.isSafeInteger(${a})` : null
    case 'boolean':
      return checks.length ? null : `typeof ${a} === "boolean"`
    case 'literal':
    case 'enum': {
      const values = def.type === 'literal' ? (def.values as unknown[]) : Object.values(def.entries as Record<string, unknown>)
      if (!values.every((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null)) return null
      return `(${values.map((v) => `${a} === ${JSON.stringify(v)}`).join(' || ')})`
    }
    case 'record': {
      const key = (def.keyType as ZodLike).def
      const value = (def.valueType as ZodLike).def
      return key.type === 'string' && !key.checks?.length && value.type === 'unknown' ? `isRecord(${a})` : null
    }
    case 'nullable': {
      const inner = compile(def.innerType as ZodLike, a)
      return inner && `(${a} === null || ${inner})`
    }
    default:
      return null
  }
}

const countKeys = (value: object): number => {
  let n = 0
  for (const _ in value) n++
  return n
}

const plans = new Map<string, Plan>()
for (const schema of AgentEventSchema.options) {
  const shape = schema.shape as unknown as Record<string, ZodLike>
  const keys = Object.keys(shape)
  const tests = keys.map((k) => compile(shape[k], `v[${JSON.stringify(k)}]`))
  // The code is built from our own schemas' keys and literals only; nothing read from a log enters it.
  const body = tests.every((t) => t !== null) ? `return (v) => ${tests.join(' && ')} && countKeys(v) === ${keys.length}` : null
  const test = body ? (new Function('isRecord', 'countKeys', body)(isRecord, countKeys) as Plan['test']) : null
  plans.set(schema.shape.type.value, { test, schema })
}

/** The event types a log may hold. */
export const knownTypes: ReadonlySet<string> = new Set(plans.keys())

/**
 * Checks a parsed JSON value against the event schemas; returns null when it is a valid event,
 * else a message naming the first problem (what was wrong and where).
 */
export const checkEvent = (value: unknown): string | null => {
  if (!isRecord(value)) return `expected an event object, got ${Array.isArray(value) ? 'an array' : typeof value}`
  const type = value.type
  const plan = typeof type === 'string' ? plans.get(type) : undefined
  if (!plan) return `unknown event type ${JSON.stringify(type)}`
  if (plan.test?.(value)) return null
  const parsed = plan.schema.safeParse(value)
  if (parsed.success) return null
  const issue = parsed.error.issues[0]
  return `${type as string}${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${issue.message}`
}
