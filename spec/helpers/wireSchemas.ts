// The wire contract as JSON Schemas that live in the repository: AgentScope's reference schemas
// (a checked-in copy under spec/fixtures/reference, closed so that no object may carry a field
// they do not name, except ThinkingBlock and the free-form objects) and the schemas generated from
// our zod schemas with `z.toJSONSchema`, which cover every event type, agentlog's own included.
import { readFileSync } from 'node:fs'
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import * as formats from 'ajv-formats'
import { z } from 'zod'
import { AgentEventSchema } from '../../lib/core/events.js'
import { MsgSchema } from '../../lib/core/messages.js'

export type JsonSchema = { [key: string]: any }

const OPEN_DEFS = new Set(['ThinkingBlock'])

/** A reference schema as checked in (`events` or `msg`), untouched. */
export const referenceSchema = (name: 'events' | 'msg'): JsonSchema =>
  JSON.parse(readFileSync(new URL(`../fixtures/reference/agentscope-${name}.schema.json`, import.meta.url), 'utf8'))

/** Closes every object definition of `$defs` (and the root, when it is an object: the Msg). */
const closeObjects = (schema: JsonSchema): JsonSchema => {
  for (const [name, def] of Object.entries<JsonSchema>(schema.$defs)) {
    if (def.type === 'object' && !OPEN_DEFS.has(name)) def.additionalProperties = false
  }
  if (schema.type === 'object') schema.additionalProperties = false
  return schema
}

/** The schemas generated from the zod schemas: the event union's members by type, and the Msg. */
export const generatedEventSchemas = (): Map<string, JsonSchema> => {
  const union = z.toJSONSchema(AgentEventSchema) as JsonSchema
  return new Map(union.oneOf.map((member: JsonSchema) => [member.properties.type.const as string, member]))
}
export const generatedMsgSchema = (): JsonSchema => z.toJSONSchema(MsgSchema) as JsonSchema

const ajv = new Ajv2020({ strict: false, allErrors: true })
const addFormats = ((formats as unknown as { default?: unknown }).default ?? formats) as (a: Ajv2020) => void
addFormats(ajv)
const eventsSchema = closeObjects(referenceSchema('events'))
ajv.addSchema(eventsSchema, 'events')
const referenceMsg = ajv.compile(closeObjects(referenceSchema('msg')))
const generatedMsg = ajv.compile(generatedMsgSchema())

const referenceEvents = new Map<string, ValidateFunction>()
for (const [name, def] of Object.entries<JsonSchema>(eventsSchema.$defs)) {
  const type = def.properties?.type?.const
  if (typeof type === 'string' && /^[A-Z_]+$/.test(type)) referenceEvents.set(type, ajv.getSchema(`events#/$defs/${name}`)!)
}
const generatedEvents = new Map([...generatedEventSchemas()].map(([type, schema]) => [type, ajv.compile(schema)]))

const describeErrors = (errors: ErrorObject[] | null | undefined): string[] =>
  (errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}${e.keyword === 'additionalProperties' ? `: ${String((e.params as { additionalProperty: string }).additionalProperty)}` : ''}`)

const problems = (validate: ValidateFunction, value: unknown, label: string) =>
  validate(value) ? [] : describeErrors(validate.errors).map((p) => `${label} ${p}`)

/** AgentScope event types (those in the reference schema); agentlog's own log events are not among them. */
export const isAgentScopeType = (type: string): boolean => referenceEvents.has(type)

/** What is wrong with `event` against the generated schema of its type and, for an AgentScope type, the reference. */
export const eventProblems = (event: { type?: unknown; [field: string]: unknown }): string[] => {
  const type = String(event.type)
  const generated = generatedEvents.get(type)
  if (!generated) return [`type ${JSON.stringify(event.type)} is not an event type`]
  const reference = referenceEvents.get(type)
  return [...problems(generated, event, `${type} (generated)`), ...(reference ? problems(reference, event, `${type} (reference)`) : [])]
}

/** What is wrong with `msg` against the reference and the generated message schemas. */
export const msgProblems = (msg: unknown): string[] => [...problems(referenceMsg, msg, '(reference)'), ...problems(generatedMsg, msg, '(generated)')]
