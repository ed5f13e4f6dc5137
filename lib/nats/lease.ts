// Who owns a session: this process registers as an owner (a key in the owners bucket, whose TTL is
// the lease, renewed every third of it) and holds a session by creating the session's key in the
// leases bucket with its owner id (create-if-absent). A key naming an owner that is gone is taken
// over with a revision-checked update, so of two processes racing for it exactly one wins. An
// owner is gone when its key ran out (killed, partitioned, paused past the lease), or at once when
// nothing answers on its ping subject (its connection closed: the process died), except just after
// this process reconnected (a server restart: the others are reconnecting too). Fencing of appends
// does not rest on clocks (writer.ts); side effects are fenced by `confirm` (confirm.ts).
// `abandoned` lists the leases of owners that are gone, for the store's `orphans` (the hub's sweeper).
import { AgentError } from '../core/errors.js'
import type { Nats } from './connection.js'
import type { Subscription } from '@nats-io/transport-node'
import { Ownership } from './confirm.js'
import { isConflict, isNoResponders, unavailable } from './errors.js'
import { keyOf, type Names } from './names.js'

/** How long a ping of an owner may take before it is taken as alive (a busy process answers late). */
const PING_MS = 1000

/** After this process reconnected, how long an owner's silence or missing key is not taken as its death (it may be reconnecting too). */
export const RECONNECT_GRACE_MS = 3000

/** The value of a lease whose session a live process let go of with its reply cut (store.ts): any process may take it, the sweeper closes it. */
export const ABANDONED = 'abandoned'

export class Lease extends Ownership {
  private registering: Promise<string> | null = null
  private timer: ReturnType<typeof setInterval> | null = null
  private ping: Subscription | null = null
  /** performance.now() of this process's last reconnection (0: never reconnected). */
  private reconnectedAt = 0
  /** Disconnections and reconnections seen so far (an owner's silence heard across one proves nothing). */
  private changes = 0
  private watching: Promise<Nats> | null = null

  constructor(
    nats: () => Promise<Nats>,
    private readonly n: Names,
    leaseMs: number,
    /** A session's log (or, without one, every log) must fail: this process no longer owns it. */
    onLost: (error: AgentError, session_id?: string) => void,
  ) {
    super(nats, leaseMs, onLost)
  }

  /** This process's owner id, registered on first use. */
  protected id(): Promise<string> {
    if (this.owner) return Promise.resolve(this.owner)
    this.registering ??= (async () => {
      const nats = await this.connection()
      const owner = `${process.pid}-${crypto.randomUUID().slice(0, 12)}`
      this.ping = nats.nc.subscribe(this.n.owner(owner), { callback: (_error, msg) => void msg.respond('') })
      const sentAt = performance.now()
      this.revision = await nats.owners.create(owner, this.record())
      this.provenAt = sentAt
      this.owner = owner
      this.timer = setInterval(() => void this.renew().catch(() => undefined), Math.max(50, Math.floor(this.leaseMs / 3)))
      this.timer.unref?.()
      return owner
    })().finally(() => (this.registering = null))
    return this.registering
  }

  /** The connection, its changes watched from the first use (a process that only sweeps must know when it reconnected too). */
  private connection(): Promise<Nats> {
    this.watching ??= this.nats().then((nats) => {
      void this.watch(nats)
      return nats
    }, (error: unknown) => {
      this.watching = null
      throw error
    })
    return this.watching
  }

  /** Connection changes: while disconnected, any held session may be taken (this process seems silent); once back, each is proven again. */
  private async watch(nats: Nats) {
    for await (const status of nats.nc.status()) {
      if (this.closed) return
      if (status.type !== 'disconnect' && status.type !== 'reconnect') continue
      this.changes++
      if (status.type === 'disconnect') this.suspectAll()
      else {
        this.reconnectedAt = performance.now()
        if (this.owner) void this.renew().then(() => this.proveSuspects(), () => undefined)
      }
    }
  }

  protected override lostAll(why: string) {
    this.ping?.unsubscribe()
    this.ping = null
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    super.lostAll(why)
  }

