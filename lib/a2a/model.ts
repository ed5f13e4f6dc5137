// The remote task as the model of a local proxy sub-agent: a model call sends the task (the first)
// or the answer to what the remote asked (the tool result that ends the reply so far), and streams
// the remote text as text. A remote INPUT_REQUIRED ends the model call with a call to one of two
// pseudo tools: `remote_approval` (asks: a yes/no approval) or `remote_input` (external: a free
// answer), so the proxy parks like any agent, and its tree shows the question. Aborting the call
// (a Stop) fires CancelTask without waiting. A stream cut before the task stops is resubscribed.
import { z } from 'zod'
import type { ChatModel, ModelChunk, ModelRequest } from '../models/model.js'
import type { Msg, ToolCallBlock, ToolResultBlock } from '../core/messages.js'
import { defineTool } from '../agent/tools.js'
import { outputText } from '../agent/text.js'
import { cancelSoon, messageRequest, partsText, questionOf, resubscribe, send, TERMINAL_STATES, type Json, type MessageRequest, type Remote } from './remote.js'

import { REMOTE_APPROVAL, REMOTE_INPUT } from './names.js'

export { REMOTE_APPROVAL, REMOTE_INPUT }

const Question = z.object({
  question: z.string(),
  task_id: z.string(),
  /** The remote agentlog call the approval answers (from its `agentlog.waiting` part). */
  asking: z.object({ id: z.string(), session_id: z.string().optional() }).nullable().optional(),
})
type Question = z.infer<typeof Question>

/** The proxy's pseudo tools: approving runs nothing here (the answer goes to the remote task); input is given by the caller. */
export const remoteTools = () => [
  defineTool({ name: REMOTE_APPROVAL, description: 'The remote agent asks for a yes/no approval.', input: Question, permission: 'ask', execute: () => 'approved' }),
  defineTool({ name: REMOTE_INPUT, description: 'The remote agent asks for input.', input: Question, external: true }),
]

/** What one call of a2aAgent shares between its proxy's model and its watcher: the remote task while it is open. */
export interface RemoteTask {
  id: string | null
  open: boolean
}

const text = (delta: string): ModelChunk => ({ type: 'text', delta })

export const remoteModel = (remote: Remote, contextId: string, task: RemoteTask): ChatModel => ({
  name: `a2a:${remote.name || remote.url}`,
  async *stream(request, { signal }) {
    const answered = lastAnswer(request)
    const message = answered ? messageRequest(answerParts(answered.question, answered.result), { taskId: answered.question.task_id, contextId })
      : messageRequest([{ text: taskText(request) }], { contextId })
    yield* follow(remote, message, signal, task, answered?.question.task_id ?? null)
  },
})

async function* follow(remote: Remote, message: MessageRequest, signal: AbortSignal, task: RemoteTask, known: string | null): AsyncGenerator<ModelChunk> {
  task.id = known
  task.open = known !== null
  let streamed = ''
  let baseline = known !== null
  let base = ''
  const onAbort = () => {
    if (task.id && task.open) cancelSoon(remote, task.id)
    task.open = false
  }
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    let source = send(remote, message, signal)
    for (let attempt = 0; ; attempt++) {
      for await (const r of source) {
        if (r.message) return yield text(partsText(r.message.parts) || '(the remote agent answered with no text)')
        let status: Json | undefined
        if (r.task) {
          task.id = r.task.id
          task.open = true
          // An answer's stream starts with the task as it stood (still INPUT_REQUIRED): only its text counts.
          status = baseline ? undefined : r.task.status
          const full = (r.task.artifacts ?? []).map((a: Json) => partsText(a.parts)).join('')
          // An answer's stream starts with the task as it stands: its text so far was streamed by the call that parked.
          if (baseline) streamed = base = full
          baseline = false
          if (full.length > streamed.length && full.startsWith(streamed)) {
            yield text(full.slice(streamed.length))
            streamed = full
          }
        } else if (r.artifactUpdate) {
          const delta = partsText(r.artifactUpdate.artifact?.parts)
          if (delta) {
            streamed += delta
            yield text(delta)
          }
        } else if (r.statusUpdate) status = r.statusUpdate.status
        const state: string | undefined = status?.state
        if (state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED') {
          const { question, asking } = questionOf(status)
          const input: Question = { question, task_id: task.id!, asking }
          return yield { type: 'tool_call', id: `remote-${crypto.randomUUID().slice(0, 13)}`, name: asking ? REMOTE_APPROVAL : REMOTE_INPUT, delta: JSON.stringify(input) }
        }
        if (state && TERMINAL_STATES.has(state)) {
          task.open = false
          const final = partsText(status?.message?.parts)
          if (state !== 'TASK_STATE_COMPLETED') throw new Error(`The remote agent's task ended ${state}${final ? `: ${final}` : ''}.`)
          // Every model call ends with some text (an empty one would be called again): the final text not streamed yet.
          if (streamed === base) yield text((final.startsWith(base) ? final.slice(base.length) : final) || 'The remote agent finished.')
          return
        }
      }
      if (signal.aborted) return
      if (!task.id || attempt >= 2) throw new Error('The remote agent\'s stream ended before its task did.')
      source = resubscribe(remote, task.id, signal)
    }
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}

/** The task: the text of the proxy's user message (its last). */
const taskText = (request: ModelRequest): string => {
  const user = [...request.messages].reverse().find((m) => m.role === 'user')
  return user ? user.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n') : ''
}

/** The answer the reply so far ends with: the result of a pseudo call, with the question it answers. */
const lastAnswer = (request: ModelRequest): { question: Question; result: ToolResultBlock } | null => {
  const msg: Msg | undefined = request.messages.at(-1)
  const last = msg?.role === 'assistant' ? msg.content.at(-1) : undefined
  if (last?.type !== 'tool_result' || (last.name !== REMOTE_APPROVAL && last.name !== REMOTE_INPUT)) return null
  const call = msg!.content.find((b): b is ToolCallBlock => b.type === 'tool_call' && b.id === last.id)
  const question = call ? Question.safeParse(parse(call.input)) : null
  return question?.success ? { question: question.data, result: last } : null
}

/** The parts of an answer: an approval as agentlog.answer (to an agentlog remote) or yes/no; input as given. */
const answerParts = (question: Question, result: ToolResultBlock): Json[] => {
  if (result.name === REMOTE_APPROVAL) {
    const approve = result.state === 'success'
    if (!question.asking) return [{ text: approve ? 'yes' : 'no' }]
    return [{ data: { kind: 'agentlog.answer', tool_call_id: question.asking.id, ...(question.asking.session_id ? { session_id: question.asking.session_id } : {}), decision: approve ? 'approve' : 'deny' } }]
  }
  const given = outputText(result.output)
  const value = parse(given)
  return [typeof value === 'object' && value !== null ? { data: value } : { text: given }]
}

const parse = (json: string): unknown => {
  try {
    return JSON.parse(json)
  } catch {
    return undefined
  }
}
