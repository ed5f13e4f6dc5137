// Issue 9, item 11: every pending `next()` on a replyStream iterator settles, in order, however
// many are waiting at once.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { say, UserMsg } from '../../lib/index.js'
import { makeAgent } from '../helpers/fixtures.js'
import { within } from '../helpers/hardening.js'

const test = suite('lib/replyRun')

for (const waiting of [3, 8]) {
  test(`${waiting} concurrent next() calls all settle, in order, with the events in order`, async () => {
    const { agent } = makeAgent([say('one two three four', 4)], [], { modelOptions: { chunkDelayMs: 1 } })
    const iterator = agent.replyStream(UserMsg({ content: 'go' }))[Symbol.asyncIterator]()
    const seen: string[] = []
    const settled: number[] = []
    for (let round = 0; round < 20 && !seen.includes('REPLY_END'); round++) {
      const pending = Array.from({ length: waiting }, (_, i) => iterator.next().then((r) => {
        settled.push(i)
        if (!r.done) seen.push(r.value.type)
        return r
      }))
      await within(Promise.all(pending), 2000, `${waiting} pending next() calls`)
      assert.equal(settled.splice(0), Array.from({ length: waiting }, (_, i) => i), 'they settled in the order they were made')
    }
    assert.equal(seen, agent.log.filter((e) => e.type !== 'USER_MESSAGE').map((e) => e.type))
    assert.is(seen.at(-1), 'REPLY_END')
  })
}

test.run()
