import * as assert from 'uvu/assert'
import { createHub, memoryStore, type AgentError } from '../../lib/index.js'
import { sessionAgent } from '../helpers/sessionModel.js'
import { hubContract } from './hubContract.js'

const test = hubContract('memory', async () => memoryStore())

test('createHub refuses a sweepMs that is not a number of at least 10 ms or false', async () => {
  for (const sweepMs of [0, -1, 5, Number.NaN, '1000', true])
    assert.throws(() => createHub({ store: memoryStore(), agent: sessionAgent(1), sweepMs: sweepMs as never }), (e: AgentError) => e.code === 'INVALID_OPTION' && /sweepMs/.test(e.message))
  await createHub({ store: memoryStore(), agent: sessionAgent(1), sweepMs: false }).close()
})

test.run()
