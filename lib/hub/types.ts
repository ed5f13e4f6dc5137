// The contract between the session layer and the layers above it (server, remote client, CLI):
// a SessionStore says where sessions live; a Hub serves many sessions in one process and routes a
// request for a session another process owns to that owner. Implementations live beside this file
// (the hub) and in lib/stores/ (memory, directory, postgres).
import type { Observable } from 'rxjs'
import type { AgentEvent, OutputEvent } from '../core/events.js'
import type { LogStore } from '../core/log.js'
import type { Msg } from '../core/messages.js'
import type { Reply, WaitingCall } from '../agent/text.js'
import type { CallRef } from '../subagents/tree.js'
import type { Answer } from './answers.js'
import type { Agent, AgentOptions, AgentInput } from '../agent/agent.js'
import type { ReplyOptions } from '../agent/replyOptions.js'
import type { InterruptOptions, InterruptResult, QueueResult, SteerResult } from '../agent/talk.js'
import type { AgentState, ReplyStatus } from '../../reducers/state.js'
import type { Command, RoutedRequest } from './commands.js'
import type { ParentLink } from '../subagents/childLogs.js'

export interface SessionInfo {
  session_id: string
  created_at: string
  updated_at: string
  /** `damaged`: listed although its log or files cannot be read (see `damage`); the others are listed as usual. */
  status: ReplyStatus | 'damaged'
  last_seq: number
  metadata: Record<string, unknown>
  /** Why a `damaged` session cannot be read: the error's code (INVALID_LOG, ...) and message. */
  damage?: { code: string; message: string }
  /** The first user message, on one line and shortened (stores/sessions.ts titleOf); absent before there is one. */
  title?: string
}

export interface Page<T> {
  items: T[]
  /** Pass back as `after` for the next page; absent on the last page. */
  next?: string
}

export interface SessionStore {
  list(options?: { limit?: number; after?: string }): Promise<Page<SessionInfo>>
  /** Creates an empty session; refuses an id that exists (SESSION_EXISTS) or is not valid (INVALID_SESSION_ID). */
  create(options?: { session_id?: string; metadata?: Record<string, unknown> }): Promise<SessionInfo>
  /** Opens a session for writing; a second writer anywhere is refused with SESSION_BUSY. */
  open(session_id: string): Promise<LogStore>
  /** The session's events after `fromSeq`, without owning it; NOT_FOUND for an unknown session. */
  read(session_id: string, options?: { fromSeq?: number }): Promise<AgentEvent[]>
  /** The events after `fromSeq`, then every event appended by any writer, in order, no gaps or duplicates. */
  follow(session_id: string, options?: { fromSeq?: number }): Observable<AgentEvent>
  info(session_id: string): Promise<SessionInfo>
  /**
   * Deletes the session under its lease: SESSION_BUSY while a writer holds it (here: `here: true`);
   * no writer may open it meanwhile. Afterwards nothing of it remains, and a session created with
   * that id starts empty.
   */
  delete(session_id: string): Promise<void>
  close(): Promise<void>
  /** Optional: the state of a session, folded from its latest trusted snapshot (default: a fold of `read`). */
  state?(session_id: string): Promise<AgentState>
  /**
   * Optional: sessions whose log ends inside a running reply while no writer holds them (their
   * owner died), at most `limit`. A hub opens each now and then, which closes the cut reply.
   */
  orphans?(options?: { limit?: number }): Promise<string[]>
  /** Optional: reaching the owner of a session in another process (postgresStore). */
  readonly routing?: SessionRouting
}

/** How a hub reaches the owner of a session that another process holds open. */
export interface SessionRouting {
  /**
   * Has the owner apply `command`; resolves with the events it caused, or rejects with the owner's
   * coded refusal. While the request waits, `takeOver` is called now and then: it opens the session
   * here if its owner is gone (the request is then answered here).
   */
  send(session_id: string, command: Command, takeOver: () => Promise<void>): Promise<AgentEvent[]>
  /** Registers the hub that answers requests for the sessions it holds open. */
  serve(owner: SessionOwner): SessionServer
}

export interface SessionOwner {
  /** The session is open in this process. */
  has(session_id: string): boolean
  /** The sessions open in this process. */
  sessions(): string[]
  /**
   * Applies a routed command to the session held here, once: when the log already holds the input
   * event tagged with `request.id` (an owner applied it and died before answering), answers with
   * the events it caused instead. Null when the session is no longer held here.
   */
  run(session_id: string, command: Command, request: RoutedRequest): Promise<AgentEvent[] | null>
}

export interface SessionServer {
  /** The session was just opened here: its waiting requests are answered now. */
  opened(session_id: string): void
  stop(): void
}

