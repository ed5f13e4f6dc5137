// directoryStore(dir): one JSONL file log per session (lib/fileLog.ts), the embedded default (Node
// only, from `agentlog/node`). `ID.jsonl` is the log, `ID.session.json` the session's creation time
// and metadata; the file log's lock makes one writer per session (SESSION_BUSY for another). Appends
// by this process's writers reach its followers at once; ids are checked before they name a file.
import fs from 'node:fs'
import path from 'node:path'
import { Observable, Subject } from 'rxjs'
import { AgentError, describe } from '../errors.js'
import type { AgentEvent } from '../events.js'
import { fileLog, type FileLogOptions } from '../fileLog.js'
import { readLogFile } from '../fileLog/read.js'
import type { LogStore } from '../log.js'
import type { SessionInfo, SessionStore } from '../hub/types.js'
import type { ReplyStatus } from '../../reducers/state.js'
import { checkMetadata, checkPage, checkSessionId, notFound, pageOf, sessionBusy, sessionExists, statusAfter, titleOf } from './sessions.js'

const META = '.session.json'

export interface DirectoryStoreOptions {
  /** Passed to each session's fileLog (durability, snapshots). */
  log?: Omit<FileLogOptions, 'onRecover'>
}

export const directoryStore = (dir: string, options: DirectoryStoreOptions = {}): SessionStore => {
  if (typeof dir !== 'string' || dir === '') throw new AgentError('INVALID_OPTION', `directoryStore: dir must be a directory path; received ${describe(dir)}.`)
  fs.mkdirSync(dir, { recursive: true })
  const appended = new Map<string, Subject<AgentEvent>>()
  const writers = new Map<string, LogStore>()
  let closed = false

  const logPath = (id: string) => path.join(dir, `${id}.jsonl`)
  const metaPath = (id: string) => path.join(dir, `${id}${META}`)
  const check = (session_id: string): string => {
    if (closed) throw new AgentError('CLOSED', `The session store ${dir} is closed; create a new one.`)
    const id = checkSessionId(session_id)
    if (!fs.existsSync(metaPath(id))) throw notFound(id)
    return id
  }
  const events = (id: string): AgentEvent[] => (fs.existsSync(logPath(id)) ? readLogFile(logPath(id)).events : [])
  const subject = (id: string) => {
    let s = appended.get(id)
    if (!s) appended.set(id, (s = new Subject()))
    return s
  }
  const forget = (id: string) => {
    const s = appended.get(id)
    if (s && !s.observed && !writers.has(id)) appended.delete(id)
  }

  const info = (id: string): SessionInfo => {
    const meta = JSON.parse(fs.readFileSync(metaPath(id), 'utf8')) as { created_at: string; metadata: Record<string, unknown> }
    const all = events(id)
    let status: ReplyStatus = 'idle'
    for (const event of all) status = statusAfter(status, event.type)
    const updated_at = fs.existsSync(logPath(id)) ? fs.statSync(logPath(id)).mtime.toISOString() : meta.created_at
    const title = all.map(titleOf).find((t) => t !== undefined)
    return { session_id: id, created_at: meta.created_at, updated_at, status, last_seq: all.length, metadata: meta.metadata, ...(title === undefined ? {} : { title }) }
  }

  const owned = (id: string, log: LogStore): LogStore => ({
    get events() {
      return log.events
    },
    append(batch, position) {
      log.append(batch, position)
      const s = appended.get(id)
      if (s) for (const event of batch) s.next(event)
    },
    read: (o) => log.read(o),
    follow: (o) => log.follow(o),
    snapshot: log.snapshot && (() => log.snapshot!()),
    async close() {
      if (writers.get(id) !== this) return
      writers.delete(id)
      forget(id)
      await log.close()
    },
  })

  return {
    async list(options) {
      if (closed) throw new AgentError('CLOSED', `The session store ${dir} is closed; create a new one.`)
      const { limit, after } = checkPage(options)
      const ids = fs.readdirSync(dir).filter((f) => f.endsWith(META)).map((f) => f.slice(0, -META.length))
        .filter((id) => after === undefined || id > after).sort().slice(0, limit + 1)
      return pageOf(ids.map(info), limit)
    },
    async create(options = {}) {
      if (closed) throw new AgentError('CLOSED', `The session store ${dir} is closed; create a new one.`)
      const id = checkSessionId(options.session_id ?? crypto.randomUUID())
      const metadata = checkMetadata(options.metadata)
      const created_at = new Date().toISOString()
      try {
        fs.writeFileSync(metaPath(id), `${JSON.stringify({ created_at, metadata })}\n`, { flag: 'wx', mode: 0o600 })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw sessionExists(id)
        throw error
      }
      return { session_id: id, created_at, updated_at: created_at, status: 'idle', last_seq: 0, metadata }
    },
    async open(session_id) {
      const id = check(session_id)
      if (writers.has(id)) throw sessionBusy(id, 'another agent in this process', true)
      let log: LogStore
      try {
        log = fileLog(logPath(id), options.log)
      } catch (error) {
        if (error instanceof AgentError && error.code === 'LOG_LOCKED') throw sessionBusy(id, 'another process')
        throw error
      }
      const writer = owned(id, log)
      writers.set(id, writer)
      return writer
    },
    async read(session_id, { fromSeq = 0 } = {}) {
      const id = check(session_id)
      return (writers.get(id)?.read({ fromSeq }) ?? events(id).slice(fromSeq))
    },
    follow: (session_id, { fromSeq = 0 } = {}) => new Observable<AgentEvent>((subscriber) => {
      let id: string
      try {
        id = check(session_id)
        const writer = writers.get(id)
        for (const event of writer ? writer.read({ fromSeq }) : events(id).slice(fromSeq)) subscriber.next(event)
      } catch (error) {
        subscriber.error(error)
        return
      }
      const subscription = subject(id).subscribe(subscriber)
      return () => {
        subscription.unsubscribe()
        forget(id)
      }
    }),
    async info(session_id) {
      return info(check(session_id))
    },
    async delete(session_id) {
      const id = check(session_id)
      if (writers.has(id)) throw sessionBusy(id, 'an agent in this process', true)
      if (fs.existsSync(`${logPath(id)}.lock`)) throw sessionBusy(id, 'another process')
      fs.rmSync(logPath(id), { force: true })
      fs.rmSync(`${logPath(id)}.snapshot`, { force: true })
      fs.rmSync(metaPath(id))
      appended.get(id)?.complete()
      appended.delete(id)
    },
    async close() {
      closed = true
      for (const writer of [...writers.values()]) await writer.close()
      for (const s of appended.values()) s.complete()
      appended.clear()
    },
  }
}
