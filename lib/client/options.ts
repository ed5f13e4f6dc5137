// What remoteAgent takes (RemoteAgentOptions, checked before anything is sent) and what one of its
// replies takes (RemoteReplyOptions).
import { checkKnownKeys, optionKeys } from '../core/strictOptions.js'
import { AgentError, describe } from '../core/errors.js'

export interface RemoteAgentOptions {
  /** The server's base URL, e.g. http://127.0.0.1:8787 */
  url: string
  session: string
  token?: string
  fetch?: typeof globalThis.fetch
  /** What `reply()` resolves to on an interrupted reply, as a local agent's `interruptText`; default DEFAULT_INTERRUPT_TEXT. */
  interruptText?: string
  /** The longest line of an event stream accepted, in bytes (default 16 MiB); a longer one ends the stream with TOO_LARGE. */
  maxLineBytes?: number
}

export interface RemoteReplyOptions {
  /** Aborting it asks the server to interrupt the reply and ends the stream as soon as the server has done so. */
  signal?: AbortSignal
  /** Make `reply()` reject with an AbortError on an interrupted reply instead of resolving. */
  rejectOnInterrupt?: boolean
  /**
   * Yield the events of the session's sub-agents (agentTool) too, interleaved as they happen, each
   * tagged with its `metadata.session_id`, as a local agent's `replyStream` does; `state` and `log`
   * keep only the session's own events.
   */
  descendants?: boolean
}

const REMOTE_OPTION_KEYS = optionKeys<RemoteAgentOptions>({ url: true, session: true, token: true, fetch: true, interruptText: true, maxLineBytes: true })
const REMOTE_REPLY_OPTION_KEYS = optionKeys<RemoteReplyOptions>({ signal: true, rejectOnInterrupt: true, descendants: true })

/** Refuses reply options a remote reply does not know (a typo such as `signall`). */
export const checkRemoteReplyOptions = (options: RemoteReplyOptions): void => {
  if (typeof options !== 'object' || options === null) throw new AgentError('INVALID_OPTION', `Reply options must be an object such as { signal }; received ${describe(options)}.`)
  checkKnownKeys('remote reply options', options, REMOTE_REPLY_OPTION_KEYS)
  if (options.signal?.aborted) throw new AgentError('INVALID_OPTION', 'The signal passed to the reply is already aborted; nothing was started.')
}

/** Refuses options remoteAgent cannot work with, with a coded error that says what to pass. */
export const checkRemoteOptions = (options: RemoteAgentOptions): void => {
  if (typeof options?.url !== 'string' || typeof options.session !== 'string' || !options.session)
    throw new AgentError('INVALID_OPTION', 'remoteAgent needs { url, session }: the server URL and a session id (POST /sessions makes one).')
  checkKnownKeys('remoteAgent', options, REMOTE_OPTION_KEYS)
  if (!/^https?:\/\/[^/]/i.test(options.url))
    throw new AgentError('INVALID_OPTION', `remoteAgent: url must be the server's http or https URL, such as http://127.0.0.1:8787; received ${JSON.stringify(options.url)}.`)
  if (options.interruptText !== undefined && typeof options.interruptText !== 'string')
    throw new AgentError('INVALID_OPTION', `remoteAgent: interruptText must be a string; received ${describe(options.interruptText)}.`)
  if (options.maxLineBytes !== undefined && !(Number.isSafeInteger(options.maxLineBytes) && options.maxLineBytes > 0))
    throw new AgentError('INVALID_OPTION', `remoteAgent: maxLineBytes must be a whole number of bytes above 0; received ${describe(options.maxLineBytes)}.`)
}
