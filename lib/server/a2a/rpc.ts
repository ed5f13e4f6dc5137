// JSON-RPC 2.0 as A2A 1.0 uses it: the request's shape, the error codes (the JSON-RPC ones and
// A2A's -32001…-32009, with google.rpc.ErrorInfo in `data` as the SDK sends them), and how a coded
// AgentError of the hub becomes one. Plain JSON only; the endpoint (index.ts) does the HTTP.
import { AgentError } from '../../core/errors.js'
import { publicError } from '../http.js'

export const A2A_VERSION = '1.0'

export const RPC = {
  PARSE_ERROR: -32700, INVALID_REQUEST: -32600, METHOD_NOT_FOUND: -32601, INVALID_PARAMS: -32602, INTERNAL: -32603,
  TASK_NOT_FOUND: -32001, TASK_NOT_CANCELABLE: -32002, PUSH_NOT_SUPPORTED: -32003, UNSUPPORTED_OPERATION: -32004,
  CONTENT_TYPE_NOT_SUPPORTED: -32005, VERSION_NOT_SUPPORTED: -32009,
} as const

const REASONS: Record<number, string> = {
  [-32001]: 'TASK_NOT_FOUND', [-32002]: 'TASK_NOT_CANCELABLE', [-32003]: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
  [-32004]: 'UNSUPPORTED_OPERATION', [-32005]: 'CONTENT_TYPE_NOT_SUPPORTED', [-32009]: 'VERSION_NOT_SUPPORTED',
}

/** A refusal with its JSON-RPC code and a message saying what was expected. */
export class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly status = 200) {
    super(message)
  }
}

export interface RpcRequest {
  id: string | number | null
  method: string
  params: Record<string, unknown>
}

export type RpcId = RpcRequest['id']

/** The request's id when it is one JSON-RPC allows (a string, a whole number or null), else null. */
export const idOf = (body: unknown): RpcId => {
  const id = (body as { id?: unknown } | null)?.id
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null
}

/** Checks a parsed body is one JSON-RPC 2.0 request with an object of params (-32600 / -32602 otherwise). */
export const parseRequest = (body: unknown): RpcRequest => {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new RpcError(RPC.INVALID_REQUEST, 'The body must be one JSON-RPC 2.0 request object: { "jsonrpc": "2.0", "id", "method", "params" } (batches are not supported).')
  const r = body as Record<string, unknown>
  if (r.jsonrpc !== '2.0') throw new RpcError(RPC.INVALID_REQUEST, 'The request needs "jsonrpc": "2.0".')
  if ('id' in r && r.id !== null && typeof r.id !== 'string' && !(typeof r.id === 'number' && Number.isInteger(r.id)))
    throw new RpcError(RPC.INVALID_REQUEST, 'The request\'s "id" must be a string, a whole number or null.')
  if (typeof r.method !== 'string' || r.method === '') throw new RpcError(RPC.INVALID_REQUEST, 'The request needs a "method" (a string such as "SendMessage").')
  const params = r.params ?? {}
  if (typeof params !== 'object' || params === null || Array.isArray(params)) throw new RpcError(RPC.INVALID_PARAMS, `"params" of ${r.method} must be an object.`)
  return { id: idOf(r), method: r.method, params: params as Record<string, unknown> }
}

/** AgentError codes that are the caller's mistake (bad params) rather than the server's. */
const PARAMS = new Set(['INVALID_INPUT', 'INVALID_SESSION_ID', 'REPLY_RUNNING', 'REPLY_PAUSED', 'NOT_PAUSED', 'WRONG_REPLY', 'CALL_CLOSED', 'NOT_ASKING', 'NOT_SUBMITTED', 'UNKNOWN_CALL', 'SESSION_EXISTS'])

/** The JSON-RPC error object for anything thrown while answering; `internal` says the server's log should hear it. */
export const rpcError = (error: unknown): { code: number; message: string; data?: unknown[]; internal: boolean; status: number } => {
  if (error instanceof RpcError) return { ...withData(error.code, error.message), internal: false, status: error.status }
  const { code, message, internal } = publicError(error)
  if (error instanceof AgentError) {
    if (code === 'NOT_FOUND') return { ...withData(RPC.TASK_NOT_FOUND, message), internal, status: 200 }
    if (code === 'TOO_LARGE') return { ...withData(RPC.INVALID_REQUEST, message), internal, status: 413 }
    if (code === 'UNSUPPORTED_MEDIA_TYPE') return { ...withData(RPC.INVALID_REQUEST, message), internal, status: 415 }
    if (code === 'LIMIT_REACHED') return { ...withData(RPC.INTERNAL, message), internal, status: 429 }
    if (PARAMS.has(code)) return { ...withData(RPC.INVALID_PARAMS, `${code}: ${message}`), internal, status: 200 }
  }
  return { ...withData(RPC.INTERNAL, internal ? message : `${code}: ${message}`), internal, status: 200 }
}

const withData = (code: number, message: string) =>
  REASONS[code] ? { code, message, data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: REASONS[code], domain: 'a2a-protocol.org' }] } : { code, message }

/** A JSON-RPC response body. */
export const envelope = (id: RpcId, outcome: { result: unknown } | { error: { code: number; message: string; data?: unknown[] } }) => ({ jsonrpc: '2.0' as const, id, ...outcome })

/** A string param, required. */
export const stringParam = (params: Record<string, unknown>, name: string, method: string): string => {
  const value = params[name]
  if (typeof value !== 'string' || value === '') throw new RpcError(RPC.INVALID_PARAMS, `${method} needs "${name}": a non-empty string.`)
  return value
}
