// Tool schemas must be zod 4 (issue 10 item 13): zod 4 classic and mini schemas are accepted; a zod 3
// schema (here from `zod/v3`) gets an error that says zod 4 is required and how to import it; a value
// that is no schema gets the usual one.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import * as zm from 'zod/mini'
import { z as z3 } from 'zod/v3'
import { AgentError, defineTool } from '../../lib/index.js'

const test = suite('lib/zodSchema')

const define = (input: unknown) => defineTool({ name: 't', description: 't', input: input as z.ZodType, execute: () => 'ok' })

test('zod 4 schemas, classic and mini, define a tool with their JSON Schema', () => {
  assert.equal((define(z.object({ a: z.string() })).spec.input_schema as { required?: string[] }).required, ['a'])
  assert.equal((define(zm.object({ a: zm.string() })).spec.input_schema as { required?: string[] }).required, ['a'])
})

test('a zod 3 schema is refused: zod 4 is required, and how to import it', () => {
  try {
    define(z3.object({ a: z3.string() }))
    assert.unreachable('accepted')
  } catch (error) {
    assert.instance(error, AgentError)
    assert.is((error as AgentError).code, 'INVALID_OPTION')
    assert.match((error as Error).message, /defineTool\("t"\): this is a zod 3 schema; agentlog needs zod 4\. Install zod 4 \(npm install zod@\^4\) and write import \{ z \} from 'zod'/)
  }
})

test('something that is no schema is refused as before, naming what was received', () => {
  assert.throws(() => define({ a: 'string' }), (e: AgentError) => e.code === 'INVALID_OPTION' && /must be a zod 4 schema.*received an object with keys \[a\]/.test(e.message))
  assert.throws(() => define(undefined), (e: AgentError) => e.code === 'INVALID_OPTION')
})

test.run()
