// directoryStore(dir): one JSONL file log per session (lib/stores/file/index.ts), the embedded default (Node
// only, from `agentlog/node`). `ID.jsonl` is the log, `ID.session.json` the session's creation time
// and metadata, `ID.jsonl.summary` what listing needs (summary.ts: listing reads no whole log); the
// file log's lock makes one writer per session (SESSION_BUSY for another). Appends by this
// process's writers reach its followers at once; ids are checked before they name a file. A
// session whose files are damaged is listed as `damaged` with the error's code, beside the others.
import { checkKnownKeys } from '../core/strictOptions.js'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { Observable, Subject } from 'rxjs'
import { AgentError, describe } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import { fileLog, type FileLogOptions } from './file/index.js'
import { realLogPath } from './file/identity.js'
import { acquireLock, isStaleLock, type Lock } from './file/lock.js'
import { readLogFile } from './file/read.js'
import type { LogStore } from '../core/log.js'
import type { SessionInfo, SessionStore } from '../hub/types.js'
import { checkMetadata, checkPage, checkSessionId, damagedInfo, EPOCH, notFound, pageFrom, pageOf, sessionBusy, sessionExists, statusAfter, titleOf, newSessionId } from './sessions.js'
import { saveSummary, saveSummarySync, summarize, summaryPath, type Summary } from './summary.js'

const META = '.session.json'
const LOCK = '.jsonl.lock'
/** Sessions summarized at once while listing. */
const LIST_CONCURRENCY = 16
/** A reader that read this many bytes past a saved summary saves a new one. */
const SAVE_AFTER_BYTES = 64 * 1024

export interface DirectoryStoreOptions {
  /** Passed to each session's fileLog (durability, snapshots). */
  log?: Omit<FileLogOptions, 'onRecover'>
}

