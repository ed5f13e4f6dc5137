// natsStore: sessions on NATS JetStream, for many processes and machines. A session's events are
// the messages on its subject of one stream (load.ts), appended with the expected last position
// (writer.ts); its record (created_at, metadata) and snapshot are KV entries; one process owns a
// session at a time through a KV lease (lease.ts); a command for a session another process owns
// is routed to it (routing.ts); any process follows any session (follow.ts); `orphans` finds the
// running sessions a dead owner left (for the hub's sweeper). With `replicas: 3`
// on a three-node cluster, every acknowledged event survives the loss of a node.
import { checkKnownKeys, optionKeys } from '../core/strictOptions.js'
import type { NatsConnection } from '@nats-io/transport-node'
import { AgentError, describe } from '../core/errors.js'
import type { SessionInfo, SessionStore } from '../hub/types.js'
import { pgLog, type PgLog } from '../postgres/log.js'
import type { CommitInfo } from '../postgres/writer.js'
import { checkMetadata, checkPage, checkSessionId, encodeCursor, pageFrom, sessionBusy, sessionExists, type Cursor, newSessionId } from '../stores/sessions.js'
import { replay } from '../../reducers/root.js'
import { connectNats, type Nats } from './connection.js'
import { isConflict, unavailable } from './errors.js'
import { follow } from './follow.js'
import { Lease } from './lease.js'
import { attempt, lastPosition, loadInfo, loadSnapshot, readEvents, sessionRecord, startedAt } from './load.js'
import { idOf, keyOf, names } from './names.js'
import { natsRouting } from './routing.js'
import { Writer } from './writer.js'

export interface NatsStoreOptions {
  /** The server(s) to connect to, e.g. "nats://127.0.0.1:4222" (the store makes its own connection and closes it). */
  servers?: string | string[]
  /** Or the application's connection (left open on close). */
  connection?: NatsConnection
  /** The prefix of the store's stream, buckets and subjects (default "agentlog"). */
  name?: string
  /** Copies of the stream and buckets when the store creates them (3 on a three-node cluster; default 1). */
  replicas?: number
  /** How long a process that stopped renewing still owns its sessions (default 3000 ms). */
  leaseMs?: number
  /** A snapshot at a reply's end or pause once this many events passed (default 1000; false: none). */
  snapshots?: false | { every?: number }
  /** Called after each commit (figures for benchmarks and monitoring). */
  onCommit?: (info: CommitInfo) => void
  /** A snapshot that was not trusted on open, and why. */
  onSnapshotIgnored?: (session_id: string, why: string) => void
}

export interface NatsStore extends SessionStore {
  readonly name: string
  open(session_id: string): Promise<PgLog>
  /** Connects and creates the stream and buckets when missing (otherwise done on first use). */
  migrate(): Promise<number[]>
}

const NATS_OPTION_KEYS = optionKeys<NatsStoreOptions>({
  servers: true, connection: true, name: true, replicas: true, leaseMs: true, snapshots: true, onCommit: true, onSnapshotIgnored: true,
})

const checkOptions = (options: NatsStoreOptions) => {
  if (typeof options !== 'object' || options === null) throw new AgentError('INVALID_OPTION', `natsStore expects { servers } or { connection }; received ${describe(options)}.`)
  checkKnownKeys('natsStore', options, NATS_OPTION_KEYS)
  const { servers, connection, replicas = 1, leaseMs = 3000, snapshots } = options
  if (typeof snapshots === 'object' && snapshots !== null) checkKnownKeys('natsStore snapshots', snapshots, ['every'])
  if (!servers === !connection) throw new AgentError('INVALID_OPTION', 'natsStore: give exactly one of servers ("nats://host:4222", or a list) and connection (a NatsConnection).')
  const list = Array.isArray(servers) ? servers : servers === undefined ? [] : [servers]
  for (const s of list) if (typeof s !== 'string' || !/^(nats|tls|wss?):\/\/|^[\w.-]+:\d+$/.test(s))
    throw new AgentError('INVALID_OPTION', `natsStore: servers must be URLs like nats://127.0.0.1:4222; received ${describe(s)}.`)
  if (connection && typeof (connection as { request?: unknown }).request !== 'function') throw new AgentError('INVALID_OPTION', `natsStore: connection must be a NatsConnection; received ${describe(connection)}.`)
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 5) throw new AgentError('INVALID_OPTION', `natsStore: replicas must be a whole number from 1 to 5; received ${describe(replicas)}.`)
  if (!Number.isInteger(leaseMs) || leaseMs < 300) throw new AgentError('INVALID_OPTION', `natsStore: leaseMs must be a whole number of milliseconds, at least 300; received ${describe(leaseMs)}.`)
  const every = snapshots === false ? 0 : snapshots?.every ?? 1000
  if (!Number.isInteger(every) || every < 0) throw new AgentError('INVALID_OPTION', `natsStore: snapshots.every must be a whole number of at least 1; received ${describe(every)}.`)
  return { every, replicas, leaseMs }
}