export interface HubOptions {
  store: SessionStore
  /** The agent options of a session (its log is supplied by the hub). */
  agent: (session_id: string) => Omit<AgentOptions, 'log' | 'session_id'> | Promise<Omit<AgentOptions, 'log' | 'session_id'>>
  /** Sessions kept open in memory at most (least recently used closed first). */
  maxLive?: number
  /** A session unused this long is closed (its lease released). */
  idleMs?: number
  /**
   * How often to look for replies a dead owner left running (the store's `orphans`) and close them
   * here as interrupted (default 1000 ms; false: never).
   */
  sweepMs?: number | false
}

/** A session and the sub-agent sessions under it, from the links in their logs (SessionHandle.tree, sessionTree). */
export interface SessionTree {
  session_id: string
  status: SessionInfo['status']
  /** The call this session runs as a sub-agent (its parent session, reply and call), or null for a root. */
  parent: ParentLink | null
  title?: string
  /** The sub-agent sessions its calls started, oldest first (calls whose sub-agent never got a session are left out). */
  children: SessionTree[]
}

/** The agent's surface for one session, wherever its owner runs. */
export interface SessionHandle {
  readonly session_id: string
  /** A reply's events: a message or input event, or an answer to a waiting call of the tree (see dispatch), which goes on with the session's reply. */
  replyStream(input: AgentInput | string | Answer, options?: ReplyOptions): AsyncIterable<OutputEvent>
  reply(input: AgentInput | string | Answer, options?: ReplyOptions): Promise<Msg>
  /**
   * Applies an input event (or starts a reply), or an answer to a waiting call of the tree
   * (`{ approve: call, input? }`, `{ deny: call, reason? }`, `{ submit: call, result }`, the call a
   * CallRef), without waiting for the reply; resolves with the events it caused (in the session the
   * call waits in), or rejects with the coded refusal.
   */
  dispatch(input: AgentInput | string | Answer, options?: { whilePaused?: 'refuse' | 'interrupt' | 'queue' }): Promise<AgentEvent[]>
  /**
   * Interrupts the running or paused reply (`when: 'step'`: once what runs now has finished); resolves
   * once REPLY_END is committed, to the waiting messages it handed back (none with `keepQueue`).
   */
  interrupt(options?: InterruptOptions): Promise<InterruptResult>
  /** A message for the running reply, joining at its next step boundary (while idle it starts a reply); resolves once recorded. */
  steer(input: AgentInput | string): Promise<SteerResult>
  /** Queues a message for the next reply (at once while idle); resolves once recorded. */
  queue(input: AgentInput | string): Promise<QueueResult>
  /** Takes a queued message back (UNKNOWN_QUEUED when none waits with that id). */
  unqueue(id: string): Promise<void>
  /**
   * Approves a waiting call of the session's tree (its id, or a call of `waiting_for`, which names
   * its session) and resolves, like Agent.approve, to the session's reply once it ends or parks again.
   */
  approve(call: CallRef, options?: { input?: Record<string, unknown> }, replyOptions?: ReplyOptions): Promise<Reply>
  /** Denies a waiting call of the tree (see approve) and resolves to the session's reply once it ends or parks again. */
  deny(call: CallRef, reason?: string, replyOptions?: ReplyOptions): Promise<Reply>
  /** Gives the result of a waiting external call of the tree (see approve) and resolves to the session's reply once it ends or parks again. */
  submitResult(call: CallRef, result: unknown, replyOptions?: ReplyOptions): Promise<Reply>
  state(): Promise<AgentState>
  /**
   * The calls the session's tree waits for: its own, or, for a paused sub-agent call, what that
   * sub-agent waits for (at any depth), each with the `session_id` it waits in. Read from the logs,
   * so every process of the hub answers it; answer them with approve / deny / submitResult here or
   * on the call's own session.
   */
  waiting(): Promise<WaitingCall[]>
  /**
   * The session's events after `fromSeq`, then live ones. `descendants: true`: its sub-agents' events
   * too (those whose call starts after `fromSeq`, and those of the reply in progress), each a copy
   * tagged with its `metadata.session_id` (the session's own events are untagged).
   */
  follow(options?: { fromSeq?: number; descendants?: boolean }): Observable<AgentEvent>
  /** The tree of sessions under this one (its sub-agents', theirs, ...), from the links in their logs. */
  tree(): Promise<SessionTree>
}

export interface Hub {
  create(options?: { session_id?: string; metadata?: Record<string, unknown> }): Promise<SessionInfo>
  list(options?: { limit?: number; after?: string }): Promise<Page<SessionInfo>>
  session(session_id: string): SessionHandle
  delete(session_id: string): Promise<void>
  /** Interrupts running replies, releases every lease, and closes the store. */
  close(): Promise<void>
  /** The agent options of a session, as given to createHub (the server's A2A card reads a new session's). */
  readonly agent?: HubOptions['agent']
  /** Calls `listener` with each agent this process holds open now and with each it opens later (instrumentation, e.g. agentlog/otel); returns the unsubscribe. */
  onAgent?(listener: (agent: Agent) => void): () => void
}
