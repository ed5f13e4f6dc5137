// The real @a2a-js/sdk client against a server, and plain JSON of what it returns (its protobuf-shaped
// objects through the SDK's own toJSON), so specs compare A2A 1.0 JSON as it travels.
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client'
import { CancelTaskRequest, GetTaskRequest, ListTasksRequest, SendMessageRequest, StreamResponse, SubscribeToTaskRequest, Task } from '@a2a-js/sdk'

export type Json = Record<string, any>

/** A client made from the server's card (ClientFactory.createFromUrl), with `headers` on every request. */
export const sdkClient = async (url: string, headers: Record<string, string> = {}): Promise<Client> => {
  const fetchImpl: typeof fetch = (input, init = {}) => fetch(input, { ...init, headers: { ...(init.headers as Record<string, string>), ...headers } })
  const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) })
  return factory.createFromUrl(url)
}

let n = 0
/** A SendMessage request from plain A2A JSON parts. */
export type Request = Parameters<Client['sendMessage']>[0]
export const request = (parts: Json[], extra: { contextId?: string; taskId?: string; returnImmediately?: boolean } = {}): Request =>
  SendMessageRequest.fromJSON({
    message: { messageId: `m-${++n}`, role: 'ROLE_USER', parts, ...(extra.contextId ? { contextId: extra.contextId } : {}), ...(extra.taskId ? { taskId: extra.taskId } : {}) },
    ...(extra.returnImmediately ? { configuration: { returnImmediately: true } } : {}),
  })

export const text = (t: string): Request => request([{ text: t }])

export const taskJson = (task: unknown): Json => Task.toJSON(task as Task) as Json
export const streamJson = (event: unknown): Json => StreamResponse.toJSON(event as StreamResponse) as Json

/** The text of a task's artifacts. */
export const artifactText = (task: Json): string => (task.artifacts ?? []).flatMap((a: Json) => a.parts ?? []).map((p: Json) => p.text ?? '').join('')

/** A raw JSON-RPC call (what the SDK would never send). */
export const rpc = async (url: string, body: unknown, headers: Record<string, string> = { 'a2a-version': '1.0' }) => {
  const response = await fetch(`${url}/a2a`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) })
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    const events = (await response.text()).split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as Json)
    return { status: response.status, body: events[0], events }
  }
  return { status: response.status, body: (await response.json()) as Json, events: [] as Json[] }
}

/** The SDK's request objects, from plain JSON through its own codecs. */
export const byId = (id: string): { get: Parameters<Client['getTask']>[0]; cancel: Parameters<Client['cancelTask']>[0]; subscribe: Parameters<Client['resubscribeTask']>[0] } => ({ get: GetTaskRequest.fromJSON({ id }), cancel: CancelTaskRequest.fromJSON({ id }), subscribe: SubscribeToTaskRequest.fromJSON({ id }) })
export const listRequest = (json: Json = {}): Parameters<Client['listTasks']>[0] => ListTasksRequest.fromJSON(json)