export const natsStore = (options: NatsStoreOptions): NatsStore => {
  const { every, replicas, leaseMs } = checkOptions(options)
  const n = names(options.name ?? 'agentlog')
  let connecting: Promise<Nats> | null = null
  let connected: Nats | null = null
  const nats = (): Promise<Nats> => {
    connecting ??= connectNats(n, { servers: options.servers, connection: options.connection, replicas, leaseMs }).then((c) => (connected = c), (error: unknown) => {
      connecting = null
      throw error
    })
    return connecting
  }
  const owned = new Map<string, PgLog | null>()
  const lease = new Lease(nats, n, leaseMs, (error, session_id) => {
    if (session_id !== undefined) return owned.get(session_id)?.fail(error)
    for (const log of owned.values()) log?.fail(error)
  })
  const writer = new Writer(() => connected!, n, options.onCommit)
  let closed = false

  const checkOpen = () => {
    if (closed) throw new AgentError('CLOSED', 'The session store is closed; create a new one.')
  }
  const check = (session_id: string) => {
    checkOpen()
    return checkSessionId(session_id)
  }

  /** `run`, once more after the stream or buckets an operator deleted were made again (else its failure as it was). */
  const repairing = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run()
    } catch (error) {
      if ((error as AgentError)?.code !== 'LOG_UNAVAILABLE' || !connected || (await connected.repair().catch(() => [])).length === 0) throw error
      return run()
    }
  }

  const open = async (session_id: string): Promise<PgLog> => {
    const id = check(session_id)
    if (owned.has(id)) throw sessionBusy(id, 'another agent in this process', true)
    owned.set(id, null)
    let locked = false
    try {
      const c = await nats()
      locked = await repairing(() => lease.lock(id))
      if (!locked) throw sessionBusy(id, 'another process')
      const key = keyOf(id)
      const info = await loadInfo(c, n, id, key)
      const snapshot = every ? await loadSnapshot(c, n, id, key, info.last_seq, (why) => options.onSnapshotIgnored?.(id, why)) : null
      const events = await readEvents(c, n, id, key, snapshot?.seq ?? 0, info.position)
      const log: PgLog = pgLog({
        session_id: id, snapshot, events, status: info.status, every,
        schedule: (l) => writer.schedule(l),
        confirm: () => lease.confirm(id),
        // A log that failed here (its reply cut: too large an event, the server away too long) is let
        // go as abandoned, so a sweeper (of any process) closes its reply instead of leaving it running.
        release: async (failure) => {
          writer.remove(log)
          owned.delete(id)
          await lease.unlock(id, failure !== null)
        },
      })
      writer.add(log, info.position?.streamSeq ?? 0)
      owned.set(id, log)
      return log
    } catch (error) {
      owned.delete(id)
      if (locked) await lease.unlock(id)
      throw error
    }
  }

  const info = async (session_id: string): Promise<SessionInfo> => {
    const { position: _, ...rest } = await loadInfo(await nats(), n, check(session_id), keyOf(session_id))
    return rest
  }

  return {
    name: n.prefix,
    open,
    async migrate() {
      await nats()
      return []
    },
    async list(o) {
      checkOpen()
      const { limit, after } = checkPage(o)
      const c = await nats()
      const keys: string[] = []
      await attempt('listing sessions', async () => {
        for await (const key of await c.sessions.keys()) keys.push(key)
      })
      // Every record's start time orders them (newest first, as the other stores list).
      const started = await Promise.all(keys.map(async (key) => ({ session_id: idOf(key), created_at: await startedAt(c, idOf(key), key) })))
      const page = pageFrom(started.filter((s): s is Cursor => s.created_at !== null), limit, after)
      const infos = await Promise.all(page.slice(0, limit).map((s) => info(s.session_id).catch(() => null)))
      const items = infos.filter((x): x is SessionInfo => x !== null) // deleted meanwhile
      return page.length > limit ? { items, next: encodeCursor(page[limit - 1]) } : { items }
    },
    async create(o = {}) {
      const id = check(o.session_id ?? newSessionId())
      const metadata = checkMetadata(o.metadata)
      const c = await nats()
      await repairing(async () => {
        try {
          await c.sessions.create(keyOf(id), sessionRecord(id, metadata))
        } catch (error) {
          if (isConflict(error) || /exists/i.test((error as Error)?.message ?? '')) throw sessionExists(id)
          throw unavailable(error, `creating session ${id}`)
        }
      })
      return info(id)
    },
    async read(session_id, { fromSeq = 0 } = {}) {
      const id = check(session_id)
      const key = keyOf(id)
      const c = await nats()
      const { position } = await loadInfo(c, n, id, key)
      return readEvents(c, n, id, key, fromSeq, position)
    },
    follow: (session_id, { fromSeq = 0 } = {}) => follow(nats, n, check(session_id), fromSeq),
    info,
    async state(session_id) {
      const id = check(session_id)
      const key = keyOf(id)
      const c = await nats()
      const { position, last_seq } = await loadInfo(c, n, id, key)
      const snapshot = every ? await loadSnapshot(c, n, id, key, last_seq) : null
      return replay(await readEvents(c, n, id, key, snapshot?.seq ?? 0, position), snapshot?.state)
    },
    // Under the session's lease, reserved in `owned` first (as an open is): an open in this process
    // (a sub-agent's, which goes to the store directly) is refused until the delete is over, and
    // then finds nothing (NOT_FOUND); an open elsewhere finds the lease held.
    async delete(session_id) {
      const id = check(session_id)
      if (owned.has(id)) throw sessionBusy(id, 'an agent in this process', true)
      owned.set(id, null)
      let locked = false
      try {
        const c = await nats()
        locked = await repairing(() => lease.lock(id))
        if (!locked) throw sessionBusy(id, 'another process')
        const key = keyOf(id)
        await loadInfo(c, n, id, key)
        await attempt(`deleting session ${id}`, async () => {
          await c.jsm.streams.purge(n.stream, { filter: n.events(key) })
          await c.snapshots.purge(key)
          const waiting: string[] = []
          for await (const k of await c.requests.keys(`${key}.*`)) waiting.push(k)
          for (const k of waiting) await c.requests.purge(k)
          await c.sessions.purge(key)
        })
      } finally {
        if (locked) await lease.unlock(id)
        owned.delete(id)
      }
    },
    // Running sessions whose lease names an owner that is gone. The leases bucket holds only the
    // sessions held now, so a sweep costs a listing of it and, per abandoned session, its last
    // message's status header; an abandoned lease of a session not running is cleared, so it is
    // not looked at again.
    async orphans({ limit = 100 } = {}) {
      checkOpen()
      const c = await nats()
      const found: string[] = []
      for (const { key, revision } of await attempt('looking for replies whose owner died', () => lease.abandoned())) {
        if (found.length >= limit) break
        const id = idOf(key)
        if (owned.has(id)) continue
        if ((await lastPosition(c, n, key))?.status === 'running') found.push(id)
        else await lease.clear(key, revision)
      }
      return found
    },
    routing: natsRouting(nats, n),
    async close() {
      if (closed) return
      closed = true
      await Promise.all([...owned.values()].map((log) => log?.close()))
      await lease.close()
      if (connected && !options.connection) await connected.nc.drain().catch(() => undefined)
      else if (connecting && !options.connection) await connecting.then((c) => c.nc.close(), () => undefined)
    },
  }
}
