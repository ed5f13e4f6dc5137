// Hand-built logs of a tree of agents, linked as issue 21 records it: the child's first REPLY_START
// names its parent call (metadata.parent), the parent's TOOL_RESULT_START names the child session.
import { counterClock, UserMsg, type AgentEvent } from 'agentlog'

let clockMs = Date.UTC(2026, 3, 1)

/** A session's log from [type, fields] steps: ids, seq and times (1 ms apart) filled in. */
export const logOf = (session_id: string, steps: [string, Record<string, unknown>][]): AgentEvent[] =>
  steps.map(([type, fields], i) => {
    const { metadata = {}, ...rest } = fields as { metadata?: Record<string, unknown> }
    return { id: `${session_id}-${i + 1}`, created_at: new Date(clockMs++).toISOString(), metadata: { ...metadata, seq: i + 1 }, type, ...rest } as unknown as AgentEvent
  })

const usage = { input_tokens: 3, output_tokens: 2, cache_input_tokens: 0, cache_creation_input_tokens: 0 }

/** A reply that calls `tool` once (running `child` when given) and then answers. */
const callingReply = (session_id: string, agent: string, tool: string, child: string | null, parent?: { session_id: string; reply_id: string; tool_call_id: string }) => {
  const reply_id = `${session_id}-reply`
  const call = { reply_id, tool_call_id: `${session_id}-call` }
  return logOf(session_id, [
    ['USER_MESSAGE', { msg: UserMsg({ content: 'go' }, counterClock(`${session_id}-m`)) }],
    ['REPLY_START', { session_id, reply_id, name: agent, role: 'assistant', ...(parent ? { metadata: { parent } } : {}) }],
    ['MODEL_CALL_START', { reply_id, model_name: 'm' }],
    ['TOOL_CALL_START', { ...call, tool_call_name: tool }],
    ['TOOL_CALL_END', call],
    ['MODEL_CALL_END', { reply_id, ...usage, finished_reason: 'completed' }],
    ['TOOL_RESULT_START', { ...call, tool_call_name: tool, ...(child ? { metadata: { child_session_id: child } } : {}) }],
    ['TOOL_RESULT_TEXT_DELTA', { ...call, delta: 'done' }],
    ['TOOL_RESULT_END', { ...call, state: 'success' }],
    ['MODEL_CALL_START', { reply_id, model_name: 'm' }],
    ['MODEL_CALL_END', { reply_id, ...usage, finished_reason: 'completed' }],
    ['REPLY_END', { session_id, reply_id, finished_reason: 'completed', error: null }],
  ])
}

export const tree = () => {
  const root = callingReply('root', 'Lead', 'researcher', 'kid')
  const kid = callingReply('kid', 'Researcher', 'fetcher', 'grandkid', { session_id: 'root', reply_id: 'root-reply', tool_call_id: 'root-call' })
  const grandkid = callingReply('grandkid', 'Fetcher', 'http_get', null, { session_id: 'kid', reply_id: 'kid-reply', tool_call_id: 'kid-call' })
  return { root, kid, grandkid }
}

