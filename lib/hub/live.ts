// The sessions a hub holds open in this process: each an agent on its owned log, kept in
// least-recently-used order. A session is closed (its lease released, its memory freed) when it
// has been unused for `idleMs`, or when more than `maxLive` are open, least recently used first;
// never while a reply of it runs or a caller is using it, and at once when its log has failed.
import type { Agent } from '../agent/agent.js'
import type { LogStore } from '../core/log.js'
import { treeRunning } from '../subagents/tree.js'

export interface LiveSession {
  readonly session_id: string
  readonly agent: Agent
  /** The agent's log (a routed request reads the events after its position there). */
  readonly log: LogStore
  /** Callers using the session right now (a reply being streamed, a command being applied). */
  users: number
  lastUsed: number
  failed: boolean
  unwatch: () => void
  /** The logs of the sub-agents of this session's tree, open here with it (sessions of the same store), by session id. */
  readonly children: Map<string, LogStore>
  /** For a sub-agent's session: the live session of its tree's root, which holds it (and is what is used and closed). */
  readonly root?: LiveSession
  /**
   * A sub-agent's session opened on its own, outside its tree (its parent no longer waits on it):
   * the call it ran for. It takes no input (its agent tool's definition lives with its parent), only a Stop.
   */
  readonly detached?: { session_id: string; tool_call_id: string }
}

export class LiveSessions {
  private readonly sessions = new Map<string, LiveSession>()
  private timer: ReturnType<typeof setInterval> | null = null

  constructor(
    private readonly maxLive: number,
    private readonly idleMs: number,
    private readonly evict: (session: LiveSession) => Promise<void>,
  ) {}

  get size(): number {
    return this.sessions.size
  }

  get(session_id: string): LiveSession | undefined {
    return this.sessions.get(session_id)
  }

  values(): LiveSession[] {
    return [...this.sessions.values()]
  }

  add(session: LiveSession): void {
    this.sessions.set(session.session_id, session)
    this.timer ??= setInterval(() => this.sweep(), Math.max(10, Math.min(this.idleMs / 2, 30_000)))
    ;(this.timer as { unref?: () => void }).unref?.()
  }

  delete(session: LiveSession): boolean {
    if (this.sessions.get(session.session_id) !== session) return false
    this.sessions.delete(session.session_id)
    session.unwatch()
    if (this.sessions.size === 0 && this.timer) {
      clearInterval(this.timer)
      this.timer = null
    }
    return true
  }

  /** Marks a session in use (and most recently used) until the returned release is called. */
  use(session: LiveSession): () => void {
    session.users++
    this.touch(session)
    let released = false
    return () => {
      if (released) return
      released = true
      session.users--
      this.touch(session)
      this.trim()
    }
  }

  /** Closes the least recently used sessions that can be closed while more than maxLive are open. */
  trim(): void {
    if (this.sessions.size <= this.maxLive) return
    for (const session of this.sessions.values()) {
      if (this.sessions.size <= this.maxLive) break
      if (this.closable(session)) void this.evict(session)
    }
  }

  private touch(session: LiveSession) {
    session.lastUsed = Date.now()
    if (this.sessions.get(session.session_id) !== session) return
    this.sessions.delete(session.session_id)
    this.sessions.set(session.session_id, session)
  }

  private closable(session: LiveSession): boolean {
    return session.failed || (session.users === 0 && !treeRunning(session.agent))
  }

  private sweep() {
    const now = Date.now()
    for (const session of this.values()) if (this.closable(session) && (session.failed || now - session.lastUsed >= this.idleMs)) void this.evict(session)
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }
}
