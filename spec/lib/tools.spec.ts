// Issue 9, item 13: defineTool refuses a permission it does not know (a typo must never run a
// tool without asking), with INVALID_OPTION; the three permissions and a function are accepted.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { AgentError, defineTool } from '../../lib/index.js'

const test = suite('lib/tools')

const define = (permission: unknown) => defineTool({
  name: 'rm', description: 'Removes a file', input: z.object({ path: z.string() }), execute: () => 'done', permission: permission as never,
})

for (const permission of ['Ask', 'confirm', 'Deny', 'ALLOW', '', null, 1, { ask: true }]) {
  test(`permission ${JSON.stringify(permission)} is refused with INVALID_OPTION`, () => {
    try {
      define(permission)
      assert.unreachable('defineTool accepted an unknown permission')
    } catch (error) {
      assert.instance(error, AgentError)
      assert.is((error as AgentError).code, 'INVALID_OPTION')
      assert.match((error as AgentError).message, /permission must be 'allow', 'ask', 'deny' or a function/)
    }
  })
}

test('the three permissions, a function and no permission are accepted', () => {
  for (const permission of ['allow', 'ask', 'deny', () => 'ask', undefined]) assert.is(define(permission).name, 'rm')
})

test.run()
