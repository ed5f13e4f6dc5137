// The checked-in reference schemas (spec/fixtures/reference) and the schemas generated from our zod
// schemas agree on everything the reference defines: the same event types, the same fields per
// event and block, the same value shapes (types, enums, constants), and every field the reference
// requires is required by ours. Fields may only be stricter on our side (we require more).
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { eventProblems, generatedEventSchemas, generatedMsgSchema, msgProblems, referenceSchema, type JsonSchema } from '../helpers/wireSchemas.js'
import { z } from 'zod'
import { callTool, createAgent, defineTool, say, scriptedModel, UserMsg, type AgentEvent } from '../../lib/index.js'

const test = suite('wire/schemas')

/** Reference event types we do not produce, with the reason. */
const NOT_PRODUCED: Record<string, string> = { EXCEED_MAX_ITERS: 'deprecated in the reference; REPLY_END(exceed_max_iters) replaces it' }
/** Fields whose values ours narrow on purpose (the reference admits more), with the reason. */
const NARROWED: Record<string, string> = { 'REPLY_START.role': 'REFERENCE.md section 2: role = assistant' }

/** A canonical description of the values a schema admits (refs resolved, unions flattened). */
const shape = (schema: JsonSchema, root: JsonSchema, depth = 0): string => {
  if (schema.$ref) return shape(root.$defs[schema.$ref.split('/').pop()], root, depth)
  const union = schema.anyOf ?? schema.oneOf
  if (union) return [...new Set(union.flatMap((s: JsonSchema) => shape(s, root, depth).split(' | ')))].sort().join(' | ')
  if ('const' in schema) return `=${JSON.stringify(schema.const)}`
  if (schema.enum) return `enum(${[...schema.enum].sort().join(',')})`
  const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type]
  return types.map((type) => {
    if (type === 'array') return `[${shape(schema.items, root, depth)}]`
    if (type !== 'object') return type
    if (!schema.properties) return 'record'
    if (depth > 4) return 'object'
    return `{${Object.keys(schema.properties).sort().map((k) => `${k}:${shape(schema.properties[k], root, depth + 1)}`).join(',')}}`
  }).sort().join(' | ')
}

const compareObject = (label: string, ref: JsonSchema, refRoot: JsonSchema, ours: JsonSchema, ourRoot: JsonSchema): string[] => {
  const problems: string[] = []
  const refKeys = Object.keys(ref.properties).sort()
  const ourKeys = Object.keys(ours.properties).sort()
  if (refKeys.join() !== ourKeys.join()) problems.push(`${label}: fields differ: reference [${refKeys}] ours [${ourKeys}]`)
  for (const key of refKeys.filter((k) => ourKeys.includes(k))) {
    const a = shape(ref.properties[key], refRoot)
    const b = shape(ours.properties[key], ourRoot)
    if (a !== b && !(`${label}.${key}` in NARROWED)) problems.push(`${label}.${key}: reference ${a}, ours ${b}`)
  }
  for (const key of ref.required ?? []) if (!(ours.required ?? []).includes(key)) problems.push(`${label}.${key} is required by the reference, not by ours`)
  return problems
}

test('every reference event type has a generated schema, and the fields and value shapes agree', () => {
  const reference = referenceSchema('events')
  const ours = generatedEventSchemas()
  const problems: string[] = []
  let compared = 0
  for (const def of Object.values<JsonSchema>(reference.$defs)) {
    const type = def.properties?.type?.const
    if (typeof type !== 'string' || !/^[A-Z_]+$/.test(type) || type in NOT_PRODUCED) continue
    const mine = ours.get(type)
    if (!mine) problems.push(`${type}: no zod schema`)
    else problems.push(...compareObject(type, def, reference, mine, mine))
    compared++
  }
  assert.equal(problems, [])
  assert.ok(compared >= 25, `compared ${compared} event types`)
})

test('the message and each of its block types agree with the reference', () => {
  const reference = referenceSchema('msg')
  const ours = generatedMsgSchema()
  assert.equal(compareObject('Msg', reference, reference, ours, ours), [])
  const ourBlocks = new Map<string, JsonSchema>(ours.properties.content.items.oneOf.map((b: JsonSchema) => [b.properties.type.const, b]))
  const problems: string[] = []
  for (const ref of reference.properties.content.items.anyOf) {
    const def = reference.$defs[ref.$ref.split('/').pop()]
    const kind = def.properties.type.const
    const mine = ourBlocks.get(kind)
    if (!mine) problems.push(`block ${kind}: no zod schema`)
    else problems.push(...compareObject(`block ${kind}`, def, reference, mine, ours))
  }
  assert.equal(problems, [])
  assert.is(ourBlocks.size, 6)
})

test('the comparison notices a field, a value or a requirement that differs', () => {
  const reference = referenceSchema('events')
  const mine = generatedEventSchemas().get('TOOL_RESULT_END')!
  const def = structuredClone(reference.$defs.ToolResultEndEvent)
  def.properties.extra = { type: 'string' }
  def.properties.state = { enum: ['success'], type: 'string' }
  def.required.push('extra')
  const problems = compareObject('TOOL_RESULT_END', def, reference, mine, mine)
  assert.is(problems.length, 3, problems.join('; '))
})

test('the generated schemas cover agentlog\'s own events, which the reference does not name', () => {
  const ours = generatedEventSchemas()
  for (const type of ['USER_MESSAGE', 'INTERRUPT_REQUESTED', 'MODEL_CALL_USAGE']) assert.ok(ours.has(type), type)
})

const aConversation = async (): Promise<readonly AgentEvent[]> => {
  const echo = defineTool({ name: 'echo', description: 'echo', input: z.object({ text: z.string() }), execute: ({ text }) => text })
  const model = scriptedModel([[...say('Let me echo.'), ...callTool('c1', 'echo', { text: 'hi' })], [...say('Done.')]])
  const agent = createAgent({ name: 'a', model, tools: [echo] })
  await agent.reply(UserMsg({ content: 'echo hi' }))
  return agent.log
}

test('valid events pass both schemas; an extra field or a wrong type fails both', async () => {
  const events = await aConversation()
  assert.ok(events.length > 15)
  for (const event of events) assert.equal(eventProblems(event), [], event.type)
  const end = events.find((e) => e.type === 'REPLY_END')!
  const extra = eventProblems({ ...end, extra: 1 })
  assert.ok(extra.some((p) => p.includes('(generated)')) && extra.some((p) => p.includes('(reference)')), extra.join('; '))
  const wrong = eventProblems({ ...end, finished_reason: 'done' })
  assert.ok(wrong.some((p) => p.includes('(generated)')) && wrong.some((p) => p.includes('(reference)')), wrong.join('; '))
  assert.equal(eventProblems({ type: 'NOPE' }), ['type "NOPE" is not an event type'])
  assert.ok(msgProblems({ role: 'user' }).length > 0)
})

test.run()
