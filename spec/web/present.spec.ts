// What the page shows people: results without the model-facing reminder, arguments checked against
// the tool's JSON schema before an edited approval is sent.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { DEFAULT_INTERRUPT_TEXT, INTERRUPTION_REMINDER, defineTool } from '../../lib/index.js'
import { checkArguments } from '../../web/components/Approval.js'
import { prettyArgs, replyEndLabel, resultText, usageText } from '../../web/present.js'

const test = suite('web/present')

test('an interrupted result shows the partial output without the <system-reminder> text', () => {
  assert.is(resultText(`partial line\n${INTERRUPTION_REMINDER}`), 'partial line')
  assert.is(resultText(INTERRUPTION_REMINDER), '')
  assert.is(resultText('<system-reminder>The execution of tool "x" is denied by user!</system-reminder>'), '')
  assert.is(resultText([{ type: 'text', id: 't', text: 'a <b>', created_at: '', finished_at: null }]), 'a <b>')
  assert.ok(!DEFAULT_INTERRUPT_TEXT.includes('<system-reminder>'))
})

test('usage reads as tokens in and out; a reply with no usage shows none', () => {
  assert.is(usageText({ input_tokens: 12, output_tokens: 5, cache_input_tokens: 0, cache_creation_input_tokens: 0 }), '12 in · 5 out tokens')
  assert.is(usageText(null), null)
  assert.is(prettyArgs('{"a":1}'), '{\n  "a": 1\n}')
  assert.is(prettyArgs('{"a":'), '{"a":')
})

test('a reply stopped, cut by max iterations or failed is labelled for people', () => {
  const msg = { finished_reason: 'interrupted', error: null } as Parameters<typeof replyEndLabel>[0]
  assert.is(replyEndLabel(msg), 'Stopped')
  assert.is(replyEndLabel({ ...msg, finished_reason: 'completed' }), null)
  assert.is(replyEndLabel({ ...msg, finished_reason: 'error', error: { type: 'upstream', message: 'bad gateway' } }), 'Error: bad gateway')
})

test('edited arguments are checked against the tool input schema (the JSON Schema a tool publishes)', () => {
  const tool = defineTool({ name: 'send_email', description: 'd', input: z.object({ to: z.string().email(), count: z.number().int().min(1) }), permission: 'ask', execute: () => 'ok' })
  const schema = tool.spec.input_schema as Record<string, unknown>
  assert.is(checkArguments('{"to":"a@b.co","count":2}', schema), null)
  assert.match(checkArguments('{"to":"a@b.co"', schema)!, /Not valid JSON/)
  // In words, once per field (issue 33 item 12): not zod's "Invalid string: must match pattern /^…$/" beside "Invalid email address".
  assert.is(checkArguments('{"to":"nope","count":2}', schema), 'to must be an email address')
  assert.is(checkArguments('{"to":"a@b.co","count":0}', schema), 'count must be at least 1')
  assert.is(checkArguments('{"count":"two"}', schema), 'to is missing; count must be a number')
  assert.is(checkArguments('{"anything":true}', undefined), null)
})

test.run()
