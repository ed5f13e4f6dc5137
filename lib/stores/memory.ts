// memoryStore: sessions in this process's memory (tests, demos). Each session is a list of events
// and its info; `open` lends the list to one writer at a time (SESSION_BUSY for a second one) as a
// LogStore whose appends also reach the session's followers. Nothing survives the process.
import { Observable, Subject } from 'rxjs'
import { AgentError } from '../core/errors.js'
import { checkKnownKeys } from '../core/strictOptions.js'
import type { AgentEvent } from '../core/events.js'
import type { LogStore } from '../core/log.js'
import type { SessionInfo, SessionStore } from '../hub/types.js'
import type { ReplyStatus } from '../../reducers/state.js'
import { checkMetadata, checkPage, checkSessionId, notFound, pageFrom, pageOf, sessionBusy, sessionExists, statusAfter, titleOf, newSessionId } from './sessions.js'

interface Session {
  info: SessionInfo & { status: ReplyStatus }
  events: AgentEvent[]
  appended: Subject<AgentEvent>
  writer: LogStore | null
}

/** memoryStore takes no options yet; any key given is refused as a typo. */
export type MemoryStoreOptions = Record<string, never>

export const memoryStore = (options: MemoryStoreOptions = {}): SessionStore => {
  checkKnownKeys('memoryStore', options, [])
  const sessions = new Map<string, Session>()
  let closed = false

  const checkOpen = () => {
    if (closed) throw new AgentError('CLOSED', 'The session store is closed; create a new one.')
  }
  const find = (session_id: string): Session => {
    checkOpen()
    const session = sessions.get(checkSessionId(session_id))
    if (!session) throw notFound(session_id)
    return session
  }

  const ownedLog = (session: Session): LogStore => {
    const { events, info } = session
    let open = true
    const log: LogStore = {
      events,
      append(batch, { expectedSeq }) {
        if (!open) throw new AgentError('CLOSED', `The log of session ${info.session_id} is closed; open the session again to go on.`)
        if (expectedSeq !== events.length)
          throw new AgentError('LOG_CONFLICT', `Expected to append after event ${expectedSeq}, but session ${info.session_id} holds ${events.length}: another writer appended first. Reload the session and retry.`)
        for (const event of batch) {
          events.push(event)
          info.status = statusAfter(info.status, event.type)
          if (info.title === undefined) {
            const title = titleOf(event)
            if (title !== undefined) info.title = title
          }
        }
        info.last_seq = events.length
        info.updated_at = new Date().toISOString()
        for (const event of batch) session.appended.next(event)
      },
      read: ({ fromSeq = 0 } = {}) => events.slice(fromSeq),
      follow: ({ fromSeq = 0 } = {}) => follow(session, fromSeq),
      async close() {
        if (!open) return
        open = false
        if (session.writer === log) session.writer = null
      },
    }
    return log
  }

  const follow = (session: Session, fromSeq: number) => new Observable<AgentEvent>((subscriber) => {
    for (let i = fromSeq; i < session.events.length; i++) subscriber.next(session.events[i])
    return session.appended.subscribe(subscriber)
  })

  return {
    async list(options) {
      checkOpen()
      const { limit, after } = checkPage(options)
      return pageOf(pageFrom([...sessions.values()].map((s) => s.info), limit, after).map((info) => ({ ...info })), limit)
    },
    async create(options = {}) {
      checkOpen()
      const session_id = checkSessionId(options.session_id ?? newSessionId())
      const metadata = checkMetadata(options.metadata)
      if (sessions.has(session_id)) throw sessionExists(session_id)
      const now = new Date().toISOString()
      const info: Session['info'] = { session_id, created_at: now, updated_at: now, status: 'idle', last_seq: 0, metadata }
      sessions.set(session_id, { info, events: [], appended: new Subject(), writer: null })
      return { ...info }
    },
    async open(session_id) {
      const session = find(session_id)
      if (session.writer) throw sessionBusy(session_id, 'another agent in this process', true)
      session.writer = ownedLog(session)
      return session.writer
    },
    async read(session_id, { fromSeq = 0 } = {}) {
      return find(session_id).events.slice(fromSeq)
    },
    follow: (session_id, { fromSeq = 0 } = {}) => new Observable<AgentEvent>((subscriber) => {
      try {
        return follow(find(session_id), fromSeq).subscribe(subscriber)
      } catch (error) {
        subscriber.error(error)
      }
    }),
    async info(session_id) {
      return { ...find(session_id).info }
    },
    async delete(session_id) {
      const session = find(session_id)
      if (session.writer) throw sessionBusy(session_id, 'an agent in this process', true)
      sessions.delete(session_id)
      session.appended.complete()
    },
    async close() {
      closed = true
      for (const session of sessions.values()) session.appended.complete()
    },
  }
}
