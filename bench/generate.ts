// A realistic synthetic log for the benchmarks: replies of a thinking block, a tool call and its
// streamed result, then a long streamed answer, in the event order of REFERENCE.md section 4,
// with ids and timestamps of real length. About 92% of the events are deltas.
import type { AgentEvent } from '../lib/core/events.js'
import type { Msg } from '../lib/core/messages.js'

const words = 'the of and to in is that it for as with was on be by this are from at or an which'.split(' ')
const id = (n: number) => `e${n.toString(36).padStart(20, '0')}`

/** Yields events until `count` is reached, at a reply boundary or just past `count` at the latest. */
export function* generateEvents(count: number, session_id = 'session-0000000000000'): Generator<AgentEvent> {
  let n = 0
  let t = Date.UTC(2026, 0, 1)
  let second = ''
  const iso = () => {
    const ms = t++ % 1000
    if (ms === 0 || second === '') second = new Date(t - 1).toISOString().slice(0, 20)
    return `${second}${String(ms).padStart(3, '0')}Z`
  }
  // The envelope first, then the fields: the key order the agent writes (no object spread: it is slow).
  const base = () => ({ id: id(++n), created_at: iso(), metadata: { seq: n } })
  const ev = <F extends object>(fields: F): AgentEvent => {
    const event: Record<string, unknown> = base()
    for (const key in fields) event[key] = fields[key]
    return event as unknown as AgentEvent
  }
  const word = () => words[n % words.length]
  for (let r = 0; n < count; r++) {
    const reply_id = id(1e9 + r)
    const now = iso()
    const msg: Msg = {
      id: id(2e9 + r), name: 'user', role: 'user', metadata: {}, created_at: now, usage: null, finished_at: now,
      finished_reason: null, structured_output: null, error: null,
      content: [{ type: 'text', id: id(3e9 + r), text: `Question ${r}: what does the ${word()} file say about ${word()}?`, created_at: now, finished_at: now }],
    }
    yield ev({ type: 'USER_MESSAGE', msg })
    yield ev({ type: 'REPLY_START', session_id, reply_id, name: 'Friday', role: 'assistant' })
    yield ev({ type: 'MODEL_CALL_START', reply_id, model_name: 'gpt-bench' })
    const thinking = id(4e9 + r)
    yield ev({ type: 'THINKING_BLOCK_START', reply_id, block_id: thinking })
    for (let i = 0; i < 30; i++) yield ev({ type: 'THINKING_BLOCK_DELTA', reply_id, block_id: thinking, delta: ` ${word()} ${word()} ` })
    yield ev({ type: 'THINKING_BLOCK_END', reply_id, block_id: thinking })
    const call = `call_${id(5e9 + r)}`
    yield ev({ type: 'TOOL_CALL_START', reply_id, tool_call_id: call, tool_call_name: 'read_file' })
    for (const delta of ['{"pa', 'th": "/s', 'rc/', `file${r}`, '.ts"}']) yield ev({ type: 'TOOL_CALL_DELTA', reply_id, tool_call_id: call, delta })
    yield ev({ type: 'TOOL_CALL_END', reply_id, tool_call_id: call })
    const usage = { input_tokens: 1200 + r, output_tokens: 80, cache_input_tokens: 1000, cache_creation_input_tokens: 0 }
    yield ev({ type: 'MODEL_CALL_USAGE', reply_id, ...usage })
    yield ev({ type: 'MODEL_CALL_END', reply_id, ...usage, finished_reason: 'completed' })
    yield ev({ type: 'TOOL_RESULT_START', reply_id, tool_call_id: call, tool_call_name: 'read_file' })
    for (let i = 0; i < 10; i++) yield ev({ type: 'TOOL_RESULT_TEXT_DELTA', reply_id, tool_call_id: call, delta: `line ${i}: export const ${word()} = ${i}\n` })
    yield ev({ type: 'TOOL_RESULT_END', reply_id, tool_call_id: call, state: 'success' })
    yield ev({ type: 'MODEL_CALL_START', reply_id, model_name: 'gpt-bench' })
    const text = id(6e9 + r)
    yield ev({ type: 'TEXT_BLOCK_START', reply_id, block_id: text })
    for (let i = 0; i < 150; i++) yield ev({ type: 'TEXT_BLOCK_DELTA', reply_id, block_id: text, delta: ` ${word()}` })
    yield ev({ type: 'TEXT_BLOCK_END', reply_id, block_id: text })
    const answer = { input_tokens: 1500 + r, output_tokens: 160, cache_input_tokens: 1200, cache_creation_input_tokens: 0 }
    yield ev({ type: 'MODEL_CALL_USAGE', reply_id, ...answer })
    yield ev({ type: 'MODEL_CALL_END', reply_id, ...answer, finished_reason: 'completed' })
    yield ev({ type: 'REPLY_END', session_id, reply_id, finished_reason: 'completed', error: null })
  }
}
