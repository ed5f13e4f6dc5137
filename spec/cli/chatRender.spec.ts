// What `agentlog chat` prints for data blocks (issue 20, item 7): an image the model returns and an
// image in a tool result are named by their media type, on their own line, around the streamed text.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { counterClock, createEvent, type OutputEvent } from '../../lib/index.js'
import { chatRenderer } from '../../lib/cli/chatRender.js'

const test = suite('cli/chatRender')

test('a data block from the model and a data result are named by their media type, between the texts', () => {
  const clock = counterClock('r')
  const reply_id = 'r-1'
  const events = [
    createEvent(clock, 'TEXT_BLOCK_START', { reply_id, block_id: 't' }),
    createEvent(clock, 'TEXT_BLOCK_DELTA', { reply_id, block_id: 't', delta: 'Here:' }),
    createEvent(clock, 'DATA_BLOCK_START', { reply_id, block_id: 'd', media_type: 'image/png' }),
    createEvent(clock, 'DATA_BLOCK_DELTA', { reply_id, block_id: 'd', data: 'iVBO', media_type: 'image/png' }),
    createEvent(clock, 'TEXT_BLOCK_DELTA', { reply_id, block_id: 't', delta: 'Red.' }),
    createEvent(clock, 'TEXT_BLOCK_END', { reply_id, block_id: 't' }),
    createEvent(clock, 'TOOL_RESULT_START', { reply_id, tool_call_id: 'c', tool_call_name: 'chart' }),
    createEvent(clock, 'TOOL_RESULT_DATA_DELTA', { reply_id, tool_call_id: 'c', block_id: 'b', media_type: 'image/svg+xml', data: 'PHN2Zz4=', url: null }),
    createEvent(clock, 'TOOL_RESULT_END', { reply_id, tool_call_id: 'c', state: 'success' }),
  ] as OutputEvent[]
  let printed = ''
  const renderer = chatRenderer((text) => { printed += text }, { dim: (text) => text })
  for (const event of events) renderer.render(event)
  assert.is(printed, 'Here:\n[image/png from the model]\nRed.\n[image/svg+xml]\n[done]\n')
})

test.run()
