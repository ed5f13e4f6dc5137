// The wire contract of REFERENCE.md: AgentScope's JSON Schemas of events and messages, read from
// <repo>/../shared/reference and tightened before compiling, so that no object may carry a field
// the schema does not name (except ThinkingBlock, which admits provider extras, and the free-form
// `metadata` / `value` / `structured_output` objects, which are inline and stay open).
import { readFileSync } from 'node:fs'
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import * as formats from 'ajv-formats'

type Schema = { $defs: Record<string, Record<string, unknown>>; [key: string]: unknown }

const OPEN_DEFS = new Set(['ThinkingBlock'])

const load = (file: string): Schema =>
  JSON.parse(readFileSync(new URL(`../../../../shared/reference/${file}`, import.meta.url), 'utf8')) as Schema

/** Closes every object definition of `$defs` (and the root, when it is an object: the Msg). */
const closeObjects = (schema: Schema): Schema => {
  for (const [name, def] of Object.entries(schema.$defs)) {
    if (def.type === 'object' && !OPEN_DEFS.has(name)) def.additionalProperties = false
  }
  if (schema.type === 'object') schema.additionalProperties = false
  return schema
}

const ajv = new Ajv({ strict: false, allErrors: true })
const addFormats = ((formats as unknown as { default?: unknown }).default ?? formats) as (a: Ajv) => void
addFormats(ajv)

const eventsSchema = closeObjects(load('agentscope-events.schema.json'))
const msgSchema = closeObjects(load('agentscope-msg.schema.json'))
ajv.addSchema(eventsSchema, 'events')
const validateMsg = ajv.compile(msgSchema)

/** Each event `type` of the union, mapped to the validator of its definition. */
const eventValidators = new Map<string, ValidateFunction>()
for (const [name, def] of Object.entries(eventsSchema.$defs)) {
  const type = (def.properties as Record<string, { const?: unknown }> | undefined)?.type?.const
  if (typeof type === 'string' && /^[A-Z_]+$/.test(type)) eventValidators.set(type, ajv.getSchema(`events#/$defs/${name}`)!)
}

const describeErrors = (errors: ErrorObject[] | null | undefined): string[] =>
  (errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}${e.keyword === 'additionalProperties' ? `: ${String((e.params as { additionalProperty: string }).additionalProperty)}` : ''}`)

/** AgentScope event types (those in the schema); agentlog's own log events are not among them. */
export const isAgentScopeType = (type: string): boolean => eventValidators.has(type)

/** What is wrong with `event` against the events schema (empty when it validates). */
export const eventProblems = (event: { type?: unknown }): string[] => {
  const type = String(event.type)
  const validate = eventValidators.get(type)
  if (!validate) return [`type ${JSON.stringify(event.type)} is not an AgentScope event`]
  return validate(event) ? [] : describeErrors(validate.errors).map((p) => `${type} ${p}`)
}

/** What is wrong with `msg` against the message schema (empty when it validates). */
export const msgProblems = (msg: unknown): string[] => (validateMsg(msg) ? [] : describeErrors(validateMsg.errors))
