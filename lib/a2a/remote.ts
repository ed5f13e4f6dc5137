// A remote A2A agent through @a2a-js/sdk's client: its card (name, description), a message sent as
// a stream read back as plain A2A 1.0 JSON (the SDK's own codecs), a task's text from either shape a
// server uses (artifact chunks, or the status message alone), what an INPUT_REQUIRED task asks, and
// CancelTask fired without waiting. Every request carries the caller's headers.
import { SendMessageRequest, StreamResponse, TaskState, CancelTaskRequest, ListTasksRequest, SubscribeToTaskRequest } from '@a2a-js/sdk'
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client'

export type Json = Record<string, any>

export interface Remote {
  readonly url: string
  readonly client: Client
  readonly name: string
  readonly description: string
}

/** The client of the agent whose card is under `url` (the SDK's convention: /.well-known/agent-card.json). */
export const connect = async (url: string, headers: Record<string, string> = {}): Promise<Remote> => {
  const fetchImpl: typeof fetch = (input, init = {}) => {
    const merged = new Headers(init.headers)
    for (const [name, value] of Object.entries(headers)) merged.set(name, value)
    return fetch(input, { ...init, headers: merged })
  }
  const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) })
  const client = await factory.createFromUrl(url)
  const card = await client.getAgentCard()
  return { url, client, name: card.name, description: card.description }
}

/** A message to send: a new task in `contextId`, or an answer to `taskId`. */
export type MessageRequest = Parameters<Client['sendMessageStream']>[0]

export const messageRequest = (parts: Json[], ids: { contextId?: string; taskId?: string }): MessageRequest =>
  SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts, ...ids } })

/** The responses of a sent message (or a resubscription), as A2A JSON. */
export async function* send(remote: Remote, request: MessageRequest, signal: AbortSignal): AsyncGenerator<Json> {
  for await (const event of remote.client.sendMessageStream(request, { signal })) yield StreamResponse.toJSON(event) as Json
}

export async function* resubscribe(remote: Remote, taskId: string, signal: AbortSignal): AsyncGenerator<Json> {
  for await (const event of remote.client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: taskId }), { signal })) yield StreamResponse.toJSON(event) as Json
}

/** Asks the remote to cancel; nobody waits for the answer (a Stop never waits for the other side). */
export const cancelSoon = (remote: Remote, taskId: string): void => {
  remote.client.cancelTask(CancelTaskRequest.fromJSON({ id: taskId })).catch(() => undefined)
}

/** Cancels every unfinished task of a context (what a crash left running there). */
export const cancelContext = async (remote: Remote, contextId: string): Promise<string[]> => {
  const page = await remote.client.listTasks(ListTasksRequest.fromJSON({ contextId, pageSize: 100 }))
  const open = page.tasks.filter((t) => !TERMINAL.has(t.status?.state ?? 0)).map((t) => t.id)
  await Promise.allSettled(open.map((id) => remote.client.cancelTask(CancelTaskRequest.fromJSON({ id }))))
  return open
}

const TERMINAL = new Set<number>([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_REJECTED])
export const TERMINAL_STATES = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_CANCELED', 'TASK_STATE_FAILED', 'TASK_STATE_REJECTED'])

/** The text of a list of parts (data parts as JSON, except agentlog's own waiting part). */
export const partsText = (parts: Json[] | undefined): string =>
  (parts ?? []).map((p) => (typeof p.text === 'string' ? p.text : p.data !== undefined && p.data?.kind !== 'agentlog.waiting' ? JSON.stringify(p.data) : '')).join('')

/** What an INPUT_REQUIRED status asks: its words, and, from an agentlog server, its single asking call. */
export const questionOf = (status: Json | undefined): { question: string; asking: { id: string; session_id?: string } | null } => {
  const parts: Json[] = status?.message?.parts ?? []
  const waiting = parts.find((p) => p.data?.kind === 'agentlog.waiting')?.data as { calls?: Json[] } | undefined
  const calls = Array.isArray(waiting?.calls) ? waiting!.calls : []
  const single = calls.length === 1 && calls[0].state === 'asking' && typeof calls[0].id === 'string' ? calls[0] : null
  const words = parts.filter((p) => typeof p.text === 'string').map((p) => p.text).join('\n')
  return { question: words || 'The remote agent needs input.', asking: single ? { id: single.id, ...(typeof single.session_id === 'string' ? { session_id: single.session_id } : {}) } : null }
}