export const directoryStore = (dir: string, options: DirectoryStoreOptions = {}): SessionStore => {
  if (typeof dir !== 'string' || dir === '') throw new AgentError('INVALID_OPTION', `directoryStore: dir must be a directory path; received ${describe(dir)}.`)
  if (typeof options !== 'object' || options === null) throw new AgentError('INVALID_OPTION', `directoryStore: options must be an object such as { log: { durability: 'reply' } }; received ${describe(options)}.`)
  checkKnownKeys('directoryStore', options, ['log'])
  checkKnownKeys('directoryStore log', options.log, ['durability', 'snapshots'])
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

  /** The session's info from its metadata file and its summary (never a fold of the log). */
  const readMeta = async (id: string) => {
    const meta = JSON.parse(await fsp.readFile(metaPath(id), 'utf8')) as { created_at: string; metadata: Record<string, unknown> }
    if (typeof meta?.created_at !== 'string') throw new AgentError('INVALID_LOG', `${metaPath(id)} is not a session's metadata file.`)
    return meta
  }
  const info = async (id: string): Promise<SessionInfo> => {
    const meta = await readMeta(id)
    const summary = await summarize(logPath(id), meta.created_at)
    if (summary.read >= SAVE_AFTER_BYTES && !writers.has(id)) {
      await saveSummary(logPath(id), summary)
      if (!fs.existsSync(metaPath(id))) await fsp.rm(summaryPath(logPath(id)), { force: true }) // deleted meanwhile
    }
    const updated_at = summary.mtime?.toISOString() ?? meta.created_at
    return { session_id: id, created_at: meta.created_at, updated_at, status: summary.status, last_seq: summary.last_seq, metadata: meta.metadata ?? {}, ...(summary.title === undefined ? {} : { title: summary.title }) }
  }
  /** When a session started, from its metadata file (a damaged one lists last, as damaged sessions show the epoch). */
  const startOf = (id: string): Promise<string> => readMeta(id).then((meta) => meta.created_at, () => EPOCH)
  /** `f` of each id, LIST_CONCURRENCY at a time, in order. */
  const inBatches = async <T>(ids: string[], f: (id: string) => Promise<T>): Promise<T[]> => {
    const out: T[] = []
    for (let i = 0; i < ids.length; i += LIST_CONCURRENCY) out.push(...await Promise.all(ids.slice(i, i + LIST_CONCURRENCY).map(f)))
    return out
  }
  /** A listed session: its info, or what is known of it and why it is damaged. */
  const listed = async (id: string): Promise<SessionInfo> => {
    try {
      return await info(id)
    } catch (error) {
      return damagedInfo(id, error)
    }
  }

  /** The writer's log: appends also reach this process's followers, and keep the summary current. */
  const owned = (id: string, log: LogStore, summary: Summary): LogStore => ({
    get events() {
      return log.events
    },
    append(batch, position) {
      log.append(batch, position)
      let status = summary.status
      for (const event of batch) status = statusAfter(status, event.type)
      summary.title ??= batch.map(titleOf).find((t) => t !== undefined) // a user message also changes the status: saved below
      summary.last_seq = position.expectedSeq + batch.length
      if (status !== summary.status) {
        summary.status = status
        saveSummarySync(logPath(id), { ...summary, size: fs.statSync(logPath(id)).size })
      }
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
      // Saved while the lock is held: a summary written after a delete could outlive the session.
      saveSummarySync(logPath(id), { ...summary, size: fs.statSync(logPath(id)).size })
      await log.close()
    },
  })

  return {
    async list(options) {
      if (closed) throw new AgentError('CLOSED', `The session store ${dir} is closed; create a new one.`)
      const { limit, after } = checkPage(options)
      const ids = (await fsp.readdir(dir)).filter((f) => f.endsWith(META)).map((f) => f.slice(0, -META.length))
      const started = await inBatches(ids, async (session_id) => ({ session_id, created_at: await startOf(session_id) }))
      const page = pageFrom(started, limit, after)
      // The cursor from the start time read here: a damaged session's info shows the epoch instead.
      return pageOf(await inBatches(page.map((s) => s.session_id), listed), limit, (i) => page[i])
    },
    async create(options = {}) {
      if (closed) throw new AgentError('CLOSED', `The session store ${dir} is closed; create a new one.`)
      const id = checkSessionId(options.session_id ?? newSessionId())
      const metadata = checkMetadata(options.metadata)
      const created_at = new Date().toISOString()
      try {
        fs.writeFileSync(metaPath(id), `${JSON.stringify({ created_at, metadata })}\n`, { flag: 'wx', mode: 0o600 })
        fs.rmSync(summaryPath(logPath(id)), { force: true }) // one a reader left behind a delete (of another session of this id)
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
      let summary: Summary
      try {
        summary = await summarize(logPath(id), (await readMeta(id)).created_at)
      } catch (error) {
        await log.close()
        throw error
      }
      const writer = owned(id, log, summary)
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
    // Running sessions whose lock a dead process left (a crash: the next writer takes it over).
    async orphans({ limit = 100 } = {}) {
      if (closed) throw new AgentError('CLOSED', `The session store ${dir} is closed; create a new one.`)
      const found: string[] = []
      for (const file of await fsp.readdir(dir)) {
        if (found.length >= limit) break
        const id = file.endsWith(LOCK) ? file.slice(0, -LOCK.length) : ''
        if (!id || writers.has(id) || !(await isStaleLock(path.join(dir, file))) || !fs.existsSync(metaPath(id))) continue
        const summary = await readMeta(id).then((meta) => summarize(logPath(id), meta.created_at)).catch(() => null)
        if (summary?.status === 'running') found.push(id)
      }
      return found
    },
    async delete(session_id) {
      const id = check(session_id)
      if (writers.has(id)) throw sessionBusy(id, 'an agent in this process', true)
      // Under the writer's lock, so no process opens the log while its files go.
      let lock: Lock
      try {
        lock = acquireLock(realLogPath(logPath(id)), () => undefined)
      } catch (error) {
        if (error instanceof AgentError && error.code === 'LOG_LOCKED') throw sessionBusy(id, 'another process')
        throw error
      }
      try {
        fs.rmSync(metaPath(id))
        fs.rmSync(logPath(id), { force: true })
        fs.rmSync(`${logPath(id)}.snapshot`, { force: true })
        fs.rmSync(summaryPath(logPath(id)), { force: true })
      } finally {
        lock.release()
      }
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