  /** Takes the session's lease; false when a live owner (another process) holds it. */
  async lock(session_id: string): Promise<boolean> {
    const key = keyOf(session_id)
    // Held here already (by an open or a delete in this process): the store reserves a session before locking, this is the guard behind it.
    if (this.held.has(key)) return false
    try {
      const nats = await this.connection()
      const owner = await this.id()
      // Read first: when another process owns the session (every routed command asks), that is one round trip and the ping.
      const entry = await nats.leases.get(key)
      if (entry && entry.operation === 'PUT' && entry.string() !== owner && await this.alive(nats, entry.string())) return false
      try {
        // Free, released, or its holder is gone: take it (by revision), if nobody did first.
        this.held.set(key, entry ? await nats.leases.update(key, owner, entry.revision) : await nats.leases.create(key, owner))
        return true
      } catch (error) {
        if (isConflict(error) || /exists/i.test((error as Error)?.message ?? '')) return false
        throw error
      }
    } catch (error) {
      throw unavailable(error, `taking the lease of session ${session_id}`)
    }
  }

  /**
   * The owner runs: its key has not run out and it answers its ping (both asked at once). Nothing
   * answering means its process died (or lost the server, and then its appends are fenced anyway);
   * a ping not answered in time (a paused or busy process) leaves it to the key. Just after this
   * process reconnected, neither silence nor a missing key counts: after a server restart every
   * owner is reconnecting, and its key may have run out while the server was away.
   */
  private async alive(nats: Nats, owner: string): Promise<boolean> {
    if (owner === ABANDONED) return false
    const recent = () => this.reconnectedAt > 0 && performance.now() - this.reconnectedAt < RECONNECT_GRACE_MS
    const changes = this.changes
    if (recent()) return true
    const [key, answers] = await Promise.all([
      nats.owners.get(owner),
      nats.nc.request(this.n.owner(owner), '', { timeout: PING_MS }).then(() => true, (error: unknown) => !isNoResponders(error)),
    ])
    // Asked across a reconnection (the questions waited in the client while it was away): not an answer.
    if (this.changes !== changes || recent()) return true
    return !!key && key.operation === 'PUT' && answers
  }

  /**
   * The sessions whose lease names an owner that is gone (each owner asked once): the leases a
   * process left when it died. Cheap: one listing of the leases bucket, which holds only the
   * sessions held now (a lease is deleted when its session is closed).
   */
  async abandoned(): Promise<{ key: string; revision: number }[]> {
    const nats = await this.connection()
    const keys: string[] = []
    for await (const key of await nats.leases.keys()) keys.push(key)
    const owners = new Map<string, Promise<boolean>>()
    const found = await Promise.all(keys.map(async (key) => {
      const entry = await nats.leases.get(key)
      if (!entry || entry.operation !== 'PUT' || entry.string() === this.owner) return null
      const owner = entry.string()
      if (!owners.has(owner)) owners.set(owner, this.alive(nats, owner))
      return (await owners.get(owner)) ? null : { key, revision: entry.revision }
    }))
    return found.filter((x) => x !== null)
  }

  /** Deletes an abandoned lease (of a session left idle or paused), unless it was taken meanwhile. */
  async clear(key: string, revision: number): Promise<void> {
    const nats = await this.nats()
    await nats.leases.delete(key, { previousSeq: revision }).catch(() => undefined)
  }

  /** Lets the session go; `abandon`: its reply was cut here (the log failed), so the lease says so for the sweeper of any process. */
  async unlock(session_id: string, abandon = false): Promise<void> {
    const key = keyOf(session_id)
    const revision = this.held.get(key)
    if (revision === undefined) return
    this.forget(key)
    const nats = await this.nats()
    if (abandon) await nats.leases.update(key, ABANDONED, revision).catch(() => undefined)
    else await nats.leases.delete(key, { previousSeq: revision }).catch(() => undefined)
  }

  async close(): Promise<void> {
    this.closed = true
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    const owner = this.owner
    this.owner = null
    this.ping?.unsubscribe()
    this.ping = null
    if (owner) await (await this.nats()).owners.delete(owner).catch(() => undefined)
  }
}
